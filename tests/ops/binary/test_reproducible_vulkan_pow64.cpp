// The reproducible mode's float64 pow, pow(x, number) and atan2 on Vulkan
// (common/xmath64_pow.glsl). Their "_x" variants ("ew_xpow_f64_x",
// "ew_xpows_f64_x") are the CPU's canon_pow_f64.h on float64 bits through
// xf64.glsl, so vulkan:0 claims them for float64 whatever its float controls
// promise, runs them natively (no fallback, no NaN pass) and gives the CPU's
// bits.
//
// The header is also compiled as C++ here and checked against the CPU
// backend's ops in the mode over about a million pairs; the device tests then
// check the shaders on a few thousand (lavapipe is slow with
// integer-emulated doubles).
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

namespace xmath64_pow_glsl {
#include "support/glsl_shim.h"
#include "backend/common/xf32.glsl"
#include "backend/common/xf64.glsl"
#include "backend/common/xmath64.glsl"
#include "backend/common/xmath64_log.glsl"
#include "backend/common/xmath32_pow.glsl"
#include "backend/common/xmath64_pow.glsl"
}  // namespace xmath64_pow_glsl

using namespace concord;

namespace {

using concord::test::first_difference;
using concord::test::Lcg;

double d(uint64_t bits) { return std::bit_cast<double>(bits); }
uint64_t u(double v) { return std::bit_cast<uint64_t>(v); }
const double kInf = std::numeric_limits<double>::infinity();

// 64 pseudo-random bits from three of the Lcg's 31-bit draws.
uint64_t next64(Lcg& g) {
  const uint64_t a = g.next(), b = g.next(), c = g.next();
  return (a << 33) ^ (b << 2) ^ c;
}

// Values for both operands: ±0, subnormals, ±inf, NaNs (payloads, signs),
// ±1 and their neighbours, the largest finite, integers odd and even (3,
// 2^53 - 1, 2^53, 2^63), non-integers (0.5, 1/3, 2.5), exponents at the
// range's ends (1023.9, 1024, -1074, -1074.5, -1075), the log's sqrt 2
// mantissa seam, atan2's k/16 seams and its tiny-operand cuts (2^-900,
// 2^-969).
std::vector<double> special_values() {
  return {0.0, -0.0, kInf, -kInf, d(0x7ff8000000000000u), d(0xfff8000000000001u), d(0x7ff0000000000001u),
          d(1), d(0x8000000000000001u), d(0x000fffffffffffffu), d(0x800fffffffffffffu), 0x1p-1022, -0x1p-1022,
          d(0x7fefffffffffffffu), d(0xffefffffffffffffu), 1.0, -1.0, d(0x3ff0000000000001u),
          d(0x3fefffffffffffffu), d(0xbff0000000000001u), 2.0, -2.0, 0.5, -0.5, 3.0, -3.0, 10.0, -8.0, 1.5, -2.5,
          1.0 / 3, 0x1p53, -0x1p53, 0x1.fffffffffffffp52, -0x1.fffffffffffffp52, 0x1p63, 1e300, -1e300, 1e-300,
          1023.9, 1024.0, -1074.0, -1074.5, -1075.0, 709.78, -745.13, d(0x3ff6a09e667f3bcdu),
          d(0x3ff6a09e667f3bceu), 0.0625, 0.9375, 1.0625, 0x1p-900, 0x1.0000000000001p-900, 0x1p-969,
          0x1.fffffffffffffp-970, 1e-10, 0.1, 100.0};
}

// Every exponent field once, a pseudo-random sign and mantissa each.
std::vector<double> every_exponent(int step) {
  std::vector<double> v;
  Lcg g{0x9e3779b97f4a7c15u};
  for (uint64_t e = 0; e < 2048; e += static_cast<uint64_t>(step)) {
    const uint64_t r = next64(g);
    v.push_back(d((r & 0x8000000000000000u) | (e << 52) | (r >> 12)));
  }
  return v;
}

// n pairs: random bits; results across the whole range and at its edges
// (y = t / ln|x|); x near 1 with huge y; negative bases with integer
// exponents (odd and even) and non-integer ones; atan2's ratios near k/16
// at every scale, and quotients near and below the smallest normal.
void random_pairs(size_t n, uint64_t seed, std::vector<double>& xs, std::vector<double>& ys) {
  Lcg g{seed};
  auto unit = [&g] { return static_cast<double>(next64(g) >> 11) * 0x1p-53; };
  const double edges[] = {709.782712893384, -708.3964185322641, -744.4400719213812, -745.1332191019411};
  for (size_t i = 0; i < n; ++i) {
    double x = d(next64(g)), y = d(next64(g));
    switch (i % 7) {
      case 1:
        x = std::ldexp(1.0 + unit(), static_cast<int>(g.next() % 2098) - 1074);
        if (x == 1.0) x = 3.0;
        y = (unit() * 1520.0 - 760.0) / std::log(x);
        break;
      case 2: {
        x = std::ldexp(1.0 + unit(), static_cast<int>(g.next() % 200) - 100);
        if (x == 1.0) x = 0.75;
        const double t = edges[g.next() % 4];
        y = d(u(t / std::log(x)) + static_cast<uint64_t>(static_cast<int64_t>(g.next() % 9) - 4));
        break;
      }
      case 3:
        x = 1.0 + std::ldexp(static_cast<double>(static_cast<int64_t>(next64(g))), -63 - static_cast<int>(g.next() % 40));
        y = std::ldexp(unit() - 0.5, static_cast<int>(g.next() % 90));
        break;
      case 4:
        x = -std::ldexp(1.0 + unit(), static_cast<int>(g.next() % 64) - 32);
        y = (g.next() & 1) ? static_cast<double>(static_cast<int>(g.next() % 257) - 128)
                           : std::ldexp(unit() - 0.5, static_cast<int>(g.next() % 12));
        break;
      case 5:
        y = std::ldexp(1.0 + unit(), static_cast<int>(g.next() % 2000) - 1000);
        x = y * (static_cast<double>(g.next() % 17) / 16.0 + (unit() - 0.5) * 0x1p-20);
        if (g.next() & 1) std::swap(x, y);
        if (g.next() & 1) x = -x;
        break;
      case 6: {
        const int e = -1074 + static_cast<int>(g.next() % 800);
        x = std::ldexp(1.0 + unit(), e);
        y = std::ldexp(1.0 + unit(), e + 900 + static_cast<int>(g.next() % 200));
        if (g.next() & 1) std::swap(x, y);
        break;
      }
      default: break;
    }
    xs.push_back(x);
    ys.push_back(y);
  }
}

// Exponents of pow(x, number): integers odd and even, non-integers, huge and
// tiny, the specials; their full double values (1/3, 0.1).
const double kNumbers[] = {1.0 / 3, -2.5, 0.1, 3.0, -3.0, 2.0, 0.5, -1.0, 0.0, -0.0, 1e-300, 1075.0, -1075.0,
                           1e10 + 1, 9007199254740991.0, std::numeric_limits<double>::quiet_NaN(), kInf, -kInf};

Tensor host(const std::vector<double>& v) {
  return from_host(v.data(), {static_cast<int64_t>(v.size())}, float64, kCPU);
}

bool is_vulkan(const Device& dev) { return dev.kind().name() == "vulkan"; }

// The header as C++ against the CPU backend's pow, atan2 and pow(x, number)
// in the mode: every pair of the specials, 2^19 random pairs, and 2^14
// values for each number.
TEST(XMath64Pow, SameBitsAsTheCpuAsCpp) {
  std::vector<double> xs, ys;
  const std::vector<double> s = special_values();
  for (double a : s)
    for (double b : s) xs.push_back(a), ys.push_back(b);
  random_pairs(1u << 19, 0x13198A2E03707344ull, xs, ys);
  const Tensor x = host(xs), y = host(ys);
  ReproducibleGuard guard(true);
  const Tensor p = pow(x, y).contiguous(), a = atan2(x, y).contiguous();
  const auto* pw = static_cast<const uint64_t*>(p.raw_data());
  const auto* aw = static_cast<const uint64_t*>(a.raw_data());
  size_t bad_pow = 0, bad_atan2 = 0, first_pow = 0, first_atan2 = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    if (xmath64_pow_glsl::xe_pow(u(xs[i]), u(ys[i])) != pw[i] && bad_pow++ == 0) first_pow = i;
    if (xmath64_pow_glsl::xe_atan2(u(xs[i]), u(ys[i])) != aw[i] && bad_atan2++ == 0) first_atan2 = i;
  }
  EXPECT_EQ(bad_pow, 0u) << "pow: first at (" << xs[first_pow] << ", " << ys[first_pow] << "): 0x" << std::hex
                         << xmath64_pow_glsl::xe_pow(u(xs[first_pow]), u(ys[first_pow])) << " vs the CPU's 0x"
                         << pw[first_pow];
  EXPECT_EQ(bad_atan2, 0u) << "atan2: first at (" << xs[first_atan2] << ", " << ys[first_atan2] << ")";
  const std::vector<double> bases(xs.begin() + static_cast<std::ptrdiff_t>(s.size() * s.size()),
                                  xs.begin() + static_cast<std::ptrdiff_t>(s.size() * s.size() + (1u << 14)));
  const Tensor b = host(bases);
  for (double e : kNumbers) {
    const Tensor want = b.pow(Scalar(e)).contiguous();
    const auto* w = static_cast<const uint64_t*>(want.raw_data());
    size_t bad = 0;
    for (size_t i = 0; i < bases.size(); ++i) bad += xmath64_pow_glsl::xe_pow(u(bases[i]), u(e)) != w[i];
    EXPECT_EQ(bad, 0u) << "pow(x, " << e << ")";
  }
}

class ReproducibleVulkanPow64 : public concord::test::DeviceTest {};

// vulkan:0 (lavapipe) keeps no float64 subnormals, yet claims pow and atan2
// for float64 in the mode (wherever it can store float64).
TEST_P(ReproducibleVulkanPow64, ClaimsFloat64OnBits) {
  if (!is_vulkan(device()) || !concord::test::can_store(GetParam(), float64))
    GTEST_SKIP() << "needs Vulkan with float64 storage";
  const Capabilities& caps = capabilities(device());
  for (OpId op : {OpId::pow, OpId::atan2})
    EXPECT_TRUE(caps.has_reproducible_kernel(op, float64)) << op_name(op);
}

// pow and atan2 of two tensors: the specials broadcast as a column against a
// row (every pair of them), and random pairs as a strided view (every other
// element of a transpose); pow(x, number) on the specials and one exponent
// field in 32 (about 11 thousand results in all: lavapipe is slow). On Vulkan, natively with no fallback and no NaN pass.
TEST_P(ReproducibleVulkanPow64, SameBitsAsTheCpu) {
  if (!concord::test::can_store(GetParam(), float64)) GTEST_SKIP() << "no float64 on " << GetParam().label;
  const std::vector<double> s = special_values();
  const int64_t m = static_cast<int64_t>(s.size());
  const Tensor col = host(s).reshape({m, 1}), row = host(s).reshape({1, m});
  const Tensor cold = col.to(device()), rowd = row.to(device());
  std::vector<double> xs, ys;
  random_pairs(512, 0x243F6A8885A308D3ull, xs, ys);
  const Tensor xv = host(xs).reshape({256, 2}).t(), yv = host(ys).reshape({256, 2}).t();
  const Tensor xdv = host(xs).to(device()).reshape({256, 2}).t(), ydv = host(ys).to(device()).reshape({256, 2}).t();
  ReproducibleGuard guard(true);
  for (OpId op : {OpId::pow, OpId::atan2}) {
    auto run = [op](const Tensor& a, const Tensor& b) { return op == OpId::pow ? pow(a, b) : atan2(a, b); };
    const std::string what = std::string(op_name(op)) + " float64 on " + GetParam().label;
    const Tensor want = run(col, row), want_v = run(xv, yv);
    reset_report();
    const Tensor got = run(cold, rowd), got_v = run(xdv, ydv);
    if (is_vulkan(device())) concord::test::expect_ran_on_device(op_name(op), device(), float64, what, true);
    EXPECT_EQ(first_difference(got, want), "") << what << " column x row";
    EXPECT_EQ(first_difference(got_v, want_v), "") << what << " strided view";
  }
  std::vector<double> v = s;
  const std::vector<double> e = every_exponent(32);
  v.insert(v.end(), e.begin(), e.end());
  const Tensor x = host(v), xd = x.to(device());
  for (double p : kNumbers) {
    const std::string what = "pow(x, " + std::to_string(p) + ") float64 on " + GetParam().label;
    const Tensor want = x.pow(Scalar(p));
    reset_report();
    const Tensor got = xd.pow(Scalar(p));
    if (is_vulkan(device())) concord::test::expect_ran_on_device("pow", device(), float64, what, true);
    EXPECT_EQ(first_difference(got, want), "") << what;
  }
}

CONCORD_INSTANTIATE_DEVICES(ReproducibleVulkanPow64);

}  // namespace
