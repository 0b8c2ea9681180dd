// Linear algebra front ends: det, slogdet, cholesky, solve_triangular.
#include <array>

#include "ops/linalg_common.h"

namespace concord::linalg {

using detail::Plan;
namespace la = detail::la;

using detail::Arg;
using detail::Inputs;
using detail::Prep;

namespace {

// det and slogdet: the LU, then the diagonal product (Backend::lu_det /
// lu_slogdet), both on the exec device.
template <size_t K, class Finish>
std::array<Tensor, K> det_run(const char* op, OpId id, const Tensor& A0, Finish&& finish) {
  detail::Dispatch d(id, {&A0});
  const Tensor& A = d.tensor(0);
  la::check_floating(op, "A", A);
  la::check_square(op, "A", A);
  return d.run(
      A.device(), A.dtype(), [&] { return shape_str(A.shape()); }, {Arg(A, Prep::none)},
      [&](const Plan& p, const Inputs&) {
        const la::LU f = la::factor(p, A);
        return finish(p, f, A);
      },
      A.size(-1));
}

}  // namespace

Tensor det(const Tensor& A) {
  return det_run<1>("det", OpId::det, A, [](const Plan& p, const la::LU& f, const Tensor& a) {
    Tensor d = empty(Shape{f.count}, f.lu.dtype(), p.exec);
    if (f.count > 0) p.backend->lu_det(f.lu, f.pivots, d);
    return std::array<Tensor, 1>{la::deliver(d, a.dtype(), la::leading(a.shape(), 2))};
  })[0];
}

SlogDet slogdet(const Tensor& A) {
  auto r = det_run<2>("slogdet", OpId::slogdet, A, [](const Plan& p, const la::LU& f, const Tensor& a) {
    Tensor sign = empty(Shape{f.count}, f.lu.dtype(), p.exec);
    Tensor logabs = empty(Shape{f.count}, f.lu.dtype(), p.exec);
    if (f.count > 0) p.backend->lu_slogdet(f.lu, f.pivots, sign, logabs);
    const Shape batch = la::leading(a.shape(), 2);
    return std::array<Tensor, 2>{la::deliver(sign, a.dtype(), batch), la::deliver(logabs, a.dtype(), batch)};
  });
  return SlogDet{r[0], r[1]};
}

namespace {

std::string not_pd_what(int32_t k) {
  return "the matrix is not positive-definite: its leading minor of order " + std::to_string(k) +
         " is not positive definite";
}

// cholesky and cholesky_ex: the factor and info.
std::array<Tensor, 2> cholesky_run(const Tensor& A0, bool upper, bool check) {
  detail::Dispatch d(OpId::cholesky, {&A0});
  const Tensor& A = d.tensor(0);
  const char* op = "cholesky";
  la::check_floating(op, "A", A);
  const int64_t n = la::check_square(op, "A", A);
  const int64_t count = numel(la::leading(A.shape(), 2));
  return d.run(
      A.device(), A.dtype(), [&] { return shape_str(A.shape()); }, {Arg(A, Prep::none)},
      [&](const Plan& p, const Inputs&) {
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
        if (check)
          la::check_info("cholesky", info, A, A.ndim() > 2, not_pd_what,
                         "Use linalg::cholesky_ex to get info per matrix without an error.");
        return std::array<Tensor, 2>{la::deliver(out, A.dtype(), A.shape()),
                                     check ? Tensor() : la::deliver(info, int32, la::leading(A.shape(), 2))};
      },
      A.size(-1));
}

}  // namespace

Tensor cholesky(const Tensor& A, bool upper) { return cholesky_run(A, upper, true)[0]; }

CholeskyEx cholesky_ex(const Tensor& A, bool upper) {
  auto r = cholesky_run(A, upper, false);
  return CholeskyEx{r[0], r[1]};
}

Tensor solve_triangular(const Tensor& A0, const Tensor& B0, bool upper, bool left, bool unitriangular) {
  detail::Dispatch d(OpId::solve_triangular, {&A0, &B0});
  const Tensor& A = d.tensor(0);
  const Tensor& B = d.tensor(1);
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
  return d.run(
      dev, A.dtype(), [&] { return shape_str(A.shape()) + " and " + shape_str(B.shape()); },
      {Arg(A, Prep::none), Arg(B, Prep::none)},
      [&](const Plan& p, const Inputs&) {
        const Dtype kd = la::kernel_dtype(p);
        Tensor a = la::read_copy(p, A, la::concat(batch, {n, n}), kd, p.exec);
        const Shape x_shape = left ? la::concat(batch, {n, k}) : la::concat(batch, {k, n});
        Tensor x = la::working_copy(p, B, x_shape, kd, p.exec);
        if (count > 0 && n > 0 && k > 0)
          p.backend->solve_triangular(la::as3(a, count, n, n), left ? la::as3(x, count, n, k) : la::as3(x, count, k, n),
                                      upper, left, unitriangular);
        return la::deliver(x, A.dtype(), x_shape);
      },
      A.size(-1));
}

}  // namespace concord::linalg
