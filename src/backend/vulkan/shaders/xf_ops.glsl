// shaders/xf_ops.glsl — the floating elementwise ops computed exactly on
// BITS with integer operations only, for both widths: float32 (uint, after
// xf32.glsl) and float64 (uint64_t, after xf64.glsl; chosen by -DXD=1 or a
// float64 class, FLTW=64): the rounding ops, sign, fmod and Python's % and
// //, each mirroring the CPU's expression (src/backend/cpu/unary.cpp,
// binary.cpp) operation for operation. The reproducible mode's variants use
// them (elementwise_xf.glsl) and so does the default mode (elementwise_float.glsl:
// the results are exact, so the two modes share them): one spelling.
//   XV, XN(name)    the width's bits type and xf32/xf64.glsl's function names
//   x_canon(a)      a, or the canonical NaN
//   x_round(a, m)   0 trunc, 1 floor, 2 ceil, 3 nearest even
//   x_signum(a), x_fmod(a, b), x_remainder(a, b), x_floor_divide(a, b)
// Example: `XV q = x_floor_divide(a, b);`
#ifndef CONCORD_XF_OPS_GLSL
#define CONCORD_XF_OPS_GLSL

#if defined(XD) || (defined(FLTW) && FLTW == 64)
#define XV uint64_t
#define XN(name) xd_##name  // xf64.glsl's arithmetic
#define X_MANT 52
#define X_BIAS 1023
#define X_ABS XD_ABS
#define X_SIGN XD_SIGN
#define X_NANV XD_NAN
#define X_0 0ul
#define X_1 1ul
#define X_ONE 0x3ff0000000000000ul
#define X_HALF 0x3fe0000000000000ul
#define X_FRAC 0x000ffffffffffffful
#define X_HIDDEN 0x0010000000000000ul
#define X_STEP 11  // fmod's quotient bits a step: r < 2^53, so r << 11 fits in 64 bits
#define X_MSB(r) xf_msb64(r)
#else
#define XV uint
#define XN(name) xf_##name  // xf32.glsl's arithmetic
#define X_MANT 23
#define X_BIAS 127
#define X_ABS 0x7fffffffu
#define X_SIGN XF_SIGN
#define X_NANV XF_NAN
#define X_0 0u
#define X_1 1u
#define X_ONE 0x3f800000u
#define X_HALF 0x3f000000u
#define X_FRAC 0x7fffffu
#define X_HIDDEN 0x800000u
#define X_STEP 8  // r < 2^24, so r << 8 fits in 32 bits
#define X_MSB(r) findMSB(r)
#endif

XV x_canon(XV a) { return XN(isnan)(a) ? X_NANV : a; }
bool x_ltz(XV a) { return XN(lt)(a, X_0); }  // a < 0 (false for -0 and NaN)

// Rounding to an integer: 0 trunc, 1 floor, 2 ceil, 3 nearest even (the
// CPU's std::nearbyint). The sign is always kept: ceil(-0.5) = -0.
XV x_round(XV a, int mode) {
  if (XN(isnan)(a)) return X_NANV;
  const XV s = a & X_SIGN, m = a & X_ABS;
  const int e = int(m >> X_MANT) - X_BIAS;
  if (e >= X_MANT || m == X_0) return a;  // already integral, ±0 or ±inf
  const bool neg = s != X_0;
  if (e < 0) {  // 0 < |a| < 1 (subnormals too): 0 or 1 in magnitude
    const bool one = mode == 1 ? neg : mode == 2 ? !neg : mode == 3 ? m > X_HALF : false;
    return s | (one ? X_ONE : X_0);
  }
  const int fb = X_MANT - e;  // fraction bits
  const XV fmask = (X_1 << fb) - X_1, frac = m & fmask;
  if (frac == X_0) return a;
  XV t = m & ~fmask;
  bool up = mode == 1 ? neg : mode == 2 ? !neg : false;
  if (mode == 3) {
    const XV hb = X_1 << (fb - 1);
    up = frac > hb || (frac == hb && ((t >> fb) & X_1) != X_0);
  }
  if (up) t += X_1 << fb;  // a carry into the exponent field is the right result
  return s | t;
}

// sign(±0) = +0; NaN stays NaN.
XV x_signum(XV a) {
  if (XN(isnan)(a)) return X_NANV;
  if (XN(iszero)(a)) return X_0;
  return (a & X_SIGN) | X_ONE;
}

// The magnitude r * 2^(E - BIAS - MANT) (r < 2^(MANT + 1), E >= 1 an
// exponent field), exact.
XV x_pack(XV r, int E) {
  if (r == X_0) return X_0;
  const int k = X_MANT - X_MSB(r);  // shift putting the leading bit at MANT
  if (E - k >= 1) return (XV(E - k - 1) << X_MANT) + (r << k);
  return r << (E - 1);  // subnormal: E - 1 < k, so this stays below 2^MANT
}

// fmod(a, b) exactly (std::fmod): long division of the integer significands,
// X_STEP quotient bits a step.
XV x_fmod(XV a, XV b) {
  if (XN(isnan)(a) || XN(isnan)(b) || XN(isinf)(a) || XN(iszero)(b)) return X_NANV;
  const XV ma = a & X_ABS, mb = b & X_ABS;
  if (XN(isinf)(b) || ma < mb) return a;  // |a| < |b|: the bit patterns order the magnitudes
  const int fa = max(int(ma >> X_MANT), 1), fb = max(int(mb >> X_MANT), 1);
  const XV na = (ma & X_FRAC) | (ma >= X_HIDDEN ? X_HIDDEN : X_0);
  const XV nb = (mb & X_FRAC) | (mb >= X_HIDDEN ? X_HIDDEN : X_0);
  XV r = na % nb;
  for (int e = fa - fb; e > 0;) {
    const int sh = min(e, X_STEP);
    r = (r << sh) % nb;
    e -= sh;
  }
  return (a & X_SIGN) | x_pack(r, fb);
}

// Python's % (the CPU's Remainder): the result takes the divisor's sign.
XV x_remainder(XV a, XV b) {
  XV m = x_fmod(a, b);
  if (!XN(iszero)(m) && x_ltz(b) != x_ltz(m)) m = XN(add)(m, b);
  return x_canon(m);
}

// Python's // (the CPU's FloorDivide), step by step.
XV x_floor_divide(XV a, XV b) {
  if (XN(iszero)(b)) return XN(div)(a, b);
  const XV m = x_fmod(a, b);
  XV q = XN(div)(XN(sub)(a, m), b);
  if (!XN(iszero)(m) && x_ltz(b) != x_ltz(m)) q = XN(sub)(q, X_ONE);
  if (XN(iszero)(q)) return XN(div)(a, b) & X_SIGN;  // copysign(0, a / b); a / b is no NaN here
  XV f = x_round(q, 1);
  if (XN(lt)(X_HALF, XN(sub)(q, f))) f = XN(add)(f, X_ONE);  // q rounded just below an integer
  return x_canon(f);
}

#endif
