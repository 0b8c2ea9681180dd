// Bulk float16/bfloat16 conversions. F16C (and AVX2 for bfloat16) when the
// CPU has them, picked once at run time; the scalar code is the reference
// (and the only code where the compiler does not target x86-64).
#if defined(__x86_64__)
#include <immintrin.h>
#define CONCORD_HALF_X86 1
#endif

#include "concord/half.h"
#include "core/cpu_isa.h"

namespace concord {

namespace {

#if CONCORD_HALF_X86
// F16C and AVX2 come with the avx2 level (core/cpu_isa.h, which CONCORD_ISA caps).
bool has_f16c() {
  static const bool v = detail::cpu_isa() >= detail::CpuIsa::avx2;
  return v;
}

__attribute__((target("avx2,f16c"))) void f16_to_f32_f16c(const float16_t* s, float* d, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
    _mm256_storeu_ps(d + i, _mm256_cvtph_ps(h));
  }
  for (; i < n; ++i) d[i] = static_cast<float>(s[i]);
}

__attribute__((target("avx2,f16c"))) void f32_to_f16_f16c(const float* s, float16_t* d, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(s + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i), h);
  }
  for (; i < n; ++i) d[i] = float16_t(s[i]);
}

__attribute__((target("avx2"))) void bf16_to_f32_avx2(const bfloat16_t* s, float* d, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
    __m256i w = _mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + i), w);
  }
  for (; i < n; ++i) d[i] = static_cast<float>(s[i]);
}

__attribute__((target("avx2"))) void f32_to_bf16_avx2(const float* s, bfloat16_t* d, size_t n) {
  size_t i = 0;
  const __m256i bias = _mm256_set1_epi32(0x7fff);
  const __m256i one = _mm256_set1_epi32(1);
  const __m256i absmask = _mm256_set1_epi32(0x7fffffff);
  const __m256i inf = _mm256_set1_epi32(0x7f800000);
  const __m256i qnan = _mm256_set1_epi32(0x00400000);
  for (; i + 8 <= n; i += 8) {
    __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i));
    __m256i isnan = _mm256_cmpgt_epi32(_mm256_and_si256(x, absmask), inf);
    __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(x, 16), one);
    __m256i r = _mm256_add_epi32(x, _mm256_add_epi32(bias, lsb));
    r = _mm256_blendv_epi8(r, _mm256_or_si256(x, qnan), isnan);
    r = _mm256_srli_epi32(r, 16);
    // Pack the low 16 bits of each lane (values < 65536, so unsigned saturation is exact).
    __m128i lo = _mm256_castsi256_si128(r), hi = _mm256_extracti128_si256(r, 1);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i), _mm_packus_epi32(lo, hi));
  }
  for (; i < n; ++i) d[i] = bfloat16_t(s[i]);
}
#else
constexpr bool has_f16c() { return false; }
template <class... A> void f16_to_f32_f16c(A...) {}
template <class... A> void f32_to_f16_f16c(A...) {}
template <class... A> void bf16_to_f32_avx2(A...) {}
template <class... A> void f32_to_bf16_avx2(A...) {}
#endif

}  // namespace

void convert_f16_to_f32(const float16_t* s, float* d, size_t n) {
  if (has_f16c()) return f16_to_f32_f16c(s, d, n);
  for (size_t i = 0; i < n; ++i) d[i] = static_cast<float>(s[i]);
}
void convert_f32_to_f16(const float* s, float16_t* d, size_t n) {
  if (has_f16c()) return f32_to_f16_f16c(s, d, n);
  for (size_t i = 0; i < n; ++i) d[i] = float16_t(s[i]);
}
void convert_bf16_to_f32(const bfloat16_t* s, float* d, size_t n) {
  if (has_f16c()) return bf16_to_f32_avx2(s, d, n);
  for (size_t i = 0; i < n; ++i) d[i] = static_cast<float>(s[i]);
}
void convert_f32_to_bf16(const float* s, bfloat16_t* d, size_t n) {
  if (has_f16c()) return f32_to_bf16_avx2(s, d, n);
  for (size_t i = 0; i < n; ++i) d[i] = bfloat16_t(s[i]);
}

}  // namespace concord
