// shaders/reduce_ops.glsl — reduce.comp's arithmetic in the default mode:
// the accumulator (float for f16 bf16 f32, double for f64, int64_t wrapping
// for integers and bool) and the reducers, post steps and stores on it, with
// the device's float instructions. reduce_xops.glsl is the reproducible
// mode's counterpart on float32 bits; reduce.comp's stages call only the
// functions both define.
#ifndef CONCORD_REDUCE_OPS_GLSL
#define CONCORD_REDUCE_OPS_GLSL

#if defined(ACC_F)
#define FLTW 32
#elif defined(ACC_D)
#define FLTW 64
#endif
#ifdef FLTW
#include "elementwise_float.glsl"
#endif

// Accumulator type, its dtype suffix (conversions) and raw loads / stores.
#if defined(ACC_F)
#define A float
#define AS f32
A ld_acc(uint64_t p, int64_t i) { return uintBitsToFloat(ld32(p, i)); }
void st_acc(uint64_t p, int64_t i, A v) { st32(p, i, floatBitsToUint(v)); }
A a_nan() { return f_nan(); }
#elif defined(ACC_D)
#define A double
#define AS f64
A ld_acc(uint64_t p, int64_t i) { return uint64BitsToDouble(ld64(p, i)); }
void st_acc(uint64_t p, int64_t i, A v) { st64(p, i, doubleBitsToUint64(v)); }
A a_nan() { return f_nan(); }
#else
#define A int64_t
#define AS i64
A ld_acc(uint64_t p, int64_t i) { return int64_t(ld64(p, i)); }
void st_acc(uint64_t p, int64_t i, A v) { st64(p, i, uint64_t(v)); }
A a_nan() { return A(0); }
#endif

A load_x(int64_t i) { return A(LOAD(X)(pc.args.src, i)); }

A identity(int r) {
  switch (r) {
    case R_SUM: case R_ABSSUM: case R_SQSUM: case R_SQDEV: case R_EXPSUM: case R_SCSUM:
#ifdef FLTW
      return -A(0);  // a lane holding one -0.0 keeps its sign
#else
      return A(0);
#endif
    case R_PROD: case R_ALL: return A(1);
    case R_ANY: return A(0);
#ifdef FLTW
    case R_MAX: return -f_inf();
    case R_MIN: return f_inf();
    case R_ABSMAX: return A(0);
#else
    case R_MAX: return INT64_MIN_;
    case R_MIN: return INT64_MAX_;
#endif
  }
  return a_nan();
}

// max / min keep a NaN (a != a) once it is there, as the CPU's ExtremeR.
A combine(int r, A a, A b) {
  switch (r) {
    case R_SUM: case R_ABSSUM: case R_SQSUM: case R_SQDEV: case R_EXPSUM: case R_SCSUM: {
      precise A s = a + b;
      return s;
    }
    case R_PROD: {
      precise A s = a * b;
      return s;
    }
    case R_MAX: case R_ABSMAX: return (a > b || a != a) ? a : b;
    case R_MIN: return (a < b || a != a) ? a : b;
    case R_ALL: return (a != A(0) && b != A(0)) ? A(1) : A(0);
    case R_ANY: return (a != A(0) || b != A(0)) ? A(1) : A(0);
  }
  return a_nan();
}

// What element v contributes (p: the output's parameter; q: the second one
// of R_SQDEV, the mean of the scaled values, p being the scale).
A map_x(int r, A v, A p, A q) {
  switch (r) {
    case R_SUM: case R_PROD: case R_MAX: case R_MIN: return v;
    case R_ALL: case R_ANY: return v != A(0) ? A(1) : A(0);  // NaN != 0
#ifdef FLTW
    case R_ABSMAX: case R_ABSSUM: return abs(v);
    case R_SQSUM: {
      precise A s = v * v;
      return s;
    }
    case R_SCSUM: {
      precise A s = v * p;
      return s;
    }
    case R_SQDEV: {
      precise A vs = v * p;
      precise A d = vs - q;
      precise A s = d * d;
      return s;
    }
    case R_EXPSUM: {
      precise A d = v - p;
#if FLTW == 32
      return m_exp(d);
#else
      return d_exp(d);
#endif
    }
#endif
  }
  return a_nan();
}

#ifdef FLTW
// Division and sqrt with the NaNs of the CPU (x86): a NaN operand comes
// through (the first one), an invalid operation gives the default NaN, whose
// sign bit is set.
A nan_x86() { return FROMBITS(TOBITS(f_nan()) | (UB(1) << SIGN_SHIFT)); }
A div_x86(A a, A b) {
  if (isnan(a)) return a;
  if (isnan(b)) return b;
  if ((a == A(0) && b == A(0)) || (isinf(a) && isinf(b))) return nan_x86();
  return div_rn(a, b);
}
A sqrt_x86(A a) {
  if (isnan(a)) return a;
  if (a < A(0)) return nan_x86();
  return sqrt_rn(a);
}
#endif

// var/std's scale: StatScale of src/backend/cpu/stat_scale.h (the rule and
// why are there), in the same bits.
#ifdef FLTW
#if FLTW == 64
#define S_LO (-300)
#define S_HI 300
#else
#define S_LO (-30)
#define S_HI 40
#endif
A stat_scale(A m) {
  const int f = int((TOBITS(m) >> MANT) & EMASK);
  if (m == A(0) || f == 2 * BIAS + 1) return A(1);
  const int e = max(f, 1) - BIAS;
  if (e >= S_LO && e <= S_HI) return A(1);
  return pow2(-clamp(e - 4, -(BIAS - 7), BIAS - 7));
}
// 1 / s, exactly.
A stat_inverse(A s) { return FROMBITS((UB(2 * BIAS) << MANT) - TOBITS(s)); }
#endif

A post_step(int post, A a, int64_t div, A p) {
  if (post == P_NONE) return a;
#ifdef FLTW
  switch (post) {
    case P_DIV: return div_x86(a, A(div));
    case P_DIV_SQRT: return sqrt_x86(div_x86(a, A(div)));
    case P_SQRT: return sqrt_x86(a);
#if FLTW == 32
    case P_ADD_LOG: { precise A s = p + m_log(a); return s; }
    case P_LOG: return m_log(a);
#else
    case P_ADD_LOG: { precise A s = p + d_log(a); return s; }
    case P_LOG: return d_log(a);
#endif
    case P_FINITE: return isinf(a) ? A(0) : a;
    case P_RECIP: return div_x86(A(1), a);
    case P_SCALE: return stat_scale(a);
    case P_VAR: {
      const A r = stat_inverse(p);
      precise A v = div_x86(a, A(div)) * r;
      precise A w = v * r;
      return w;
    }
    case P_STD: {
      precise A v = sqrt_x86(div_x86(a, A(div))) * stat_inverse(p);
      return v;
    }
  }
#endif
  return a_nan();
}

// Element i of out (dtype X).
void store_x(int64_t i, A a) { STORE(X)(pc.args.dst, i, CVT(X, AS)(a)); }

// omode 0: out's dtype is X; 1: bool; 2: the accumulator's dtype (scratch).
void store_out(int64_t i, A a) {
  Args g = pc.args;
  if (g.omode == 0) store_x(i, a);
  else if (g.omode == 1) st8(g.dst, i, a != A(0) ? 1u : 0u);
  else st_acc(g.dst, i, a);
}

// argmax / argmin (red: R_MAX or R_MIN). cand beats cur (cur seen first): a
// NaN beats everything after it, then the strict order.
bool arg_better(bool amax, A cand, A cur) {
  if (cur != cur) return false;
  if (cand != cand) return true;
  return amax ? cand > cur : cand < cur;
}

#ifdef FLTW
// softmax's output pass for element v of a row with max m and s = 1 / the
// sum (softmax) or log of the sum (log_softmax), as the CPU.
A softmax_out(A v, A m, A s, bool is_log) {
  precise A d = v - m;
  if (is_log) {
    precise A t = d - s;
    return t;
  }
#if FLTW == 32
  precise A t = m_exp(d) * s;
#else
  precise A t = d_exp(d) * s;
#endif
  return t;
}
#endif

#endif
