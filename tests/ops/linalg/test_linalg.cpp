// linalg: solve / LU / inv / det / cholesky / triangular solves on every device
// and floating dtype, against long double references (linalg_reference.h).
//
// Accuracy is judged with the error model of LU with partial pivoting: the
// backward error ||A x - b|| / (||A|| ||x|| + ||b||) is at most c n u, and the
// forward error at most c n u cond(A), with u the unit roundoff of the dtype
// (halves compute in float32 and round the result once, which costs one u of
// the half: still inside c n u).
#include <gtest/gtest.h>

#include <algorithm>

#include "concord/linalg.h"
#include "linalg_reference.h"
#include "support/devices.h"

namespace concord {
namespace {

using namespace concord::test::la;
using test::DeviceTest;

constexpr Dtype kDtypes[] = {float16, bfloat16, float32, float64};

class LinalgTest : public DeviceTest {
 protected:
  bool skip(Dtype t) const { return !capabilities(device()).can_store(t); }
};

TEST_P(LinalgTest, SolveErrorBounds) {
  // n = 150 takes the LAPACK path, the others the batched loops.
  for (Dtype t : kDtypes) {
    if (skip(t)) continue;
    for (int64_t n : {1, 3, 17, 64, 150}) {
      const int64_t count = n > 64 ? 2 : 3, k = 2;
      Tensor A = make(dominant(count, n, 11 + n), {count, n, n}, t, device());
      Tensor B = make(uniform(static_cast<size_t>(count * n * k), 5 + n), {count, n, k}, t, device());
      const Vec a = values(A), b = values(B);
      Tensor X = linalg::solve(A, B);
      EXPECT_EQ(X.dtype(), t);
      EXPECT_EQ(X.device(), device());
      EXPECT_EQ(X.shape(), (Shape{count, n, k}));
      expect_solved(a, b, values(X), count, n, k, t, std::string(name(t)) + " n=" + std::to_string(n));
      EXPECT_EQ(values(A), a) << "A was modified";
      EXPECT_EQ(values(B), b) << "B was modified";
    }
  }
}

TEST_P(LinalgTest, SolveBroadcastsBatches) {
  for (Dtype t : kDtypes) {
    if (skip(t)) continue;
    // A [2, 3, 4, 4] with one vector B [4].
    Tensor A = make(dominant(6, 4, 1), {2, 3, 4, 4}, t, device());
    Tensor b = make(uniform(4, 2), {4}, t, device());
    Tensor X = linalg::solve(A, b);
    ASSERT_EQ(X.shape(), (Shape{2, 3, 4}));
    const Vec a = values(A), bv = values(b), x = values(X);
    Vec b6;
    for (int i = 0; i < 6; ++i) b6.insert(b6.end(), bv.begin(), bv.end());
    expect_solved(a, b6, x, 6, 4, 1, t, "A[2,3,4,4] B[4]");
    // One matrix against a batch of right-hand sides, and batch dims broadcasting both ways.
    Tensor A1 = make(dominant(1, 4, 3), {4, 4}, t, device());
    Tensor B5 = make(uniform(40, 4), {5, 4, 2}, t, device());
    Tensor X5 = linalg::solve(A1, B5);
    ASSERT_EQ(X5.shape(), (Shape{5, 4, 2}));
    Vec a5;
    for (int i = 0; i < 5; ++i) { Vec v = values(A1); a5.insert(a5.end(), v.begin(), v.end()); }
    expect_solved(a5, values(B5), values(X5), 5, 4, 2, t, "A[4,4] B[5,4,2]");
    Tensor A21 = make(dominant(2, 3, 6), {2, 1, 3, 3}, t, device());
    Tensor B31 = make(uniform(9, 7), {3, 3, 1}, t, device());
    Tensor X23 = linalg::solve(A21, B31);
    ASSERT_EQ(X23.shape(), (Shape{2, 3, 3, 1}));
    const Vec av = values(A21), bb = values(B31), xv = values(X23);
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        expect_solved(Vec(av.begin() + i * 9, av.begin() + i * 9 + 9), Vec(bb.begin() + j * 3, bb.begin() + j * 3 + 3),
                      Vec(xv.begin() + (i * 3 + j) * 3, xv.begin() + (i * 3 + j) * 3 + 3), 1, 3, 1, t, "broadcast");
  }
}

TEST_P(LinalgTest, VectorOrMatrixRightHandSide) {
  const Dtype t = float32;
  Tensor A = make(dominant(2, 3, 8), {2, 3, 3}, t, device());
  // B.shape == A.shape[:-1]: a batch of vectors.
  EXPECT_EQ(linalg::solve(A, make(uniform(6, 1), {2, 3}, t, device())).shape(), (Shape{2, 3}));
  // Same ndim but another shape: matrices [3, 3], broadcast over A's batch.
  EXPECT_EQ(linalg::solve(A, make(uniform(9, 1), {3, 3}, t, device())).shape(), (Shape{2, 3, 3}));
  EXPECT_EQ(linalg::solve(A, make(uniform(3, 1), {3}, t, device())).shape(), (Shape{2, 3}));
  Tensor A1 = make(dominant(1, 3, 9), {3, 3}, t, device());
  EXPECT_EQ(linalg::solve(A1, make(uniform(3, 1), {3}, t, device())).shape(), (Shape{3}));
  EXPECT_EQ(linalg::solve(A1, make(uniform(3, 1), {3, 1}, t, device())).shape(), (Shape{3, 1}));
  // [2, 3] against [3, 3]: matrices with 2 rows, which does not fit.
  EXPECT_THROW(linalg::solve(A1, make(uniform(6, 1), {2, 3}, t, device())), ShapeError);
}

// Four 3x3 matrices; elements 1 and 3 have an exactly zero pivot, U[2,2] and U[3,3].
Vec singular_batch() {
  return {2, 1, 0, 1, 3, 1, 0, 1, 4,         // fine
          1, 2, 3, 2, 4, 6.5, 0, 0, 1,       // pivots rows 1, then column 1 is zero below: info 2
          4, 0, 0, 0, 2, 0, 1, 1, 1,         // fine
          1, 0, 0, 0, 1, 0, 0, 0, 0};        // info 3
}

TEST_P(LinalgTest, SingularMatricesReportInfo) {
  for (Dtype t : kDtypes) {
    if (skip(t)) continue;
    Tensor A = make(singular_batch(), {4, 3, 3}, t, device());
    Tensor B = make({1, 2, 3}, {3}, t, device());
    const Vec a = values(A);
    linalg::SolveEx r;
    ASSERT_NO_THROW(r = linalg::solve_ex(A, B));
    EXPECT_EQ(r.info.dtype(), int32);
    EXPECT_EQ(r.info.shape(), (Shape{4}));
    EXPECT_EQ(r.info.to_vector<int32_t>(), (std::vector<int32_t>{0, 2, 0, 3}));
    const Vec x = values(r.result);
    expect_solved(Vec(a.begin(), a.begin() + 9), {1, 2, 3}, Vec(x.begin(), x.begin() + 3), 1, 3, 1, t,
                  "good element next to singular ones");
    try {
      linalg::solve(A, B);
      ADD_FAILURE() << "solve of a singular batch did not throw";
    } catch (const LinAlgError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("[linalg.solve] (batch element 1) the matrix is singular: U[2,2] is zero"), std::string::npos)
          << m;
    }
    EXPECT_EQ(values(A), a) << "inputs untouched after the error";
    EXPECT_EQ(linalg::lu_factor_ex(A).info.to_vector<int32_t>(), (std::vector<int32_t>{0, 2, 0, 3}));
    EXPECT_EQ(linalg::inv_ex(A).info.to_vector<int32_t>(), (std::vector<int32_t>{0, 2, 0, 3}));
    EXPECT_THROW(linalg::inv(A), LinAlgError);
    EXPECT_THROW(linalg::lu_factor(A), LinAlgError);
    const Vec d = values(linalg::det(A));
    EXPECT_EQ(d[1], 0.0);
    EXPECT_EQ(d[3], 0.0);
    auto [sign, logabs] = linalg::slogdet(A);
    EXPECT_EQ(values(sign)[1], 0.0);
    EXPECT_EQ(values(logabs)[3], -INFINITY);
    // A single singular matrix: no batch part in the message.
    try {
      linalg::solve(A.select(0, 3), B);
      ADD_FAILURE() << "no throw";
    } catch (const LinAlgError& e) {
      EXPECT_EQ(std::string(e.what()).find("batch element"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("U[3,3] is zero"), std::string::npos) << e.what();
    }
  }
}

TEST_P(LinalgTest, HilbertBackwardErrorStaysSmall) {
  if (skip(float64)) GTEST_SKIP() << "float64 is not stored on " << GetParam().label;
  // cond(H8) is about 3e10: LU with partial pivoting is backward stable, so the
  // residual stays at the rounding level, but the forward error may be as large
  // as cond * u (about 1e-6 here), far above n u: only the bound c n u cond is asserted.
  const int64_t n = 8;
  Vec h(n * n), b(n, 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) { h[i * n + j] = 1.0 / static_cast<double>(i + j + 1); b[i] += h[i * n + j]; }
  Tensor H = make(h, {n, n}, float64, device()), B = make(b, {n}, float64, device());
  const Vec x = values(linalg::solve(H, B));
  EXPECT_LE(backward_error(h.data(), x.data(), b.data(), n, 1), kC * n * unit_roundoff(float64));
  EXPECT_LE(forward_error(x.data(), ge_solve(h.data(), b.data(), n, 1)),
            kC * n * unit_roundoff(float64) * cond_inf(h.data(), n));
}

TEST_P(LinalgTest, CholeskyMatchesReference) {
  for (Dtype t : kDtypes) {
    if (skip(t)) continue;
    for (int64_t n : {1, 5, 33, 140}) {
      // SPD: M M^T / n + I, symmetric after rounding too.
      const Vec m = uniform(static_cast<size_t>(2 * n * n), 21 + n);
      Vec s(2 * n * n, 0.0);
      for (int64_t e = 0; e < 2; ++e)
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < n; ++j) {
            double v = i == j ? 1.0 : 0.0;
            for (int64_t p = 0; p < n; ++p) v += m[e * n * n + i * n + p] * m[e * n * n + j * n + p] / n;
            s[e * n * n + i * n + j] = v;
          }
      Tensor A = make(s, {2, n, n}, t, device());
      const Vec a = values(A);
      const Vec L = values(linalg::cholesky(A)), U = values(linalg::cholesky(A, /*upper=*/true));
      for (int64_t e = 0; e < 2; ++e) {
        const std::vector<LD> ref = cholesky_ref(a.data() + e * n * n, n);
        const double tol = 16 * n * unit_roundoff(t) * cond_inf(a.data() + e * n * n, n) *
                           static_cast<double>(*std::max_element(ref.begin(), ref.end()));
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < n; ++j) {
            const size_t at = static_cast<size_t>(e * n * n + i * n + j);
            const size_t tr = static_cast<size_t>(e * n * n + j * n + i);
            EXPECT_NEAR(L[at], static_cast<double>(ref[i * n + j]), tol)
                << name(t) << " n=" << n << " " << i << "," << j;
            EXPECT_EQ(U[tr], L[at]) << "upper is the transpose";
          }
      }
      EXPECT_EQ(values(A), a);
      // Only the named triangle is read: garbage in the other one changes nothing.
      Vec lower_only = a, upper_only = a;
      for (int64_t e = 0; e < 2; ++e)
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = i + 1; j < n; ++j) {
            lower_only[e * n * n + i * n + j] = 7;
            upper_only[e * n * n + j * n + i] = -7;
          }
      EXPECT_EQ(values(linalg::cholesky(make(lower_only, {2, n, n}, t, device()))), L);
      EXPECT_EQ(values(linalg::cholesky(make(upper_only, {2, n, n}, t, device()), true)), U);
    }
    // Leading minor of order 2 is not positive definite (1 - 4 < 0).
    Tensor bad = make({4, 0, 0, 0, 4, 0, 0, 0, 4, 1, 2, 0, 2, 1, 0, 0, 0, 1}, {2, 3, 3}, t, device());
    EXPECT_EQ(linalg::cholesky_ex(bad).info.to_vector<int32_t>(), (std::vector<int32_t>{0, 2}));
    try {
      linalg::cholesky(bad);
      ADD_FAILURE() << "no throw";
    } catch (const LinAlgError& e) {
      EXPECT_NE(std::string(e.what()).find("(batch element 1)"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("not positive-definite"), std::string::npos) << e.what();
    }
  }
}

TEST_P(LinalgTest, DetSlogdetInvAndLuSolve) {
  for (Dtype t : kDtypes) {
    if (skip(t)) continue;
    for (int64_t n : {1, 4, 20, 130}) {
      // |det| stays near 1 for every dtype: diagonal magnitudes cycle 1, 2, 1/2 (signs
      // alternate), small off-diagonal entries.
      Vec v = uniform(static_cast<size_t>(3 * n * n), 31 + n, -0.25 / n, 0.25 / n);
      for (int64_t e = 0; e < 3; ++e)
        for (int64_t i = 0; i < n; ++i)
          v[e * n * n + i * n + i] = (i % 2 ? -1.0 : 1.0) * (i % 3 == 0 ? 1.0 : i % 3 == 1 ? 2.0 : 0.5);
      Tensor A = make(v, {3, n, n}, t, device());
      const Vec a = values(A), d = values(linalg::det(A)), inv = values(linalg::inv(A));
      auto [sign, logabs] = linalg::slogdet(A);
      const Vec sg = values(sign), la = values(logabs);
      auto lu = linalg::lu_factor(A);
      Tensor B = make(uniform(static_cast<size_t>(3 * n), 3), {3, n}, t, device());
      const Vec x = values(linalg::lu_solve(lu.LU, lu.pivots, B));
      const double u = unit_roundoff(t);
      for (int64_t e = 0; e < 3; ++e) {
        const double* ae = a.data() + e * n * n;
        const double kappa = cond_inf(ae, n), tol = 16 * n * u * kappa;
        LD ref = 0;
        Vec zero(n, 0.0);
        ge_solve(ae, zero.data(), n, 1, &ref);
        EXPECT_NEAR(d[e] / static_cast<double>(ref), 1.0, tol) << name(t) << " det n=" << n;
        EXPECT_EQ(sg[e], ref > 0 ? 1.0 : -1.0);
        EXPECT_NEAR(la[e], std::log(std::fabs(static_cast<double>(ref))), tol) << name(t) << " logabsdet n=" << n;
        // inv(A) A = I up to c n u cond(A).
        double worst = 0;
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < n; ++j) {
            LD s = i == j ? -1 : 0;
            for (int64_t p = 0; p < n; ++p) s += static_cast<LD>(inv[e * n * n + i * n + p]) * ae[p * n + j];
            worst = std::max(worst, static_cast<double>(std::fabs(s)));
          }
        EXPECT_LE(worst, tol) << name(t) << " inv n=" << n;
        const Vec bv = values(B);
        expect_solved(Vec(ae, ae + n * n), Vec(bv.begin() + e * n, bv.begin() + (e + 1) * n),
                      Vec(x.begin() + e * n, x.begin() + (e + 1) * n), 1, n, 1, t, "lu_solve");
      }
    }
  }
}

TEST_P(LinalgTest, SolveTriangular) {
  for (Dtype t : kDtypes) {
    if (skip(t)) continue;
    for (int64_t n : {1, 6, 140}) {
      const int64_t k = 3;
      // Triangular systems are built full; the op must read only the named triangle.
      Vec a = uniform(static_cast<size_t>(n * n), 41 + n, -1.0 / n, 1.0 / n);
      for (int64_t i = 0; i < n; ++i) a[i * n + i] = 2.0 + 0.5 * (i % 4);
      Tensor A = make(a, {n, n}, t, device());
      Tensor Bl = make(uniform(static_cast<size_t>(2 * n * k), 42), {2, n, k}, t, device());
      Tensor Br = make(uniform(static_cast<size_t>(2 * k * n), 43), {2, k, n}, t, device());
      const Vec av = values(A), bl = values(Bl), br = values(Br);
      for (bool upper : {false, true})
        for (bool unit : {false, true}) {
          Vec tri(n * n, 0.0), triT(n * n, 0.0);
          for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < n; ++j)
              if (i == j ? true : (upper ? j > i : j < i)) tri[i * n + j] = (i == j && unit) ? 1.0 : av[i * n + j];
          for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < n; ++j) triT[j * n + i] = tri[i * n + j];
          const Vec xl = values(linalg::solve_triangular(A, Bl, upper, true, unit));
          const Vec xr = values(linalg::solve_triangular(A, Br, upper, false, unit));
          for (int64_t e = 0; e < 2; ++e) {
            expect_solved(tri, Vec(bl.begin() + e * n * k, bl.begin() + (e + 1) * n * k),
                          Vec(xl.begin() + e * n * k, xl.begin() + (e + 1) * n * k), 1, n, k, t, "left");
            // X A = B  <=>  A^T X^T = B^T
            Vec bt(n * k), xt(n * k);
            for (int64_t i = 0; i < k; ++i)
              for (int64_t j = 0; j < n; ++j) {
                bt[j * k + i] = br[e * k * n + i * n + j];
                xt[j * k + i] = xr[e * k * n + i * n + j];
              }
            expect_solved(triT, bt, xt, 1, n, k, t, "right");
          }
        }
      EXPECT_THROW(linalg::solve_triangular(A, make(uniform(n, 1), {n}, t, device()), false), ShapeError);
    }
  }
}

TEST_P(LinalgTest, ErrorsNameShapesAndDtypes) {
  Tensor Ai = from_host(std::vector<int32_t>{1, 0, 0, 1}.data(), {2, 2}, int32, kCPU).to(device());
  try {
    linalg::solve(Ai, Ai);
    ADD_FAILURE() << "no throw";
  } catch (const DtypeError& e) {
    EXPECT_NE(std::string(e.what()).find(".to(concord::float32)"), std::string::npos) << e.what();
  }
  EXPECT_THROW(linalg::det(Ai), DtypeError);
  EXPECT_THROW(linalg::vector_norm(Ai), DtypeError);
  Tensor R = make(uniform(12, 1), {3, 4}, float32, device());
  try {
    linalg::solve(R, make(uniform(3, 1), {3}, float32, device()));
    ADD_FAILURE() << "no throw";
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("[3, 4]"), std::string::npos) << e.what();
  }
  Tensor A2 = make(dominant(2, 3, 1), {2, 3, 3}, float32, device());
  Tensor B3 = make(uniform(9, 1), {3, 3, 1}, float32, device());
  try {
    linalg::solve(A2, B3);
    ADD_FAILURE() << "no throw";
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("[2, 3, 3]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[3, 3, 1]"), std::string::npos) << e.what();
  }
  EXPECT_THROW(linalg::solve(A2, make(uniform(6, 1), {2, 3}, float16, device())), DtypeError);
  EXPECT_THROW(linalg::inv(R), ShapeError);
  EXPECT_THROW(linalg::cholesky(make({1}, {1}, float32, device())), ShapeError);
  // Empty batches and empty matrices are fine.
  EXPECT_EQ(linalg::solve(make({}, {0, 3, 3}, float32, device()), make({}, {0, 3}, float32, device())).shape(),
            (Shape{0, 3}));
  EXPECT_EQ(values(linalg::det(make({}, {2, 0, 0}, float32, device()))), (Vec{1, 1}));
}

CONCORD_INSTANTIATE_DEVICES(LinalgTest);

uint64_t transfers(const Report& r, const std::string& from, const std::string& to) {
  for (const auto& t : r.transfers)
    if (t.from == from && t.to == to) return t.count;
  return 0;
}

// solve on a device without the kernel: one copy of each operand to the CPU for
// the whole batch, one copy of the result back, one fallback in the report.
void expect_batched_fallback(const Device& d, int64_t n = 8, int64_t count = 16) {
  Tensor A = make(dominant(count, n, 3), {count, n, n}, float32, d);
  Tensor B = make(uniform(count * n, 4), {count, n}, float32, d);
  reset_report();
  Tensor X = linalg::solve(A, B);
  const Report r = report();
  EXPECT_EQ(r.count("solve", Path::fallback), 1u) << r.str();
  EXPECT_EQ(transfers(r, d.str(), "cpu"), 2u) << r.str();
  EXPECT_EQ(transfers(r, "cpu", d.str()), 1u) << r.str();
  EXPECT_EQ(X.device(), d);
  expect_solved(values(A), values(B), values(X), count, n, 1, float32, "fallback on " + d.str());
  FallbackPolicyGuard strict(FallbackPolicy::strict);
  EXPECT_THROW(linalg::solve(A, B), NotImplementedError);
}

TEST(LinalgDispatch, EmuWithoutSolveFallsBackOncePerBatch) {
  const Device emu("emu:0");
  ProfileGuard g(emu, "no-fp64,no-op:solve");
  expect_batched_fallback(emu);
}

TEST(LinalgDispatch, EmuRunsSolveNatively) {
  const Device emu("emu:0");
  Tensor A = make(dominant(4, 5, 1), {4, 5, 5}, float32, emu);
  Tensor B = make(uniform(20, 2), {4, 5}, float32, emu);
  reset_report();
  Tensor X = linalg::solve(A, B);
  EXPECT_EQ(report().count("solve", "emu:0", float32, Path::native), 1u) << report().str();
  // The matrices stay on the device; only info (4 int32) is read to decide whether to throw.
  EXPECT_EQ(report().bytes("emu:0", "cpu"), 4 * sizeof(int32_t)) << report().str();
  EXPECT_EQ(transfers(report(), "cpu", "emu:0"), 0u) << report().str();
}

// OpenCL has native linalg kernels (test_opencl_linalg.cpp); with solve
// profiled away it takes the same counted, once-per-batch fallback.
TEST(LinalgDispatch, OpenclWithoutSolveFallsBackOncePerBatch) {
  bool found = false;
  for (const auto& d : devices()) found = found || d.kind().name() == "opencl";
  if (!found) GTEST_SKIP() << "no OpenCL device";
  const Device ocl("opencl:0");
  ProfileGuard g(ocl, "no-op:solve");
  expect_batched_fallback(ocl);
}

// The native kernels take n <= 256 (one work-group per matrix); larger
// matrices take the same counted fallback, and strict names the limit.
TEST(LinalgDispatch, OpenclAboveTheSizeLimitFallsBack) {
  bool found = false;
  for (const auto& d : devices()) found = found || d.kind().name() == "opencl";
  if (!found) GTEST_SKIP() << "no OpenCL device";
  const Device ocl("opencl:0");
  expect_batched_fallback(ocl, 300, 2);
  Tensor A = make(dominant(1, 256, 5), {1, 256, 256}, float32, ocl);
  reset_report();
  (void)linalg::lu_factor(A);
  EXPECT_EQ(report().count("lu_factor", ocl.str(), float32, Path::native), 1u) << report().str();
  Tensor big = make(dominant(1, 257, 6), {1, 257, 257}, float32, ocl);
  FallbackPolicyGuard strict(FallbackPolicy::strict);
  try {
    (void)linalg::lu_factor(big);
    ADD_FAILURE() << "expected NotImplementedError";
  } catch (const NotImplementedError& e) {
    EXPECT_NE(std::string(e.what()).find("n <= 256"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("n = 257"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace concord
