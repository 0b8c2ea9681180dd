"""concord's native core (use the concord package, not this module)"""

from collections.abc import Sequence
import enum
from typing import overload

import concord
from concord import (
    AssertionError as AssertionError,
    DeviceError as DeviceError,
    DtypeError as DtypeError,
    Error as Error,
    FileError as FileError,
    LinAlgError as LinAlgError,
    NotComputableError as NotComputableError,
    NotImplementedError as NotImplementedError,
    OutOfMemoryError as OutOfMemoryError,
    ShapeError as ShapeError,
    Tensor as Tensor,
    UnsupportedDtypeError as UnsupportedDtypeError,
    ValueError as ValueError
)
from concord._concord import linalg as linalg, nn as nn


class dtype(enum.Enum):
    """A tensor's element type (concord.float32, ...)."""

    def __str__(self) -> str: ...

    def __repr__(self) -> str: ...

    bool = 0

    uint8 = 1

    int8 = 2

    int16 = 3

    int32 = 4

    int64 = 5

    float16 = 6

    bfloat16 = 7

    float32 = 8

    float64 = 9

    @property
    def itemsize(self) -> int: ...

    @property
    def is_floating_point(self) -> bool: ...

def promote_types(arg0: object, arg1: object, /) -> dtype:
    """The dtype two tensor dtypes promote to (PyTorch's table)."""

class device:
    """A device: 'cpu', 'emu:0', 'opencl:0', 'vulkan:0'."""

    @overload
    def __init__(self, arg: str, /) -> None: ...

    @overload
    def __init__(self, arg0: str, arg1: int, /) -> None: ...

    @property
    def type(self) -> str: ...

    @property
    def index(self) -> int: ...

    def __str__(self) -> str: ...

    def __repr__(self) -> str: ...

    def __eq__(self, arg: object, /) -> bool: ...

    def __hash__(self) -> int: ...

def devices() -> list:
    """
    The available devices, each a dict: device, name, description, profile, memory ('host' or 'device'), storable and computable dtypes (after the profile), rounds_to_nearest, keeps_subnormals, details.
    """

def is_available(arg: object, /) -> bool: ...

def synchronize(arg: object, /) -> None: ...

def manual_seed(arg: int, /) -> None:
    """Seeds the generator that rand/randn use without a seed."""

def neg(input: concord.Tensor) -> concord.Tensor:
    """
    concord.neg: the library's neg (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def abs(input: concord.Tensor) -> concord.Tensor:
    """
    concord.abs: the library's abs (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def sign(input: concord.Tensor) -> concord.Tensor:
    """
    concord.sign: the library's sign (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def exp(input: concord.Tensor) -> concord.Tensor:
    """
    concord.exp: the library's exp (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def expm1(input: concord.Tensor) -> concord.Tensor:
    """
    concord.expm1: the library's expm1 (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def log(input: concord.Tensor) -> concord.Tensor:
    """
    concord.log: the library's log (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def log1p(input: concord.Tensor) -> concord.Tensor:
    """
    concord.log1p: the library's log1p (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def log2(input: concord.Tensor) -> concord.Tensor:
    """
    concord.log2: the library's log2 (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def sqrt(input: concord.Tensor) -> concord.Tensor:
    """
    concord.sqrt: the library's sqrt (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def rsqrt(input: concord.Tensor) -> concord.Tensor:
    """
    concord.rsqrt: the library's rsqrt (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def sin(input: concord.Tensor) -> concord.Tensor:
    """
    concord.sin: the library's sin (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def cos(input: concord.Tensor) -> concord.Tensor:
    """
    concord.cos: the library's cos (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def tan(input: concord.Tensor) -> concord.Tensor:
    """
    concord.tan: the library's tan (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def tanh(input: concord.Tensor) -> concord.Tensor:
    """
    concord.tanh: the library's tanh (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def sigmoid(input: concord.Tensor) -> concord.Tensor:
    """
    concord.sigmoid: the library's sigmoid (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def relu(input: concord.Tensor) -> concord.Tensor:
    """
    concord.relu: the library's relu (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def gelu(input: concord.Tensor) -> concord.Tensor:
    """
    concord.gelu: the library's gelu (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def erf(input: concord.Tensor) -> concord.Tensor:
    """
    concord.erf: the library's erf (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def floor(input: concord.Tensor) -> concord.Tensor:
    """
    concord.floor: the library's floor (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def ceil(input: concord.Tensor) -> concord.Tensor:
    """
    concord.ceil: the library's ceil (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def round(input: concord.Tensor) -> concord.Tensor:
    """
    concord.round: the library's round (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def trunc(input: concord.Tensor) -> concord.Tensor:
    """
    concord.trunc: the library's trunc (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def reciprocal(input: concord.Tensor) -> concord.Tensor:
    """
    concord.reciprocal: the library's reciprocal (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def isnan(input: concord.Tensor) -> concord.Tensor:
    """
    concord.isnan: the library's isnan (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def isinf(input: concord.Tensor) -> concord.Tensor:
    """
    concord.isinf: the library's isinf (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def isfinite(input: concord.Tensor) -> concord.Tensor:
    """
    concord.isfinite: the library's isfinite (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def logical_not(input: concord.Tensor) -> concord.Tensor:
    """
    concord.logical_not: the library's logical_not (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def add(input: object, other: object) -> object:
    """
    concord.add: the library's add (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def sub(input: object, other: object) -> object:
    """
    concord.sub: the library's sub (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def mul(input: object, other: object) -> object:
    """
    concord.mul: the library's mul (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def div(input: object, other: object) -> object:
    """
    concord.div: the library's div (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def pow(input: object, other: object) -> object:
    """
    concord.pow: the library's pow (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def maximum(input: object, other: object) -> object:
    """
    concord.maximum: the library's maximum (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def minimum(input: object, other: object) -> object:
    """
    concord.minimum: the library's minimum (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def remainder(input: object, other: object) -> object:
    """
    concord.remainder: the library's remainder (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def floor_divide(input: object, other: object) -> object:
    """
    concord.floor_divide: the library's floor_divide (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def atan2(input: object, other: object) -> object:
    """
    concord.atan2: the library's atan2 (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def hypot(input: object, other: object) -> object:
    """
    concord.hypot: the library's hypot (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def logaddexp(input: object, other: object) -> object:
    """
    concord.logaddexp: the library's logaddexp (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def copysign(input: object, other: object) -> object:
    """
    concord.copysign: the library's copysign (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def nextafter(input: object, other: object) -> object:
    """
    concord.nextafter: the library's nextafter (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def eq(input: object, other: object) -> object:
    """
    concord.eq: the library's eq (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def ne(input: object, other: object) -> object:
    """
    concord.ne: the library's ne (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def lt(input: object, other: object) -> object:
    """
    concord.lt: the library's lt (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def le(input: object, other: object) -> object:
    """
    concord.le: the library's le (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def gt(input: object, other: object) -> object:
    """
    concord.gt: the library's gt (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def ge(input: object, other: object) -> object:
    """
    concord.ge: the library's ge (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def logical_and(input: object, other: object) -> object:
    """
    concord.logical_and: the library's logical_and (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def logical_or(input: object, other: object) -> object:
    """
    concord.logical_or: the library's logical_or (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def logical_xor(input: object, other: object) -> object:
    """
    concord.logical_xor: the library's logical_xor (semantics, promotion and errors as concord/ops.h; the report counts it).
    """

def bitwise_and(arg0: object, arg1: object, /) -> object: ...

def bitwise_or(arg0: object, arg1: object, /) -> object: ...

def bitwise_xor(arg0: object, arg1: object, /) -> object: ...

def sum(input: concord.Tensor, dim: object | None = None, keepdim: bool = False) -> concord.Tensor:
    """Sum over dims."""

def mean(input: concord.Tensor, dim: object | None = None, keepdim: bool = False) -> concord.Tensor:
    """Mean over dims."""

def prod(input: concord.Tensor, dim: object | None = None, keepdim: bool = False) -> concord.Tensor:
    """Product over dims."""

def amax(input: concord.Tensor, dim: object | None = None, keepdim: bool = False) -> concord.Tensor:
    """Maximum over dims."""

def amin(input: concord.Tensor, dim: object | None = None, keepdim: bool = False) -> concord.Tensor:
    """Minimum over dims."""

def all(input: concord.Tensor, dim: object | None = None, keepdim: bool = False) -> concord.Tensor:
    """All true over dims."""

def any(input: concord.Tensor, dim: object | None = None, keepdim: bool = False) -> concord.Tensor:
    """Any true over dims."""

def logsumexp(input: concord.Tensor, dim: object | None = None, keepdim: bool = False) -> concord.Tensor:
    """log(sum(exp)) over dims, without overflow."""

def var(input: concord.Tensor, dim: object | None = None, correction: int = 1, keepdim: bool = False) -> concord.Tensor:
    """
    Variance over dims (None: all), divided by n - correction (Bessel's by default). The deviations are scaled by an exact power of two, so nothing overflows inside.
    """

def std(input: concord.Tensor, dim: object | None = None, correction: int = 1, keepdim: bool = False) -> concord.Tensor:
    """Standard deviation: sqrt(var(input, dim, correction)), the same rules."""

def max(input: concord.Tensor, dim: int | None = None, keepdim: bool = False) -> object:
    """Over all elements, or (values, indices) along dim."""

def min(input: concord.Tensor, dim: int | None = None, keepdim: bool = False) -> object:
    """Over all elements, or (values, indices) along dim."""

def argmax(input: concord.Tensor, dim: int | None = None, keepdim: bool = False) -> concord.Tensor:
    """
    int64 index of the first extreme in row-major order (a NaN beats every number, the first NaN wins) over the flattened input, or along dim.
    """

def argmin(input: concord.Tensor, dim: int | None = None, keepdim: bool = False) -> concord.Tensor:
    """
    int64 index of the first extreme in row-major order (a NaN beats every number, the first NaN wins) over the flattened input, or along dim.
    """

def softmax(input: concord.Tensor, dim: int, dtype: object | None = None) -> concord.Tensor:
    """
    exp(x - max) / sum(exp(x - max)) along dim. dtype: the input is converted to it first (PyTorch's dtype=).
    """

def log_softmax(input: concord.Tensor, dim: int, dtype: object | None = None) -> concord.Tensor:
    """
    x - max - log(sum(exp(x - max))) along dim, without overflow. dtype: convert the input first.
    """

def cumsum(input: concord.Tensor, dim: int, dtype: object | None = None) -> concord.Tensor:
    """
    Running sum along dim, in the op table's result dtype for the input (PyTorch's) or in dtype.
    """

def matmul(input: concord.Tensor, other: concord.Tensor) -> concord.Tensor:
    """
    torch.matmul's rules: 1-D operands are promoted and the added dim removed, batch dims broadcast. Both operands take one dtype (DtypeError otherwise: no implicit promotion).
    """

def mm(input: concord.Tensor, other: concord.Tensor) -> concord.Tensor:
    """[n, k] @ [k, m]; both operands of one dtype."""

def bmm(input: concord.Tensor, other: concord.Tensor) -> concord.Tensor:
    """[b, n, k] @ [b, k, m], no broadcasting; both operands of one dtype."""

def mv(input: concord.Tensor, other: concord.Tensor) -> concord.Tensor:
    """[n, k] @ [k]; both operands of one dtype."""

def dot(input: concord.Tensor, other: concord.Tensor) -> concord.Tensor:
    """
    Inner product of two 1-D tensors of one dtype and length (0-dim result).
    """

def outer(input: concord.Tensor, other: concord.Tensor) -> concord.Tensor:
    """[n] x [m] -> [n, m]; both operands of one dtype."""

def where(condition: concord.Tensor, input: object, other: object) -> concord.Tensor:
    """
    input where the bool condition is true, else other; all three broadcast, input and other promote as PyTorch's (numbers included).
    """

def clamp(input: concord.Tensor, min: object | None = None, max: object | None = None) -> concord.Tensor:
    """
    Limits to [min, max]; either bound may be None. A NaN bound gives NaN; integer bounds are clipped to the dtype's range (no wraparound); min > max gives max.
    """

def nonzero(input: concord.Tensor) -> concord.Tensor:
    """
    Indices of the nonzero (true) elements, int64 [count, ndim], row-major; reads the values on the host.
    """

def masked_select(input: concord.Tensor, mask: concord.Tensor) -> concord.Tensor:
    """
    The elements of x where the bool mask is true (broadcast together), 1-D in row-major order.
    """

def cat(tensors: Sequence[concord.Tensor], dim: int = 0) -> concord.Tensor:
    """
    Joins along dim; sizes must match in the other dims, dtypes promote, 1-D empty tensors are skipped (PyTorch's legacy rule). All on one device.
    """

def stack(tensors: Sequence[concord.Tensor], dim: int = 0) -> concord.Tensor:
    """Joins equal shapes along a new dim; dtypes promote."""

def dtype_policy(policy: str | None = None) -> object:
    """
    dtype_policy() is the current policy ('downcast' or 'strict'); with concord.dtype_policy('strict'): a dtype the device cannot hold raises UnsupportedDtypeError instead of a counted downcast.
    """

def fallback_policy(policy: str | None = None) -> object:
    """
    fallback_policy() is the current policy ('cpu' or 'strict'); with concord.fallback_policy('strict'): an op without a kernel on the device raises NotImplementedError instead of a counted CPU fallback.
    """

def float16_policy(policy: str | None = None) -> object: ...

def reproducible(on: bool | None = None) -> object: ...

def set_dtype_policy(arg: str, /) -> None: ...

def set_fallback_policy(arg: str, /) -> None: ...

def profile(device: object, profile: str | None = None) -> object:
    """
    profile('emu:0') is the device's profile; with concord.profile('emu:0', 'no-fp64'): the device behaves as one without float64 inside the block (restored after).
    """

def set_profile(arg0: object, arg1: str, /) -> None: ...

def autocast(dtype: object | None = None, device: object | None = None, enabled: bool = True) -> _Scope:
    """
    with concord.autocast(concord.float16): the ops of the autocast table run in that dtype (on every device kind, or only device's); each counted in the report as autocast.
    """

class ReportEntry:
    @property
    def op(self) -> str: ...

    @property
    def device(self) -> str: ...

    @property
    def dtype(self) -> dtype: ...

    @property
    def path(self) -> str: ...

    @property
    def count(self) -> int: ...

    def __repr__(self) -> str: ...

class ReportTransfer:
    @property
    def source(self) -> str: ...

    @property
    def target(self) -> str: ...

    @property
    def bytes(self) -> int: ...

    @property
    def count(self) -> int: ...

class Report:
    """
    What ran where: per op, device, dtype and path (native, widened, downcast, fallback, autocast, native_f16), the transfers and the warnings.
    """

    @property
    def entries(self) -> list[ReportEntry]: ...

    @property
    def transfers(self) -> list[ReportTransfer]: ...

    @property
    def warnings(self) -> list[str]: ...

    @property
    def reproducible_runs(self) -> int: ...

    def count(self, op: str, path: str) -> int:
        """How many runs of op took that path, over devices and dtypes."""

    def json(self) -> str: ...

    def __str__(self) -> str: ...

def report() -> Report:
    """A snapshot of the report (concord.Report)."""

def reset_report() -> None: ...
