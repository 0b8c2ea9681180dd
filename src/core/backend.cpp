// Defaults for Backend kernels: reached only if a backend's capabilities
// claim an op it does not implement (a bug in that backend, which the
// conformance suite finds).
#include "core/backend.h"

#include <cmath>
#include <limits>

namespace concord::detail {

namespace {
[[noreturn]] void missing(const char* op, std::string_view backend) {
  throw NotImplementedError(std::string("[") + op + "] the " + std::string(backend) +
                            " backend claims this op but has no kernel for it; run it on cpu");
}
}  // namespace

// hi keeps e's sign and class: a tiny nonzero e must not become 0 (x**0 is 1
// even for x = 0), so below the smallest normal float it becomes that normal
// (not a subnormal: devices that flush subnormals, NVIDIA's, would read 0),
// whose pow is what e's is (1 once rounded, or 0/inf at 0/inf, NaN at NaN),
// and lo is 0. Otherwise e - hi is exact in double.
ScalarExponent ScalarExponent::of(double e, bool wide) {
  ScalarExponent s;
  s.value = e;
  s.wide = wide;
  s.hi = static_cast<float>(e);
  const bool tiny = e != 0.0 && std::fabs(e) < static_cast<double>(std::numeric_limits<float>::min());
  if (tiny) s.hi = std::copysign(std::numeric_limits<float>::min(), static_cast<float>(e));
  else if (std::isfinite(s.hi)) s.lo = static_cast<float>(e - static_cast<double>(s.hi));
  s.integer = std::isinf(e) || (std::isfinite(e) && std::trunc(e) == e);
  s.odd = std::isfinite(e) && std::trunc(e) == e && std::fabs(std::fmod(e, 2.0)) == 1.0;
  return s;
}

void Backend::copy(const Tensor&, const Tensor&) { missing("copy", kind_name()); }
void Backend::fill(const Tensor&, Scalar) { missing("fill", kind_name()); }
void Backend::canonicalize_nan(const Tensor&) { missing("canonicalize_nan", kind_name()); }
void Backend::iota(const Tensor&, double, double) { missing("arange", kind_name()); }
void Backend::iota_int(const Tensor&, int64_t, int64_t) { missing("arange", kind_name()); }
void Backend::random(OpId op, const Tensor&, uint64_t, uint64_t, int64_t, int64_t) {
  missing(op_name(op).data(), kind_name());
}
void Backend::unary(OpId op, const Tensor&, const Tensor&) { missing(op_name(op).data(), kind_name()); }
void Backend::pow_scalar(const Tensor&, const ScalarExponent&, const Tensor&) { missing("pow", kind_name()); }
void Backend::binary(OpId op, const Tensor&, const Tensor&, const Tensor&) { missing(op_name(op).data(), kind_name()); }
void Backend::where(const Tensor&, const Tensor&, const Tensor&, const Tensor&) { missing("where", kind_name()); }
void Backend::clamp(const Tensor&, std::optional<Scalar>, std::optional<Scalar>, const Tensor&) {
  missing("clamp", kind_name());
}
void Backend::reduce(OpId op, const Tensor&, const Dims&, const Tensor&, const ReduceArgs&) {
  missing(op_name(op).data(), kind_name());
}
void Backend::arg_reduce(OpId op, const Tensor&, int64_t, const Tensor&) { missing(op_name(op).data(), kind_name()); }
void Backend::scan_op(OpId op, const Tensor&, int64_t, const Tensor&) { missing(op_name(op).data(), kind_name()); }
void Backend::matmul(const Tensor&, const Tensor&, const Tensor&, Scalar, Scalar) { missing("matmul", kind_name()); }
void Backend::index_select(const Tensor&, int64_t, const Tensor&, const Tensor&) { missing("index_select", kind_name()); }
void Backend::gather(const Tensor&, int64_t, const Tensor&, const Tensor&) { missing("gather", kind_name()); }
void Backend::tri(OpId op, const Tensor&, int64_t, const Tensor&) { missing(op_name(op).data(), kind_name()); }
void Backend::lu_factor(const Tensor&, const Tensor&, const Tensor&) { missing("lu_factor", kind_name()); }
void Backend::lu_solve(const Tensor&, const Tensor&, const Tensor&) { missing("lu_solve", kind_name()); }
void Backend::lu_factor_solve(const Tensor& a, const Tensor& lu, const Tensor& pivots, const Tensor& info,
                              const Tensor& b) {
  if (a.storage() != lu.storage()) copy(a, lu);
  lu_factor(lu, pivots, info);
  lu_solve(lu, pivots, b);
}
void Backend::cholesky(const Tensor&, const Tensor&) { missing("cholesky", kind_name()); }
void Backend::solve_triangular(const Tensor&, const Tensor&, bool, bool, bool) { missing("solve_triangular", kind_name()); }
void Backend::lu_det(const Tensor&, const Tensor&, const Tensor&) { missing("det", kind_name()); }
void Backend::lu_slogdet(const Tensor&, const Tensor&, const Tensor&, const Tensor&) { missing("slogdet", kind_name()); }
void Backend::vector_norm_rows(const Tensor&, double, const Tensor&) { missing("vector_norm", kind_name()); }
void Backend::matrix_abs_sum_norm(const Tensor&, double, const Tensor&) { missing("matrix_norm", kind_name()); }

}  // namespace concord::detail
