// The reproducible mode's float64 pow and atan2 (backend/common/canon_pow_f64.h)
// and erf and gelu (canon_f64_erf.h):
// every device that claims them gives the CPU's bits over ~1M argument pairs
// (every exponent, results across the whole range, x near 1 with large y,
// negative bases with integer exponents), through transposed and broadcast
// views and pow(tensor, number); on the CPU the results are within 1 ULP of
// long double powl / atan2l, and the special values are the C library's
// (C99 Annex F), signed zeros included.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "backend/common/canon_f64_erf.h"
#include "backend/common/canon_pow_f64.h"
#include "concord/concord.h"
#include "support/bits.h"
#include "support/devices.h"

using namespace concord;

namespace {

using concord::test::first_difference;
using concord::test::ulps_f64;

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kMin = std::numeric_limits<double>::denorm_min();
const double kMax = std::numeric_limits<double>::max();

// Values that exercise every row of C99's pow and atan2 tables: zeros,
// infinities, NaN, +-1, odd and even integers (large ones too), non-integers,
// subnormals, the largest finite.
const std::vector<double>& special_values() {
  static const std::vector<double> v = {
      0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, 1.5, -2.5, kInf, -kInf, kNaN, kMax, -kMax,
      0x1p-1022, -0x1p-1022, kMin, -kMin, 0x1p53, -0x1p53, 0x1.fffffffffffffp52, -0x1.fffffffffffffp52,
      0x1p63, 1075.0, -1075.0, 1024.0, -1074.0, 0x1.0000000000001p0, 0x1.fffffffffffffp-1, 0.1, -1e300};
  return v;
}

// ~1M pairs (x, y): random bit patterns; results spread over the whole range
// (y = t / ln|x| for t in [-760, 760]); x near 1 with large |y|; negative
// bases with integer exponents; small integers both ways; every pair of the
// special values.
void pairs(std::vector<double>& xs, std::vector<double>& ys) {
  uint64_t s = 0x9e3779b97f4a7c15ull;
  auto next = [&s] { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s; };
  auto unit = [&] { return static_cast<double>(next() >> 11) * 0x1p-53; };
  for (int i = 0; i < (1 << 18); ++i) {
    const double x = std::bit_cast<double>(next()), y = std::bit_cast<double>(next());
    xs.push_back(std::isnan(x) ? 1.5 : x);
    ys.push_back(std::isnan(y) ? -0.75 : y);
  }
  for (int i = 0; i < (1 << 18); ++i) {
    double x = std::ldexp(1.0 + unit(), static_cast<int>(next() % 2098) - 1074);
    if (x == 1.0) x = 3.0;
    double y = (unit() * 1520.0 - 760.0) / std::log(x);
    if (i & 1) x = -x, y = std::nearbyint(y);
    xs.push_back(x);
    ys.push_back(y);
  }
  for (int i = 0; i < (1 << 18); ++i) {
    xs.push_back(1.0 + std::ldexp(static_cast<double>(static_cast<int64_t>(next())), -63 - static_cast<int>(next() % 40)));
    ys.push_back(std::ldexp(unit() - 0.5, static_cast<int>(next() % 90)));
  }
  for (int i = 0; i < (1 << 18); ++i) {
    xs.push_back(std::ldexp(unit() * 2.0 - 1.0, static_cast<int>(next() % 64) - 32));
    ys.push_back(static_cast<double>(static_cast<int64_t>(next() % 256) - 128));
  }
  // atan2's quotient near and below the smallest normal (its remainder is inexact there)
  for (int i = 0; i < (1 << 14); ++i) {
    const int ey = -1074 + static_cast<int>(next() % 800);
    xs.push_back(std::ldexp(1.0 + unit(), ey));
    ys.push_back(std::ldexp(1.0 + unit(), ey + 1000 + static_cast<int>(next() % 60)));
  }
  for (double x : special_values())
    for (double y : special_values()) xs.push_back(x), ys.push_back(y);
}

Tensor vec(const std::vector<double>& v) { return from_host(v.data(), {static_cast<int64_t>(v.size())}, float64, kCPU); }

bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b); }

class ReproduciblePowF64 : public concord::test::DeviceTest {};

// Not on Vulkan: its float64 pow and atan2 run canon_pow_f64.h on integer-
// emulated doubles, far too slow on a software device for a million pairs;
// test_reproducible_vulkan_pow64.cpp checks that shader over as many as C++.
TEST_P(ReproduciblePowF64, SameBitsAsTheCpuOverPairsAndViews) {
  if (GetParam().label.rfind("vulkan", 0) == 0) GTEST_SKIP() << "see test_reproducible_vulkan_pow64.cpp";
  const Capabilities& caps = capabilities(device());
  const bool opencl = GetParam().label.rfind("opencl", 0) == 0;
  std::vector<double> xs, ys;
  pairs(xs, ys);
  const int64_t rows = (static_cast<int64_t>(xs.size()) + 1023) / 1024;  // rows x 1024 for the transposed view
  xs.resize(static_cast<size_t>(rows * 1024), 0.75);
  ys.resize(static_cast<size_t>(rows * 1024), -1.25);
  const Tensor a = from_host(xs.data(), {rows, 1024}, float64, kCPU), b = from_host(ys.data(), {rows, 1024}, float64, kCPU);
  const Tensor col = from_host(xs.data() + 300000, {64, 1}, float64, kCPU), row = from_host(ys.data() + 500000, {1, 1024}, float64, kCPU);
  ReproducibleGuard g(true);
  int checked = 0;
  for (OpId op : {OpId::pow, OpId::atan2}) {
    // OpenCL with float64 runs the shared algorithm in the mode: it must claim the op.
    if (opencl && caps.has_kernel(op, float64)) EXPECT_TRUE(caps.has_reproducible_kernel(op, float64)) << op_name(op);
    if (!caps.has_reproducible_kernel(op, float64)) continue;
    ++checked;
    auto f = [op](const Tensor& p, const Tensor& q) { return op == OpId::pow ? pow(p, q) : atan2(p, q); };
    const Tensor ad = a.to(device()), bd = b.to(device());
    EXPECT_EQ(first_difference(f(ad, bd), f(a, b)), "") << op_name(op);
    EXPECT_EQ(first_difference(f(ad.t(), bd.t()), f(a.t(), b.t())), "") << op_name(op) << " transposed";
    EXPECT_EQ(first_difference(f(col.to(device()), row.to(device())), f(col, row)), "") << op_name(op) << " broadcast";
  }
  if (caps.has_reproducible_kernel(OpId::pow, float64)) {  // pow(tensor, number): the number's full double value
    const Tensor ad = a.to(device());
    for (double e : {0.5, -1.5, 3.0, -3.0, 1.0 / 3.0, 1e10, -1075.0, 0.0, kInf, kNaN})
      EXPECT_EQ(first_difference(ad.pow(Scalar(e)), a.pow(Scalar(e))), "") << "pow(tensor, " << e << ")";
  }
  if (checked == 0) GTEST_SKIP() << GetParam().label << " claims neither for float64: they run on the CPU in the mode";
}

// erf over ~1M float64 values: random bit patterns, a dense sweep of [-7, 7]
// (both of its methods and the switch at 2), tiny and subnormal values.
std::vector<double> erf_arguments() {
  std::vector<double> v;
  uint64_t s = 0x2545f4914f6cdd1dull;
  auto next = [&s] { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s; };
  for (int i = 0; i < (1 << 18); ++i) {
    const double x = std::bit_cast<double>(next());
    v.push_back(std::isnan(x) ? 0.25 : x);
  }
  for (int i = 0; i < (1 << 19); ++i) v.push_back(static_cast<double>(next() >> 11) * 0x1p-53 * 14.0 - 7.0);
  for (int i = 0; i < (1 << 18); ++i)
    v.push_back(std::ldexp(static_cast<double>(next() >> 11) * 0x1p-53, -static_cast<int>(next() % 1080)) * ((i & 1) ? -1.0 : 1.0));
  for (double x : {0.0, -0.0, kInf, -kInf, kNaN, kMin, -kMin, 0x1p-1022, 2.0, -2.0, 0x1.fffffffffffffp0, 6.0, -6.0,
                   0x1.7ffffffffffffp2, 0.25, 0.5, 1.0, 1.5, kMax, -kMax})
    v.push_back(x);
  return v;
}

TEST_P(ReproduciblePowF64, ErfGeluSameBitsAsTheCpu) {
  const Capabilities& caps = capabilities(device());
  std::vector<double> v = erf_arguments();
  const int64_t rows = (static_cast<int64_t>(v.size()) + 1023) / 1024;
  v.resize(static_cast<size_t>(rows * 1024), 0.5);
  const Tensor x = from_host(v.data(), {rows, 1024}, float64, kCPU);
  // Vulkan's (xmath64_erf.glsl, integer-emulated doubles) has its own,
  // smaller device test: test_reproducible_vulkan_erf64.cpp.
  if (device().kind().name() == "vulkan") GTEST_SKIP() << "see test_reproducible_vulkan_erf64.cpp";
  ReproducibleGuard g(true);
  int checked = 0;
  for (OpId op : {OpId::erf, OpId::gelu}) {
    if (GetParam().label.rfind("opencl", 0) == 0 && caps.has_kernel(op, float64))
      EXPECT_TRUE(caps.has_reproducible_kernel(op, float64)) << op_name(op);
    if (!caps.has_reproducible_kernel(op, float64)) continue;
    ++checked;
    auto f = [op](const Tensor& t) { return op == OpId::erf ? erf(t) : gelu(t); };
    const Tensor xd = x.to(device());
    EXPECT_EQ(first_difference(f(xd), f(x)), "") << op_name(op);
    EXPECT_EQ(first_difference(f(xd.t()), f(x.t())), "") << op_name(op) << " transposed";
    EXPECT_EQ(first_difference(f(xd.narrow(0, 0, 1).expand({3, 1024})), f(x.narrow(0, 0, 1).expand({3, 1024}))), "")
        << op_name(op) << " broadcast";
  }
  if (checked == 0) GTEST_SKIP() << GetParam().label << " runs float64 erf and gelu on the CPU in the mode";
}

CONCORD_INSTANTIATE_DEVICES(ReproduciblePowF64);

// erf in the mode against long double erfl: 0.51 ULP on normal results, 0.75
// on subnormal ones (rounded twice); the shared function's bits through a
// strided view; the C library's outside the mode; the special values.
TEST(ReproduciblePowF64Cpu, ErfWithinOneUlpAndWired) {
  const std::vector<double> v = erf_arguments();
  const Tensor x = vec(v);
  std::vector<double> mode, plain;
  {
    ReproducibleGuard g(true);
    mode = erf(x).to_vector<double>();
  }
  {
    ReproducibleGuard g(false);
    plain = erf(x).to_vector<double>();
  }
  double worst = 0.0, worst_sub = 0.0, at = 0.0;
  int64_t bad_mode = 0, bad_plain = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    const double u = ulps_f64(mode[i], erfl(static_cast<long double>(v[i])));
    if (std::fabs(v[i]) < 0x1p-1022) worst_sub = std::max(worst_sub, u);
    else if (u > worst) worst = u, at = v[i];
    bad_mode += !same(mode[i], concord_erf_f64(v[i]));
    bad_plain += !same(plain[i], std::erf(v[i]));
  }
  EXPECT_LE(worst, 0.52) << std::hexfloat << "erf(" << at << ")";
  EXPECT_LE(worst_sub, 1.0);
  EXPECT_EQ(bad_mode, 0) << "in the mode";
  EXPECT_EQ(bad_plain, 0) << "outside the mode";
  std::printf("  erf max %.3f ULP (%.3f on subnormal arguments) over %zu values\n", worst, worst_sub, v.size());
  ReproducibleGuard g(true);
  const Tensor xt = from_host(v.data(), {1024, 8}, float64, kCPU).t();  // a strided view
  const std::vector<double> vt = xt.contiguous().to_vector<double>(), et = erf(xt).to_vector<double>();
  for (size_t i = 0; i < vt.size(); ++i) ASSERT_TRUE(same(et[i], concord_erf_f64(vt[i]))) << i;
  struct Case { double x, want; };
  for (const Case& c : {Case{0.0, 0.0}, Case{-0.0, -0.0}, Case{kInf, 1.0}, Case{-kInf, -1.0}, Case{6.0, 1.0},
                        Case{-30.0, -1.0}, Case{kMin, kMin}, Case{-kMin, -kMin}, Case{0.5, 0.5204998778130465}}) {
    const double got = erf(vec({c.x})).item<double>();
    EXPECT_TRUE(same(got, c.want)) << "erf(" << c.x << ") = " << got;
  }
  EXPECT_TRUE(std::isnan(erf(vec({kNaN})).item<double>()));
}

// gelu's reference: x/2 erfc(z) in long double with z = -x/sqrt2 carried in
// two parts (1/sqrt2 to 128 bits) and its rounding corrected to first order,
// so the reference stays good to ~2^-62 up to z = 27.
long double gelu_reference(double x) {
  const long double c = 0.707106781186547524400844362104849039L, c_lo = 0x1.65f626cdd52b0p-66L;
  const long double xl = x, z = -xl * c, z_lo = fmal(-xl, c, -z) - xl * c_lo;
  return xl * 0.5L * (erfcl(z) - z_lo * 1.1283791670955125738961589031215452L * expl(-z * z));
}

// gelu in the mode: within 1 ULP of the reference over [-40, 10], tiny and
// random values (0.51 measured; 0.75 on subnormal results); the shared
// function's bits; the C library's kernel outside the mode; special values.
TEST(ReproduciblePowF64Cpu, GeluWithinOneUlpAndWired) {
  std::vector<double> v = erf_arguments();
  uint64_t s = 77;
  for (int i = 0; i < (1 << 18); ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    v.push_back(static_cast<double>(s >> 11) * 0x1p-53 * 50.0 - 40.0);
  }
  std::vector<double> mode, plain;
  {
    ReproducibleGuard g(true);
    mode = gelu(vec(v)).to_vector<double>();
  }
  {
    ReproducibleGuard g(false);
    plain = gelu(vec(v)).to_vector<double>();
  }
  double worst = 0.0, worst_sub = 0.0, at = 0.0;
  int64_t bad_mode = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    const long double r = gelu_reference(v[i]);
    const double u = ulps_f64(mode[i], std::isinf(v[i]) ? static_cast<long double>(mode[i]) : r);
    if (fabsl(r) < 0x1p-1022L) worst_sub = std::max(worst_sub, u);
    else if (u > worst) worst = u, at = v[i];
    bad_mode += !same(mode[i], concord_gelu_f64(v[i]));
  }
  EXPECT_LE(worst, 0.52) << std::hexfloat << "gelu(" << at << ")";
  EXPECT_LE(worst_sub, 1.0);
  EXPECT_EQ(bad_mode, 0);
  std::printf("  gelu max %.3f ULP (%.3f on subnormal results) over %zu values\n", worst, worst_sub, v.size());
  struct Case { double x, want; };
  for (bool m : {true, false}) {
    ReproducibleGuard g(m);
    for (const Case& c : {Case{0.0, 0.0}, Case{-0.0, -0.0}, Case{kInf, kInf}, Case{-kInf, -0.0}, Case{-50.0, -0.0},
                          Case{20.0, 20.0}, Case{kMax, kMax}})
      EXPECT_TRUE(same(gelu(vec({c.x})).item<double>(), c.want)) << "gelu(" << c.x << "), mode " << m;
    EXPECT_TRUE(std::isnan(gelu(vec({kNaN})).item<double>()));
  }
  // outside the mode: the CPU's default kernel (x/2 erfc(-x/sqrt2) in long double)
  int64_t bad_plain = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    if (std::isinf(v[i])) continue;
    const long double w = v[i];
    bad_plain += !same(plain[i], static_cast<double>(w * 0.5L * erfcl(-w * 0.707106781186547524400844362104849039L)));
  }
  EXPECT_EQ(bad_plain, 0) << "outside the mode";
}

// The CPU in the mode against long double: within 1 ULP (measured about 0.51
// for pow and 0.50 for atan2 on normal results, 0.75 where pow's result is
// subnormal and rounded twice).
TEST(ReproduciblePowF64Cpu, WithinOneUlpOfLongDouble) {
  std::vector<double> xs, ys;
  pairs(xs, ys);
  ReproducibleGuard g(true);
  const std::vector<double> p = pow(vec(xs), vec(ys)).to_vector<double>(), a = atan2(vec(xs), vec(ys)).to_vector<double>();
  double worst_p = 0.0, worst_sub = 0.0, worst_a = 0.0;
  size_t at_p = 0, at_sub = 0, at_a = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const long double xl = xs[i], yl = ys[i], r = powl(xl, yl);
    const double up = ulps_f64(p[i], r), ua = ulps_f64(a[i], atan2l(xl, yl));
    const bool sub = fabsl(r) < 0x1p-1022L;
    if (!sub && up > worst_p) worst_p = up, at_p = i;
    if (sub && up > worst_sub) worst_sub = up, at_sub = i;
    if (ua > worst_a) worst_a = ua, at_a = i;
  }
  // normal results: the rounding plus the algorithm's ~2^-8 ULP; subnormal ones round twice
  EXPECT_LE(worst_p, 0.52) << std::hexfloat << "pow(" << xs[at_p] << ", " << ys[at_p] << ") = " << p[at_p];
  EXPECT_LE(worst_sub, 1.0) << std::hexfloat << "pow(" << xs[at_sub] << ", " << ys[at_sub] << ") = " << p[at_sub];
  EXPECT_LE(worst_a, 0.52) << std::hexfloat << "atan2(" << xs[at_a] << ", " << ys[at_a] << ") = " << a[at_a];
  std::printf("  pow max %.3f ULP (%.3f on subnormal results), atan2 max %.3f ULP over %zu pairs\n", worst_p, worst_sub,
              worst_a, xs.size());
}

// x near 1 with a large exponent and results near the overflow and underflow
// thresholds: the cases that need ln|x| beyond double-double's first word.
TEST(ReproduciblePowF64Cpu, LargeExponentsNearOneAndTheRangeEnds) {
  std::vector<double> xs, ys;
  uint64_t s = 12345;
  auto next = [&s] { s = s * 6364136223846793005ull + 1442695040888963407ull; return s >> 11; };
  for (int i = 0; i < 200000; ++i) {
    const double x = 1.0 + std::ldexp(static_cast<double>(next()) - 0x1p52, -52 - static_cast<int>(next() % 12));
    const double t = (i & 1) ? 709.78 - std::ldexp(static_cast<double>(next()), -60) : -744.4 - static_cast<double>(next() % 100) * 0.003;
    xs.push_back(x == 1.0 ? 1.0 + 0x1p-52 : x);
    ys.push_back(t / std::log(xs.back()));
  }
  ReproducibleGuard g(true);
  const std::vector<double> p = pow(vec(xs), vec(ys)).to_vector<double>();
  double worst = 0.0;
  for (size_t i = 0; i < xs.size(); ++i) worst = std::max(worst, ulps_f64(p[i], powl(static_cast<long double>(xs[i]), static_cast<long double>(ys[i]))));
  EXPECT_LE(worst, 1.0);
  std::printf("  pow near 1 with |y ln x| up to 745: max %.3f ULP\n", worst);
}

// The wiring, also where no device claims the ops: in the mode the CPU's
// kernels (two tensors, a strided view, pow(tensor, number)) give the shared
// functions' bits; outside it they keep the C library's.
TEST(ReproduciblePowF64Cpu, TheModeRunsTheSharedAlgorithms) {
  std::vector<double> xs, ys;
  pairs(xs, ys);
  xs.resize(size_t{1} << 18);
  ys.assign(ys.end() - (1 << 18), ys.end());  // the later, gentler pairs
  const Tensor a = from_host(xs.data(), {512, 512}, float64, kCPU), b = from_host(ys.data(), {512, 512}, float64, kCPU);
  const std::vector<double> at = a.t().contiguous().to_vector<double>(), bt = b.t().contiguous().to_vector<double>();
  const double e = 1.0 / 3.0;
  std::vector<double> mp, mpt, ma, ms, lp, la, ls;
  {
    ReproducibleGuard g(true);
    mp = pow(a, b).to_vector<double>();
    mpt = pow(a.t(), b.t()).to_vector<double>();
    ma = atan2(a, b).to_vector<double>();
    ms = a.pow(Scalar(e)).to_vector<double>();
  }
  {
    ReproducibleGuard g(false);
    lp = pow(a, b).to_vector<double>();
    la = atan2(a, b).to_vector<double>();
    ls = a.pow(Scalar(e)).to_vector<double>();
  }
  int64_t bad_mode = 0, bad_plain = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    bad_mode += !same(mp[i], concord_pow_f64(xs[i], ys[i])) + !same(mpt[i], concord_pow_f64(at[i], bt[i])) +
                !same(ma[i], concord_atan2_f64(xs[i], ys[i])) + !same(ms[i], concord_pow_f64(xs[i], e));
    bad_plain += !same(lp[i], std::pow(xs[i], ys[i])) + !same(la[i], std::atan2(xs[i], ys[i])) + !same(ls[i], std::pow(xs[i], e));
  }
  EXPECT_EQ(bad_mode, 0) << "in the mode";
  EXPECT_EQ(bad_plain, 0) << "outside the mode";
}

// Every pair of the special values: the C library's result, signed zeros and
// infinities included (NaN: any NaN), in the mode and outside it.
TEST(ReproduciblePowF64Cpu, SpecialValuesAreTheCLibrarys) {
  std::vector<double> xs, ys;
  for (double x : special_values())
    for (double y : special_values()) xs.push_back(x), ys.push_back(y);
  for (bool mode : {true, false}) {
    ReproducibleGuard g(mode);
    const std::vector<double> p = pow(vec(xs), vec(ys)).to_vector<double>(), a = atan2(vec(xs), vec(ys)).to_vector<double>();
    for (size_t i = 0; i < xs.size(); ++i) {
      EXPECT_TRUE(same(p[i], std::pow(xs[i], ys[i]))) << "pow(" << xs[i] << ", " << ys[i] << ") = " << p[i] << ", mode " << mode;
      EXPECT_TRUE(same(a[i], std::atan2(xs[i], ys[i]))) << "atan2(" << xs[i] << ", " << ys[i] << ") = " << a[i] << ", mode " << mode;
    }
  }
  // C99 Annex F, spelled out (the rows a library could get wrong).
  struct Case { double x, y, pow, atan2; };
  const double pi = 3.141592653589793, pio2 = pi / 2;
  const Case cases[] = {
      {1.0, kNaN, 1.0, kNaN},         {kNaN, 0.0, 1.0, kNaN},          {kNaN, -0.0, 1.0, kNaN},
      {-1.0, kInf, 1.0, -0.0},        {-1.0, -kInf, 1.0, -pi},         {0.5, kInf, 0.0, 0.0},
      {2.0, kInf, kInf, 0.0},         {0.5, -kInf, kInf, pi},          {2.0, -kInf, 0.0, pi},
      {-0.0, -3.0, -kInf, -pi},       {-0.0, -2.0, kInf, -pi},         {-0.0, -2.5, kInf, -pi},
      {-0.0, 3.0, -0.0, -0.0},        {-0.0, 2.0, 0.0, -0.0},          {0.0, -3.0, kInf, pi},
      {-kInf, 3.0, -kInf, -pio2},     {-kInf, -3.0, -0.0, -pio2},      {-kInf, 2.0, kInf, -pio2},
      {-kInf, -2.0, 0.0, -pio2},      {kInf, -0.5, 0.0, pio2},         {-8.0, 1.0 / 3.0, kNaN, -1.5291537476963082},
      {-2.0, 3.0, -8.0, -0.5880026035475675}, {-2.0, -1075.0, -0.0, -3.1397321906200713}, {2.0, 1024.0, kInf, 0.0019531225164788188},
      {-0.0, -kInf, kInf, -pi},       {kInf, kInf, kInf, pi / 4},      {-kInf, -kInf, 0.0, -3 * pi / 4},
      {0.0, -0.0, 1.0, pi},           {-0.0, 0.0, 1.0, -0.0},          {3.0, 2.0, 9.0, 0.982793723247329},
      {4.0, 0.5, 2.0, 1.446441332248135},
  };
  ReproducibleGuard g(true);
  for (const Case& c : cases) {
    const double p = pow(vec({c.x}), vec({c.y})).item<double>(), a = atan2(vec({c.x}), vec({c.y})).item<double>();
    EXPECT_TRUE(same(p, c.pow)) << "pow(" << c.x << ", " << c.y << ") = " << p;
    EXPECT_TRUE(same(a, c.atan2)) << "atan2(" << c.x << ", " << c.y << ") = " << a;
  }
  // exact powers stay exact
  for (int k = -1074; k <= 1023; ++k) ASSERT_EQ(concord_pow_f64(2.0, k), std::ldexp(1.0, k)) << k;
  for (int k = 0; k <= 33; ++k) ASSERT_EQ(concord_pow_f64(3.0, k), std::pow(3.0, k)) << k;
}

}  // namespace
