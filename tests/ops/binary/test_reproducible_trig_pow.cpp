// The reproducible mode's float32 sin, cos, tan, pow and atan2 (issue 18;
// src/backend/common/canon_trig.h and canon_pow.h): on the CPU within half an
// ULP (plus 2^-10) of a long double reference over a million float32 bit
// patterns of every exponent, the C library's results on special values
// (signed zeros, infinities, NaN, subnormals, the overflow edges), and on every
// device that claims them the CPU's bits, halves, views and pow(tensor, number)
// included.
#include <gtest/gtest.h>

#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "concord/concord.h"
#include "support/bits.h"
#include "support/devices.h"

using namespace concord;

namespace {

using concord::test::first_difference;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr double kBound = 0.5 + 1.0 / 1024;  // ULP: the rounding plus the algorithm's error

// Values that exercise the edge cases of all five functions.
const std::vector<float>& special_values() {
  static const std::vector<float> v = {
      0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 2.0f, -2.0f, 3.0f, -3.0f, 1.5f, -2.5f, kInf, -kInf, kNan,
      FLT_MAX, -FLT_MAX, FLT_MIN, -FLT_MIN, 0x1p-149f, -0x1p-149f, 0x1.fffffep-127f, 0x1p24f, -0x1p24f,
      0x1.fffffep23f, -0x1.000002p23f, 0x1.000002p0f, 0x1.fffffep-1f, 0.785398185f, 1.57079637f, 3.14159274f,
      0x1.921fb6p+1f, 12867.0f, 88.7f, -103.9f, 128.0f, -149.0f, -150.0f, 127.99f, 0.33333334f, 1e30f, -1e30f};
  return v;
}

// A million float32 bit patterns over every exponent and both signs (no inf/NaN).
std::vector<float> patterns() {
  std::vector<float> v;
  for (uint32_t i = 0; i < (1u << 20); ++i) {
    const uint32_t u = (i * 4099u + 0x9e3779b9u * (i & 1)) % 0x7f800000u;
    v.push_back(std::bit_cast<float>(u | ((i & 2u) << 30)));
  }
  return v;
}

Tensor tensor_of(const std::vector<float>& v) { return from_host(v.data(), {static_cast<int64_t>(v.size())}, float32, kCPU); }

std::vector<float> values(const Tensor& t) {
  const Tensor h = t.to(kCPU).to(float32).contiguous();
  std::vector<float> v(static_cast<size_t>(h.numel()));
  if (!v.empty()) std::memcpy(v.data(), h.raw_data(), v.size() * sizeof(float));
  return v;
}

// |got - ref| in ULPs of float32 at ref (subnormal spacing below FLT_MIN); an
// out-of-range ref must give the infinity of its sign.
double ulps(float got, long double ref) {
  if (std::isnan(ref)) return std::isnan(got) ? 0.0 : 1e30;
  if (std::fabs(ref) > static_cast<long double>(FLT_MAX) * (1.0L + 0x1p-24L))
    return std::isinf(got) && (got > 0) == (ref > 0) ? 0.0 : 1e30;
  if (std::isnan(got) || std::isinf(got)) return 1e30;
  int e = 0;
  std::frexp(static_cast<double>(std::fabs(ref)), &e);
  const long double ulp = std::ldexp(1.0L, std::max(e - 24, -149));
  return static_cast<double>(std::fabs(static_cast<long double>(got) - ref) / ulp);
}

// The bits of a float result as the mode promises them: the C library's value, NaN canonical.
uint32_t mode_bits(float f) { return std::isnan(f) ? 0x7fc00000u : std::bit_cast<uint32_t>(f); }

// (x, y) pairs for pow: random bits, moderate exponents, bases near 1 with huge
// exponents (the cancellation region of y log x), integer exponents of negative bases.
void pow_pairs(std::vector<float>& xs, std::vector<float>& ys) {
  uint64_t s = 0x243F6A8885A308D3ull;
  auto next = [&s] { s = s * 6364136223846793005ull + 1442695040888963407ull; return static_cast<uint32_t>(s >> 32); };
  for (int i = 0; i < (1 << 20); ++i) {
    float x = std::bit_cast<float>(next()), y = std::bit_cast<float>(next());
    switch (i % 4) {
      case 1: x = std::fabs(x); y = std::ldexp(static_cast<float>(next() % 1000000) / 1e6f - 0.5f, static_cast<int>(next() % 10)); break;
      case 2:
        x = 1.0f + std::ldexp(static_cast<float>(static_cast<int>(next() % 2000) - 1000), -23);
        y = std::ldexp(static_cast<float>(next() % 1000000) / 1e6f, 24 + static_cast<int>(next() % 8)) * (next() & 1 ? -1.0f : 1.0f);
        break;
      case 3:
        x = std::ldexp(0.5f + static_cast<float>(next() % 16777216) / 33554432.0f, static_cast<int>(next() % 60) - 30) * (next() & 1 ? -1.0f : 1.0f);
        y = static_cast<float>(static_cast<int>(next() % 60) - 30);
        break;
      default: break;
    }
    xs.push_back(x);
    ys.push_back(y);
  }
}

TEST(ReproducibleTrigPowCpu, SinCosTanWithinHalfAnUlpOverEveryExponent) {
  const std::vector<float> v = patterns();
  const Tensor x = tensor_of(v);
  ReproducibleGuard g(true);
  const std::vector<float> s = values(sin(x)), c = values(cos(x)), t = values(tan(x));
  double worst[3] = {0, 0, 0};
  for (size_t i = 0; i < v.size(); ++i) {
    const long double xl = v[i];
    worst[0] = std::max(worst[0], ulps(s[i], std::sin(xl)));
    worst[1] = std::max(worst[1], ulps(c[i], std::cos(xl)));
    worst[2] = std::max(worst[2], ulps(t[i], std::tan(xl)));
  }
  EXPECT_LE(worst[0], kBound) << "sin";
  EXPECT_LE(worst[1], kBound) << "cos";
  EXPECT_LE(worst[2], kBound) << "tan";
}

// Special values, tiny and huge arguments: the C library's results (signed zeros included).
TEST(ReproducibleTrigPowCpu, SinCosTanSpecialValuesAsTheCLibrary) {
  const std::vector<float>& v = special_values();
  const Tensor x = tensor_of(v);
  ReproducibleGuard g(true);
  const std::vector<float> s = values(sin(x)), c = values(cos(x)), t = values(tan(x));
  for (size_t i = 0; i < v.size(); ++i) {
    const float f = v[i];
    if (std::isnan(f) || std::isinf(f) || f == 0.0f || std::fabs(f) < 0x1p-12f) {
      EXPECT_EQ(mode_bits(s[i]), mode_bits(std::sin(f))) << "sin(" << f << ")";
      EXPECT_EQ(mode_bits(c[i]), mode_bits(std::cos(f))) << "cos(" << f << ")";
      EXPECT_EQ(mode_bits(t[i]), mode_bits(std::tan(f))) << "tan(" << f << ")";
    } else {
      EXPECT_LE(ulps(s[i], std::sin(static_cast<long double>(f))), kBound) << "sin(" << f << ")";
      EXPECT_LE(ulps(c[i], std::cos(static_cast<long double>(f))), kBound) << "cos(" << f << ")";
      EXPECT_LE(ulps(t[i], std::tan(static_cast<long double>(f))), kBound) << "tan(" << f << ")";
    }
  }
}

TEST(ReproducibleTrigPowCpu, PowAndAtan2WithinHalfAnUlp) {
  std::vector<float> xs, ys;
  pow_pairs(xs, ys);
  const Tensor x = tensor_of(xs), y = tensor_of(ys);
  const std::vector<float> ad = values(atan2(x, y));  // the default mode runs the same atan2
  ReproducibleGuard g(true);
  const std::vector<float> p = values(pow(x, y)), a = values(atan2(x, y));
  double worst_pow = 0, worst_atan2 = 0, worst_default = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const long double xl = xs[i], yl = ys[i];
    const long double r = std::pow(xl, yl);
    if (std::isnan(r)) EXPECT_TRUE(std::isnan(p[i])) << "pow(" << xs[i] << ", " << ys[i] << ")";
    else worst_pow = std::max(worst_pow, ulps(p[i], r));
    worst_atan2 = std::max(worst_atan2, ulps(a[i], std::atan2(xl, yl)));
    worst_default = std::max(worst_default, ulps(ad[i], std::atan2(xl, yl)));
  }
  EXPECT_LE(worst_pow, kBound);
  EXPECT_LE(worst_atan2, kBound);
  EXPECT_LE(worst_default, kBound) << "atan2 outside the mode";
}

// pow(tensor, number): the number's full double value (1/3 is not float(1/3)).
TEST(ReproducibleTrigPowCpu, PowOfANumberWithinHalfAnUlpOfTheDoubleExponent) {
  std::vector<float> v;
  for (uint32_t u = 0; u < 0xff800000u; u += 4099u)
    if (u < 0x7f800000u || u >= 0x80000000u) v.push_back(std::bit_cast<float>(u));
  const Tensor x = tensor_of(v);
  ReproducibleGuard g(true);
  for (double e : {1.0 / 3, -1.0 / 3, 0.1, 2.5, -2.5, 3.0, -3.0, 0.5, 1e-10, 123.456789, 1e9 + 0.5, 1e17, -1e300}) {
    const std::vector<float> p = values(x.pow(Scalar(e)));
    double worst = 0;
    for (size_t i = 0; i < v.size(); ++i) {
      const long double r = std::pow(static_cast<long double>(v[i]), static_cast<long double>(e));
      if (std::isnan(r)) EXPECT_TRUE(std::isnan(p[i])) << v[i] << " ** " << e;
      else worst = std::max(worst, ulps(p[i], r));
    }
    EXPECT_LE(worst, kBound) << "exponent " << e;
  }
}

// Every pair of special values: the C library's pow and atan2 where the result
// is 0, ±inf, NaN or an input is special, within the bound elsewhere.
TEST(ReproducibleTrigPowCpu, PowAndAtan2SpecialValuesAsTheCLibrary) {
  const std::vector<float>& s = special_values();
  std::vector<float> xs, ys;
  for (float a : s)
    for (float b : s) xs.push_back(a), ys.push_back(b);
  const Tensor x = tensor_of(xs), y = tensor_of(ys);
  ReproducibleGuard g(true);
  const std::vector<float> p = values(pow(x, y)), a = values(atan2(x, y));
  // C99's special cases (the C library's float atan2 is not correctly rounded elsewhere: atan2(1, -1e-45))
  auto special = [](float f) { return f == 0.0f || std::isinf(f) || std::isnan(f); };
  auto edge = [&special](float f) { return special(f) || std::fabs(f) == 1.0f; };
  auto hex = [](float f) { char b[32]; std::snprintf(b, sizeof b, "%a", static_cast<double>(f)); return std::string(b); };
  for (size_t i = 0; i < xs.size(); ++i) {
    const float lp = std::pow(xs[i], ys[i]), la = std::atan2(xs[i], ys[i]);
    const std::string what = "(" + hex(xs[i]) + ", " + hex(ys[i]) + ")";
    if (edge(xs[i]) || edge(ys[i]) || edge(lp)) EXPECT_EQ(mode_bits(p[i]), mode_bits(lp)) << "pow" << what;
    else EXPECT_LE(ulps(p[i], std::pow(static_cast<long double>(xs[i]), static_cast<long double>(ys[i]))), kBound) << "pow" << what;
    if (special(xs[i]) || special(ys[i])) EXPECT_EQ(mode_bits(a[i]), mode_bits(la)) << "atan2" << what;
    else EXPECT_LE(ulps(a[i], std::atan2(static_cast<long double>(xs[i]), static_cast<long double>(ys[i]))), kBound) << "atan2" << what;
  }
  // pow(tensor, number) keeps the C99 cases too: x ** 0 = 1 and 1 ** NaN = 1, even for NaN.
  const Tensor sx = tensor_of(s);
  for (double e : {0.0, -0.0, 1.0, -1.0, 3.0, -3.0, 0.5, -0.5, 2.0, double(kInf), -double(kInf), double(kNan)}) {
    const std::vector<float> p = values(sx.pow(Scalar(e)));
    for (size_t i = 0; i < s.size(); ++i)
      if (edge(s[i]) || e == 0.0 || std::isinf(e) || std::isnan(e))
        EXPECT_EQ(mode_bits(p[i]), mode_bits(static_cast<float>(std::pow(static_cast<double>(s[i]), e)))) << s[i] << " ** " << e;
  }
}

class ReproducibleTrigPow : public concord::test::DeviceTest {
 protected:
  bool claims(OpId op) const { return capabilities(device()).has_reproducible_kernel(op, float32); }
};

// OpenCL claims the five ops with float64 (the shared code computes in
// double) and without it (kernels/xmath.cl: the same code on bits), so under
// a no-fp64 profile too.
TEST_P(ReproducibleTrigPow, OpenClClaimsThemWithAndWithoutFloat64) {
  if (device().kind() != DeviceKind("opencl")) GTEST_SKIP() << GetParam().label << " is not an OpenCL device";
  for (OpId op : {OpId::sin, OpId::cos, OpId::tan, OpId::pow, OpId::atan2})
    for (Dtype t : {float32, float16, bfloat16})
      EXPECT_TRUE(capabilities(device()).has_reproducible_kernel(op, t)) << op_name(op) << " " << name(t);
  for (Dtype t : {uint8, int8, int16, int32, int64})  // integer pow is exact: claimed with or without float64
    EXPECT_TRUE(capabilities(device()).has_reproducible_kernel(OpId::pow, t)) << name(t);
}

// Integer pow wraps as the CPU's loop does (negative exponents: 1, ±1 or 0).
TEST_P(ReproducibleTrigPow, IntegerPowGivesTheCpusBits) {
  std::vector<int64_t> xs, ys;
  for (int64_t a = -20; a <= 20; ++a)
    for (int64_t b = -3; b <= 70; ++b) xs.push_back(a), ys.push_back(b);
  const int64_t n = static_cast<int64_t>(xs.size());
  const Tensor x = from_host(xs.data(), {n}, int64, kCPU), y = from_host(ys.data(), {n}, int64, kCPU);
  ReproducibleGuard g(true);
  int checked = 0;
  for (Dtype t : {int8, int16, int32, int64, uint8}) {
    if (!capabilities(device()).has_reproducible_kernel(OpId::pow, t) || !concord::test::can_store(GetParam(), t)) continue;
    const Tensor xt = x.to(t), yt = t == uint8 ? y.abs().to(t) : y.to(t);
    EXPECT_EQ(first_difference(pow(xt.to(device()), yt.to(device())), pow(xt, yt)), "") << name(t);
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << GetParam().label << " claims no integer pow: it runs on the CPU in the mode";
}

TEST_P(ReproducibleTrigPow, SinCosTanGiveTheCpusBits) {
  if (!claims(OpId::sin) && !claims(OpId::cos) && !claims(OpId::tan))
    GTEST_SKIP() << GetParam().label << " claims none of sin, cos, tan: they run on the CPU in the mode";
  std::vector<float> v = patterns();
  v.insert(v.end(), special_values().begin(), special_values().end());
  v.resize(1024 * (v.size() / 1024));
  const Tensor x = tensor_of(v), xd = x.to(device());
  // a transposed view and a broadcast row
  const Tensor xt = x.reshape({1024, -1}).transpose(0, 1), xtd = xd.reshape({1024, -1}).transpose(0, 1);
  const Tensor row = x.narrow(0, 0, 4096).reshape({1, 4096}).expand({64, 4096});
  const Tensor rowd = xd.narrow(0, 0, 4096).reshape({1, 4096}).expand({64, 4096});
  ReproducibleGuard g(true);
  for (OpId op : {OpId::sin, OpId::cos, OpId::tan}) {
    if (!claims(op)) continue;
    auto f = [op](const Tensor& t) { return op == OpId::sin ? sin(t) : op == OpId::cos ? cos(t) : tan(t); };
    EXPECT_EQ(first_difference(f(xd), f(x)), "") << op_name(op);
    EXPECT_EQ(first_difference(f(xtd), f(xt)), "") << op_name(op) << " transposed";
    EXPECT_EQ(first_difference(f(rowd), f(row)), "") << op_name(op) << " broadcast";
    for (Dtype t : {float16, bfloat16})
      if (concord::test::can_store(GetParam(), t))
        EXPECT_EQ(first_difference(f(xd.to(t)), f(x.to(t))), "") << op_name(op) << " " << name(t);
  }
}

TEST_P(ReproducibleTrigPow, PowAndAtan2GiveTheCpusBits) {
  if (!claims(OpId::pow) && !claims(OpId::atan2))
    GTEST_SKIP() << GetParam().label << " claims neither pow nor atan2: they run on the CPU in the mode";
  // lavapipe takes about 25 s per config for this million pairs (doubles on bits)
  if (device().kind().name() == "vulkan")
    GTEST_SKIP() << "Vulkan's pow and atan2: test_reproducible_vulkan_pow.cpp, on a set sized for lavapipe";
  std::vector<float> xs, ys;
  pow_pairs(xs, ys);
  for (float a : special_values())
    for (float b : special_values()) xs.push_back(a), ys.push_back(b);
  xs.resize(512 * (xs.size() / 512));
  ys.resize(xs.size());
  const Tensor x = tensor_of(xs), y = tensor_of(ys), xd = x.to(device()), yd = y.to(device());
  const Tensor xm = x.reshape({512, -1}), ym = y.reshape({512, -1}).narrow(0, 0, 1);  // y broadcast over rows
  const Tensor xmd = xm.to(device()), ymd = ym.to(device());
  ReproducibleGuard g(true);
  for (OpId op : {OpId::pow, OpId::atan2}) {
    if (!claims(op)) continue;
    auto f = [op](const Tensor& a, const Tensor& b) { return op == OpId::pow ? pow(a, b) : atan2(a, b); };
    EXPECT_EQ(first_difference(f(xd, yd), f(x, y)), "") << op_name(op);
    EXPECT_EQ(first_difference(f(xmd, ymd), f(xm, ym)), "") << op_name(op) << " broadcast";
    EXPECT_EQ(first_difference(f(xmd.transpose(0, 1), ymd.expand(xm.shape()).transpose(0, 1)),
                               f(xm.transpose(0, 1), ym.expand(xm.shape()).transpose(0, 1))), "")
        << op_name(op) << " transposed";
    for (Dtype t : {float16, bfloat16})
      if (concord::test::can_store(GetParam(), t))
        EXPECT_EQ(first_difference(f(xd.to(t), yd.to(t)), f(x.to(t), y.to(t))), "") << op_name(op) << " " << name(t);
  }
  if (!claims(OpId::pow)) return;
  // pow(tensor, number) takes the same shared code with the double exponent.
  for (double e : {1.0 / 3, -2.5, 0.1, 3.0, -3.0, 1e9 + 0.5, 0.0, double(kNan), -double(kInf)}) {
    EXPECT_EQ(first_difference(xd.pow(Scalar(e)), x.pow(Scalar(e))), "") << "pow(x, " << e << ")";
    EXPECT_EQ(first_difference(xmd.transpose(0, 1).pow(Scalar(e)), xm.transpose(0, 1).pow(Scalar(e))), "")
        << "pow(x, " << e << ") transposed";
    if (concord::test::can_store(GetParam(), float16))
      EXPECT_EQ(first_difference(xd.to(float16).pow(Scalar(e)), x.to(float16).pow(Scalar(e))), "") << "float16 pow(x, " << e << ")";
  }
}

}  // namespace

CONCORD_INSTANTIATE_DEVICES(ReproducibleTrigPow);
