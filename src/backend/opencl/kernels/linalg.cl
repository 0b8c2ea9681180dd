// Batched dense linear algebra, one work-group per matrix: LU with partial
// pivoting, LU solve, triangular solve, Cholesky. Built with -DT=float|double,
// -DUSE_LOCAL=1 (the matrix is copied to __local memory, given as the last
// kernel argument) or 0 (it is worked on in place in __global memory), and
// -DROWWISE=1 on CPU devices (work split by rows, see lu_factor) or 0.
//
// Every element receives the same operations in the same order as in the CPU
// backend's small-matrix loops (src/backend/cpu/linalg.cpp): work-items split
// only updates that are independent of each other, every dot product runs in
// ascending index order, and nothing is contracted (common.cl turns
// FP_CONTRACT off). With correctly rounded division and square root (always
// for double; for float where the runtime adds -cl-fp32-correctly-rounded-
// divide-sqrt) the results are the CPU's bits for n <= 128.
//
// Offsets are in elements; in-matrix indices are int (the host keeps n*n and
// n*k below 2^31). Barriers are never inside data-dependent control flow (a
// zero pivot, bad pivots, a failed Cholesky step only switch work off), as
// some compilers (PoCL's) mishandle barriers after a branch they cannot prove
// uniform.

#if USE_LOCAL
#define AMEM __local
#else
#define AMEM __global
#endif
// Every kernel touches both memories: the right-hand sides always live in __global.
#define SYNC() barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)

// The work-group's matrix: a local copy of g (USE_LOCAL) or g itself.
#if USE_LOCAL
#define MATRIX(a, g, len, scratch)                                             \
  __local T* a = scratch;                                                      \
  for (int e_ = get_local_id(0); e_ < (len); e_ += get_local_size(0)) a[e_] = (g)[e_]; \
  SYNC()
#define STORE_MATRIX(a, g, len)                                                \
  SYNC();                                                                      \
  for (int e_ = get_local_id(0); e_ < (len); e_ += get_local_size(0)) (g)[e_] = a[e_]
#else
#define MATRIX(a, g, len, scratch) __global T* a = (g)
#define STORE_MATRIX(a, g, len)
#endif

// In place LU of lu[b] (row-major n x n), right-looking as LAPACK's getf2:
// pivot = the first largest |a[i][k]| (idamax), full-row swaps, multipliers
// l = a[i][k] / a[k][k], then a[i][j] -= l * a[k][j]. A zero pivot is
// recorded (the first one goes to info) and its column skipped, as getrf does.
__kernel void lu_factor(__global T* lu, long lu_off, __global int* piv, long piv_off,
                        __global int* info, long info_off, int n, __local T* scratch) {
  const int lid = get_local_id(0), L = get_local_size(0);
  const long b = get_group_id(0);
  __global T* g = lu + lu_off + b * (long)n * n;
  __global int* pv = piv + piv_off + b * n;
  __local int pivot[2];  // by parity of k: item 0 may write k+1's before the others read k's
  MATRIX(a, g, n * n, scratch);
  int first_zero = 0;  // the same in every item
  for (int k = 0; k < n; ++k) {
    if (lid == 0) {
      int p = k;
      T best = fabs(a[k * n + k]);
      for (int i = k + 1; i < n; ++i) {
        const T v = fabs(a[i * n + k]);
        if (v > best) { best = v; p = i; }
      }
      pv[k] = p + 1;
      pivot[k & 1] = a[p * n + k] == (T)0 ? -1 : p;
    }
    SYNC();
    const int p = pivot[k & 1];
    // p < 0: the column is zero from row k down, nothing to eliminate.
    if (p < 0 && first_zero == 0) first_zero = k + 1;
    const int live = p >= 0 ? n : 0;  // loop bounds that switch the step off
    if (p != k)
      for (int j = lid; j < live; j += L) {
        const T t = a[k * n + j];
        a[k * n + j] = a[p * n + j];
        a[p * n + j] = t;
      }
    SYNC();
    const T d = a[k * n + k];
#if ROWWISE
    // One row per item, as the CPU's axpy: a contiguous inner loop that a CPU
    // device vectorises within the work-item.
    for (int i = k + 1 + lid; i < live; i += L) {
      AMEM T* ri = a + i * n;
      AMEM const T* rk = a + k * n;
      const T l = ri[k] / d;
      ri[k] = l;
      for (int j = k + 1; j < n; ++j) ri[j] -= l * rk[j];
    }
#else
    // One column of the trailing block per item (neighbouring items touch
    // neighbouring addresses: coalesced on a GPU); rows in order.
    for (int i = k + 1 + lid; i < live; i += L) a[i * n + k] = a[i * n + k] / d;
    SYNC();
    for (int j = k + 1 + lid; j < live; j += L) {
      const T akj = a[k * n + j];
      for (int i = k + 1; i < n; ++i) a[i * n + j] -= a[i * n + k] * akj;
    }
#endif
    SYNC();
  }
  STORE_MATRIX(a, g, n * n);
  if (lid == 0) info[info_off + b] = first_zero;
}

// rhs[b] (n x k) := U^-1 L^-1 P rhs[b] for the factors of lu_factor. Pivots
// outside [1, n] set *bad and leave this rhs untouched (the host raises).
__kernel void lu_solve(__global const T* lu, long lu_off, __global const int* piv, long piv_off,
                       __global T* rhs, long rhs_off, int n, int k, __global int* bad, __local T* scratch) {
  const int lid = get_local_id(0), L = get_local_size(0);
  const long b = get_group_id(0);
  __global const int* pv = piv + piv_off + b * n;
  __global T* x = rhs + rhs_off + b * (long)n * k;
  __local int any_bad;
  if (lid == 0) any_bad = 0;
  SYNC();
  for (int i = lid; i < n; i += L)
    if (pv[i] < 1 || pv[i] > n) any_bad = 1;
  SYNC();
  if (any_bad && lid == 0) *bad = 1;
  const int kk = any_bad ? 0 : k;  // bad pivots: every loop below is empty
  MATRIX(a, (__global T*)(lu + lu_off + b * (long)n * n), n * n, scratch);
  // Row swaps in order; each item owns whole columns.
  for (int c = lid; c < kk; c += L)
    for (int i = 0; i < n; ++i) {
      const int p = pv[i] - 1;
      if (p != i) {
        const T t = x[i * k + c];
        x[i * k + c] = x[p * k + c];
        x[p * k + c] = t;
      }
    }
  SYNC();
  // L (unit lower), by columns: step j subtracts l[i][j] x[j] from every later row.
  for (int j = 0; j + 1 < n; ++j) {
    const int m = (n - j - 1) * kk;
    for (int e = lid; e < m; e += L) {
      const int i = j + 1 + e / k, c = e % k;
      x[i * k + c] -= a[i * n + j] * x[j * k + c];
    }
    SYNC();
  }
  // U, by rows from the bottom: each item owns whole columns (sums in
  // descending order of j, as the CPU's).
  for (int c = lid; c < kk; c += L)
    for (int i = n - 1; i >= 0; --i) {
      T s = x[i * k + c];
      for (int j = n - 1; j > i; --j) s -= a[i * n + j] * x[j * k + c];
      x[i * k + c] = s / a[i * n + i];
    }
}

// Triangular solve with the named triangle of a[b] (the other is never read):
// left: A X = B with rhs[b] n x k; right: X A = B with rhs[b] k x n.
__kernel void solve_triangular(__global const T* tri, long a_off, __global T* rhs, long rhs_off, int n, int k,
                               int upper, int left, int unit, __local T* scratch) {
  const int lid = get_local_id(0), L = get_local_size(0);
  const long b = get_group_id(0);
  __global T* x = rhs + rhs_off + b * (long)n * k;
  MATRIX(a, (__global T*)(tri + a_off + b * (long)n * n), n * n, scratch);
  if (left && upper) {
    // By rows from the bottom, whole columns per item, sums in descending j (as the CPU's).
    for (int c = lid; c < k; c += L)
      for (int i = n - 1; i >= 0; --i) {
        T s = x[i * k + c];
        for (int j = n - 1; j > i; --j) s -= a[i * n + j] * x[j * k + c];
        x[i * k + c] = unit ? s : s / a[i * n + i];
      }
  } else if (left) {
    // Lower, by columns: row j is final once divided; then it is subtracted from the later rows.
    for (int j = 0; j < n; ++j) {
      if (!unit) {
        for (int c = lid; c < k; c += L) x[j * k + c] = x[j * k + c] / a[j * n + j];
        SYNC();
      }
      const int m = (n - j - 1) * k;
      for (int e = lid; e < m; e += L) {
        const int i = j + 1 + e / k, c = e % k;
        x[i * k + c] -= a[i * n + j] * x[j * k + c];
      }
      SYNC();
    }
  } else {
    // Right: every row r of X solves x A = b. Upper: x[j] is final after steps
    // 0..j-1, then it is subtracted from x[j+1..]; lower: the same from the end.
    for (int s = 0; s < n; ++s) {
      const int j = upper ? s : n - 1 - s;
      if (!unit) {
        for (int r = lid; r < k; r += L) x[r * n + j] = x[r * n + j] / a[j * n + j];
        SYNC();
      }
      const int w = upper ? n - j - 1 : j;  // columns updated at this step
      const int m0 = upper ? j + 1 : 0;
      for (int e = lid; e < w * k; e += L) {
        const int r = e / w, col = m0 + e % w;
        x[r * n + col] -= x[r * n + j] * a[j * n + col];
      }
      SYNC();
    }
  }
}

// Cholesky of a[b] by columns (left-looking, as potf2), reading and writing
// only the lower triangle. Stops at the first leading minor that is not
// positive definite: its diagonal keeps the failed value, info = its order.
__kernel void cholesky(__global T* x, long x_off, __global int* info, long info_off, int n, __local T* scratch) {
  const int lid = get_local_id(0), L = get_local_size(0);
  const long b = get_group_id(0);
  __global T* g = x + x_off + b * (long)n * n;
  __local T diag;
  MATRIX(a, g, n * n, scratch);
  int status = 0;
  for (int j = 0; j < n; ++j) {
    if (lid == 0 && status == 0) {
      T d = a[j * n + j];
      for (int p = 0; p < j; ++p) d -= a[j * n + p] * a[j * n + p];
      diag = d;
    }
    SYNC();
    T d = diag;
    if (status == 0 && !(d > (T)0)) {  // also NaN: stop here
      if (lid == 0) a[j * n + j] = d;
      status = j + 1;
    }
    const int live = status == 0 ? n : 0;
    d = sqrt(d);
    if (lid == 0 && live) a[j * n + j] = d;
    for (int i = j + 1 + lid; i < live; i += L) {
      T s = a[i * n + j];
      for (int p = 0; p < j; ++p) s -= a[i * n + p] * a[j * n + p];
      a[i * n + j] = s / d;
    }
    SYNC();
  }
  STORE_MATRIX(a, g, n * n);
  if (lid == 0) info[info_off + b] = status;
}
