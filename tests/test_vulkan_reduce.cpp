// The Vulkan reductions (src/backend/vulkan/reduce.cpp, shaders/reduce.comp)
// where the conformance and device-kernel suites do not reach: cumsum lines
// longer than one launch takes, argmax/argmin over several blocks with ties
// and NaNs across block edges, reductions over non-adjacent, flipped and
// broadcast dims, integer wrap-around, signed zeros, and every op running
// natively (no CPU fallback). Results are the CPU backend's bits where the op
// promises them. Runs on the vulkan:N configurations of CONCORD_TEST_DEVICES;
// skips without a Vulkan device.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "concord/concord.h"
#include "support/devices.h"

namespace concord {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<test::DeviceConfig> vulkan_configs() {
  std::vector<test::DeviceConfig> out;
  for (const auto& c : test::test_devices())
    if (c.device.str().rfind("vulkan:", 0) == 0) out.push_back(c);
  return out;
}

// n values in [lo, hi] (integers when `ints`), on the CPU in dtype t.
Tensor make(const Shape& shape, Dtype t, double lo, double hi, uint32_t seed, bool ints = false) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(static_cast<size_t>(numel(shape)));
  for (double& x : v) x = ints ? std::round(u(g)) : u(g);
  return from_host(v.data(), shape, float64, kCPU).to(t);
}

// The bytes of t, every NaN element as 0xff bytes: Vulkan leaves NaN bits
// free (Capabilities::keeps_nan_payloads; NVIDIA's are all 0x7fff...), so only
// NaN-ness is compared.
std::vector<uint8_t> bytes(const Tensor& t) {
  Tensor h = t.to(kCPU).contiguous();
  std::vector<uint8_t> b(h.nbytes());
  if (!b.empty()) std::memcpy(b.data(), h.raw_data(), b.size());
  if (is_floating(h.dtype())) {
    const std::vector<double> v = h.to_vector<double>();
    const size_t isz = itemsize(h.dtype());
    for (size_t i = 0; i < v.size(); ++i)
      if (std::isnan(v[i])) std::memset(b.data() + i * isz, 0xff, isz);
  }
  return b;
}

class VulkanReduce : public ::testing::TestWithParam<test::DeviceConfig> {
 protected:
  void SetUp() override { scope_ = std::make_unique<test::ConfigScope>(GetParam()); }
  const Device& device() const { return GetParam().device; }
  bool stores(Dtype t) const { return capabilities(device()).can_store(t); }
  // Expects no CPU fallback for op since the last reset_report().
  void expect_native(const char* op) const {
    EXPECT_EQ(report().count(op, Path::fallback), 0u) << op << "\n" << report();
  }
  std::unique_ptr<test::ConfigScope> scope_;
};

// 40000-element lines: three launches of 16384, the running sum carried in
// the accumulator (float32 for float16, not the rounded output).
TEST_P(VulkanReduce, CumsumLinesLongerThanOneLaunch) {
  for (Dtype t : {float32, float16, int32, float64}) {
    if (!stores(t)) continue;
    SCOPED_TRACE(name(t));
    const bool fl = is_floating(t);
    const Tensor x = make({40000, 2}, t, fl ? -1 : -100, fl ? 1 : 100, 7, !fl);
    const Tensor xd = x.to(device());
    reset_report();
    const Tensor got0 = cumsum(xd, 0), got1 = cumsum(xd.t(), 1);
    expect_native("cumsum");
    EXPECT_EQ(bytes(got0), bytes(cumsum(x, 0)));
    EXPECT_EQ(bytes(got1), bytes(cumsum(x.t(), 1)));
  }
}

// Rows of 20000 (five blocks of 4096): few distinct values, so the first
// occurrence of the extreme is often in a later block than a tie; a NaN in a
// later block wins over everything, the first NaN over later ones.
TEST_P(VulkanReduce, ArgmaxArgminOverSeveralBlocks) {
  for (Dtype t : {float32, bfloat16, int16, uint8, float64}) {
    if (!stores(t)) continue;
    SCOPED_TRACE(name(t));
    Tensor x = make({3, 20000}, t, t == uint8 ? 0 : -9, 9, 11, true);
    if (is_floating(t)) {
      std::vector<double> v = x.to_vector<double>();
      v[20000 + 9000] = kNaN, v[20000 + 15000] = kNaN;
      x = from_host(v.data(), Shape{3, 20000}, float64, kCPU).to(t);
    }
    const Tensor xd = x.to(device());
    reset_report();
    const Tensor a1 = argmax(xd, 1), b1 = argmin(xd, 1), a0 = argmax(xd.t(), 0), flat = argmin(xd);
    expect_native("argmax");
    expect_native("argmin");
    EXPECT_EQ(bytes(a1), bytes(argmax(x, 1)));
    EXPECT_EQ(bytes(b1), bytes(argmin(x, 1)));
    EXPECT_EQ(bytes(a0), bytes(argmax(x.t(), 0)));
    EXPECT_EQ(bytes(flat), bytes(argmin(x)));
  }
}

// More block winners than one invocation scans (reduce.cpp's kArgGroup = 32):
// rows of 40 blocks (one merge round) and a flat tensor of 1100 blocks (two
// rounds). The extreme is planted twice, the first copy in an earlier group,
// or in the same group; NaN in a late group beats every number, the first
// NaN beats later ones.
TEST_P(VulkanReduce, ArgmaxArgminMergeRoundsKeepTheFirstExtreme) {
  const int64_t row = 40 * 4096;
  std::vector<double> v(static_cast<size_t>(4 * row));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(static_cast<int>(i * 2654435761u % 17) - 8);
  auto plant = [&](int64_t r, int64_t at, double x) { v[static_cast<size_t>(r * row + at)] = x; };
  plant(0, 4096 * 33 + 7, 50), plant(0, 4096 * 39 + 1, 50), plant(0, 4096 * 2, -50), plant(0, 4096 * 38, -50);
  plant(1, 4096 * 5 + 3, 50), plant(1, 4096 * 35, 50), plant(1, 4096 * 36, -50), plant(1, 4096 * 37, -50);
  plant(2, 4096 * 36 + 2, kNaN), plant(2, 4096 * 39, kNaN), plant(2, 7, 50);
  plant(3, 4096 * 31 + 5, 50), plant(3, 4096 * 32 + 5, 50);  // the last of group 0, the first of group 1
  const Tensor x = from_host(v.data(), Shape{4, row}, float64, kCPU).to(float32);
  const Tensor xd = x.to(device());
  reset_report();
  EXPECT_EQ(bytes(argmax(xd, 1)), bytes(argmax(x, 1)));
  EXPECT_EQ(bytes(argmin(xd, 1)), bytes(argmin(x, 1)));
  expect_native("argmax");
  EXPECT_EQ(argmax(xd, 1).to_vector<int64_t>(), (std::vector<int64_t>{4096 * 33 + 7, 4096 * 5 + 3, 4096 * 36 + 2, 4096 * 31 + 5}));
  // 1100 blocks in one row: 35 groups, then 2, then the final scan.
  std::vector<double> w(static_cast<size_t>(1100 * 4096), 1.0);
  w[4096 * 1000 + 9] = 3, w[4096 * 1099] = 3, w[4096 * 700] = -2, w[4096 * 10] = -2;
  const Tensor y = from_host(w.data(), Shape{1100 * 4096}, float64, kCPU).to(float32);
  EXPECT_EQ(argmax(y.to(device())).item<int64_t>(), 4096 * 1000 + 9);
  EXPECT_EQ(argmin(y.to(device())).item<int64_t>(), 4096 * 10);
}

// Reduced dims that are not adjacent, flipped (negative strides), broadcast
// (stride 0) and longer than a block: the CPU's bits for every op that
// promises them, natively.
TEST_P(VulkanReduce, StridedFlippedAndBroadcastViews) {
  for (Dtype t : {float32, float16, float64}) {
    if (!stores(t)) continue;
    const Tensor base = make({6, 50, 7, 40}, t, -2, 3, 21);
    const std::vector<std::pair<Tensor, Dims>> cases = {
        {base, Dims{0, 2}},
        {flip(base, {1}).permute({3, 1, 0, 2}), Dims{1, 3}},
        {base.select(2, 3).unsqueeze(1).expand({6, 90, 50, 40}), Dims{1, 2}},
        {base.slice(1, 1, std::nullopt, 3), Dims{0, 1, 3}},
    };
    for (size_t c = 0; c < cases.size(); ++c) {
      const auto& [x, dims] = cases[c];
      SCOPED_TRACE(std::string(name(t)) + " case " + std::to_string(c));
      const Tensor xd = x.to(device());
      reset_report();
      EXPECT_EQ(bytes(sum(xd, dims)), bytes(sum(x, dims)));
      EXPECT_EQ(bytes(mean(xd, dims)), bytes(mean(x, dims)));
      EXPECT_EQ(bytes(prod(xd, dims)), bytes(prod(x, dims)));
      EXPECT_EQ(bytes(amax(xd, dims)), bytes(amax(x, dims)));
      EXPECT_EQ(bytes(amin(xd, dims)), bytes(amin(x, dims)));
      EXPECT_EQ(bytes(var(xd, dims)), bytes(var(x, dims)));
      EXPECT_EQ(bytes(var(xd, dims, 0)), bytes(var(x, dims, 0)));
      EXPECT_EQ(bytes(concord::std(xd, dims)), bytes(concord::std(x, dims)));
      for (double p : {1.0, 2.0, kInf}) EXPECT_EQ(bytes(norm(xd, p, dims)), bytes(norm(x, p, dims))) << p;
      for (const char* op : {"sum", "mean", "prod", "amax", "amin", "var", "std", "norm"}) expect_native(op);
    }
  }
}

// Rows of more than 1024 blocks: the block tree's upper nodes are evaluated
// by their own invocations first; the same tree, the same bits.
TEST_P(VulkanReduce, RowsOfManyBlocks) {
  const Tensor x = make({2, 4400000}, float32, -1, 2, 41);
  const Tensor xd = x.to(device());
  reset_report();
  EXPECT_EQ(bytes(sum(xd, {1})), bytes(sum(x, {1})));
  EXPECT_EQ(bytes(mean(xd, {1})), bytes(mean(x, {1})));
  EXPECT_EQ(bytes(amax(xd, {1})), bytes(amax(x, {1})));
  EXPECT_EQ(bytes(var(xd, {1})), bytes(var(x, {1})));
  for (const char* op : {"sum", "mean", "amax", "var"}) expect_native(op);
}

// Integer sums and products accumulate in int64 and wrap; max/min keep the dtype.
TEST_P(VulkanReduce, IntegerWrapAndExtremes) {
  for (Dtype t : {int64, int32, int8, uint8}) {
    SCOPED_TRACE(name(t));
    const Tensor x = make({5, 9000}, t, t == uint8 ? 0 : -120, 120, 31, true);
    const Tensor xd = x.to(device());
    reset_report();
    EXPECT_EQ(bytes(sum(xd, {1})), bytes(sum(x, {1})));
    EXPECT_EQ(bytes(prod(xd, {1})), bytes(prod(x, {1})));  // wraps in int64
    EXPECT_EQ(bytes(prod(xd, {1}, false, t)), bytes(prod(x, {1}, false, t)));
    EXPECT_EQ(bytes(amax(xd, {0})), bytes(amax(x, {0})));
    EXPECT_EQ(bytes(amin(xd, {0, 1})), bytes(amin(x, {0, 1})));
    EXPECT_EQ(bytes(all(xd, {1})), bytes(all(x, {1})));
    EXPECT_EQ(bytes(any(xd, {0})), bytes(any(x, {0})));
    for (const char* op : {"sum", "prod", "amax", "amin", "all", "any"}) expect_native(op);
  }
  // int64 sums past 2^63 wrap as on the CPU.
  const std::vector<int64_t> big(5000, int64_t{1} << 61);
  const Tensor b = from_host(big.data(), Shape{5000}, int64, kCPU);
  EXPECT_EQ(bytes(sum(b.to(device()))), bytes(sum(b)));
}

// Signed zeros survive (the lanes start at -0.0), NaN and infinities as on the CPU.
TEST_P(VulkanReduce, SignedZerosInfinitiesAndNaN) {
  for (Dtype t : {float32, float16, float64}) {
    if (!stores(t)) continue;
    SCOPED_TRACE(name(t));
    std::vector<double> v(3 * 5000, -0.0);
    v[5000 + 17] = kInf, v[5000 + 4500] = -kInf;  // row 1: inf + -inf
    v[2 * 5000 + 4096] = kNaN;                     // row 2: NaN in the second block
    const Tensor x = from_host(v.data(), Shape{3, 5000}, float64, kCPU).to(t);
    const Tensor xd = x.to(device());
    EXPECT_EQ(bytes(sum(xd, {1})), bytes(sum(x, {1})));
    EXPECT_EQ(bytes(mean(xd, {1})), bytes(mean(x, {1})));
    EXPECT_EQ(bytes(amax(xd, {1})), bytes(amax(x, {1})));
    EXPECT_EQ(bytes(amin(xd, {1})), bytes(amin(x, {1})));
    EXPECT_EQ(bytes(var(xd, {1})), bytes(var(x, {1})));
    EXPECT_EQ(bytes(norm(xd, 2.0, {1})), bytes(norm(x, 2.0, {1})));
    EXPECT_EQ(bytes(cumsum(xd, 1)), bytes(cumsum(x, 1)));
    // logsumexp of -inf only is -inf; softmax of a row with one finite value is one-hot.
    std::vector<double> w(2 * 10, -kInf);
    w[10 + 3] = 1.5;
    const Tensor y = from_host(w.data(), Shape{2, 10}, float64, kCPU).to(t);
    const std::vector<double> lse = logsumexp(y.to(device()), {1}).to_vector<double>();
    EXPECT_EQ(lse[0], -kInf);
    EXPECT_EQ(lse[1], 1.5);
    const std::vector<double> sm = softmax(y.to(device()), 1).to_vector<double>();
    for (int i = 0; i < 10; ++i) EXPECT_EQ(sm[static_cast<size_t>(10 + i)], i == 3 ? 1.0 : 0.0) << i;
  }
}

TEST(VulkanReduceDevices, Present) {
  if (vulkan_configs().empty()) GTEST_SKIP() << "no vulkan device in CONCORD_TEST_DEVICES (or none found)";
}

INSTANTIATE_TEST_SUITE_P(Devices, VulkanReduce, ::testing::ValuesIn(vulkan_configs()), test::config_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(VulkanReduce);

}  // namespace
}  // namespace concord
