// AVX2 small LU (contract in lu_avx2.h; the algorithm, shared with AVX-512,
// in lu_blocked_impl.h). Only the CONCORD_AVX2 functions use AVX2; the file
// is built for plain x86-64, as lu_avx512.cpp. No FMA target: the LU's bits
// forbid fusing, and the avx2 level does not require FMA.
#include "backend/cpu/lu_avx2.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "backend/cpu/vec_math.h"

#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

#define CONCORD_AVX2 __attribute__((target("avx2")))

namespace concord::detail::cpu {

namespace {

// AVX2 has no mask registers: a mask is a vector of all-ones lanes, read from
// a sliding window over this table (the first c lanes set).
alignas(64) constexpr int32_t kMask32[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
alignas(64) constexpr int64_t kMask64[8] = {-1, -1, -1, -1, 0, 0, 0, 0};

// 4 x 4 transposes inside each 128-bit half: v[i] = [row i | row i + 4] of
// 4 floats becomes [column i, rows 0-3 | column i, rows 4-7] (and back: it
// is its own inverse). The halves never cross, which keeps the 8 x 8 panel
// transposes off AVX2's slower lane-crossing shuffles.
CONCORD_AVX2 inline void transpose4x2(__m256 (&v)[4]) {
  const __m256 t0 = _mm256_unpacklo_ps(v[0], v[1]), t1 = _mm256_unpackhi_ps(v[0], v[1]);
  const __m256 t2 = _mm256_unpacklo_ps(v[2], v[3]), t3 = _mm256_unpackhi_ps(v[2], v[3]);
  v[0] = _mm256_shuffle_ps(t0, t2, 0x44);
  v[1] = _mm256_shuffle_ps(t0, t2, 0xee);
  v[2] = _mm256_shuffle_ps(t1, t3, 0x44);
  v[3] = _mm256_shuffle_ps(t1, t3, 0xee);
}

struct F32 {
  using T = float;
  using V = __m256;
  using M = __m256i;
  static constexpr int kW = 8;
  static constexpr int kR = 6;  // 6 rows x 2 vectors: 12 accumulators, 2 panel rows, 1 multiplier of 16 registers
  // Full panels move by 8 x 8 transposes (two 4-column halves): gathers were
  // about a quarter of a 64 x 64 LU's time on the Zen 5 EPYC this was
  // measured on (1.1x faster with the transposes).
  static constexpr bool kPanelTranspose = true;
  static constexpr int kBlockFrom = 24;  // 0.7x the unblocked loop's time at 24 and 32, 0.55x at 64
  CONCORD_AVX2 static int64_t panel_in(T* P, int64_t ldp, const T* a, int64_t n, int64_t rows) {
    int64_t r = 0;
    for (; r + 8 <= rows; r += 8)
      for (int h = 0; h < 8; h += 4) {  // columns h..h+3
        V v[4];
        for (int i = 0; i < 4; ++i)
          v[i] = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(a + (r + i) * n + h)),
                                      _mm_loadu_ps(a + (r + i + 4) * n + h), 1);
        transpose4x2(v);
        for (int c = 0; c < 4; ++c) store(P + (h + c) * ldp + r, v[c]);
      }
    return r;
  }
  CONCORD_AVX2 static int64_t panel_out(T* a, int64_t n, const T* P, int64_t ldp, int64_t rows) {
    int64_t r = 0;
    for (; r + 8 <= rows; r += 8)
      for (int h = 0; h < 8; h += 4) {
        V v[4];
        for (int c = 0; c < 4; ++c) v[c] = load(P + (h + c) * ldp + r);
        transpose4x2(v);
        for (int i = 0; i < 4; ++i) {
          _mm_storeu_ps(a + (r + i) * n + h, _mm256_castps256_ps128(v[i]));
          _mm_storeu_ps(a + (r + i + 4) * n + h, _mm256_extractf128_ps(v[i], 1));
        }
      }
    return r;
  }
  CONCORD_AVX2 static V set1(T v) { return _mm256_set1_ps(v); }
  CONCORD_AVX2 static V load(const T* p) { return _mm256_loadu_ps(p); }
  CONCORD_AVX2 static void store(T* p, V v) { _mm256_storeu_ps(p, v); }
  CONCORD_AVX2 static V mul_sub(V y, V l, V x) { return _mm256_sub_ps(y, _mm256_mul_ps(l, x)); }
  CONCORD_AVX2 static V div(V y, V d) { return _mm256_div_ps(y, d); }
  CONCORD_AVX2 static M mask(int64_t c) {
    const int64_t k = c >= kW ? kW : c <= 0 ? 0 : c;
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kMask32 + kW - k));
  }
  CONCORD_AVX2 static V load(M m, const T* p) { return _mm256_maskload_ps(p, m); }
  CONCORD_AVX2 static void store(T* p, M m, V v) { _mm256_maskstore_ps(p, m, v); }
  CONCORD_AVX2 static unsigned bits(M m) { return unsigned(_mm256_movemask_ps(_mm256_castsi256_ps(m))); }
  CONCORD_AVX2 static V blend(M m, V a, V b) { return _mm256_blendv_ps(a, b, _mm256_castsi256_ps(m)); }
  CONCORD_AVX2 static V and_mask(M m, V v) { return _mm256_and_ps(v, _mm256_castsi256_ps(m)); }
  CONCORD_AVX2 static V abs(V v) { return _mm256_and_ps(v, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff))); }
  CONCORD_AVX2 static V max(V a, V b) { return _mm256_max_ps(a, b); }  // b where a is NaN
  CONCORD_AVX2 static T reduce_max(V v) {  // v holds no NaN (pivot_row): any order gives the same maximum
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    return _mm_cvtss_f32(_mm_max_ss(m, _mm_shuffle_ps(m, m, 1)));
  }
  CONCORD_AVX2 static unsigned eq(V a, V b) { return unsigned(_mm256_movemask_ps(_mm256_cmp_ps(a, b, _CMP_EQ_OQ))); }
  CONCORD_AVX2 static V gather(M m, const T* p, int64_t stride) {
    const __m256i idx = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(static_cast<int>(stride)));
    return _mm256_mask_i32gather_ps(_mm256_setzero_ps(), p, idx, _mm256_castsi256_ps(m), 4);
  }
};

// 4 x 4 transpose of doubles: rows r0..r3 become columns c0..c3 (plain
// values, not an array: an array by reference is kept on the stack).
#define CONCORD_TRANSPOSE4X4_PD(r0, r1, r2, r3, c0, c1, c2, c3)                                \
  const __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);             \
  const __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);             \
  const __m256d c0 = _mm256_permute2f128_pd(t0, t2, 0x20), c1 = _mm256_permute2f128_pd(t1, t3, 0x20); \
  const __m256d c2 = _mm256_permute2f128_pd(t0, t2, 0x31), c3 = _mm256_permute2f128_pd(t1, t3, 0x31)

struct F64 {
  using T = double;
  using V = __m256d;
  using M = __m256i;
  static constexpr int kW = 4;
  static constexpr int kR = 6;  // 6 rows x 2 vectors, as float32 (4 rows measured the same)
  // Full panels move by 4 x 4 transposes: vgatherqpd was about 15% of a
  // 64 x 64 LU's time on a Zen-class EPYC (the LU 1.1x faster without it),
  // once the transposes keep their rows in registers (CONCORD_TRANSPOSE4X4_PD).
  static constexpr bool kPanelTranspose = true;
  static constexpr int kBlockFrom = 24;  // 0.9x the unblocked loop's time at 24 and 28, 0.65x at 64
  CONCORD_AVX2 static int64_t panel_in(T* P, int64_t ldp, const T* a, int64_t n, int64_t rows) {
    int64_t r = 0;
    for (; r + 4 <= rows; r += 4)
      for (int h = 0; h < 8; h += 4) {  // columns h..h+3 of rows r..r+3
        const T* s = a + r * n + h;
        CONCORD_TRANSPOSE4X4_PD(load(s), load(s + n), load(s + 2 * n), load(s + 3 * n), c0, c1, c2, c3);
        T* d = P + h * ldp + r;
        store(d, c0), store(d + ldp, c1), store(d + 2 * ldp, c2), store(d + 3 * ldp, c3);
      }
    return r;
  }
  CONCORD_AVX2 static int64_t panel_out(T* a, int64_t n, const T* P, int64_t ldp, int64_t rows) {
    int64_t r = 0;
    for (; r + 4 <= rows; r += 4)
      for (int h = 0; h < 8; h += 4) {
        const T* s = P + h * ldp + r;
        CONCORD_TRANSPOSE4X4_PD(load(s), load(s + ldp), load(s + 2 * ldp), load(s + 3 * ldp), r0, r1, r2, r3);
        T* d = a + r * n + h;
        store(d, r0), store(d + n, r1), store(d + 2 * n, r2), store(d + 3 * n, r3);
      }
    return r;
  }
  CONCORD_AVX2 static V set1(T v) { return _mm256_set1_pd(v); }
  CONCORD_AVX2 static V load(const T* p) { return _mm256_loadu_pd(p); }
  CONCORD_AVX2 static void store(T* p, V v) { _mm256_storeu_pd(p, v); }
  CONCORD_AVX2 static V mul_sub(V y, V l, V x) { return _mm256_sub_pd(y, _mm256_mul_pd(l, x)); }
  CONCORD_AVX2 static V div(V y, V d) { return _mm256_div_pd(y, d); }
  CONCORD_AVX2 static M mask(int64_t c) {
    const int64_t k = c >= kW ? kW : c <= 0 ? 0 : c;
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kMask64 + kW - k));
  }
  CONCORD_AVX2 static V load(M m, const T* p) { return _mm256_maskload_pd(p, m); }
  CONCORD_AVX2 static void store(T* p, M m, V v) { _mm256_maskstore_pd(p, m, v); }
  CONCORD_AVX2 static unsigned bits(M m) { return unsigned(_mm256_movemask_pd(_mm256_castsi256_pd(m))); }
  CONCORD_AVX2 static V blend(M m, V a, V b) { return _mm256_blendv_pd(a, b, _mm256_castsi256_pd(m)); }
  CONCORD_AVX2 static V and_mask(M m, V v) { return _mm256_and_pd(v, _mm256_castsi256_pd(m)); }
  CONCORD_AVX2 static V abs(V v) { return _mm256_and_pd(v, _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffff))); }
  CONCORD_AVX2 static V max(V a, V b) { return _mm256_max_pd(a, b); }  // b where a is NaN
  CONCORD_AVX2 static T reduce_max(V v) {
    const __m128d m = _mm_max_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    return _mm_cvtsd_f64(_mm_max_sd(m, _mm_unpackhi_pd(m, m)));
  }
  CONCORD_AVX2 static unsigned eq(V a, V b) { return unsigned(_mm256_movemask_pd(_mm256_cmp_pd(a, b, _CMP_EQ_OQ))); }
  CONCORD_AVX2 static V gather(M m, const T* p, int64_t stride) {
    const __m256i idx = _mm256_setr_epi64x(0, stride, 2 * stride, 3 * stride);
    return _mm256_mask_i64gather_pd(_mm256_setzero_pd(), p, idx, _mm256_castsi256_pd(m), 8);
  }
};

#define LU_TARGET CONCORD_AVX2
#include "backend/cpu/lu_blocked_impl.h"
#undef LU_TARGET

}  // namespace

int32_t lu_small_avx2(float* a, int64_t n, int32_t* piv) { return lu<F32>(a, n, piv); }
int32_t lu_small_avx2(double* a, int64_t n, int32_t* piv) { return lu<F64>(a, n, piv); }

}  // namespace concord::detail::cpu
