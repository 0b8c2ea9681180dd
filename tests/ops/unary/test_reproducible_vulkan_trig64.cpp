// The reproducible mode's float64 sin, cos and tan on Vulkan
// (common/xmath64_trig.glsl, variant "ew_xtrig_f64_x"): the CPU's
// canon_trig_f64.h on float64 bits through xf64.glsl, so vulkan:0 claims them
// for float64 whatever its float controls promise, runs them natively (no
// fallback, no NaN pass) and gives the CPU's bits.
//
// The header is also compiled as C++ here and checked against the CPU
// backend's ops over a million values (every reduction branch and its edges,
// multiples of pi/2, huge arguments); the device tests then check the shader
// on a couple of thousand (lavapipe is slow with integer-emulated doubles).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cfloat>
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

namespace xtrig64_glsl {
#include "support/glsl_shim.h"
#include "backend/common/xf32.glsl"
#include "backend/common/xf64.glsl"
#include "backend/common/xmath64.glsl"
#include "backend/common/xmath32_trig.glsl"
#include "backend/common/xmath64_trig.glsl"
}  // namespace xtrig64_glsl

using namespace concord;

namespace {

using concord::test::next64;

using concord::test::UnaryOp64;

const std::vector<UnaryOp64>& trig_ops() {
  static const std::vector<UnaryOp64> v = {
      {OpId::sin, [](const Tensor& x) { return sin(x); }, xtrig64_glsl::xe_sin},
      {OpId::cos, [](const Tensor& x) { return cos(x); }, xtrig64_glsl::xe_cos},
      {OpId::tan, [](const Tensor& x) { return tan(x); }, xtrig64_glsl::xe_tan}};
  return v;
}

double d(uint64_t bits) { return std::bit_cast<double>(bits); }
uint64_t b(double x) { return std::bit_cast<uint64_t>(x); }

// ±0, subnormals, ±inf, NaNs, and each branch point with its neighbours
// (±4 ulps) and negatives: the 2^-27 cut, pi/4 (the reduction's first
// branch), 2^20 (Cody-Waite / Payne-Hanek), every 2/pi window step of
// Payne-Hanek (exponents 2 + 32k), DBL_MAX, the reduction's known worst case
// (about 2^-61 from a multiple of pi/2), and the doubles nearest k pi/2.
std::vector<double> special_values() {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> v = {0.0, -0.0, inf, -inf, d(0x7ff8000000000000u), d(0xfff8000000000001u),
                           d(0x7ff0000000000001u), d(0x7fffffffffffffffu), d(1), d(0x8000000000000001u),
                           d(0x000fffffffffffffu), d(0x800fffffffffffffu), d(0x0010000000000000u),
                           0.5, 1.0, 3.0, 100.0, 1e300, -1e300, 1e22, 6381956970095103.0 * 0x1p797};
  std::vector<double> edges = {0x1p-27, 0x1.921fb54442d18p-1, 0x1p20, DBL_MAX, 0x1.6ac5b262ca1ffp+849,
                               1.5707963267948966, 3.141592653589793, 4.71238898038469, 1e-5, 0.7, 0.8};
  for (int k = 0; k <= 32; ++k) edges.push_back(std::ldexp(1.0, 2 + 32 * k > 1023 ? 1023 : 2 + 32 * k));
  for (int k = 1; k <= 64; ++k) edges.push_back(k * 1.5707963267948966);
  for (int k = 1; k < 1024; k = k * 3 + 1) edges.push_back(std::nearbyint(0x1p20 / 1.5707963267948966 * k) * 1.5707963267948966);
  for (double s : edges)
    for (int k = -4; k <= 4; ++k) {
      const double a = d(b(s) + static_cast<uint64_t>(static_cast<int64_t>(k)));
      if (std::isnan(a)) continue;
      v.push_back(a);
      v.push_back(-a);
    }
  return v;
}

// Every third exponent field (the finite ones), a pseudo-random sign and
// mantissa each: 683 patterns (lavapipe's time: the C++ check has them all).
std::vector<double> every_exponent() {
  std::vector<double> v;
  concord::test::Lcg g{0x9e3779b97f4a7c15u};
  for (uint64_t e = 0; e < 2047; e += 3) {
    const uint64_t r = next64(g);
    v.push_back(d((r & 0x8000000000000000u) | (e << 52) | (r >> 12)));
  }
  return v;
}

// The header as C++ against the CPU backend's ops in the mode, over a
// million values: random bits (every exponent, Payne-Hanek mostly), random
// in [-100, 100] (Cody-Waite, every quadrant), the doubles within 8 ulps of
// k pi/2 up to 2^40 (the reduction's cancellations), huge and tiny values.
TEST(XTrig64, SameBitsAsTheCpuAsCpp) {
  std::vector<double> v = special_values();
  concord::test::Lcg g{0x2545f4914f6cdd1du};
  for (int i = 0; i < (1 << 18); ++i) v.push_back(d(next64(g)));
  for (int i = 0; i < (1 << 18); ++i) v.push_back(-100.0 + 200.0 * (g.next() / double(1u << 31)));
  for (int i = 0; i < (1 << 15); ++i) {
    const double k = std::nearbyint(std::ldexp(g.next() / double(1u << 31), i % 40));
    const double m = k * 1.5707963267948966;
    for (int u = -8; u <= 8; u += 2) v.push_back(d(b(m) + static_cast<uint64_t>(static_cast<int64_t>(u))));
  }
  for (int i = 0; i < (1 << 17); ++i) v.push_back(std::ldexp(1.0 + (g.next() >> 4) / double(1u << 27), 20 + i % 1004));
  for (int i = 0; i < (1 << 16); ++i) v.push_back(std::ldexp(1.0 + (g.next() >> 4) / double(1u << 27), -1074 + i % 1050));
  for (int i = 0; i < (1 << 14); ++i) v.push_back(DBL_MAX - std::ldexp(double(i), 971));
  concord::test::expect_cpp_same_bits(trig_ops(), v);
  EXPECT_GT(v.size(), 1000000u);
}

class ReproducibleVulkanTrig64 : public concord::test::DeviceTest {};

// vulkan:0 (lavapipe) keeps no float64 subnormals, yet claims the three for
// float64 in the mode (wherever it can store float64).
TEST_P(ReproducibleVulkanTrig64, ClaimsFloat64OnBits) {
  if (!concord::test::is_vulkan_device(device()) || !concord::test::can_store(GetParam(), float64))
    GTEST_SKIP() << "needs Vulkan with float64 storage";
  concord::test::expect_claims_float64(trig_ops(), device());
}

// Specials and every exponent, contiguous and as a strided view (every other
// element of a transpose), on the device against the CPU in the mode; on
// Vulkan, natively with no fallback and no separate NaN pass.
TEST_P(ReproducibleVulkanTrig64, SameBitsAsTheCpu) {
  if (!concord::test::can_store(GetParam(), float64)) GTEST_SKIP() << "no float64 on " << GetParam().label;
  std::vector<double> v = special_values();
  const std::vector<double> e = every_exponent();
  v.insert(v.end(), e.begin(), e.end());
  concord::test::expect_device_same_bits(trig_ops(), v, GetParam(), device());
}

CONCORD_INSTANTIATE_DEVICES(ReproducibleVulkanTrig64);

}  // namespace
