// AVX-512 small LU (contract in lu_avx512.h; the algorithm, shared with
// AVX2, in lu_blocked_impl.h). Only the CONCORD_AVX512 functions use AVX-512;
// the file is built for plain x86-64.
#include "backend/cpu/lu_avx512.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "backend/cpu/vec_math.h"

// GCC 12 flags the intrinsics' own deliberately undefined vectors inside target() functions.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

#define CONCORD_AVX512 __attribute__((target("avx512f")))

namespace concord::detail::cpu {

namespace {

// The vector operations of one element type.
struct F32 {
  using T = float;
  using V = __m512;
  static constexpr int kW = 16, kR = 4;
  static constexpr bool kPanelTranspose = false;
  static constexpr int kBlockFrom = 48;
  CONCORD_AVX512 static V set1(T v) { return _mm512_set1_ps(v); }
  CONCORD_AVX512 static V load(const T* p) { return _mm512_loadu_ps(p); }
  CONCORD_AVX512 static void store(T* p, V v) { _mm512_storeu_ps(p, v); }
  CONCORD_AVX512 static V mul_sub(V y, V l, V x) { return _mm512_sub_ps(y, _mm512_mul_ps(l, x)); }
  CONCORD_AVX512 static V div(V y, V d) { return _mm512_div_ps(y, d); }
  using M = __mmask16;
  static M mask(int64_t c) { return c >= kW ? M(0xffff) : c <= 0 ? M(0) : M((1u << c) - 1); }
  CONCORD_AVX512 static V load(M m, const T* p) { return _mm512_maskz_loadu_ps(m, p); }
  CONCORD_AVX512 static void store(T* p, M m, V v) { _mm512_mask_storeu_ps(p, m, v); }
  static unsigned bits(M m) { return m; }
  CONCORD_AVX512 static V blend(M m, V a, V b) { return _mm512_mask_blend_ps(m, a, b); }
  CONCORD_AVX512 static V and_mask(M m, V v) { return _mm512_maskz_mov_ps(m, v); }
  CONCORD_AVX512 static V abs(V v) { return _mm512_abs_ps(v); }
  CONCORD_AVX512 static V max(V a, V b) { return _mm512_max_ps(a, b); }  // b where a is NaN
  CONCORD_AVX512 static T reduce_max(V v) { return _mm512_reduce_max_ps(v); }
  CONCORD_AVX512 static unsigned eq(V a, V b) { return _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ); }
  // Lane l = p[l * stride] (masked lanes 0).
  CONCORD_AVX512 static V gather(M m, const T* p, int64_t stride) {
    const __m512i idx = _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                                           _mm512_set1_epi32(static_cast<int>(stride)));
    return _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m, idx, p, 4);
  }
};

struct F64 {
  using T = double;
  using V = __m512d;
  static constexpr int kW = 8, kR = 4;
  static constexpr bool kPanelTranspose = false;
  static constexpr int kBlockFrom = 48;
  CONCORD_AVX512 static V set1(T v) { return _mm512_set1_pd(v); }
  CONCORD_AVX512 static V load(const T* p) { return _mm512_loadu_pd(p); }
  CONCORD_AVX512 static void store(T* p, V v) { _mm512_storeu_pd(p, v); }
  CONCORD_AVX512 static V mul_sub(V y, V l, V x) { return _mm512_sub_pd(y, _mm512_mul_pd(l, x)); }
  CONCORD_AVX512 static V div(V y, V d) { return _mm512_div_pd(y, d); }
  using M = __mmask8;
  static M mask(int64_t c) { return c >= kW ? M(0xff) : c <= 0 ? M(0) : M((1u << c) - 1); }
  CONCORD_AVX512 static V load(M m, const T* p) { return _mm512_maskz_loadu_pd(m, p); }
  CONCORD_AVX512 static void store(T* p, M m, V v) { _mm512_mask_storeu_pd(p, m, v); }
  static unsigned bits(M m) { return m; }
  CONCORD_AVX512 static V blend(M m, V a, V b) { return _mm512_mask_blend_pd(m, a, b); }
  CONCORD_AVX512 static V and_mask(M m, V v) { return _mm512_maskz_mov_pd(m, v); }
  CONCORD_AVX512 static V abs(V v) { return _mm512_abs_pd(v); }
  CONCORD_AVX512 static V max(V a, V b) { return _mm512_max_pd(a, b); }  // b where a is NaN
  CONCORD_AVX512 static T reduce_max(V v) { return _mm512_reduce_max_pd(v); }
  CONCORD_AVX512 static unsigned eq(V a, V b) { return _mm512_cmp_pd_mask(a, b, _CMP_EQ_OQ); }
  CONCORD_AVX512 static V gather(M m, const T* p, int64_t stride) {
    const __m512i idx = _mm512_set_epi64(7 * stride, 6 * stride, 5 * stride, 4 * stride, 3 * stride, 2 * stride, stride, 0);
    return _mm512_mask_i64gather_pd(_mm512_setzero_pd(), m, idx, p, 8);
  }
};

#define LU_TARGET CONCORD_AVX512
#include "backend/cpu/lu_blocked_impl.h"
#undef LU_TARGET

}  // namespace

int32_t lu_small_avx512(float* a, int64_t n, int32_t* piv) { return lu<F32>(a, n, piv); }
int32_t lu_small_avx512(double* a, int64_t n, int32_t* piv) { return lu<F64>(a, n, piv); }

}  // namespace concord::detail::cpu
