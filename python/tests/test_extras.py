"""concord.linalg, concord.nn and concord.testing against PyTorch 1.13 and hand-written loops."""
import numpy as np
import pytest

import concord

torch = pytest.importorskip("torch")


def test_linalg_matches_pytorch(device):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((2, 4, 4)) + 4 * np.eye(4)
    b = rng.standard_normal((2, 4, 3))
    ca, cb = concord.tensor(a, device=device), concord.tensor(b, device=device)
    ta, tb = torch.tensor(a), torch.tensor(b)
    tol = 1e-12 if "float64" in str(ca.dtype) else 1e-4
    np.testing.assert_allclose(concord.linalg.solve(ca, cb).cpu().to("float64").numpy(),
                               torch.linalg.solve(ta, tb).numpy(), rtol=tol, atol=tol)
    np.testing.assert_allclose(concord.linalg.det(ca).cpu().to("float64").numpy(), torch.linalg.det(ta).numpy(),
                               rtol=tol * 10)
    np.testing.assert_allclose(concord.linalg.inv(ca).cpu().to("float64").numpy(), torch.linalg.inv(ta).numpy(),
                               rtol=tol, atol=tol)


def test_singular_solve_raises_and_solve_ex_does_not():
    a = concord.zeros(2, 2, dtype=concord.float64)
    b = concord.ones(2, dtype=concord.float64)
    with pytest.raises(concord.LinAlgError, match=r"^\[linalg.solve\].*singular"):
        concord.linalg.solve(a, b)
    _, info = concord.linalg.solve_ex(a, b)
    assert info.item() > 0


def test_linear_matches_torch_with_the_same_parameters(device):
    lin = concord.nn.Linear(5, 3, seed=11, device=device)
    x = concord.rand(4, 5, seed=2, device=device)
    w = torch.from_dlpack(lin.weight.cpu())
    bias = torch.from_dlpack(lin.bias.cpu())
    want = torch.nn.functional.linear(torch.from_dlpack(x.cpu()).double(), w.double(), bias.double())
    np.testing.assert_allclose(lin(x).cpu().numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    same = concord.nn.Linear(5, 3, seed=11)
    assert np.array_equal(same.weight.numpy(), lin.weight.cpu().numpy())   # same seed, same layer


def test_scan_with_a_python_callable_equals_the_hand_loop(device):
    lin = concord.nn.Linear(3, 3, seed=5, device=device)
    xs = concord.rand(6, 3, seed=9, device=device)
    init = concord.zeros(3, device=device)

    def step(c, x):
        c = (lin(x) + c).tanh()
        return c, c * 2

    carry, ys = concord.nn.scan(step, init, xs)
    c = init
    for t in range(6):
        c, _ = step(c, xs[t])
    concord.testing.assert_close(carry, c, rtol=0, atol=0)
    assert ys.shape == (6, 3)


def test_scan_propagates_python_errors():
    def bad(c, x):
        raise KeyError("inside")
    with pytest.raises(KeyError, match="inside"):
        concord.nn.scan(bad, concord.zeros(2), concord.ones(3, 2))
    with pytest.raises(TypeError, match=r"\[scan\]"):
        concord.nn.scan(lambda c, x: (c,), concord.zeros(2), concord.ones(3, 2))


def test_spectral_norm_gives_unit_sigma():
    w = concord.tensor(np.diag([3.0, 1.0, 0.5]), dtype=concord.float32)
    sn = concord.nn.SpectralNorm(w, n_power_iterations=30, seed=0)
    out = sn().numpy()
    assert abs(np.linalg.svd(out, compute_uv=False)[0] - 1.0) < 1e-4


def test_testing_accepts_numpy_torch_and_concord():
    c = concord.tensor([1.0, 2.0, 3.0])
    concord.testing.assert_close(c, np.array([1.0, 2.0, 3.0], dtype=np.float32))
    concord.testing.assert_close(c, torch.tensor([1.0, 2.0, 3.0]))
    concord.testing.assert_close(torch.tensor([True]), np.array([True]))
    r = concord.testing.compare(c, torch.tensor([1.0, 2.0, 3.5]))
    assert not r and r.mismatched == 1 and r.max_ulp > 0
    with pytest.raises(AssertionError) as e:
        concord.testing.assert_close(c, [1.0, 2.0, 3.5])
    assert isinstance(e.value, concord.Error)
    msg = str(e.value)
    assert "Mismatched elements: 1 / 3" in msg and "ULP" in msg
    assert msg == r.message()   # the C++ message, unchanged
