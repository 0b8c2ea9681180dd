// shaders/reduce_xops64.glsl — reduce.comp's arithmetic in the reproducible
// mode for float64 (-DXF=1 -DXD=1, X = f64): the accumulator is float64 BITS
// in a uint64_t and every float operation is xf64.glsl's, integer
// instructions only, so the results are the CPU's (src/backend/cpu/reduce.cpp
// and softmax.cpp, which accumulate float64 in double) whatever the device
// does with float64 subnormals, division or fma. The same functions as
// reduce_xops.glsl (the float32 family's), with the same reducers and post
// steps: max/min keep the first NaN, var/std scale by StatScale<double>, mean
// divides by double(n), norm 2 is sqrt of the sum of squares.
// exp and log (softmax, log_softmax, logsumexp) are the CPU's float64 ones in
// the mode, concord_exp_f64 / concord_log_f64 (backend/common/canon_f64*.h),
// on bits: xmath64.glsl's xe_exp and xmath64_log.glsl's xe_log. They are
// large, so only the variant built with -DXMATH64=1 ("reduce_xs_f64", chosen
// for those three ops alone) has them; in "reduce_x_f64" R_EXPSUM, P_ADD_LOG,
// P_LOG and softmax_out give NaN and are never run.
// Every value stored to out is canonical (XD_NAN for any NaN).
#ifndef CONCORD_REDUCE_XOPS64_GLSL
#define CONCORD_REDUCE_XOPS64_GLSL

#include "backend/common/xf32.glsl"
#include "backend/common/xf64.glsl"
#if defined(XMATH64)
#include "backend/common/xmath64.glsl"
#include "backend/common/xmath64_log.glsl"
#endif

#define A uint64_t
#define AS f64

A ld_acc(uint64_t p, int64_t i) { return ld64(p, i); }
void st_acc(uint64_t p, int64_t i, A v) { st64(p, i, v); }

A load_x(int64_t i) { return ld64(pc.args.src, i); }

A identity(int r) {
  switch (r) {
    case R_SUM: case R_ABSSUM: case R_SQSUM: case R_SQDEV: case R_EXPSUM: case R_SCSUM:
      return XD_SIGN;  // a lane holding one -0.0 keeps its sign
    case R_PROD: return XD_ONE;
    case R_MAX: return XD_INF | XD_SIGN;  // -inf
    case R_MIN: return XD_INF;
    case R_ABSMAX: return 0ul;
    case R_ALL: return 1ul;  // all / any hold 0 or 1
    case R_ANY: return 0ul;
  }
  return XD_NAN;
}

// max / min keep a NaN once it is there (the CPU's (a > b || a != a) ? a : b).
A combine(int r, A a, A b) {
  switch (r) {
    case R_SUM: case R_ABSSUM: case R_SQSUM: case R_SQDEV: case R_EXPSUM: case R_SCSUM: return xd_add(a, b);
    case R_PROD: return xd_mul(a, b);
    case R_MAX: case R_ABSMAX: return (xd_lt(b, a) || xd_isnan(a)) ? a : b;
    case R_MIN: return (xd_lt(a, b) || xd_isnan(a)) ? a : b;
    case R_ALL: return (a != 0ul && b != 0ul) ? 1ul : 0ul;
    case R_ANY: return (a != 0ul || b != 0ul) ? 1ul : 0ul;
  }
  return XD_NAN;
}

// What element v contributes (p: the output's parameter; q: the second one
// of R_SQDEV, the mean of the scaled values, p being the scale).
A map_x(int r, A v, A p, A q) {
  switch (r) {
    case R_SUM: case R_PROD: case R_MAX: case R_MIN: return v;
    case R_ALL: case R_ANY: return xd_iszero(v) ? 0ul : 1ul;  // NaN counts as nonzero
    case R_ABSMAX: case R_ABSSUM: return xd_abs(v);
    case R_SQSUM: return xd_mul(v, v);
    case R_SCSUM: return xd_mul(v, p);
    case R_SQDEV: {
      const A d = xd_sub(xd_mul(v, p), q);
      return xd_mul(d, d);
    }
#if defined(XMATH64)
    case R_EXPSUM: return xe_exp(xd_sub(v, p));  // the CPU's ExpSumSharedR
#endif
  }
  return XD_NAN;
}

// double(v) of a count v >= 0, nearest even (the CPU's static_cast<double>).
A xdr_from_count(int64_t v) { return v <= 0l ? 0ul : xd_round(false, uint64_t(v), 0); }

// var/std's scale: StatScale<double> of src/backend/cpu/stat_scale.h (the
// rule and why are there), in the same bits: s = 1 unless max|x| = m lies
// outside [2^-300, 2^301), else s = 2^-(E - 4) clamped to normal powers of two.
A stat_scale(A m) {
  const int f = int((m >> 52) & 0x7fful);
  if (xd_iszero(m) || f == 2047) return XD_ONE;  // zero, inf or NaN
  const int e = max(f, 1) - 1023;
  if (e >= -300 && e <= 300) return XD_ONE;  // StatScale<double>::kLo, kHi
  return uint64_t(1023 - clamp(e - 4, -1016, 1016)) << 52;
}
// 1 / s, exactly (s a normal power of two).
A stat_inverse(A s) { return (2046ul << 52) - s; }

// The CPU's post steps (reduce.cpp's lambdas), in its order of operations.
A post_step(int post, A a, int64_t div, A p) {
  switch (post) {
    case P_NONE: return a;
    case P_DIV: return xd_div(a, xdr_from_count(div));
    case P_DIV_SQRT: return xd_sqrt(xd_div(a, xdr_from_count(div)));
    case P_SQRT: return xd_sqrt(a);
    case P_RECIP: return xd_div(XD_ONE, a);
    case P_FINITE: return xd_isinf(a) ? 0ul : a;
    case P_SCALE: return stat_scale(a);
    case P_VAR: {  // v * r * r
      const A r = stat_inverse(p);
      return xd_mul(xd_mul(xd_div(a, xdr_from_count(div)), r), r);
    }
    case P_STD: return xd_mul(xd_sqrt(xd_div(a, xdr_from_count(div))), stat_inverse(p));
#if defined(XMATH64)
    case P_ADD_LOG: case P_LOG: {  // one xe_log in the code: pipelines build faster
      const A l = xe_log(a);
      return post == P_LOG ? l : xd_add(p, l);
    }
#endif
  }
  return XD_NAN;  // P_ADD_LOG, P_LOG without -DXMATH64
}

// Element i of out (float64), the NaN rule applied.
void store_x(int64_t i, A a) { st64(pc.args.dst, i, xd_isnan(a) ? XD_NAN : a); }

// omode 0: out's dtype is X; 1: bool; 2: the accumulator (float64 bits, scratch).
void store_out(int64_t i, A a) {
  Args g = pc.args;
  if (g.omode == 0) store_x(i, a);
  else if (g.omode == 1) st8(g.dst, i, a != 0ul ? 1u : 0u);
  else st_acc(g.dst, i, a);
}

// argmax / argmin (red: R_MAX or R_MIN). cand beats cur (cur seen first): a
// NaN beats everything after it, then the strict order.
bool arg_better(bool amax, A cand, A cur) {
  if (xd_isnan(cur)) return false;
  if (xd_isnan(cand)) return true;
  return amax ? xd_lt(cur, cand) : xd_lt(cand, cur);
}

// softmax's output pass for element v of a row with max m and s = 1 / the
// sum (softmax: exp(v - m) * s) or the log of the sum (log_softmax:
// (v - m) - s), as the CPU (softmax.cpp's float64 loop in the mode).
A softmax_out(A v, A m, A s, bool is_log) {
#if defined(XMATH64)
  const A d = xd_sub(v, m);
  return is_log ? xd_sub(d, s) : xd_mul(xe_exp(d), s);
#else
  return XD_NAN;
#endif
}

#endif
