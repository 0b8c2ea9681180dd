// The reproducible mode's float32 pow, pow(x, number) and atan2 on Vulkan
// (common/xmath32_pow.glsl). Their "_x" variants compute canon_pow.h's
// double-double log2 / exp2 and atan table in float64 on bits through
// xf64.glsl, the CPU's operations in the CPU's order, so vulkan:0 claims them
// for float32 and the halves whatever its float controls promise, runs them
// natively (no fallback, no NaN pass) and gives the CPU's bits.
//
// The header is also compiled as C++ here and checked against
// concord_pow_f32 / concord_atan2_f32 over a million pairs; the device tests
// then check the shaders on a few thousand (lavapipe is slow with
// integer-emulated doubles).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "backend/common/canon_pow.h"
#include "concord/concord.h"
#include "core/backend.h"
#include "support/bits.h"
#include "support/devices.h"
#include "support/native_run.h"

namespace xmath32_pow_glsl {
#include "support/glsl_shim.h"
#include "backend/common/xf32.glsl"
#include "backend/common/xf64.glsl"
#include "backend/common/xmath32_pow.glsl"
}  // namespace xmath32_pow_glsl

using namespace concord;

namespace {

using concord::test::first_difference;
using concord::test::Lcg;

float f(uint32_t bits) { return std::bit_cast<float>(bits); }
uint32_t u(float v) { return std::bit_cast<uint32_t>(v); }
// The mode's bits of a float result: NaN canonical.
uint32_t mode_bits(float v) { return std::isnan(v) ? 0x7fc00000u : u(v); }

// Values for both operands: ±0, subnormals, ±inf, NaNs (payloads, signs),
// ±1 and their neighbours, bases whose powers overflow or underflow float
// (2, 10, 0.5, FLT_MAX, FLT_MIN), integer exponents odd and even (3, -3, 2,
// 2^24 - 1, 2^24, 1e10), non-integers (0.5, 1/3, 1.5), exponents that put
// results at float's edges (127.9, 128, -126.5, -149, -149.5, -150, 38.5),
// and atan2's octant seams (equal magnitudes, k/16 ratios).
std::vector<float> special_values() {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> v = {0.0f, -0.0f, f(1), f(0x80000001u), f(0x7fffffu), f(0x807fffffu), f(0x800000u),
                          f(0x80800000u), inf, -inf, f(0x7fc00000u), f(0xffc00001u), f(0x7f800001u),
                          3.4028235e38f, -3.4028235e38f, 1.0f, -1.0f, f(0x3f800001u), f(0x3f7fffffu),
                          f(0xbf800001u), 2.0f, -2.0f, 0.5f, -0.5f, 3.0f, -3.0f, 10.0f, -8.0f, 1.5f,
                          0.33333334f, 127.9f, 128.0f, -126.5f, -149.0f, -149.5f, -150.0f, 38.5f, 16777215.0f,
                          16777216.0f, -16777215.0f, 1e10f, -1e10f, 1e-30f, 1e30f, 0.0625f, 0.9375f, 1.0625f,
                          1e-7f, 201.0f, -201.0f};
  return v;
}

// Every exponent field and sign with two mantissas: 1024 patterns.
std::vector<float> every_exponent() {
  std::vector<float> v;
  uint32_t s = 0x9e3779b9u;
  for (uint32_t e = 0; e < 512; ++e)
    for (int k = 0; k < 2; ++k) {
      s = s * 1664525u + 1013904223u;
      v.push_back(f((e << 23) | (k == 0 ? 0u : s >> 9)));
    }
  return v;
}

// n pairs: random bits, moderate exponents of positive bases, bases near 1
// with huge exponents (y log2 x's cancellation), integer exponents of
// negative bases, and atan2's ratios near k/16.
void random_pairs(size_t n, uint64_t seed, std::vector<float>& xs, std::vector<float>& ys) {
  Lcg g{seed};
  for (size_t i = 0; i < n; ++i) {
    float x = f(g.next() ^ (g.next() << 1)), y = f(g.next() ^ (g.next() << 1));
    switch (i % 5) {
      case 1: x = std::fabs(x); y = std::ldexp(static_cast<float>(g.uniform()), static_cast<int>(g.next() % 10)); break;
      case 2:
        x = 1.0f + std::ldexp(static_cast<float>(static_cast<int>(g.next() % 2000) - 1000), -23);
        y = std::ldexp(static_cast<float>(g.uniform()), 24 + static_cast<int>(g.next() % 8));
        break;
      case 3:
        x = std::ldexp(static_cast<float>(g.uniform()), static_cast<int>(g.next() % 60) - 30);
        y = static_cast<float>(static_cast<int>(g.next() % 61) - 30);
        break;
      case 4:
        y = static_cast<float>(g.uniform()) * 100.0f;
        x = y * (static_cast<float>(g.next() % 17) / 16.0f + static_cast<float>(g.uniform()) * 0x1p-10f);
        break;
      default: break;
    }
    xs.push_back(x);
    ys.push_back(y);
  }
}

// The device set: specials crossed with specials, every exponent against a
// few exponents (and as atan2's x), random pairs. About 5.6 thousand.
void device_pairs(std::vector<float>& xs, std::vector<float>& ys) {
  const std::vector<float> s = special_values();
  for (float a : s)
    for (float b : s) xs.push_back(a), ys.push_back(b);
  const float some[] = {0.5f, -3.0f, 2.0f, -0.33333334f, 1e-7f};
  int k = 0;
  for (float a : every_exponent()) xs.push_back(a), ys.push_back(some[k++ % 5]);
  random_pairs(2048, 0x243F6A8885A308D3ull, xs, ys);
}

// Exponents of pow(x, number): doubles, not float32 (1/3, 0.1, 1e9 + 0.5 are
// not floats), with the specials and huge / tiny results.
const double kNumbers[] = {1.0 / 3, -2.5, 0.1, 3.0, -3.0, 1e9 + 0.5, 0.0, -0.0, 0.5, 2.0, -1.0, 1e-40, 300.0,
                           -149.5, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity(), 9007199254740993.0, 4503599627370497.0};

Tensor host(const std::vector<float>& v) {
  return from_host(v.data(), {static_cast<int64_t>(v.size())}, float32, kCPU);
}

bool is_vulkan(const Device& d) { return d.kind().name() == "vulkan"; }

// The header as C++ against canon_pow.h's own functions (the CPU's code in
// the mode, NaNs made canonical) over a million pairs, then the public ops
// in the mode on the same pairs (the wiring of the halves and numbers aside).
TEST(XMath32Pow, SameBitsAsCanonPowAsCpp) {
  std::vector<float> xs, ys;
  for (float a : special_values())
    for (float b : special_values()) xs.push_back(a), ys.push_back(b);
  random_pairs(1u << 20, 0x13198A2E03707344ull, xs, ys);
  size_t bad_pow = 0, bad_atan2 = 0, first_pow = 0, first_atan2 = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const uint32_t p = xmath32_pow_glsl::xm_pow(u(xs[i]), std::bit_cast<uint64_t>(static_cast<double>(ys[i])));
    if (p != mode_bits(concord_pow_f32(xs[i], static_cast<double>(ys[i]))) && bad_pow++ == 0) first_pow = i;
    if (xmath32_pow_glsl::xm_atan2(u(xs[i]), u(ys[i])) != mode_bits(concord_atan2_f32(xs[i], ys[i])) &&
        bad_atan2++ == 0)
      first_atan2 = i;
  }
  EXPECT_EQ(bad_pow, 0u) << "pow: first at (" << xs[first_pow] << ", " << ys[first_pow] << ")";
  EXPECT_EQ(bad_atan2, 0u) << "atan2: first at (" << xs[first_atan2] << ", " << ys[first_atan2] << ")";
  size_t bad_number = 0;
  for (double e : kNumbers)
    for (size_t i = 0; i < (1u << 16); ++i)
      if (xmath32_pow_glsl::xm_pow(u(xs[i]), std::bit_cast<uint64_t>(e)) != mode_bits(concord_pow_f32(xs[i], e)))
        ++bad_number;
  EXPECT_EQ(bad_number, 0u) << "pow(x, number)";
  const Tensor x = host(xs), y = host(ys);
  ReproducibleGuard g(true);
  const Tensor p = pow(x, y).contiguous(), a = atan2(x, y).contiguous();
  const auto* pw = static_cast<const uint32_t*>(p.raw_data());
  const auto* aw = static_cast<const uint32_t*>(a.raw_data());
  size_t bad_public = 0;
  for (size_t i = 0; i < xs.size(); ++i)
    bad_public += (xmath32_pow_glsl::xm_pow(u(xs[i]), std::bit_cast<uint64_t>(static_cast<double>(ys[i]))) != pw[i]) +
                  (xmath32_pow_glsl::xm_atan2(u(xs[i]), u(ys[i])) != aw[i]);
  EXPECT_EQ(bad_public, 0u) << "against the CPU's public pow / atan2 in the mode";
}

class ReproducibleVulkanPow : public concord::test::DeviceTest {
 protected:
  // On Vulkan, the device's runs since reset_report(): on the device, no
  // fallback, and no separate NaN pass.
  void expect_native(OpId op, Dtype t, const std::string& what) const {
    if (is_vulkan(device())) concord::test::expect_ran_on_device(op_name(op), device(), t, what, true);
  }
};

// vulkan:0 (lavapipe) keeps no promise about subnormals, yet claims pow and
// atan2 for float32 and the halves in the mode (float64's:
// test_reproducible_vulkan_pow64.cpp).
TEST_P(ReproducibleVulkanPow, ClaimsPowAndAtan2OnBits) {
  if (!is_vulkan(device())) GTEST_SKIP() << "the claim under test is Vulkan's";
  const Capabilities& caps = capabilities(device());
  for (OpId op : {OpId::pow, OpId::atan2})
    for (Dtype t : {float32, float16, bfloat16})
      if (concord::test::can_store(GetParam(), t))
        EXPECT_TRUE(caps.has_reproducible_kernel(op, t)) << op_name(op) << " " << name(t);
}

// pow and atan2 of two tensors: contiguous, as a strided view (every other
// element of a transpose) and broadcast (a column against a row), float32
// and bfloat16 / float16 through the public ops (widened on Vulkan).
TEST_P(ReproducibleVulkanPow, SameBitsAsTheCpu) {
  std::vector<float> xs, ys;
  device_pairs(xs, ys);
  const int64_t n = static_cast<int64_t>(xs.size()) / 2 * 2;
  const Tensor x = host(xs).narrow(0, 0, n), y = host(ys).narrow(0, 0, n);
  const std::vector<float> s = special_values();
  const int64_t m = static_cast<int64_t>(s.size());
  const Tensor col = host(s).reshape({m, 1}), row = host(s).narrow(0, 0, 16).reshape({1, 16});
  ReproducibleGuard g(true);
  for (Dtype t : {float32, bfloat16, float16}) {
    if (!concord::test::can_store(GetParam(), t)) continue;
    const Tensor xc = x.to(t), yc = y.to(t), xd = xc.to(device()), yd = yc.to(device());
    const Tensor xv = xc.reshape({n / 2, 2}).t(), yv = yc.reshape({n / 2, 2}).t();
    const Tensor xdv = xd.reshape({n / 2, 2}).t(), ydv = yd.reshape({n / 2, 2}).t();
    const Tensor cc = col.to(t), rc = row.to(t), cd = cc.to(device()), rd = rc.to(device());
    for (OpId op : {OpId::pow, OpId::atan2}) {
      auto run = [op](const Tensor& a, const Tensor& b) { return op == OpId::pow ? pow(a, b) : atan2(a, b); };
      const std::string what = std::string(op_name(op)) + " " + std::string(name(t)) + " on " + GetParam().label;
      const Tensor want = run(xc, yc), want_v = run(xv, yv), want_b = run(cc, rc), want_r = run(rc, cc);
      reset_report();
      const Tensor got = run(xd, yd), got_v = run(xdv, ydv), got_b = run(cd, rd), got_r = run(rd, cd);
      expect_native(op, t, what);
      EXPECT_EQ(first_difference(got, want), "") << what;
      EXPECT_EQ(first_difference(got_v, want_v), "") << what << " strided view";
      EXPECT_EQ(first_difference(got_b, want_b), "") << what << " broadcast column x row";
      EXPECT_EQ(first_difference(got_r, want_r), "") << what << " broadcast row x column";
    }
  }
}

// pow(tensor, number): the number's double value reaches the shader whole
// (1/3 is not float(1/3)), contiguous and transposed, float32 and float16.
TEST_P(ReproducibleVulkanPow, NumberExponentSameBitsAsTheCpu) {
  std::vector<float> v = special_values();
  const std::vector<float> e = every_exponent();
  v.insert(v.end(), e.begin(), e.end());
  const int64_t n = static_cast<int64_t>(v.size()) / 2 * 2;
  const Tensor x = host(v).narrow(0, 0, n);
  ReproducibleGuard g(true);
  for (Dtype t : {float32, float16}) {
    if (!concord::test::can_store(GetParam(), t)) continue;
    const Tensor xc = x.to(t), xd = xc.to(device());
    const Tensor xv = xc.reshape({n / 2, 2}).t(), xdv = xd.reshape({n / 2, 2}).t();
    for (double p : kNumbers) {
      const std::string what = "pow(x, " + std::to_string(p) + ") " + std::string(name(t)) + " on " + GetParam().label;
      const Tensor want = xc.pow(Scalar(p)), want_v = xv.pow(Scalar(p));
      reset_report();
      const Tensor got = xd.pow(Scalar(p)), got_v = xdv.pow(Scalar(p));
      expect_native(OpId::pow, t, what);
      EXPECT_EQ(first_difference(got, want), "") << what;
      EXPECT_EQ(first_difference(got_v, want_v), "") << what << " transposed";
    }
  }
}

// The float16 / bfloat16 "_x" variants themselves (the dispatcher widens the
// halves on Vulkan, so they run only when the backend is handed halves):
// called directly in the mode, against the CPU's public ops.
TEST_P(ReproducibleVulkanPow, HalfVariantsCalledDirectly) {
  if (!is_vulkan(device())) GTEST_SKIP() << "the variants under test are Vulkan's";
  const std::vector<float> s = special_values();
  std::vector<float> xs, ys;
  for (float a : s)
    for (float b : s) xs.push_back(a), ys.push_back(b);
  const int64_t n = static_cast<int64_t>(xs.size());
  detail::Backend& be = detail::backend_for(device());
  ReproducibleGuard g(true);
  for (Dtype t : {float16, bfloat16}) {
    if (!concord::test::can_store(GetParam(), t)) continue;
    const Tensor x = host(xs).to(t), y = host(ys).to(t), xd = x.to(device()), yd = y.to(device());
    for (OpId op : {OpId::pow, OpId::atan2}) {
      const Tensor got = empty({n}, t, device());
      be.binary(op, xd, yd, got);
      EXPECT_EQ(first_difference(got, op == OpId::pow ? pow(x, y) : atan2(x, y)), "") << op_name(op) << " " << name(t);
    }
    for (double p : {1.0 / 3, -3.0, 0.5}) {
      const Tensor got = empty({n}, t, device());
      be.pow_scalar(xd, detail::ScalarExponent::of(p, true), got);
      EXPECT_EQ(first_difference(got, x.pow(Scalar(p))), "") << "pow(x, " << p << ") " << name(t);
    }
  }
}

CONCORD_INSTANTIATE_DEVICES(ReproducibleVulkanPow);

}  // namespace
