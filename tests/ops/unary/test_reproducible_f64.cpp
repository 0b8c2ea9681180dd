// The reproducible mode's float64 exp, expm1, log, log1p, log2, tanh and
// sigmoid (backend/common/canon_f64*.h), and softmax, log_softmax and
// logsumexp built on them: every device that claims them gives the CPU's bits
// over ~1M float64 bit patterns on every exponent, through transposed and
// broadcast views and long rows; on the CPU the results are within 1 ULP of
// long double references, and the special values are the C library's.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "backend/common/canon_f64_log.h"
#include "concord/concord.h"
#include "concord/op_table.h"
#include "support/bits.h"
#include "support/devices.h"

using namespace concord;

namespace {

using concord::test::first_difference;
using concord::test::ulps_f64;

constexpr OpId kOps[] = {OpId::exp, OpId::expm1, OpId::log, OpId::log1p, OpId::log2, OpId::tanh, OpId::sigmoid};

Tensor apply(OpId op, const Tensor& x) {
  switch (op) {
    case OpId::exp: return exp(x);
    case OpId::expm1: return expm1(x);
    case OpId::log: return log(x);
    case OpId::log1p: return log1p(x);
    case OpId::log2: return log2(x);
    case OpId::tanh: return tanh(x);
    default: return sigmoid(x);
  }
}

// An independent reference in long double (64-bit significand on x86).
long double reference(OpId op, long double x) {
  switch (op) {
    case OpId::exp: return expl(x);
    case OpId::expm1: return expm1l(x);
    case OpId::log: return logl(x);
    case OpId::log1p: return log1pl(x);
    case OpId::log2: return log2l(x);
    case OpId::tanh: return tanhl(x);
    default: return 1.0L / (1.0L + expl(-x));
  }
}

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kMin = std::numeric_limits<double>::denorm_min();

// ~1M bit patterns over every exponent, a dense sweep of [-750, 750], the
// cancellation regions (near 0, near 1, near -1) and the branch points, then
// the special values.
std::vector<double> arguments() {
  std::vector<double> v;
  uint64_t s = 0x9e3779b97f4a7c15ull;
  auto next = [&s] { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s; };
  for (int i = 0; i < (1 << 19); ++i) {
    const double x = std::bit_cast<double>(next());
    if (!std::isnan(x)) v.push_back(x);
  }
  for (int i = 0; i < (1 << 18); ++i) v.push_back(static_cast<double>(next() >> 11) * 0x1p-53 * 1500.0 - 750.0);
  for (int i = 0; i < (1 << 17); ++i) {
    const double m = 1.0 + static_cast<double>(next() >> 12) * 0x1p-52;
    v.push_back(std::ldexp(m, static_cast<int>(next() % 80) - 70) * ((i & 1) ? -1.0 : 1.0));
  }
  for (int i = 0; i < (1 << 16); ++i) {
    v.push_back(1.0 + std::ldexp(static_cast<double>(static_cast<int64_t>(next()) >> 20), -62));
    v.push_back(-1.0 + std::ldexp(static_cast<double>(next() >> 12), -60));
  }
  // around the algorithms' branch points (expm1's series, log1p's direct range, the thresholds)
  for (double c : {0.125, -0.125, 0.0625, -0.2929, 0.4142, 709.78, -708.4, -745.13, 40.0, -40.0, 20.0})
    for (int i = 0; i < (1 << 12); ++i) v.push_back(c + (static_cast<double>(next() >> 11) * 0x1p-53 - 0.5) * 0x1p-9);
  for (double x : {0.0, -0.0, 1.0, -1.0, 2.0, 0.5, kInf, -kInf, kNaN, kMin, -kMin, 0x1p-1022, -0x1p-1022,
                   std::numeric_limits<double>::max(), -std::numeric_limits<double>::max(), 709.782712893384,
                   709.7827128933841, -745.1332191019411, -745.1332191019412, -708.4, -37.5, -40.0, 40.0, 20.0,
                   -20.0, 19.06, 0x1p-54, -0x1p-54, 0x1p-28, -0.2929, 0.4142, 0.34657359027997264, -0.34657359027997264})
    v.push_back(x);
  return v;
}

class ReproducibleF64 : public concord::test::DeviceTest {};

TEST_P(ReproducibleF64, SameBitsAsTheCpuOverEveryExponentAndView) {
  // Vulkan's variants on bits: lavapipe took ~50 s per configuration for this
  // million; test_reproducible_vulkan_math64.cpp checks the same shader code
  // compiled as C++ over a million values and on the device over a few thousand.
  if (device().kind().name() == "vulkan")
    GTEST_SKIP() << "covered on Vulkan by test_reproducible_vulkan_math64 (a million values through the C++ build)";
  const Capabilities& caps = capabilities(device());
  const bool opencl = GetParam().label.rfind("opencl", 0) == 0;
  std::vector<double> v = arguments();
  const int64_t rows = (static_cast<int64_t>(v.size()) + 1023) / 1024;  // rows x 1024 for the transposed view
  v.resize(static_cast<size_t>(rows * 1024), 0.75);
  const Tensor x = from_host(v.data(), {rows, 1024}, float64, kCPU);
  const Tensor row = from_host(v.data() + 5000, {1, 1024}, float64, kCPU);
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
    const Tensor b = row.expand({3, 1024});
    EXPECT_EQ(first_difference(apply(op, row.to(device()).expand({3, 1024})), apply(op, b)), "")
        << op_name(op) << " broadcast";
  }
  if (checked == 0) GTEST_SKIP() << GetParam().label << " claims none of them for float64: they run on the CPU in the mode";
}

// softmax, log_softmax and logsumexp of float64 where a device claims them
// (their exp and log are the shared ones): rows longer than one 4096-block,
// a transposed view, the other dim, and a row of -inf (logsumexp's shift is 0).
TEST_P(ReproducibleF64, SoftmaxFamilyOverLongRowsAndViews) {
  const Capabilities& caps = capabilities(device());
  const bool opencl = GetParam().label.rfind("opencl", 0) == 0;
  for (OpId op : {OpId::softmax, OpId::log_softmax, OpId::logsumexp})
    if (opencl && caps.has_kernel(op, float64)) EXPECT_TRUE(caps.has_reproducible_kernel(op, float64)) << op_name(op);
  std::vector<double> v = mul(randn({3, 10007}, float64, kCPU, 29), 30.0).to_vector<double>();
  for (size_t i = 2 * 10007; i < v.size(); ++i) v[i] = -kInf;
  v[5] = 800.0;  // exp(x - max) spans the whole range, subnormals included
  v[6] = -800.0;
  const Tensor x = from_host(v.data(), {3, 10007}, float64, kCPU);
  ReproducibleGuard g(true);
  int checked = 0;
  if (caps.has_reproducible_kernel(OpId::softmax, float64)) {
    ++checked;
    const Tensor xd = x.to(device());
    EXPECT_EQ(first_difference(softmax(xd, 1), softmax(x, 1)), "");
    EXPECT_EQ(first_difference(softmax(xd.t(), 0), softmax(x.t(), 0)), "");
    EXPECT_EQ(first_difference(softmax(xd, 0), softmax(x, 0)), "");
  }
  if (caps.has_reproducible_kernel(OpId::log_softmax, float64)) {
    ++checked;
    const Tensor xd = x.to(device());
    EXPECT_EQ(first_difference(log_softmax(xd, 1), log_softmax(x, 1)), "");
    EXPECT_EQ(first_difference(log_softmax(xd.t(), 0), log_softmax(x.t(), 0)), "");
  }
  if (caps.has_reproducible_kernel(OpId::logsumexp, float64)) {
    ++checked;
    const Tensor xd = x.to(device());
    EXPECT_EQ(first_difference(logsumexp(xd, {1}), logsumexp(x, {1})), "");
    EXPECT_EQ(first_difference(logsumexp(xd, {0}), logsumexp(x, {0})), "");
  }
  if (checked == 0) GTEST_SKIP() << GetParam().label << " claims none of them for float64: they run on the CPU in the mode";
}

CONCORD_INSTANTIATE_DEVICES(ReproducibleF64);

// The CPU's float64 softmax family in the mode against long double: the sum's
// rounding (a few ULP over 10^4 terms) bounds the error, not the exp or log.
TEST(ReproducibleF64Cpu, SoftmaxFamilyCloseToLongDouble) {
  const int64_t n = 10007;
  const std::vector<double> v = mul(randn({2, n}, float64, kCPU, 31), 10.0).to_vector<double>();
  const Tensor x = from_host(v.data(), {2, n}, float64, kCPU);
  ReproducibleGuard g(true);
  const std::vector<double> sm = softmax(x, 1).to_vector<double>(), ls = log_softmax(x, 1).to_vector<double>();
  const std::vector<double> lse = logsumexp(x, {1}).to_vector<double>();
  for (int64_t r = 0; r < 2; ++r) {
    long double m = -INFINITY, s = 0.0L;
    for (int64_t i = 0; i < n; ++i) m = std::max<long double>(m, v[r * n + i]);
    for (int64_t i = 0; i < n; ++i) s += expl(v[r * n + i] - m);
    const long double l = m + logl(s);
    EXPECT_NEAR(lse[r], static_cast<double>(l), 1e-14 * std::fabs(static_cast<double>(l))) << "row " << r;
    for (int64_t i = 0; i < n; i += 97) {
      const long double want = expl(v[r * n + i] - l);
      EXPECT_NEAR(sm[r * n + i], static_cast<double>(want), 1e-13 * static_cast<double>(want)) << "row " << r << " col " << i;
      EXPECT_NEAR(ls[r * n + i], static_cast<double>(v[r * n + i] - l), 1e-13 * std::fabs(static_cast<double>(v[r * n + i] - l)) + 1e-14);
    }
  }
}

// The CPU in the mode: within 1 ULP of long double (the measured maxima are
// about 0.51-0.75 ULP, the larger ones on subnormal results), and the same
// bits through a strided view as through the contiguous tensor.
TEST(ReproducibleF64Cpu, WithinOneUlpOfLongDouble) {
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
    std::printf("  %-8s max %.3f ULP over %zu arguments\n", std::string(op_name(op)).c_str(), worst, v.size());
  }
}

// The wiring, also where no device claims the ops: in the mode the CPU's
// kernels give the shared functions' bits (through a strided view too);
// outside it they keep the C library's.
TEST(ReproducibleF64Cpu, TheModeRunsTheSharedAlgorithms) {
  double (*const shared[])(double) = {concord_exp_f64, concord_expm1_f64, concord_log_f64, concord_log1p_f64,
                                      concord_log2_f64, concord_tanh_f64, concord_sigmoid_f64};
  double (*const libm[])(double) = {[](double v) { return std::exp(v); }, [](double v) { return std::expm1(v); },
                                    [](double v) { return std::log(v); }, [](double v) { return std::log1p(v); },
                                    [](double v) { return std::log2(v); }, [](double v) { return std::tanh(v); },
                                    [](double v) { return v < -708.0 ? std::exp(v) : 1.0 / (1.0 + std::exp(-v)); }};
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
TEST(ReproducibleF64Cpu, SpecialValuesAreTheCLibrarys) {
  struct Case { OpId op; double x, want; };
  const Case cases[] = {
      {OpId::exp, 0.0, 1.0}, {OpId::exp, -0.0, 1.0}, {OpId::exp, -kInf, 0.0}, {OpId::exp, kInf, kInf},
      {OpId::exp, 710.0, kInf}, {OpId::exp, -746.0, 0.0}, {OpId::exp, kMin, 1.0},
      {OpId::expm1, 0.0, 0.0}, {OpId::expm1, -0.0, -0.0}, {OpId::expm1, -kInf, -1.0}, {OpId::expm1, kInf, kInf},
      {OpId::expm1, -50.0, -1.0}, {OpId::expm1, 710.0, kInf}, {OpId::expm1, kMin, kMin}, {OpId::expm1, -kMin, -kMin},
      {OpId::log, 0.0, -kInf}, {OpId::log, -0.0, -kInf}, {OpId::log, kInf, kInf}, {OpId::log, 1.0, 0.0},
      {OpId::log1p, 0.0, 0.0}, {OpId::log1p, -0.0, -0.0}, {OpId::log1p, -1.0, -kInf}, {OpId::log1p, kInf, kInf},
      {OpId::log1p, kMin, kMin}, {OpId::log1p, -kMin, -kMin},
      {OpId::log2, 0.0, -kInf}, {OpId::log2, -0.0, -kInf}, {OpId::log2, kInf, kInf}, {OpId::log2, 1.0, 0.0},
      {OpId::log2, kMin, -1074.0}, {OpId::log2, 0x1p1023, 1023.0},
      {OpId::tanh, 0.0, 0.0}, {OpId::tanh, -0.0, -0.0}, {OpId::tanh, kInf, 1.0}, {OpId::tanh, -kInf, -1.0},
      {OpId::tanh, 30.0, 1.0}, {OpId::tanh, -kMin, -kMin},
      {OpId::sigmoid, 0.0, 0.5}, {OpId::sigmoid, -0.0, 0.5}, {OpId::sigmoid, kInf, 1.0}, {OpId::sigmoid, -kInf, 0.0},
  };
  for (bool mode : {true, false}) {
    ReproducibleGuard g(mode);
    for (const Case& c : cases) {
      const double got = apply(c.op, from_host(&c.x, {1}, float64, kCPU)).item<double>();
      EXPECT_EQ(std::bit_cast<uint64_t>(got), std::bit_cast<uint64_t>(c.want))
          << op_name(c.op) << "(" << c.x << ") = " << got << ", mode " << mode;
    }
    for (double bad : {kNaN, -1.0, -kInf})
      for (OpId op : {OpId::log, OpId::log2, OpId::log1p}) {
        const double in = op == OpId::log1p && bad == -1.0 ? -2.0 : bad;
        EXPECT_TRUE(std::isnan(apply(op, from_host(&in, {1}, float64, kCPU)).item<double>())) << op_name(op) << "(" << in << ")";
      }
    for (OpId op : kOps) EXPECT_TRUE(std::isnan(apply(op, from_host(&kNaN, {1}, float64, kCPU)).item<double>())) << op_name(op);
  }
  // log2 of every power of two is exact in the mode.
  ReproducibleGuard g(true);
  std::vector<double> p;
  for (int k = -1074; k <= 1023; ++k) p.push_back(std::ldexp(1.0, k));
  const std::vector<double> l = log2(from_host(p.data(), {static_cast<int64_t>(p.size())}, float64, kCPU)).to_vector<double>();
  for (size_t i = 0; i < p.size(); ++i) ASSERT_EQ(l[i], static_cast<double>(static_cast<int>(i) - 1074));
}

}  // namespace
