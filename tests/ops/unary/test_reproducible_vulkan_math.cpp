// The reproducible mode's float32 transcendentals on Vulkan: log, tanh,
// sigmoid, expm1, log1p, log2 (common/xmath32.glsl), erf, gelu
// (xmath32_erf.glsl) and sin, cos, tan (xmath32_trig.glsl). Their "_x"
// variants compute in float64 on bits through xf64.glsl, the CPU's operations
// in the CPU's order (vec_impl_math.h; canon_explog.h, canon_explog_erf.h,
// canon_trig.h), so vulkan:0 claims them for float32 and the halves whatever
// its float controls promise, runs them natively (no fallback, no NaN pass)
// and gives the CPU's bits.
//
// The headers are also compiled as C++ here and checked against the CPU
// backend's ops over a million bit patterns; the device tests then check the
// shaders on fewer patterns (lavapipe is slow with integer-emulated doubles).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "concord/concord.h"
#include "core/backend.h"
#include "support/bits.h"
#include "support/devices.h"
#include "support/native_run.h"

namespace xmath32_glsl {
#include "support/glsl_shim.h"
#include "backend/common/xf32.glsl"
#include "backend/common/xf64.glsl"
#include "backend/common/xmath32.glsl"
#include "backend/common/xmath32_erf.glsl"
#include "backend/common/xmath32_trig.glsl"
}  // namespace xmath32_glsl

using namespace concord;

namespace {

using concord::test::first_difference;

struct MathOp {
  OpId id;
  Tensor (*run)(const Tensor&);
  uint32_t (*on_bits)(uint32_t);
};

const std::vector<MathOp>& math_ops() {
  static const std::vector<MathOp> v = {
      {OpId::log, [](const Tensor& x) { return log(x); }, xmath32_glsl::xm_log},
      {OpId::tanh, [](const Tensor& x) { return tanh(x); }, xmath32_glsl::xm_tanh},
      {OpId::sigmoid, [](const Tensor& x) { return sigmoid(x); }, xmath32_glsl::xm_sigmoid},
      {OpId::expm1, [](const Tensor& x) { return expm1(x); }, xmath32_glsl::xm_expm1},
      {OpId::log1p, [](const Tensor& x) { return log1p(x); }, xmath32_glsl::xm_log1p},
      {OpId::log2, [](const Tensor& x) { return log2(x); }, xmath32_glsl::xm_log2},
      {OpId::erf, [](const Tensor& x) { return erf(x); }, xmath32_glsl::xm_erf},
      {OpId::gelu, [](const Tensor& x) { return gelu(x); }, xmath32_glsl::xm_gelu},
      {OpId::sin, [](const Tensor& x) { return sin(x); }, xmath32_glsl::xm_sin},
      {OpId::cos, [](const Tensor& x) { return cos(x); }, xmath32_glsl::xm_cos},
      {OpId::tan, [](const Tensor& x) { return tan(x); }, xmath32_glsl::xm_tan}};
  return v;
}

float f(uint32_t bits) { return std::bit_cast<float>(bits); }

// ±0, subnormals, ±inf, NaNs (payloads, signs), log's sqrt(2) mantissa
// boundary and 1 ± ulp, negatives, the saturation edges of sigmoid (exp's
// clamp at 160, results rounding to 0 or 1 near ±17, ±88, ±104) and tanh
// (|x| = 20 clamp, results rounding to ±1 near 9), tiny arguments; with their
// neighbours and negatives: erf's seams (the series' term-count steps 0.5, 1,
// 1.5, series / fraction at 2, the fraction's depth steps 2.5, 3, 4, 6, erfc's
// cut at 26, gelu's -x/sqrt2 there near -36.77, gelu underflowing near -14)
// and the trig reduction's hard cases (float32(pi/4), multiples of pi/2,
// 1e22-ish floats close to them, powers of two).
std::vector<float> special_values() {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> v = {0.0f, -0.0f, f(1), f(0x80000001u), f(0x7fffffu), f(0x807fffffu), f(0x400000u),
                          f(0x800000u), f(0x80800000u), inf, -inf, f(0x7fc00000u), f(0xffc00001u),
                          f(0x7f800001u), f(0x7fffffffu), 3.4028235e38f, -3.4028235e38f, 1.0f, -1.0f,
                          f(0x3f800001u), f(0x3f7fffffu), f(0x3fb504f3u), f(0x3fb504f4u), f(0x3f3504f3u),
                          f(0x3f3504f4u), 2.0f, 0.5f, 1e-30f, -1e-30f, 1e-4f, -1e-4f, 6e-8f, 0.1f, -0.3f,
                          9.0f, 9.01f, 9.011f, -9.011f, 16.6f, 17.0f, -17.0f, 20.0f, -20.0f, f(0x41a00001u),
                          f(0xc1a00001u), 87.3f, 88.7f, -88.7f, 103.9f, -103.9f, 104.0f, -104.0f, 159.9f,
                          160.0f, -160.0f, f(0x43200001u), f(0xc3200001u), 1e10f, -1e10f, 65504.0f, -65520.0f,
                          // expm1's ranges (|x| < ln2/2, 88.72, -17.33, the clamp at 100), log1p's
                          // (-1, below -1, the direct range's ends), powers of two for log2
                          0.34657359f, f(0x3eb17218u), -0.34657359f, f(0xbeb17218u), 88.72f, 88.73f, -17.33f,
                          -17.34f, 100.0f, -100.0f, 100.5f, -1.0f, f(0xbf800001u), f(0xbf7fffffu),
                          -0.29289323f, f(0xbe95f619u), 0.41421354f, f(0x3ed413cdu), 1e30f, 8.0f, 0.125f,
                          f(0x00200000u), 1024.0f};
  for (float s : {0.5f, 1.0f, 1.5f, 2.0f, 2.5f, 3.0f, 4.0f, 6.0f, 26.0f, 14.0f, 36.769f, 2.8284271f, 3.5355339f,
                  4.2426407f, 5.6568542f, 8.4852814f, 9.0f, 10.0f, 13.0f, 0.78539819f, 1.5707964f, 3.1415927f,
                  4.712389f, 6.2831855f, 1e4f, 102940.38f, 1e22f, 8.1e9f, 16777216.0f, 64.0f, 4096.0f, 1.7e38f})
    for (int k = -1; k <= 1; ++k) {
      const float a = f(std::bit_cast<uint32_t>(s) + k);
      v.push_back(a);
      v.push_back(-a);
    }
  uint32_t s = 0x2545f491u;
  for (int i = 0; i < 16; ++i) {  // a short LCG over every exponent and sign
    s = s * 1664525u + 1013904223u;
    v.push_back(f(s));
  }
  return v;
}

// Every exponent field and sign with four mantissas each: 2048 patterns.
std::vector<float> every_exponent() {
  std::vector<float> v;
  uint32_t s = 0x9e3779b9u;
  for (uint32_t e = 0; e < 512; ++e)
    for (int k = 0; k < 4; ++k) {
      s = s * 1664525u + 1013904223u;
      const uint32_t mant = k == 0 ? 0u : k == 1 ? 0x7fffffu : s >> 9;
      v.push_back(f((e << 23) | mant));
    }
  return v;
}

Tensor host(const std::vector<float>& v) {
  return from_host(v.data(), {static_cast<int64_t>(v.size())}, float32, kCPU);
}

bool is_vulkan(const Device& d) { return d.kind().name() == "vulkan"; }

// The headers as C++ against the CPU backend's ops in the mode (every NaN
// canonical there too), over a million patterns spread over every exponent
// and densely over [-40, 40], where erf has its seams and sin/cos/tan every
// quadrant many times.
TEST(XMath32, SameBitsAsTheCpuAsCpp) {
  std::vector<float> v = special_values();
  for (uint32_t i = 0; i < (1u << 20); ++i) v.push_back(f(i * 4099u + 0x9e3779b9u * (i & 1)));
  for (int i = 0; i < (1 << 17); ++i) v.push_back(-40.0f + 80.0f * static_cast<float>(i) / (1 << 17));
  const Tensor x = host(v);
  ReproducibleGuard g(true);
  for (const MathOp& op : math_ops()) {
    const Tensor want = op.run(x).contiguous();
    const auto* w = static_cast<const uint32_t*>(want.raw_data());
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < v.size(); ++i)
      if (op.on_bits(std::bit_cast<uint32_t>(v[i])) != w[i] && bad++ == 0) first = i;
    EXPECT_EQ(bad, 0u) << op_name(op.id) << ": first at x = 0x" << std::hex << std::bit_cast<uint32_t>(v[first])
                       << ": 0x" << op.on_bits(std::bit_cast<uint32_t>(v[first])) << " vs the CPU's 0x" << w[first];
  }
}

class ReproducibleVulkanMath : public concord::test::DeviceTest {
 protected:
  // On Vulkan, the device's runs since reset_report(): on the device, no
  // fallback, and no separate NaN pass.
  void expect_native(OpId op, Dtype t, const std::string& what) const {
    if (is_vulkan(device())) concord::test::expect_ran_on_device(op_name(op), device(), t, what, true);
  }
};

// vulkan:0 (lavapipe) keeps no promise about subnormals, yet claims these
// ops for float32 and the halves in the mode, and for float64 where it stores
// it (xmath64*.glsl: tests/ops/unary/test_reproducible_vulkan_math64.cpp, _erf64.cpp,
// _trig64.cpp, _pow64.cpp).
TEST_P(ReproducibleVulkanMath, ClaimsTheOpsOnBits) {
  if (!is_vulkan(device())) GTEST_SKIP() << "the claim under test is Vulkan's";
  const Capabilities& caps = capabilities(device());
  for (const MathOp& op : math_ops()) {
    for (Dtype t : {float32, float16, bfloat16})
      if (concord::test::can_store(GetParam(), t))
        EXPECT_TRUE(caps.has_reproducible_kernel(op.id, t)) << op_name(op.id) << " " << name(t);
    if (concord::test::can_store(GetParam(), float64))
      EXPECT_TRUE(caps.has_reproducible_kernel(op.id, float64)) << op_name(op.id) << " float64";
  }
}

// Specials and every exponent, contiguous and as a strided view (every
// other element of a reversed-order transpose), float32 and bfloat16 /
// float16 through the public ops (widened on Vulkan).
TEST_P(ReproducibleVulkanMath, SameBitsAsTheCpu) {
  std::vector<float> v = special_values();
  const std::vector<float> e = every_exponent();
  v.insert(v.end(), e.begin(), e.end());
  const int64_t n = static_cast<int64_t>(v.size()) / 2 * 2;
  const Tensor x = host(v).narrow(0, 0, n);
  ReproducibleGuard g(true);
  for (Dtype t : {float32, bfloat16, float16}) {
    if (!concord::test::can_store(GetParam(), t)) continue;
    const Tensor xc = x.to(t), xd = xc.to(device());
    const Tensor vc = xc.reshape({n / 2, 2}).t(), vd = xd.reshape({n / 2, 2}).t();
    for (const MathOp& op : math_ops()) {
      const std::string what = std::string(op_name(op.id)) + " " + std::string(name(t)) + " on " + GetParam().label;
      const Tensor want = op.run(xc), want_v = op.run(vc);
      reset_report();
      const Tensor got = op.run(xd), got_v = op.run(vd);
      expect_native(op.id, t, what);
      EXPECT_EQ(first_difference(got, want), "") << what;
      EXPECT_EQ(first_difference(got_v, want_v), "") << what << " strided view";
    }
  }
}

// The float16 / bfloat16 "_x" variants themselves (the dispatcher widens the
// halves on Vulkan, so they run only when the backend is handed halves):
// called directly in the mode, against the CPU's public op.
TEST_P(ReproducibleVulkanMath, HalfVariantsCalledDirectly) {
  if (!is_vulkan(device())) GTEST_SKIP() << "the variants under test are Vulkan's";
  const std::vector<float> v = special_values();
  const int64_t n = static_cast<int64_t>(v.size());
  detail::Backend& be = detail::backend_for(device());
  ReproducibleGuard g(true);
  for (Dtype t : {float16, bfloat16}) {
    if (!concord::test::can_store(GetParam(), t)) continue;
    const Tensor x = host(v).to(t), xd = x.to(device());
    for (const MathOp& op : math_ops()) {
      const Tensor want = op.run(x);
      const Tensor got = empty({n}, t, device());
      be.unary(op.id, xd, got);
      EXPECT_EQ(first_difference(got, want), "") << op_name(op.id) << " " << name(t);
    }
  }
}

CONCORD_INSTANTIATE_DEVICES(ReproducibleVulkanMath);

}  // namespace
