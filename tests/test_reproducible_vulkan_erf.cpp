// The reproducible mode's float32 erf and gelu on Vulkan: the "_x" variant
// "ew_xerf_<dtype>_x" computes them in float64 on bits (shaders/xmath32_erf.glsl
// on xf64.glsl), canon_explog_erf.h's operations in its order, so vulkan:0
// claims them for float32 and the halves whatever its float controls promise,
// runs them natively (no fallback, no NaN pass) and gives the CPU's bits.
//
// xmath32_erf.glsl is also compiled as C++ here and checked against the CPU
// backend's ops over a quarter of a million bit patterns; the device tests
// check the shader on fewer (lavapipe is slow with integer-emulated doubles).
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

namespace xmath32_erf_glsl {
using uint = uint32_t;
using std::max;
inline int findMSB(uint v) { return v == 0u ? -1 : 31 - __builtin_clz(v); }
#include "backend/vulkan/shaders/xf32.glsl"
#include "backend/vulkan/shaders/xf64.glsl"
#include "backend/vulkan/shaders/xmath32.glsl"
#include "backend/vulkan/shaders/xmath32_erf.glsl"
}  // namespace xmath32_erf_glsl

using namespace concord;

namespace {

using concord::test::first_difference;

struct ErfOp {
  OpId id;
  Tensor (*run)(const Tensor&);
  uint32_t (*on_bits)(uint32_t);
};

const std::vector<ErfOp>& erf_ops() {
  static const std::vector<ErfOp> v = {
      {OpId::erf, [](const Tensor& x) { return erf(x); }, xmath32_erf_glsl::xm_erf},
      {OpId::gelu, [](const Tensor& x) { return gelu(x); }, xmath32_erf_glsl::xm_gelu}};
  return v;
}

float f(uint32_t bits) { return std::bit_cast<float>(bits); }

// ±0, subnormals, ±inf, NaNs, the largest floats, and the algorithm's
// seams: the series' term-count steps (0.5, 1, 1.5), series / fraction at
// |x| = 2, the fraction's depth steps (2.5, 3, 4, 6), erf saturating at 6,
// erfc's cut at 26 (gelu's argument -x/sqrt2 there: x ~ -36.77), gelu
// underflowing near x = -14, each with its neighbours.
std::vector<float> special_values() {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> v = {0.0f, -0.0f, f(1), f(0x80000001u), f(0x7fffffu), f(0x807fffffu), f(0x800000u),
                          f(0x80800000u), inf, -inf, f(0x7fc00000u), f(0xffc00001u), f(0x7f800001u),
                          3.4028235e38f, -3.4028235e38f, 1.0f, -1.0f, 1e-30f, -1e-30f, 1e-4f, -1e-4f, 0.1f};
  for (float s : {0.5f, 1.0f, 1.5f, 2.0f, 2.5f, 3.0f, 4.0f, 6.0f, 26.0f, 14.0f, 36.769f, 2.8284271f, 3.5355339f,
                  4.2426407f, 5.6568542f, 8.4852814f, 9.0f, 10.0f, 13.0f})
    for (int k = -1; k <= 1; ++k) {
      const float a = f(std::bit_cast<uint32_t>(s) + k);
      v.push_back(a);
      v.push_back(-a);
    }
  uint32_t s = 0x2545f491u;
  for (int i = 0; i < 16; ++i) {
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

// xmath32_erf.glsl as C++ against the CPU backend's ops in the mode, over
// every exponent and densely over [-40, 40] where the algorithm has its seams.
TEST(XMath32Erf, SameBitsAsTheCpuAsCpp) {
  std::vector<float> v = special_values();
  for (uint32_t i = 0; i < (1u << 17); ++i) v.push_back(f(i * 32771u + 0x9e3779b9u * (i & 1)));
  for (int i = 0; i < (1 << 17); ++i) v.push_back(-40.0f + 80.0f * static_cast<float>(i) / (1 << 17));
  const Tensor x = host(v);
  ReproducibleGuard g(true);
  for (const ErfOp& op : erf_ops()) {
    const Tensor want = op.run(x).contiguous();
    const auto* w = static_cast<const uint32_t*>(want.raw_data());
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < v.size(); ++i)
      if (op.on_bits(std::bit_cast<uint32_t>(v[i])) != w[i] && bad++ == 0) first = i;
    EXPECT_EQ(bad, 0u) << op_name(op.id) << ": first at x = 0x" << std::hex << std::bit_cast<uint32_t>(v[first])
                       << ": 0x" << op.on_bits(std::bit_cast<uint32_t>(v[first])) << " vs the CPU's 0x" << w[first];
  }
}

class ReproducibleVulkanErf : public concord::test::DeviceTest {
 protected:
  // On Vulkan, the device's runs since reset_report(): on the device, no
  // fallback, and no separate NaN pass.
  void expect_native(OpId op, Dtype t, const std::string& what) const {
    if (!is_vulkan(device())) return;
    const Report r = report();
    EXPECT_EQ(r.count(op_name(op), Path::fallback), 0u) << what << "\n" << r;
    EXPECT_GT(r.count(op_name(op), device().str(), t, Path::native) +
                  r.count(op_name(op), device().str(), t, Path::widened),
              0u)
        << what << "\n" << r;
    EXPECT_EQ(r.nan_passes, 0u) << what << "\n" << r;
  }
};

// vulkan:0 (lavapipe) keeps no promise about subnormals, yet claims erf and
// gelu for float32 and the halves in the mode (not float64).
TEST_P(ReproducibleVulkanErf, ClaimsTheOpsOnBits) {
  if (!is_vulkan(device())) GTEST_SKIP() << "the claim under test is Vulkan's";
  const Capabilities& caps = capabilities(device());
  for (const ErfOp& op : erf_ops()) {
    for (Dtype t : {float32, float16, bfloat16})
      if (concord::test::can_store(GetParam(), t))
        EXPECT_TRUE(caps.has_reproducible_kernel(op.id, t)) << op_name(op.id) << " " << name(t);
    if (!caps.keeps_subnormals) EXPECT_FALSE(caps.has_reproducible_kernel(op.id, float64)) << op_name(op.id);
  }
}

// Specials and every exponent, contiguous and as a strided view (a
// transpose of pairs), float32 and the halves through the public ops.
TEST_P(ReproducibleVulkanErf, SameBitsAsTheCpu) {
  std::vector<float> v = special_values();
  const std::vector<float> e = every_exponent();
  v.insert(v.end(), e.begin(), e.end());
  const int64_t n = static_cast<int64_t>(v.size()) / 2 * 2 - 1;  // odd
  const Tensor x = host(v).narrow(0, 0, n + 1);
  ReproducibleGuard g(true);
  for (Dtype t : {float32, bfloat16, float16}) {
    if (!concord::test::can_store(GetParam(), t)) continue;
    const Tensor xc = x.to(t), xd = xc.to(device());
    const Tensor oc = xc.narrow(0, 0, n), od = xd.narrow(0, 0, n);
    const Tensor vc = xc.reshape({(n + 1) / 2, 2}).t(), vd = xd.reshape({(n + 1) / 2, 2}).t();
    for (const ErfOp& op : erf_ops()) {
      const std::string what = std::string(op_name(op.id)) + " " + std::string(name(t)) + " on " + GetParam().label;
      const Tensor want = op.run(oc), want_v = op.run(vc);
      reset_report();
      const Tensor got = op.run(od), got_v = op.run(vd);
      expect_native(op.id, t, what);
      EXPECT_EQ(first_difference(got, want), "") << what;
      EXPECT_EQ(first_difference(got_v, want_v), "") << what << " strided view";
    }
  }
}

// The float16 / bfloat16 variants themselves (the dispatcher widens the
// halves on Vulkan), called directly in the mode.
TEST_P(ReproducibleVulkanErf, HalfVariantsCalledDirectly) {
  if (!is_vulkan(device())) GTEST_SKIP() << "the variants under test are Vulkan's";
  const std::vector<float> v = special_values();
  const int64_t n = static_cast<int64_t>(v.size());
  detail::Backend& be = detail::backend_for(device());
  ReproducibleGuard g(true);
  for (Dtype t : {float16, bfloat16}) {
    if (!concord::test::can_store(GetParam(), t)) continue;
    const Tensor x = host(v).to(t), xd = x.to(device());
    for (const ErfOp& op : erf_ops()) {
      const Tensor want = op.run(x);
      const Tensor got = empty({n}, t, device());
      be.unary(op.id, xd, got);
      EXPECT_EQ(first_difference(got, want), "") << op_name(op.id) << " " << name(t);
    }
  }
}

CONCORD_INSTANTIATE_DEVICES(ReproducibleVulkanErf);

}  // namespace
