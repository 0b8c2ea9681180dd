// Linear algebra front ends built on the LU: solve, lu_factor, lu_solve, inv.
//
// The LU is computed for A's own batch (info has A's batch shape, as in
// PyTorch); when B's batch is larger the factors are copied out to the
// broadcast batch rather than factoring A again per right-hand side.
#include "concord/amp.h"
#include "ops/linalg_common.h"

namespace concord::linalg {

using detail::Plan;
namespace la = detail::la;

namespace {

constexpr const char* kSolveAdvice = "Use linalg::solve_ex to get info per matrix without an error.";

// How B is read against a square A (or LU) [*, n, n] (PyTorch's rule).
struct Rhs {
  bool vector;
  int64_t n, k;
  Shape batch;    // broadcast batch of A and B
  Shape x_shape;  // shape of the solution
};

Rhs rhs_layout(const char* op, const Tensor& A, const Tensor& B) {
  Rhs r;
  r.n = A.size(-1);
  const Shape a_lead = la::leading(A.shape(), 1);
  r.vector = B.ndim() == 1 || (B.ndim() == A.ndim() - 1 && B.shape() == a_lead);
  if (B.ndim() == 0)
    throw ShapeError(la::tag(op) + " B must be a vector [n] or matrices [*, n, k], got " + la::desc(B) + " for A " +
                     la::desc(A));
  const int64_t rows = r.vector ? B.size(-1) : B.size(-2);
  if (rows != r.n)
    throw ShapeError(la::tag(op) + " B " + la::desc(B) + " does not fit A " + la::desc(A) + ": B is read as " +
                     (r.vector ? "a vector" : "matrices [*, n, k]") + " with " + std::to_string(rows) +
                     " rows but A has n = " + std::to_string(r.n) + ". A right-hand side needs shape [*, " +
                     std::to_string(r.n) + ", k], or [" + std::to_string(r.n) + "]" +
                     (a_lead.size() > 1 ? " or " + shape_str(a_lead) : std::string()) + " for a vector");
  r.k = r.vector ? 1 : B.size(-1);
  r.batch = la::broadcast_batch(op, la::leading(A.shape(), 2), A, la::leading(B.shape(), r.vector ? 1 : 2), B);
  r.x_shape = r.vector ? la::concat(r.batch, {r.n}) : la::concat(r.batch, {r.n, r.k});
  return r;
}

// LU factors (or any [count, ...] per-matrix tensor) of A's batch copied out to the full batch.
Tensor to_batch(const Tensor& t, const Shape& own, const Shape& full, std::initializer_list<int64_t> tail) {
  const Shape own_shape = la::concat(own, tail), full_shape = la::concat(full, tail);
  if (own_shape == full_shape) return t;
  Tensor out = empty(full_shape, t.dtype(), t.device());
  if (out.numel() > 0) out.copy_(t.view(own_shape));
  return out;
}

// Solves with the factors f of A for the right-hand side B; returns X on the exec device.
Tensor solve_with(const Plan& p, const la::LU& f, const Tensor& A, const Tensor& B, const Rhs& r) {
  const Shape b_full = la::concat(r.batch, {r.n, r.k});
  Tensor x = la::working_copy(p, r.vector ? B.unsqueeze(-1) : B, b_full, la::kernel_dtype(p), p.exec);
  const int64_t count = numel(r.batch);
  if (count > 0 && r.n > 0 && r.k > 0) {
    const Shape own = la::leading(A.shape(), 2);
    Tensor lu = to_batch(f.lu, own, r.batch, {r.n, r.n});
    Tensor piv = to_batch(f.pivots, own, r.batch, {r.n});
    p.backend->lu_solve(la::as3(lu, count, r.n, r.n), piv.view(Shape{count, r.n}), la::as3(x, count, r.n, r.k));
  }
  return x;
}

struct Solved { Plan p; Tensor x, info; Rhs r; };

Solved solve_impl(const char* op, const Tensor& A, const Tensor& B) {
  la::check_floating(op, "A", A);
  la::check_floating(op, "B", B);
  const Device dev = detail::common_device(op, {&A, &B});
  la::check_same_dtype(op, "A", A, "B", B);
  la::check_square(op, "A", A);
  const Rhs r = rhs_layout(op, A, B);
  Plan p = detail::plan_sized(OpId::solve, dev, A.dtype(), A.size(-1), shape_str(A.shape()) + " and " + shape_str(B.shape()));
  la::LU f = la::factor(p, A);
  Tensor x = solve_with(p, f, A, B, r);
  return Solved{p, x, f.info, r};
}

}  // namespace

Tensor solve(const Tensor& A, const Tensor& B) {
  if (auto c = detail::autocast_inputs(OpId::solve, {&A, &B}))  // autocast: halves -> float32
    return solve((*c)[0], (*c)[1]);
  Solved s = solve_impl("solve", A, B);
  la::check_info("solve", s.info, A, A.ndim() > 2, la::singular_what, kSolveAdvice);
  Tensor x = la::deliver(s.p, s.x, A.dtype(), s.r.x_shape);
  detail::record(s.p);
  return x;
}

SolveEx solve_ex(const Tensor& A, const Tensor& B) {
  if (auto c = detail::autocast_inputs(OpId::solve, {&A, &B}))  // autocast: halves -> float32
    return solve_ex((*c)[0], (*c)[1]);
  Solved s = solve_impl("solve", A, B);
  SolveEx out{la::deliver(s.p, s.x, A.dtype(), s.r.x_shape),
              la::deliver(s.p, s.info, int32, la::leading(A.shape(), 2))};
  detail::record(s.p);
  return out;
}

namespace {
struct Factored { Plan p; la::LU f; };

Factored lu_impl(const Tensor& A) {
  la::check_floating("lu_factor", "A", A);
  la::check_square("lu_factor", "A", A);
  Plan p = detail::plan_sized(OpId::lu_factor, A.device(), A.dtype(), A.size(-1), shape_str(A.shape()));
  return Factored{p, la::factor(p, A)};
}

LUFactor lu_outputs(const Factored& r, const Tensor& A) {
  const Shape batch = la::leading(A.shape(), 2);
  return LUFactor{la::deliver(r.p, r.f.lu, A.dtype(), A.shape()),
                  la::deliver(r.p, r.f.pivots, int32, la::concat(batch, {r.f.n}))};
}
}  // namespace

LUFactor lu_factor(const Tensor& A) {
  if (auto c = detail::autocast_inputs(OpId::lu_factor, {&A}))  // autocast: halves -> float32
    return lu_factor((*c)[0]);
  Factored r = lu_impl(A);
  la::check_info("lu_factor", r.f.info, A, A.ndim() > 2, la::singular_what,
                 "Use linalg::lu_factor_ex to get the factors and info per matrix without an error.");
  LUFactor out = lu_outputs(r, A);
  detail::record(r.p);
  return out;
}

LUFactorEx lu_factor_ex(const Tensor& A) {
  if (auto c = detail::autocast_inputs(OpId::lu_factor, {&A}))  // autocast: halves -> float32
    return lu_factor_ex((*c)[0]);
  Factored r = lu_impl(A);
  LUFactor lu = lu_outputs(r, A);
  LUFactorEx out{lu.LU, lu.pivots, la::deliver(r.p, r.f.info, int32, la::leading(A.shape(), 2))};
  detail::record(r.p);
  return out;
}

Tensor lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B) {
  if (auto c = detail::autocast_inputs(OpId::lu_solve, {&LU, &pivots, &B}))  // autocast: halves -> float32
    return lu_solve((*c)[0], (*c)[1], (*c)[2]);
  const char* op = "lu_solve";
  la::check_floating(op, "LU", LU);
  la::check_floating(op, "B", B);
  if (!pivots.defined()) throw ValueError(la::tag(op) + " pivots is undefined; pass the pivots from lu_factor");
  const Device dev = detail::common_device(op, {&LU, &pivots, &B});
  la::check_same_dtype(op, "LU", LU, "B", B);
  const int64_t n = la::check_square(op, "LU", LU);
  if (pivots.dtype() != int32)
    throw DtypeError(la::tag(op) + " pivots must be int32 (as lu_factor returns them), got " + la::desc(pivots) +
                     "; convert with pivots.to(concord::int32)");
  if (!(pivots.shape() == la::leading(LU.shape(), 1)))
    throw ShapeError(la::tag(op) + " pivots " + la::desc(pivots) + " must have shape LU.shape[:-1] = " +
                     shape_str(la::leading(LU.shape(), 1)) + " for LU " + la::desc(LU));
  const Rhs r = rhs_layout(op, LU, B);
  Plan p = detail::plan_sized(OpId::lu_solve, dev, LU.dtype(), LU.size(-1),
                              shape_str(LU.shape()) + " and " + shape_str(B.shape()));
  // The factors are only read: copy them only when they need moving, converting or broadcasting.
  la::LU f;
  f.count = numel(la::leading(LU.shape(), 2));
  f.n = n;
  f.lu = la::read_copy(p, LU, LU.shape(), la::kernel_dtype(p), p.exec).view(Shape{f.count, n, n});
  f.pivots = la::read_copy(p, pivots, pivots.shape(), int32, p.exec, /*cast_first=*/false).view(Shape{f.count, n});
  Tensor x = solve_with(p, f, LU, B, r);
  Tensor out = la::deliver(p, x, LU.dtype(), r.x_shape);
  detail::record(p);
  return out;
}

namespace {
struct Inverted { Plan p; Tensor inv, info; };

Inverted inv_impl(const Tensor& A) {
  la::check_floating("inv", "A", A);
  const int64_t n = la::check_square("inv", "A", A);
  Plan p = detail::plan_sized(OpId::inv, A.device(), A.dtype(), A.size(-1), shape_str(A.shape()));
  la::LU f = la::factor(p, A);
  // Solve against the identity, built in place on the exec device.
  Tensor x = empty(Shape{f.count, n, n}, la::kernel_dtype(p), p.exec);
  if (x.numel() > 0) {
    p.backend->fill(x, 0);
    p.backend->fill(Tensor(x.storage(), Shape{f.count, n}, Strides{n * n, n + 1}, x.offset(), x.dtype()), 1);
    p.backend->lu_solve(f.lu, f.pivots, x);
  }
  return Inverted{p, x, f.info};
}
}  // namespace

Tensor inv(const Tensor& A) {
  if (auto c = detail::autocast_inputs(OpId::inv, {&A})) return inv((*c)[0]);  // autocast: halves -> float32
  Inverted r = inv_impl(A);
  la::check_info("inv", r.info, A, A.ndim() > 2, la::singular_what,
                 "Use linalg::inv_ex to get info per matrix without an error.");
  Tensor out = la::deliver(r.p, r.inv, A.dtype(), A.shape());
  detail::record(r.p);
  return out;
}

InvEx inv_ex(const Tensor& A) {
  if (auto c = detail::autocast_inputs(OpId::inv, {&A})) return inv_ex((*c)[0]);  // autocast: halves -> float32
  Inverted r = inv_impl(A);
  InvEx out{la::deliver(r.p, r.inv, A.dtype(), A.shape()), la::deliver(r.p, r.info, int32, la::leading(A.shape(), 2))};
  detail::record(r.p);
  return out;
}

}  // namespace concord::linalg
