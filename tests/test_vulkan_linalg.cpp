// Vulkan native linear algebra (src/backend/vulkan/linalg.cpp,
// shaders/linalg.comp) where the conformance suite's small cases cannot reach
// it: matrices larger than a workgroup (64 invocations) and larger than the
// shared-memory copy (worked on in device memory), random matrices that pivot,
// zero pivots and non-positive-definite minors reported per matrix as the CPU
// does, bad pivots, every form of the triangular solve, batches past the
// workgroup-count limit. Results are compared with the CPU backend and with
// long double references (linalg_reference.h). The Cholesky kernel is called
// directly as well: the op is only claimed where the device also has tril/triu.
// Runs on the vulkan:N configurations of CONCORD_TEST_DEVICES.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "concord/linalg.h"
#include "core/backend.h"
#include "linalg_reference.h"
#include "support/devices.h"

namespace concord {
namespace {

using namespace concord::test::la;

std::vector<test::DeviceConfig> vulkan_configs() {
  std::vector<test::DeviceConfig> out;
  for (const auto& c : test::test_devices())
    if (c.device.str().rfind("vulkan:", 0) == 0) out.push_back(c);
  return out;
}

class VulkanLinalg : public ::testing::TestWithParam<test::DeviceConfig> {
 protected:
  void SetUp() override { scope_ = std::make_unique<test::ConfigScope>(GetParam()); }
  const Device& dev() const { return GetParam().device; }
  std::vector<Dtype> dtypes() const {
    std::vector<Dtype> v{float32};
    if (capabilities(dev()).can_store(float64)) v.push_back(float64);
    return v;
  }
  std::unique_ptr<test::ConfigScope> scope_;
};

// Random matrices (pivoting at most steps); n = 70, 100 and 128 exceed a
// workgroup, 100 and 128 (float64: also 70) the shared-memory copy on 32 KiB
// devices; k = 130 right-hand sides take three slices.
TEST_P(VulkanLinalg, LuFactorAndSolveAgreeWithCpu) {
  for (Dtype t : dtypes())
    for (int64_t n : {1, 5, 33, 70, 100, 128}) {
      const int64_t count = n > 64 ? 2 : 4, k = n == 128 ? 130 : 3;
      const std::string what = std::string(name(t)) + " n=" + std::to_string(n);
      Tensor A = make(uniform(static_cast<size_t>(count * n * n), 100 + n), {count, n, n}, t, dev());
      Tensor B = make(uniform(static_cast<size_t>(count * n * k), 200 + n), {count, n, k}, t, dev());
      const Vec a = values(A), b = values(B);
      reset_report();
      auto f = linalg::lu_factor_ex(A);
      const Vec x = values(linalg::solve(A, B));
      EXPECT_EQ(report().count("lu_factor", dev().str(), t, Path::native), 1u) << report().str();
      EXPECT_EQ(report().count("solve", dev().str(), t, Path::native), 1u) << report().str();
      const auto piv = f.pivots.to_vector<int32_t>();
      const Vec lu = values(f.LU);
      EXPECT_EQ(f.info.to_vector<int32_t>(), std::vector<int32_t>(static_cast<size_t>(count), 0)) << what;
      for (int64_t e = 0; e < count; ++e)
        expect_lu_backward_stable(a.data() + e * n * n, lu.data() + e * n * n, piv.data() + e * n, n, t, what);
      expect_solved(a, b, x, count, n, k, t, what);
      // The CPU's loops (n <= 128) choose the same pivots: same operations in the same order.
      EXPECT_EQ(piv, linalg::lu_factor_ex(A.to(kCPU)).pivots.to_vector<int32_t>()) << what;
      EXPECT_EQ(values(A), a) << "A was modified";
    }
}

// Above linalg_max_n() (128): the counted CPU fallback.
TEST_P(VulkanLinalg, LargerMatricesFallBack) {
  const int64_t n = 129;
  Tensor A = make(dominant(1, n, 3), {n, n}, float32, dev());
  Tensor B = make(uniform(static_cast<size_t>(n * 2), 4), {n, 2}, float32, dev());
  reset_report();
  const Vec x = values(linalg::solve(A, B));
  EXPECT_EQ(report().count("solve", dev().str(), float32, Path::fallback), 1u) << report().str();
  expect_solved(values(A), values(B), x, 1, n, 2, float32, "n=129");
}

// Five 4x4 matrices; element 3 is singular, element 1 has a zero pivot at step
// 2 with a non-zero column further right (LAPACK semantics keep factoring).
TEST_P(VulkanLinalg, SingularElementsReportInfoPerMatrix) {
  Vec v = uniform(5 * 16, 11);
  for (int64_t i = 0; i < 4; ++i) v[3 * 16 + i * 4 + 2] = 0;
  const Vec m1 = {2, 1, 4, 1, 4, 2, 3, 5, 0, 0, 7, 1, 0, 0, 1, 3};
  std::copy(m1.begin(), m1.end(), v.begin() + 16);
  for (Dtype t : dtypes()) {
    Tensor A = make(v, {5, 4, 4}, t, dev());
    auto g = linalg::lu_factor_ex(A);
    auto c = linalg::lu_factor_ex(A.to(kCPU));
    const auto info = g.info.to_vector<int32_t>();
    EXPECT_EQ(info, (std::vector<int32_t>{0, 2, 0, 3, 0}));
    EXPECT_EQ(info, c.info.to_vector<int32_t>());
    EXPECT_EQ(g.pivots.to_vector<int32_t>(), c.pivots.to_vector<int32_t>());
    EXPECT_EQ(linalg::inv_ex(A).info.to_vector<int32_t>(), info);
    try {
      linalg::solve(A, make(uniform(4, 12), {4}, t, dev()));
      ADD_FAILURE() << "no throw";
    } catch (const LinAlgError& e) {
      EXPECT_NE(std::string(e.what()).find("(batch element 1)"), std::string::npos) << e.what();
    }
  }
}

TEST_P(VulkanLinalg, LuSolveRejectsBadPivots) {
  Tensor A = make(dominant(2, 3, 1), {2, 3, 3}, float32, dev());
  auto lu = linalg::lu_factor(A);
  Tensor bad = from_host(std::vector<int32_t>{1, 2, 3, 1, 7, 3}.data(), {2, 3}, int32, kCPU).to(dev());
  try {
    linalg::lu_solve(lu.LU, bad, make(uniform(6, 2), {2, 3, 1}, float32, dev()));
    ADD_FAILURE() << "no throw";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("pivots must be in [1, 3], found 7"), std::string::npos) << e.what();
  }
}

TEST_P(VulkanLinalg, SolveTriangularAllForms) {
  for (Dtype t : dtypes())
    for (int64_t n : {1, 7, 70, 128})
      for (bool upper : {false, true})
        for (bool unit : {false, true}) {
          const int64_t count = 2, k = n == 70 ? 150 : 5;  // 150: three slices
          const std::string what = std::string(name(t)) + " n=" + std::to_string(n) + (upper ? " upper" : " lower") +
                                   (unit ? " unit" : "");
          Tensor A = make(dominant(count, n, 40 + n), {count, n, n}, t, dev());
          Tensor Bl = make(uniform(static_cast<size_t>(count * n * k), 50 + n), {count, n, k}, t, dev());
          Tensor Br = make(uniform(static_cast<size_t>(count * k * n), 60 + n), {count, k, n}, t, dev());
          reset_report();
          const Vec xl = values(linalg::solve_triangular(A, Bl, upper, true, unit));
          const Vec xr = values(linalg::solve_triangular(A, Br, upper, false, unit));
          EXPECT_EQ(report().count("solve_triangular", dev().str(), t, Path::native), 2u) << report().str();
          const Vec cl = values(linalg::solve_triangular(A.to(kCPU), Bl.to(kCPU), upper, true, unit));
          const Vec cr = values(linalg::solve_triangular(A.to(kCPU), Br.to(kCPU), upper, false, unit));
          // Well-conditioned (diagonal n + U(-1, 1)): within a few n·u of the CPU's solution.
          const double tol = kC * static_cast<double>(n) * unit_roundoff(t);
          for (size_t i = 0; i < xl.size(); ++i) EXPECT_NEAR(xl[i], cl[i], tol * (1 + std::fabs(cl[i]))) << what;
          for (size_t i = 0; i < xr.size(); ++i) EXPECT_NEAR(xr[i], cr[i], tol * (1 + std::fabs(cr[i]))) << what;
        }
}

// The kernel itself (Backend::cholesky), on SPD matrices and on matrices
// whose minor of order 2 is not positive definite: the lower triangle and
// info as the CPU's kernel leaves them.
TEST_P(VulkanLinalg, CholeskyKernelAgreesWithCpu) {
  for (Dtype t : dtypes())
    for (int64_t n : {1, 5, 70, 100}) {
      const int64_t count = 3;
      const std::string what = std::string(name(t)) + " n=" + std::to_string(n);
      const Vec m = uniform(static_cast<size_t>(count * n * n), 21 + n);
      Vec s(static_cast<size_t>(count * n * n), 0.0);
      for (int64_t e = 0; e < count; ++e)
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < n; ++j) {
            double acc = i == j ? 1.0 : 0.0;
            for (int64_t p = 0; p < n; ++p) acc += m[e * n * n + i * n + p] * m[e * n * n + j * n + p] / n;
            s[e * n * n + i * n + j] = acc;
          }
      if (n >= 2) s[n * n + n + 1] = -1;  // matrix 1: a[1][1] makes the order-2 minor fail
      Tensor X = make(s, {count, n, n}, t, dev()), C = make(s, {count, n, n}, t, kCPU);
      Tensor info = empty({count}, int32, dev()), cinfo = empty({count}, int32, kCPU);
      detail::backend_for(dev()).cholesky(X, info);
      detail::cpu_backend().cholesky(C, cinfo);
      EXPECT_EQ(info.to_vector<int32_t>(), cinfo.to_vector<int32_t>()) << what;
      if (n >= 2) EXPECT_EQ(info.to_vector<int32_t>()[1], 2) << what;
      const Vec x = values(X), c = values(C);
      for (int64_t e = 0; e < count; ++e)
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j <= i; ++j) {
            const size_t at = static_cast<size_t>(e * n * n + i * n + j);
            EXPECT_NEAR(x[at], c[at], kC * n * unit_roundoff(t) * (1 + std::fabs(c[at]))) << what << " at " << at;
          }
    }
}

// 70000 matrices: one workgroup each, past the 65535 groups many devices allow.
TEST_P(VulkanLinalg, BatchesAboveTheWorkgroupCountLimit) {
  const int64_t count = 70000, n = 2;
  Vec v = uniform(static_cast<size_t>(count * n * n), 5);
  v[static_cast<size_t>(69999 * 4)] = v[static_cast<size_t>(69999 * 4 + 2)] = 0;  // the last one: info 1
  Tensor A = make(v, {count, n, n}, float32, dev());
  auto g = linalg::lu_factor_ex(A);
  auto c = linalg::lu_factor_ex(A.to(kCPU));
  EXPECT_EQ(g.info.to_vector<int32_t>(), c.info.to_vector<int32_t>());
  EXPECT_EQ(g.info.to_vector<int32_t>().back(), 1);
  EXPECT_EQ(g.pivots.to_vector<int32_t>(), c.pivots.to_vector<int32_t>());
}

TEST(VulkanLinalgDevices, Present) {
  if (vulkan_configs().empty()) GTEST_SKIP() << "no vulkan device in CONCORD_TEST_DEVICES (or none found)";
}

INSTANTIATE_TEST_SUITE_P(Devices, VulkanLinalg, ::testing::ValuesIn(vulkan_configs()), test::config_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(VulkanLinalg);

}  // namespace
}  // namespace concord
