// The bfloat16 GEMM on AVX512-BF16 (backend/cpu/gemm_bf16.h), called directly
// so every packing path is reached: against a float64 sum of the same bfloat16
// products, for tile, block and panel edges (M, N, K off the 14 x 32 tile, K odd,
// K over one 384-deep block, N over one 2048-wide block), for row-major,
// transposed and strided operands, with Inf/NaN, and bit for bit across thread counts.
// Skipped (saying why) on a CPU without the instruction; the public bfloat16
// matmul is covered on every device by test_addmm and test_linear.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "backend/cpu/gemm_bf16.h"
#include "concord/concord.h"

using namespace concord;
using concord::detail::cpu::Bf16Mat;
using concord::detail::cpu::GemmOut;
using concord::detail::cpu::gemm_bf16;
using concord::detail::cpu::gemm_bf16_available;

namespace {

float f32(uint16_t h) {
  const uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint16_t bf16_of(float f) { return bfloat16_t(f).bits; }

// A logical R x C matrix stored with the given layout inside a larger buffer.
enum class Layout { rows, cols, strided };
struct Stored {
  std::vector<uint16_t> buf;
  Bf16Mat m;
  int64_t R, C;
  double at(int64_t r, int64_t c) const { return f32(m.p[r * m.rs + c * m.cs]); }
};

Stored make(int64_t R, int64_t C, Layout l, std::mt19937& rng) {
  Stored s;
  s.R = R, s.C = C;
  int64_t rs = C, cs = 1, n = R * C;
  if (l == Layout::cols) rs = 1, cs = R;
  if (l == Layout::strided) rs = 2 * C + 3, cs = 2, n = R * rs;
  s.buf.assign(static_cast<size_t>(n + 1), bf16_of(std::numeric_limits<float>::quiet_NaN()));  // gaps are NaN
  std::uniform_real_distribution<float> d(-2.0f, 2.0f);
  for (int64_t r = 0; r < R; ++r)
    for (int64_t c = 0; c < C; ++c) s.buf[static_cast<size_t>(r * rs + c * cs)] = bf16_of(d(rng));
  s.m = {s.buf.data(), rs, cs};
  return s;
}

// c against Σ a·b in float64: every product is exact, so only the float32 sum
// errs, by at most K·2^-24·Σ|a·b| (Inf/NaN must match exactly).
void check(const Stored& a, const Stored& b, const std::vector<float>& c, const char* what) {
  const int64_t M = a.R, K = a.C, N = b.C;
  int64_t bad = 0;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double ref = 0, mag = 0;
      for (int64_t k = 0; k < K; ++k) ref += a.at(i, k) * b.at(k, j), mag += std::fabs(a.at(i, k) * b.at(k, j));
      const float got = c[static_cast<size_t>(i * N + j)];
      const bool ok = std::isnan(ref) ? std::isnan(got)
                      : std::isinf(ref) ? got == ref
                                        : std::fabs(got - ref) <= (K + 1) * std::ldexp(mag, -24) + 1e-30;
      if (!ok && ++bad <= 3)
        ADD_FAILURE() << what << " M=" << M << " N=" << N << " K=" << K << " at (" << i << "," << j << "): got " << got
                      << ", float64 sum " << ref;
    }
  EXPECT_EQ(bad, 0) << what;
}

class GemmBf16 : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!gemm_bf16_available())
      GTEST_SKIP() << "this CPU has no AVX512-BF16 (or CONCORD_ISA caps the level below avx512): bfloat16 matmul widens to float32";
  }
};

TEST_F(GemmBf16, EdgesOfTilesBlocksAndPanels) {
  struct Case { int64_t M, N, K; };
  std::mt19937 rng(7);
  for (const Case& t : {Case{2, 2, 1}, Case{1, 33, 3}, Case{13, 31, 2}, Case{14, 32, 64}, Case{15, 33, 385},
                        Case{29, 70, 31}, Case{57, 17, 800}, Case{3, 2100, 5}, Case{300, 40, 17}}) {
    for (Layout la : {Layout::rows, Layout::cols, Layout::strided})
      for (Layout lb : {Layout::rows, Layout::cols, Layout::strided}) {
        const Stored a = make(t.M, t.K, la, rng), b = make(t.K, t.N, lb, rng);
        std::vector<float> c(static_cast<size_t>(t.M * t.N), -1.0f);
        gemm_bf16(t.M, t.N, t.K, a.m, b.m, {.part = c.data()});
        check(a, b, c, ("layouts " + std::to_string(int(la)) + "/" + std::to_string(int(lb))).c_str());
      }
  }
}

TEST_F(GemmBf16, InfAndNaNReachOnlyTheirRowAndColumn) {
  std::mt19937 rng(3);
  Stored a = make(20, 9, Layout::rows, rng), b = make(9, 40, Layout::rows, rng);
  a.buf[static_cast<size_t>(3 * 9 + 4)] = bf16_of(std::numeric_limits<float>::infinity());
  b.buf[static_cast<size_t>(8 * 40 + 35)] = bf16_of(std::numeric_limits<float>::quiet_NaN());
  std::vector<float> c(20 * 40);
  gemm_bf16(20, 40, 9, a.m, b.m, {.part = c.data()});
  check(a, b, c, "inf/nan");
  EXPECT_TRUE(std::isnan(c[5 * 40 + 35]));
  EXPECT_TRUE(std::isfinite(c[5 * 40 + 34]));
}

TEST_F(GemmBf16, SameBitsForAnyThreadCount) {
  std::mt19937 rng(11);
  const Stored a = make(200, 1000, Layout::rows, rng), b = make(1000, 300, Layout::cols, rng);
  std::vector<float> c1(200 * 300), c2(200 * 300);
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  gemm_bf16(200, 300, 1000, a.m, b.m, {.part = c1.data()});
  omp_set_num_threads(std::max(2, saved));
  gemm_bf16(200, 300, 1000, a.m, b.m, {.part = c2.data()});
  omp_set_num_threads(saved);
  EXPECT_EQ(std::memcmp(c1.data(), c2.data(), c1.size() * sizeof(float)), 0);
  check(a, b, c2, "threads");
}

// The bfloat16 store: alpha·S + beta·out rounded once, bit for bit the scalar
// formula applied to the float32 sums (one and several K blocks, NaN, ties).
TEST_F(GemmBf16, Bf16OutputIsTheScalarEpilogue) {
  std::mt19937 rng(13);
  for (int64_t K : {5, 1000}) {
    const int64_t M = 30, N = 45;
    Stored a = make(M, K, Layout::rows, rng), b = make(K, N, Layout::cols, rng);
    a.buf[0] = bf16_of(std::numeric_limits<float>::quiet_NaN());
    std::vector<float> s(static_cast<size_t>(M * N));
    gemm_bf16(M, N, K, a.m, b.m, {.part = s.data()});
    for (float alpha : {1.0f, -0.75f})
      for (float beta : {0.0f, 1.0f, 0.3f}) {
        std::vector<uint16_t> o(static_cast<size_t>(M * N)), want(o.size());
        std::uniform_real_distribution<float> d(-4.0f, 4.0f);
        for (size_t e = 0; e < o.size(); ++e) {
          o[e] = bf16_of(d(rng));
          float v = s[e];
          if (beta != 0.0f) {
            const float p = alpha * v, q = beta * f32(o[e]);
            v = p + q;
          } else if (alpha != 1.0f) {
            v = alpha * v;
          }
          want[e] = bf16_of(v);
        }
        GemmOut out;
        out.bf16 = o.data();
        out.alpha = alpha;
        out.beta = beta;
        gemm_bf16(M, N, K, a.m, b.m, out);
        EXPECT_EQ(o, want) << "K=" << K << " alpha=" << alpha << " beta=" << beta;
      }
  }
}

TEST_F(GemmBf16, PublicMatmulUsesItAndRoundsOnce) {
  // 1 + 2^-8 + 2^-8 summed in float32 is exactly 1 + 2^-7, a bfloat16: rounding
  // after each step would give 1 (a tie, to even) twice.
  Tensor a = from_vector(std::vector<float>{1.0f, std::ldexp(1.0f, -8), std::ldexp(1.0f, -8)}, {1, 3}).to(bfloat16);
  Tensor b = ones({3, 2}, bfloat16);
  Tensor c = matmul(a, b).to(float32);
  EXPECT_EQ(c.data<float>()[0], 1.0f + std::ldexp(1.0f, -7));
  EXPECT_EQ(c.data<float>()[1], 1.0f + std::ldexp(1.0f, -7));
}

}  // namespace
