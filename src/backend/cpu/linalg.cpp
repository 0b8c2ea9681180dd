// Linear algebra kernels on the CPU (also the emu device's kernels and the
// target of every linalg fallback): LU, LU solve, Cholesky, triangular solve.
//
// Two regimes, chosen by the matrix size n alone, so that a matrix gives the
// same bits whether it is solved alone or inside a batch:
//   n <= kSmallN  plain row-major loops, whole matrices per OpenMP thread. No
//                 BLAS/LAPACK call runs inside the parallel region: OpenBLAS
//                 (pthreads build) starts its own threads even for small
//                 problems (getrs from n = 64, trsm from 8 right-hand sides),
//                 and nesting both pools oversubscribes the cores.
//   n >  kSmallN  LAPACK/BLAS one matrix after another; OpenBLAS's own
//                 threading parallelises inside each matrix.
// Inner loops are axpy-shaped (y -= a * x over contiguous rows) so that they
// vectorise without reassociating: vector and scalar code give the same bits.
#include <cblas.h>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <type_traits>

#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/lu_avx512.h"

namespace concord::detail::cpu {

namespace {

static_assert(sizeof(lapack_int) == sizeof(int32_t), "pivots are int32: LAPACKE must use 32-bit integers");

constexpr int64_t kSmallN = 128;
// A batch forks threads only when it holds at least this many multiply-adds.
constexpr int64_t kParallelWork = int64_t{1} << 15;

// Runs f(b) for every matrix of the batch; in parallel for batches of small matrices.
template <class F>
void for_batch(int64_t batch, int64_t n, int64_t work_per_matrix, F&& f) {
  if (n > kSmallN || batch < 2 || batch * work_per_matrix < kParallelWork) {
    for (int64_t b = 0; b < batch; ++b) f(b);
    return;
  }
#pragma omp parallel for schedule(static)
  for (int64_t b = 0; b < batch; ++b) f(b);
}

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

template <class T>
void swap_rows(T* m, int64_t i, int64_t j, int64_t len) {
  if (i != j) std::swap_ranges(m + i * len, m + (i + 1) * len, m + j * len);
}

// ---- small matrices: row-major loops ----

// The LU's row updates are most of a small solve's time, and the library is
// built for baseline x86-64 (SSE2): these loops are also built for AVX2 and
// AVX-512 and the loader picks the widest the CPU has. The build has no FMA
// contraction (-ffp-contract=off), so every clone gives the same bits.
// Not in sanitizer builds: their instrumented ifunc resolvers would run
// during relocation, before the sanitizer runtime is up.
#if defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define CONCORD_ISA_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define CONCORD_ISA_CLONES
#endif

// Right-looking LU with partial pivoting (the first largest |a| as LAPACK's
// idamax); keeps going past a zero pivot and reports the first one, as getrf.
template <class T>
CONCORD_ISA_CLONES int32_t lu_small(T* a, int64_t n, int32_t* piv) {
  int32_t info = 0;
  for (int64_t k = 0; k < n; ++k) {
    int64_t p = k;
    T best = std::abs(a[k * n + k]);
    for (int64_t i = k + 1; i < n; ++i) {
      const T v = std::abs(a[i * n + k]);
      if (v > best) { best = v; p = i; }
    }
    piv[k] = static_cast<int32_t>(p + 1);
    if (a[p * n + k] == T(0)) {
      if (info == 0) info = static_cast<int32_t>(k + 1);
      continue;  // the column below is zero too: nothing to eliminate
    }
    swap_rows(a, k, p, n);
    const T* rk = a + k * n;
    for (int64_t i = k + 1; i < n; ++i) {
      T* ri = a + i * n;
      const T l = ri[k] / rk[k];
      ri[k] = l;
      axpy_sub(ri + k + 1, rk + k + 1, l, n - k - 1);
    }
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

// Lower: sums in ascending j. Upper: sums in descending j (from the last row
// up), which lets one-column solves interleave rows. The OpenCL kernels
// (linalg.cl) use the same orders.
template <class T>
CONCORD_ISA_CLONES void trsm_left_small(const T* a, T* b, int64_t n, int64_t k, bool upper, bool unit) {
  if (!upper) {
    for (int64_t i = k == 1 ? lower_rows_interleaved(a, b, n, unit) : 0; i < n; ++i) {
      eliminate_row(a + i * n, b, i, 0, i, k);
      if (!unit) scale_div(b + i * k, a[i * n + i], k);
    }
  } else {
    for (int64_t i = (k == 1 ? upper_rows_interleaved(a, b, n, unit) : n) - 1; i >= 0; --i) {
      eliminate_row(a + i * n, b, i, i + 1, n, k, /*down=*/true);
      if (!unit) scale_div(b + i * k, a[i * n + i], k);
    }
  }
}

// X A = B for triangular a [n, n] and b [k, n]: each row x of X solves x A = b.
template <class T>
CONCORD_ISA_CLONES void trsm_right_small(const T* a, T* b, int64_t n, int64_t k, bool upper, bool unit) {
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

// Row swaps of an LU's pivots applied to b [n, k], in order.
template <class T>
void apply_pivots(const int32_t* piv, T* b, int64_t n, int64_t k) {
  for (int64_t i = 0; i < n; ++i) swap_rows(b, i, static_cast<int64_t>(piv[i]) - 1, k);
}

// Cholesky by columns, reading and writing only the lower triangle; stops at
// the first leading minor that is not positive definite (as potrf).
template <class T>
int32_t cholesky_small(T* a, int64_t n) {
  for (int64_t j = 0; j < n; ++j) {
    T* rj = a + j * n;
    T d = rj[j];
    for (int64_t p = 0; p < j; ++p) d -= rj[p] * rj[p];
    if (!(d > T(0))) {  // also NaN
      rj[j] = d;
      return static_cast<int32_t>(j + 1);
    }
    d = std::sqrt(d);
    rj[j] = d;
    for (int64_t i = j + 1; i < n; ++i) {
      T* ri = a + i * n;
      T s = ri[j];
      for (int64_t p = 0; p < j; ++p) s -= ri[p] * rj[p];
      ri[j] = s / d;
    }
  }
  return 0;
}

// ---- large matrices: LAPACK / BLAS ----

lapack_int getrf(float* a, lapack_int n, lapack_int* piv) {
  return LAPACKE_sgetrf_work(LAPACK_COL_MAJOR, n, n, a, n, piv);
}
lapack_int getrf(double* a, lapack_int n, lapack_int* piv) {
  return LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, a, n, piv);
}
// Column-major upper factor of row-major memory = row-major lower factor.
lapack_int potrf_lower_rowmajor(float* a, lapack_int n) { return LAPACKE_spotrf_work(LAPACK_COL_MAJOR, 'U', n, a, n); }
lapack_int potrf_lower_rowmajor(double* a, lapack_int n) { return LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'U', n, a, n); }

void trsm(CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_DIAG diag, int m, int k, const float* a, int lda, float* b,
          int ldb) {
  cblas_strsm(CblasRowMajor, side, uplo, CblasNoTrans, diag, m, k, 1.0f, a, lda, b, ldb);
}
void trsm(CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_DIAG diag, int m, int k, const double* a, int lda, double* b,
          int ldb) {
  cblas_dtrsm(CblasRowMajor, side, uplo, CblasNoTrans, diag, m, k, 1.0, a, lda, b, ldb);
}

template <class T>
void transpose(const T* src, T* dst, int64_t n) {
  constexpr int64_t kTile = 32;
  for (int64_t i0 = 0; i0 < n; i0 += kTile)
    for (int64_t j0 = 0; j0 < n; j0 += kTile)
      for (int64_t i = i0; i < std::min(n, i0 + kTile); ++i)
        for (int64_t j = j0; j < std::min(n, j0 + kTile); ++j) dst[j * n + i] = src[i * n + j];
}

// getrf wants column-major: factor the transpose of a scratch copy, then copy back.
template <class T>
int32_t lu_large(T* a, int64_t n, int32_t* piv, T* scratch) {
  transpose(a, scratch, n);
  const lapack_int info = getrf(scratch, static_cast<lapack_int>(n), piv);
  transpose(scratch, a, n);
  return static_cast<int32_t>(info);
}

template <class T>
void trsm_large(const T* a, T* b, int64_t n, int64_t k, bool upper, bool left, bool unit) {
  const int ni = static_cast<int>(n), ki = static_cast<int>(k);
  trsm(left ? CblasLeft : CblasRight, upper ? CblasUpper : CblasLower, unit ? CblasUnit : CblasNonUnit,
       left ? ni : ki, left ? ki : ni, a, ni, b, left ? ki : ni);
}

// ---- typed drivers ----

template <class T>
void lu_factor_typed(const Tensor& lu, const Tensor& pivots, const Tensor& info) {
  const int64_t batch = lu.size(0), n = lu.size(1);
  T* a = lu.data<T>();
  int32_t* piv = pivots.data<int32_t>();
  int32_t* inf = info.data<int32_t>();
  if (n <= kSmallN) {
    const bool avx512 = lu_avx512_available();  // the same bits, masked tails and a fused pivot search
    for_batch(batch, n, n * n * n, [&](int64_t b) {
      inf[b] = avx512 ? lu_small_avx512(a + b * n * n, n, piv + b * n) : lu_small(a + b * n * n, n, piv + b * n);
    });
    return;
  }
  std::unique_ptr<T[]> scratch(new T[static_cast<size_t>(n * n)]);
  for (int64_t b = 0; b < batch; ++b) inf[b] = lu_large(a + b * n * n, n, piv + b * n, scratch.get());
}

template <class T>
void lu_solve_typed(const Tensor& lu, const Tensor& pivots, const Tensor& rhs) {
  const int64_t batch = lu.size(0), n = lu.size(1), k = rhs.size(2);
  const T* a = lu.data<T>();
  const int32_t* piv = pivots.data<int32_t>();
  T* b = rhs.data<T>();
  for_batch(batch, n, n * n * k, [&](int64_t i) {
    const T* ai = a + i * n * n;
    T* bi = b + i * n * k;
    apply_pivots(piv + i * n, bi, n, k);
    if (n <= kSmallN) {
      trsm_left_small(ai, bi, n, k, /*upper=*/false, /*unit=*/true);
      trsm_left_small(ai, bi, n, k, /*upper=*/true, /*unit=*/false);
    } else {
      trsm_large(ai, bi, n, k, /*upper=*/false, /*left=*/true, /*unit=*/true);
      trsm_large(ai, bi, n, k, /*upper=*/true, /*left=*/true, /*unit=*/false);
    }
  });
}

template <class T>
void cholesky_typed(const Tensor& x, const Tensor& info) {
  const int64_t batch = x.size(0), n = x.size(1);
  T* a = x.data<T>();
  int32_t* inf = info.data<int32_t>();
  for_batch(batch, n, n * n * n / 3, [&](int64_t b) {
    T* ab = a + b * n * n;
    inf[b] = n <= kSmallN ? cholesky_small(ab, n)
                          : static_cast<int32_t>(potrf_lower_rowmajor(ab, static_cast<lapack_int>(n)));
  });
}

template <class T>
void solve_triangular_typed(const Tensor& x, const Tensor& rhs, bool upper, bool left, bool unit) {
  const int64_t batch = x.size(0), n = x.size(1), k = left ? rhs.size(2) : rhs.size(1);
  const T* a = x.data<T>();
  T* b = rhs.data<T>();
  for_batch(batch, n, n * n * k / 2, [&](int64_t i) {
    const T* ai = a + i * n * n;
    T* bi = b + i * n * k;
    if (n > kSmallN) trsm_large(ai, bi, n, k, upper, left, unit);
    else if (left) trsm_left_small(ai, bi, n, k, upper, unit);
    else trsm_right_small(ai, bi, n, k, upper, unit);
  });
}

template <class F>
void by_dtype(const char* op, Dtype t, F&& f) {
  if (t == float32) f(float{});
  else if (t == float64) f(double{});
  else
    throw NotImplementedError(std::string("[") + op + "] the cpu kernel takes float32 or float64, got " +
                              std::string(name(t)) + "; the front end converts other dtypes first");
}

}  // namespace

void CpuBackend::lu_factor(const Tensor& lu, const Tensor& pivots, const Tensor& info) {
  by_dtype("lu_factor", lu.dtype(), [&](auto v) { lu_factor_typed<decltype(v)>(lu, pivots, info); });
}

void CpuBackend::lu_solve(const Tensor& lu, const Tensor& pivots, const Tensor& b) {
  // A bad pivot would swap rows outside the matrix: refuse before touching anything.
  const int64_t n = lu.size(1), count = pivots.numel();
  const int32_t* piv = pivots.data<int32_t>();
  for (int64_t i = 0; i < count; ++i)
    if (piv[i] < 1 || piv[i] > n)
      throw ValueError("[linalg.lu_solve] pivots must be in [1, " + std::to_string(n) + "], found " +
                       std::to_string(piv[i]) + " at flat position " + std::to_string(i) +
                       "; pass the pivots returned by lu_factor");
  by_dtype("lu_solve", lu.dtype(), [&](auto v) { lu_solve_typed<decltype(v)>(lu, pivots, b); });
}

void CpuBackend::cholesky(const Tensor& a, const Tensor& info) {
  by_dtype("cholesky", a.dtype(), [&](auto v) { cholesky_typed<decltype(v)>(a, info); });
}

void CpuBackend::solve_triangular(const Tensor& a, const Tensor& b, bool upper, bool left, bool unitriangular) {
  by_dtype("solve_triangular", a.dtype(),
           [&](auto v) { solve_triangular_typed<decltype(v)>(a, b, upper, left, unitriangular); });
}

}  // namespace concord::detail::cpu
