// Backend interface: one implementation per device kind (registered in
// src/backend/registry.cpp; see core/registry.h).
//
// Front ends (src/ops/) validate arguments, decide dtypes and shapes, ask the
// dispatcher for a Plan, allocate outputs on the plan's execution device and
// call one of these kernels. Kernels never validate user input and never
// allocate their outputs; they may assume:
//   - every tensor argument lives on this backend's device;
//   - outputs are contiguous (unless stated) and have the right shape/dtype;
//   - inputs may be any strided view (stride 0 for broadcast dims; strides may
//     be negative, e.g. flip views).
#pragma once

#include <memory>
#include <optional>

#include "concord/ops.h"
#include "concord/tensor.h"

namespace concord::detail {

// True while the body of a run planned as Path::native_f16 runs on this
// thread: a backend with a float16 kernel for the op (Capabilities::f16_kernel)
// picks it then, its float32-accumulating kernel otherwise. Set only by
// Dispatch::run_span (core/dispatch.h), so the plan stays the one decision.
inline thread_local bool tl_native_f16 = false;
inline bool native_f16_kernel() { return tl_native_f16; }
struct NativeF16Scope {
  explicit NativeF16Scope(bool on) : saved(tl_native_f16) { tl_native_f16 = on; }
  ~NativeF16Scope() { tl_native_f16 = saved; }
  NativeF16Scope(const NativeF16Scope&) = delete;
  NativeF16Scope& operator=(const NativeF16Scope&) = delete;
  bool saved;
};

struct ReduceArgs {
  int64_t correction = 1;   // var/std
  double p = 2.0;           // norm
};

// A number exponent of pow, prepared once on the host (the op's one decision,
// src/ops/binary.cpp) for every backend's pow_scalar kernel.
//
// Split scheme (a device without float64): e = hi + lo with hi = float(e)
// and lo = float(e - hi), and for a = |x|
//     r = pow_f32(a, hi);  r = r + r * (lo * log(a))   (r finite, nonzero, lo != 0)
// then the sign: -r for x < 0 and an odd integer e; NaN for finite x < 0 and a
// non-integer e. exp(lo·ln a) = 1 + lo·ln a + O((lo·ln a)^2), and a finite
// nonzero float32 result has |hi·ln a| <= 104, so |lo·ln a| <= 104·2^-24: the
// neglected square and the correction's own rounding stay below 2^-10 ULP;
// the final addition adds 0.5 ULP. Exponents that are exact in float32
// (integers below 2^24, 0.5, 2.5, ...) have lo = 0: plain pow_f32.
struct ScalarExponent {
  double value = 0;      // e as given
  float hi = 0, lo = 0;  // e = hi + lo to within 2^-48 |e|; lo = 0 when e is exact in float32
  bool odd = false;      // e is an odd integer
  bool integer = false;  // e is an integer or ±inf (x < 0 is defined)
  bool wide = false;     // float32 and halves: evaluate in float64 (the exec device has it)
  static ScalarExponent of(double e, bool wide);
};

class Backend {
 public:
  virtual ~Backend() = default;
  // The device kind it serves ("cpu", "opencl", ...), for messages.
  virtual std::string_view kind_name() const = 0;

  // ---- memory ----
  // Throws OutOfMemoryError naming nbytes and the device.
  virtual std::shared_ptr<Storage> allocate(size_t nbytes, const Device& d) = 0;
  virtual void write(Storage& dst, size_t dst_offset_bytes, const void* src, size_t nbytes) = 0;
  virtual void read(const Storage& src, size_t src_offset_bytes, void* dst, size_t nbytes) = 0;

  // ---- kernels ----
  // A backend overrides the kernels it has and claims exactly those in its
  // capabilities (the dispatcher sends everything else to the CPU fallback),
  // so the defaults, which throw NotImplementedError naming the backend, are
  // never reached through a front end; the conformance suite checks the claims.

  // ---- data movement and creation ----
  // dst = src elementwise with dtype conversion; src has dst's shape (maybe via stride 0).
  // dst may be a strided view (it is how copy_ and cat write into slices).
  virtual void copy(const Tensor& src, const Tensor& dst);
  virtual void fill(const Tensor& dst, Scalar v);                 // dst may be strided
  // In place on a floating tensor (maybe strided): every NaN becomes the
  // canonical quiet NaN of its dtype (positive, top mantissa bit only:
  // 0x7fc00000 in float32). Integer arithmetic on the bits, so no device can
  // change them on the way. The reproducible mode's NaN rule (dispatch.h).
  virtual void canonicalize_nan(const Tensor& t);
  // dst[i] = start + i * step for the contiguous dst (computed in double, rounded once).
  virtual void iota(const Tensor& dst, double start, double step);
  // The same in exact int64 arithmetic (two's complement on overflow), converted
  // to dst's integer or bool dtype by the int -> int rule (wrap; bool: != 0):
  // integer arange with integral start and step, on every device, with no float64.
  virtual void iota_int(const Tensor& dst, int64_t start, int64_t step);
  // rand / randn / randint: element i uses the Philox4x32-10 block at counter
  // offset + i, as defined in backend/common/philox.h. a, b: [low, high) for randint.
  virtual void random(OpId op, const Tensor& dst, uint64_t seed, uint64_t offset, int64_t a, int64_t b);

  // ---- elementwise ----
  // x has the compute dtype; out has x's shape and the result dtype (bool for predicates).
  virtual void unary(OpId op, const Tensor& x, const Tensor& out);
  // a and b have the same (compute) dtype and out's shape (broadcast views).
  // out dtype: bool for comparisons and logical ops, else the compute dtype.
  virtual void binary(OpId op, const Tensor& a, const Tensor& b, const Tensor& out);
  // out = x ** e for a floating x and a number e (pow(tensor, number)); out
  // has x's shape and dtype. The exponent is e's full double value on every
  // device (ScalarExponent below). float64: pow(x, e). float32 and the halves
  // (computed in float32, rounded once): float(pow(double(x), e)) when
  // e.wide, else the split scheme of ScalarExponent, within 0.5 ULP plus
  // 2^-10 ULP of the device's float32 pow.
  virtual void pow_scalar(const Tensor& x, const ScalarExponent& e, const Tensor& out);
  // cond bool; a, b, out same dtype; all of out's shape.
  virtual void where(const Tensor& cond, const Tensor& a, const Tensor& b, const Tensor& out);
  virtual void clamp(const Tensor& x, std::optional<Scalar> lo, std::optional<Scalar> hi, const Tensor& out);

  // ---- reductions ----
  // op in sum mean prod max min amax amin var std norm all any logsumexp.
  // dims: sorted, unique, non-empty; out has the keepdim shape and the result dtype.
  // x has the accumulation-input dtype chosen by the front end.
  virtual void reduce(OpId op, const Tensor& x, const Dims& dims, const Tensor& out, const ReduceArgs& args);
  // argmax/argmin along one dim (keepdim shape out, int64). First occurrence; NaN wins.
  virtual void arg_reduce(OpId op, const Tensor& x, int64_t dim, const Tensor& out);
  // softmax / log_softmax / cumsum along dim; out same shape.
  virtual void scan_op(OpId op, const Tensor& x, int64_t dim, const Tensor& out);

  // ---- linear ----
  // out = alpha·(a @ b) + beta·out for a [B,M,K], b [B,K,N] (any strides, stride 0
  // on broadcast batch), out [B,M,N] contiguous. beta == 0: out is only written
  // (what it held, NaN included, is ignored); else it holds the addend. alpha and
  // beta are exact in out's dtype's compute type (integers: integral values);
  // float16/bfloat16 combine in float32 and round once. K == 0 gives beta·out.
  virtual void matmul(const Tensor& a, const Tensor& b, const Tensor& out, Scalar alpha = 1, Scalar beta = 0);

  // ---- indexing ----
  // The one exception to "kernels never validate": index values live on the
  // device, so these check them before writing (the CPU throws ShapeError; the
  // OpenCL kernels set a flag the host reads and raises the same error).
  virtual void index_select(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& out);
  virtual void gather(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& out);
  // out = tril/triu of x over the last two dims (op is tril or triu).
  virtual void tri(OpId op, const Tensor& x, int64_t diagonal, const Tensor& out);

  // ---- linear algebra (batched over the leading dim; contiguous row-major) ----
  // LU with partial pivoting, in place: lu [B,n,n], pivots [B,n] int32 (1-based
  // as LAPACK), info [B] int32 (0, or k > 0 when U[k,k] is exactly zero).
  virtual void lu_factor(const Tensor& lu, const Tensor& pivots, const Tensor& info);
  // Solves with an LU from lu_factor: b [B,n,k] is overwritten by the solution.
  virtual void lu_solve(const Tensor& lu, const Tensor& pivots, const Tensor& b);
  // solve's fused step: lu = a (a [B,n,n] contiguous in lu's dtype, or lu
  // itself), then lu_factor(lu, pivots, info) and lu_solve(lu, pivots, b) on
  // the same batch (b [B,n,k], k >= 1), with the same results as those calls,
  // a singular matrix included. The default makes the three calls; a backend
  // overrides it to copy, factor and solve each matrix back to back.
  virtual void lu_factor_solve(const Tensor& a, const Tensor& lu, const Tensor& pivots, const Tensor& info,
                               const Tensor& b);
  // Cholesky in place (lower factor in the lower triangle; upper left as is): a [B,n,n], info [B].
  virtual void cholesky(const Tensor& a, const Tensor& info);
  // Triangular solve: b [B,n,k] (left) or [B,k,n] (right) overwritten.
  virtual void solve_triangular(const Tensor& a, const Tensor& b, bool upper, bool left, bool unitriangular);
  // From an LU [B,n,n] (float32/float64) and its pivots [B,n]: det [B], or
  // sign and log|det| [B], in the LU's dtype. The product of the diagonal,
  // starting from the pivot sign, in index order in float64, rounded once:
  // the CPU's bits on every backend (slogdet's log: common/canon_f64_log.h's
  // on OpenCL, and on the CPU in the reproducible mode; std::log outside it).
  virtual void lu_det(const Tensor& lu, const Tensor& pivots, const Tensor& det);
  virtual void lu_slogdet(const Tensor& lu, const Tensor& pivots, const Tensor& sign, const Tensor& logabsdet);
  // Norms of the rows of x [R, C] (any floating dtype, contiguous) into out [R]
  // (x's dtype), one sequential float64 loop per row. A backend with device
  // memory takes ord 0, 1, 2, inf and -inf; the front end sends the other
  // orders (a pow per element) through the CPU fallback (plan's host_only).
  virtual void vector_norm_rows(const Tensor& x, double ord, const Tensor& out);
  // x [B, r, c] into out [B]: ord 1 / -1 max / min column abs-sum, inf / -inf row.
  virtual void matrix_abs_sum_norm(const Tensor& x, double ord, const Tensor& out);
  // Largest n (of n x n matrices) the backend's native linear-algebra kernels
  // take on a device; larger inputs go to the CPU fallback (see plan_sized).
  virtual int64_t linalg_max_n(const Device&) const { return INT64_MAX; }

  // Waits until every operation queued on the device has finished (ops on
  // cpu and emu finish before they return: nothing to wait for).
  virtual void synchronize(const Device&) {}
};

// The backend that owns a device (throws DeviceError for an unknown device).
Backend& backend_for(const Device& d);
Backend& cpu_backend();

}  // namespace concord::detail

namespace concord::detail {
// Dtypes for which an op is defined at all (the CPU reference's kernels).
// An op asked for a dtype outside this set is a DtypeError on every device.
DtypeSet op_dtypes(OpId op);
// Every backend reports its allocations here (for memory_stats()).
void note_alloc(const Device& d, size_t nbytes);
void note_free(const Device& d, size_t nbytes);
}  // namespace concord::detail
