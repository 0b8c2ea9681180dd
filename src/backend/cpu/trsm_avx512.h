// One-column triangular solves in float32 for AVX-512: 16 rows at a time, one
// row per lane, with the matrix read in 16 x 16 blocks transposed in
// registers (lane r of column vector q holds a[r][q]). Each row's sum keeps
// the order of linalg_small.h's lower_rows_interleaved / upper_rows_interleaved
// (ascending j below the diagonal, descending j above it, then the division),
// each product rounded before its subtraction: the same bits, with 16 chains
// side by side instead of 8 and no scalar loads to assemble them.
//
// Included by linalg_small.h inside the ISA's namespace, only where the file is
// built for AVX-512 (VEC_W == 16); needs <immintrin.h> before the namespace.

#define CONCORD_TRSM_X16 1

// c[q] = column c0 + q of a's rows r0 .. r0 + 15 (lane r: a[(r0 + r) * n + c0 + q]).
VEC_INLINE void columns16(const float* a, int64_t n, int64_t r0, int64_t c0, __m512 c[16]) {
  __m512 r[16], t[16];
  for (int i = 0; i < 16; ++i) r[i] = _mm512_loadu_ps(a + (r0 + i) * n + c0);
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 16; i += 4) {
    r[i] = _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(t[i]), _mm512_castps_pd(t[i + 2])));
    r[i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(t[i]), _mm512_castps_pd(t[i + 2])));
    r[i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(t[i + 1]), _mm512_castps_pd(t[i + 3])));
    r[i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(t[i + 1]), _mm512_castps_pd(t[i + 3])));
  }
  for (int h = 0; h < 16; h += 8)
    for (int i = 0; i < 4; ++i) {
      t[h + i] = _mm512_shuffle_f32x4(r[h + i], r[h + i + 4], 0x88);
      t[h + i + 4] = _mm512_shuffle_f32x4(r[h + i], r[h + i + 4], 0xdd);
    }
  for (int i = 0; i < 8; ++i) {
    c[i] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0x88);
    c[i + 8] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0xdd);
  }
}

// Rows [0, returned) of b solved (a multiple of 16): L x = b, sums in ascending j.
inline int64_t lower_rows_x16(const float* a, float* b, int64_t n, bool unit) {
  __m512 c[16];
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512 s = _mm512_loadu_ps(b + i);
    for (int64_t j0 = 0; j0 < i; j0 += 16) {
      columns16(a, n, i, j0, c);
      for (int q = 0; q < 16; ++q) s = _mm512_sub_ps(s, _mm512_mul_ps(c[q], _mm512_set1_ps(b[j0 + q])));
    }
    // The triangle inside the block in scalars, by columns: once row q is
    // solved it is subtracted from every row below it, so the rows' chains
    // (each still in ascending j) run side by side, and only one multiply and
    // subtract (and the division) lie between a row and the next.
    float v[16];
    _mm512_storeu_ps(v, s);
#pragma GCC unroll 16
    for (int q = 0; q < 16; ++q) {
      if (!unit) v[q] /= a[(i + q) * n + i + q];
      b[i + q] = v[q];
#pragma GCC unroll 16
      for (int r = q + 1; r < 16; ++r) v[r] -= a[(i + r) * n + i + q] * v[q];
    }
  }
  return i;
}

// Rows [returned, n) of b solved, 16 at a time from the bottom: U x = b, sums
// in descending j, then the division.
inline int64_t upper_rows_x16(const float* a, float* b, int64_t n, bool unit) {
  __m512 c[16];
  int64_t i = n;
  for (; i >= 16; i -= 16) {
    const int64_t i0 = i - 16;
    __m512 s = _mm512_loadu_ps(b + i0);
    for (int64_t j0 = n - 16; j0 >= i; j0 -= 16) {
      columns16(a, n, i0, j0, c);
      for (int q = 15; q >= 0; --q) s = _mm512_sub_ps(s, _mm512_mul_ps(c[q], _mm512_set1_ps(b[j0 + q])));
    }
    float v[16];  // the triangle inside the block by columns, from its bottom
    _mm512_storeu_ps(v, s);
#pragma GCC unroll 16
    for (int q = 15; q >= 0; --q) {
      if (!unit) v[q] /= a[(i0 + q) * n + i0 + q];
      b[i0 + q] = v[q];
#pragma GCC unroll 16
      for (int r = q - 1; r >= 0; --r) v[r] -= a[(i0 + r) * n + i0 + q] * v[q];
    }
  }
  return i;
}
