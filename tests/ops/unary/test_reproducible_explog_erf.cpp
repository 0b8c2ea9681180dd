// The reproducible mode's float32 (and float16 / bfloat16) expm1, log1p,
// log2, erf and gelu (backend/common/canon_explog.h, canon_explog_erf.h): the same
// bits on every device that claims them, within 1 ULP of a long double
// reference on the CPU (in fact correctly rounded on every input checked),
// and the C library's special values.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
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

struct UnaryOp {
  OpId id;
  Tensor (*run)(const Tensor&);
  long double (*ref)(long double);  // long double reference of the exact function
};

long double gelu_ref(long double x) {
  if (std::isinf(x)) return x > 0 ? x : -0.0L;  // inf * erfc(inf) would be NaN
  return x * 0.5L * erfcl(-x * 0.707106781186547524400844362104849039L); }

const std::vector<UnaryOp>& ops() {
  static const std::vector<UnaryOp> v = {
      {OpId::expm1, [](const Tensor& t) { return expm1(t); }, [](long double x) { return expm1l(x); }},
      {OpId::log1p, [](const Tensor& t) { return log1p(t); }, [](long double x) { return log1pl(x); }},
      {OpId::log2, [](const Tensor& t) { return log2(t); }, [](long double x) { return log2l(x); }},
      {OpId::erf, [](const Tensor& t) { return erf(t); }, [](long double x) { return erfl(x); }},
      {OpId::gelu, [](const Tensor& t) { return gelu(t); }, gelu_ref},
  };
  return v;
}

// A million float32 bit patterns over every exponent and both signs (every
// step-th of them), plus the special values and each op's thresholds.
std::vector<float> every_exponent(uint32_t step = 1) {
  std::vector<float> v;
  for (uint32_t i = 0; i < (1u << 20); i += step) v.push_back(std::bit_cast<float>(i * 4099u + 0x9e3779b9u * (i & 1)));
  for (float f : {0.0f, -0.0f, 1.0f, -1.0f, 2.0f, 0.5f, 1e-45f, -1e-45f, 1.1754942e-38f, -1.1754942e-38f,
                  3.4028235e38f, -3.4028235e38f, 88.72283f, 88.72284f, -17.32868f, -17.3287f, -0.99999994f,
                  -1.0000001f, 0.41421357f, -0.29289323f, 0.3465736f, -0.3465736f, 1.9999999f, 2.0000002f,
                  3.9f, 6.0f, -6.0f, -14.0f, -14.5f, -15.0f, kInf, -kInf, std::numeric_limits<float>::quiet_NaN()})
    v.push_back(f);
  return v;
}

Tensor host(const std::vector<float>& v) { return from_host(v.data(), {static_cast<int64_t>(v.size())}, float32, kCPU); }

class ReproducibleExplogErf : public concord::test::DeviceTest {};

// OpenCL claims the five ops for float32 and the halves with float64 (the
// shared code in double) and without it (opencl:0=no-fp64: kernels/xmath.cl,
// the same code on bits).
TEST_P(ReproducibleExplogErf, ClaimedWithAndWithoutFloat64) {
  const Capabilities& caps = capabilities(device());
  if (device().kind().name() != "opencl") GTEST_SKIP() << "the claim under test is OpenCL's";
  for (const UnaryOp& op : ops())
    for (Dtype t : {float32, float16, bfloat16}) {
      if (!caps.storable.has(t)) continue;
      EXPECT_TRUE(caps.has_reproducible_kernel(op.id, t)) << op_name(op.id) << " " << name(t);
    }
}

// In the mode every device gives the CPU's bits: natively where it claims the
// op, through the counted fallback elsewhere. A million inputs, float32 and
// the halves, a transposed and a broadcast view. On Vulkan (lavapipe runs the
// shaders in software, ~35 s for the million) every 16th input and a 256²
// view: test_reproducible_vulkan_math runs the same shader code, compiled as
// C++, over the whole million.
TEST_P(ReproducibleExplogErf, SameBitsAsTheCpuOverEveryExponent) {
  const bool vulkan = device().kind().name() == "vulkan";
  const int64_t side = vulkan ? 256 : 1024;
  const Tensor x = host(every_exponent(vulkan ? 16 : 1));
  const Tensor xd = x.to(device());
  const Tensor m = x.narrow(0, 0, side * side).reshape({side, side});
  const Tensor md = m.to(device());
  const Tensor row = x.narrow(0, 1000, 512);
  const Tensor rowd = row.to(device());
  ReproducibleGuard g(true);
  for (const UnaryOp& op : ops()) {
    const std::string what = std::string(op_name(op.id)) + " on " + GetParam().label;
    EXPECT_EQ(first_difference(op.run(xd), op.run(x)), "") << what;
    EXPECT_EQ(first_difference(op.run(md.t()), op.run(m.t())), "") << what << " transposed";
    EXPECT_EQ(first_difference(op.run(rowd.expand({3, 512})), op.run(row.expand({3, 512}))), "") << what << " broadcast";
    for (Dtype t : {float16, bfloat16}) {
      if (!concord::test::can_store(GetParam(), t)) continue;
      EXPECT_EQ(first_difference(op.run(xd.to(t)), op.run(x.to(t))), "") << what << " " << name(t);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Devices, ReproducibleExplogErf, ::testing::ValuesIn(::concord::test::test_devices()),
                         ::concord::test::config_name);

// ULPs of float32 between y and the reference r (at r's binade; subnormal ULP below).
double ulps(float y, long double r) {
  const long double a = fabsl(r);
  const int e = a == 0.0L ? -126 : std::max(ilogbl(a), -126);
  return static_cast<double>(fabsl(static_cast<long double>(y) - r) / ldexpl(1.0L, e - 23));
}

// On the CPU in the mode: within 1 ULP of the long double reference (the
// algorithms are good to ~1e-13 relative, so the bound checked is 0.5001) on
// every finite result; infinities and NaNs where the reference has them.
TEST(ReproducibleExplogErfAccuracy, WithinHalfAnUlpOfLongDouble) {
  std::vector<float> v = every_exponent();
  for (int i = 0; i <= 200000; ++i) v.push_back(-16.0f + 16.0f * static_cast<float>(i) / 200000.0f);  // gelu's tail
  for (int i = 0; i <= 200000; ++i) v.push_back(-4.0f + 8.0f * static_cast<float>(i) / 200000.0f);    // erf's core
  const Tensor x = host(v);
  ReproducibleGuard g(true);
  for (const UnaryOp& op : ops()) {
    const std::vector<float> y = op.run(x).to_vector<float>();
    double worst = 0;
    float worst_at = 0;
    int wrong_class = 0;
    for (size_t i = 0; i < v.size(); ++i) {
      const long double r = op.ref(static_cast<long double>(v[i]));
      if (std::isnan(r) || std::isinf(static_cast<float>(r)) || std::isnan(y[i]) || std::isinf(y[i])) {
        const bool same = std::isnan(r) ? std::isnan(y[i]) : y[i] == static_cast<float>(r);
        if (!same && ++wrong_class <= 5) ADD_FAILURE() << op_name(op.id) << "(" << v[i] << ") = " << y[i];
        continue;
      }
      const double u = ulps(y[i], r);
      if (u > worst) worst = u, worst_at = v[i];
    }
    EXPECT_LE(worst, 0.5001) << op_name(op.id) << " at " << worst_at;
    EXPECT_EQ(wrong_class, 0) << op_name(op.id);
  }
}

// Special values: the mode gives the default mode's (the C library's) bits,
// signed zeros included; NaN results are NaN.
TEST(ReproducibleExplogErfAccuracy, SpecialValuesAreTheDefaultModes) {
  const std::vector<float> v = {0.0f, -0.0f, kInf, -kInf, std::numeric_limits<float>::quiet_NaN(), 1e-45f, -1e-45f,
                                1.1754942e-38f, -1.1754942e-38f, 3.4028235e38f, -3.4028235e38f, 1.0f, -1.0f, 2.0f,
                                0.25f, 1024.0f, 88.72283f, 88.72284f, -17.5f, -1.0000001f, 6.0f, -6.0f, -20.0f, -1e30f};
  const Tensor x = host(v);
  for (const UnaryOp& op : ops()) {
    const std::vector<float> want = op.run(x).to_vector<float>();
    ReproducibleGuard g(true);
    const std::vector<float> got = op.run(x).to_vector<float>();
    for (size_t i = 0; i < v.size(); ++i) {
      if (std::isnan(want[i])) {
        EXPECT_TRUE(std::isnan(got[i])) << op_name(op.id) << "(" << v[i] << ")";
        continue;
      }
      // Where the C library's value is exact or a limit (elsewhere it may be 1 ULP off).
      const bool special = std::isinf(v[i]) || v[i] == 0.0f || std::fabs(v[i]) < 1.17549435e-38f || want[i] == 0.0f ||
                           std::isinf(want[i]) || std::fabs(want[i]) == 1.0f ||
                           (op.id == OpId::log2 && std::fabs(v[i]) <= 1024.0f && want[i] == std::round(want[i]));
      if (special)
        EXPECT_EQ(std::bit_cast<uint32_t>(got[i]), std::bit_cast<uint32_t>(want[i]))
            << op_name(op.id) << "(" << v[i] << "): " << got[i] << " vs the C library's " << want[i];
    }
  }
}

}  // namespace
