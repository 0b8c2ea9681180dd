// shaders/elementwise_float.glsl — the elementwise ops of floating dtypes
// (src/backend/cpu/unary.cpp, binary.cpp): F is float (float32, and the
// halves, which compute in float32 and round once on store) or double.
//
// +, -, * are the device's (correctly rounded in RTE mode). Division and
// sqrt are rounded correctly here whatever the device's own precision (the
// Vulkan spec allows 2.5 ULP, and fma need not be fused): xf32.glsl /
// xf64.glsl's, on the bits. fmod, Python's % and // are xf_ops.glsl's exact
// ones, which the reproducible mode runs too: they match the CPU.
// maximum/minimum propagate NaN; round is half to even. The math functions
// come from math.glsl (float32) and math64.glsl (float64).
#ifndef CONCORD_ELEMENTWISE_FLOAT_GLSL
#define CONCORD_ELEMENTWISE_FLOAT_GLSL

#include "xf32.glsl"
#if FLTW == 64
#include "xf64.glsl"
#endif
#include "xf_ops.glsl"

#if FLTW == 64
#define F double
#define UB uint64_t
#define TOBITS doubleBitsToUint64
#define FROMBITS uint64BitsToDouble
#define MANT 52
#define BIAS 1023
#define EMASK 0x7fful
#define MMASK 0xffffffffffffful
#define SIGN_SHIFT 63
#define FMSB(n) msb64(n)
#else
#define F float
#define UB uint
#define TOBITS floatBitsToUint
#define FROMBITS uintBitsToFloat
#define MANT 23
#define BIAS 127
#define EMASK 0xffu
#define MMASK 0x7fffffu
#define SIGN_SHIFT 31
#define FMSB(n) findMSB(n)
#endif

F f_nan() { return FROMBITS((EMASK << MANT) | (UB(1) << (MANT - 1))); }
F f_inf() { return FROMBITS(EMASK << MANT); }
bool f_signbit(F x) { return (TOBITS(x) >> SIGN_SHIFT) != UB(0); }

// 2^k for k in [1 - BIAS, BIAS].
F pow2(int k) { return FROMBITS(UB(k + BIAS) << MANT); }
// x * 2^k, one rounding at most (none when the result is normal or exact).
F scale2(F x, int k) {
  const int k1 = k / 2;
  precise F y = x * pow2(k1);
  precise F z = y * pow2(k - k1);
  return z;
}

// |x| = n * 2^e with the integer significand n in [2^MANT, 2^(MANT+1)), for
// finite nonzero x (subnormals normalised).
UB significand(F x, out int e) {
  const UB b = TOBITS(x);
  const int f = int((b >> MANT) & EMASK);
  UB n = b & MMASK;
  if (f != 0) {
    e = f - BIAS - MANT;
    return n | (UB(1) << MANT);
  }
  const int sh = MANT - FMSB(n);
  e = 1 - BIAS - MANT - sh;
  return n << sh;
}

// Division and sqrt correctly rounded (to nearest even) whatever the
// device's own (OpFDiv may be 2.5 ULP off): xf32.glsl / xf64.glsl's, on the
// bits with integer arithmetic; a NaN operand gives the first one's NaN,
// quieted (the CPU's and OpenCL's rule). fmod, Python's % and // are exact,
// so both modes share xf_ops.glsl's: the CPU's bits.
F quiet_nan(F x) { return FROMBITS(TOBITS(x) | (UB(1) << (MANT - 1))); }
F div_rn(F a, F b) {
  if (isnan(a)) return quiet_nan(a);
  if (isnan(b)) return quiet_nan(b);
  return FROMBITS(XN(div)(TOBITS(a), TOBITS(b)));
}
F sqrt_rn(F x) { return isnan(x) ? quiet_nan(x) : FROMBITS(XN(sqrt)(TOBITS(x))); }
F py_rem(F a, F b) { return FROMBITS(x_remainder(TOBITS(a), TOBITS(b))); }
F floor_div(F a, F b) { return FROMBITS(x_floor_divide(TOBITS(a), TOBITS(b))); }

F sign_of(F x) { return x > F(0) ? F(1) : x < F(0) ? F(-1) : x == F(0) ? F(0) : x; }

#if FLTW == 32
#include "math.glsl"
#else
#include "math64.glsl"
#endif

F uop(int op, F x) {
  switch (op) {
    case OP_neg: return -x;
    case OP_abs: return abs(x);
    case OP_sign: return sign_of(x);
    case OP_relu: return x < F(0) ? F(0) : x;
    case OP_floor: return floor(x);
    case OP_ceil: return ceil(x);
    case OP_round: return roundEven(x);
    case OP_trunc: return trunc(x);
    case OP_sqrt: return sqrt_rn(x);
    case OP_rsqrt: return div_rn(F(1), sqrt_rn(x));
    case OP_reciprocal: return div_rn(F(1), x);
#if FLTW == 32
    case OP_exp: return m_exp(x);
    case OP_expm1: return m_expm1(x);
    case OP_log: return m_log(x);
    case OP_log1p: return m_log1p(x);
    case OP_log2: return m_log2(x);
    case OP_sin: return m_sin(x);
    case OP_cos: return m_cos(x);
    case OP_tan: return m_tan(x);
    case OP_tanh: return m_tanh(x);
    case OP_sigmoid: return m_sigmoid(x);
    case OP_gelu: return m_gelu(x);
    case OP_erf: return m_erf(x);
#else
    case OP_exp: return d_exp(x);
    case OP_expm1: return d_expm1(x);
    case OP_log: return d_log(x);
    case OP_log1p: return d_log1p(x);
    case OP_log2: return d_log2(x);
    case OP_tanh: return d_tanh(x);
    case OP_sigmoid: return d_sigmoid(x);
    case OP_sin: return d_sin(x);
    case OP_cos: return d_cos(x);
    case OP_tan: return d_tan(x);
    case OP_erf: return d_erf(x);
    case OP_gelu: return d_gelu(x);
#endif
    default: return f_nan();  // an op without a case here: never claimed
  }
}

uint upr(int op, F x) {
  switch (op) {
    case OP_isnan: return isnan(x) ? 1u : 0u;
    case OP_isinf: return isinf(x) ? 1u : 0u;
    case OP_isfinite: return isnan(x) || isinf(x) ? 0u : 1u;
    case OP_logical_not: return x == F(0) ? 1u : 0u;
    default: return 0u;
  }
}

F bop(int op, F a, F b) {
  switch (op) {
    case OP_add: { precise F r = a + b; return r; }
    case OP_sub: { precise F r = a - b; return r; }
    case OP_mul: { precise F r = a * b; return r; }
    case OP_div: return div_rn(a, b);
    case OP_maximum: return (a < b || isnan(b)) ? b : a;
    case OP_minimum: return (b < a || isnan(b)) ? b : a;
    case OP_remainder: return py_rem(a, b);
    case OP_floor_divide: return floor_div(a, b);
#if FLTW == 32
    // atan2 of float32 and the halves: the "_x" variant in both modes (xm_atan2).
    case OP_pow: return m_pow(a, b);
#else
    case OP_atan2: return d_atan2(a, b);
    case OP_pow: return d_pow(a, b);
#endif
    default: return f_nan();
  }
}

// NaN compares unequal to everything (ne is true, the ordered ones false).
uint bpr(int op, F a, F b) {
  switch (op) {
    case OP_eq: return a == b ? 1u : 0u;
    case OP_ne: return a == b ? 0u : 1u;
    case OP_lt: return a < b ? 1u : 0u;
    case OP_le: return a <= b ? 1u : 0u;
    case OP_gt: return a > b ? 1u : 0u;
    case OP_ge: return a >= b ? 1u : 0u;
    case OP_logical_and: return !(a == F(0)) && !(b == F(0)) ? 1u : 0u;
    case OP_logical_or: return !(a == F(0)) || !(b == F(0)) ? 1u : 0u;
    case OP_logical_xor: return (a == F(0)) != (b == F(0)) ? 1u : 0u;
    default: return 0u;
  }
}

// clamp: the bounds are bits of F; a NaN in x or a bound propagates, lo > hi gives hi.
// pow(x, number) with the number's full value (ScalarExponent in
// src/core/backend.h). float64: d_pow. float32 and the halves: the split
// scheme e = hi + lo, pow(|x|, hi) * (1 + lo * ln|x|), then x's sign; the
// float32 math here has no float64 counterpart, so it serves every device.
#if FLTW == 32
F pow_number(F x, uint64_t ebits, uint64_t pair, int flags) {
  const float hi = uintBitsToFloat(uint(pair & 0xffffffffUL)), lo = uintBitsToFloat(uint(pair >> 32));
  const float a = abs(x);
  float r = m_pow(a, hi);
  if (lo != 0.0 && !isinf(r) && !isnan(r) && r != 0.0) {
    precise float t = lo * m_log(a);
    precise float s = r + r * t;
    r = s;
  }
  if ((floatBitsToUint(x) >> 31) != 0u && !isnan(x)) {
    if ((flags & 1) != 0) r = -r;
    else if ((flags & 2) == 0 && a != 0.0 && !isinf(a)) r = f_nan();
  }
  return r;
}
#else
F pow_number(F x, uint64_t ebits, uint64_t pair, int flags) { return d_pow(x, uint64BitsToDouble(ebits)); }
#endif

F clamp_op(F x, uint64_t lo_bits, uint64_t hi_bits) {
  const F lo = FROMBITS(UB(lo_bits)), hi = FROMBITS(UB(hi_bits));
  x = (x < lo || isnan(lo)) ? lo : x;
  return (x > hi || isnan(hi)) ? hi : x;
}

#endif
