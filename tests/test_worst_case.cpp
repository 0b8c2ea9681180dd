// The worst-case search (concord/worst_case.h): a small fixed sample of
// `concord parity --exhaustive` on every device config — each elementwise op
// with a ULP bound, in every floating dtype the config stores, on 1024 inputs
// over every exponent and the op's domain (every value of a half for unary
// ops) plus the hard cases, within its declared bound. The full search
// (2^20 inputs) is opt-in: `concord parity --exhaustive`, table in
// docs/ACCURACY.md.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <set>

#include "concord/concord.h"
#include "concord/worst_case.h"
#include "support/devices.h"

using namespace concord;
using concord::test::DeviceTest;

namespace {

constexpr Dtype kFloats[] = {float16, bfloat16, float32, float64};

class WorstCase : public DeviceTest {};

TEST_P(WorstCase, EveryUlpBoundHoldsOnTheSample) {
  int ran = 0;
  for (OpId op : concord::testing::worst_case_ops())
    for (Dtype t : kFloats) {
      if (!test::can_store(GetParam(), t)) continue;
      const concord::testing::WorstCaseSearch s(op, t, {.count = 1024, .seed = 7});
      const concord::testing::WorstCase w = s.run(device());
      if (!w.ran) {
        ADD_FAILURE() << w.str();
        continue;
      }
      ++ran;
      EXPECT_LE(w.ratio, 1.0) << w.str() << " on " << GetParam().label;
    }
  EXPECT_GT(ran, 40) << "too few op x dtype runs on " << GetParam().label;
}

// The differential run's reproducer: a broadcast atan2 of y float32[300, 1] by
// x float32[1, 257] with the pair it found beyond the bound on vulkan:0
// (y 0xbfeb8482, x 0x405d232d: 2.22 ULP where the CPU is within 0.5), every
// element judged against a long double reference.
TEST_P(WorstCase, BroadcastAtan2HoldsItsBound) {
  std::mt19937 gen(35);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  std::vector<float> ys(300), xs(257);
  for (float& v : ys) v = dist(gen);
  for (float& v : xs) v = dist(gen);
  float y0, x0;
  const uint32_t yb = 0xbfeb8482u, xb = 0x405d232du;
  std::memcpy(&y0, &yb, 4);
  std::memcpy(&x0, &xb, 4);
  ys[123] = y0, xs[45] = x0;
  std::vector<double> ref(ys.size() * xs.size());
  for (size_t i = 0; i < ys.size(); ++i)
    for (size_t j = 0; j < xs.size(); ++j)
      ref[i * xs.size() + j] = static_cast<double>(std::atan2(static_cast<long double>(ys[i]), static_cast<long double>(xs[j])));
  const Tensor got = atan2(from_vector(ys, Shape{300, 1}).to(device()), from_vector(xs, Shape{1, 257}).to(device()));
  const auto check = concord::testing::check_elementwise(got.to(kCPU), from_vector(ref, Shape{300, 257}),
                                                         op_def(OpId::atan2).bound);
  EXPECT_TRUE(check.ok) << check.str() << " on " << GetParam().label;
  // The CPU and Vulkan run the shared float32 atan2 (canon_pow.h; Vulkan on
  // the bits, in both modes): the CPU's bits. OpenCL outside the mode runs its
  // device's atan2, held to the bound above.
  if (device().kind() != DeviceKind("opencl")) {
    const std::vector<float> mine = got.to(kCPU).to_vector<float>(),
                             cpu = atan2(from_vector(ys, Shape{300, 1}), from_vector(xs, Shape{1, 257})).to_vector<float>();
    ASSERT_EQ(mine.size(), cpu.size());
    EXPECT_EQ(std::memcmp(mine.data(), cpu.data(), mine.size() * sizeof(float)), 0)
        << "atan2 float32 on " << GetParam().label << " differs from the CPU's bits; atan2(-1.8399813, 3.4552720) = "
        << mine[123 * 257 + 45] << ", the CPU's " << cpu[123 * 257 + 45];
  }
}

CONCORD_INSTANTIATE_DEVICES(WorstCase);

// The searched set: the table's unary and binary floating ops with a ULP bound.
TEST(WorstCaseSearch, CoversTheUlpBoundedElementwiseOps) {
  std::set<std::string> ops;
  for (OpId op : concord::testing::worst_case_ops()) ops.insert(std::string(op_name(op)));
  for (const char* n : {"exp", "log", "sin", "tan", "sqrt", "rsqrt", "gelu", "erf", "add", "div", "pow", "atan2",
                        "remainder", "reciprocal", "round"})
    EXPECT_TRUE(ops.count(n)) << n;
  EXPECT_FALSE(ops.count("floor_divide"));  // no long double reference for floor of the exact quotient
  EXPECT_FALSE(ops.count("maximum"));       // exact ops are compared bitwise elsewhere
}

// The inputs reach every exponent field of float32, every value of a half,
// and carry the recorded hard cases.
TEST(WorstCaseSearch, InputsSpanEveryExponent) {
  std::vector<double> x, y;
  concord::testing::worst_case_inputs(OpId::exp, float32, {.count = 1 << 14}, x, y);
  std::set<uint32_t> fields;
  for (double v : x) {
    const float f = static_cast<float>(v);
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if (!std::isnan(f)) fields.insert((u >> 23) & 0xff);
  }
  EXPECT_EQ(fields.size(), 256u);  // 0 (subnormals, zero) .. 254, and 255 (inf)
  concord::testing::worst_case_inputs(OpId::log, float16, {.count = 16}, x, y);
  std::set<double> halves(x.begin(), x.end());
  EXPECT_GE(halves.size(), 63489u);  // every float16 but the NaNs, -0 == 0
  concord::testing::worst_case_inputs(OpId::atan2, float32, {.count = 16}, x, y);
  bool pair = false;
  for (size_t i = 0; i < x.size(); ++i)
    pair |= static_cast<float>(x[i]) == -1.8399813f && static_cast<float>(y[i]) == 3.4552720f;
  EXPECT_TRUE(pair) << "the recorded vulkan:0 atan2 worst case is among the inputs";
}

// The judge measures: a correctly rounded op reaches close to half an ULP on
// enough inputs, and no more.
TEST(WorstCaseSearch, MeasuresHalfAnUlpForCorrectlyRoundedOps) {
  const concord::testing::WorstCase w = concord::testing::WorstCaseSearch(OpId::div, float32, {.count = 1 << 14}).run(kCPU);
  ASSERT_TRUE(w.ran) << w.str();
  EXPECT_GT(w.worst_ulps, 0.45) << w.str();
  EXPECT_LE(w.worst_ulps, 0.5) << w.str();
  EXPECT_LE(w.ratio, 1.0);
}

TEST(WorstCaseSearch, RefusesIntegerDtypes) {
  EXPECT_THROW(concord::testing::WorstCaseSearch(OpId::add, int32), DtypeError);
}

}  // namespace
