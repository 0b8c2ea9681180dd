// The CPU fallback and the dispatcher's messages.
// 1. What a fallback moves: a broadcast (stride-0) operand crosses as its
//    unexpanded data and is expanded again on the CPU (bytes from the report).
// 2. One spelling per op in messages (op_label, from the op table): argument
//    checks, LinAlgError, the dispatcher's fallback and dtype errors and
//    warnings, and errors raised inside a fallback all name linalg::solve
//    "[linalg.solve]", and add "[add]".
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/devices.h"

namespace concord {
namespace {

using test::DeviceTest;

// ---- what a fallback moves ----
class FallbackTransfers : public DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (device().is_cpu()) GTEST_SKIP() << "the CPU has no fallback";
  }
};

std::vector<float> iota_f(int64_t n, float scale) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(i % 97) * scale;
  return v;
}

TEST_P(FallbackTransfers, ExpandedOperandMovesItsOwnBytes) {
  const Device d = device();
  const std::vector<float> xv = iota_f(8 * 48 * 48, 0.5f), yv = iota_f(48 * 48, 0.25f);
  const Tensor x = from_host(xv.data(), {8, 48, 48}, float32, d);
  const Tensor y = from_host(yv.data(), {48, 48}, float32, d);
  const Tensor ye = y.expand({8, 48, 48});  // 73,728 bytes as a dense tensor, 9,216 held
  ProfileGuard g(d, "no-op:add");
  reset_report();
  const Tensor out = add(x, ye);
  const Report r = report();
  ASSERT_EQ(r.count("add", d.str(), float32, Path::fallback), 1u);
  // x (73,728) and y's own 9,216 bytes to the CPU; the result (73,728) back.
  EXPECT_EQ(r.bytes(d.str(), "cpu"), 73728u + 9216u);
  EXPECT_EQ(r.bytes("cpu", d.str()), 73728u);
  // Values: the CPU's float32 sums.
  const std::vector<float> o = out.to_vector<float>();
  ASSERT_EQ(o.size(), xv.size());
  for (size_t i = 0; i < o.size(); ++i) ASSERT_EQ(o[i], xv[i] + yv[i % (48 * 48)]) << i;
}

TEST_P(FallbackTransfers, ExpandedOperandWithACast) {
  // An int32 row broadcast over float32 rows: moved as 3 int32, converted and expanded on the CPU.
  const Device d = device();
  const std::vector<int32_t> rv{1, -2, 3};
  const std::vector<float> xv = iota_f(4 * 3, 1.0f);
  const Tensor row = from_host(rv.data(), {1, 3}, int32, d).expand({4, 3});
  const Tensor x = from_host(xv.data(), {4, 3}, float32, d);
  ProfileGuard g(d, "no-op:mul");
  reset_report();
  const Tensor out = mul(x, row);
  const Report r = report();
  ASSERT_EQ(r.count("mul", d.str(), float32, Path::fallback), 1u);
  EXPECT_EQ(r.bytes(d.str(), "cpu"), 4u * 3 * 4 + 3 * 4);
  const std::vector<float> o = out.to_vector<float>();
  for (size_t i = 0; i < o.size(); ++i) EXPECT_EQ(o[i], xv[i] * static_cast<float>(rv[i % 3])) << i;
}

CONCORD_INSTANTIATE_DEVICES(FallbackTransfers);

// ---- op labels in messages ----

bool starts_with(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

template <class E, class F>
std::string message_of(F fn) {
  try {
    fn();
  } catch (const E& e) {
    return e.what();
  }
  return "(no " + std::string(typeid(E).name()) + ")";
}

TEST(OpLabels, FromTheOpTable) {
  EXPECT_EQ(op_label(OpId::solve), "linalg.solve");
  EXPECT_EQ(op_label(OpId::matrix_norm), "linalg.matrix_norm");
  EXPECT_EQ(op_label(OpId::add), "add");
  // Every linalg-family op carries the prefix, no other op does.
  for (int i = 0; i < kNumOps; ++i) {
    const OpId op = static_cast<OpId>(i);
    const bool linalg = op_def(op).family == OpFamily::linalg;
    EXPECT_EQ(op_label(op), (linalg ? "linalg." : "") + std::string(op_name(op)));
  }
}

class OpLabelMessages : public DeviceTest {};

TEST_P(OpLabelMessages, SolveIsLinalgSolveEverywhere) {
  const Device d = device();
  const std::vector<float> sing{1, 2, 2, 4};
  const Tensor a = from_host(sing.data(), {2, 2}, float32, d), b = ones({2}, float32, d);
  // Argument check and LinAlgError.
  EXPECT_TRUE(starts_with(message_of<ShapeError>([&] { linalg::solve(ones({2, 3}, float32, d), b); }),
                          "[linalg.solve] "));
  EXPECT_TRUE(starts_with(message_of<LinAlgError>([&] { linalg::solve(a, b); }), "[linalg.solve] "));
  if (d.is_cpu()) return;
  ProfileGuard g(d, "no-op:solve,no-op:add");
  {  // Strict fallback policy: NotImplementedError.
    FallbackPolicyGuard fp(FallbackPolicy::strict);
    EXPECT_TRUE(starts_with(message_of<NotImplementedError>([&] { linalg::solve(a, b); }), "[linalg.solve] has no"));
    EXPECT_TRUE(starts_with(message_of<NotImplementedError>([&] { add(b, b); }), "[add] has no"));
  }
  // The fallback's warning, and a LinAlgError raised inside the fallback.
  std::vector<std::string> warnings;
  auto prev = set_warning_handler([&](const std::string& m) { warnings.push_back(m); });
  reset_warnings();
  const std::string m = message_of<LinAlgError>([&] { linalg::solve(a, b); });
  set_warning_handler(prev);
  EXPECT_TRUE(starts_with(m, "[linalg.solve] ")) << m;
  EXPECT_NE(m.find("CPU fallback that ran linalg.solve for " + d.str()), std::string::npos) << m;
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_TRUE(starts_with(warnings[0], "[linalg.solve] has no float32 kernel")) << warnings[0];
  // Report entries keep the table's own name.
  reset_report();
  linalg::solve(add(a, from_host(std::vector<float>{1, 0, 0, 1}.data(), {2, 2}, float32, d)), b);
  EXPECT_EQ(report().count("solve", d.str(), float32, Path::fallback), 1u);
}

TEST_P(OpLabelMessages, DtypeErrorsUseTheLabel) {
  const Device d = device();
  const Tensor i = zeros({2, 2}, int32, d);
  EXPECT_TRUE(starts_with(message_of<DtypeError>([&] { linalg::inv(i); }), "[linalg.inv] "));
  EXPECT_TRUE(starts_with(message_of<DtypeError>([&] { linalg::matrix_norm(i); }), "[linalg.matrix_norm] "));
  if (capabilities(d).can_store(float64)) return;
  DtypePolicyGuard g(DtypePolicy::strict);
  const std::vector<double> v{2, 0, 0, 2};
  const Tensor h = from_host(v.data(), {2, 2}, float64, kCPU);
  EXPECT_TRUE(starts_with(message_of<UnsupportedDtypeError>([&] { h.to(d); }), "[copy] float64"));
}

CONCORD_INSTANTIATE_DEVICES(OpLabelMessages);

}  // namespace
}  // namespace concord
