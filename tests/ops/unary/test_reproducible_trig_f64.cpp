// The reproducible mode's float64 sin, cos and tan (backend/common/canon_trig_f64.h):
// every device that claims them gives the CPU's bits over ~1M float64 bit
// patterns on every exponent, near multiples of pi/2 and through transposed
// and broadcast views; on the CPU the results are within 1 ULP of long double
// references (measured: sin 0.511, cos 0.511, tan 0.518 ULP), also at the hard
// cases checked against mpmath, and the special values are the C library's.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "backend/common/canon_trig_f64.h"
#include "concord/concord.h"
#include "concord/op_table.h"
#include "support/bits.h"
#include "support/devices.h"

using namespace concord;

namespace {

using concord::test::first_difference;
using concord::test::ulps_f64;

constexpr OpId kOps[] = {OpId::sin, OpId::cos, OpId::tan};

Tensor apply(OpId op, const Tensor& x) {
  switch (op) {
    case OpId::sin: return sin(x);
    case OpId::cos: return cos(x);
    default: return tan(x);
  }
}

// An independent reference in long double (64-bit significand on x86; glibc
// reduces huge arguments exactly in long double too).
long double reference(OpId op, long double x) {
  switch (op) {
    case OpId::sin: return sinl(x);
    case OpId::cos: return cosl(x);
    default: return tanl(x);
  }
}

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kMin = std::numeric_limits<double>::denorm_min();
const double kMax = std::numeric_limits<double>::max();

// ~1M arguments: bit patterns over every exponent, a dense sweep of
// [-64, 64], significands on every exponent up to 1023, the doubles nearest
// to k pi/2 (both reductions, +-3 ULP), then the branch points and specials.
std::vector<double> arguments() {
  std::vector<double> v;
  uint64_t s = 0x9e3779b97f4a7c15ull;
  auto next = [&s] { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s; };
  for (int i = 0; i < (1 << 19); ++i) {
    const double x = std::bit_cast<double>(next());
    if (!std::isnan(x)) v.push_back(x);
  }
  for (int i = 0; i < (1 << 17); ++i) v.push_back(static_cast<double>(next() >> 11) * 0x1p-53 * 128.0 - 64.0);
  for (int i = 0; i < (1 << 17); ++i) {
    const double m = 1.0 + static_cast<double>(next() >> 12) * 0x1p-52;
    v.push_back(std::ldexp(m, static_cast<int>(next() % 1060) - 36) * ((i & 1) ? -1.0 : 1.0));
  }
  const long double pio2 = 1.5707963267948966192313216916397514L;
  for (int i = 0; i < (1 << 15); ++i) {
    // k below 2^14, then k up to 2^40 (past the Cody-Waite range at 2^20)
    const uint64_t k = i < (1 << 14) ? static_cast<uint64_t>(i + 1) : (next() >> (24 + next() % 40)) + 1;
    double x = static_cast<double>(static_cast<long double>(k) * pio2);
    x = std::nextafter(std::nextafter(std::nextafter(x, 0.0), 0.0), 0.0);
    for (int d = 0; d < 7; ++d, x = std::nextafter(x, kInf)) v.push_back(d & 1 ? -x : x);
  }
  for (double c : {0x1.921fb54442d18p-1, 0x1p20, 0x1p-27})
    for (int i = 0; i < (1 << 10); ++i) v.push_back(c + (static_cast<double>(next() >> 11) * 0x1p-53 - 0.5) * c * 0x1p-20);
  for (double x : {0.0, -0.0, 1.0, -1.0, 0.5, kInf, -kInf, kNaN, kMin, -kMin, 0x1p-1022, -0x1p-1022, kMax, -kMax,
                   0x1p-27, 0x1.fffffffffffffp-28, 0x1p1023, 1e22, 0x1.6ac5b262ca1ffp+849, -0x1.6ac5b262ca1ffp+849})
    v.push_back(x);
  return v;
}

class ReproducibleTrigF64 : public concord::test::DeviceTest {};

TEST_P(ReproducibleTrigF64, SameBitsAsTheCpuOverEveryExponentAndView) {
  // Vulkan's variant on bits: lavapipe took ~18 s for these values;
  // test_reproducible_vulkan_trig64.cpp checks the same shader code compiled
  // as C++ over about a million values and on the device over a few thousand.
  if (device().kind().name() == "vulkan")
    GTEST_SKIP() << "covered on Vulkan by test_reproducible_vulkan_trig64 (the shader's C++ build and a device check)";
  const Capabilities& caps = capabilities(device());
  const bool opencl = GetParam().label.rfind("opencl", 0) == 0;
  std::vector<double> v = arguments();
  const int64_t rows = (static_cast<int64_t>(v.size()) + 1023) / 1024;  // rows x 1024 for the transposed view
  v.resize(static_cast<size_t>(rows * 1024), 0.75);
  const Tensor x = from_host(v.data(), {rows, 1024}, float64, kCPU);
  const Tensor row = from_host(v.data() + v.size() - 100000, {1, 1024}, float64, kCPU);  // near multiples of pi/2
  ReproducibleGuard g(true);
  int checked = 0;
  for (OpId op : kOps) {
    // OpenCL with float64 runs the shared algorithm in the mode: it must claim the op.
    if (opencl && caps.has_kernel(op, float64)) EXPECT_TRUE(caps.has_reproducible_kernel(op, float64)) << op_name(op);
    if (!caps.has_reproducible_kernel(op, float64)) continue;
    ++checked;
    const Tensor xd = x.to(device());
    EXPECT_EQ(first_difference(apply(op, xd), apply(op, x)), "") << op_name(op);
    EXPECT_EQ(first_difference(apply(op, xd.t()), apply(op, x.t())), "") << op_name(op) << " transposed";
    EXPECT_EQ(first_difference(apply(op, row.to(device()).expand({3, 1024})), apply(op, row.expand({3, 1024}))), "")
        << op_name(op) << " broadcast";
  }
  if (checked == 0) GTEST_SKIP() << GetParam().label << " claims none of them for float64: they run on the CPU in the mode";
}

CONCORD_INSTANTIATE_DEVICES(ReproducibleTrigF64);

// The CPU in the mode: within 1 ULP of long double over every argument.
TEST(ReproducibleTrigF64Cpu, WithinOneUlpOfLongDouble) {
  const std::vector<double> v = arguments();
  const Tensor x = from_host(v.data(), {static_cast<int64_t>(v.size())}, float64, kCPU);
  ReproducibleGuard g(true);
  for (OpId op : kOps) {
    const std::vector<double> y = apply(op, x).to_vector<double>();
    double worst = 0.0, at = 0.0;
    for (size_t i = 0; i < v.size(); ++i) {
      const double u = ulps_f64(y[i], reference(op, v[i]));
      if (u > worst) worst = u, at = v[i];
    }
    EXPECT_LE(worst, 1.0) << op_name(op) << " at x = " << std::hexfloat << at;
    std::printf("  %-4s max %.3f ULP over %zu arguments\n", std::string(op_name(op)).c_str(), worst, v.size());
  }
}

// Arguments very close to a multiple of pi/2 (the first is the closest double
// of all, about 2^-61 away), against values from mpmath at 4000 bits.
TEST(ReproducibleTrigF64Cpu, HardCasesAgainstMpmath) {
  struct Hard { double x; long double s, c, t; };
  const Hard cases[] = {
      {0x1.6ac5b262ca1ffp+849, 1.0L, -4.68716592425462761112258e-19L, -2.13348538575370384367485e+18L},
      {0x1.fffffffffffffp+1023, 4.96195478918406179050267e-3L, -9.9998768942655993746487e-1L, -4.96201587444489490050088e-3L},
      {0x1.921fb54442d18p+0, 1.0L, 6.12323399573676588613033e-17L, 1.63312393531953697559677e+16L},
      {0x1.921fb54442d18p+1, 1.22464679914735317722607e-16L, -1.0L, -1.22464679914735317722607e-16L},
      {0x1p+20, 3.30493140021734671639731e-1L, 9.43808393901311984006163e-1L, 3.50169740126609033479208e-1L},
      {0x1.b1f3ec0c0f7b5p+500, -8.0948081183569885879218e-1L, -5.87146332075589056359938e-1L, 1.37866962222883566104913L},
      {0x1.0p+1000, -1.59201703086242438240049e-1L, 9.87246077598913484239902e-1L, -1.6125837995065805669534e-1L},
      {0x1.6c6cbc45dc8dep+25, 6.49048239991273763650999e-13L, 1.0L, 6.49048239991273763650999e-13L},
  };
  for (const Hard& h : cases) {
    for (double sign : {1.0, -1.0}) {
      const double x = sign * h.x;
      EXPECT_LE(ulps_f64(concord_sin_f64(x), sign * h.s), 0.51) << std::hexfloat << "sin " << x;
      EXPECT_LE(ulps_f64(concord_cos_f64(x), h.c), 0.51) << std::hexfloat << "cos " << x;
      EXPECT_LE(ulps_f64(concord_tan_f64(x), sign * h.t), 0.51) << std::hexfloat << "tan " << x;
    }
  }
}

// The wiring: in the mode the CPU's kernels give the shared functions' bits
// (through a strided view too); outside it they keep the C library's.
TEST(ReproducibleTrigF64Cpu, TheModeRunsTheSharedAlgorithms) {
  double (*const shared[])(double) = {concord_sin_f64, concord_cos_f64, concord_tan_f64};
  double (*const libm[])(double) = {[](double v) { return std::sin(v); }, [](double v) { return std::cos(v); },
                                    [](double v) { return std::tan(v); }};
  std::vector<double> v = arguments();
  v.resize(size_t{1} << 18);
  const Tensor x = from_host(v.data(), {512, 512}, float64, kCPU);
  const std::vector<double> xt = x.t().contiguous().to_vector<double>();
  for (size_t i = 0; i < std::size(kOps); ++i) {
    std::vector<double> mode, mode_t, plain;
    {
      ReproducibleGuard g(true);
      mode = apply(kOps[i], x).to_vector<double>();
      mode_t = apply(kOps[i], x.t()).to_vector<double>();
    }
    {
      ReproducibleGuard g(false);
      plain = apply(kOps[i], x).to_vector<double>();
    }
    int64_t bad_mode = 0, bad_plain = 0;
    for (size_t j = 0; j < v.size(); ++j) {
      auto same = [](double a, double b) { return (std::isnan(a) && std::isnan(b)) || std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b); };
      bad_mode += !same(mode[j], shared[i](v[j])) + !same(mode_t[j], shared[i](xt[j]));
      bad_plain += !same(plain[j], libm[i](v[j]));
    }
    EXPECT_EQ(bad_mode, 0) << op_name(kOps[i]) << " in the mode";
    EXPECT_EQ(bad_plain, 0) << op_name(kOps[i]) << " outside the mode";
  }
}

// Special values are the C library's, signed zeros included, in both modes.
TEST(ReproducibleTrigF64Cpu, SpecialValuesAreTheCLibrarys) {
  struct Case { OpId op; double x, want; };
  const Case cases[] = {
      {OpId::sin, 0.0, 0.0}, {OpId::sin, -0.0, -0.0}, {OpId::sin, kMin, kMin}, {OpId::sin, -kMin, -kMin},
      {OpId::sin, 0x1p-1022, 0x1p-1022}, {OpId::sin, -0x1p-30, -0x1p-30},
      {OpId::cos, 0.0, 1.0}, {OpId::cos, -0.0, 1.0}, {OpId::cos, kMin, 1.0}, {OpId::cos, -0x1p-30, 1.0},
      {OpId::tan, 0.0, 0.0}, {OpId::tan, -0.0, -0.0}, {OpId::tan, kMin, kMin}, {OpId::tan, -kMin, -kMin},
      {OpId::tan, -0x1p-30, -0x1p-30},
  };
  for (bool mode : {true, false}) {
    ReproducibleGuard g(mode);
    for (const Case& c : cases) {
      const double got = apply(c.op, from_host(&c.x, {1}, float64, kCPU)).item<double>();
      EXPECT_EQ(std::bit_cast<uint64_t>(got), std::bit_cast<uint64_t>(c.want))
          << op_name(c.op) << "(" << c.x << ") = " << got << ", mode " << mode;
    }
    for (double bad : {kNaN, kInf, -kInf})
      for (OpId op : kOps)
        EXPECT_TRUE(std::isnan(apply(op, from_host(&bad, {1}, float64, kCPU)).item<double>())) << op_name(op) << "(" << bad << ")";
  }
  // The sign is odd for sin and tan, even for cos, at every argument.
  for (double x : arguments()) {
    if (!std::isfinite(x)) continue;
    ASSERT_EQ(std::bit_cast<uint64_t>(concord_sin_f64(-x)), std::bit_cast<uint64_t>(-concord_sin_f64(x))) << std::hexfloat << x;
    ASSERT_EQ(std::bit_cast<uint64_t>(concord_cos_f64(-x)), std::bit_cast<uint64_t>(concord_cos_f64(x))) << std::hexfloat << x;
    ASSERT_EQ(std::bit_cast<uint64_t>(concord_tan_f64(-x)), std::bit_cast<uint64_t>(-concord_tan_f64(x))) << std::hexfloat << x;
  }
}

}  // namespace
