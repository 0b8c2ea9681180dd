// shaders/reduce_xops.glsl — reduce.comp's arithmetic in the reproducible
// mode, one source for both widths: float32 (-DXF=1, X = f16 bf16 f32: the
// accumulator is float32 BITS in a uint, xf32.glsl) and float64 (-DXF=1
// -DXD=1, X = f64: float64 BITS in a uint64_t, xf64.glsl). Every float
// operation is integer instructions only, so the results are the CPU's
// (src/backend/cpu/reduce.cpp, softmax.cpp) whatever the device does with
// subnormals, division or fma: no float instruction touches a value, not
// even a compare or a negate. The same functions as reduce_ops.glsl, which
// holds the default mode's; the reducers and post steps follow the CPU's:
// max/min keep the first NaN (ExtremeR), var/std scale by StatScale, mean
// divides by the count converted to the accumulator, norm 2 is sqrt of the
// sum of squares.
// exp and log: float32's are xf_exp (the CPU's exp_f32) and xmath32.glsl's
// xm_log (the CPU's log_f32, float64 inside, on bits); float64's are the
// mode's concord_exp_f64 / concord_log_f64 on bits (xmath64.glsl,
// xmath64_log.glsl), large, so only the variant built with -DXMATH=1
// ("reduce_xs_f64", chosen for softmax, log_softmax and logsumexp alone) has
// them; in "reduce_x_f64" R_EXPSUM, P_ADD_LOG, P_LOG and softmax_out give
// NaN and are never run.
// Every value stored to out is canonical (the NaN of the width for any NaN,
// also one that max/min passed through from the input).
#ifndef CONCORD_REDUCE_XOPS_GLSL
#define CONCORD_REDUCE_XOPS_GLSL

#include "backend/common/xf32.glsl"
#include "backend/common/xf64.glsl"
#if defined(XD)
#if defined(XMATH)
#include "backend/common/xmath64.glsl"
#include "backend/common/xmath64_log.glsl"
#define X_MATH 1
#define X_EXP(a) xe_exp(a)
#define X_LOG(a) xe_log(a)
#endif
#define A uint64_t
#define AS f64
#define XN(name) xd_##name
#define X_0 0ul
#define X_1 1ul
#define X_ONE XD_ONE
#define X_SIGN XD_SIGN
#define X_INF XD_INF
#define X_NANV XD_NAN
A ld_acc(uint64_t p, int64_t i) { return ld64(p, i); }
void st_acc(uint64_t p, int64_t i, A v) { st64(p, i, v); }
A load_x(int64_t i) { return ld64(pc.args.src, i); }
void store_x(int64_t i, A a) { st64(pc.args.dst, i, xd_isnan(a) ? XD_NAN : a); }
// double(v) of a count v >= 0, nearest even (the CPU's static_cast<double>).
A x_from_count(int64_t v) { return v <= 0l ? 0ul : xd_round(false, uint64_t(v), 0); }
// StatScale<double>: s = 1 unless max|x| lies outside [2^-300, 2^301).
#define X_MANT 52
#define X_EMASK 0x7ff
#define X_BIAS 1023
#define X_SCALE_LO -300
#define X_SCALE_HI 300
#define X_SCALE_CLAMP 1016
#else
#include "backend/common/xmath32.glsl"
#define X_MATH 1
#define X_EXP(a) xf_exp(a)
#define X_LOG(a) xm_log(a)
#define A uint
#define AS f32
#define XN(name) xf_##name
#define X_0 0u
#define X_1 1u
#define X_ONE 0x3f800000u
#define X_SIGN XF_SIGN
#define X_INF XF_INF
#define X_NANV XF_NAN
A ld_acc(uint64_t p, int64_t i) { return ld32(p, i); }
void st_acc(uint64_t p, int64_t i, A v) { st32(p, i, v); }
A load_x(int64_t i) { return XLOAD(X)(pc.args.src, i); }
void store_x(int64_t i, A a) { XSTORE(X)(pc.args.dst, i, xf_isnan(a) ? XF_NAN : a); }
// float(v) of a count v >= 0, nearest even (the CPU's static_cast<float>).
A x_from_count(int64_t v) {
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
// StatScale<float>: s = 1 unless max|x| lies outside [2^-30, 2^41).
#define X_MANT 23
#define X_EMASK 0xff
#define X_BIAS 127
#define X_SCALE_LO -30
#define X_SCALE_HI 40
#define X_SCALE_CLAMP 120
#endif

A identity(int r) {
  switch (r) {
    case R_SUM: case R_ABSSUM: case R_SQSUM: case R_SQDEV: case R_EXPSUM: case R_SCSUM:
      return X_SIGN;  // a lane holding one -0.0 keeps its sign
    case R_PROD: return X_ONE;
    case R_MAX: return X_INF | X_SIGN;  // -inf
    case R_MIN: return X_INF;
    case R_ABSMAX: return X_0;
    case R_ALL: return X_1;  // all / any hold 0 or 1
    case R_ANY: return X_0;
  }
  return X_NANV;
}

// max / min keep a NaN once it is there (the CPU's (a > b || a != a) ? a : b).
A combine(int r, A a, A b) {
  switch (r) {
    case R_SUM: case R_ABSSUM: case R_SQSUM: case R_SQDEV: case R_EXPSUM: case R_SCSUM: return XN(add)(a, b);
    case R_PROD: return XN(mul)(a, b);
    case R_MAX: case R_ABSMAX: return (XN(lt)(b, a) || XN(isnan)(a)) ? a : b;
    case R_MIN: return (XN(lt)(a, b) || XN(isnan)(a)) ? a : b;
    case R_ALL: return (a != X_0 && b != X_0) ? X_1 : X_0;
    case R_ANY: return (a != X_0 || b != X_0) ? X_1 : X_0;
  }
  return X_NANV;
}

// What element v contributes (p: the output's parameter; q: the second one
// of R_SQDEV, the mean of the scaled values, p being the scale).
A map_x(int r, A v, A p, A q) {
  switch (r) {
    case R_SUM: case R_PROD: case R_MAX: case R_MIN: return v;
    case R_ALL: case R_ANY: return XN(iszero)(v) ? X_0 : X_1;  // NaN counts as nonzero
    case R_ABSMAX: case R_ABSSUM: return XN(abs)(v);
    case R_SQSUM: return XN(mul)(v, v);
    case R_SCSUM: return XN(mul)(v, p);
    case R_SQDEV: {
      const A d = XN(sub)(XN(mul)(v, p), q);
      return XN(mul)(d, d);
    }
#if defined(X_MATH)
    case R_EXPSUM: return X_EXP(XN(sub)(v, p));  // the CPU's ExpSumSharedR
#endif
  }
  return X_NANV;
}

// var/std's scale: StatScale of src/backend/cpu/stat_scale.h (the rule and
// why are there), in the same bits: s = 1 unless max|x| = m lies outside the
// width's range, else s = 2^-(E - 4) clamped to normal powers of two.
A stat_scale(A m) {
  const int f = int((m >> X_MANT) & A(X_EMASK));
  if (XN(iszero)(m) || f == X_EMASK) return X_ONE;  // zero, inf or NaN
  const int e = max(f, 1) - X_BIAS;
  if (e >= X_SCALE_LO && e <= X_SCALE_HI) return X_ONE;  // StatScale's kLo, kHi
  return A(X_BIAS - clamp(e - 4, -X_SCALE_CLAMP, X_SCALE_CLAMP)) << X_MANT;
}
// 1 / s, exactly (s a normal power of two).
A stat_inverse(A s) { return (A(2 * X_BIAS) << X_MANT) - s; }

// The CPU's post steps (reduce.cpp's lambdas), in its order of operations.
A post_step(int post, A a, int64_t div, A p) {
  switch (post) {
    case P_NONE: return a;
    case P_DIV: return XN(div)(a, x_from_count(div));
    case P_DIV_SQRT: return XN(sqrt)(XN(div)(a, x_from_count(div)));
    case P_SQRT: return XN(sqrt)(a);
    case P_RECIP: return XN(div)(X_ONE, a);
    case P_FINITE: return XN(isinf)(a) ? X_0 : a;
    case P_SCALE: return stat_scale(a);
    case P_VAR: {  // v * r * r
      const A r = stat_inverse(p);
      return XN(mul)(XN(mul)(XN(div)(a, x_from_count(div)), r), r);
    }
    case P_STD: return XN(mul)(XN(sqrt)(XN(div)(a, x_from_count(div))), stat_inverse(p));
#if defined(X_MATH)
    case P_ADD_LOG: case P_LOG: {  // one log in the code: pipelines build faster
      const A l = X_LOG(a);
      return post == P_LOG ? l : XN(add)(p, l);
    }
#endif
  }
  return X_NANV;  // P_ADD_LOG, P_LOG without the math
}

// omode 0: out's dtype is X; 1: bool; 2: the accumulator (scratch).
void store_out(int64_t i, A a) {
  Args g = pc.args;
  if (g.omode == 0) store_x(i, a);
  else if (g.omode == 1) st8(g.dst, i, a != X_0 ? 1u : 0u);
  else st_acc(g.dst, i, a);
}

// argmax / argmin (red: R_MAX or R_MIN). cand beats cur (cur seen first): a
// NaN beats everything after it, then the strict order.
bool arg_better(bool amax, A cand, A cur) {
  if (XN(isnan)(cur)) return false;
  if (XN(isnan)(cand)) return true;
  return amax ? XN(lt)(cur, cand) : XN(lt)(cand, cur);
}

// softmax's output pass for element v of a row with max m and s = 1 / the
// sum (softmax: exp(v - m) * s) or the log of the sum (log_softmax:
// (v - m) - s), as the CPU.
A softmax_out(A v, A m, A s, bool is_log) {
#if defined(X_MATH)
  const A d = XN(sub)(v, m);
  return is_log ? XN(sub)(d, s) : XN(mul)(X_EXP(d), s);
#else
  return X_NANV;
#endif
}

#endif
