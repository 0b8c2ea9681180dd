// The reproducible mode's linear algebra: the CPU takes its small-matrix loops
// (row-major, fixed order) at every size, so a solve has one order whatever
// the size, the thread count or the device; OpenCL and Vulkan devices run the
// same loops natively up to their linalg_max_n, and larger matrices go to the CPU
// (counted). Checked bit for bit between the CPU and each device at sizes
// below and above the CPU's LAPACK threshold (128), against 1 and 2 threads,
// and for sanity against the residual of the default mode's LAPACK answer.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "concord/concord.h"
#include "concord/linalg.h"
#include "concord/op_table.h"
#include "core/backend.h"
#include "support/devices.h"
#include "support/threads.h"

using namespace concord;

namespace {

int64_t differing(const Tensor& x, const Tensor& y) {
  const Tensor a = x.to(kCPU).contiguous(), b = y.to(kCPU).contiguous();
  if (a.nbytes() != b.nbytes()) return -1;
  const auto* p = static_cast<const unsigned char*>(a.raw_data());
  const auto* q = static_cast<const unsigned char*>(b.raw_data());
  const size_t n = itemsize(a.dtype());
  int64_t d = 0;
  for (size_t i = 0; i < a.nbytes(); i += n) d += std::memcmp(p + i, q + i, n) != 0;
  return d;
}

// Well-conditioned: random plus n on the diagonal; symmetric positive definite for cholesky.
Tensor system(int64_t batch, int64_t n, Dtype t, uint32_t seed) {
  return add(randn({batch, n, n}, float64, kCPU, seed), mul(eye(n, {}, float64), static_cast<double>(n))).to(t);
}
Tensor spd(int64_t batch, int64_t n, Dtype t, uint32_t seed) {
  const Tensor a = randn({batch, n, n}, float64, kCPU, seed);
  return add(matmul(a, a.transpose(1, 2)), mul(eye(n, {}, float64), static_cast<double>(n))).to(t);
}

class ReproducibleLinalg : public concord::test::DeviceTest {};

TEST(ReproducibleLinalgCpu, LargeSolvesTakeTheSmallLoopsOnAnyThreadCount) {
  for (Dtype t : {float32, float64}) {
    const Tensor a = system(2, 200, t, 1), b = randn({2, 200, 3}, t, kCPU, 2);
    Tensor one, two, lapack;
    {
      const ReproducibleGuard on(true);
      { concord::test::ThreadCount tc(1); one = linalg::solve(a, b); }
      { concord::test::ThreadCount tc(2); two = linalg::solve(a, b); }
    }
    lapack = linalg::solve(a, b);
    EXPECT_EQ(differing(one, two), 0) << name(t);
    // Both answers solve the system: residuals of the same size.
    const double r_mode = amax(abs(sub(matmul(a, one), b))).to(float64).item<double>();
    const double r_lapack = amax(abs(sub(matmul(a, lapack), b))).to(float64).item<double>();
    EXPECT_LT(r_mode, 64 * std::max(r_lapack, t == float32 ? 1e-5 : 1e-13)) << name(t);
  }
}

TEST_P(ReproducibleLinalg, DeviceGivesTheCpuBits) {
  const ReproducibleGuard on(true);
  for (Dtype t : {float32, float64}) {
    if (!capabilities(device()).can_store(t)) continue;
    for (int64_t n : {20, 160, 300}) {
      SCOPED_TRACE(std::string(name(t)) + " n=" + std::to_string(n));
      const int64_t batch = n > 100 ? 1 : 4;
      const Tensor a = system(batch, n, t, 3), b = randn({batch, n, 2}, t, kCPU, 4), s = spd(batch, n, t, 5);
      const Tensor da = a.to(device()), db = b.to(device()), ds = s.to(device());
      reset_report();
      EXPECT_EQ(differing(linalg::solve(da, db), linalg::solve(a, b)), 0) << "solve";
      const bool claimed = capabilities(device()).reproducible[static_cast<int>(OpId::solve)].has(t);
      // Matrices beyond the device's kernels (OpenCL 256, Vulkan 128) take the counted fallback.
      const int64_t max_n = detail::backend_for(device()).linalg_max_n(device());
      if (claimed && n <= max_n) EXPECT_EQ(report().count("solve", device().str(), t, Path::fallback), 0u) << report();
      const auto lu = linalg::lu_factor(da), lu_cpu = linalg::lu_factor(a);
      EXPECT_EQ(differing(lu.LU, lu_cpu.LU), 0) << "lu_factor";
      EXPECT_EQ(differing(linalg::cholesky(ds), linalg::cholesky(s)), 0) << "cholesky";
      EXPECT_EQ(differing(linalg::solve_triangular(ds, db, /*upper=*/false), linalg::solve_triangular(s, b, false)), 0)
          << "solve_triangular";
      if (n <= 160) EXPECT_EQ(differing(linalg::inv(da), linalg::inv(a)), 0) << "inv";
    }
  }
}

CONCORD_INSTANTIATE_DEVICES(ReproducibleLinalg);

}  // namespace
