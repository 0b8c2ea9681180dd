// Determinants from an LU and vector / matrix norms: the CPU's loops of
// src/backend/cpu/linalg_host.cpp, one work-item per output, the same float64
// operations in the same order (nothing contracted: common.cl), so the
// results are the CPU's bits (slogdet's log is the shared concord_log_f64,
// which the CPU takes in the reproducible mode; outside it the CPU's
// std::log may differ by an ULP). Built with -DT=float|double, the input's type
// (halves arrive widened to float, exactly). Every result is written in
// double; the host rounds it to the output dtype with the copy kernel (the
// CPU's conversion, bit for bit). Needs cl_khr_fp64: the backend claims these
// ops only on devices with it.
//
// Offsets are in elements; all indices are long.

#if CONCORD_HAS_FP64

// Parity of the row swaps recorded in 1-based pivots: -1 or +1.
static double pivot_sign(__global const int* piv, long n) {
  int odd = 0;
  for (long i = 0; i < n; ++i) odd ^= (piv[i] != i + 1);
  return odd ? -1.0 : 1.0;
}

__kernel void lu_det(__global const T* lu, long lu_off, __global const int* piv, long piv_off,
                     __global double* det, long count, long n) {
  const long b = get_global_id(0);
  if (b >= count) return;
  __global const T* a = lu + lu_off + b * n * n;
  double d = pivot_sign(piv + piv_off + b * n, n);
  for (long i = 0; i < n; ++i) d *= (double)a[i * n + i];
  det[b] = d;
}

__kernel void lu_slogdet(__global const T* lu, long lu_off, __global const int* piv, long piv_off,
                         __global double* sign, __global double* logabs, long count, long n) {
  const long b = get_global_id(0);
  if (b >= count) return;
  __global const T* a = lu + lu_off + b * n * n;
  double sg = pivot_sign(piv + piv_off + b * n, n), la = 0.0;
  for (long i = 0; i < n; ++i) {
    const double u = (double)a[i * n + i];
    if (isnan(u)) { sg = NAN; la = NAN; break; }
    if (u == 0.0) { sg = 0.0; la = -INFINITY; break; }
    if (u < 0.0) sg = -sg;
    la += concord_log_f64(fabs(u));
  }
  sign[b] = sg;
  logabs[b] = la;
}

// One row's norm for ord 0, 1, 2, inf, -inf (the orders the host sends here).
static double norm_of(__global const T* x, long n, double ord) {
  if (ord == 0.0) {
    long nz = 0;
    for (long i = 0; i < n; ++i) nz += ((double)x[i] != 0.0);  // NaN counts as non-zero
    return (double)nz;
  }
  if (isinf(ord)) {
    double m = ord > 0.0 ? 0.0 : INFINITY;
    for (long i = 0; i < n; ++i) {
      const double v = fabs((double)x[i]);
      if (isnan(v)) return NAN;
      // std::max(m, v) and std::min(m, v), as the CPU writes them.
      m = ord > 0.0 ? (m < v ? v : m) : (v < m ? v : m);
    }
    return m;
  }
  if (ord == 1.0) {
    double s = 0.0;
    for (long i = 0; i < n; ++i) s += fabs((double)x[i]);
    return s;
  }
#ifdef T_IS_DOUBLE
  // ord 2 of doubles: scaled by the largest |x| (the CPU's general branch).
  double m = 0.0;
  for (long i = 0; i < n; ++i) {
    const double v = fabs((double)x[i]);
    if (isnan(v)) return NAN;
    m = m < v ? v : m;
  }
  if (m == 0.0 || isinf(m)) return m;
  double s = 0.0;
  for (long i = 0; i < n; ++i) {
    const double t = fabs((double)x[i]) / m;
    s += t * t;
  }
  return m * sqrt(s);
#else
  // ord 2 of floats: the squares are exact in double and cannot overflow there.
  double s = 0.0;
  for (long i = 0; i < n; ++i) {
    const double v = (double)x[i];
    s += v * v;
  }
  return sqrt(s);
#endif
}

__kernel void vector_norm_rows(__global const T* x, long x_off, __global double* out, long rows, long cols,
                               double ord) {
  const long r = get_global_id(0);
  if (r >= rows) return;
  out[r] = norm_of(x + x_off + r * cols, cols, ord);
}

// x [B, r, c]: ord 1 / -1 max / min column abs-sum, inf / -inf row abs-sum.
// Each sum runs over ascending indices from +0, as the CPU's; a NaN sum makes
// the result NaN (the CPU's `extreme`).
__kernel void matrix_abs_sum_norm(__global const T* x, long x_off, __global double* out, long batch, long r, long c,
                                  double ord) {
  const long b = get_global_id(0);
  if (b >= batch) return;
  __global const T* m = x + x_off + b * r * c;
  const int columns = fabs(ord) == 1.0, pick_max = ord > 0.0;
  const long count = columns ? c : r, len = columns ? r : c;
  double res = pick_max ? -INFINITY : INFINITY;
  for (long k = 0; k < count; ++k) {
    double s = 0.0;
    for (long i = 0; i < len; ++i) s += fabs((double)m[columns ? i * c + k : k * c + i]);
    if (isnan(s)) { res = NAN; break; }
    res = pick_max ? (res < s ? s : res) : (s < res ? s : res);
  }
  out[b] = res;
}

#endif
