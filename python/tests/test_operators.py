"""Operators, reductions and matmul against PyTorch 1.13 on the same inputs: the values and the
result dtype (PyTorch's promotion, Python numbers included), on every device."""
import operator

import numpy as np
import pytest

import concord
from conftest import stores

torch = pytest.importorskip("torch")

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
OPS = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "//": operator.floordiv, "%": operator.mod, "**": operator.pow,
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}


def sample(dtype, n=6, seed=0, positive=False):
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.integers(0, 2, n).astype(bool)
    lo = 1 if positive else (-4 if dtype not in ("uint8",) else 0)
    if dtype in ("float16", "bfloat16", "float32", "float64"):
        return (rng.integers(lo * 4, 17, n) / 4.0).astype(np.float64)   # exact in every float dtype
    return rng.integers(max(lo, 1) if positive else lo, 5, n).astype(np.int64)


def pair(values, dtype, device="cpu"):
    tt = torch.tensor(values).to(getattr(torch, dtype))
    ct = concord.tensor(values, dtype=dtype, device=device)
    return ct, tt


def same(ct, tt):
    assert str(ct.dtype) == str(tt.dtype).replace("torch.", "concord."), (ct.dtype, tt.dtype)
    assert tuple(ct.shape) == tuple(tt.shape)
    got = np.asarray(ct.to("cpu").to(concord.float64).tolist(), dtype=np.float64)
    want = tt.to(torch.float64).numpy()
    np.testing.assert_array_equal(got, want)


def torch_result(op, a, b):
    try:
        return OPS[op](a, b), None
    except RuntimeError as e:   # PyTorch rejects the combination (bool - bool, ...)
        return None, e


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("da,db", [("int32", "float16"), ("uint8", "int8"), ("bool", "int16"), ("int64", "int64"),
                                   ("float32", "float64"), ("bfloat16", "float16"), ("int8", "bfloat16")])
def test_tensor_op_tensor_matches_pytorch(op, da, db):
    a, ta = pair(sample(da, seed=1), da)
    b, tb = pair(sample(db, seed=2, positive=op in ("/", "//", "%", "**")), db)
    want, err = torch_result(op, ta, tb)
    if err is not None:
        with pytest.raises(concord.Error):
            OPS[op](a, b)
        return
    same(OPS[op](a, b), want)


@pytest.mark.parametrize("op", ["+", "-", "*", "/", "//", "%", "**", "<", "=="])
@pytest.mark.parametrize("dt", ["uint8", "int32", "float16", "bfloat16", "float32", "bool"])
@pytest.mark.parametrize("number", [2, 1.5, True])
def test_python_numbers_promote_as_in_pytorch(op, dt, number):
    a, ta = pair(sample(dt, seed=3, positive=True), dt)
    for lhs, rhs, tl, tr in ((a, number, ta, number), (number, a, number, ta)):
        if op in ("**", "/", "//", "%") and lhs is number:
            continue   # a tensor with zeros or negatives as the divisor/exponent: not this test's subject
        want, err = torch_result(op, tl, tr)
        if err is not None:
            with pytest.raises(concord.Error):
                OPS[op](lhs, rhs)
            continue
        same(OPS[op](lhs, rhs), want)


def test_operators_on_every_device(device):
    a, ta = pair([1.0, -2.0, 3.5, 4.0], "float32", device)
    b, tb = pair([2.0, 0.5, -1.0, 3.0], "float32", device)
    same((a + b * 2 - 1) / b, (ta + tb * 2 - 1) / tb)
    same(-a, -ta)
    same(abs(a), abs(ta))
    same(a >= b, ta >= tb)
    assert str(((a + b) * 2).device) == device


def test_unary_ops_by_table_name():
    x, tx = pair([0.25, 1.0, 2.0, 4.0], "float64")
    for name in ("exp", "log", "sqrt", "sin", "tanh", "floor", "sigmoid"):
        np.testing.assert_allclose(getattr(concord, name)(x).numpy(), getattr(torch, name)(tx).numpy(), rtol=1e-15)
        np.testing.assert_allclose(getattr(x, name)().numpy(), getattr(torch, name)(tx).numpy(), rtol=1e-15)
    same(concord.sqrt(concord.tensor([4, 9])), torch.sqrt(torch.tensor([4, 9])))   # int -> float32


def test_bitwise_operators():
    a, ta = pair([1, 2, 3, 12], "int32")
    b, tb = pair([3, 3, 5, 10], "int32")
    same(a & b, ta & tb)
    same(a | b, ta | tb)
    same(a ^ b, ta ^ tb)
    same(~a, ~ta)


@pytest.mark.parametrize("dt", ["int32", "float32", "float64"])
def test_reductions_match_pytorch(dt, device):
    if not stores(device, dt):
        pytest.skip(device + " holds no " + dt)
    vals = np.arange(24, dtype=np.float64).reshape(2, 3, 4) - 11
    c = concord.tensor(vals, dtype=dt, device=device)
    t = torch.tensor(vals).to(getattr(torch, dt))
    same(c.sum(), t.sum())
    same(c.sum(dim=1), t.sum(dim=1))
    same(c.sum(dim=(0, 2), keepdim=True), t.sum(dim=(0, 2), keepdim=True))
    same(c.amax(dim=2), t.amax(dim=2))
    same(c.argmax(dim=1), t.argmax(dim=1))
    same(c.max(), t.max())
    v, i = c.min(dim=0)
    tv, ti = t.min(dim=0)
    same(v, tv)
    same(i, ti)
    if dt != "int32":
        same(c.mean(dim=-1), t.mean(dim=-1))
        np.testing.assert_allclose(c.var(dim=1).numpy(), t.var(dim=1).numpy(), rtol=1e-6)


@pytest.mark.parametrize("shapes", [((3, 4), (4, 5)), ((2, 3, 4), (4, 2)), ((4,), (4, 3)), ((4,), (4,))])
def test_matmul_matches_pytorch(shapes, device):
    sa, sb = shapes
    a = np.arange(np.prod(sa), dtype=np.float64).reshape(sa) / 4 - 1
    b = np.arange(np.prod(sb), dtype=np.float64).reshape(sb) / 8 - 0.5
    c = concord.tensor(a, device=device) @ concord.tensor(b, dtype=concord.float64, device=device)
    t = torch.tensor(a) @ torch.tensor(b)
    assert c.shape == tuple(t.shape)
    np.testing.assert_allclose(c.to("cpu").to(concord.float64).numpy(), t.numpy(), rtol=1e-6)


def test_unsupported_operand_types_raise_type_error():
    x = concord.ones(2)
    with pytest.raises(TypeError):
        x + "a"
    with pytest.raises(TypeError):
        x + [1, 2]
    with pytest.raises(TypeError):
        x @ 2
