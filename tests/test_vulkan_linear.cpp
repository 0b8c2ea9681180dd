// The Vulkan GEMM (src/backend/vulkan/linear.cpp, shaders/gemm.comp) where the
// conformance suite's small cases cannot reach it: products spanning several
// 64x64 tiles and 16-deep K steps with ragged edges, batches with broadcast,
// transposed and permuted operands, alpha/beta with an addend, integer
// wrap-around, and grids above the device's workgroup-count limit. Every
// result is compared with a float64 loop here. Runs on the vulkan:N
// configurations of CONCORD_TEST_DEVICES; skips without a Vulkan device.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "concord/concord.h"
#include "support/devices.h"

namespace concord {
namespace {

std::vector<test::DeviceConfig> vulkan_configs() {
  std::vector<test::DeviceConfig> out;
  for (const auto& c : test::test_devices())
    if (c.device.str().rfind("vulkan:", 0) == 0) out.push_back(c);
  return out;
}

// Values exact in t: uniform in [-1, 1] rounded to t for floats, integers in [-8, 8].
std::vector<double> values(int64_t n, Dtype t, uint32_t seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> uf(-1.0, 1.0);
  std::uniform_int_distribution<int> ui(-8, 8);
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) x = is_floating(t) ? uf(g) : ui(g);
  // Round through the dtype itself so the reference sees the stored values.
  Tensor r = from_host(v.data(), Shape{n}, float64, kCPU).to(t).to(float64);
  return r.to_vector<double>();
}

Tensor make(const Shape& shape, Dtype t, const Device& d, uint32_t seed) {
  std::vector<double> v = values(numel(shape), t, seed);
  return from_host(v.data(), shape, float64, kCPU).to(t).to(d);
}

// Wraps an exact integer result to t's width, as the CPU's loop does.
double wrap(Dtype t, double x) {
  const auto i = static_cast<int64_t>(x);
  switch (t) {
    case Dtype::uint8: return static_cast<uint8_t>(i);
    case Dtype::int8: return static_cast<int8_t>(i);
    case Dtype::int16: return static_cast<int16_t>(i);
    case Dtype::int32: return static_cast<int32_t>(i);
    default: return static_cast<double>(i);
  }
}

double unit(Dtype t) {
  switch (t) {
    case Dtype::float16: return std::ldexp(1.0, -11);
    case Dtype::bfloat16: return std::ldexp(1.0, -8);
    case Dtype::float32: return std::ldexp(1.0, -24);
    default: return std::ldexp(1.0, -53);
  }
}

// got [Bt, M, N] == beta·c + alpha·(a @ b) for a [Bt, M, K], b [Bt, K, N]
// (any views: read back element by element), c broadcast to [Bt, M, N] or none.
void expect_product(const Tensor& got, const Tensor& a, const Tensor& b, double alpha = 1, double beta = 0,
                    const Tensor* c = nullptr) {
  const Dtype t = got.dtype();
  const int64_t Bt = got.size(0), M = got.size(1), N = got.size(2), K = a.size(2);
  const std::vector<double> g = got.to_vector<double>();
  const std::vector<double> va = a.contiguous().to_vector<double>(), vb = b.contiguous().to_vector<double>();
  std::vector<double> vc;
  if (c) vc = c->expand(got.shape()).contiguous().to_vector<double>();
  const double ua = t == float64 ? unit(float64) : unit(float32);
  int failures = 0;
  for (int64_t bi = 0; bi < Bt && failures < 5; ++bi)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double s = 0, mag = 0;
        for (int64_t k = 0; k < K; ++k) {
          const double p = va[static_cast<size_t>((bi * M + i) * K + k)] * vb[static_cast<size_t>((bi * K + k) * N + j)];
          s += p;
          mag += std::fabs(p);
        }
        const size_t at = static_cast<size_t>((bi * M + i) * N + j);
        const double addend = c ? beta * vc[at] : 0.0;
        double want = alpha * s + addend, bound = 0;
        if (!is_floating(t)) {
          want = wrap(t, want);
        } else {
          const double acc = 2.0 * static_cast<double>(K + 2) * ua * (std::fabs(alpha) * mag + std::fabs(addend));
          bound = is_half(t) ? acc + unit(t) * (std::fabs(want) + acc) : acc;
        }
        if (!(std::fabs(g[at] - want) <= bound) && failures++ < 5)
          ADD_FAILURE() << name(t) << " [" << bi << "," << i << "," << j << "]: got " << g[at] << ", want " << want
                        << " within " << bound;
      }
}

Tensor b3(const Tensor& t) { return t.ndim() == 3 ? t : t.unsqueeze(0); }

class VulkanLinear : public ::testing::TestWithParam<test::DeviceConfig> {
 protected:
  void SetUp() override { scope_ = std::make_unique<test::ConfigScope>(GetParam()); }
  const Device& device() const { return GetParam().device; }
  std::vector<Dtype> dtypes() const {
    std::vector<Dtype> out;
    for (Dtype t : {uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64})
      if (capabilities(device()).can_store(t)) out.push_back(t);
    return out;
  }
  std::unique_ptr<test::ConfigScope> scope_;
};

TEST_P(VulkanLinear, RaggedTilesInEveryDtype) {
  // Every register block the device picks (on lavapipe RB = 1, 4 and 8: see linear.cpp).
  const int64_t shapes[][3] = {{67, 129, 33}, {65, 17, 130}, {1, 200, 70}, {129, 3, 1}, {130, 33, 131}, {193, 40, 67}, {257, 40, 259}};
  for (Dtype t : dtypes()) {
    uint32_t seed = 1;
    for (const auto& s : shapes) {
      SCOPED_TRACE(std::string(name(t)) + " " + std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" +
                   std::to_string(s[2]));
      Tensor a = make({s[0], s[1]}, t, device(), seed++), b = make({s[1], s[2]}, t, device(), seed++);
      reset_report();
      Tensor c = mm(a, b);
      EXPECT_EQ(report().count("mm", device().str(), t, Path::fallback), 0u) << report();
      expect_product(b3(c), b3(a), b3(b));
    }
  }
}

TEST_P(VulkanLinear, BatchedBroadcastTransposedAndPermuted) {
  for (Dtype t : {float32, float16, int32}) {
    SCOPED_TRACE(name(t));
    Tensor a = make({3, 67, 33}, t, device(), 31), b = make({3, 33, 129}, t, device(), 32);
    expect_product(bmm(a, b), a, b);
    // A shared right operand (batch stride 0).
    Tensor w = make({33, 129}, t, device(), 33);
    expect_product(matmul(a, w), a, w.unsqueeze(0).expand({3, 33, 129}));
    // Transposed matrices in a batch, and a batch dim that is not the outermost one.
    Tensor at = make({3, 33, 67}, t, device(), 34).transpose(1, 2);
    Tensor bt = make({3, 129, 33}, t, device(), 35).transpose(1, 2);
    expect_product(bmm(at, bt), at, bt);
    Tensor ap = make({67, 3, 33}, t, device(), 36).permute({1, 0, 2});
    expect_product(bmm(ap, bt), ap, bt);
  }
}

TEST_P(VulkanLinear, AlphaBetaAndIntegerWrap) {
  for (Dtype t : {float32, bfloat16, float16, int8, int64}) {
    SCOPED_TRACE(name(t));
    Tensor in = make({1, 67, 1}, t, device(), 41);  // broadcast addend
    Tensor a = make({2, 67, 129}, t, device(), 42), b = make({2, 129, 33}, t, device(), 43);
    // int8: sums of 129 products of [-8, 8] values wrap.
    expect_product(baddbmm(in, a, b, Scalar(-3), Scalar(2)), a, b, 2, -3, &in);
    Tensor flat = in.view({67, 1});
    expect_product(b3(addmm(flat, a.select(0, 1), b.select(0, 0), Scalar(1), Scalar(-1))), b3(a.select(0, 1)),
                   b3(b.select(0, 0)), -1, 1, &flat);
  }
}

// Sums longer than one dispatch takes (2^18 K steps): several dispatches add
// their partial products; halves still round once, integers stay exact.
TEST_P(VulkanLinear, LongSumsTakeSeveralDispatches) {
  const int64_t K = 270000;  // two dispatches
  for (Dtype t : {float32, bfloat16, int8}) {
    SCOPED_TRACE(name(t));
    Tensor a = make({1, 2, K}, t, device(), 61), b = make({1, K, 3}, t, device(), 62);
    Tensor in = make({1, 2, 3}, t, device(), 63);
    expect_product(baddbmm(in, a, b, Scalar(2), Scalar(-1)), a, b, -1, 2, &in);
    Tensor v = a.select(0, 0).select(0, 1);
    expect_product(b3(dot(v, v).view({1, 1})), v.view({1, 1, K}), v.view({1, K, 1}));
  }
}

// float16 products (gemm_coop.comp on devices listing VK_NV_cooperative_matrix
// for float16 matmul, gemm.comp elsewhere): an inf in a ragged last row and
// column reaches exactly its row and column (the zero padding of the staged
// panels never meets it in a stored element), NaN where it meets a zero, and
// an empty sum is beta·out alone.
TEST_P(VulkanLinear, Float16SpecialValuesAndEmptySums) {
  if (!capabilities(device()).can_store(float16)) GTEST_SKIP() << device().str() << " cannot store float16";
  const int64_t M = 70, K = 37, N = 67;
  std::vector<double> va = values(M * K, float16, 71), vb = values(K * N, float16, 72);
  va[static_cast<size_t>(69 * K + 5)] = INFINITY;
  vb[static_cast<size_t>(7 * N + 66)] = -INFINITY;
  vb[static_cast<size_t>(5 * N + 3)] = 0.0;  // inf * 0 at [69, 3]: NaN
  Tensor a = from_host(va.data(), Shape{M, K}, float64, kCPU).to(float16).to(device());
  Tensor b = from_host(vb.data(), Shape{K, N}, float64, kCPU).to(float16).to(device());
  const std::vector<double> got = mm(a, b).to_vector<double>();
  int failures = 0;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double s = 0, mag = 0;
      for (int64_t k = 0; k < K; ++k) {
        s += va[static_cast<size_t>(i * K + k)] * vb[static_cast<size_t>(k * N + j)];
        mag += std::fabs(va[static_cast<size_t>(i * K + k)] * vb[static_cast<size_t>(k * N + j)]);
      }
      const double g = got[static_cast<size_t>(i * N + j)];
      bool ok;
      if (std::isnan(s)) ok = std::isnan(g);
      else if (std::isinf(s)) ok = g == s;
      else {
        const double acc = 2.0 * static_cast<double>(K + 2) * unit(float32) * mag;
        ok = std::fabs(g - s) <= acc + unit(float16) * (std::fabs(s) + acc);
      }
      if (!ok && failures++ < 5) ADD_FAILURE() << "[" << i << "," << j << "]: got " << g << ", want " << s;
    }
  // K = 0: beta·in alone, alpha times an empty sum adds nothing.
  Tensor in = make({5, 6}, float16, device(), 73);
  Tensor e = addmm(in, zeros({5, 0}, float16, device()), zeros({0, 6}, float16, device()), Scalar(2), Scalar(3));
  const std::vector<double> vi = in.to_vector<double>(), ve = e.to_vector<double>();
  for (size_t i = 0; i < vi.size(); ++i) EXPECT_EQ(ve[i], static_cast<double>(static_cast<float>(2 * vi[i]))) << i;
}

TEST_P(VulkanLinear, GridsAboveTheWorkgroupCountLimit) {
  // 70000 matrices: one workgroup each along z, past the 65535 many devices allow.
  Tensor a = make({70000, 2, 3}, float32, device(), 51), b = make({70000, 3, 2}, float32, device(), 52);
  expect_product(bmm(a, b), a, b);
}

TEST(VulkanLinearDevices, Present) {
  if (vulkan_configs().empty()) GTEST_SKIP() << "no vulkan device in CONCORD_TEST_DEVICES (or none found)";
}

INSTANTIATE_TEST_SUITE_P(Devices, VulkanLinear, ::testing::ValuesIn(vulkan_configs()), test::config_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(VulkanLinear);

}  // namespace
}  // namespace concord
