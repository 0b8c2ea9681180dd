// The small-matrix loops of the CPU's linear algebra (n <= 128): LU with
// partial pivoting and triangular solves, as plain row-major loops.
//
// Built once per instruction set (included by vec_generic.cpp, vec_avx2.cpp,
// vec_avx512.cpp inside their own namespace, and by linalg.cpp for the
// helpers it shares) and reached through the vec::Kernels table of the level
// core/cpu_isa.h picks. Inner loops are axpy-shaped (y -= a * x over
// contiguous rows) so that they vectorise without reassociating, and the
// build has no FMA contraction: every level gives the same bits.
//
// Include inside a namespace; needs <cstdint>.

// y -= a * x over m contiguous elements.
template <class T>
inline void axpy_sub(T* __restrict y, const T* __restrict x, T a, int64_t m) {
#pragma omp simd
  for (int64_t j = 0; j < m; ++j) y[j] -= a * x[j];
}

template <class T>
inline void scale_div(T* y, T d, int64_t m) {
#pragma omp simd
  for (int64_t j = 0; j < m; ++j) y[j] /= d;
}

// (No std:: templates here: instantiated in a file built for AVX-512 they
// could be merged at link time with the baseline copy and run on any CPU.)
template <class T>
void swap_rows(T* m, int64_t i, int64_t j, int64_t len) {
  if (i == j) return;
  T* a = m + i * len;
  T* b = m + j * len;
  for (int64_t c = 0; c < len; ++c) {
    const T t = a[c];
    a[c] = b[c];
    b[c] = t;
  }
}

// |v| for the pivot search: the sign bit cleared (NaN stays NaN). A builtin,
// not a comparison: branches on the signs of random data mispredict half the
// time, which made the search the larger part of a 64 x 64 LU.
template <class T>
inline T magnitude(T v) {
  if constexpr (sizeof(T) == sizeof(float)) return __builtin_fabsf(v);
  else return __builtin_fabs(v);
}

#ifdef VEC_W
// The row update of the LU in the ISA's registers (load/store of vec_impl.h):
// full vectors, then the tail as one more vector ending at y + m,
// computed from the values before the update, so the elements it shares with
// the last full vector get the same bits (the compiled loop ran up to W - 1
// tail elements one by one, in most rows of a 64 x 64 LU).
template <class T>
VEC_INLINE void lu_row_update(T* __restrict y, const T* __restrict x, T l, int64_t m) {
  typedef T V __attribute__((vector_size(4 * W)));  // one register: W floats or W/2 doubles
  constexpr int64_t kL = 4 * W / sizeof(T);
  if (m < kL) {
    axpy_sub(y, x, l, m);
    return;
  }
  const V tail = load<V>(y + m - kL) - l * load<V>(x + m - kL);
  for (int64_t j = 0; j + kL <= m; j += kL) store(y + j, load<V>(y + j) - l * load<V>(x + j));
  store(y + m - kL, tail);
}
#else
template <class T>
inline void lu_row_update(T* __restrict y, const T* __restrict x, T l, int64_t m) { axpy_sub(y, x, l, m); }
#endif

// Right-looking LU with partial pivoting (the first largest |a| as LAPACK's
// idamax); keeps going past a zero pivot and reports the first one, as getrf.
// The search of column k + 1 runs inside step k's update, on each row as it
// is finished (the same compares in the same row order as a separate pass).
template <class T>
int32_t lu_small(T* a, int64_t n, int32_t* piv) {
  int32_t info = 0;
  auto search = [&](int64_t k) {
    int64_t p = k;
    T best = magnitude(a[k * n + k]);
    for (int64_t i = k + 1; i < n; ++i) {
      const T v = magnitude(a[i * n + k]);
      const bool more = v > best;  // false for NaN: a NaN is never picked over k
      best = more ? v : best;
      p = more ? i : p;
    }
    return p;
  };
  int64_t next = -1;  // the pivot row of column k found during step k - 1, if any
  for (int64_t k = 0; k < n; ++k) {
    const int64_t p = next >= 0 ? next : search(k);
    next = -1;
    piv[k] = static_cast<int32_t>(p + 1);
    if (a[p * n + k] == T(0)) {
      if (info == 0) info = static_cast<int32_t>(k + 1);
      continue;  // the column below is zero too: nothing to eliminate
    }
    swap_rows(a, k, p, n);
    const T* rk = a + k * n;
    T best = T(0);  // |a[k + 1][k + 1]| once row k + 1 is updated
    int64_t q = k + 1;
    for (int64_t i = k + 1; i < n; ++i) {
      T* ri = a + i * n;
      const T l = ri[k] / rk[k];
      ri[k] = l;
      lu_row_update(ri + k + 1, rk + k + 1, l, n - k - 1);
      const T v = magnitude(ri[k + 1]);  // i > k, so column k + 1 exists
      const bool more = i > k + 1 && v > best;
      best = i == k + 1 || more ? v : best;
      q = more ? i : q;
    }
    if (k + 1 < n) next = q;
  }
  return info;
}

// Rows i of b [n, k]: b_i -= sum over j in [j0, j1) of m[i][j] * b_j, in
// ascending order of j (descending when down: the upper solves, see below).
template <class T>
inline void eliminate_row(const T* mrow, T* b, int64_t i, int64_t j0, int64_t j1, int64_t k, bool down = false) {
  T* bi = b + i * k;
  if (k == 1) {  // the same operations as the axpy form, without its loop overhead
    T s = bi[0];
    if (down)
      for (int64_t j = j1 - 1; j >= j0; --j) s -= mrow[j] * b[j];
    else
      for (int64_t j = j0; j < j1; ++j) s -= mrow[j] * b[j];
    bi[0] = s;
    return;
  }
  if (down)
    for (int64_t j = j1 - 1; j >= j0; --j) axpy_sub(bi, b + j * k, mrow[j], k);
  else
    for (int64_t j = j0; j < j1; ++j) axpy_sub(bi, b + j * k, mrow[j], k);
}

// A X = B for triangular a [n, n] and b [n, k] (overwritten by X).
// Forward substitution for one right-hand side, kR rows at a time: their
// sums over the rows already solved are kR independent chains (each in the
// order of j, so the same bits as eliminate_row), which the core overlaps
// instead of waiting out one chain's subtraction latency after another.
template <class T>
int64_t lower_rows_interleaved(const T* a, T* b, int64_t n, bool unit) {
  constexpr int kR = 8;
  int64_t i = 0;
  for (; i + kR <= n; i += kR) {
    T s[kR];
#pragma GCC unroll 8
    for (int r = 0; r < kR; ++r) s[r] = b[i + r];
    for (int64_t j = 0; j < i; ++j) {
      const T x = b[j];
#pragma GCC unroll 8
      for (int r = 0; r < kR; ++r) s[r] -= a[(i + r) * n + j] * x;
    }
#pragma GCC unroll 8
    for (int r = 0; r < kR; ++r) {  // the triangle inside the group, in order
      const T* ar = a + (i + r) * n;
      for (int q = 0; q < r; ++q) s[r] -= ar[i + q] * s[q];
      if (!unit) s[r] /= ar[i + r];
      b[i + r] = s[r];
    }
  }
  return i;
}

// Back substitution for one right-hand side, kR rows at a time from the
// bottom. Each row's sum runs over j from the end down to its diagonal, so
// the terms of rows already solved come first: the kR chains run side by side
// and only the triangle inside the group waits (ascending sums would start
// each row with the term of the row just solved, serialising every row).
template <class T>
int64_t upper_rows_interleaved(const T* a, T* b, int64_t n, bool unit) {
  constexpr int kR = 8;
  int64_t i = n;  // rows [i, n) are solved
  for (; i - kR >= 0; i -= kR) {
    const int64_t i0 = i - kR;
    T s[kR];
#pragma GCC unroll 8
    for (int r = 0; r < kR; ++r) s[r] = b[i0 + r];
    for (int64_t j = n - 1; j >= i; --j) {
      const T x = b[j];
#pragma GCC unroll 8
      for (int r = 0; r < kR; ++r) s[r] -= a[(i0 + r) * n + j] * x;
    }
#pragma GCC unroll 8
    for (int r = kR - 1; r >= 0; --r) {  // the triangle inside the group, from its bottom
      const T* ar = a + (i0 + r) * n;
      for (int q = kR - 1; q > r; --q) s[r] -= ar[i0 + q] * s[q];
      if (!unit) s[r] /= ar[i0 + r];
      b[i0 + r] = s[r];
    }
  }
  return i;  // rows [0, i) are left
}

#if defined(VEC_W) && ((VEC_W == 16 && defined(__AVX512F__)) || (VEC_W == 8 && defined(__AVX2__)))
#include "backend/cpu/trsm_lanes.h"  // lower_rows_lanes, upper_rows_lanes: one row per lane
#endif

// The one-column solves' blocks of rows: one row per vector lane on AVX2 and
// AVX-512 (from n = 16), else the interleaved loops; the same bits either way.
template <class T>
int64_t lower_rows_one(const T* a, T* b, int64_t n, bool unit) {
#ifdef CONCORD_TRSM_LANES
  if (n >= 16) return lower_rows_lanes(a, b, n, unit);
#endif
  return lower_rows_interleaved(a, b, n, unit);
}
template <class T>
int64_t upper_rows_one(const T* a, T* b, int64_t n, bool unit) {
#ifdef CONCORD_TRSM_LANES
  if (n >= 16) return upper_rows_lanes(a, b, n, unit);
#endif
  return upper_rows_interleaved(a, b, n, unit);
}

// Lower: sums in ascending j. Upper: sums in descending j (from the last row
// up), which lets one-column solves interleave rows. The OpenCL kernels
// (linalg.cl) use the same orders.
template <class T>
void trsm_left_small(const T* a, T* b, int64_t n, int64_t k, bool upper, bool unit) {
  if (!upper) {
    for (int64_t i = k == 1 ? lower_rows_one(a, b, n, unit) : 0; i < n; ++i) {
      eliminate_row(a + i * n, b, i, 0, i, k);
      if (!unit) scale_div(b + i * k, a[i * n + i], k);
    }
  } else {
    for (int64_t i = (k == 1 ? upper_rows_one(a, b, n, unit) : n) - 1; i >= 0; --i) {
      eliminate_row(a + i * n, b, i, i + 1, n, k, /*down=*/true);
      if (!unit) scale_div(b + i * k, a[i * n + i], k);
    }
  }
}

// X A = B for triangular a [n, n] and b [k, n]: each row x of X solves x A = b.
template <class T>
void trsm_right_small(const T* a, T* b, int64_t n, int64_t k, bool upper, bool unit) {
  for (int64_t r = 0; r < k; ++r) {
    T* x = b + r * n;
    if (upper) {  // x_j depends on x_0..x_{j-1}
      for (int64_t j = 0; j < n; ++j) {
        if (!unit) x[j] /= a[j * n + j];
        axpy_sub(x + j + 1, a + j * n + j + 1, x[j], n - j - 1);
      }
    } else {      // x_j depends on x_{j+1}..x_{n-1}
      for (int64_t j = n - 1; j >= 0; --j) {
        if (!unit) x[j] /= a[j * n + j];
        axpy_sub(x, a + j * n, x[j], j);
      }
    }
  }
}
