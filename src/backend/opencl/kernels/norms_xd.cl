// norms_xd.cl — norms.cl for programs without float64 (a device without
// cl_khr_fp64, or a no-fp64 profile): the same CPU float64 loops of
// src/backend/cpu/linalg_host.cpp, in the same order, with every double
// operation an xd_* call of the Vulkan shaders' xf64.glsl (through xmath.cl)
// and slogdet's log the float64 xe_log of xmath64_log.glsl, which is the
// CPU's reproducible log. So the results are the CPU's bits here too,
// whatever the device does with subnormals. Vulkan's norms.comp runs the same
// headers.
//
// The input is float (halves arrive widened, exactly; a program without
// float64 has no double tensor). Each result is rounded once to the output
// dtype, as convert.h stores a double: -DOUT_HALF=0 float32, 1 float16,
// 2 bfloat16 (round to odd to float32 first). Every NaN result is canonical.
// Offsets are in elements; all indices are long.
#define XMATH_LOG64 1
#include "xmath.cl"

#if OUT_HALF
typedef ushort out_t;
#define OUT(v) ((ushort)(OUT_HALF == 1 ? xf_to_f16(xd_to_f32_odd(v)) : xf_to_bf16(xd_to_f32_odd(v))))
#else
typedef uint out_t;
#define OUT(v) xd_to_f32(v)
#endif
#define LOAD(p, i) xd_from_f32(as_uint((p)[i]))

// Parity of the row swaps recorded in 1-based pivots: -1.0 or +1.0.
static ulong pivot_sign(__global const int* piv, long n) {
  int odd = 0;
  for (long i = 0; i < n; ++i) odd ^= (piv[i] != i + 1);
  return odd ? (XE_ONE | XD_SIGN) : XE_ONE;
}

__kernel void lu_det(__global const float* lu, long lu_off, __global const int* piv, long piv_off,
                     __global out_t* det, long count, long n) {
  const long b = get_global_id(0);
  if (b >= count) return;
  __global const float* a = lu + lu_off + b * n * n;
  ulong d = pivot_sign(piv + piv_off + b * n, n);
  for (long i = 0; i < n; ++i) d = xd_mul(d, LOAD(a, i * n + i));
  det[b] = OUT(d);
}

__kernel void lu_slogdet(__global const float* lu, long lu_off, __global const int* piv, long piv_off,
                         __global out_t* sign, __global out_t* logabs, long count, long n) {
  const long b = get_global_id(0);
  if (b >= count) return;
  __global const float* a = lu + lu_off + b * n * n;
  ulong sg = pivot_sign(piv + piv_off + b * n, n), la = 0ul;
  for (long i = 0; i < n; ++i) {
    const ulong u = LOAD(a, i * n + i);
    if (xd_isnan(u)) { sg = XD_NAN; la = XD_NAN; break; }
    if (xd_iszero(u)) { sg = 0ul; la = XD_SIGN | XD_INF; break; }
    if (xd_sign(u)) sg = xd_neg(sg);
    la = xd_add(la, xe_log(xd_abs(u)));
  }
  sign[b] = OUT(sg);
  logabs[b] = OUT(la);
}

// One row's norm. ord: 0, 1, 2, 3 (inf) or 4 (-inf), norms.cpp's codes.
static ulong norm_of(__global const float* x, long n, int ord) {
  if (ord == 0) {
    long nz = 0;
    for (long i = 0; i < n; ++i) nz += !xd_iszero(LOAD(x, i));  // NaN counts as non-zero
    return xd_from_int64(nz);
  }
  if (ord >= 3) {
    ulong m = ord == 3 ? 0ul : XD_INF;
    for (long i = 0; i < n; ++i) {
      const ulong v = xd_abs(LOAD(x, i));
      if (xd_isnan(v)) return XD_NAN;
      // std::max(m, v) and std::min(m, v), as the CPU writes them.
      m = ord == 3 ? (xd_lt(m, v) ? v : m) : (xd_lt(v, m) ? v : m);
    }
    return m;
  }
  ulong s = 0ul;
  if (ord == 1) {
    for (long i = 0; i < n; ++i) s = xd_add(s, xd_abs(LOAD(x, i)));
    return s;
  }
  // ord 2 of floats: the squares are exact in double and cannot overflow there.
  for (long i = 0; i < n; ++i) {
    const ulong v = LOAD(x, i);
    s = xd_add(s, xd_mul(v, v));
  }
  return xd_sqrt(s);
}

__kernel void vector_norm_rows(__global const float* x, long x_off, __global out_t* out, long rows, long cols,
                               int ord) {
  const long r = get_global_id(0);
  if (r >= rows) return;
  out[r] = OUT(norm_of(x + x_off + r * cols, cols, ord));
}

// x [B, r, c]: the max (pick_max) or min over the column (columns) or row
// abs-sums; each sum over ascending indices from +0; a NaN sum gives NaN.
__kernel void matrix_abs_sum_norm(__global const float* x, long x_off, __global out_t* out, long batch, long r,
                                  long c, int columns, int pick_max) {
  const long b = get_global_id(0);
  if (b >= batch) return;
  __global const float* m = x + x_off + b * r * c;
  const long count = columns ? c : r, len = columns ? r : c;
  ulong res = pick_max ? (XD_INF | XD_SIGN) : XD_INF;
  for (long k = 0; k < count; ++k) {
    ulong s = 0ul;
    for (long i = 0; i < len; ++i) s = xd_add(s, xd_abs(LOAD(m, columns ? i * c + k : k * c + i)));
    if (xd_isnan(s)) { res = XD_NAN; break; }
    res = pick_max ? (xd_lt(res, s) ? s : res) : (xd_lt(s, res) ? s : res);
  }
  out[b] = OUT(res);
}
