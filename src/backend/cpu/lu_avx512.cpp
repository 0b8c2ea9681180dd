// AVX-512 small LU (contract in lu_avx512.h). Only the CONCORD_AVX512
// functions use AVX-512; the file is built for plain x86-64.
#include "backend/cpu/lu_avx512.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
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
  static constexpr int kW = 16;
  CONCORD_AVX512 static V set1(T v) { return _mm512_set1_ps(v); }
  CONCORD_AVX512 static V load(const T* p) { return _mm512_loadu_ps(p); }
  CONCORD_AVX512 static void store(T* p, V v) { _mm512_storeu_ps(p, v); }
  CONCORD_AVX512 static V mul_sub(V y, V l, V x) { return _mm512_sub_ps(y, _mm512_mul_ps(l, x)); }
  CONCORD_AVX512 static V div(V y, V d) { return _mm512_div_ps(y, d); }
  using M = __mmask16;
  static M mask(int64_t c) { return c >= kW ? M(0xffff) : c <= 0 ? M(0) : M((1u << c) - 1); }
  CONCORD_AVX512 static V load(M m, const T* p) { return _mm512_maskz_loadu_ps(m, p); }
  CONCORD_AVX512 static void store(T* p, M m, V v) { _mm512_mask_storeu_ps(p, m, v); }
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
  static constexpr int kW = 8;
  CONCORD_AVX512 static V set1(T v) { return _mm512_set1_pd(v); }
  CONCORD_AVX512 static V load(const T* p) { return _mm512_loadu_pd(p); }
  CONCORD_AVX512 static void store(T* p, V v) { _mm512_storeu_pd(p, v); }
  CONCORD_AVX512 static V mul_sub(V y, V l, V x) { return _mm512_sub_pd(y, _mm512_mul_pd(l, x)); }
  CONCORD_AVX512 static V div(V y, V d) { return _mm512_div_pd(y, d); }
  using M = __mmask8;
  static M mask(int64_t c) { return c >= kW ? M(0xff) : c <= 0 ? M(0) : M((1u << c) - 1); }
  CONCORD_AVX512 static V load(M m, const T* p) { return _mm512_maskz_loadu_pd(m, p); }
  CONCORD_AVX512 static void store(T* p, M m, V v) { _mm512_mask_storeu_pd(p, m, v); }
  CONCORD_AVX512 static V abs(V v) { return _mm512_abs_pd(v); }
  CONCORD_AVX512 static V max(V a, V b) { return _mm512_max_pd(a, b); }  // b where a is NaN
  CONCORD_AVX512 static T reduce_max(V v) { return _mm512_reduce_max_pd(v); }
  CONCORD_AVX512 static unsigned eq(V a, V b) { return _mm512_cmp_pd_mask(a, b, _CMP_EQ_OQ); }
  CONCORD_AVX512 static V gather(M m, const T* p, int64_t stride) {
    const __m512i idx = _mm512_set_epi64(7 * stride, 6 * stride, 5 * stride, 4 * stride, 3 * stride, 2 * stride, stride, 0);
    return _mm512_mask_i64gather_pd(_mm512_setzero_pd(), m, idx, p, 8);
  }
};

// y -= l * x on m elements (the product rounded, then the difference: no
// FMA). No masked stores: one does not forward to the next column's loads.
// The tail is an unmasked vector ending at y + m, computed from the values
// before the update, so its overlap with the last full vector gets the same bits.
template <class S>
CONCORD_AVX512 void axpy_sub(typename S::T* y, const typename S::T* x, typename S::T l, int64_t m) {
  if (m < S::kW) {
    for (int64_t j = 0; j < m; ++j) y[j] -= l * x[j];
    return;
  }
  const typename S::V vl = S::set1(l);
  const typename S::V tail = S::mul_sub(S::load(y + m - S::kW), vl, S::load(x + m - S::kW));
  for (int64_t j = 0; j + S::kW <= m; j += S::kW) S::store(y + j, S::mul_sub(S::load(y + j), vl, S::load(x + j)));
  S::store(y + m - S::kW, tail);  // overlaps the last full vector with the same values
}

template <class V>
CONCORD_AVX512 int32_t lu_unblocked(typename V::T* a, int64_t n, int32_t* piv) {
  using T = typename V::T;
  int32_t info = 0;
  bool found = false;  // the pivot of column k was found while updating column k-1
  int64_t p = 0;
  for (int64_t k = 0; k < n; ++k) {
    if (!found) {
      p = k;
      T best = std::abs(a[k * n + k]);
      for (int64_t i = k + 1; i < n; ++i) {
        const T v = std::abs(a[i * n + k]);
        if (v > best) best = v, p = i;
      }
    }
    found = false;
    piv[k] = static_cast<int32_t>(p + 1);
    if (a[p * n + k] == T(0)) {
      if (info == 0) info = static_cast<int32_t>(k + 1);
      continue;  // the column below is zero too: nothing to eliminate
    }
    if (p != k)
      for (int64_t j = 0; j < n; ++j) std::swap(a[k * n + j], a[p * n + j]);
    const T* rk = a + k * n;
    const int64_t m = n - k - 1;
    T best = 0;
    for (int64_t i = k + 1; i < n; ++i) {
      T* ri = a + i * n;
      const T l = ri[k] / rk[k];
      ri[k] = l;
      if (m == 0) continue;
      axpy_sub<V>(ri + k + 1, rk + k + 1, l, m);
      const T v = std::abs(ri[k + 1]);
      if (i == k + 1 || v > best) best = v, p = i;  // the first largest, as the separate search
    }
    found = m > 0;
  }
  return info;
}

// y /= d on m elements, as axpy_sub (an overlapping last vector, no scalar tail).
template <class S>
CONCORD_AVX512 void div_range(typename S::T* y, typename S::T d, int64_t m) {
  if (m < S::kW) {
    for (int64_t j = 0; j < m; ++j) y[j] /= d;
    return;
  }
  const typename S::V vd = S::set1(d);
  const typename S::V tail = S::div(S::load(y + m - S::kW), vd);
  for (int64_t j = 0; j + S::kW <= m; j += S::kW) S::store(y + j, S::div(S::load(y + j), vd));
  S::store(y + m - S::kW, tail);
}

// Swaps x[0, m) and y[0, m).
template <class S>
CONCORD_AVX512 void swap_range(typename S::T* x, typename S::T* y, int64_t m) {
  for (int64_t j = 0; j < m; j += S::kW) {
    const typename S::M k = S::mask(m - j);
    const typename S::V a = S::load(k, x + j), b = S::load(k, y + j);
    S::store(x + j, k, b);
    S::store(y + j, k, a);
  }
}

// The pivot row of a contiguous column below and at c: the first largest |v|,
// as the scalar search (v > best, best starting at |col[c]|: a NaN never
// wins, and a NaN at c keeps c).
template <class S>
CONCORD_AVX512 int64_t pivot_row(const typename S::T* col, int64_t c, int64_t rows) {
  using T = typename S::T;
  const T b0 = std::abs(col[c]);
  if (b0 != b0) return c;
  typename S::V m = S::set1(b0);
  for (int64_t r = c + 1; r < rows; r += S::kW) m = S::max(S::abs(S::load(S::mask(rows - r), col + r)), m);
  const T mx = S::reduce_max(m);
  if (!(mx > b0)) return c;
  const typename S::V vm = S::set1(mx);
  for (int64_t r = c + 1;; r += S::kW)
    if (const unsigned hit = S::eq(S::abs(S::load(S::mask(rows - r), col + r)), vm) & S::mask(rows - r))
      return r + __builtin_ctz(hit);
}

// The trailing update of R rows from row i, columns [j, j + 2W) masked by m0,
// m1: each element, held in a register, takes -= l·u for the panel's steps ks
// in ascending order (product rounded, then the difference): the operations
// the unblocked loop does to it, in the same order, with one load and one
// store per element per panel instead of one per step.
template <class S, int R>
CONCORD_AVX512 void tile_update(typename S::T* a, int64_t n, int64_t i, int64_t j, const int64_t* ks, int nk,
                                typename S::M m0, typename S::M m1) {
  using V = typename S::V;
  V acc0[R], acc1[R];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) {
    acc0[r] = S::load(m0, a + (i + r) * n + j);
    acc1[r] = S::load(m1, a + (i + r) * n + j + S::kW);
  }
  for (int q = 0; q < nk; ++q) {
    const int64_t k = ks[q];
    const V u0 = S::load(m0, a + k * n + j), u1 = S::load(m1, a + k * n + j + S::kW);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      const V l = S::set1(a[(i + r) * n + k]);
      acc0[r] = S::mul_sub(acc0[r], l, u0);
      acc1[r] = S::mul_sub(acc1[r], l, u1);
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) {
    S::store(a + (i + r) * n + j, m0, acc0[r]);
    S::store(a + (i + r) * n + j + S::kW, m1, acc1[r]);
  }
}

// Blocked right-looking LU in panels of kPanel columns. Every element still
// gets the unblocked loop's operations in its order (each step's multiplier
// is a division by the pivot; each update a rounded product, then the
// difference; steps in ascending order), so the bits are the same; only the
// order across elements changes:
//   1. the panel (rows k0.., its columns) is factored in a column-major copy,
//      where the pivot search, the divisions and the updates run down
//      contiguous columns; its row swaps are applied to the rest of the rows;
//   2. the panel's rows right of it take the panel's steps, row by row (U12);
//   3. the rows below take all the panel's steps per element at once
//      (tile_update), the GEMM-shaped bulk of the work.
// Steps with a zero pivot do nothing, as in the unblocked loop.
constexpr int64_t kPanel = 8;
constexpr int64_t kMaxN = 128;

template <class S>
CONCORD_AVX512 int32_t lu_blocked(typename S::T* a, int64_t n, int32_t* piv) {
  using T = typename S::T;
  alignas(64) T P[kPanel][kMaxN];
  int32_t info = 0;
  for (int64_t k0 = 0; k0 < n; k0 += kPanel) {
    const int64_t b = std::min(kPanel, n - k0), rows = n - k0, k1 = k0 + b;
    for (int64_t c = 0; c < b; ++c)
      for (int64_t r = 0; r < rows; r += S::kW) S::store(P[c] + r, S::gather(S::mask(rows - r), a + (k0 + r) * n + k0 + c, n));
    int64_t ks[kPanel];
    int nk = 0;
    for (int64_t c = 0; c < b; ++c) {
      T* col = P[c];
      const int64_t p = pivot_row<S>(col, c, rows);
      piv[k0 + c] = static_cast<int32_t>(k0 + p + 1);
      if (col[p] == T(0)) {
        if (info == 0) info = static_cast<int32_t>(k0 + c + 1);
        continue;
      }
      if (p != c) {
        for (int64_t cc = 0; cc < b; ++cc) std::swap(P[cc][c], P[cc][p]);
        T* x = a + (k0 + c) * n;
        T* y = a + (k0 + p) * n;
        swap_range<S>(x, y, k0);
        swap_range<S>(x + k1, y + k1, n - k1);
      }
      ks[nk++] = k0 + c;
      const int64_t m = rows - c - 1;
      div_range<S>(col + c + 1, col[c], m);
      for (int64_t cc = c + 1; cc < b; ++cc) axpy_sub<S>(P[cc] + c + 1, col + c + 1, P[cc][c], m);
    }
    const typename S::M bm = S::mask(b);
    for (int64_t r = 0; r < rows; ++r) S::store(a + (k0 + r) * n + k0, bm, S::gather(bm, P[0] + r, kMaxN));
    if (nk == 0 || k1 == n) continue;
    const int64_t w = n - k1;
    for (int64_t r = k0 + 1; r < k1; ++r)
      for (int q = 0; q < nk && ks[q] < r; ++q) axpy_sub<S>(a + r * n + k1, a + ks[q] * n + k1, a[r * n + ks[q]], w);
    for (int64_t j = k1; j < n; j += 2 * S::kW) {
      const typename S::M m0 = S::mask(n - j), m1 = S::mask(n - j - S::kW);
      int64_t i = k1;
      for (; i + 4 <= n; i += 4) tile_update<S, 4>(a, n, i, j, ks, nk, m0, m1);
      for (; i < n; ++i) tile_update<S, 1>(a, n, i, j, ks, nk, m0, m1);
    }
  }
  return info;
}

template <class S>
CONCORD_AVX512 int32_t lu(typename S::T* a, int64_t n, int32_t* piv) {
  // Below ~6 panels the copies and gathers cost more than the blocking saves
  // (measured against the unblocked loop: 0.7x at n = 16, 0.9x at 32, 1.1-1.4x at
  // 64, 1.3-1.5x at 100-128).
  return n >= 6 * kPanel && n <= kMaxN ? lu_blocked<S>(a, n, piv) : lu_unblocked<S>(a, n, piv);
}

}  // namespace


int32_t lu_small_avx512(float* a, int64_t n, int32_t* piv) { return lu<F32>(a, n, piv); }
int32_t lu_small_avx512(double* a, int64_t n, int32_t* piv) { return lu<F64>(a, n, piv); }

}  // namespace concord::detail::cpu
