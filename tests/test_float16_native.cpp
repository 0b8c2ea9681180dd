// Float16Policy::native: float16 computed in float16 by a device's own float16
// kernels (Path::native_f16), only where declared, counted as such, judged by
// float16 accumulation; everywhere else the exact path's bits.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "concord/concord.h"
#include "concord/op_table.h"
#include "concord/parity.h"
#include "concord/testing.h"
#include "support/devices.h"

using namespace concord;

namespace {

const OpId kLinearOps[] = {OpId::matmul, OpId::mm, OpId::bmm, OpId::mv, OpId::dot, OpId::outer,
                           OpId::addmm, OpId::baddbmm, OpId::linear};

bool has_f16_kernel(const Device& d) { return capabilities(d).has_f16_kernel(OpId::matmul); }

// Values in [-2, 2] that float16 holds exactly, from a fixed seed (float64 on the CPU).
Tensor sample(const Shape& s, uint64_t seed) {
  Tensor x = rand(s, float64, kCPU, seed);
  return mul(sub(x, 0.5), 4.0).to(float16).to(float64);
}

}  // namespace

TEST(Float16Policy, ParsesGuardsAndDefaultsToExact) {
  EXPECT_EQ(float16_policy(), Float16Policy::exact);
  EXPECT_EQ(parse_float16_policy("native"), Float16Policy::native);
  EXPECT_EQ(parse_float16_policy("exact"), Float16Policy::exact);
  try {
    parse_float16_policy("fast");
    FAIL() << "no error for an unknown float16 policy";
  } catch (const ValueError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("[policy]", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("exact or native"), std::string::npos) << e.what();
  }
  {
    Float16PolicyGuard g(Float16Policy::native);
    EXPECT_EQ(float16_policy(), Float16Policy::native);
    EXPECT_EQ(name(float16_policy()), "native");
  }
  EXPECT_EQ(float16_policy(), Float16Policy::exact);
}

class Float16Native : public concord::test::DeviceTest {};

// The plan: native_f16 exactly where the device has a float16 kernel and the
// policy asks for it; the exact path (widened) otherwise; bfloat16 never.
TEST_P(Float16Native, PathFollowsPolicyAndCapabilities) {
  for (OpId op : kLinearOps) {
    EXPECT_EQ(support(op, device(), float16).path == Path::native_f16, false) << op_name(op);
    Float16PolicyGuard g(Float16Policy::native);
    const Support s = support(op, device(), float16);
    if (!s.runs) continue;
    if (capabilities(device()).has_f16_kernel(op)) EXPECT_EQ(s.path, Path::native_f16) << op_name(op);
    else EXPECT_NE(s.path, Path::native_f16) << op_name(op);
    EXPECT_NE(support(op, device(), bfloat16).path, Path::native_f16) << op_name(op);
    EXPECT_NE(support(op, device(), float32).path, Path::native_f16) << op_name(op);
  }
  // Ops without a float16 kernel keep the exact path under the policy.
  Float16PolicyGuard g(Float16Policy::native);
  if (support(OpId::add, device(), float16).runs) EXPECT_NE(support(OpId::add, device(), float16).path, Path::native_f16);
}

// A dot of 4096 ones: float16 accumulation stops at 2048 (2048 + 1 rounds to
// even), float32 accumulation reaches 4096. The visible proof that the kernel
// computes in float16, and that the default does not.
TEST_P(Float16Native, DotOfOnesShowsTheAccumulation) {
  if (!concord::test::can_store(GetParam(), float16)) GTEST_SKIP() << "float16 is not stored on " << GetParam().label;
  const Tensor ones_h = ones({4096}, float16, device());
  EXPECT_EQ(dot(ones_h, ones_h).to(float64).item<double>(), 4096.0);
  Float16PolicyGuard g(Float16Policy::native);
  reset_report();
  const double r = dot(ones_h, ones_h).to(float64).item<double>();
  if (has_f16_kernel(device())) {
    EXPECT_EQ(r, 2048.0);
    EXPECT_EQ(report().count("dot", device().str(), float16, Path::native_f16), 1u) << report();
  } else {
    EXPECT_EQ(r, 4096.0);
    EXPECT_EQ(report().count("dot", Path::native_f16), 0u) << report();
  }
}

// Products under the policy stay within float16 accumulation's bound
// (|C - Ĉ| <= c·k·u16·|A||B|) of the float64 result, strided operands included.
TEST_P(Float16Native, ProductsWithinFloat16AccumulationBound) {
  if (!concord::test::can_store(GetParam(), float16)) GTEST_SKIP() << "float16 is not stored on " << GetParam().label;
  Float16PolicyGuard g(Float16Policy::native);
  concord::testing::ModelOptions f16acc;
  f16acc.accumulate = float16;
  const Tensor a = sample({3, 37, 70}, 1), b = sample({3, 70, 45}, 2);
  const Tensor ah = a.to(float16).to(device()), bh = b.to(float16).to(device());
  auto m = concord::testing::check_matmul(matmul(ah, bh).to(kCPU), a, b, 2.0, f16acc);
  EXPECT_TRUE(m.ok) << m.str();
  // Transposed views (read in place through their strides).
  const Tensor at = sample({70, 37}, 3), bt = sample({45, 70}, 4);
  m = concord::testing::check_matmul(mm(at.to(float16).to(device()).t(), bt.to(float16).to(device()).t()).to(kCPU), at.t(),
                            bt.t(), 2.0, f16acc);
  EXPECT_TRUE(m.ok) << m.str();
  // addmm: beta·c + alpha·(a @ b), alpha and beta exact in float16.
  const Tensor c = sample({37, 45}, 5), a2 = sample({37, 70}, 6);
  const Tensor got = addmm(c.to(float16).to(device()), a2.to(float16).to(device()), bh.select(0, 0), 0.5, 2.0).to(kCPU);
  const Tensor want = add(mul(c, 0.5), mul(matmul(a2, b.select(0, 0)), 2.0));
  const auto g64 = got.to_vector<double>(), w64 = want.to_vector<double>();
  const auto mag = matmul(abs(a2), abs(b.select(0, 0))).to_vector<double>();
  const auto cm = c.to_vector<double>();
  for (size_t i = 0; i < g64.size(); ++i) {
    const double bound = 8 * 70 * std::ldexp(1.0, -11) * (2 * mag[i] + 0.5 * std::fabs(cm[i])) + 0.05;
    ASSERT_LE(std::fabs(g64[i] - w64[i]), bound) << "element " << i;
  }
}

// The parity judge reads the path: every linear-algebra case passes under the
// policy, judged by float16 accumulation where the float16 kernel ran.
TEST_P(Float16Native, ParityCasesPassUnderThePolicy) {
  if (!concord::test::can_store(GetParam(), float16)) GTEST_SKIP() << "float16 is not stored on " << GetParam().label;
  Float16PolicyGuard g(Float16Policy::native);
  int judged = 0;
  for (const auto& c : concord::testing::parity_cases(true)) {
    if (op_def(c.op).family != OpFamily::linear) continue;
    const auto r = concord::testing::judge(c, device(), float16, 7);
    if (!r.applicable) continue;
    ++judged;
    EXPECT_NE(r.verdict, concord::testing::Verdict::fail) << c.op_name() << " | " << c.variant << ": " << r.detail;
  }
  EXPECT_GT(judged, 8);
}

// A profile without float16 arithmetic removes the float16 kernels.
TEST(Float16NativeProfile, NoFp16ProfileKeepsTheExactPath) {
  for (const Device& d : devices()) {
    if (!has_f16_kernel(d)) continue;
    ProfileGuard p(d, "no-fp16");
    Float16PolicyGuard g(Float16Policy::native);
    EXPECT_EQ(support(OpId::matmul, d, float16).path, Path::widened) << d.str();
  }
}

CONCORD_INSTANTIATE_DEVICES(Float16Native);
