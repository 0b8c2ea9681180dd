"""Zero-copy interop with NumPy and PyTorch (DLPack), checked by pointer, by mutation and by
lifetime in both directions; round trips for every dtype; bad arrays."""
import gc
import sys
import weakref

import numpy as np
import pytest

import concord

NUMPY_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]


def ptr(a):
    return a.__array_interface__["data"][0]


@pytest.mark.parametrize("dt", NUMPY_DTYPES)
def test_numpy_round_trip_every_dtype_shares_memory(dt):
    a = (np.arange(12) % 3).astype(dt).reshape(3, 4)
    t = concord.from_numpy(a)
    assert t.dtype == getattr(concord, dt) and t.shape == (3, 4)
    b = t.numpy()
    assert b.dtype == a.dtype and ptr(b) == ptr(a)
    np.testing.assert_array_equal(b, a)
    np.testing.assert_array_equal(np.asarray(t), a)
    assert ptr(np.asarray(t)) == ptr(a)


def test_writes_show_through_both_ways():
    a = np.zeros((2, 3), dtype=np.float32)
    t = concord.from_numpy(a)
    a[0, 1] = 4.0
    assert t[0, 1].item() == 4.0
    t[1, 2] = 9.0
    assert a[1, 2] == 9.0
    t.fill_(1.5)
    assert (a == 1.5).all()
    n = concord.arange(4, dtype=concord.int32).numpy()
    n[0] = 100


def test_tensor_keeps_the_array_alive_and_lets_it_go():
    a = np.arange(1000, dtype=np.float64)
    refs = sys.getrefcount(a)
    t = concord.from_numpy(a)
    assert sys.getrefcount(a) > refs
    r = weakref.ref(a)
    del a
    gc.collect()
    assert r() is not None                      # the tensor holds it
    assert t.sum().item() == sum(range(1000))   # and the memory is valid
    v = t[10:20]                                # a view holds it too
    del t
    gc.collect()
    assert r() is not None and v.tolist() == list(map(float, range(10, 20)))
    del v
    gc.collect()
    assert r() is None                          # released with the last view


def test_array_keeps_the_tensor_memory_alive():
    t = concord.arange(100000, dtype=concord.int64)
    a = t.numpy()
    del t
    gc.collect()
    big = [concord.ones(100000, dtype=concord.int64) for _ in range(4)]   # reuse freed memory if any
    assert a[99999] == 99999 and a.sum() == sum(range(100000))
    del big


def test_views_and_non_contiguous_arrays(device):
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    sub = a[1:, ::2]                                 # positive strides: a view
    t = concord.from_numpy(sub)
    assert t.stride() == (6, 2)
    np.testing.assert_array_equal(t.numpy(), sub)
    t[0, 0] = -1
    assert a[1, 0] == -1
    exported = concord.tensor(a, device=device).T    # a transposed tensor exports its strides
    np.testing.assert_array_equal(np.asarray(exported), a.T)


def test_other_devices_are_copied(device):
    t = concord.tensor([1.0, 2.0], device=device)
    a = t.numpy()
    np.testing.assert_array_equal(a, [1.0, 2.0])
    a[0] = 5.0
    if device != "cpu":
        assert t[0].item() == 1.0    # a copy


def test_bad_arrays_raise_clear_errors():
    a = np.arange(6, dtype=np.float32)
    with pytest.raises(concord.ValueError, match=r"^\[from_numpy\] .*negative"):
        concord.from_numpy(a[::-1])
    np.testing.assert_array_equal(concord.tensor(a[::-1]).numpy(), a[::-1])   # tensor() copies, right data
    ro = a.copy()
    ro.flags.writeable = False
    with pytest.raises(concord.ValueError, match="read-only"):
        concord.from_numpy(ro)
    packed = np.zeros(4, dtype=[("x", np.int8), ("y", np.float32)])   # 5-byte records
    with pytest.raises(concord.ValueError, match="multiple of the itemsize"):
        concord.from_numpy(packed["y"])
    np.testing.assert_array_equal(concord.tensor(packed["y"] + 1).numpy(), packed["y"] + 1)
    aligned = np.zeros(4, dtype=[("x", np.int32), ("y", np.float32)])
    aligned["y"] = [1, 2, 3, 4]
    np.testing.assert_array_equal(concord.from_numpy(aligned["y"]).numpy(), [1, 2, 3, 4])   # a strided view
    for bad in (np.zeros(2, dtype=np.complex64), np.array(["a"]), np.array([object()]), np.zeros(2, np.uint16)):
        with pytest.raises(concord.DtypeError, match=r"^\[(from_numpy|from_dlpack)\]"):
            concord.from_numpy(bad)
        with pytest.raises(concord.DtypeError):
            concord.tensor(bad)
    with pytest.raises(TypeError, match="from_numpy"):
        concord.from_numpy([1, 2])


def test_bfloat16_to_numpy_says_what_to_do():
    t = concord.tensor([1.0, 2.0], dtype=concord.bfloat16)
    with pytest.raises(concord.DtypeError, match=r"bfloat16.*to\(concord.float32\).*uint16"):
        t.numpy()
    bits = t.view_bits().numpy().view(np.uint16)
    assert bits.tolist() == [0x3F80, 0x4000]
    np.testing.assert_array_equal(t.to(concord.float32).numpy(), [1.0, 2.0])


# ---- DLPack with PyTorch 1.13 (skipped without it; the NumPy checks above still run) ----
try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch 1.13 is not installed")
TORCH_DTYPES = ["uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


@needs_torch
@pytest.mark.parametrize("dt", TORCH_DTYPES)
def test_dlpack_round_trip_with_torch(dt):
    x = (torch.arange(12) % 5).to(getattr(torch, dt)).reshape(3, 4)
    t = concord.from_dlpack(x)
    assert t.dtype == getattr(concord, dt) and t.shape == (3, 4)
    y = torch.from_dlpack(t)
    assert y.dtype == x.dtype and y.data_ptr() == x.data_ptr()
    assert torch.equal(y, x)
    t[0, 0] = 3
    assert x[0, 0].item() == 3 and y[0, 0].item() == 3


@needs_torch
def test_dlpack_lifetimes_both_ways():
    x = torch.arange(1000, dtype=torch.float32)
    t = concord.from_dlpack(x)
    del x
    gc.collect()
    assert t.sum().item() == sum(range(1000))
    c = concord.arange(50000, dtype=concord.int64)
    y = torch.from_dlpack(c)
    del c
    gc.collect()
    assert y[-1].item() == 49999 and y.sum().item() == sum(range(50000))


@needs_torch
def test_dlpack_non_contiguous_torch_tensor_and_numpy():
    x = torch.arange(20, dtype=torch.float64).reshape(4, 5).t()
    t = concord.from_dlpack(x)
    assert t.shape == (5, 4) and t.stride() == tuple(x.stride())
    np.testing.assert_array_equal(t.numpy(), x.numpy())
    a = np.arange(3, dtype=np.int16)
    assert ptr(concord.from_dlpack(a).numpy()) == ptr(a)


@needs_torch
def test_dlpack_device_is_cpu():
    assert concord.ones(2).__dlpack_device__() == (1, 0)


@needs_torch
def test_dlpack_bad_producers():
    with pytest.raises(concord.DtypeError, match=r"^\[from_dlpack\] PyTorch 1.13 cannot export bool"):
        concord.from_dlpack(torch.tensor([True]))
    with pytest.raises(TypeError, match=r"^\[from_dlpack\]"):
        concord.from_dlpack([1, 2])
    with pytest.raises(TypeError, match=r"^\[from_dlpack\]"):
        concord.from_dlpack(torch.zeros(2, dtype=torch.complex64))
