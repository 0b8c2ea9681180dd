// concord/ops.h — the tensor operations.
//
// Every op takes one path through the dispatcher: validate -> result dtype ->
// autocast -> capability check and policy -> kernel -> record in the report.
// Operands of an op must live on the same device (move them with .to()),
// except that the elementwise ops (binary ops, their operators, where) take a
// 0-dim CPU tensor with a tensor on any device, as PyTorch does: it is moved
// to that device (its one element, counted in the report's transfers) and
// promotes as a 0-dim tensor (its dtype counts only when its category --
// bool < integer < floating -- is higher than the dimensioned operands'):
//   auto s = concord::scalar_tensor(0.5, concord::float64);   // on the CPU
//   auto y = concord::mul(x_emu_f32, s);                      // float32 on emu:0
//
// Elementwise ops broadcast like NumPy and accept Tensor or C++ numbers:
//   auto y = concord::add(x, 2.5);   // int32 x -> float32 y
//   auto z = x * y + 1;              // operators are the same ops
// float16/bfloat16 compute in float32 and round once on store.
// div is true division (integers give float32), so it cannot fault; integer
// remainder by zero gives 0 on every device (it never traps).
// Semantics are PyTorch 1.13's; every deliberate difference (this header's
// included) is listed once in docs/PYTORCH_DIFFERENCES.md.
//
// Reductions take dims ({} = all dims) and keepdim:
//   auto s = concord::sum(x, {1}, /*keepdim=*/true);
// Sums of float16, bfloat16 and float32 accumulate in float32 (float64 in
// float64) in a fixed blocked pairwise order: the same bits whatever the
// thread count. Sum of an empty tensor is 0, prod 1; max/min/argmax of an
// empty tensor raise ShapeError.
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "concord/creation.h"
#include "concord/tensor.h"

namespace concord {

// A tensor or a C++ number, for elementwise ops.
class Operand {
 public:
  Operand(const Tensor& t) : t_(&t) {}  // NOLINT
  template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  Operand(T v) : s_(v) {}  // NOLINT
  Operand(Scalar s) : s_(s) {}  // NOLINT
  bool is_tensor() const { return t_ != nullptr; }
  const Tensor& tensor() const { return *t_; }
  const Scalar& scalar() const { return s_; }
 private:
  const Tensor* t_ = nullptr;
  Scalar s_;
};

// ---- unary elementwise (floating results for integer inputs where the math needs it:
// exp, log, sqrt, sin, ... of int32 give float32, as in PyTorch) ----
Tensor neg(const Tensor& x);
Tensor abs(const Tensor& x);
Tensor sign(const Tensor& x);          // sign(NaN) is NaN
Tensor exp(const Tensor& x);
Tensor expm1(const Tensor& x);
Tensor log(const Tensor& x);
Tensor log1p(const Tensor& x);
Tensor log2(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor rsqrt(const Tensor& x);
Tensor sin(const Tensor& x);
Tensor cos(const Tensor& x);
Tensor tan(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor relu(const Tensor& x);
Tensor gelu(const Tensor& x);           // exact (erf) form
Tensor erf(const Tensor& x);
Tensor floor(const Tensor& x);          // integers unchanged
Tensor ceil(const Tensor& x);
Tensor round(const Tensor& x);          // half to even
Tensor trunc(const Tensor& x);
Tensor reciprocal(const Tensor& x);
Tensor isnan(const Tensor& x);          // bool results
Tensor isinf(const Tensor& x);
Tensor isfinite(const Tensor& x);
Tensor logical_not(const Tensor& x);
// Converts to dtype (same as x.to(dtype)): float -> int truncates toward zero;
// NaN/out-of-range -> int is implementation-defined in C++, here it saturates
// (NaN -> 0) so that every device agrees.
Tensor cast(const Tensor& x, Dtype dtype);

// ---- any elementwise op by its id (the unary and binary families of the op
// table, concord/op_table.h): unary(OpId::exp, x) is exp(x), binary(OpId::add,
// a, b) is add(a, b). For code that iterates over ops (tests, sweeps,
// bindings). ValueError for an op of another family.
Tensor unary(OpId op, const Tensor& x);
Tensor binary(OpId op, const Operand& a, const Operand& b);

// ---- binary elementwise ----
// NaN operands of add, sub, mul, div (and sqrt's): the result is a's NaN if a
// is NaN, else b's, quieted (in float16/bfloat16 its top payload bits), on
// every device: add(NaN(0x7fc0), -NaN(0xffc0)) is 0x7fc0 in bfloat16. A NaN
// made from numbers (inf - inf, 0 / 0, sqrt(-1)) is the device's default NaN
// (-NaN on the x86 CPU) and may differ across devices (README, Vulkan).
Tensor add(const Operand& a, const Operand& b);
Tensor add(const Operand& a, const Operand& b, Scalar alpha);   // a + alpha*b
Tensor sub(const Operand& a, const Operand& b);                 // a bool operand (tensor or number) raises DtypeError, as PyTorch
Tensor mul(const Operand& a, const Operand& b);
Tensor div(const Operand& a, const Operand& b);                 // true division: integers give float32
// pow: integer ** negative gives 1 for 1, ±1 for -1, else 0. A floating tensor
// ** a number uses the number's full double value on every device (1/3. is not
// rounded to float32 first): float(pow(double(x), e)) where the device has
// float64, else within the device's float32 pow error + 0.5 ULP; float16 and
// bfloat16 compute so in float32 and round once. Example: pow(x, 1.7) of
// float32 25.106699 is 239.68582 (correctly rounded), as PyTorch's scalar loop.
Tensor pow(const Operand& a, const Operand& b);
Tensor maximum(const Operand& a, const Operand& b);             // NaN propagates
Tensor minimum(const Operand& a, const Operand& b);
Tensor remainder(const Operand& a, const Operand& b);           // sign of the divisor (Python %)
// floor(a / b) of the exact quotient (Python //), in the promoted dtype:
// integers divide exactly (a / 0 gives 0, as remainder does; min / -1 wraps);
// floats as PyTorch: (a - fmod(a, b)) / b corrected to the floor, so a
// quotient that rounds up to an integer still floors correctly; b == 0 gives
// a / b (±inf or NaN); a zero result takes the sign of a / b. remainder and
// floor_divide agree: a == floor_divide(a, b) * b + remainder(a, b) for integers.
//   floor_divide(-7, 2) -> -4;  floor_divide(7.5, -2) -> -4.0
Tensor floor_divide(const Operand& a, const Operand& b);
Tensor atan2(const Operand& a, const Operand& b);
// hypot, logaddexp, copysign and nextafter are the same bits on every device,
// in both modes (one body for every backend, backend/common/canon_ops.inc);
// integers promote to float32, float16/bfloat16 compute in float32.
// hypot: sqrt(a² + b²) without overflow or underflow, correctly rounded in
// practice; an infinity in either gives +inf, even with a NaN in the other.
//   hypot(3, 4) -> 5.0;  hypot(1e300, 1e300) -> 1.4142e300
Tensor hypot(const Operand& a, const Operand& b);
// logaddexp: ln(eᵃ + eᵇ) without overflow; correctly rounded in practice in
// float32; in float64 within 1.5 ulp of |max(a, b)| + ln(1 + e^-|a-b|) (near a
// zero result, a and b both near -ln 2, the function is ill-conditioned).
//   logaddexp(0, 0) -> 0.6931472;  logaddexp(1000, 1000) -> 1000.6931
Tensor logaddexp(const Operand& a, const Operand& b);
// copysign: |a| with b's sign bit (-0.0 and a NaN's sign count).
//   copysign(3, -0.0) -> -3.0
Tensor copysign(const Operand& a, const Operand& b);
// nextafter: the next value after a toward b in a's own dtype (a float16's
// neighbour is a float16's); b when a == b; from ±0 the smallest subnormal.
//   nextafter(1.0, 2.0) in float32 -> 1.0000001;  in float16 -> 1.0009766
Tensor nextafter(const Operand& a, const Operand& b);
Tensor eq(const Operand& a, const Operand& b);                  // bool results
Tensor ne(const Operand& a, const Operand& b);
Tensor lt(const Operand& a, const Operand& b);
Tensor le(const Operand& a, const Operand& b);
Tensor gt(const Operand& a, const Operand& b);
Tensor ge(const Operand& a, const Operand& b);
Tensor logical_and(const Operand& a, const Operand& b);
Tensor logical_or(const Operand& a, const Operand& b);
Tensor logical_xor(const Operand& a, const Operand& b);
// cond ? a : b, cond must be bool; a and b promote together.
Tensor where(const Tensor& cond, const Operand& a, const Operand& b);
// Limits to [lo, hi]; either bound may be absent. A NaN bound gives NaN;
// integer bounds are clipped to the dtype's range (no wraparound); lo > hi gives hi.
Tensor clamp(const Tensor& x, std::optional<Scalar> lo, std::optional<Scalar> hi);

Tensor operator+(const Tensor& a, const Operand& b);
Tensor operator-(const Tensor& a, const Operand& b);
Tensor operator*(const Tensor& a, const Operand& b);
Tensor operator/(const Tensor& a, const Operand& b);
Tensor operator-(const Tensor& a);
template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
Tensor operator+(T a, const Tensor& b) { return add(a, b); }
template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
Tensor operator-(T a, const Tensor& b) { return sub(a, b); }
template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
Tensor operator*(T a, const Tensor& b) { return mul(a, b); }
template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
Tensor operator/(T a, const Tensor& b) { return div(a, b); }

// ---- bitwise (integer and bool operands; a floating operand raises
// DtypeError "[bitwise_and] ..."). Operands promote as the arithmetic ops
// (int32 & 1 stays int32) and broadcast; two's complement bits, as PyTorch.
// For bool they are logical_and/or/xor/not. The op table has no bitwise row:
// integers are computed bit by bit from floor_divide, remainder, mul and add
// (so they run wherever those do, one op per bit, and show up as those ops in
// the report).
Tensor bitwise_and(const Operand& a, const Operand& b);
Tensor bitwise_or(const Operand& a, const Operand& b);
Tensor bitwise_xor(const Operand& a, const Operand& b);
Tensor bitwise_not(const Tensor& x);

// ---- more operators: the same ops, a tensor on at least one side ----
//   a < 0.5, 0.5 > a, a == b      lt, gt, eq (bool results; == compares elements)
//   a % b                         remainder (sign of the divisor, as Python/PyTorch)
//   a & b, a | b, a ^ b, ~a       bitwise_and/or/xor/not (integer and bool only)
//   !a                            logical_not for bool and integer tensors (a
//                                 floating tensor raises DtypeError: write a == 0)
#define CONCORD_BINARY_OPERATOR(OP, FN)                                   \
  Tensor operator OP(const Tensor& a, const Operand& b);                 \
  template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0> \
  Tensor operator OP(T a, const Tensor& b) { return FN(a, b); }
CONCORD_BINARY_OPERATOR(==, eq)
CONCORD_BINARY_OPERATOR(!=, ne)
CONCORD_BINARY_OPERATOR(<, lt)
CONCORD_BINARY_OPERATOR(<=, le)
CONCORD_BINARY_OPERATOR(>, gt)
CONCORD_BINARY_OPERATOR(>=, ge)
CONCORD_BINARY_OPERATOR(%, remainder)
CONCORD_BINARY_OPERATOR(&, bitwise_and)
CONCORD_BINARY_OPERATOR(|, bitwise_or)
CONCORD_BINARY_OPERATOR(^, bitwise_xor)
#undef CONCORD_BINARY_OPERATOR
// Exact overloads for == and != so that C++20's reversed candidates (which
// must return bool) are never chosen over them.
Tensor operator==(const Tensor& a, const Tensor& b);
Tensor operator!=(const Tensor& a, const Tensor& b);
template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
Tensor operator==(const Tensor& a, T b) { return eq(a, b); }
template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
Tensor operator!=(const Tensor& a, T b) { return ne(a, b); }
Tensor operator~(const Tensor& a);
Tensor operator!(const Tensor& a);

// ---- compound assignment, in place: a += b computes a + b, then writes it
// into a. PyTorch's in-place rule: the result must keep a's shape (b may
// broadcast to a, not a to b: ShapeError) and its dtype must be castable to
// a's (no floating result into an integer or bool tensor, no non-bool into a
// bool one: DtypeError, as "result type Float can't be cast to the desired
// output type Long"). A lower dtype of the same kind is fine (a float16 tensor
// += a float32 tensor rounds to float16). On any error a is left untouched.
// The rvalue forms write through a view: x.select(0, 1) += 1.
//   auto a = concord::zeros({3}, concord::int64);
//   a += 2;        // fine
//   a += 1.5;      // DtypeError, a unchanged
#define CONCORD_COMPOUND_OPERATOR(OP)                        \
  Tensor& operator OP(Tensor& a, const Operand& b);          \
  inline Tensor operator OP(Tensor&& a, const Operand& b) { return a OP b; }
CONCORD_COMPOUND_OPERATOR(+=)
CONCORD_COMPOUND_OPERATOR(-=)
CONCORD_COMPOUND_OPERATOR(*=)
CONCORD_COMPOUND_OPERATOR(/=)
CONCORD_COMPOUND_OPERATOR(%=)
CONCORD_COMPOUND_OPERATOR(&=)
CONCORD_COMPOUND_OPERATOR(|=)
CONCORD_COMPOUND_OPERATOR(^=)
#undef CONCORD_COMPOUND_OPERATOR

// ---- reductions ----
// dtype: accumulate and return in this dtype (as PyTorch's dtype= argument).
Tensor sum(const Tensor& x, Dims dims = {}, bool keepdim = false, std::optional<Dtype> dtype = {});
Tensor mean(const Tensor& x, Dims dims = {}, bool keepdim = false, std::optional<Dtype> dtype = {});
Tensor prod(const Tensor& x, Dims dims = {}, bool keepdim = false, std::optional<Dtype> dtype = {});
// amax/amin/max/min/argmax/argmin pick the FIRST extreme element in row-major
// order of the reduced dims, as PyTorch 1.13's dim reductions do: -0.0 and +0.0
// compare equal, so the earlier one wins (amax of [-0, 0] is -0, of [0, -0] is
// +0); a NaN beats every number and the first NaN wins (its payload kept).
// The floating values returned are that element's exact bits, on every device
// and thread count, and max(x, dim).values equals x at max(x, dim).indices.
// Deliberate difference: PyTorch's full max()/min() (no dim) may return either
// zero (amax of [0, -0] is +0, max() of it -0); concord's follow the same rule.
Tensor amax(const Tensor& x, Dims dims = {}, bool keepdim = false);
Tensor amin(const Tensor& x, Dims dims = {}, bool keepdim = false);
Tensor max(const Tensor& x);                                      // over all elements
Tensor min(const Tensor& x);
ValuesIndices max(const Tensor& x, int64_t dim, bool keepdim = false);   // indices int64, first occurrence
ValuesIndices min(const Tensor& x, int64_t dim, bool keepdim = false);
Tensor argmax(const Tensor& x, std::optional<int64_t> dim = {}, bool keepdim = false);  // no dim: flat index
Tensor argmin(const Tensor& x, std::optional<int64_t> dim = {}, bool keepdim = false);
// Variance with Bessel's correction by default (correction = 1). The
// deviations are scaled by a power of two chosen from max|x| of each output
// (exact; 1 for ordinary magnitudes), so nothing overflows or underflows
// inside: std(float32 [1e30, 1e30, -1e30]) is 1.1547e30, and var is inf only
// where the variance itself passes the dtype's range (1.33e60 there).
Tensor var(const Tensor& x, Dims dims = {}, int64_t correction = 1, bool keepdim = false);
Tensor std(const Tensor& x, Dims dims = {}, int64_t correction = 1, bool keepdim = false);
// p = 1, 2 or inf (std::numeric_limits<double>::infinity()); others raise ValueError.
Tensor norm(const Tensor& x, double p = 2.0, Dims dims = {}, bool keepdim = false);
Tensor all(const Tensor& x, Dims dims = {}, bool keepdim = false);
Tensor any(const Tensor& x, Dims dims = {}, bool keepdim = false);
Tensor logsumexp(const Tensor& x, Dims dims, bool keepdim = false);
Tensor softmax(const Tensor& x, int64_t dim, std::optional<Dtype> dtype = {});
Tensor log_softmax(const Tensor& x, int64_t dim, std::optional<Dtype> dtype = {});
Tensor cumsum(const Tensor& x, int64_t dim, std::optional<Dtype> dtype = {});

// ---- linear ----
// NumPy matmul: 1-D operands are promoted (and the added dim removed after),
// batch dims broadcast. float32/float64 through BLAS; float16/bfloat16
// compute in float32 and round once; integers accumulate exactly in their type.
Tensor matmul(const Tensor& a, const Tensor& b);
Tensor mm(const Tensor& a, const Tensor& b);    // [n,k] x [k,m]
Tensor bmm(const Tensor& a, const Tensor& b);   // [b,n,k] x [b,k,m]
Tensor mv(const Tensor& a, const Tensor& v);    // [n,k] x [k]
Tensor dot(const Tensor& a, const Tensor& b);   // [k] . [k] -> 0-dim
Tensor outer(const Tensor& a, const Tensor& b); // [n] x [m] -> [n,m]

// Products with an addend, as PyTorch's (one kernel: the addend is folded into
// the product, so float16/bfloat16 round once and float32/float64 make one BLAS
// call):
//   addmm    beta·input + alpha·(mat1 @ mat2)      mat1 [n,k], mat2 [k,m]
//   baddbmm  beta·input + alpha·(batch1 @ batch2)  batch1 [b,n,k], batch2 [b,k,m]
//   linear   x · weightᵀ + bias                    x [..., in], weight [out, in],
//            bias [out] or undefined (none); x 1-D gives [out].
// input broadcasts to the product's shape. beta = 0 ignores input entirely
// (NaN and inf in it do not propagate). All operands need one device and one
// dtype (DtypeError otherwise: no implicit promotion, as the products);
// integer tensors take integer-typed alpha and beta (ValueError for a floating Scalar, even 2.0).
//   auto y = concord::addmm(b, x, w, /*beta=*/1, /*alpha=*/0.5);
//   auto z = concord::linear(x, w, b);   // same as addmm(b, x, w.t()) for 2-D x
Tensor addmm(const Tensor& input, const Tensor& mat1, const Tensor& mat2, Scalar beta = 1, Scalar alpha = 1);
Tensor baddbmm(const Tensor& input, const Tensor& batch1, const Tensor& batch2, Scalar beta = 1, Scalar alpha = 1);
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias = Tensor());

// ---- shape ----
Tensor cat(const std::vector<Tensor>& xs, int64_t dim = 0);
Tensor stack(const std::vector<Tensor>& xs, int64_t dim = 0);
std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t dim = 0);   // views
std::vector<Tensor> split(const Tensor& x, const std::vector<int64_t>& sizes, int64_t dim = 0);
// Views of ceil(size/chunks) elements each; may return fewer than `chunks` pieces.
std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim = 0);
// Index values out of range (or negative) raise ShapeError naming the value and the size.
// index_select: index 1-D (or 0-dim) int32/int64.
Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index);
// gather: index int64 with x's ndim, no larger than x in dims other than dim.
Tensor gather(const Tensor& x, int64_t dim, const Tensor& index);
Tensor flip(const Tensor& x, Dims dims);
// nonzero: the indices of x's nonzero (for bool: true) elements, int64 [k, x.ndim()] in
// row-major order, on x's device (NaN counts as nonzero). A 0-dim x gives [k, 0].
// masked_select: the elements of x where the bool mask is true, 1-D in row-major order of
// the broadcast shape of x and mask (ShapeError if they do not broadcast, DtypeError for a
// non-bool mask). Both read the mask on the host: the output size depends on its values.
//   auto i = concord::nonzero(x > 0);            // [k, 2] for a 2-D x
//   auto v = concord::masked_select(x, x > 0);   // [k]
Tensor nonzero(const Tensor& x);
Tensor masked_select(const Tensor& x, const Tensor& mask);
Tensor tril(const Tensor& x, int64_t diagonal = 0);
Tensor triu(const Tensor& x, int64_t diagonal = 0);

}  // namespace concord
