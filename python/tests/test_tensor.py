"""Tensors from Python: creation, properties, printing, conversions, moves."""
import numpy as np
import pytest

import concord


def test_tensor_from_lists_infers_pytorch_dtypes():
    assert concord.tensor([1.5, 2.0]).dtype == concord.float32
    assert concord.tensor([1, 2]).dtype == concord.int64
    assert concord.tensor([True, False]).dtype == concord.bool
    assert concord.tensor(np.array([1.0])).dtype == concord.float64   # an array keeps its dtype
    t = concord.tensor([[1, 2, 3], [4, 5, 6]], dtype=concord.float64)
    assert t.shape == (2, 3) and t.dtype == concord.float64 and str(t.device) == "cpu"
    assert t.tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]


def test_dtype_arguments_accept_strings_numpy_and_torch_names():
    assert concord.zeros(2, dtype="float16").dtype == concord.float16
    assert concord.zeros(2, dtype=np.int32).dtype == concord.int32
    assert concord.zeros(2, dtype=np.dtype("uint8")).dtype == concord.uint8
    torch = pytest.importorskip("torch")
    assert concord.zeros(2, dtype=torch.bfloat16).dtype == concord.bfloat16
    with pytest.raises(concord.DtypeError):
        concord.zeros(2, dtype="complex64")


def test_creation_functions(device):
    z = concord.zeros(2, 3, device=device)
    assert z.shape == (2, 3) and z.tolist() == [[0.0] * 3] * 2 and str(z.device) == device
    assert concord.ones((4,), dtype=concord.int32, device=device).tolist() == [1, 1, 1, 1]
    assert concord.arange(5, device=device).tolist() == [0, 1, 2, 3, 4]
    assert concord.arange(5, device=device).dtype == concord.int64
    assert concord.arange(1, 2, 0.25, device=device).tolist() == [1.0, 1.25, 1.5, 1.75]
    assert concord.full((2,), 7).dtype == concord.int64
    assert concord.eye(3).numpy().tolist() == np.eye(3).tolist()


def test_random_with_a_seed_is_the_same_on_every_device(device):
    a = concord.rand(3, 4, seed=7).numpy()
    b = concord.rand(3, 4, device=device, seed=7).numpy()
    assert np.array_equal(a, b)
    assert ((a >= 0) & (a < 1)).all()
    n = concord.randn(1000, seed=1).numpy()
    assert abs(n.mean()) < 0.2 and 0.8 < n.std() < 1.2
    assert not np.array_equal(concord.rand(8, seed=1).numpy(), concord.rand(8, seed=2).numpy())


def test_repr_is_the_library_printing(device):
    t = concord.tensor([1.0, 2.5], device=device)
    r = repr(t)
    assert r.startswith("tensor([1.0000, 2.5000]") and "dtype=float32" in r
    assert (device == "cpu") == ("device=" not in r)


def test_item_and_python_numbers():
    assert concord.tensor([3]).item() == 3 and isinstance(concord.tensor([3]).item(), int)
    assert isinstance(concord.tensor([0.5]).item(), float)
    assert concord.tensor([True]).item() is True
    assert float(concord.tensor(2.5)) == 2.5 and int(concord.tensor(7)) == 7
    with pytest.raises(concord.ShapeError, match=r"^\[item\]"):
        concord.tensor([1, 2]).item()
    assert concord.tensor(4.0).tolist() == 4.0


def test_to_device_and_dtype(device):
    t = concord.arange(6, dtype=concord.float32).reshape(2, 3)
    d = t.to(device)
    assert str(d.device) == device and d.tolist() == t.tolist()
    h = d.to(concord.float16)
    assert h.dtype == concord.float16 and h.to("cpu").to("float32").tolist() == t.tolist()
    both = t.to(device, concord.int32)
    assert both.dtype == concord.int32 and str(both.device) == device
    assert d.cpu().device == concord.device("cpu")
    with pytest.raises(concord.DeviceError):
        t.to("nosuch:0")


def test_views_share_memory():
    t = concord.zeros(3, 4)
    v = t.view(4, 3)
    v[0, 0] = 5.0
    assert t[0, 0].item() == 5.0
    assert t.T.shape == (4, 3) and t.permute(1, 0).stride() == (1, 4)
    assert t.reshape(-1).shape == (12,) and t.unsqueeze(0).shape == (1, 3, 4)
    assert t.flatten().shape == (12,) and t.unsqueeze(1).squeeze(1).shape == (3, 4)


def test_ops_release_the_gil_and_run_in_threads():
    import threading
    a = concord.rand(128, 128, seed=1)
    want = (a @ a).numpy()
    results, errors = [], []

    def work():
        try:
            for _ in range(20):
                results.append(np.array_equal((a @ a).numpy(), want))
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(results) == 80 and all(results)
