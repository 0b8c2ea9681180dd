// Vulkan elementwise kernels beyond what the conformance suite samples:
// division and sqrt correctly rounded on random bit patterns (every binade,
// subnormals, specials) against the CPU's IEEE results, the float32 math
// functions on wide random inputs against float64, sizes beyond one
// dispatch row, and strided / broadcast / offset views.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "concord/concord.h"
#include "concord/testing.h"

namespace concord {
namespace {

bool have_vulkan() {
  for (const Device& d : devices())
    if (d.str() == "vulkan:0") return true;
  return false;
}
#define NEED_VULKAN() \
  if (!have_vulkan()) GTEST_SKIP() << "no vulkan:0 (install mesa-vulkan-drivers for lavapipe)"

uint64_t mix(uint64_t& s) {
  uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Random bit patterns: every exponent equally likely (subnormals, inf, NaN included).
template <class T>
Tensor random_bits(int64_t n, uint64_t seed) {
  std::vector<T> v(static_cast<size_t>(n));
  for (T& x : v) {
    const uint64_t r = mix(seed);
    std::memcpy(&x, &r, sizeof(T));
  }
  return from_vector(v, {n});
}

// Same bits, NaNs of any payload counting as equal.
// A device that does not promise subnormals is judged on the other elements
// (inputs and results normal, zero or special).
bool keeps_subnormals() { return capabilities(Device("vulkan:0")).keeps_subnormals; }
template <class T>
bool sub(T x) { return std::fpclassify(x) == FP_SUBNORMAL; }

template <class T>
Tensor host_fmod(const Tensor& a, const Tensor& b) {
  auto x = a.to_vector<T>(), y = b.to_vector<T>();
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::fmod(x[i], y[i]);
  return from_vector(x, {static_cast<int64_t>(x.size())});
}

// inter: an intermediate the kernel computes (fmod for remainder and
// floor_divide); a device that may flush subnormals may flush it too, and
// compare it as zero (seen on an NVIDIA H200), so those elements are skipped.
template <class T, class U>
void expect_same_bits(const Tensor& got, const Tensor& want, const char* what, const Tensor& a, const Tensor& b,
                      const Tensor& inter = Tensor()) {
  const auto g = got.to_vector<T>(), w = want.to_vector<T>(), x = a.to_vector<T>(), y = b.to_vector<T>();
  const auto m = inter.defined() ? inter.to_vector<T>() : std::vector<T>(g.size(), T(0));
  ASSERT_EQ(g.size(), w.size());
  const bool subnormals = keeps_subnormals();
  int bad = 0;
  for (size_t i = 0; i < g.size() && bad < 5; ++i) {
    if (std::isnan(g[i]) && std::isnan(w[i])) continue;
    if (!subnormals && (sub(w[i]) || sub(x[i]) || sub(y[i]) || sub(m[i]))) continue;
    U a, b;
    std::memcpy(&a, &g[i], sizeof(T));
    std::memcpy(&b, &w[i], sizeof(T));
    if (a != b) {
      ++bad;
      ADD_FAILURE() << what << " element " << i << ": " << g[i] << " vs the CPU's " << w[i];
    }
  }
}

TEST(VulkanElementwise, DivSqrtRemainderBitsMatchTheCpuFloat32) {
  NEED_VULKAN();
  const Device vk("vulkan:0");
  const int64_t n = 1 << 18;  // > 65535 * 256 / 256: several dispatch rows of groups
  Tensor a = random_bits<float>(n, 1), b = random_bits<float>(n, 2);
  Tensor av = a.to(vk), bv = b.to(vk);
  expect_same_bits<float, uint32_t>(div(av, bv).to(kCPU), div(a, b), "div", a, b);
  expect_same_bits<float, uint32_t>(sqrt(abs(av)).to(kCPU), sqrt(abs(a)), "sqrt", a, b);
  expect_same_bits<float, uint32_t>(reciprocal(av).to(kCPU), reciprocal(a), "reciprocal", a, b);
  const Tensor m = host_fmod<float>(a, b);
  expect_same_bits<float, uint32_t>(remainder(av, bv).to(kCPU), remainder(a, b), "remainder", a, b, m);
  expect_same_bits<float, uint32_t>(floor_divide(av, bv).to(kCPU), floor_divide(a, b), "floor_divide", a, b, m);
}

TEST(VulkanElementwise, DivSqrtRemainderBitsMatchTheCpuFloat64) {
  NEED_VULKAN();
  const Device vk("vulkan:0");
  if (!capabilities(vk).can_store(float64)) GTEST_SKIP() << "vulkan:0 has no float64";
  const int64_t n = 1 << 16;
  Tensor a = random_bits<double>(n, 3), b = random_bits<double>(n, 4);
  Tensor av = a.to(vk), bv = b.to(vk);
  expect_same_bits<double, uint64_t>(div(av, bv).to(kCPU), div(a, b), "div", a, b);
  expect_same_bits<double, uint64_t>(sqrt(abs(av)).to(kCPU), sqrt(abs(a)), "sqrt", a, b);
  const Tensor m = host_fmod<double>(a, b);
  expect_same_bits<double, uint64_t>(remainder(av, bv).to(kCPU), remainder(a, b), "remainder", a, b, m);
  expect_same_bits<double, uint64_t>(floor_divide(av, bv).to(kCPU), floor_divide(a, b), "floor_divide", a, b, m);
}

// Each float32 math op on random float32 values of its whole useful range,
// judged by the op table's bound against the float64 result.
TEST(VulkanElementwise, Float32MathWithinTheTableBounds) {
  NEED_VULKAN();
  const Device vk("vulkan:0");
  struct Case { OpId op; double lo, hi; bool log_scale; };
  const Case cases[] = {
      {OpId::exp, -104, 89, false},   {OpId::expm1, -20, 89, false},  {OpId::expm1, -1e-6, 1e-6, false},
      {OpId::log, 1e-45, 3e38, true}, {OpId::log2, 1e-45, 3e38, true}, {OpId::log1p, -1, 3e38, false},
      {OpId::log1p, 1e-30, 1e-2, true}, {OpId::sin, 1e-30, 3e38, true}, {OpId::cos, 1e-30, 3e38, true},
      {OpId::tan, 1e-30, 3e38, true}, {OpId::sin, -10, 10, false},    {OpId::cos, -100, 100, false},
      {OpId::tan, -1.6, 1.6, false},  {OpId::tanh, -10, 10, false},   {OpId::sigmoid, -104, 30, false},
      {OpId::sqrt, 1e-45, 3e38, true}, {OpId::rsqrt, 1e-45, 3e38, true}, {OpId::erf, -5, 5, false},
      {OpId::erf, 1e-40, 1, true},   {OpId::gelu, -15, 10, false},   {OpId::gelu, 1e-30, 1e30, true}};
  uint64_t seed = 7;
  for (const Case& c : cases) {
    if (!capabilities(vk).has_kernel(c.op, float32)) continue;
    std::vector<float> v(20000);
    for (size_t i = 0; i < v.size(); ++i) {
      const double u = static_cast<double>(mix(seed) >> 11) * 0x1p-53;
      double x = c.log_scale ? std::exp(std::log(c.lo) + u * (std::log(c.hi) - std::log(c.lo))) : c.lo + u * (c.hi - c.lo);
      if (c.log_scale && (mix(seed) & 1) && c.op != OpId::sqrt && c.op != OpId::rsqrt && c.op != OpId::log &&
          c.op != OpId::log2)
        x = -x;
      v[i] = static_cast<float>(x);
      // A device that may flush subnormals may read a subnormal input as 0
      // (log of it is then -inf): such inputs become the smallest normal.
      if (!keeps_subnormals() && sub(v[i])) v[i] = std::copysign(std::numeric_limits<float>::min(), v[i]);
    }
    Tensor x = from_vector(v, {static_cast<int64_t>(v.size())});
    Tensor got = unary(c.op, x.to(vk)).to(kCPU);
    Tensor ref = unary(c.op, x.to(float64));
    auto m = testing::check_elementwise(got, ref, op_def(c.op).bound > 0 ? op_def(c.op).bound : 0.5);
    EXPECT_TRUE(m.ok) << op_name(c.op) << " on [" << c.lo << ", " << c.hi << "]: " << m.str();
    if (std::getenv("CONCORD_TEST_VERBOSE")) std::printf("%s on [%g, %g]: %s (x = %.9g)\n", std::string(op_name(c.op)).c_str(), c.lo, c.hi, m.str().c_str(),
                  m.worst_index.empty() ? 0.0 : double(v[static_cast<size_t>(m.worst_index[0])]));
  }
}

// The float64 math functions the device claims, the same way.
TEST(VulkanElementwise, Float64MathWithinTheTableBounds) {
  NEED_VULKAN();
  const Device vk("vulkan:0");
  if (!capabilities(vk).can_store(float64)) GTEST_SKIP() << "vulkan:0 has no float64";
  struct Case { OpId op; double lo, hi; bool log_scale; };
  const Case cases[] = {
      {OpId::exp, -746, 710, false},  {OpId::expm1, -45, 710, false}, {OpId::expm1, -1e-9, 1e-9, false},
      {OpId::log, 1e-320, 1e308, true}, {OpId::log2, 1e-320, 1e308, true}, {OpId::log1p, -1, 1e308, false},
      {OpId::log1p, 1e-300, 1e-2, true}, {OpId::tanh, -25, 25, false}, {OpId::tanh, 1e-300, 1, true},
      {OpId::sigmoid, -746, 40, false}, {OpId::sin, 1e-300, 1e308, true}, {OpId::cos, 1e-300, 1e308, true},
      {OpId::tan, 1e-300, 1e308, true}, {OpId::sin, -10, 10, false}, {OpId::cos, -100, 100, false},
      {OpId::tan, -1.6, 1.6, false}, {OpId::erf, -7, 7, false}, {OpId::erf, 1e-300, 1, true},
      {OpId::gelu, -40, 10, false}, {OpId::gelu, -3, 0, false}, {OpId::gelu, 1e-300, 1e300, true}};
  uint64_t seed = 17;
  int judged = 0;
  for (const Case& c : cases) {
    if (!capabilities(vk).has_kernel(c.op, float64)) continue;
    ++judged;
    std::vector<double> v(20000);
    for (size_t i = 0; i < v.size(); ++i) {
      const double u = static_cast<double>(mix(seed) >> 11) * 0x1p-53;
      v[i] = c.log_scale ? std::exp(std::log(c.lo) + u * (std::log(c.hi) - std::log(c.lo))) : c.lo + u * (c.hi - c.lo);
      if (c.op != OpId::log && c.op != OpId::log2 && c.op != OpId::log1p && c.log_scale && (mix(seed) & 1)) v[i] = -v[i];
    }
    Tensor x = from_vector(v, {static_cast<int64_t>(v.size())});
    Tensor got = unary(c.op, x.to(vk)).to(kCPU);
    auto m = testing::check_elementwise(got, unary(c.op, x), op_def(c.op).bound);
    EXPECT_TRUE(m.ok) << op_name(c.op) << " on [" << c.lo << ", " << c.hi << "]: " << m.str();
    if (std::getenv("CONCORD_TEST_VERBOSE"))
      std::printf("f64 %s on [%g, %g]: %s\n", std::string(op_name(c.op)).c_str(), c.lo, c.hi, m.str().c_str());
  }
  EXPECT_GT(judged, 0);
}

// atan2 over magnitudes 2^-60 .. 2^60 of every sign, in each dtype it is native in.
TEST(VulkanElementwise, Atan2WithinTheTableBound) {
  NEED_VULKAN();
  const Device vk("vulkan:0");
  int judged = 0;
  for (Dtype t : {float32, float64}) {
    if (!capabilities(vk).has_kernel(OpId::atan2, t)) continue;
    ++judged;
    std::vector<double> y(40000), x(40000);
    uint64_t seed = 11;
    for (size_t i = 0; i < y.size(); ++i) {
      auto one = [&] {
        const double u = static_cast<double>(mix(seed) >> 11) * 0x1p-53;
        const double m = std::ldexp(1.0, static_cast<int>(mix(seed) % 121) - 60) * (1 + u);
        return (mix(seed) & 1) ? -m : m;
      };
      y[i] = one();
      x[i] = i % 7 == 0 ? y[i] * 1.0001 : one();
    }
    Tensor Y = from_vector(y, {40000}).to(t), X = from_vector(x, {40000}).to(t);
    Tensor got = atan2(Y.to(vk), X.to(vk)).to(kCPU);
    auto m = testing::check_elementwise(got, atan2(Y.to(float64), X.to(float64)), op_def(OpId::atan2).bound);
    EXPECT_TRUE(m.ok) << name(t) << ": " << m.str();
    if (std::getenv("CONCORD_TEST_VERBOSE")) std::printf("atan2 %s: %s\n", std::string(name(t)).c_str(), m.str().c_str());
  }
  EXPECT_GT(judged, 0);
}

// pow on wide bases, large exponents (results near the range's ends),
// negative bases with integer exponents and bases near 1, in each dtype it
// is native in.
TEST(VulkanElementwise, PowWithinTheTableBound) {
  NEED_VULKAN();
  const Device vk("vulkan:0");
  int judged = 0;
  for (Dtype t : {float32, float64}) {
    if (!capabilities(vk).has_kernel(OpId::pow, t)) continue;
    ++judged;
    const double big = t == float32 ? 200 : 1500, span = t == float32 ? 100 : 1000;
    std::vector<double> x(40000), y(40000);
    uint64_t seed = 13;
    for (size_t i = 0; i < x.size(); ++i) {
      const double u = static_cast<double>(mix(seed) >> 11) * 0x1p-53, w = static_cast<double>(mix(seed) >> 11) * 0x1p-53;
      switch (i % 4) {
        case 0: x[i] = std::ldexp(1 + u, static_cast<int>(mix(seed) % static_cast<uint64_t>(2 * span)) - static_cast<int>(span)); y[i] = w * 2 - 1; break;
        case 1: x[i] = 0.5 + u; y[i] = (w * 2 - 1) * big; break;
        case 2: x[i] = -(1 + u * 9); y[i] = std::round((w * 2 - 1) * 40); break;
        default: x[i] = 1 + (u - 0.5) * 1e-4; y[i] = (w * 2 - 1) * 1e6; break;
      }
    }
    Tensor X = from_vector(x, {40000}).to(t), Y = from_vector(y, {40000}).to(t);
    Tensor got = pow(X.to(vk), Y.to(vk)).to(kCPU);
    auto m = testing::check_elementwise(got, pow(X.to(float64), Y.to(float64)), op_def(OpId::pow).bound);
    EXPECT_TRUE(m.ok) << name(t) << ": " << m.str();
    if (std::getenv("CONCORD_TEST_VERBOSE")) std::printf("pow %s: %s\n", std::string(name(t)).c_str(), m.str().c_str());
  }
  EXPECT_GT(judged, 0);
}

// More work-items than one row of 65535 groups of 256: the launch spans rows.
TEST(VulkanElementwise, BeyondOneDispatchRow) {
  NEED_VULKAN();
  const Device vk("vulkan:0");
  const int64_t n = 65535LL * 256 + 4099;
  Tensor a = arange(0, n, 1, int32, vk), b = full({1}, 7, int32, vk);
  Tensor c = remainder(add(a, b), 1000).to(kCPU);  // broadcast b, two launches
  const auto v = c.to_vector<int32_t>();
  for (int64_t i : {int64_t{0}, int64_t{65535} * 256 - 1, int64_t{65535} * 256, n - 1})
    EXPECT_EQ(v[static_cast<size_t>(i)], static_cast<int32_t>((i + 7) % 1000)) << i;
  int bad = 0;
  for (int64_t i = 0; i < n && bad < 3; ++i)
    if (v[static_cast<size_t>(i)] != static_cast<int32_t>((i + 7) % 1000)) ++bad, ADD_FAILURE() << "element " << i;
}

// Views: transposed, broadcast (stride 0), offset slices, and a strided output.
TEST(VulkanElementwise, StridedBroadcastAndOffsetViews) {
  NEED_VULKAN();
  const Device vk("vulkan:0");
  Tensor a = arange(0, 300, 1, int32).reshape({15, 20});
  Tensor b = arange(-7, 13, 1, int32);
  Tensor av = a.to(vk), bv = b.to(vk);
  auto same = [](const Tensor& x, const Tensor& y) {
    auto r = testing::compare(x.to(kCPU), y, testing::CompareOptions{});
    EXPECT_TRUE(r.ok) << r.message();
  };
  same(floor_divide(av.t(), 3), floor_divide(a.t(), 3));
  same(remainder(av, bv), remainder(a, b));
  same(mul(av.slice(0, 3, 12, 2), bv), mul(a.slice(0, 3, 12, 2), b));
  same(neg(flip(av, {1})), neg(flip(a, {1})));
  same(where(gt(av, 100), av, bv), where(gt(a, 100), a, b));
  same(clamp(av.t(), Scalar(10), Scalar(200)), clamp(a.t(), Scalar(10), Scalar(200)));
  Tensor out = zeros({20, 15}, int32, vk);
  out.copy_(add(av.t(), 1));
  same(out, add(a.t(), 1));
}

}  // namespace
}  // namespace concord
