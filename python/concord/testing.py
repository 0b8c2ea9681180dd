"""Comparisons with the C++ side's messages (concord/testing.h): compare() and assert_close() accept
concord tensors, NumPy arrays, PyTorch tensors and Python numbers/lists, and the failure message is the
library's (PyTorch's assert_close message plus the ULP line).

    concord.testing.assert_close(y_emu, y_cpu)              # raises concord.AssertionError
    c = concord.testing.compare(y, numpy_reference, rtol=1e-5)
    if not c: print(c.message())
"""
import numpy as _np

from . import _concord
from ._concord import AssertionError, Tensor  # noqa: A004  concord.AssertionError derives from AssertionError

__all__ = ["AssertionError", "as_tensor", "assert_close", "compare", "faults"]


def as_tensor(x):
    """x as a concord tensor: itself, a copy of a NumPy array (any strides), a PyTorch tensor (shared on the
    CPU through DLPack, copied from other devices), or concord.tensor(x) for numbers and lists."""
    from . import from_dlpack, tensor
    if isinstance(x, Tensor):
        return x
    if isinstance(x, _np.ndarray):
        return tensor(x)
    if type(x).__module__.startswith("torch"):
        x = x.detach().cpu()
        if str(x.dtype) == "torch.bool":
            return tensor(x.numpy())
        return from_dlpack(x.contiguous())
    return tensor(x)


def compare(actual, expected, rtol=None, atol=None, equal_nan=False, check_dtype=True, check_device=False):
    """The comparison as an object (ok, mismatched, max_abs_diff, max_rel_diff, max_ulp, message())."""
    return _concord._testing.compare(as_tensor(actual), as_tensor(expected), rtol, atol, equal_nan, check_dtype,
                                     check_device)


def assert_close(actual, expected, rtol=None, atol=None, equal_nan=False, check_dtype=True, check_device=False):
    """Raises concord.AssertionError with the library's message unless actual and expected are close
    (|a - e| <= atol + rtol * |e|, PyTorch's default tolerances per dtype)."""
    _concord._testing.assert_close(as_tensor(actual), as_tensor(expected), rtol, atol, equal_nan, check_dtype,
                                   check_device)


class faults:
    """Fault injection, for testing code that must survive a failing device (concord/fault_injection.h): the
    chosen call fails through the same path as a real failure (OutOfMemoryError or DeviceError). A context
    manager that clears every armed fault on entry and exit:

        with concord.testing.faults() as f:
            f.fail_next_transfer()
            x.to("opencl:0")          # raises concord.DeviceError; x is untouched
    """

    def __enter__(self):
        _concord._testing.clear_faults()
        return self

    def __exit__(self, *exc):
        _concord._testing.clear_faults()
        return False

    @staticmethod
    def fail_allocation_after(k, kind=""):
        """The k-th allocation (k >= 1) on a device of kind ("cpu", "emu", "opencl", "vulkan", "" for any) fails."""
        _concord._testing.fail_allocation_after(k, kind)

    @staticmethod
    def fail_next_kernel_build():
        """The next OpenCL program or Vulkan pipeline built from source fails."""
        _concord._testing.fail_next_kernel_build()

    @staticmethod
    def fail_next_transfer():
        """The next host<->device read or write (OpenCL, Vulkan) fails."""
        _concord._testing.fail_next_transfer()
