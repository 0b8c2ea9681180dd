// shaders/reduce_xops.glsl — reduce.comp's arithmetic in the reproducible
// mode (-DXF=1, X = f16 bf16 f32): the accumulator is float32 BITS in a uint
// and every float operation is xf32.glsl's, integer instructions only, so the
// results are the CPU's (src/backend/cpu/reduce.cpp, softmax.cpp) whatever
// the device does with subnormals: no float instruction touches a value, not
// even a compare or a negate. The same functions as reduce_ops.glsl, which
// holds the default mode's; the reducers and post steps follow the CPU's:
// max/min keep the first NaN (ExtremeR), var/std scale by StatScale, mean
// divides by float(n), norm 2 is sqrt of the sum of squares. exp is xf_exp
// (the CPU's exp_f32); log is xmath32.glsl's xm_log, the CPU's log_f32
// (which computes in float64) on float64 bits through xf64.glsl.
// Every value stored to out is canonical (XF_NAN for any NaN, also one that
// max/min passed through from the input).
#ifndef CONCORD_REDUCE_XOPS_GLSL
#define CONCORD_REDUCE_XOPS_GLSL

#include "backend/common/xf32.glsl"
#include "backend/common/xf64.glsl"
#include "backend/common/xmath32.glsl"

#define A uint
#define AS f32
#define XF_ONE 0x3f800000u

A ld_acc(uint64_t p, int64_t i) { return ld32(p, i); }
void st_acc(uint64_t p, int64_t i, A v) { st32(p, i, v); }

A load_x(int64_t i) { return XLOAD(X)(pc.args.src, i); }

A identity(int r) {
  switch (r) {
    case R_SUM: case R_ABSSUM: case R_SQSUM: case R_SQDEV: case R_EXPSUM: case R_SCSUM:
      return XF_SIGN;  // a lane holding one -0.0 keeps its sign
    case R_PROD: return XF_ONE;
    case R_MAX: return XF_INF | XF_SIGN;  // -inf
    case R_MIN: return XF_INF;
    case R_ABSMAX: return 0u;
    case R_ALL: return 1u;  // all / any hold 0 or 1
    case R_ANY: return 0u;
  }
  return XF_NAN;
}

// max / min keep a NaN once it is there (the CPU's (a > b || a != a) ? a : b).
A combine(int r, A a, A b) {
  switch (r) {
    case R_SUM: case R_ABSSUM: case R_SQSUM: case R_SQDEV: case R_EXPSUM: case R_SCSUM: return xf_add(a, b);
    case R_PROD: return xf_mul(a, b);
    case R_MAX: case R_ABSMAX: return (xf_lt(b, a) || xf_isnan(a)) ? a : b;
    case R_MIN: return (xf_lt(a, b) || xf_isnan(a)) ? a : b;
    case R_ALL: return (a != 0u && b != 0u) ? 1u : 0u;
    case R_ANY: return (a != 0u || b != 0u) ? 1u : 0u;
  }
  return XF_NAN;
}

// What element v contributes (p: the output's parameter; q: the second one
// of R_SQDEV, the mean of the scaled values, p being the scale).
A map_x(int r, A v, A p, A q) {
  switch (r) {
    case R_SUM: case R_PROD: case R_MAX: case R_MIN: return v;
    case R_ALL: case R_ANY: return xf_iszero(v) ? 0u : 1u;  // NaN counts as nonzero
    case R_ABSMAX: case R_ABSSUM: return xf_abs(v);
    case R_SQSUM: return xf_mul(v, v);
    case R_SCSUM: return xf_mul(v, p);
    case R_SQDEV: {
      const A d = xf_sub(xf_mul(v, p), q);
      return xf_mul(d, d);
    }
    case R_EXPSUM: return xf_exp(xf_sub(v, p));
  }
  return XF_NAN;
}

// float(v) of a count v >= 0, nearest even (the CPU's static_cast<float>).
A xr_from_count(int64_t v) {
  if (v <= 0x7fffffffl) return xf_from_int(int(v));
  const uint64_t u = uint64_t(v);
  int e = 32 + findMSB(uint(u >> 32));  // 31 when the high word is 0
  const int sh = e - 23;
  uint64_t m = u >> sh;
  const uint64_t rest = u & ((1ul << sh) - 1ul), mid = 1ul << (sh - 1);
  if (rest > mid || (rest == mid && (m & 1ul) != 0ul)) ++m;
  if (m == (1ul << 24)) m >>= 1, ++e;
  return (uint(e + 127) << 23) | (uint(m) & 0x7fffffu);
}

// var/std's scale: StatScale of src/backend/cpu/stat_scale.h (the rule and
// why are there), in the same bits: s = 1 unless max|x| = m lies outside
// [2^-30, 2^41), else s = 2^-(E - 4) clamped to normal powers of two.
A stat_scale(A m) {
  const int f = int((m >> 23) & 0xffu);
  if (xf_iszero(m) || f == 255) return XF_ONE;  // zero, inf or NaN
  const int e = max(f, 1) - 127;
  if (e >= -30 && e <= 40) return XF_ONE;  // StatScale<float>::kLo, kHi
  return uint(127 - clamp(e - 4, -120, 120)) << 23;
}
// 1 / s, exactly (s a normal power of two).
A stat_inverse(A s) { return (254u << 23) - s; }

// The CPU's post steps (reduce.cpp's lambdas), in its order of operations.
A post_step(int post, A a, int64_t div, A p) {
  switch (post) {
    case P_NONE: return a;
    case P_DIV: return xf_div(a, xr_from_count(div));
    case P_DIV_SQRT: return xf_sqrt(xf_div(a, xr_from_count(div)));
    case P_SQRT: return xf_sqrt(a);
    case P_RECIP: return xf_div(XF_ONE, a);
    case P_ADD_LOG: return xf_add(p, xm_log(a));
    case P_LOG: return xm_log(a);
    case P_FINITE: return xf_isinf(a) ? 0u : a;
    case P_SCALE: return stat_scale(a);
    case P_VAR: {  // v * r * r
      const A r = stat_inverse(p);
      return xf_mul(xf_mul(xf_div(a, xr_from_count(div)), r), r);
    }
    case P_STD: return xf_mul(xf_sqrt(xf_div(a, xr_from_count(div))), stat_inverse(p));
  }
  return XF_NAN;
}

// Element i of out (dtype X), the NaN rule applied.
void store_x(int64_t i, A a) { XSTORE(X)(pc.args.dst, i, xf_isnan(a) ? XF_NAN : a); }

// omode 0: out's dtype is X; 1: bool; 2: the accumulator (float32 bits, scratch).
void store_out(int64_t i, A a) {
  Args g = pc.args;
  if (g.omode == 0) store_x(i, a);
  else if (g.omode == 1) st8(g.dst, i, a != 0u ? 1u : 0u);
  else st_acc(g.dst, i, a);
}

// argmax / argmin (red: R_MAX or R_MIN). cand beats cur (cur seen first): a
// NaN beats everything after it, then the strict order.
bool arg_better(bool amax, A cand, A cur) {
  if (xf_isnan(cur)) return false;
  if (xf_isnan(cand)) return true;
  return amax ? xf_lt(cur, cand) : xf_lt(cand, cur);
}

// softmax's output pass for element v of a row with max m and s = 1 / the
// sum (softmax: exp(v - m) * s) or the log of the sum (log_softmax:
// (v - m) - s), as the CPU.
A softmax_out(A v, A m, A s, bool is_log) {
  const A d = xf_sub(v, m);
  return is_log ? xf_sub(d, s) : xf_mul(xf_exp(d), s);
}

#endif
