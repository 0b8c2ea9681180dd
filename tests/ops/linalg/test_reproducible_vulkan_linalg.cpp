// The reproducible mode's linear algebra (lu_factor, lu_solve, solve, inv,
// cholesky, solve_triangular) on every device, the Vulkan devices above all
// (linalg.comp's "_x" variants: the CPU's small-matrix loops with every float
// operation an integer function on float32 or float64 bits, whatever the
// device does with subnormals, division or square root): bits, pivots and
// info values equal to the CPU's for n in {1, 2, 7, 33, 64}, batches, singular
// and non-positive-definite matrices, entries that are subnormal, huge, ±inf
// or NaN, both sides and triangles of the triangular solve and a unit
// diagonal. Where the device claims the op in the mode, every case also
// checks that it ran there (no fallback in the report) and, on Vulkan, that
// no separate NaN pass followed the kernel.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "concord/concord.h"
#include "concord/linalg.h"
#include "concord/op_table.h"
#include "support/bits.h"
#include "support/devices.h"
#include "support/native_run.h"

using namespace concord;
using namespace concord::linalg;
using concord::test::first_difference;

namespace {

const OpId kLinalg[] = {OpId::lu_factor, OpId::lu_solve, OpId::solve,
                        OpId::inv,       OpId::cholesky, OpId::solve_triangular};

using concord::test::Lcg;

// Entries of [count, rows, cols] (count 1: [rows, cols]) in float64, then
// cast to t. Each row gets a scale: 1, one that pushes the products of the
// elimination into the subnormals of t (float32: 1e-20 · 1e-20; float64:
// 1e-160 · 1e-160), one a few binades above the smallest normal (the
// differences of the elimination cross it), or one towards overflow. `dominant` adds 2·rows to the
// diagonal (a well-posed system); `specials` makes about 1 entry in 40 an
// edge value: ±0, a subnormal, the smallest normal, the largest finite, ±inf
// or NaN (one with a payload).
Tensor matrix(int64_t count, int64_t rows, int64_t cols, Dtype t, uint64_t seed, bool dominant, bool specials) {
  Lcg g{seed * 0x9e3779b97f4a7c15ull + 3};
  const bool f64 = t == float64;
  const double tiny = f64 ? 1e-160 : 1e-20, huge = f64 ? 1e150 : 1e18, edge = f64 ? 4e-307 : 5e-37;
  using F = std::numeric_limits<float>;
  using D = std::numeric_limits<double>;
  const double edges[] = {0.0,
                          -0.0,
                          f64 ? D::denorm_min() : double(F::denorm_min()),
                          f64 ? -3e-310 : -2.9e-42,
                          f64 ? D::min() : double(F::min()),
                          f64 ? D::max() : double(F::max()),
                          D::infinity(),
                          -D::infinity(),
                          D::quiet_NaN(),
                          std::bit_cast<double>(0xfff8000000000123ull)};
  std::vector<double> v(static_cast<size_t>(count * rows * cols));
  for (int64_t b = 0; b < count; ++b)
    for (int64_t i = 0; i < rows; ++i) {
      const uint32_t r = g.next() % 8;
      const double scale = r == 0 ? tiny : r == 1 ? huge : r == 2 ? edge : 1.0;
      for (int64_t j = 0; j < cols; ++j) {
        double& x = v[static_cast<size_t>((b * rows + i) * cols + j)];
        x = g.uniform() * scale;
        if (dominant && i == j) x += static_cast<double>(rows) * 2 * scale;
        if (specials && g.next() % 40 == 0) x = edges[g.next() % std::size(edges)];
      }
    }
  const Tensor m = from_vector(v, Shape{count, rows, cols});
  return (count == 1 ? m.select(0, 0) : m).to(t);
}

class ReproducibleVulkanLinalg : public concord::test::DeviceTest {
 protected:
  bool is_vulkan() const { return device().str().rfind("vulkan", 0) == 0; }
  bool claims(OpId op, Dtype t) const { return capabilities(device()).reproducible[static_cast<int>(op)].has(t); }
  bool stores(Dtype t) const { return capabilities(device()).can_store(t); }
  // Runs f on the device; where the device claims `id` for t in the mode,
  // checks that it ran there (natively or widened), not on the CPU fallback.
  template <class F>
  auto run(OpId id, Dtype t, F&& f) const {
    reset_report();
    auto out = f();
    // The "_x" kernels' results are NaN-canonical: no separate pass where
    // the result is the kernel's tensor (not so for the halves' converted
    // copies, nor cholesky's factor, which tril copies out of it).
    if (claims(id, t))
      concord::test::expect_ran_on_device(op_name(id), device(), t, op_name(id),
                                          is_vulkan() && (t == float32 || t == float64) && id != OpId::cholesky);
    return out;
  }
};

// The claim: on a Vulkan device all six ops for float32, the halves and
// float64 where the device stores it, whatever its float controls (lavapipe
// keeps no subnormals).
TEST_P(ReproducibleVulkanLinalg, VulkanClaimsTheOps) {
  if (!is_vulkan()) GTEST_SKIP() << "the claim is Vulkan's";
  for (OpId op : kLinalg)
    for (Dtype t : {float32, float16, bfloat16, float64})
      if (stores(t)) EXPECT_TRUE(claims(op, t)) << op_def(op).name << " " << name(t);
}

// LU factors, pivots and info, solve, lu_solve and inv at n in {1, 2, 7, 33,
// 64}, batches of 2 at the small sizes, rows scaled into the subnormals.
TEST_P(ReproducibleVulkanLinalg, LuSolveInvAtSizes) {
  ReproducibleGuard on(true);
  for (Dtype t : {float32, float64}) {
    if (!stores(t)) continue;
    uint64_t seed = 100;
    for (int64_t n : {1, 2, 7, 33, 64}) {
      SCOPED_TRACE(std::string(name(t)) + " n = " + std::to_string(n));
      const int64_t count = n <= 7 ? 2 : 1;
      const Tensor a = matrix(count, n, n, t, ++seed, n % 2 == 1, false);
      const Tensor b = matrix(count, n, 3, t, ++seed, false, false);
      const Tensor da = a.to(device()), db = b.to(device());
      const LUFactorEx got = run(OpId::lu_factor, t, [&] { return lu_factor_ex(da); });
      const LUFactorEx want = lu_factor_ex(a);
      EXPECT_EQ(first_difference(got.LU, want.LU), "") << "LU";
      EXPECT_EQ(first_difference(got.pivots, want.pivots), "") << "pivots";
      EXPECT_EQ(first_difference(got.info, want.info), "") << "info";
      EXPECT_EQ(first_difference(run(OpId::lu_solve, t, [&] { return lu_solve(got.LU, got.pivots, db); }),
                                 lu_solve(want.LU, want.pivots, b)),
                "")
          << "lu_solve";
      EXPECT_EQ(first_difference(run(OpId::solve, t, [&] { return solve(da, db); }), solve(a, b)), "") << "solve";
      if (n <= 33) {
        const InvEx gi = run(OpId::inv, t, [&] { return inv_ex(da); });
        const InvEx wi = inv_ex(a);
        EXPECT_EQ(first_difference(gi.inverse, wi.inverse), "") << "inv";
        EXPECT_EQ(first_difference(gi.info, wi.info), "") << "inv info";
      }
    }
  }
}

// The halves run in float32 working copies, on the device as on the CPU.
TEST_P(ReproducibleVulkanLinalg, HalvesThroughFloat32) {
  ReproducibleGuard on(true);
  for (Dtype t : {float16, bfloat16}) {
    if (!stores(t)) continue;
    SCOPED_TRACE(std::string(name(t)));
    // Unscaled rows (the halves' range), the diagonal dominant.
    Lcg g{7};
    std::vector<float> v(2 * 7 * 7), w(2 * 7 * 2);
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(g.uniform()) + (i % 49 % 8 == 0 ? 14.0f : 0.0f);
    for (float& x : w) x = static_cast<float>(g.uniform() * 1e-3);
    const Tensor a = from_vector(v, Shape{2, 7, 7}).to(t), b = from_vector(w, Shape{2, 7, 2}).to(t);
    const Tensor da = a.to(device()), db = b.to(device());
    EXPECT_EQ(first_difference(run(OpId::solve, t, [&] { return solve(da, db); }), solve(a, b)), "") << "solve";
    EXPECT_EQ(first_difference(run(OpId::solve_triangular, t, [&] { return solve_triangular(da, db, false); }),
                               solve_triangular(a, b, false)),
              "")
        << "solve_triangular";
  }
}

// Singular matrices: a zero matrix, repeated rows, a zero column in the
// middle, and entries that are edge values (±inf, NaN, subnormals, the
// largest finite): factors, pivots and info as the CPU's.
TEST_P(ReproducibleVulkanLinalg, SingularAndSpecialEntries) {
  ReproducibleGuard on(true);
  for (Dtype t : {float32, float64}) {
    if (!stores(t)) continue;
    SCOPED_TRACE(std::string(name(t)));
    Tensor rep = matrix(1, 7, 7, t, 21, false, false);
    rep.select(0, 4).copy_(rep.select(0, 1));
    Tensor col = matrix(1, 7, 7, t, 22, false, false);
    col.select(1, 3).fill_(Scalar(0));
    // Subnormal columns: the pivot search compares subnormals (all of them
    // zero to a unit that flushes them: no pivot, info 1).
    Tensor sub = matrix(1, 7, 7, t, 25, false, false);
    const double tiny = t == float64 ? 1e-310 : 1e-40;
    for (int64_t i = 0; i < 7; ++i)
      for (int64_t j : {0, 1})
        sub.select(0, i).select(0, j).fill_(Scalar(tiny * static_cast<double>((i * 5 + j) % 7 - 3)));
    const Tensor cases[] = {zeros({3, 3}, t), rep, col, sub, matrix(3, 7, 7, t, 23, true, true),
                            matrix(1, 33, 33, t, 24, false, true)};
    for (const Tensor& a : cases) {
      const Tensor da = a.to(device());
      const LUFactorEx got = run(OpId::lu_factor, t, [&] { return lu_factor_ex(da); });
      const LUFactorEx want = lu_factor_ex(a);
      EXPECT_EQ(first_difference(got.LU, want.LU), "") << "LU " << shape_str(a.shape());
      EXPECT_EQ(first_difference(got.pivots, want.pivots), "") << "pivots " << shape_str(a.shape());
      EXPECT_EQ(first_difference(got.info, want.info), "") << "info " << shape_str(a.shape());
      const InvEx gi = run(OpId::inv, t, [&] { return inv_ex(da); });
      const InvEx wi = inv_ex(a);
      EXPECT_EQ(first_difference(gi.inverse, wi.inverse), "") << "inv " << shape_str(a.shape());
      EXPECT_EQ(first_difference(gi.info, wi.info), "") << "inv info " << shape_str(a.shape());
    }
  }
}

// Cholesky of positive-definite matrices (A Aᵀ + n I, some rows tiny), of
// matrices that are not (a negative or NaN diagonal entry at a given order:
// info and the failed diagonal as the CPU's), and both triangles.
TEST_P(ReproducibleVulkanLinalg, Cholesky) {
  ReproducibleGuard on(true);
  for (Dtype t : {float32, float64}) {
    if (!stores(t)) continue;
    for (int64_t n : {1, 2, 7, 33, 64}) {
      SCOPED_TRACE(std::string(name(t)) + " n = " + std::to_string(n));
      const int64_t count = n <= 7 ? 2 : 1;
      const Tensor m = matrix(count, n, n, float64, static_cast<uint64_t>(n), false, false);
      const Tensor spd = add(matmul(m, m.transpose(-1, -2)), eye(n, {}, float64), Scalar(static_cast<double>(n)));
      const Tensor a = spd.to(t);
      Tensor bad = a.clone();
      if (n > 2) bad.select(-1, 2).select(-1, 2).fill_(Scalar(-1.0));
      else bad.select(-1, n - 1).select(-1, n - 1).fill_(Scalar(std::nan("")));
      for (const Tensor& x : {a, bad})
        for (bool upper : {false, true}) {
          const CholeskyEx got = run(OpId::cholesky, t, [&] { return cholesky_ex(x.to(device()), upper); });
          const CholeskyEx want = cholesky_ex(x, upper);
          EXPECT_EQ(first_difference(got.L, want.L), "") << (upper ? "upper" : "lower");
          EXPECT_EQ(first_difference(got.info, want.info), "") << "info";
        }
    }
  }
}

// Triangular solves: left and right, upper and lower, unit diagonal or not,
// n in {1, 2, 7, 33, 64}, 70 right-hand sides (two slices of 64) at n = 7,
// a transposed right-hand side with a matrix broadcast over a batch, and
// entries that are edge values.
TEST_P(ReproducibleVulkanLinalg, SolveTriangular) {
  ReproducibleGuard on(true);
  for (Dtype t : {float32, float64}) {
    if (!stores(t)) continue;
    uint64_t seed = 300;
    for (int64_t n : {1, 2, 7, 33, 64}) {
      const int64_t k = n == 7 ? 70 : 3;
      const bool specials = n == 7 || n == 2;
      const Tensor a = matrix(1, n, n, t, ++seed, true, specials);
      const Tensor bl = matrix(2, n, k, t, ++seed, false, specials), br = matrix(2, k, n, t, ++seed, false, specials);
      const Tensor da = a.to(device()), dbl = bl.to(device()), dbr = br.to(device());
      for (bool upper : {false, true})
        for (bool unit : {false, true}) {
          SCOPED_TRACE(std::string(name(t)) + " n = " + std::to_string(n) + (upper ? " upper" : " lower") +
                       (unit ? " unit" : ""));
          EXPECT_EQ(first_difference(
                        run(OpId::solve_triangular, t, [&] { return solve_triangular(da, dbl, upper, true, unit); }),
                        solve_triangular(a, bl, upper, true, unit)),
                    "")
              << "left";
          EXPECT_EQ(first_difference(
                        run(OpId::solve_triangular, t, [&] { return solve_triangular(da, dbr, upper, false, unit); }),
                        solve_triangular(a, br, upper, false, unit)),
                    "")
              << "right";
        }
      if (n == 7) {
        const Tensor bt = matrix(1, k, n, t, ++seed, false, true), dbt = bt.to(device());
        EXPECT_EQ(first_difference(run(OpId::solve_triangular, t,
                                       [&] { return solve_triangular(da.expand({2, n, n}), dbt.t(), true); }),
                                   solve_triangular(a.expand({2, n, n}), bt.t(), true)),
                  "")
            << "transposed rhs, broadcast matrix";
      }
    }
  }
}

CONCORD_INSTANTIATE_DEVICES(ReproducibleVulkanLinalg);

}  // namespace
