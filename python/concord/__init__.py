"""concord from Python: one tensor program on every backend, the same numbers.

A thin layer over the C++ library (the extension concord._concord): every op,
check, promotion rule and error message is the library's. Tensors come from
concord.tensor / zeros / ones / arange / rand / randn, or without a copy from
NumPy (from_numpy) and DLPack producers such as PyTorch (from_dlpack); they go
back the same ways (t.numpy(), numpy.asarray(t), torch.from_dlpack(t)).

    import concord
    x = concord.tensor([[1.0, 2.0], [3.0, 4.0]], device="emu:0")
    y = (x @ x + 1).sum(dim=1)
    with concord.dtype_policy("strict"):
        ...
    print(concord.report())

Errors derive from concord.Error and from the matching built-in (DtypeError
from TypeError, ShapeError from ValueError, NotImplementedError,
OutOfMemoryError from MemoryError, DeviceError from RuntimeError).
"""
import builtins as _builtins

import numpy as _np

from . import _concord
from ._concord import *  # noqa: F401,F403  the ops, dtypes, devices, policies, report
from ._concord import Tensor, dtype, device  # noqa: F401

# The dtypes as module attributes, as in PyTorch (concord.float32, concord.bool).
for _d in dtype:
    globals()[_d.name] = _d
half, float, double, long, int = float16, float32, float64, int64, int32  # noqa: A001  PyTorch's aliases
del _d

__version__ = "0.1.0"

# The submodules: concord.linalg and concord.nn live in the extension; concord.testing is Python.
import sys as _sys  # noqa: E402

from ._concord import linalg, nn  # noqa: E402,F401

_sys.modules[__name__ + ".linalg"] = linalg
_sys.modules[__name__ + ".nn"] = nn
from . import metrics, testing  # noqa: E402,F401


def _shape(size):
    if len(size) == 1 and not isinstance(size[0], (_builtins.int, _np.integer)):
        return tuple(size[0])
    return tuple(size)


def zeros(*size, dtype=None, device=None):
    """A tensor of zeros: zeros(2, 3) or zeros((2, 3)); float32 on the CPU by default."""
    return _concord._zeros(_shape(size), dtype, device)


def ones(*size, dtype=None, device=None):
    """A tensor of ones: ones(2, 3) or ones((2, 3)); float32 on the CPU by default."""
    return _concord._ones(_shape(size), dtype, device)


def full(size, fill_value, dtype=None, device=None):
    """A tensor filled with fill_value; without dtype, bool/int64/float32 by the value (PyTorch's rule)."""
    return _concord._full((size,) if isinstance(size, _builtins.int) else tuple(size), fill_value, dtype, device)


def arange(start, end=None, step=1, dtype=None, device=None):
    """start, start + step, ... below end (arange(n) is 0..n-1); int64 for integer arguments, else float32."""
    if end is None:
        start, end = 0, start
    return _concord._arange(start, end, step, dtype, device)


def linspace(start, end, steps, dtype=None, device=None):
    """steps values evenly spaced from start to end inclusive."""
    return _concord._linspace(start, end, steps, dtype, device)


def eye(n, m=None, dtype=None, device=None):
    """The n x m identity (m defaults to n)."""
    return _concord._eye(n, m, dtype, device)


def rand(*size, dtype=None, device=None, seed=None):
    """Uniform [0, 1) samples; with seed, the same numbers on every device (Philox)."""
    return _concord._rand(_shape(size), dtype, device, seed)


def randn(*size, dtype=None, device=None, seed=None):
    """Standard normal samples; with seed, the same numbers on every device (Philox)."""
    return _concord._randn(_shape(size), dtype, device, seed)


def _bad_numpy_dtype(arr, op):
    if arr.dtype.kind not in "biuf" or arr.dtype.itemsize > 8:
        raise DtypeError(  # noqa: F405
            "[%s] NumPy dtype %s (kind %r) has no concord dtype; concord holds bool, uint8, int8..int64, "
            "float16, bfloat16, float32, float64. Convert it first, e.g. .astype(numpy.float64)"
            % (op, arr.dtype, arr.dtype.kind))


def tensor(data, dtype=None, device=None):
    """A new tensor holding a copy of data: a number, nested lists, a NumPy array, a concord tensor, or
    anything NumPy can read. Without dtype: bool, int64 or float32 for Python data (PyTorch's defaults),
    the array's dtype for arrays. The copy is converted to dtype and moved to device (default CPU)."""
    if isinstance(data, Tensor):
        t = data.clone()
    else:
        arr = _np.asarray(data)
        if (dtype is None and not isinstance(data, _np.ndarray) and arr.dtype == _np.float64
                and not hasattr(data, "dtype")):
            # Python floats without a dtype: PyTorch's default dtype. With a dtype they stay float64
            # until the one conversion below, so that float64 keeps 16777217.0 and 1e-300 and the
            # narrower dtypes round once (float64 -> float16 through float32 would round twice).
            with _np.errstate(over="ignore"):  # beyond float32's range is inf, as in PyTorch: no warning
                arr = arr.astype(_np.float32)
        _bad_numpy_dtype(arr, "tensor")
        t = _concord._copy_array(arr if arr.flags.c_contiguous else arr.copy(order="C"))
    # The dtype first, on the CPU: the move then carries the final dtype (a device without
    # float64 never sees the float64 staging copy of Python floats).
    if dtype is not None:
        t = t.to(dtype)
    if device is not None:
        t = t.to(device)
    return t


def from_numpy(array):
    """A CPU tensor over the NumPy array's memory, without a copy: writes show through both ways, and the
    tensor keeps the array's memory alive. Non-contiguous arrays are viewed through their strides. An array
    with negative strides, strides that are not a multiple of the itemsize, read-only memory, or a dtype
    concord lacks (complex, object, str, ...) raises a concord error; concord.tensor(array) copies instead."""
    if not isinstance(array, _np.ndarray):
        raise TypeError("[from_numpy] expected a numpy.ndarray, got %s; use concord.tensor(data) or "
                        "concord.from_dlpack(x)" % type(array).__name__)
    _bad_numpy_dtype(array, "from_numpy")
    if not array.flags.writeable:
        raise ValueError(  # noqa: F405  concord.ValueError
            "[from_numpy] the array is read-only and a concord tensor may write to it; pass a writable "
            "array, or copy it with concord.tensor(array)")
    if _builtins.any(s < 0 or s % array.itemsize for s in array.strides):
        raise ValueError(  # noqa: F405
            "[from_numpy] array of shape %s has strides %s (bytes): negative or not a multiple of the "
            "itemsize %d, which a tensor cannot view; copy it with concord.tensor(array) or "
            "numpy.ascontiguousarray(array)" % (array.shape, array.strides, array.itemsize))
    return _concord._wrap_array(array, "from_numpy")


def from_dlpack(x):
    """A tensor over a DLPack producer's memory (a PyTorch tensor, a NumPy array, a capsule), without a copy.
    The producer's memory stays alive while the tensor (or a view of it) does. CPU memory only."""
    if isinstance(x, _np.ndarray):
        return from_numpy(x)
    if str(getattr(x, "dtype", "")) == "torch.bool":
        raise DtypeError(  # noqa: F405
            "[from_dlpack] PyTorch 1.13 cannot export bool through DLPack; pass x.to(torch.uint8) and "
            "call .to(concord.bool) on the result (a copy), or concord.tensor(x.numpy())")
    try:
        return _concord._wrap_array(x, "from_dlpack")
    except TypeError:
        raise TypeError("[from_dlpack] %s is not a DLPack producer of CPU memory in a dtype concord holds; "
                        "pass a PyTorch CPU tensor, a NumPy array or a DLPack capsule (move device tensors "
                        "to the CPU first)" % type(x).__name__) from None


Tensor.__module__ = "concord"
