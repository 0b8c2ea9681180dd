// The reproducible mode's float64 erf and gelu on Vulkan
// (common/xmath64_erf.glsl). Their "_x" variant ("ew_xerf_f64_x") is the
// CPU's canon_f64_erf.h on float64 bits through xf64.glsl, so vulkan:0
// claims them for float64 whatever its float controls promise, runs them
// natively (no fallback, no NaN pass) and gives the CPU's bits.
//
// The header is also compiled as C++ here and checked against the CPU
// backend's ops over about a million values; the device test then checks the
// shader on a couple of thousand (lavapipe is slow with integer-emulated
// doubles, and gelu's continued fraction runs up to 120 double-double steps).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "concord/concord.h"
#include "support/bits.h"
#include "support/devices.h"
#include "support/native_run.h"
#include "support/unary64_checks.h"

namespace xmath64_erf_glsl {
#include "support/glsl_shim.h"
#include "backend/common/xf32.glsl"
#include "backend/common/xf64.glsl"
#include "backend/common/xmath64.glsl"
#include "backend/common/xmath64_erf.glsl"
}  // namespace xmath64_erf_glsl

using namespace concord;

namespace {

using concord::test::next64;

using concord::test::UnaryOp64;

const std::vector<UnaryOp64>& erf_ops() {
  static const std::vector<UnaryOp64> v = {
      {OpId::erf, [](const Tensor& x) { return erf(x); }, xmath64_erf_glsl::xe_erf},
      {OpId::gelu, [](const Tensor& x) { return gelu(x); }, xmath64_erf_glsl::xe_gelu}};
  return v;
}

double d(uint64_t bits) { return std::bit_cast<double>(bits); }

// ±0, subnormals, ±inf, NaNs (payloads, signs), and each branch point with
// two neighbours each side and its negative: erf's 2^-900, 2 and 6 cuts, the
// series' term counts (0.25, 0.5, 1, 1.5), the fraction's depths (2.5, 3, 4);
// gelu's 8.5, -38.6 and ±2^-60 cuts, and x = -z sqrt2 for each cut z of its
// branches (±2) and of the double-double fraction's depths (2.5 .. 10).
std::vector<double> special_values() {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> v = {0.0, -0.0, inf, -inf, d(0x7ff8000000000000u), d(0xfff8000000000001u),
                           d(0x7ff0000000000001u), d(0x7fffffffffffffffu), d(1), d(0x8000000000000001u),
                           d(0x000fffffffffffffu), d(0x800fffffffffffffu), d(0x0010000000000000u),
                           d(0x7fefffffffffffffu), d(0xffefffffffffffffu), 0.5, -1.0, 1e-300, 30.0, -27.3};
  const double r2 = std::sqrt(2.0);
  for (double s : {0x1p-900, 2.0, 6.0, 0.25, 0.5, 1.0, 1.5, 2.5, 3.0, 4.0, 8.5, 38.6, 0x1p-60, 2.0 * r2,
                   2.5 * r2, 3.0 * r2, 4.0 * r2, 6.0 * r2, 10.0 * r2, 27.3 * r2, 0x1p-1022, 0x1p-1000})
    for (int k = -2; k <= 2; ++k) {
      const double a = d(std::bit_cast<uint64_t>(s) + static_cast<uint64_t>(static_cast<int64_t>(k)));
      v.push_back(a);
      v.push_back(-a);
    }
  return v;
}

// Every 16th exponent field once, then values over gelu's whole finite range
// [-39, 9] (erf's and both fractions' branches): ~1800 values.
std::vector<double> device_values() {
  std::vector<double> v;
  concord::test::Lcg g{0x9e3779b97f4a7c15u};
  for (uint64_t e = 0; e < 2048; e += 16) {
    const uint64_t r = next64(g);
    v.push_back(d((r & 0x8000000000000000u) | (e << 52) | (r >> 12)));
  }
  for (int i = 0; i < 1024; ++i) v.push_back(-39.0 + 24.0 * (g.uniform() + 1.0));
  for (int i = 0; i < 512; ++i) v.push_back(10.0 * g.uniform());
  return v;
}

// The header as C++ against the CPU backend's ops in the mode, over about a
// million values: random bits (every exponent), densely over [-10, 10]
// (erf's branches, gelu's series) and [-40, -2.8] (gelu's fractions).
TEST(XMath64Erf, SameBitsAsTheCpuAsCpp) {
  std::vector<double> v = special_values();
  concord::test::Lcg g{0x2545f4914f6cdd1du};
  for (int i = 0; i < (1 << 19); ++i) v.push_back(d(next64(g)));
  for (int i = 0; i < (1 << 18); ++i) v.push_back(-10.0 + 20.0 * i / (1 << 18) + 1e-9 * (i & 7));
  for (int i = 0; i < (1 << 17); ++i) v.push_back(-40.0 + 37.2 * i / (1 << 17));
  concord::test::expect_cpp_same_bits(erf_ops(), v);
}

class ReproducibleVulkanErf64 : public concord::test::DeviceTest {};

// vulkan:0 (lavapipe) keeps no float64 subnormals, yet claims erf and gelu
// for float64 in the mode (wherever it can store float64).
TEST_P(ReproducibleVulkanErf64, ClaimsFloat64OnBits) {
  if (!concord::test::is_vulkan_device(device()) || !concord::test::can_store(GetParam(), float64))
    GTEST_SKIP() << "needs Vulkan with float64 storage";
  concord::test::expect_claims_float64(erf_ops(), device());
}

// Specials, exponents and gelu's range, contiguous and as a strided view
// (every other element of a transpose), on the device against the CPU in the
// mode; on Vulkan, natively with no fallback and no separate NaN pass.
TEST_P(ReproducibleVulkanErf64, SameBitsAsTheCpu) {
  if (!concord::test::can_store(GetParam(), float64)) GTEST_SKIP() << "no float64 on " << GetParam().label;
  std::vector<double> v = special_values();
  const std::vector<double> e = device_values();
  v.insert(v.end(), e.begin(), e.end());
  concord::test::expect_device_same_bits(erf_ops(), v, GetParam(), device());
}

CONCORD_INSTANTIATE_DEVICES(ReproducibleVulkanErf64);

}  // namespace
