// The reproducible mode's elementwise ops of float32, the halves and float64
// on Vulkan: the "_x" shader variants compute on float bits with integer
// operations only (shaders/elementwise_xf.glsl on xf32.glsl and, for
// float64, on xf64.glsl), so vulkan:0
// claims the ops whatever its float controls promise about subnormals, runs
// them natively (no fallback, no separate NaN pass) and gives the CPU's bits.
// Every config runs the comparisons (elsewhere natively or through the
// fallback); the claim and the native runs are checked on Vulkan devices.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "concord/concord.h"
#include "core/backend.h"
#include "support/bits.h"
#include "support/devices.h"
#include "support/native_run.h"

using namespace concord;

namespace {

using concord::test::first_difference;

struct Unary { OpId id; Tensor (*run)(const Tensor&); };
struct Binary { OpId id; Tensor (*run)(const Tensor&, const Tensor&); };

#define CONCORD_U(name) Unary{OpId::name, [](const Tensor& x) { return name(x); }}
#define CONCORD_B(name) Binary{OpId::name, [](const Tensor& a, const Tensor& b) { return name(a, b); }}

const std::vector<Unary>& unary_ops() {
  static const std::vector<Unary> v = {
      CONCORD_U(neg),   CONCORD_U(abs),        CONCORD_U(sign),    CONCORD_U(relu),  CONCORD_U(floor),
      CONCORD_U(ceil),  CONCORD_U(round),      CONCORD_U(trunc),   CONCORD_U(sqrt),  CONCORD_U(rsqrt),
      CONCORD_U(reciprocal), CONCORD_U(exp),   CONCORD_U(isnan),   CONCORD_U(isinf), CONCORD_U(isfinite),
      CONCORD_U(logical_not)};
  return v;
}

const std::vector<Binary>& binary_ops() {
  static const std::vector<Binary> v = {
      CONCORD_B(add), CONCORD_B(sub), CONCORD_B(mul),  CONCORD_B(div),  CONCORD_B(maximum), CONCORD_B(minimum),
      CONCORD_B(remainder), CONCORD_B(floor_divide), CONCORD_B(eq), CONCORD_B(ne), CONCORD_B(lt), CONCORD_B(le),
      CONCORD_B(gt),  CONCORD_B(ge),  CONCORD_B(logical_and), CONCORD_B(logical_or), CONCORD_B(logical_xor)};
  return v;
}

float f(uint32_t bits) { return std::bit_cast<float>(bits); }

// Values where a float unit that flushes subnormals, or rounds otherwise,
// would differ: ±0, subnormals of every size, the normal/subnormal boundary,
// ±inf, NaNs with payloads and signs, the overflow edge, halves (.5) for
// round, integers and near-integers, exp's underflow and overflow ranges, the
// halves' own subnormal and overflow edges (ties of the float16 subnormal
// rounding included), and a few pseudo-random patterns.
std::vector<float> special_values() {
  std::vector<float> v = {0.0f, -0.0f, f(1), f(0x80000001u), f(0x7fffffu), f(0x807fffffu), f(0x400000u),
                          f(0x80400001u), f(0x800000u), f(0x80800000u), f(0x800001u), 1e-40f, -3e-39f,
                          std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                          f(0x7fc00000u), f(0xffc00001u), f(0x7f800001u), f(0x7fffffffu),
                          3.4028235e38f, -3.4028235e38f, 3.4e38f, 1.7014118e38f, 0.5f, -0.5f, 1.5f, 2.5f,
                          -2.5f, 0.49999997f, 0.50000006f, 1.0f, -1.0f, 2.0f, 3.0f, -7.0f, 8388607.5f,
                          -8388608.5f, 16777215.0f, 4194304.5f, 0.1f, -0.3f, 100.25f, 1e10f, -1e-10f,
                          -87.5f, -103.9f, -104.0f, -150.0f, 88.72f, 88.73f, 6.0e-8f, 6.1e-5f, 65504.0f,
                          65520.0f, 9.2e-41f, 3.3895314e38f, f(0x33000000u), f(0xb3c00000u), f(0x33800001u),
                          f(0x387fe000u), f(0x387ff000u), f(0x00800000u) + f(0x00000003u)};
  uint32_t s = 0x12345678u;
  for (int i = 0; i < 12; ++i) {  // a short LCG over every exponent and sign
    s = s * 1664525u + 1013904223u;
    v.push_back(f(s));
  }
  return v;
}

Tensor host(const std::vector<float>& v, Shape shape) { return from_host(v.data(), shape, float32, kCPU); }

bool is_vulkan(const Device& d) { return d.kind().name() == "vulkan"; }

class ReproducibleVulkanElementwise : public concord::test::DeviceTest {
 protected:
  std::vector<Dtype> dtypes() const {
    std::vector<Dtype> out;
    for (Dtype t : {float32, float16, bfloat16})
      if (concord::test::can_store(GetParam(), t)) out.push_back(t);
    return out;
  }
  // On Vulkan, the device's runs since reset_report(): on the device, no
  // fallback of `op`, and no separate NaN pass.
  void expect_native(std::string_view op, Dtype t, const std::string& what) const {
    if (is_vulkan(device())) concord::test::expect_ran_on_device(op, device(), t, what, true);
  }
};

// vulkan:0 (lavapipe) keeps no promise about float32 subnormals, yet claims
// every op of the "_x" variants for float32 and the halves in the mode.
TEST_P(ReproducibleVulkanElementwise, ClaimsTheOpsOnBits) {
  if (!is_vulkan(device())) GTEST_SKIP() << "the claim under test is Vulkan's";
  const Capabilities& caps = capabilities(device());
  std::vector<OpId> ops = {OpId::clamp, OpId::where, OpId::copy};
  for (const Unary& u : unary_ops()) ops.push_back(u.id);
  for (const Binary& b : binary_ops()) ops.push_back(b.id);
  for (OpId op : ops)
    for (Dtype t : dtypes()) EXPECT_TRUE(caps.has_reproducible_kernel(op, t)) << op_name(op) << " " << name(t);
  // (exp here; the other transcendentals: test_reproducible_vulkan_math.cpp,
  // pow and atan2: test_reproducible_vulkan_pow.cpp.)
}

TEST_P(ReproducibleVulkanElementwise, UnarySameBitsAsTheCpu) {
  const std::vector<float> v = special_values();
  const int64_t n = static_cast<int64_t>(v.size());
  const Tensor x = host(v, {n});
  ReproducibleGuard g(true);
  for (Dtype t : dtypes()) {
    const Tensor xc = x.to(t), xd = xc.to(device());
    // A strided view: the {2, n/2} transpose of a {n/2, 2} layout.
    const Tensor mc = xc.narrow(0, 0, n / 2 * 2).reshape({n / 2, 2}).t();
    const Tensor md_view = xd.narrow(0, 0, n / 2 * 2).reshape({n / 2, 2}).t();
    for (const Unary& op : unary_ops()) {
      const std::string what = std::string(op_name(op.id)) + " " + std::string(name(t)) + " on " + GetParam().label;
      const Tensor want = op.run(xc), want_m = op.run(mc);
      reset_report();
      const Tensor got = op.run(xd), got_m = op.run(md_view);
      expect_native(op_name(op.id), t, what);
      EXPECT_EQ(first_difference(got, want), "") << what;
      EXPECT_EQ(first_difference(got_m, want_m), "") << what << " transposed view";
    }
  }
}

// Every pair of the special values: a {n, 1} column against a {1, n} row
// (both broadcast), and once more with the column a transposed view.
TEST_P(ReproducibleVulkanElementwise, BinarySameBitsAsTheCpuOnEveryPair) {
  const std::vector<float> v = special_values();
  const int64_t n = static_cast<int64_t>(v.size());
  const Tensor col = host(v, {n, 1}), row = host(v, {1, n});
  ReproducibleGuard g(true);
  for (Dtype t : dtypes()) {
    const Tensor cc = col.to(t), rc = row.to(t);
    const Tensor cd = cc.to(device()), rd = rc.to(device());
    for (const Binary& op : binary_ops()) {
      const std::string what = std::string(op_name(op.id)) + " " + std::string(name(t)) + " on " + GetParam().label;
      const Tensor want = op.run(cc, rc), want_t = op.run(rc.t(), rc);
      reset_report();
      const Tensor got = op.run(cd, rd), got_t = op.run(rd.t(), rd);
      expect_native(op_name(op.id), t, what);
      EXPECT_EQ(first_difference(got, want), "") << what;
      EXPECT_EQ(first_difference(got_t, want_t), "") << what << " transposed";
    }
  }
}

// 16384 pseudo-random bit patterns over every exponent and sign, and as many
// pairs of close values (same exponent, near-cancelling sums and differences,
// subnormal products and quotients, fmod with many quotient bits).
TEST_P(ReproducibleVulkanElementwise, Float32OverEveryExponent) {
  constexpr int64_t n = 16384;
  std::vector<float> a(n), b(n);
  uint32_t s = 0x9e3779b9u;
  for (int64_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    a[i] = f(s);
    const uint32_t t = s * 22695477u + 1u;
    // Half the pairs share a's exponent and sign bits; the rest are b = a's
    // pattern shifted by a small exponent step (tiny quotients and products).
    b[i] = (i & 1) ? f((s & 0xff800000u) | (t & 0x7fffffu)) : f(s ^ ((t & 0x7u) << 23));
  }
  const Tensor x = host(a, {n}), y = host(b, {n});
  const Tensor xd = x.to(device()), yd = y.to(device());
  ReproducibleGuard g(true);
  for (const Unary& op : unary_ops())
    EXPECT_EQ(first_difference(op.run(xd), op.run(x)), "") << op_name(op.id) << " on " << GetParam().label;
  for (const Binary& op : binary_ops())
    EXPECT_EQ(first_difference(op.run(xd, yd), op.run(x, y)), "") << op_name(op.id) << " on " << GetParam().label;
}

// clamp: bounds that are subnormal, zero of either sign, NaN, crossed (lo >
// hi gives hi), one-sided, and beyond a half's range.
TEST_P(ReproducibleVulkanElementwise, ClampSameBitsAsTheCpu) {
  const std::vector<float> v = special_values();
  const Tensor x = host(v, {static_cast<int64_t>(v.size())});
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<std::pair<std::optional<Scalar>, std::optional<Scalar>>> bounds = {
      {Scalar(-1e-40), Scalar(1e-40)}, {Scalar(-0.0), Scalar(0.0)}, {Scalar(0.5), std::nullopt},
      {std::nullopt, Scalar(-2.5)},    {Scalar(3.0), Scalar(-3.0)}, {Scalar(static_cast<double>(nan)), Scalar(1.0)},
      {Scalar(-1.0), Scalar(static_cast<double>(nan))}, {Scalar(-1e6), Scalar(70000.0)}};
  ReproducibleGuard g(true);
  for (Dtype t : dtypes()) {
    const Tensor xc = x.to(t), xd = xc.to(device());
    for (size_t i = 0; i < bounds.size(); ++i) {
      const std::string what = "clamp " + std::string(name(t)) + " bounds #" + std::to_string(i) + " on " + GetParam().label;
      const Tensor want = clamp(xc, bounds[i].first, bounds[i].second);
      reset_report();
      const Tensor got = clamp(xd, bounds[i].first, bounds[i].second);
      expect_native("clamp", t, what);
      EXPECT_EQ(first_difference(got, want), "") << what;
    }
  }
}

// Casts between float32 and the halves (integer work in dtypes.glsl):
// subnormal results of either width, the halves' overflow edges, NaNs.
TEST_P(ReproducibleVulkanElementwise, CastsSameBitsAsTheCpu) {
  const std::vector<float> v = special_values();
  const Tensor x = host(v, {static_cast<int64_t>(v.size())});
  const Tensor xd = x.to(device());
  ReproducibleGuard g(true);
  for (Dtype from : dtypes())
    for (Dtype to : dtypes()) {
      if (from == to) continue;
      const std::string what = std::string(name(from)) + " -> " + std::string(name(to)) + " on " + GetParam().label;
      const Tensor src = x.to(from), src_d = xd.to(from);
      EXPECT_EQ(first_difference(src_d.to(to), src.to(to)), "") << what;
    }
}

// The float16 / bfloat16 "_x" variants. The dispatcher widens the halves to
// float32 on Vulkan (they are storage formats there), so these run only when
// the backend is handed half tensors: called directly here, in the mode,
// against the CPU's public op (widened, rounded once, NaN canonical).
TEST_P(ReproducibleVulkanElementwise, HalfVariantsCalledDirectly) {
  if (!is_vulkan(device())) GTEST_SKIP() << "the variants under test are Vulkan's";
  const std::vector<float> v = special_values();
  const int64_t n = static_cast<int64_t>(v.size());
  const Tensor col = host(v, {n, 1}), row = host(v, {1, n});
  detail::Backend& be = detail::backend_for(device());
  ReproducibleGuard g(true);
  for (Dtype t : dtypes()) {
    if (t == float32) continue;
    const Tensor x = col.to(t).reshape({n}), xd = x.to(device());
    for (const Unary& op : unary_ops()) {
      const Tensor want = op.run(x);
      const Tensor got = empty({n}, want.dtype(), device());
      be.unary(op.id, xd, got);
      EXPECT_EQ(first_difference(got, want), "") << op_name(op.id) << " " << name(t);
    }
    const Tensor a = col.to(t), b = row.to(t), ad = a.to(device()), bd = b.to(device());
    for (const Binary& op : binary_ops()) {
      const Tensor want = op.run(a, b);
      const Tensor got = empty({n, n}, want.dtype(), device());
      be.binary(op.id, ad.expand({n, n}), bd.expand({n, n}), got);
      EXPECT_EQ(first_difference(got, want), "") << op_name(op.id) << " " << name(t);
    }
    const Tensor want = clamp(x, Scalar(-1e-3), Scalar(0.5));
    const Tensor got = empty({n}, t, device());
    be.clamp(xd, Scalar(-1e-3), Scalar(0.5), got);
    EXPECT_EQ(first_difference(got, want), "") << "clamp " << name(t);
  }
}

// ---- float64: the "_x" variants on float64 bits (elementwise_xf.glsl with XD) ----

double d(uint64_t bits) { return std::bit_cast<double>(bits); }

// The float64 twins of special_values(): subnormals of every size and the
// subnormal boundary, ±0, ±inf, NaNs with payloads and signs, the overflow
// edge, halves and near-integers for round (around 2^52 too), quotients and
// products that underflow or overflow, and a few pseudo-random patterns.
std::vector<double> special_values64() {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> v = {0.0, -0.0, d(1), d(0x8000000000000001u), d(0x000fffffffffffffu),
                           d(0x800fffffffffffffu), d(0x0008000000000000u), d(0x8008000000000001u),
                           d(0x0010000000000000u), d(0x8010000000000000u), d(0x0010000000000001u), 1e-310,
                           -3e-320, inf, -inf, d(0x7ff8000000000000u), d(0xfff8000000000001u),
                           d(0x7ff0000000000001u), d(0x7fffffffffffffffu), 1.7976931348623157e308,
                           -1.7976931348623157e308, 1.7e308, 8.98846567431158e307, 0.5, -0.5, 1.5, 2.5, -2.5,
                           0.49999999999999994, 0.5000000000000001, 1.0, -1.0, 2.0, 3.0, -7.0,
                           4503599627370495.5, -2251799813685248.5, 9007199254740991.0, 4503599627370497.0,
                           0.1, -0.3, 100.25, 1e300, -1e-300, 1e-200, 3.4028235677973366e38, 1.401298464324817e-45,
                           2.2250738585072014e-308 * 3.0, 5e-324 * 7.0, 1e-320 + 1e-308};
  uint64_t s = 0x123456789abcdefu;
  for (int i = 0; i < 12; ++i) {  // a short LCG over every exponent and sign
    s = s * 6364136223846793005u + 1442695040888963407u;
    v.push_back(d(s));
  }
  return v;
}

Tensor host64(const std::vector<double>& v, Shape shape) { return from_host(v.data(), shape, float64, kCPU); }

bool has_f64(const concord::test::DeviceConfig& c) { return concord::test::can_store(c, float64); }

// vulkan:0 claims float64 for every op of the "_x" variants.
TEST_P(ReproducibleVulkanElementwise, ClaimsFloat64OnBits) {
  if (!is_vulkan(device()) || !has_f64(GetParam())) GTEST_SKIP() << "needs Vulkan with float64";
  const Capabilities& caps = capabilities(device());
  std::vector<OpId> ops = {OpId::clamp};
  for (const Unary& u : unary_ops()) ops.push_back(u.id);
  for (const Binary& b : binary_ops()) ops.push_back(b.id);
  for (OpId op : {OpId::erf, OpId::gelu, OpId::sin, OpId::cos, OpId::tan, OpId::pow, OpId::atan2}) ops.push_back(op);
  for (OpId op : ops)
    EXPECT_TRUE(caps.has_reproducible_kernel(op, float64)) << op_name(op);
}

TEST_P(ReproducibleVulkanElementwise, Float64UnarySameBitsAsTheCpu) {
  if (!has_f64(GetParam())) GTEST_SKIP() << "no float64 on " << GetParam().label;
  const std::vector<double> v = special_values64();
  const int64_t n = static_cast<int64_t>(v.size());
  const Tensor x = host64(v, {n}), xd = x.to(device());
  const Tensor mc = x.narrow(0, 0, n / 2 * 2).reshape({n / 2, 2}).t();
  const Tensor md_view = xd.narrow(0, 0, n / 2 * 2).reshape({n / 2, 2}).t();
  ReproducibleGuard g(true);
  for (const Unary& op : unary_ops()) {
    const std::string what = std::string(op_name(op.id)) + " float64 on " + GetParam().label;
    const Tensor want = op.run(x), want_m = op.run(mc);
    reset_report();
    const Tensor got = op.run(xd), got_m = op.run(md_view);
    expect_native(op_name(op.id), float64, what);
    EXPECT_EQ(first_difference(got, want), "") << what;
    EXPECT_EQ(first_difference(got_m, want_m), "") << what << " transposed view";
  }
}

TEST_P(ReproducibleVulkanElementwise, Float64BinarySameBitsAsTheCpuOnEveryPair) {
  if (!has_f64(GetParam())) GTEST_SKIP() << "no float64 on " << GetParam().label;
  const std::vector<double> v = special_values64();
  const int64_t n = static_cast<int64_t>(v.size());
  const Tensor col = host64(v, {n, 1}), row = host64(v, {1, n});
  const Tensor cd = col.to(device()), rd = row.to(device());
  ReproducibleGuard g(true);
  for (const Binary& op : binary_ops()) {
    const std::string what = std::string(op_name(op.id)) + " float64 on " + GetParam().label;
    const Tensor want = op.run(col, row), want_t = op.run(row.t(), row);
    reset_report();
    const Tensor got = op.run(cd, rd), got_t = op.run(rd.t(), rd);
    expect_native(op_name(op.id), float64, what);
    EXPECT_EQ(first_difference(got, want), "") << what;
    EXPECT_EQ(first_difference(got_t, want_t), "") << what << " transposed";
  }
}

// 4096 pseudo-random float64 patterns over every exponent and sign, paired
// with close values (same exponent and sign: near-cancelling sums), small
// exponent steps (tiny quotients and products) or an unrelated pattern (fmod
// across exponent gaps of up to 2046, its long division's every step).
TEST_P(ReproducibleVulkanElementwise, Float64OverEveryExponent) {
  if (!has_f64(GetParam())) GTEST_SKIP() << "no float64 on " << GetParam().label;
  constexpr int64_t n = 4096;
  std::vector<double> a(n), b(n);
  uint64_t s = 0x9e3779b97f4a7c15u;
  for (int64_t i = 0; i < n; ++i) {
    s = s * 6364136223846793005u + 1442695040888963407u;
    a[i] = d(s);
    const uint64_t t = s * 0xd1342543de82ef95u + 1u;
    b[i] = i % 3 == 0   ? d((s & 0xfff0000000000000u) | (t & 0x000fffffffffffffu))
           : i % 3 == 1 ? d(s ^ ((t & 0xfu) << 52))
                        : d(t);
  }
  const Tensor x = host64(a, {n}), y = host64(b, {n});
  const Tensor xd = x.to(device()), yd = y.to(device());
  ReproducibleGuard g(true);
  for (const Unary& op : unary_ops())
    EXPECT_EQ(first_difference(op.run(xd), op.run(x)), "") << op_name(op.id) << " float64 on " << GetParam().label;
  for (const Binary& op : binary_ops())
    EXPECT_EQ(first_difference(op.run(xd, yd), op.run(x, y)), "") << op_name(op.id) << " float64 on " << GetParam().label;
}

// clamp of float64: subnormal, signed-zero, NaN, crossed, one-sided bounds
// and the overflow edge; casts from and to float64 (subnormal results).
TEST_P(ReproducibleVulkanElementwise, Float64ClampAndCastsSameBitsAsTheCpu) {
  if (!has_f64(GetParam())) GTEST_SKIP() << "no float64 on " << GetParam().label;
  const std::vector<double> v = special_values64();
  const Tensor x = host64(v, {static_cast<int64_t>(v.size())}), xd = x.to(device());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<std::pair<std::optional<Scalar>, std::optional<Scalar>>> bounds = {
      {Scalar(-5e-324), Scalar(1e-310)}, {Scalar(-0.0), Scalar(0.0)},   {Scalar(0.5), std::nullopt},
      {std::nullopt, Scalar(-2.5)},      {Scalar(3.0), Scalar(-3.0)},  {Scalar(nan), Scalar(1.0)},
      {Scalar(-1.0), Scalar(nan)},       {Scalar(-1.7976931348623157e308), Scalar(1e308)}};
  ReproducibleGuard g(true);
  for (size_t i = 0; i < bounds.size(); ++i) {
    const std::string what = "clamp float64 bounds #" + std::to_string(i) + " on " + GetParam().label;
    const Tensor want = clamp(x, bounds[i].first, bounds[i].second);
    reset_report();
    const Tensor got = clamp(xd, bounds[i].first, bounds[i].second);
    expect_native("clamp", float64, what);
    EXPECT_EQ(first_difference(got, want), "") << what;
  }
  for (Dtype t : dtypes()) {
    const std::string what = std::string(name(t)) + " <-> float64 on " + GetParam().label;
    EXPECT_EQ(first_difference(xd.to(t), x.to(t)), "") << what;
    EXPECT_EQ(first_difference(xd.to(t).to(float64), x.to(t).to(float64)), "") << what;
  }
}

CONCORD_INSTANTIATE_DEVICES(ReproducibleVulkanElementwise);

}  // namespace
