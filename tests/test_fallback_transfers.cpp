// The CPU fallback moves what the operands hold, not what they expand to:
// a broadcast (stride-0) operand crosses as its unexpanded data and is
// expanded again on the CPU. Bytes are read from the report.
#include <gtest/gtest.h>

#include <vector>

#include "support/devices.h"

namespace concord {
namespace {

using test::DeviceTest;

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

}  // namespace
}  // namespace concord
