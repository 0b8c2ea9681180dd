// Linear algebra front ends: det, slogdet, cholesky, solve_triangular.
#include "backend/cpu/linalg_host.h"
#include "concord/amp.h"
#include "ops/linalg_common.h"

namespace concord::linalg {

using detail::Plan;
namespace la = detail::la;

namespace {

// The LU of A, on a device whose memory the host can read (det and slogdet
// read its diagonal there).
struct HostLU { Plan p; la::LU f; Device host; };

HostLU host_lu(const char* op, OpId id, const Tensor& A) {
  la::check_floating(op, "A", A);
  la::check_square(op, "A", A);
  Plan p = detail::plan_sized(id, A.device(), A.dtype(), A.size(-1), shape_str(A.shape()));
  la::LU f = la::factor(p, A);
  const Device host = la::host_exec(p);
  if (host != p.exec) {
    f.lu = f.lu.to(host);
    f.pivots = f.pivots.to(host);
  }
  return HostLU{p, f, host};
}

}  // namespace

Tensor det(const Tensor& A) {
  if (auto c = detail::autocast_inputs(OpId::det, {&A})) return det((*c)[0]);  // autocast: halves -> float32
  HostLU r = host_lu("det", OpId::det, A);
  Tensor d = empty(Shape{r.f.count}, r.f.lu.dtype(), r.host);
  if (r.f.count > 0) detail::cpu::lu_det(r.f.lu, r.f.pivots, d);
  Tensor out = la::deliver(r.p, d, A.dtype(), la::leading(A.shape(), 2));
  detail::record(r.p);
  return out;
}

SlogDet slogdet(const Tensor& A) {
  if (auto c = detail::autocast_inputs(OpId::slogdet, {&A})) return slogdet((*c)[0]);  // autocast: halves -> float32
  HostLU r = host_lu("slogdet", OpId::slogdet, A);
  Tensor sign = empty(Shape{r.f.count}, r.f.lu.dtype(), r.host);
  Tensor logabs = empty(Shape{r.f.count}, r.f.lu.dtype(), r.host);
  if (r.f.count > 0) detail::cpu::lu_slogdet(r.f.lu, r.f.pivots, sign, logabs);
  const Shape batch = la::leading(A.shape(), 2);
  SlogDet out{la::deliver(r.p, sign, A.dtype(), batch), la::deliver(r.p, logabs, A.dtype(), batch)};
  detail::record(r.p);
  return out;
}

namespace {

struct Factor { Plan p; Tensor out, info; };

Factor cholesky_impl(const Tensor& A, bool upper) {
  const char* op = "cholesky";
  la::check_floating(op, "A", A);
  const int64_t n = la::check_square(op, "A", A);
  Plan p = detail::plan_sized(OpId::cholesky, A.device(), A.dtype(), A.size(-1), shape_str(A.shape()));
  const int64_t count = numel(la::leading(A.shape(), 2));
  // The kernel reads the lower triangle; for upper, A^T's lower triangle is A's upper one (as LAPACK's uplo).
  Tensor w = la::working_copy(p, upper ? A.transpose(-2, -1) : A, A.shape(), la::kernel_dtype(p), p.exec);
  const bool run = count > 0 && n > 0;
  Tensor info = la::new_info(p, count, !run);
  Tensor out = empty(A.shape(), w.dtype(), p.exec);
  if (run) {
    p.backend->cholesky(la::as3(w, count, n, n), info);
    // The kernel leaves the upper triangle as it was: keep L only (or U = L^T).
    p.backend->tri(upper ? OpId::triu : OpId::tril, upper ? w.transpose(-2, -1) : w, 0, out);
  }
  return Factor{p, out, info};
}

std::string not_pd_what(int32_t k) {
  return "the matrix is not positive-definite: its leading minor of order " + std::to_string(k) +
         " is not positive definite";
}

}  // namespace

Tensor cholesky(const Tensor& A, bool upper) {
  if (auto c = detail::autocast_inputs(OpId::cholesky, {&A}))  // autocast: halves -> float32
    return cholesky((*c)[0], upper);
  Factor r = cholesky_impl(A, upper);
  la::check_info("cholesky", r.info, A, A.ndim() > 2, not_pd_what,
                 "Use linalg::cholesky_ex to get info per matrix without an error.");
  Tensor out = la::deliver(r.p, r.out, A.dtype(), A.shape());
  detail::record(r.p);
  return out;
}

CholeskyEx cholesky_ex(const Tensor& A, bool upper) {
  if (auto c = detail::autocast_inputs(OpId::cholesky, {&A}))  // autocast: halves -> float32
    return cholesky_ex((*c)[0], upper);
  Factor r = cholesky_impl(A, upper);
  CholeskyEx out{la::deliver(r.p, r.out, A.dtype(), A.shape()),
                 la::deliver(r.p, r.info, int32, la::leading(A.shape(), 2))};
  detail::record(r.p);
  return out;
}

Tensor solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left, bool unitriangular) {
  if (auto c = detail::autocast_inputs(OpId::solve_triangular, {&A, &B}))  // autocast: halves -> float32
    return solve_triangular((*c)[0], (*c)[1], upper, left, unitriangular);
  const char* op = "solve_triangular";
  la::check_floating(op, "A", A);
  la::check_floating(op, "B", B);
  const Device dev = detail::common_device(op, {&A, &B});
  la::check_same_dtype(op, "A", A, "B", B);
  const int64_t n = la::check_square(op, "A", A);
  if (B.ndim() < 2)
    throw ShapeError(la::tag(op) + " B must be matrices [*, n, k] (left) or [*, k, n] (right), got " + la::desc(B) +
                     "; for a vector use B.unsqueeze(-1) (left) or B.unsqueeze(0) (right)");
  const int64_t bn = left ? B.size(-2) : B.size(-1);
  if (bn != n)
    throw ShapeError(la::tag(op) + " B " + la::desc(B) + " does not fit A " + la::desc(A) + ": with left = " +
                     (left ? "true B needs shape [*, " : "false B needs shape [*, k, ") + std::to_string(n) +
                     (left ? ", k]" : "]"));
  const Shape batch = la::broadcast_batch(op, la::leading(A.shape(), 2), A, la::leading(B.shape(), 2), B);
  const int64_t count = numel(batch), k = left ? B.size(-1) : B.size(-2);
  Plan p = detail::plan_sized(OpId::solve_triangular, dev, A.dtype(), A.size(-1),
                              shape_str(A.shape()) + " and " + shape_str(B.shape()));
  const Dtype kd = la::kernel_dtype(p);
  Tensor a = la::read_copy(p, A, la::concat(batch, {n, n}), kd, p.exec);
  const Shape x_shape = left ? la::concat(batch, {n, k}) : la::concat(batch, {k, n});
  Tensor x = la::working_copy(p, B, x_shape, kd, p.exec);
  if (count > 0 && n > 0 && k > 0)
    p.backend->solve_triangular(la::as3(a, count, n, n), left ? la::as3(x, count, n, k) : la::as3(x, count, k, n),
                                upper, left, unitriangular);
  Tensor out = la::deliver(p, x, A.dtype(), x_shape);
  detail::record(p);
  return out;
}

}  // namespace concord::linalg
