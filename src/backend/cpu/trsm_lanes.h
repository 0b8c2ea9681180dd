// One-column triangular solves with one row per vector lane (L rows per
// block): the matrix is read in L x L blocks transposed in registers (lane r
// of column vector q holds a[r][q]), so the blocks off the diagonal cost one
// vector multiply and subtract per column instead of L scalar ones. The
// triangle inside a diagonal block runs by columns in scalars: once row q is
// solved it is subtracted from every row below (above) it, so the rows'
// chains overlap. Each row keeps the order of linalg_small.h's
// lower_rows_interleaved / upper_rows_interleaved (ascending j below the
// diagonal, descending j above it, then the division), each product rounded
// before its subtraction: the same bits at every level.
//
// Included by linalg_small.h inside the ISA's namespace where the file is
// built for AVX2 or AVX-512 (<immintrin.h>, load/store and VEC_INLINE of
// vec_impl.h before it). Columns<T> gives the vector type V, the lanes kL and
// columns(a, n, r0, c0, c): c[q] = column c0 + q of rows r0 .. r0 + kL - 1.

#define CONCORD_TRSM_LANES 1

template <class T> struct Columns;

#if VEC_W == 16
template <> struct Columns<float> {
  typedef float V __attribute__((vector_size(64)));
  static constexpr int kL = 16;
  static VEC_INLINE void columns(const float* a, int64_t n, int64_t r0, int64_t c0, V* c) {
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
      c[i] = V(_mm512_shuffle_f32x4(t[i], t[i + 8], 0x88));
      c[i + 8] = V(_mm512_shuffle_f32x4(t[i], t[i + 8], 0xdd));
    }
  }
};
template <> struct Columns<double> {
  typedef double V __attribute__((vector_size(64)));
  static constexpr int kL = 8;
  static VEC_INLINE void columns(const double* a, int64_t n, int64_t r0, int64_t c0, V* c) {
    __m512d r[8], t[8];
    for (int i = 0; i < 8; ++i) r[i] = _mm512_loadu_pd(a + (r0 + i) * n + c0);
    for (int i = 0; i < 8; i += 2) {
      t[i] = _mm512_unpacklo_pd(r[i], r[i + 1]);
      t[i + 1] = _mm512_unpackhi_pd(r[i], r[i + 1]);
    }
    for (int h = 0; h < 8; h += 4) {
      r[h] = _mm512_shuffle_f64x2(t[h], t[h + 2], 0x88);
      r[h + 1] = _mm512_shuffle_f64x2(t[h + 1], t[h + 3], 0x88);
      r[h + 2] = _mm512_shuffle_f64x2(t[h], t[h + 2], 0xdd);
      r[h + 3] = _mm512_shuffle_f64x2(t[h + 1], t[h + 3], 0xdd);
    }
    for (int i = 0; i < 4; ++i) {
      c[i] = V(_mm512_shuffle_f64x2(r[i], r[i + 4], 0x88));
      c[i + 4] = V(_mm512_shuffle_f64x2(r[i], r[i + 4], 0xdd));
    }
  }
};
#elif VEC_W == 8
template <> struct Columns<float> {
  typedef float V __attribute__((vector_size(32)));
  static constexpr int kL = 8;
  static VEC_INLINE void columns(const float* a, int64_t n, int64_t r0, int64_t c0, V* c) {
    __m256 r[8], t[8];
    for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(a + (r0 + i) * n + c0);
    for (int i = 0; i < 8; i += 2) {
      t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
      t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
    }
    for (int h = 0; h < 8; h += 4) {
      r[h] = _mm256_shuffle_ps(t[h], t[h + 2], 0x44);
      r[h + 1] = _mm256_shuffle_ps(t[h], t[h + 2], 0xee);
      r[h + 2] = _mm256_shuffle_ps(t[h + 1], t[h + 3], 0x44);
      r[h + 3] = _mm256_shuffle_ps(t[h + 1], t[h + 3], 0xee);
    }
    for (int i = 0; i < 4; ++i) {
      c[i] = V(_mm256_permute2f128_ps(r[i], r[i + 4], 0x20));
      c[i + 4] = V(_mm256_permute2f128_ps(r[i], r[i + 4], 0x31));
    }
  }
};
template <> struct Columns<double> {
  typedef double V __attribute__((vector_size(32)));
  static constexpr int kL = 4;
  static VEC_INLINE void columns(const double* a, int64_t n, int64_t r0, int64_t c0, V* c) {
    __m256d r[4], t[4];
    for (int i = 0; i < 4; ++i) r[i] = _mm256_loadu_pd(a + (r0 + i) * n + c0);
    t[0] = _mm256_unpacklo_pd(r[0], r[1]);
    t[1] = _mm256_unpackhi_pd(r[0], r[1]);
    t[2] = _mm256_unpacklo_pd(r[2], r[3]);
    t[3] = _mm256_unpackhi_pd(r[2], r[3]);
    c[0] = V(_mm256_permute2f128_pd(t[0], t[2], 0x20));
    c[1] = V(_mm256_permute2f128_pd(t[1], t[3], 0x20));
    c[2] = V(_mm256_permute2f128_pd(t[0], t[2], 0x31));
    c[3] = V(_mm256_permute2f128_pd(t[1], t[3], 0x31));
  }
};
#endif

// Rows [0, returned) of b solved (a multiple of kL): L x = b, sums in ascending j.
template <class T>
inline int64_t lower_rows_lanes(const T* a, T* b, int64_t n, bool unit) {
  using C = Columns<T>;
  using V = typename C::V;
  constexpr int kL = C::kL;
  V c[kL];
  int64_t i = 0;
  for (; i + kL <= n; i += kL) {
    V s = load<V>(b + i);
    for (int64_t j0 = 0; j0 < i; j0 += kL) {
      C::columns(a, n, i, j0, c);
      for (int q = 0; q < kL; ++q) s = s - c[q] * b[j0 + q];
    }
    T v[kL];
    store(v, s);
#pragma GCC unroll 16
    for (int q = 0; q < kL; ++q) {
      if (!unit) v[q] /= a[(i + q) * n + i + q];
      b[i + q] = v[q];
#pragma GCC unroll 16
      for (int r = q + 1; r < kL; ++r) v[r] -= a[(i + r) * n + i + q] * v[q];
    }
  }
  return i;
}

// Rows [returned, n) of b solved, kL at a time from the bottom: U x = b, sums
// in descending j, then the division.
template <class T>
inline int64_t upper_rows_lanes(const T* a, T* b, int64_t n, bool unit) {
  using C = Columns<T>;
  using V = typename C::V;
  constexpr int kL = C::kL;
  V c[kL];
  int64_t i = n;
  for (; i >= kL; i -= kL) {
    const int64_t i0 = i - kL;
    V s = load<V>(b + i0);
    for (int64_t j0 = n - kL; j0 >= i; j0 -= kL) {
      C::columns(a, n, i0, j0, c);
      for (int q = kL - 1; q >= 0; --q) s = s - c[q] * b[j0 + q];
    }
    T v[kL];
    store(v, s);
#pragma GCC unroll 16
    for (int q = kL - 1; q >= 0; --q) {
      if (!unit) v[q] /= a[(i0 + q) * n + i0 + q];
      b[i0 + q] = v[q];
#pragma GCC unroll 16
      for (int r = q - 1; r >= 0; --r) v[r] -= a[(i0 + r) * n + i0 + q] * v[q];
    }
  }
  return i;
}
