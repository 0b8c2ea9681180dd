// Linear algebra kernels on the CPU (also the emu device's kernels and the
// target of every linalg fallback): LU, LU solve, Cholesky, triangular solve.
//
// Two regimes, chosen by the matrix size n alone (and the reproducible mode,
// which takes the first at every size), so that a matrix gives the same bits
// whether it is solved alone or inside a batch:
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

#include "backend/kernel_errors.h"
#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/vec_math.h"
#include "concord/policy.h"

namespace concord::detail::cpu {

namespace {

static_assert(sizeof(lapack_int) == sizeof(int32_t), "pivots are int32: LAPACKE must use 32-bit integers");

constexpr int64_t kSmallN = 128;
// The one choice of regime. In the reproducible mode every size takes the
// small loops: LAPACK's blocking and threading are not an order any device
// can repeat, and the loops' order is the one the OpenCL kernels follow.
// Read it on the calling thread: the mode is thread-local, and OpenMP's
// workers do not carry it.
bool small_regime(int64_t n) { return n <= kSmallN || reproducible(); }
// A batch forks threads only when it holds at least this many multiply-adds.
constexpr int64_t kParallelWork = int64_t{1} << 15;

// Runs f(b) for every matrix of the batch; in parallel for batches of small matrices.
template <class F>
void for_batch(int64_t batch, int64_t n, int64_t work_per_matrix, F&& f) {
  if (!small_regime(n) || batch < 2 || batch * work_per_matrix < kParallelWork) {
    for (int64_t b = 0; b < batch; ++b) f(b);
    return;
  }
#pragma omp parallel for schedule(static)
  for (int64_t b = 0; b < batch; ++b) f(b);
}

#include "backend/cpu/linalg_small.h"  // axpy_sub, scale_div, swap_rows (the small LU and solves: via vec::kernels())

// The small LU and triangular solves of the level core/cpu_isa.h chose.
int32_t small_lu(float* a, int64_t n, int32_t* piv) { return vec::kernels().lu_f32(a, n, piv); }
int32_t small_lu(double* a, int64_t n, int32_t* piv) { return vec::kernels().lu_f64(a, n, piv); }
void small_trsm(const float* a, float* b, int64_t n, int64_t k, bool left, bool upper, bool unit) {
  vec::kernels().trsm_f32(a, b, n, k, left, upper, unit);
}
void small_trsm(const double* a, double* b, int64_t n, int64_t k, bool left, bool upper, bool unit) {
  vec::kernels().trsm_f64(a, b, n, k, left, upper, unit);
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
  T* a = detail::host_data<T>(lu);
  int32_t* piv = detail::host_data<int32_t>(pivots);
  int32_t* inf = detail::host_data<int32_t>(info);
  if (small_regime(n)) {
    for_batch(batch, n, n * n * n, [&](int64_t b) { inf[b] = small_lu(a + b * n * n, n, piv + b * n); });
    return;
  }
  std::unique_ptr<T[]> scratch(new T[static_cast<size_t>(n * n)]);
  for (int64_t b = 0; b < batch; ++b) inf[b] = lu_large(a + b * n * n, n, piv + b * n, scratch.get());
}

// One matrix's solve with its LU: the row swaps, then L (unit) and U.
template <class T>
void lu_solve_one(const T* a, const int32_t* piv, T* b, int64_t n, int64_t k, bool small) {
  apply_pivots(piv, b, n, k);
  if (small) {
    small_trsm(a, b, n, k, /*left=*/true, /*upper=*/false, /*unit=*/true);
    small_trsm(a, b, n, k, /*left=*/true, /*upper=*/true, /*unit=*/false);
  } else {
    trsm_large(a, b, n, k, /*upper=*/false, /*left=*/true, /*unit=*/true);
    trsm_large(a, b, n, k, /*upper=*/true, /*left=*/true, /*unit=*/false);
  }
}

template <class T>
void lu_solve_typed(const Tensor& lu, const Tensor& pivots, const Tensor& rhs) {
  const int64_t batch = lu.size(0), n = lu.size(1), k = rhs.size(2);
  const T* a = detail::host_data<T>(lu);
  const int32_t* piv = detail::host_data<int32_t>(pivots);
  T* b = detail::host_data<T>(rhs);
  const bool small = small_regime(n);  // here: the mode is per thread, and the batch may run on others
  for_batch(batch, n, n * n * k, [&](int64_t i) { lu_solve_one(a + i * n * n, piv + i * n, b + i * n * k, n, k, small); });
}

// solve's copy of A, LU and substitutions in one pass over the batch: each
// matrix is copied, factored and solved while it is in L1/L2, and the batch
// forks OpenMP's threads once instead of up to three times (A's copy, the LU,
// the solves; waking them is a large part of a small batch's time under the
// passive wait policy). Per matrix the kernels and their order are those of
// lu_factor_typed then lu_solve_typed: the same bits at any thread count.
// Large matrices keep the LAPACK steps.
template <class T>
void lu_factor_solve_typed(const Tensor& src, const Tensor& lu, const Tensor& pivots, const Tensor& info,
                           const Tensor& rhs) {
  const int64_t batch = lu.size(0), n = lu.size(1), k = rhs.size(2);
  const T* s = detail::host_data<T>(src);
  T* a = detail::host_data<T>(lu);
  if (!small_regime(n)) {
    if (s != a) std::copy(s, s + batch * n * n, a);
    lu_factor_typed<T>(lu, pivots, info);
    lu_solve_typed<T>(lu, pivots, rhs);
    return;
  }
  int32_t* piv = detail::host_data<int32_t>(pivots);
  int32_t* inf = detail::host_data<int32_t>(info);
  T* b = detail::host_data<T>(rhs);
  for_batch(batch, n, n * n * n + n * n * k, [&](int64_t i) {
    T* ai = a + i * n * n;
    if (s != a) std::copy(s + i * n * n, s + (i + 1) * n * n, ai);
    inf[i] = small_lu(ai, n, piv + i * n);
    lu_solve_one(ai, piv + i * n, b + i * n * k, n, k, /*small=*/true);
  });
}

template <class T>
void cholesky_typed(const Tensor& x, const Tensor& info) {
  const int64_t batch = x.size(0), n = x.size(1);
  T* a = detail::host_data<T>(x);
  int32_t* inf = detail::host_data<int32_t>(info);
  const bool small = small_regime(n);
  for_batch(batch, n, n * n * n / 3, [&](int64_t b) {
    T* ab = a + b * n * n;
    inf[b] = small ? cholesky_small(ab, n)
                          : static_cast<int32_t>(potrf_lower_rowmajor(ab, static_cast<lapack_int>(n)));
  });
}

template <class T>
void solve_triangular_typed(const Tensor& x, const Tensor& rhs, bool upper, bool left, bool unit) {
  const int64_t batch = x.size(0), n = x.size(1), k = left ? rhs.size(2) : rhs.size(1);
  const T* a = detail::host_data<T>(x);
  T* b = detail::host_data<T>(rhs);
  const bool small = small_regime(n);
  for_batch(batch, n, n * n * k / 2, [&](int64_t i) {
    const T* ai = a + i * n * n;
    T* bi = b + i * n * k;
    if (!small) trsm_large(ai, bi, n, k, upper, left, unit);
    else small_trsm(ai, bi, n, k, left, upper, unit);
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
  check_pivots(detail::host_data<int32_t>(pivots), count, n);
  by_dtype("lu_solve", lu.dtype(), [&](auto v) { lu_solve_typed<decltype(v)>(lu, pivots, b); });
}

void CpuBackend::lu_factor_solve(const Tensor& a, const Tensor& lu, const Tensor& pivots, const Tensor& info,
                                 const Tensor& b) {
  // No pivot check: the pivots come from the LU just computed (always in [k + 1, n]).
  by_dtype("solve", lu.dtype(), [&](auto v) { lu_factor_solve_typed<decltype(v)>(a, lu, pivots, info, b); });
}

void CpuBackend::cholesky(const Tensor& a, const Tensor& info) {
  by_dtype("cholesky", a.dtype(), [&](auto v) { cholesky_typed<decltype(v)>(a, info); });
}

void CpuBackend::solve_triangular(const Tensor& a, const Tensor& b, bool upper, bool left, bool unitriangular) {
  by_dtype("solve_triangular", a.dtype(),
           [&](auto v) { solve_triangular_typed<decltype(v)>(a, b, upper, left, unitriangular); });
}

}  // namespace concord::detail::cpu
