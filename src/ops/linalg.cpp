// Linear algebra front ends built on the LU: solve, lu_factor, lu_solve, inv.
//
// The LU is computed for A's own batch (info has A's batch shape, as in
// PyTorch); when B's batch is larger the factors are copied out to the
// broadcast batch rather than factoring A again per right-hand side.
#include <array>

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

// B's working copy [*batch, n, k] on the exec device, which the solves overwrite with X.
Tensor rhs_copy(const Plan& p, const Tensor& B, const Rhs& r) {
  return la::working_copy(p, r.vector ? B.unsqueeze(-1) : B, la::concat(r.batch, {r.n, r.k}), la::kernel_dtype(p),
                          p.exec);
}

// Solves with the factors f of A for the right-hand side B; returns X on the exec device.
Tensor solve_with(const Plan& p, const la::LU& f, const Tensor& A, const Tensor& B, const Rhs& r) {
  Tensor x = rhs_copy(p, B, r);
  const int64_t count = numel(r.batch);
  if (count > 0 && r.n > 0 && r.k > 0) {
    const Shape own = la::leading(A.shape(), 2);
    Tensor lu = to_batch(f.lu, own, r.batch, {r.n, r.n});
    Tensor piv = to_batch(f.pivots, own, r.batch, {r.n});
    p.backend->lu_solve(la::as3(lu, count, r.n, r.n), piv.view(Shape{count, r.n}), la::as3(x, count, r.n, r.k));
  }
  return x;
}

using detail::Arg;
using detail::Inputs;
using detail::Prep;

// The operands the body copies itself (la::working_copy: one move, one cast, contiguous).
Arg whole(const Tensor& t) { return Arg(t, Prep::none); }

// solve and solve_ex: x [count, n, k] and info [count] on the exec device.
// check: raise LinAlgError for a singular matrix (solve) or return info (solve_ex).
std::array<Tensor, 2> solve_run(const Tensor& A0, const Tensor& B0, bool check) {
  detail::Dispatch d(OpId::solve, {&A0, &B0});
  const Tensor& A = d.tensor(0);
  const Tensor& B = d.tensor(1);
  const char* op = "solve";
  la::check_floating(op, "A", A);
  la::check_floating(op, "B", B);
  const Device dev = detail::common_device(op, {&A, &B});
  la::check_same_dtype(op, "A", A, "B", B);
  la::check_square(op, "A", A);
  const Rhs r = rhs_layout(op, A, B);
  return d.run(
      dev, A.dtype(), [&] { return shape_str(A.shape()) + " and " + shape_str(B.shape()); }, {whole(A), whole(B)},
      [&](const Plan& p, const Inputs&) {
        la::LU f;
        Tensor x;
        if (la::leading(A.shape(), 2) == r.batch && r.k > 0) {
          // A's batch is the whole batch: one backend step per matrix (LU, then the solves).
          Tensor src;
          f = la::factor_outputs(p, A, src);
          x = rhs_copy(p, B, r);
          if (f.count > 0 && f.n > 0)
            p.backend->lu_factor_solve(src, f.lu, f.pivots, f.info, la::as3(x, f.count, r.n, r.k));
        } else {
          f = la::factor(p, A);
          x = solve_with(p, f, A, B, r);
        }
        if (check) la::check_info("solve", f.info, A, A.ndim() > 2, la::singular_what, kSolveAdvice);
        // solve's info stays behind (undefined: not moved back).
        return std::array<Tensor, 2>{la::deliver(x, A.dtype(), r.x_shape),
                                     check ? Tensor() : la::deliver(f.info, int32, la::leading(A.shape(), 2))};
      },
      A.size(-1));
}

}  // namespace

Tensor solve(const Tensor& A, const Tensor& B) { return solve_run(A, B, true)[0]; }

SolveEx solve_ex(const Tensor& A, const Tensor& B) {
  auto r = solve_run(A, B, false);
  return SolveEx{r[0], r[1]};
}

namespace {

// lu_factor and lu_factor_ex: LU, pivots, info.
std::array<Tensor, 3> lu_run(const Tensor& A0, bool check) {
  detail::Dispatch d(OpId::lu_factor, {&A0});
  const Tensor& A = d.tensor(0);
  la::check_floating("lu_factor", "A", A);
  la::check_square("lu_factor", "A", A);
  const Shape batch = la::leading(A.shape(), 2);
  return d.run(
      A.device(), A.dtype(), [&] { return shape_str(A.shape()); }, {whole(A)},
      [&](const Plan& p, const Inputs&) {
        la::LU f = la::factor(p, A);
        if (check)
          la::check_info("lu_factor", f.info, A, A.ndim() > 2, la::singular_what,
                         "Use linalg::lu_factor_ex to get the factors and info per matrix without an error.");
        return std::array<Tensor, 3>{la::deliver(f.lu, A.dtype(), A.shape()),
                                     la::deliver(f.pivots, int32, la::concat(batch, {f.n})),
                                     check ? Tensor() : la::deliver(f.info, int32, batch)};
      },
      A.size(-1));
}

}  // namespace

LUFactor lu_factor(const Tensor& A) {
  auto r = lu_run(A, true);
  return LUFactor{r[0], r[1]};
}

LUFactorEx lu_factor_ex(const Tensor& A) {
  auto r = lu_run(A, false);
  return LUFactorEx{r[0], r[1], r[2]};
}

Tensor lu_solve(const Tensor& LU0, const Tensor& pivots0, const Tensor& B0) {
  detail::Dispatch d(OpId::lu_solve, {&LU0, &pivots0, &B0});
  const Tensor& LU = d.tensor(0);
  const Tensor& pivots = d.tensor(1);
  const Tensor& B = d.tensor(2);
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
  return d.run(
      dev, LU.dtype(), [&] { return shape_str(LU.shape()) + " and " + shape_str(B.shape()); },
      {whole(LU), whole(pivots), whole(B)},
      [&](const Plan& p, const Inputs&) {
        // The factors are only read: copy them only when they need moving, converting or broadcasting.
        la::LU f;
        f.count = numel(la::leading(LU.shape(), 2));
        f.n = n;
        f.lu = la::read_copy(p, LU, LU.shape(), la::kernel_dtype(p), p.exec).view(Shape{f.count, n, n});
        f.pivots =
            la::read_copy(p, pivots, pivots.shape(), int32, p.exec, /*cast_first=*/false).view(Shape{f.count, n});
        return la::deliver(solve_with(p, f, LU, B, r), LU.dtype(), r.x_shape);
      },
      LU.size(-1));
}

namespace {

// inv and inv_ex: the inverse and info.
std::array<Tensor, 2> inv_run(const Tensor& A0, bool check) {
  detail::Dispatch d(OpId::inv, {&A0});
  const Tensor& A = d.tensor(0);
  la::check_floating("inv", "A", A);
  const int64_t n = la::check_square("inv", "A", A);
  return d.run(
      A.device(), A.dtype(), [&] { return shape_str(A.shape()); }, {whole(A)},
      [&](const Plan& p, const Inputs&) {
        la::LU f = la::factor(p, A);
        // Solve against the identity, built in place on the exec device.
        Tensor x = empty(Shape{f.count, n, n}, la::kernel_dtype(p), p.exec);
        if (x.numel() > 0) {
          p.backend->fill(x, 0);
          p.backend->fill(Tensor(x.storage(), Shape{f.count, n}, Strides{n * n, n + 1}, x.offset(), x.dtype()), 1);
          p.backend->lu_solve(f.lu, f.pivots, x);
        }
        if (check)
          la::check_info("inv", f.info, A, A.ndim() > 2, la::singular_what,
                         "Use linalg::inv_ex to get info per matrix without an error.");
        return std::array<Tensor, 2>{la::deliver(x, A.dtype(), A.shape()),
                                     check ? Tensor() : la::deliver(f.info, int32, la::leading(A.shape(), 2))};
      },
      A.size(-1));
}

}  // namespace

Tensor inv(const Tensor& A) { return inv_run(A, true)[0]; }

InvEx inv_ex(const Tensor& A) {
  auto r = inv_run(A, false);
  return InvEx{r[0], r[1]};
}

}  // namespace concord::linalg
