// OpenCL native linear algebra (kernels/linalg.cl) on opencl:0: against the
// CPU backend and against long double references (linalg_reference.h), in
// float32 and float64, batched and broadcast; the path the dispatcher takes
// (native, or the counted CPU fallback when a profile removes the op, or an
// error under a strict fallback policy).
//
// The kernels apply, per element, the CPU's small-matrix operations in the
// CPU's order, so for n <= 128 (the CPU's loop regime) pivots always agree and
// float64 results are the CPU's bits (OpenCL double division and sqrt are
// correctly rounded); float32 too where the runtime builds with
// -cl-fp32-correctly-rounded-divide-sqrt.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <thread>

#include "backend/opencl/opencl_backend.h"
#include "concord/linalg.h"
#include "linalg_reference.h"

namespace concord {
namespace {

using namespace concord::test::la;

// opencl:0 with a profile: "none" (the device as it is) or "no-fp64".
class OpenclLinalg : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    bool found = false;
    for (const auto& d : devices()) found = found || d == dev_;
    if (!found) GTEST_SKIP() << "no OpenCL device (no ICD, platform or device found)";
    guard_ = std::make_unique<ProfileGuard>(dev_, GetParam());
  }
  void TearDown() override { guard_.reset(); }
  // Dtypes to run: float64 only where the device (with the profile) stores it.
  std::vector<Dtype> dtypes() const {
    std::vector<Dtype> v{float32};
    if (capabilities(dev_).can_store(float64)) v.push_back(float64);
    return v;
  }
  // Whether opencl results must equal the CPU's bits (n <= 128).
  bool bitwise(Dtype t) const {
    return t == float64 || detail::ocl::device_info(0).fp32_correctly_rounded_divide_sqrt;
  }
  const Device dev_{"opencl:0"};
  std::unique_ptr<ProfileGuard> guard_;
};

Tensor on(const Vec& v, Shape s, Dtype t, const Device& d) { return make(v, std::move(s), t, d); }

// Random (not diagonally dominant) matrices: pivoting happens at most steps.
// n = 100 (float64) and 130, 200 do not fit the 64 KiB of local memory the
// kernels use: they run on __global memory.
TEST_P(OpenclLinalg, LuFactorMatchesCpuAndReference) {
  for (Dtype t : dtypes())
    for (int64_t n : {1, 2, 5, 16, 33, 64, 100, 130, 200}) {
      const int64_t count = n > 64 ? 2 : 5;
      const Vec a = uniform(static_cast<size_t>(count * n * n), 100 + n);
      Tensor A = on(a, {count, n, n}, t, dev_);
      const Vec ar = values(A);  // rounded to t
      reset_report();
      auto g = linalg::lu_factor_ex(A);
      EXPECT_EQ(report().count("lu_factor", dev_.str(), t, Path::native), 1u) << report().str();
      EXPECT_EQ(g.LU.device(), dev_);
      auto c = linalg::lu_factor_ex(A.to(kCPU));
      const std::string what = std::string(name(t)) + " n=" + std::to_string(n);
      const auto piv = g.pivots.to_vector<int32_t>();
      const Vec lu = values(g.LU);
      EXPECT_EQ(g.info.to_vector<int32_t>(), std::vector<int32_t>(static_cast<size_t>(count), 0)) << what;
      for (int64_t e = 0; e < count; ++e)
        expect_lu_backward_stable(ar.data() + e * n * n, lu.data() + e * n * n, piv.data() + e * n, n, t, what);
      if (n <= 128) {  // the CPU's loops: same pivots, and the same bits where division is exact-rounded
        EXPECT_EQ(piv, c.pivots.to_vector<int32_t>()) << what;
        if (bitwise(t)) EXPECT_EQ(lu, values(c.LU)) << what;
      }
      EXPECT_EQ(values(A), ar) << "A was modified";
    }
}

// The LU update split by columns (how GPUs run it) and by rows (CPU devices)
// gives the same bits: the same operations per element in the same order.
TEST_P(OpenclLinalg, LuUpdateSplitsAgree) {
  struct Reset { ~Reset() { detail::ocl::set_linalg_split_for_testing(-1); } } reset;
  for (Dtype t : dtypes())
    for (int64_t n : {3, 40, 100}) {
      Tensor A = on(uniform(static_cast<size_t>(3 * n * n), 400 + n), {3, n, n}, t, dev_);
      detail::ocl::set_linalg_split_for_testing(0);
      auto cols = linalg::lu_factor_ex(A);
      const Vec lc = values(cols.LU);
      detail::ocl::set_linalg_split_for_testing(1);
      auto rows = linalg::lu_factor_ex(A);
      EXPECT_EQ(lc, values(rows.LU)) << name(t) << " n=" << n;
      EXPECT_EQ(cols.pivots.to_vector<int32_t>(), rows.pivots.to_vector<int32_t>());
      if (bitwise(t)) EXPECT_EQ(lc, values(linalg::lu_factor_ex(A.to(kCPU)).LU)) << name(t) << " n=" << n;
    }
}

TEST_P(OpenclLinalg, SolveMatchesCpuAndReference) {
  for (Dtype t : dtypes())
    for (int64_t n : {1, 3, 17, 64, 100, 150})
      for (int64_t k : {1, 4}) {
        const int64_t count = n > 64 ? 2 : 6;
        Tensor A = on(uniform(static_cast<size_t>(count * n * n), 200 + n), {count, n, n}, t, dev_);
        Tensor B = on(uniform(static_cast<size_t>(count * n * k), 300 + n), {count, n, k}, t, dev_);
        const Vec a = values(A), b = values(B);
        reset_report();
        Tensor X = linalg::solve(A, B);
        EXPECT_EQ(report().count("solve", dev_.str(), t, Path::native), 1u) << report().str();
        EXPECT_EQ(report().count("solve", Path::fallback), 0u) << report().str();
        EXPECT_EQ(X.device(), dev_);
        EXPECT_EQ(X.dtype(), t);
        const std::string what = std::string(name(t)) + " n=" + std::to_string(n) + " k=" + std::to_string(k);
        const Vec x = values(X);
        expect_solved(a, b, x, count, n, k, t, what);
        const Vec xc = values(linalg::solve(A.to(kCPU), B.to(kCPU)));
        if (n <= 128 && bitwise(t)) EXPECT_EQ(x, xc) << what;
        EXPECT_EQ(values(A), a);
        EXPECT_EQ(values(B), b);
      }
}

TEST_P(OpenclLinalg, SolveBroadcastsBatches) {
  for (Dtype t : dtypes()) {
    const int64_t n = 5;
    // A [2, 1, n, n] against B [3, n, 2]: X [2, 3, n, 2].
    Tensor A = on(uniform(2 * n * n, 7), {2, 1, n, n}, t, dev_);
    Tensor B = on(uniform(3 * n * 2, 8), {3, n, 2}, t, dev_);
    Tensor X = linalg::solve(A, B);
    ASSERT_EQ(X.shape(), (Shape{2, 3, n, 2}));
    const Vec a = values(A), b = values(B), x = values(X);
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 3; ++j)
        expect_solved(Vec(a.begin() + i * n * n, a.begin() + (i + 1) * n * n),
                      Vec(b.begin() + j * n * 2, b.begin() + (j + 1) * n * 2),
                      Vec(x.begin() + (i * 3 + j) * n * 2, x.begin() + (i * 3 + j + 1) * n * 2), 1, n, 2, t,
                      "broadcast");
    // One vector against a batch of matrices.
    Tensor v = on(uniform(n, 9), {n}, t, dev_);
    Tensor Xv = linalg::solve(A.select(1, 0), v);
    ASSERT_EQ(Xv.shape(), (Shape{2, n}));
    EXPECT_EQ(values(Xv), values(linalg::solve(A.select(1, 0).to(kCPU), v.to(kCPU))));
  }
}

// Five 4x4 matrices; element 3 is singular. Element 1 has a zero pivot at step 2
// with a non-zero column further right: LAPACK semantics keep factoring.
TEST_P(OpenclLinalg, SingularElementsReportInfoPerMatrix) {
  Vec v = uniform(5 * 16, 11);
  for (int64_t i = 0; i < 4; ++i) v[3 * 16 + i * 4 + 2] = 0;  // element 3: column 2 is zero
  const Vec m1 = {2, 1, 4, 1, 4, 2, 3, 5, 0, 0, 7, 1, 0, 0, 1, 3};  // rows 0,1 make U[1,1] = 0 after pivoting
  std::copy(m1.begin(), m1.end(), v.begin() + 16);
  for (Dtype t : dtypes()) {
    Tensor A = on(v, {5, 4, 4}, t, dev_);
    auto g = linalg::lu_factor_ex(A);
    auto c = linalg::lu_factor_ex(A.to(kCPU));
    const auto info = g.info.to_vector<int32_t>();
    EXPECT_EQ(info, c.info.to_vector<int32_t>());
    EXPECT_EQ(info[0], 0);
    EXPECT_EQ(info[1], 2);
    EXPECT_EQ(info[2], 0);
    EXPECT_EQ(info[3], 3);
    EXPECT_EQ(info[4], 0);
    EXPECT_EQ(g.pivots.to_vector<int32_t>(), c.pivots.to_vector<int32_t>());
    if (bitwise(t)) EXPECT_EQ(values(g.LU), values(c.LU));
    EXPECT_EQ(linalg::solve_ex(A, on(uniform(4, 12), {4}, t, dev_)).info.to_vector<int32_t>(), info);
    EXPECT_EQ(linalg::inv_ex(A).info.to_vector<int32_t>(), info);
    try {
      linalg::solve(A, on(uniform(4, 12), {4}, t, dev_));
      ADD_FAILURE() << "no throw";
    } catch (const LinAlgError& e) {
      EXPECT_NE(std::string(e.what()).find("(batch element 1)"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("opencl:0"), std::string::npos) << e.what();
    }
    const Vec d = values(linalg::det(A));
    EXPECT_EQ(d[1], 0.0);
    EXPECT_EQ(d[3], 0.0);
    EXPECT_NE(d[0], 0.0);
  }
}

TEST_P(OpenclLinalg, InvDetSlogdetLuSolve) {
  for (Dtype t : dtypes())
    for (int64_t n : {1, 4, 20, 100}) {
      const int64_t count = 3;
      Vec v = uniform(static_cast<size_t>(count * n * n), 31 + n, -0.25 / n, 0.25 / n);
      for (int64_t e = 0; e < count; ++e)
        for (int64_t i = 0; i < n; ++i) v[e * n * n + i * n + i] = (i % 2 ? -1.0 : 1.0) * (i % 3 == 1 ? 2.0 : 0.75);
      Tensor A = on(v, {count, n, n}, t, dev_);
      const Vec a = values(A);
      reset_report();
      const Vec inv = values(linalg::inv(A)), d = values(linalg::det(A));
      auto [sign, logabs] = linalg::slogdet(A);
      auto lu = linalg::lu_factor(A);
      Tensor B = on(uniform(static_cast<size_t>(count * n * 2), 5), {count, n, 2}, t, dev_);
      const Vec x = values(linalg::lu_solve(lu.LU, lu.pivots, B));
      for (const char* op : {"inv", "lu_factor", "lu_solve"})
        EXPECT_EQ(report().count(op, dev_.str(), t, Path::native), 1u) << op << "\n" << report().str();
      // det and slogdet finish in float64: in hardware double (kernels/norms.cl), or on the
      // doubles' bits without it (norms_xd.cl): native in both builds.
      for (const char* op : {"det", "slogdet"})
        EXPECT_EQ(report().count(op, dev_.str(), t, Path::native), 1u) << op << "\n" << report().str();
      const double u = unit_roundoff(t);
      const Vec sg = values(sign), la = values(logabs), bv = values(B);
      for (int64_t e = 0; e < count; ++e) {
        const double* ae = a.data() + e * n * n;
        const double tol = 16 * n * u * cond_inf(ae, n);
        LD ref = 0;
        Vec zero(n, 0.0);
        ge_solve(ae, zero.data(), n, 1, &ref);
        EXPECT_NEAR(d[e] / static_cast<double>(ref), 1.0, tol) << name(t) << " det n=" << n;
        EXPECT_EQ(sg[e], ref > 0 ? 1.0 : -1.0);
        EXPECT_NEAR(la[e], std::log(std::fabs(static_cast<double>(ref))), tol);
        double worst = 0;
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < n; ++j) {
            LD s = i == j ? -1 : 0;
            for (int64_t p = 0; p < n; ++p) s += static_cast<LD>(inv[e * n * n + i * n + p]) * ae[p * n + j];
            worst = std::max(worst, static_cast<double>(std::fabs(s)));
          }
        EXPECT_LE(worst, tol) << name(t) << " inv n=" << n;
        expect_solved(Vec(ae, ae + n * n), Vec(bv.begin() + e * n * 2, bv.begin() + (e + 1) * n * 2),
                      Vec(x.begin() + e * n * 2, x.begin() + (e + 1) * n * 2), 1, n, 2, t, "lu_solve");
      }
      if (bitwise(t)) {
        EXPECT_EQ(inv, values(linalg::inv(A.to(kCPU)))) << name(t) << " n=" << n;
        EXPECT_EQ(d, values(linalg::det(A.to(kCPU)))) << name(t) << " n=" << n;
      }
    }
}

TEST_P(OpenclLinalg, LuSolveRejectsBadPivots) {
  Tensor A = on(dominant(2, 3, 1), {2, 3, 3}, float32, dev_);
  auto lu = linalg::lu_factor(A);
  Tensor bad = from_host(std::vector<int32_t>{1, 2, 3, 1, 7, 3}.data(), {2, 3}, int32, kCPU).to(dev_);
  try {
    linalg::lu_solve(lu.LU, bad, on(uniform(6, 2), {2, 3, 1}, float32, dev_));
    ADD_FAILURE() << "no throw";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("found 7 at flat position 4"), std::string::npos) << e.what();
  }
}

TEST_P(OpenclLinalg, CholeskyMatchesCpuAndReference) {
  for (Dtype t : dtypes())
    for (int64_t n : {1, 5, 40, 100, 140}) {
      const int64_t count = 2;
      const Vec m = uniform(static_cast<size_t>(count * n * n), 21 + n);
      Vec s(count * n * n, 0.0);
      for (int64_t e = 0; e < count; ++e)
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < n; ++j) {
            double acc = i == j ? 1.0 : 0.0;
            for (int64_t p = 0; p < n; ++p) acc += m[e * n * n + i * n + p] * m[e * n * n + j * n + p] / n;
            s[e * n * n + i * n + j] = acc;
          }
      // Garbage above the diagonal: only the lower triangle may be read.
      Vec lower_only = s;
      for (int64_t e = 0; e < count; ++e)
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = i + 1; j < n; ++j) lower_only[e * n * n + i * n + j] = 9;
      Tensor A = on(s, {count, n, n}, t, dev_);
      const Vec a = values(A);
      reset_report();
      const Vec L = values(linalg::cholesky(A));
      EXPECT_EQ(report().count("cholesky", dev_.str(), t, Path::native), 1u) << report().str();
      EXPECT_EQ(values(linalg::cholesky(on(lower_only, {count, n, n}, t, dev_))), L);
      const Vec U = values(linalg::cholesky(A, /*upper=*/true));
      for (int64_t e = 0; e < count; ++e) {
        const std::vector<LD> ref = cholesky_ref(a.data() + e * n * n, n);
        const double tol = 16 * n * unit_roundoff(t) * cond_inf(a.data() + e * n * n, n) *
                           static_cast<double>(*std::max_element(ref.begin(), ref.end()));
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < n; ++j) {
            const size_t at = static_cast<size_t>(e * n * n + i * n + j);
            EXPECT_NEAR(L[at], static_cast<double>(ref[i * n + j]), tol) << name(t) << " n=" << n;
            EXPECT_EQ(U[static_cast<size_t>(e * n * n + j * n + i)], L[at]);
          }
      }
      if (n <= 128 && bitwise(t)) EXPECT_EQ(L, values(linalg::cholesky(A.to(kCPU)))) << name(t) << " n=" << n;
    }
  for (Dtype t : dtypes()) {
    // Element 1's leading minor of order 2 is not positive definite.
    Tensor bad = on({4, 0, 0, 0, 4, 0, 0, 0, 4, 1, 2, 0, 2, 1, 0, 0, 0, 1}, {2, 3, 3}, t, dev_);
    EXPECT_EQ(linalg::cholesky_ex(bad).info.to_vector<int32_t>(), (std::vector<int32_t>{0, 2}));
    EXPECT_EQ(values(linalg::cholesky_ex(bad).L), values(linalg::cholesky_ex(bad.to(kCPU)).L));
    EXPECT_THROW(linalg::cholesky(bad), LinAlgError);
  }
}

TEST_P(OpenclLinalg, SolveTriangularAllForms) {
  for (Dtype t : dtypes())
    for (int64_t n : {1, 6, 50, 140}) {
      const int64_t k = 3, count = 2;
      Vec a = uniform(static_cast<size_t>(count * n * n), 41 + n, -1.0 / n, 1.0 / n);
      for (int64_t e = 0; e < count; ++e)
        for (int64_t i = 0; i < n; ++i) a[e * n * n + i * n + i] = 2.0 + 0.5 * (i % 4);
      Tensor A = on(a, {count, n, n}, t, dev_);
      Tensor Bl = on(uniform(static_cast<size_t>(count * n * k), 42), {count, n, k}, t, dev_);
      Tensor Br = on(uniform(static_cast<size_t>(count * k * n), 43), {count, k, n}, t, dev_);
      const Vec av = values(A), bl = values(Bl), br = values(Br);
      for (bool upper : {false, true})
        for (bool unit : {false, true}) {
          const std::string what = std::string(name(t)) + " n=" + std::to_string(n) + (upper ? " upper" : " lower") +
                                   (unit ? " unit" : "");
          reset_report();
          const Vec xl = values(linalg::solve_triangular(A, Bl, upper, true, unit));
          const Vec xr = values(linalg::solve_triangular(A, Br, upper, false, unit));
          EXPECT_EQ(report().count("solve_triangular", dev_.str(), t, Path::native), 2u) << report().str();
          for (int64_t e = 0; e < count; ++e) {
            Vec tri(n * n, 0.0), triT(n * n, 0.0);
            for (int64_t i = 0; i < n; ++i)
              for (int64_t j = 0; j < n; ++j)
                if (i == j || (upper ? j > i : j < i))
                  tri[i * n + j] = (i == j && unit) ? 1.0 : av[e * n * n + i * n + j];
            for (int64_t i = 0; i < n; ++i)
              for (int64_t j = 0; j < n; ++j) triT[j * n + i] = tri[i * n + j];
            expect_solved(tri, Vec(bl.begin() + e * n * k, bl.begin() + (e + 1) * n * k),
                          Vec(xl.begin() + e * n * k, xl.begin() + (e + 1) * n * k), 1, n, k, t, what + " left");
            Vec bt(n * k), xt(n * k);
            for (int64_t i = 0; i < k; ++i)
              for (int64_t j = 0; j < n; ++j) {
                bt[j * k + i] = br[e * k * n + i * n + j];
                xt[j * k + i] = xr[e * k * n + i * n + j];
              }
            expect_solved(triT, bt, xt, 1, n, k, t, what + " right");
          }
          if (n <= 128 && bitwise(t)) {
            EXPECT_EQ(xl, values(linalg::solve_triangular(A.to(kCPU), Bl.to(kCPU), upper, true, unit))) << what;
            EXPECT_EQ(xr, values(linalg::solve_triangular(A.to(kCPU), Br.to(kCPU), upper, false, unit))) << what;
          }
        }
    }
}

// A float64 operand on a device without float64 becomes float32 there (policy
// downcast) and runs natively in float32.
TEST_P(OpenclLinalg, Float64IsDowncastWithoutFp64) {
  if (capabilities(dev_).can_store(float64)) GTEST_SKIP() << "opencl:0 stores float64 under profile " << GetParam();
  const int64_t n = 12, count = 4;
  const Vec a = dominant(count, n, 5), b = uniform(count * n, 6);
  Tensor A = on(a, {count, n, n}, float64, dev_), B = on(b, {count, n}, float64, dev_);
  EXPECT_EQ(A.dtype(), float32);
  reset_report();
  Tensor X = linalg::solve(A, B);
  EXPECT_EQ(X.dtype(), float32);
  EXPECT_EQ(report().count("solve", dev_.str(), float32, Path::native), 1u) << report().str();
  expect_solved(a, b, values(X), count, n, 1, float32, "no-fp64");
}

// Fixed operation order, no atomics: the same bits on every call, from any thread.
TEST_P(OpenclLinalg, SameBitsOnEveryCallAndThread) {
  const int64_t count = 8, n = 16;
  Tensor A = on(uniform(count * n * n, 17), {count, n, n}, float32, dev_);
  Tensor B = on(uniform(count * n * 3, 18), {count, n, 3}, float32, dev_);
  const Vec want = values(linalg::solve(A, B));
  std::vector<Vec> got(4);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < got.size(); ++i)
    threads.emplace_back([&, i] {
      for (int r = 0; r < 5; ++r) got[i] = values(linalg::solve(A, B));
    });
  for (auto& t : threads) t.join();
  for (const Vec& g : got) EXPECT_EQ(g, want);
}

uint64_t transfers(const Report& r, const std::string& from, const std::string& to) {
  for (const auto& t : r.transfers)
    if (t.from == from && t.to == to) return t.count;
  return 0;
}

// Native: the matrices stay on the device; only info is read back (to decide whether to throw).
TEST_P(OpenclLinalg, NativeSolveMovesOnlyInfo) {
  const int64_t count = 16, n = 8;
  Tensor A = on(dominant(count, n, 3), {count, n, n}, float32, dev_);
  Tensor B = on(uniform(count * n, 4), {count, n}, float32, dev_);
  reset_report();
  Tensor X = linalg::solve(A, B);
  const Report r = report();
  EXPECT_EQ(r.count("solve", dev_.str(), float32, Path::native), 1u) << r.str();
  EXPECT_EQ(r.bytes(dev_.str(), "cpu"), count * sizeof(int32_t)) << r.str();
  EXPECT_EQ(transfers(r, "cpu", dev_.str()), 0u) << r.str();
}

// Each op with its native kernel profiled away: one counted fallback, one
// transfer per operand for the whole batch; under strict, NotImplementedError.
TEST_P(OpenclLinalg, ProfiledAwayOpsFallBackOrRaise) {
  const int64_t count = 8, n = 6;
  const Vec a = dominant(count, n, 13), b = uniform(count * n * 2, 14);
  struct Case { const char* op; std::function<Tensor(const Tensor&, const Tensor&)> run; int operands; };
  const std::vector<Case> cases = {
      {"solve", [](const Tensor& A, const Tensor& B) { return linalg::solve(A, B); }, 2},
      {"lu_factor", [](const Tensor& A, const Tensor&) { return linalg::lu_factor(A).LU; }, 1},
      {"inv", [](const Tensor& A, const Tensor&) { return linalg::inv(A); }, 1},
      {"det", [](const Tensor& A, const Tensor&) { return linalg::det(A); }, 1},
      {"slogdet", [](const Tensor& A, const Tensor&) { return linalg::slogdet(A).logabsdet; }, 1},
      {"cholesky", [](const Tensor& A, const Tensor&) { return linalg::cholesky(A); }, 1},
      {"solve_triangular", [](const Tensor& A, const Tensor& B) { return linalg::solve_triangular(A, B, true); }, 2},
  };
  for (const Case& c : cases) {
    Tensor A = on(a, {count, n, n}, float32, dev_), B = on(b, {count, n, 2}, float32, dev_);
    if (std::string(c.op) == "cholesky") A = matmul(A, A.transpose(-2, -1));
    const Vec want = values(c.run(A, B));  // native
    ProfileGuard g(dev_, std::string(GetParam()) + ",no-op:" + c.op);
    reset_report();
    Tensor got = c.run(A, B);
    const Report r = report();
    EXPECT_EQ(r.count(c.op, dev_.str(), float32, Path::fallback), 1u) << c.op << "\n" << r.str();
    EXPECT_EQ(r.count(c.op, dev_.str(), float32, Path::native), 0u) << c.op << "\n" << r.str();
    EXPECT_EQ(transfers(r, dev_.str(), "cpu"), static_cast<uint64_t>(c.operands)) << c.op << "\n" << r.str();
    EXPECT_EQ(got.device(), dev_);
    const Vec v = values(got);
    ASSERT_EQ(v.size(), want.size());
    for (size_t i = 0; i < v.size(); ++i) EXPECT_NEAR(v[i], want[i], 1e-4 * (1 + std::fabs(want[i]))) << c.op;
    FallbackPolicyGuard strict(FallbackPolicy::strict);
    EXPECT_THROW(c.run(A, B), NotImplementedError) << c.op;
  }
  // lu_solve on its own (its inputs come from a native lu_factor).
  Tensor A = on(a, {count, n, n}, float32, dev_), B = on(b, {count, n, 2}, float32, dev_);
  auto lu = linalg::lu_factor(A);
  ProfileGuard g(dev_, std::string(GetParam()) + ",no-op:lu_solve");
  reset_report();
  Tensor X = linalg::lu_solve(lu.LU, lu.pivots, B);
  EXPECT_EQ(report().count("lu_solve", dev_.str(), float32, Path::fallback), 1u) << report().str();
  EXPECT_EQ(transfers(report(), dev_.str(), "cpu"), 3u) << report().str();
  expect_solved(values(A), b, values(X), count, n, 2, float32, "lu_solve fallback");
  FallbackPolicyGuard strict(FallbackPolicy::strict);
  EXPECT_THROW(linalg::lu_solve(lu.LU, lu.pivots, B), NotImplementedError);
}

INSTANTIATE_TEST_SUITE_P(Opencl0, OpenclLinalg, ::testing::Values("none", "no-fp64"),
                         [](const ::testing::TestParamInfo<const char*>& i) {
                           return std::string(i.param) == "none" ? std::string("opencl_0")
                                                                 : std::string("opencl_0_no_fp64");
                         });

}  // namespace
}  // namespace concord
