"""Python floats keep their double value until the op's dtype is known, at every place a Python
number becomes tensor data: tensor(), full(), arange/linspace, the scalar operands of the ops,
__setitem__, fill_, clamp bounds, pow exponents, metrics thresholds. Each value below is lost by a
rounding to float32 on the way (PyTorch keeps all of them)."""
import math

import pytest

import concord
from conftest import stores

F64 = concord.float64
# 2^24 + 1 (no float32), a normal and the smallest subnormal below float32's range,
# and a value that float32 rounds to inf.
VALUES = [16777217.0, 1e-300, 2.0 ** -1074, 3.4028235677973366e38]
IDS = ["2^24+1", "1e-300", "2^-1074", "above-float32-max"]


def f64_device(device):
    if not stores(device, "float64"):
        pytest.skip("%s does not store float64 under its profile: nothing to keep there" % device)
    return device


@pytest.mark.parametrize("v", VALUES, ids=IDS)
def test_tensor_from_python_floats_keeps_float64(device, v):
    d = f64_device(device)
    assert concord.tensor(v, dtype=F64).item() == v
    assert concord.tensor(v, dtype=F64, device=d).item() == v
    assert concord.tensor([v, -v], dtype=F64, device=d).tolist() == [v, -v]
    assert concord.tensor([[v], [1.5]], dtype="float64", device=d).tolist() == [[v], [1.5]]
    assert concord.tensor([1, v], dtype=F64).tolist() == [1.0, v]   # mixed int and float


def test_tensor_without_dtype_is_float32_and_narrow_dtypes_round_once():
    assert concord.tensor(16777217.0).dtype == concord.float32   # PyTorch's default dtype
    assert concord.tensor(16777217.0).item() == 16777216.0
    # 1 + 2^-11 + 2^-30: float16 rounds it up to 1 + 2^-10; through float32 first it becomes the
    # tie 1 + 2^-11 and rounds to even, 1.0.
    x = 1.0 + 2.0 ** -11 + 2.0 ** -30
    assert concord.tensor(x, dtype=concord.float16).item() == 1.0 + 2.0 ** -10
    assert concord.tensor([x], dtype=concord.bfloat16).item() == 1.0   # bfloat16's spacing at 1 is 2^-7
    assert concord.tensor([1.0 + 2.0 ** -8 + 2.0 ** -30], dtype=concord.bfloat16).item() == 1.0 + 2.0 ** -7
    assert concord.tensor(1e-300, dtype=concord.float32).item() == 0.0
    assert concord.tensor(16777217.0, dtype=concord.int64).item() == 16777217


@pytest.mark.parametrize("v", VALUES, ids=IDS)
def test_full_and_fill_keep_float64(device, v):
    d = f64_device(device)
    assert concord.full((2,), v, dtype=F64, device=d).tolist() == [v, v]
    assert concord.zeros(3, dtype=F64, device=d).fill_(v).tolist() == [v] * 3


@pytest.mark.parametrize("v", VALUES, ids=IDS)
def test_setitem_keeps_float64(device, v):
    d = f64_device(device)
    t = concord.zeros(3, dtype=F64, device=d)
    t[1] = v
    assert t.tolist() == [0.0, v, 0.0]
    t = concord.zeros(3, dtype=F64, device=d)
    t[concord.tensor([True, False, True], device=d)] = v
    assert t.tolist() == [v, 0.0, v]
    t = concord.zeros(2, 2, dtype=F64, device=d)
    t[:, 0] = v
    assert t.tolist() == [[v, 0.0], [v, 0.0]]


@pytest.mark.parametrize("v", VALUES, ids=IDS)
def test_scalar_operands_keep_float64(device, v):
    d = f64_device(device)
    z = concord.zeros(2, dtype=F64, device=d)
    one = concord.ones(2, dtype=F64, device=d)
    assert (z + v).tolist() == [v, v]
    assert (v + z).tolist() == [v, v]
    assert concord.add(z, v).tolist() == [v, v]
    assert (z - v).tolist() == [-v, -v]
    assert (v - z).tolist() == [v, v]
    assert (one * v).tolist() == [v, v]
    assert (v * one).tolist() == [v, v]
    assert (v / one).tolist() == [v, v]
    assert (concord.full((2,), v, dtype=F64, device=d) / v).tolist() == [1.0, 1.0]
    assert concord.maximum(z, concord.tensor(v, dtype=F64, device=d)).tolist() == [v, v]
    assert concord.where(concord.tensor([True, False], device=d), z, v).tolist() == [0.0, v]
    # Comparisons against the value itself and against its float32 rounding.
    r32 = float(concord.tensor(v).item())   # what a float32 detour would make of v
    x = concord.full((1,), v, dtype=F64, device=d)
    assert (x == v).tolist() == [True]
    assert (x != v).tolist() == [False]
    if r32 != v:
        y = concord.full((1,), r32, dtype=F64, device=d)
        assert (y == v).tolist() == [False]
        assert (y < v).tolist() == [r32 < v]
        assert (y > v).tolist() == [r32 > v]


@pytest.mark.parametrize("v", VALUES, ids=IDS)
def test_clamp_bounds_keep_float64(device, v):
    d = f64_device(device)
    z = concord.zeros(2, dtype=F64, device=d)
    assert concord.clamp(z, min=v).tolist() == [v, v]
    big = concord.full((2,), math.inf, dtype=F64, device=d)
    assert concord.clamp(big, max=v).tolist() == [v, v]
    assert z.clamp(v, None).tolist() == [v, v]
    assert big.clamp(max=v).tolist() == [v, v]


def test_pow_exponent_keeps_float64(device):
    d = f64_device(device)
    # 2^(1 + 2^-30) is not 2: a float32 exponent would be exactly 1.
    e = 1.0 + 2.0 ** -30
    x = concord.full((1,), 2.0, dtype=F64, device=d)
    assert x.pow(e).item() == pytest.approx(2.0 ** e, rel=1e-15)
    assert x.pow(e).item() != 2.0
    assert (x ** e).item() != 2.0
    assert concord.pow(x, e).item() != 2.0
    # A subnormal exponent on 1 + something: float32 flushes nothing here, but 2^-1074 != 0.
    assert concord.full((1,), 1e300, dtype=F64, device=d).pow(2.0 ** -1074).item() == 1.0


def test_arange_and_linspace_keep_float64(device):
    d = f64_device(device)
    assert concord.arange(16777217.0, 16777219.0, 1.0, dtype=F64, device=d).tolist() == [16777217.0, 16777218.0]
    assert concord.linspace(1e-300, 3e-300, 3, dtype=F64, device=d).tolist() == \
        pytest.approx([1e-300, 2e-300, 3e-300], rel=1e-15)
    assert concord.linspace(0.0, 2.0 ** -1074, 2, dtype=F64, device=d).tolist() == [0.0, 2.0 ** -1074]


def test_metrics_threshold_keeps_float64():
    # A float64 score of 2^24 + 1 is not above a threshold of 2^24 + 1; it is above its float32
    # rounding 2^24.
    scores = concord.tensor([16777217.0, 16777218.0], dtype=F64)
    target = concord.tensor([1, 1])
    m = concord.metrics.Recall.binary(threshold=16777217.0)
    m.update(scores, target)
    assert m.compute().item() == 0.5
    m = concord.metrics.Recall.binary(threshold=1e-300)
    m.update(concord.tensor([1e-300, 2e-300], dtype=F64), target)
    assert m.compute().item() == 0.5
