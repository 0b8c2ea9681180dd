// The reproducible mode's float64 transcendentals on Vulkan: exp, expm1,
// tanh, sigmoid (common/xmath64.glsl) and log, log1p, log2
// (xmath64_log.glsl). Their "_x" variant ("ew_xmath_f64_x") is the CPU's
// canon_f64.h / canon_f64_log.h on float64 bits through xf64.glsl, so
// vulkan:0 claims them for float64 whatever its float controls promise, runs
// them natively (no fallback, no NaN pass) and gives the CPU's bits.
//
// The headers are also compiled as C++ here and checked against the CPU
// backend's ops over a million patterns; the device tests then check the
// shader on a few thousand (lavapipe is slow with integer-emulated doubles).
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

namespace xmath64_glsl {
#include "support/glsl_shim.h"
#include "backend/common/xf32.glsl"
#include "backend/common/xf64.glsl"
#include "backend/common/xmath64.glsl"
#include "backend/common/xmath64_log.glsl"
}  // namespace xmath64_glsl

using namespace concord;

namespace {

using concord::test::next64;

using concord::test::UnaryOp64;

const std::vector<UnaryOp64>& math_ops() {
  static const std::vector<UnaryOp64> v = {
      {OpId::exp, [](const Tensor& x) { return exp(x); }, xmath64_glsl::xe_exp},
      {OpId::expm1, [](const Tensor& x) { return expm1(x); }, xmath64_glsl::xe_expm1},
      {OpId::tanh, [](const Tensor& x) { return tanh(x); }, xmath64_glsl::xe_tanh},
      {OpId::sigmoid, [](const Tensor& x) { return sigmoid(x); }, xmath64_glsl::xe_sigmoid},
      {OpId::log, [](const Tensor& x) { return log(x); }, xmath64_glsl::xe_log},
      {OpId::log1p, [](const Tensor& x) { return log1p(x); }, xmath64_glsl::xe_log1p},
      {OpId::log2, [](const Tensor& x) { return log2(x); }, xmath64_glsl::xe_log2}};
  return v;
}

double d(uint64_t bits) { return std::bit_cast<double>(bits); }

// ±0, subnormals, ±inf, NaNs (payloads, signs), and each branch point with
// its neighbours and negatives: exp's overflow (709.78) and underflow
// (-745.13) edges, sigmoid's subnormal results (-708 .. -746) and its 40,
// expm1's series branch (|x| < 0.125), its 2^-54 and ±40 cuts, tanh's 2^-28
// and 20, log near 1 and at the sqrt 2 mantissa boundary, log1p's direct
// range (-0.2929, 0.4142) and -1, powers of two for log2.
std::vector<double> special_values() {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> v = {0.0, -0.0, inf, -inf, d(0x7ff8000000000000u), d(0xfff8000000000001u),
                           d(0x7ff0000000000001u), d(0x7fffffffffffffffu), d(1), d(0x8000000000000001u),
                           d(0x000fffffffffffffu), d(0x800fffffffffffffu), d(0x0008000000000000u),
                           d(0x0000000100000000u), d(0x0010000000000000u), d(0x7fefffffffffffffu),
                           d(0xffefffffffffffffu), d(0x3ff6a09e667f3bcdu), d(0x3ff6a09e667f3bceu),
                           d(0x3fe6a09e667f3bcdu), 1e-300, -1e-300, 1e-17, 0.1, -0.3, 0.5, 3.0, 100.0};
  for (double s : {709.78, 709.782712893384, 709.79, 745.13, 745.1332191019411, 745.2, 708.0, 708.4, 720.0, 730.0,
                   740.0, 745.0, 746.0, 746.1, 0.125, 0.1249, 0x1p-54, 0x1p-28, 40.0, 37.43, 20.0, 19.06, 1.0,
                   2.0, 0.2929, 0.4142, 0.29289321881345248, 0.41421356237309515, 1e-5, 1e-10, 0x1p-60,
                   0.6931471805599453, 0.34657359027997264, 1024.0, 0x1p-1022, 0x1p-1060})
    for (int k = -2; k <= 2; ++k) {
      const double a = d(std::bit_cast<uint64_t>(s) + static_cast<uint64_t>(static_cast<int64_t>(k)));
      v.push_back(a);
      v.push_back(-a);
    }
  for (int k = 1; k <= 64; k *= 2) {  // log near 1: 1 ± k ulp
    v.push_back(d(0x3ff0000000000000u + k));
    v.push_back(d(0x3ff0000000000000u - k));
  }
  for (int i = -60; i <= 60; ++i) v.push_back(std::ldexp(1.0, i * 17));  // log2 of powers of two
  return v;
}

// Every exponent field once, a pseudo-random sign and mantissa each: 2048
// patterns (both signs of every exponent would double lavapipe's time).
std::vector<double> every_exponent() {
  std::vector<double> v;
  concord::test::Lcg g{0x9e3779b97f4a7c15u};
  for (uint64_t e = 0; e < 2048; ++e) {
    const uint64_t r = next64(g);
    v.push_back(d((r & 0x8000000000000000u) | (e << 52) | (r >> 12)));
  }
  return v;
}

// The headers as C++ against the CPU backend's ops in the mode, over a
// million patterns over every exponent and densely over [-750, 750] (exp's
// and sigmoid's whole finite range, expm1's and tanh's branches many times)
// and around 1 (log's cancellations).
TEST(XMath64, SameBitsAsTheCpuAsCpp) {
  std::vector<double> v = special_values();
  concord::test::Lcg g{0x2545f4914f6cdd1du};
  for (int i = 0; i < (1 << 19); ++i) v.push_back(d(next64(g)));
  for (int i = 0; i < (1 << 18); ++i) v.push_back(-750.0 + 1500.0 * i / (1 << 18));
  for (int i = 0; i < (1 << 17); ++i) v.push_back(-1.0 + 2.0 * i / (1 << 17) + 1e-9 * (i & 7));
  for (int i = 0; i < (1 << 17); ++i) v.push_back(std::ldexp(1.0 + i / double(1 << 17), (i % 128) - 64));
  concord::test::expect_cpp_same_bits(math_ops(), v);
}

class ReproducibleVulkanMath64 : public concord::test::DeviceTest {};

// vulkan:0 (lavapipe) keeps no float64 subnormals, yet claims the seven for
// float64 in the mode (wherever it can store float64).
TEST_P(ReproducibleVulkanMath64, ClaimsFloat64OnBits) {
  if (!concord::test::is_vulkan_device(device()) || !concord::test::can_store(GetParam(), float64))
    GTEST_SKIP() << "needs Vulkan with float64 storage";
  concord::test::expect_claims_float64(math_ops(), device());
}

// Specials and every exponent, contiguous and as a strided view (every other
// element of a transpose), on the device against the CPU in the mode; on
// Vulkan, natively with no fallback and no separate NaN pass.
TEST_P(ReproducibleVulkanMath64, SameBitsAsTheCpu) {
  if (!concord::test::can_store(GetParam(), float64)) GTEST_SKIP() << "no float64 on " << GetParam().label;
  std::vector<double> v = special_values();
  const std::vector<double> e = every_exponent();
  v.insert(v.end(), e.begin(), e.end());
  concord::test::expect_device_same_bits(math_ops(), v, GetParam(), device());
}

CONCORD_INSTANTIATE_DEVICES(ReproducibleVulkanMath64);

}  // namespace
