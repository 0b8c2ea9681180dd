// shaders/elementwise_xf32.glsl — the reproducible mode's elementwise ops of
// float32 and the halves ("_x" variants of elementwise.comp), on float32 BITS
// held in a uint, with integer operations only (xf32.glsl): the CPU's bits
// (src/backend/cpu/unary.cpp, binary.cpp, ternary.cpp) whatever the device's
// float controls do with subnormals. The halves load as float32 bits, compute
// in float32 and round once on store, as on the CPU.
//
// Every floating result is an xf32.glsl result or passes through x_canon,
// so a NaN result is always the canonical 0x7fc00000 (the mode's NaN rule)
// and the dispatcher needs no separate NaN pass. An op without its case here gives NaN (or false) and is
// never claimed in the mode (kXUnary / kXBinary in elementwise.cpp).
//
// With XMATH (the "ew_xmath_*_x" variants), uop is log, tanh, sigmoid, expm1,
// log1p and log2 from xmath32.glsl (float64 inside, on bits); with XERF too
// (the "ew_xerf_*_x" variants), erf and gelu from xmath32_erf.glsl; with
// XTRIG ("ew_xtrig_*_x"), sin, cos and tan from xmath32_trig.glsl; with XPOW
// ("ew_xpow_*_x", "ew_xpows_*_x"), bop has pow and atan2 (xmath32_pow.glsl).
// Defined here on top of xf32.glsl: the rounding ops, sign, relu, fmod and
// Python's % and //, maximum/minimum/clamp, each mirroring the CPU's
// expression operation for operation.
#ifndef CONCORD_ELEMENTWISE_XF32_GLSL
#define CONCORD_ELEMENTWISE_XF32_GLSL

#define XF_ONE 0x3f800000u
#define XF_HALF 0x3f000000u

uint x_canon(uint a) { return xf_isnan(a) ? XF_NAN : a; }
bool x_ltz(uint a) { return xf_lt(a, 0u); }  // a < 0 (false for -0 and NaN)

// Rounding to an integer: 0 trunc, 1 floor, 2 ceil, 3 nearest even (the
// CPU's std::nearbyint). The sign is always kept: ceil(-0.5) = -0.
uint x_round(uint a, int mode) {
  if (xf_isnan(a)) return XF_NAN;
  const uint s = a & XF_SIGN, m = a & 0x7fffffffu;
  const int e = int(m >> 23) - 127;
  if (e >= 23 || m == 0u) return a;  // already integral, ±0 or ±inf
  const bool neg = s != 0u;
  if (e < 0) {  // 0 < |a| < 1 (subnormals too): 0 or 1 in magnitude
    const bool one = mode == 1 ? neg : mode == 2 ? !neg : mode == 3 ? m > XF_HALF : false;
    return s | (one ? XF_ONE : 0u);
  }
  const int fb = 23 - e;  // fraction bits
  const uint fmask = (1u << fb) - 1u, frac = m & fmask;
  if (frac == 0u) return a;
  uint t = m & ~fmask;
  bool up = mode == 1 ? neg : mode == 2 ? !neg : false;
  if (mode == 3) {
    const uint hb = 1u << (fb - 1);
    up = frac > hb || (frac == hb && ((t >> fb) & 1u) != 0u);
  }
  if (up) t += 1u << fb;  // a carry into the exponent field is the right result
  return s | t;
}

// sign(±0) = +0; NaN stays NaN.
uint x_signum(uint a) {
  if (xf_isnan(a)) return XF_NAN;
  if (xf_iszero(a)) return 0u;
  return (a & XF_SIGN) | XF_ONE;
}

// The magnitude r * 2^(E - 150) (r < 2^24, E >= 1 an exponent field), exact.
uint x_pack(uint r, int E) {
  if (r == 0u) return 0u;
  const int k = 23 - findMSB(r);  // shift putting the leading bit at 23
  if (E - k >= 1) return (uint(E - k - 1) << 23) + (r << k);
  return r << (E - 1);  // subnormal: E - 1 < k, so this stays below 2^23
}

// fmod(a, b) exactly (std::fmod): long division of the integer significands.
uint x_fmod(uint a, uint b) {
  if (xf_isnan(a) || xf_isnan(b) || xf_isinf(a) || xf_iszero(b)) return XF_NAN;
  const uint ma = a & 0x7fffffffu, mb = b & 0x7fffffffu;
  if (xf_isinf(b) || ma < mb) return a;  // |a| < |b|: the bit patterns order the magnitudes
  const int fa = max(int(ma >> 23), 1), fb = max(int(mb >> 23), 1);
  const uint na = (ma & 0x7fffffu) | (ma >= 0x800000u ? 0x800000u : 0u);
  const uint nb = (mb & 0x7fffffu) | (mb >= 0x800000u ? 0x800000u : 0u);
  uint r = na % nb;
  for (int e = fa - fb; e > 0;) {  // r * 2^sh stays below 2^32: nb < 2^24, sh <= 8
    const int sh = min(e, 8);
    r = (r << sh) % nb;
    e -= sh;
  }
  return (a & XF_SIGN) | x_pack(r, fb);
}

// Python's % (the CPU's Remainder): the result takes the divisor's sign.
uint x_remainder(uint a, uint b) {
  uint m = x_fmod(a, b);
  if (!xf_iszero(m) && x_ltz(b) != x_ltz(m)) m = xf_add(m, b);
  return x_canon(m);
}

// Python's // (the CPU's FloorDivide), step by step.
uint x_floor_divide(uint a, uint b) {
  if (xf_iszero(b)) return xf_div(a, b);
  const uint m = x_fmod(a, b);
  uint q = xf_div(xf_sub(a, m), b);
  if (!xf_iszero(m) && x_ltz(b) != x_ltz(m)) q = xf_sub(q, XF_ONE);
  if (xf_iszero(q)) return xf_div(a, b) & XF_SIGN;  // copysign(0, a / b); a / b is no NaN here
  uint f = x_round(q, 1);
  if (xf_lt(XF_HALF, xf_sub(q, f))) f = xf_add(f, XF_ONE);  // q rounded just below an integer
  return x_canon(f);
}

#if defined(XTRIG)
// sin, cos and tan's variant (the mode's canon_trig.h).
uint uop(int op, uint x) {
  switch (op) {
    case OP_sin: return xm_sin(x);
    case OP_cos: return xm_cos(x);
    case OP_tan: return xm_tan(x);
    default: return XF_NAN;
  }
}
#elif defined(XERF)
// erf and gelu's variant (float64 inside, the mode's canon_explog_erf.h).
uint uop(int op, uint x) {
  switch (op) {
    case OP_erf: return xm_erf(x);
    case OP_gelu: return xm_gelu(x);
    default: return XF_NAN;
  }
}
#elif defined(XMATH)
// The transcendentals' variant (float64 inside): only these.
uint uop(int op, uint x) {
  switch (op) {
    case OP_log: return xm_log(x);
    case OP_tanh: return xm_tanh(x);
    case OP_sigmoid: return xm_sigmoid(x);
    case OP_expm1: return xm_expm1(x);  // the mode's canon_explog.h algorithms
    case OP_log1p: return xm_log1p(x);
    case OP_log2: return xm_log2(x);
    default: return XF_NAN;
  }
}
#else
uint uop(int op, uint x) {
  switch (op) {
    case OP_neg: return xf_neg(x);
    case OP_abs: return xf_abs(x);
    case OP_sign: return x_signum(x);
    case OP_relu: return x_ltz(x) ? 0u : x_canon(x);  // relu(-0) = -0
    case OP_trunc: return x_round(x, 0);
    case OP_floor: return x_round(x, 1);
    case OP_ceil: return x_round(x, 2);
    case OP_round: return x_round(x, 3);
    case OP_sqrt: return xf_sqrt(x);
    case OP_rsqrt: return xf_div(XF_ONE, xf_sqrt(x));  // two roundings, as the CPU's 1 / sqrt(x)
    case OP_reciprocal: return xf_div(XF_ONE, x);
    case OP_exp: return xf_exp(x);
    default: return XF_NAN;
  }
}
#endif

uint upr(int op, uint x) {
  switch (op) {
    case OP_isnan: return xf_isnan(x) ? 1u : 0u;
    case OP_isinf: return xf_isinf(x) ? 1u : 0u;
    case OP_isfinite: return xf_isnan(x) || xf_isinf(x) ? 0u : 1u;
    case OP_logical_not: return xf_iszero(x) ? 1u : 0u;
    default: return 0u;
  }
}

#if defined(XOPS)
// The shared ops (xops.glsl), told the storage format of T (nextafter's step).
#define XS_FMT_f32 CONCORD_OPS_FMT_F32
#define XS_FMT_f16 CONCORD_OPS_FMT_F16
#define XS_FMT_bf16 CONCORD_OPS_FMT_BF16
#define XS_FMT_OF_(X) XS_FMT_##X
#define XS_FMT_OF(X) XS_FMT_OF_(X)
#define XS_CASE(name) case OP_##name: return x_canon(xs_##name##_f32(a, b, XS_FMT_OF(T)));
#endif

uint bop(int op, uint a, uint b) {
  switch (op) {
    case OP_add: return xf_add(a, b);
    case OP_sub: return xf_sub(a, b);
    case OP_mul: return xf_mul(a, b);
    case OP_div: return xf_div(a, b);
    case OP_maximum: return x_canon(xf_lt(a, b) || xf_isnan(b) ? b : a);  // NaN propagates
    case OP_minimum: return x_canon(xf_lt(b, a) || xf_isnan(b) ? b : a);
    case OP_remainder: return x_remainder(a, b);
    case OP_floor_divide: return x_floor_divide(a, b);
#if defined(XPOW)
    case OP_pow: return xm_pow(a, xd_from_f32(b));  // the CPU's concord_pow_f32(a, (double)b)
    case OP_atan2: return xm_atan2(a, b);
#endif
#if defined(XOPS)
    CONCORD_OPS_BINARY(XS_CASE)
#endif
    default: return XF_NAN;
  }
}

// NaN compares unequal to everything (ne is true, the ordered ones false);
// the logical ops take NaN as true.
uint bpr(int op, uint a, uint b) {
  switch (op) {
    case OP_eq: return xf_eq(a, b) ? 1u : 0u;
    case OP_ne: return xf_eq(a, b) ? 0u : 1u;
    case OP_lt: return xf_lt(a, b) ? 1u : 0u;
    case OP_le: return xf_le(a, b) ? 1u : 0u;
    case OP_gt: return xf_lt(b, a) ? 1u : 0u;
    case OP_ge: return xf_le(b, a) ? 1u : 0u;
    case OP_logical_and: return !xf_iszero(a) && !xf_iszero(b) ? 1u : 0u;
    case OP_logical_or: return !xf_iszero(a) || !xf_iszero(b) ? 1u : 0u;
    case OP_logical_xor: return xf_iszero(a) != xf_iszero(b) ? 1u : 0u;
    default: return 0u;
  }
}

// clamp: the bounds arrive as float32 bits; a NaN in x or a bound propagates,
// lo > hi gives hi (the CPU's clamp_typed).
uint clamp_op(uint x, uint64_t lo_bits, uint64_t hi_bits) {
  const uint lo = uint(lo_bits), hi = uint(hi_bits);
  x = xf_lt(x, lo) || xf_isnan(lo) ? lo : x;
  return x_canon(xf_lt(hi, x) || xf_isnan(hi) ? hi : x);
}

#endif
