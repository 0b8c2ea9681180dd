// Vulkan index_select, gather, tril/triu and random numbers
// (src/backend/vulkan/index.cpp, random.cpp) where the conformance suite and
// the device-kernel suites do not reach: int32 indices that are negative
// (sign extension in the shader), inputs with negative strides and indices
// with stride 0, launches larger than one row of 65535 workgroups, and a
// random draw into a tensor that starts inside its buffer. Results are the
// CPU's bits. Runs on the vulkan:N configurations of CONCORD_TEST_DEVICES.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "concord/concord.h"
#include "core/backend.h"
#include "support/devices.h"

namespace concord {
namespace {

std::vector<test::DeviceConfig> vulkan_configs() {
  std::vector<test::DeviceConfig> out;
  for (const auto& c : test::test_devices())
    if (c.device.str().rfind("vulkan:", 0) == 0) out.push_back(c);
  return out;
}

class VulkanIndex : public ::testing::TestWithParam<test::DeviceConfig> {
 protected:
  void SetUp() override { scope_ = std::make_unique<test::ConfigScope>(GetParam()); }
  const Device& dev() const { return GetParam().device; }
  std::unique_ptr<test::ConfigScope> scope_;
};

std::vector<uint8_t> bytes_of(const Tensor& t) {
  const Tensor h = t.to(kCPU).contiguous();
  const auto* p = static_cast<const uint8_t*>(h.raw_data());
  return std::vector<uint8_t>(p, p + h.numel() * static_cast<int64_t>(itemsize(h.dtype())));
}

// x viewed backwards along dim (negative stride), as flip's front end does.
Tensor reversed(const Tensor& x, int64_t dim) {
  Strides st = x.strides();
  const int64_t offset = x.offset() + (x.size(dim) - 1) * st[static_cast<size_t>(dim)];
  st[static_cast<size_t>(dim)] = -st[static_cast<size_t>(dim)];
  return Tensor(x.storage(), x.shape(), st, offset, x.dtype());
}

TEST_P(VulkanIndex, NegativeInt32IndicesAreRejectedNeverFollowed) {
  for (Dtype t : {uint8, int16, float32, int64}) {
    const Tensor x = arange(0, 20, 1, int64, dev()).to(t).view({4, 5});
    for (int32_t bad : {-1, -5, std::numeric_limits<int32_t>::min()}) {
      SCOPED_TRACE(std::string(name(t)) + " index " + std::to_string(bad));
      const Tensor idx = from_vector<int32_t>({0, bad, 1}, {3}).to(dev());
      try {
        (void)index_select(x, 0, idx);
        ADD_FAILURE() << "no error";
      } catch (const ShapeError& e) {
        const std::string m = e.what();
        EXPECT_EQ(m.rfind("[index_select]", 0), 0u) << m;
        EXPECT_NE(m.find("index " + std::to_string(bad)), std::string::npos) << m;
        EXPECT_NE(m.find(dev().str()), std::string::npos) << m;
      }
    }
    const Tensor ok = from_vector<int32_t>({3, 0, 2}, {3});
    EXPECT_EQ(bytes_of(index_select(x, 0, ok.to(dev()))), bytes_of(index_select(x.to(kCPU), 0, ok)));
  }
}

TEST_P(VulkanIndex, NegativeStridesAndBroadcastIndices) {
  const Tensor xc = arange(0, 4 * 6 * 5, 1, int64, kCPU).to(float32).view({4, 6, 5});
  const Tensor xd = xc.to(dev());
  for (int64_t d = 0; d < 3; ++d) {
    SCOPED_TRACE("dim " + std::to_string(d));
    const Tensor rc = reversed(xc, d), rd = reversed(xd, d);
    const Tensor idx = from_vector<int64_t>({3, 1, 0, 3}, {4});
    EXPECT_EQ(bytes_of(index_select(rd, d, idx.to(dev()))), bytes_of(index_select(rc, d, idx)));
    // gather with an index broadcast (stride 0) over the other dims.
    Shape one(3, 1), full = xc.shape();
    one[static_cast<size_t>(d)] = 2;
    full[static_cast<size_t>(d)] = 2;
    const Tensor gi = from_vector<int64_t>({2, 0}, one).expand(full);
    EXPECT_EQ(bytes_of(gather(rd, d, gi.to(dev()).expand(full))), bytes_of(gather(rc, d, gi)));
  }
  for (int64_t diag : {-3, 0, 2})
    EXPECT_EQ(bytes_of(triu(reversed(xd, 2), diag)), bytes_of(triu(reversed(xc, 2), diag)));
}

// More items than 65535 groups of 256 invocations: the launch takes several rows.
TEST_P(VulkanIndex, LaunchesBeyondOneRowOfGroups) {
  const int64_t rows = 4100, cols = 4100;  // 16.8M items > 65535 * 256
  const Tensor x = full({rows, cols}, 7, uint8, dev());
  const Tensor lo = tril(x, 0);
  const std::vector<uint8_t> b = bytes_of(lo);
  ASSERT_EQ(b.size(), static_cast<size_t>(rows * cols));
  for (int64_t r : {int64_t{0}, int64_t{1}, rows / 2, rows - 1})
    for (int64_t c : {int64_t{0}, r, r + 1, cols - 1})
      if (c < cols) EXPECT_EQ(b[static_cast<size_t>(r * cols + c)], c <= r ? 7 : 0) << r << ", " << c;
  const Tensor draw = randint(0, 2, {rows * cols}, bool_, dev(), 11);
  EXPECT_EQ(bytes_of(draw), bytes_of(randint(0, 2, {rows * cols}, bool_, kCPU, 11)));
}

// The kernel writes from the tensor's offset on and nothing before or after it.
TEST_P(VulkanIndex, RandomIntoATensorInsideItsBuffer) {
  const Capabilities& caps = capabilities(dev());
  for (OpId op : {OpId::rand, OpId::randn, OpId::randint}) {
    for (Dtype t : {int8, float16, float32, float64}) {
      if (!caps.has_kernel(op, t)) continue;
      SCOPED_TRACE(std::string(op_name(op)) + " " + std::string(name(t)));
      const Tensor whole = zeros({400}, t, dev()), part = whole.narrow(0, 100, 257);
      const Tensor want = zeros({257}, t, kCPU);
      detail::backend_for(dev()).random(op, part, 5, 1000, -9, 9);
      detail::cpu_backend().random(op, want, 5, 1000, -9, 9);
      EXPECT_EQ(bytes_of(part), bytes_of(want));
      const std::vector<uint8_t> all = bytes_of(whole);
      const size_t isz = itemsize(t);
      for (size_t i = 0; i < all.size(); ++i)
        if (i < 100 * isz || i >= 357 * isz) ASSERT_EQ(all[i], 0) << "byte " << i << " outside the tensor";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Vulkan, VulkanIndex, ::testing::ValuesIn(vulkan_configs()), test::config_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(VulkanIndex);

}  // namespace
}  // namespace concord
