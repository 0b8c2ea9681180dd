// The vectorised CPU kernels through the public API: GELU against a long
// double reference, results independent of layout and thread count, and
// memory_stats() with the caching allocator (vec_math_checks.h).
#include "vec_math_checks.h"

namespace {

class VecOps : public test::DeviceTest {
 protected:
  void SetUp() override {
    test::DeviceTest::SetUp();
    if (memory_space(device()) != MemorySpace::host) GTEST_SKIP() << "tests the CPU kernels and host allocator (cpu, emu)";
  }
};

long double gelu_ref(long double x) { return 0.5L * x * std::erfc(-x / std::sqrt(2.0L)); }

TEST_P(VecOps, GeluFloat32WithinFourUlps) {
  // Dense over [-20, 10], where 1 + erf(x/sqrt 2) used to cancel (x < 0) and results go subnormal (x < -13).
  const int n = 1'000'000;
  std::vector<float> xs(n);
  for (int i = 0; i < n; ++i) xs[i] = -20.0f + 30.0f * static_cast<float>(i) / n;
  const auto ys = gelu(from_host(xs.data(), {n}, float32, device())).to_vector<float>();
  int64_t worst = 0;
  float at = 0;
  for (int i = 0; i < n; ++i) {
    const int64_t d = ulp_distance(ys[i], static_cast<float>(gelu_ref(xs[i])));
    if (d > worst) { worst = d; at = xs[i]; }
  }
  EXPECT_LE(worst, 4) << "worst at x = " << at;
}

TEST_P(VecOps, GeluFloat64AndHalves) {
  if (capabilities(device()).can_store(float64)) {
    std::vector<double> xs;
    for (double x = -38; x <= 10; x += 0.00731) xs.push_back(x);
    const auto ys = gelu(from_host(xs.data(), {static_cast<int64_t>(xs.size())}, float64, device())).to_vector<double>();
    for (size_t i = 0; i < xs.size(); ++i) {
      const long double want = gelu_ref(xs[i]);
      const double w = static_cast<double>(want);
      const double ulp = std::fabs(std::nextafter(w, INFINITY) - w);
      EXPECT_LE(std::fabs(static_cast<long double>(ys[i]) - want), 2 * ulp) << "gelu(" << xs[i] << ") in float64";
    }
  }
  for (Dtype t : {float16, bfloat16}) {
    std::vector<float> xs;
    for (float x = -12; x <= 8; x += 0.01f) xs.push_back(x);
    const Tensor x = from_host(xs.data(), {static_cast<int64_t>(xs.size())}, float32, device()).to(t);
    const auto in = x.to_vector<float>();
    const auto ys = gelu(x).to_vector<float>();
    for (size_t i = 0; i < xs.size(); ++i) {
      const float w32 = static_cast<float>(gelu_ref(in[i]));
      const float want = t == float16 ? static_cast<float>(float16_t(w32)) : static_cast<float>(bfloat16_t(w32));
      const float next = t == float16 ? static_cast<float>(float16_t::from_bits(float16_t(want).bits + 1))
                                      : static_cast<float>(bfloat16_t::from_bits(bfloat16_t(want).bits + 1));
      EXPECT_LE(std::fabs(ys[i] - want), std::fabs(next - want)) << "gelu(" << in[i] << ") in " << name(t);
    }
  }
}

TEST_P(VecOps, GeluSpecialValues) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  for (Dtype t : {float32, float64, float16, bfloat16}) {
    if (!capabilities(device()).can_store(t)) continue;
    const std::vector<float> xs = {-inf, inf, nan, 0.0f, -0.0f, -30.0f};
    const auto ys = gelu(from_host(xs.data(), {6}, float32, device()).to(t)).to_vector<float>();
    EXPECT_EQ(ys[0], 0.0f) << name(t);
    EXPECT_TRUE(std::signbit(ys[0])) << "gelu(-inf) = -0 in " << name(t);
    EXPECT_EQ(ys[1], inf) << name(t);
    EXPECT_TRUE(std::isnan(ys[2])) << name(t);
    EXPECT_EQ(ys[3], 0.0f) << name(t);
    EXPECT_EQ(ys[5], 0.0f) << name(t);
  }
}

// The same element gives the same bits whatever the layout and the thread count.
TEST_P(VecOps, ResultsIndependentOfLayoutAndThreads) {
  const Tensor x = mul(randn({301, 257}, float32, device(), 5), 8.0);
  using Op = Tensor (*)(const Tensor&);
  for (Op f : {Op(exp), Op(sigmoid), Op(tanh), Op(log)}) {
    const Tensor in = f == Op(log) ? abs(x) : x;
    const auto contiguous = f(in.t().contiguous()).to_vector<float>();
    const auto strided = f(in.t()).contiguous().to_vector<float>();
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    const auto one_thread = f(in.t().contiguous()).to_vector<float>();
    omp_set_num_threads(threads);
    ASSERT_EQ(contiguous.size(), strided.size());
    for (size_t i = 0; i < contiguous.size(); ++i) {
      ASSERT_TRUE(same_bits_or_both_nan(contiguous[i], strided[i])) << i;
      ASSERT_TRUE(same_bits_or_both_nan(contiguous[i], one_thread[i])) << i;
    }
  }
}

// memory_stats() counts live tensors only: cached free blocks are not live, and
// a 16M add peaks at its inputs plus its output.
TEST_P(VecOps, MemoryStatsWithTheBlockCache) {
  const int64_t n = 1 << 24;
  Tensor a = zeros({n}, float32, device()), b = ones({n}, float32, device());
  const uint64_t live0 = memory_stats(device()).live_bytes;
  reset_peak_memory(device());
  {
    const Tensor c = add(a, b);
    EXPECT_EQ(c.to_vector<float>()[n - 1], 1.0f);
    EXPECT_EQ(memory_stats(device()).live_bytes, live0 + n * 4);
  }
  EXPECT_EQ(memory_stats(device()).live_bytes, live0) << "the freed output is cached, not live";
  // live0 holds the inputs (and whatever else is alive): the add itself adds its output only.
  EXPECT_LE(static_cast<double>(memory_stats(device()).peak_bytes - live0), 1.1 * static_cast<double>(n * 4));
  // The next add of the same size reuses the cached block.
  const auto before = detail::cpu::host_cache_stats();
  { const Tensor c = add(a, b); }
  const auto after = detail::cpu::host_cache_stats();
  EXPECT_GT(after.hits, before.hits);
  EXPECT_LE(after.cached_bytes, after.limit_bytes);
  EXPECT_GT(detail::cpu::release_host_cache(), 0u);
  EXPECT_EQ(detail::cpu::host_cache_stats().cached_bytes, 0u);
}

CONCORD_INSTANTIATE_DEVICES(VecOps);

}  // namespace
