// shaders/elementwise_xf64.glsl — the reproducible mode's elementwise ops of
// float64 ("_x" variants of elementwise.comp with XD=1), on float64 BITS held
// in a uint64_t, with integer operations only (xf64.glsl): the CPU's bits
// (src/backend/cpu/unary.cpp, binary.cpp) whatever the device does with
// float64 subnormals, division or fma — and on a device without
// shaderFloat64 arithmetic too, since no double instruction is emitted.
//
// The float64 twin of elementwise_xf32.glsl, op for op; the transcendentals
// (the CPU's double-double canon_f64.h / canon_f64_log.h, xmath64*.glsl)
// have their cases only in the XMATH64 variant, erf and gelu
// (canon_f64_erf.h, xmath64_erf.glsl) only in the XERF64 one (XMATH64 too),
// pow and atan2 (canon_pow_f64.h, xmath64_pow.glsl) only in the XPOW64 one,
// sin, cos and tan (canon_trig_f64.h, xmath64_trig.glsl) only in the XTRIG64
// one: each stays as small as it can.
//
// Every floating result is an xf64.glsl result or passes through xd_canon,
// so a NaN result is always the canonical XD_NAN and the dispatcher needs no
// separate NaN pass.
#ifndef CONCORD_ELEMENTWISE_XF64_GLSL
#define CONCORD_ELEMENTWISE_XF64_GLSL

#define XD_ONE 0x3ff0000000000000ul
#define XD_HALF 0x3fe0000000000000ul
#define XD_FRAC 0x000ffffffffffffful
#define XD_HIDDEN 0x0010000000000000ul

uint64_t xd_canon(uint64_t a) { return xd_isnan(a) ? XD_NAN : a; }
bool xd_ltz(uint64_t a) { return xd_lt(a, 0ul); }  // a < 0 (false for -0 and NaN)

// Rounding to an integer: 0 trunc, 1 floor, 2 ceil, 3 nearest even (the
// CPU's std::nearbyint). The sign is always kept: ceil(-0.5) = -0.
uint64_t xd_round_int(uint64_t a, int mode) {
  if (xd_isnan(a)) return XD_NAN;
  const uint64_t s = a & XD_SIGN, m = a & XD_ABS;
  const int e = int(m >> 52) - 1023;
  if (e >= 52 || m == 0ul) return a;  // already integral, ±0 or ±inf
  const bool neg = s != 0ul;
  if (e < 0) {  // 0 < |a| < 1 (subnormals too): 0 or 1 in magnitude
    const bool one = mode == 1 ? neg : mode == 2 ? !neg : mode == 3 ? m > XD_HALF : false;
    return s | (one ? XD_ONE : 0ul);
  }
  const int fb = 52 - e;  // fraction bits
  const uint64_t fmask = (1ul << fb) - 1ul, frac = m & fmask;
  if (frac == 0ul) return a;
  uint64_t t = m & ~fmask;
  bool up = mode == 1 ? neg : mode == 2 ? !neg : false;
  if (mode == 3) {
    const uint64_t hb = 1ul << (fb - 1);
    up = frac > hb || (frac == hb && ((t >> fb) & 1ul) != 0ul);
  }
  if (up) t += 1ul << fb;  // a carry into the exponent field is the right result
  return s | t;
}

// sign(±0) = +0; NaN stays NaN.
uint64_t xd_signum(uint64_t a) {
  if (xd_isnan(a)) return XD_NAN;
  if (xd_iszero(a)) return 0ul;
  return (a & XD_SIGN) | XD_ONE;
}

// The magnitude r * 2^(E - 1075) (r < 2^53, E >= 1 an exponent field), exact.
uint64_t xd_pack(uint64_t r, int E) {
  if (r == 0ul) return 0ul;
  const int k = 52 - xf_msb64(r);  // shift putting the leading bit at 52
  if (E - k >= 1) return (uint64_t(E - k - 1) << 52) + (r << k);
  return r << (E - 1);  // subnormal: E - 1 < k, so this stays below 2^52
}

// fmod(a, b) exactly (std::fmod): long division of the integer significands,
// up to 11 quotient bits a step (r < 2^53, so r << 11 fits in 64 bits).
uint64_t xd_fmod(uint64_t a, uint64_t b) {
  if (xd_isnan(a) || xd_isnan(b) || xd_isinf(a) || xd_iszero(b)) return XD_NAN;
  const uint64_t ma = a & XD_ABS, mb = b & XD_ABS;
  if (xd_isinf(b) || ma < mb) return a;  // |a| < |b|: the bit patterns order the magnitudes
  const int fa = max(int(ma >> 52), 1), fb = max(int(mb >> 52), 1);
  const uint64_t na = (ma & XD_FRAC) | (ma >= XD_HIDDEN ? XD_HIDDEN : 0ul);
  const uint64_t nb = (mb & XD_FRAC) | (mb >= XD_HIDDEN ? XD_HIDDEN : 0ul);
  uint64_t r = na % nb;
  for (int e = fa - fb; e > 0;) {
    const int sh = min(e, 11);
    r = (r << sh) % nb;
    e -= sh;
  }
  return (a & XD_SIGN) | xd_pack(r, fb);
}

// Python's % (the CPU's Remainder): the result takes the divisor's sign.
uint64_t xd_remainder(uint64_t a, uint64_t b) {
  uint64_t m = xd_fmod(a, b);
  if (!xd_iszero(m) && xd_ltz(b) != xd_ltz(m)) m = xd_add(m, b);
  return xd_canon(m);
}

// Python's // (the CPU's FloorDivide), step by step.
uint64_t xd_floor_divide(uint64_t a, uint64_t b) {
  if (xd_iszero(b)) return xd_div(a, b);
  const uint64_t m = xd_fmod(a, b);
  uint64_t q = xd_div(xd_sub(a, m), b);
  if (!xd_iszero(m) && xd_ltz(b) != xd_ltz(m)) q = xd_sub(q, XD_ONE);
  if (xd_iszero(q)) return xd_div(a, b) & XD_SIGN;  // copysign(0, a / b); a / b is no NaN here
  uint64_t f = xd_round_int(q, 1);
  if (xd_lt(XD_HALF, xd_sub(q, f))) f = xd_add(f, XD_ONE);  // q rounded just below an integer
  return xd_canon(f);
}

uint64_t uop(int op, uint64_t x) {
  switch (op) {
    case OP_neg: return xd_neg(x);
    case OP_abs: return xd_abs(x);
    case OP_sign: return xd_signum(x);
    case OP_relu: return xd_ltz(x) ? 0ul : xd_canon(x);  // relu(-0) = -0
    case OP_trunc: return xd_round_int(x, 0);
    case OP_floor: return xd_round_int(x, 1);
    case OP_ceil: return xd_round_int(x, 2);
    case OP_round: return xd_round_int(x, 3);
    case OP_sqrt: return xd_sqrt(x);
    case OP_rsqrt: return xd_div(XD_ONE, xd_sqrt(x));  // two roundings, as the CPU's 1 / sqrt(x)
    case OP_reciprocal: return xd_div(XD_ONE, x);
#if defined(XERF64)
    case OP_erf:
    case OP_gelu: return xe_erf_gelu(op == OP_gelu, x);  // one inlined copy
#elif defined(XMATH64)
    case OP_exp: return xe_exp(x);
    case OP_expm1: return xe_expm1(x);
    case OP_tanh: return xe_tanh(x);
    case OP_sigmoid: return xe_sigmoid(x);
    case OP_log: return xe_log(x);
    case OP_log1p: return xe_log1p(x);
    case OP_log2: return xe_log2(x);
#endif
#if defined(XTRIG64)
    case OP_sin: return xe_sin(x);
    case OP_cos: return xe_cos(x);
    case OP_tan: return xe_tan(x);
#endif
    default: return XD_NAN;
  }
}

uint upr(int op, uint64_t x) {
  switch (op) {
    case OP_isnan: return xd_isnan(x) ? 1u : 0u;
    case OP_isinf: return xd_isinf(x) ? 1u : 0u;
    case OP_isfinite: return xd_isnan(x) || xd_isinf(x) ? 0u : 1u;
    case OP_logical_not: return xd_iszero(x) ? 1u : 0u;
    default: return 0u;
  }
}

#if defined(XOPS)
// The shared ops (xops.glsl).
#define XS_CASE64(name) case OP_##name: return xd_canon(xs_##name##_f64(a, b));
#endif

uint64_t bop(int op, uint64_t a, uint64_t b) {
  switch (op) {
    case OP_add: return xd_add(a, b);
    case OP_sub: return xd_sub(a, b);
    case OP_mul: return xd_mul(a, b);
    case OP_div: return xd_div(a, b);
    case OP_maximum: return xd_canon(xd_lt(a, b) || xd_isnan(b) ? b : a);  // NaN propagates
    case OP_minimum: return xd_canon(xd_lt(b, a) || xd_isnan(b) ? b : a);
    case OP_remainder: return xd_remainder(a, b);
    case OP_floor_divide: return xd_floor_divide(a, b);
#if defined(XPOW64)
    case OP_pow: return xe_pow(a, b);
    case OP_atan2: return xe_atan2(a, b);  // atan2(y = a, x = b)
#endif
#if defined(XOPS)
    CONCORD_OPS_BINARY(XS_CASE64)
#endif
    default: return XD_NAN;
  }
}

// NaN compares unequal to everything (ne is true, the ordered ones false);
// the logical ops take NaN as true.
uint bpr(int op, uint64_t a, uint64_t b) {
  switch (op) {
    case OP_eq: return xd_eq(a, b) ? 1u : 0u;
    case OP_ne: return xd_eq(a, b) ? 0u : 1u;
    case OP_lt: return xd_lt(a, b) ? 1u : 0u;
    case OP_le: return xd_le(a, b) ? 1u : 0u;
    case OP_gt: return xd_lt(b, a) ? 1u : 0u;
    case OP_ge: return xd_le(b, a) ? 1u : 0u;
    case OP_logical_and: return !xd_iszero(a) && !xd_iszero(b) ? 1u : 0u;
    case OP_logical_or: return !xd_iszero(a) || !xd_iszero(b) ? 1u : 0u;
    case OP_logical_xor: return xd_iszero(a) != xd_iszero(b) ? 1u : 0u;
    default: return 0u;
  }
}

// clamp: the bounds arrive as float64 bits; a NaN in x or a bound
// propagates, lo > hi gives hi (the CPU's clamp_typed).
uint64_t clamp_op(uint64_t x, uint64_t lo, uint64_t hi) {
  x = xd_lt(x, lo) || xd_isnan(lo) ? lo : x;
  return xd_canon(xd_lt(hi, x) || xd_isnan(hi) ? hi : x);
}

#endif
