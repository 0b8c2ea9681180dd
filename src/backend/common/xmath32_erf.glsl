// backend/common/xmath32_erf.glsl — the reproducible mode's float32 erf and gelu on
// float32 BITS, with integer operations only: float64 inside through
// xf64.glsl.
//
//   uint xm_erf(uint x)       the mode's concord_erf_f32 (backend/common/canon_explog_erf.h)
//   uint xm_gelu(uint x)      concord_gelu_f32: x/2 * erfc(-x/sqrt2)
//   uint64_t xm_erf_d(uint64_t x), xm_erfc_d(uint64_t z)   the float64 ones inside
//
// Why: the CPU computes both in float64 (a series below 2, a continued
// fraction above, e^(-x^2) from an fma split) and rounds once. Here every
// double operation of canon_explog_erf.h is an xd_* call in the same order
// (a * b + c as two roundings, the fma as xd_fma, sqrt as xd_sqrt), so the
// result is the CPU's bits whatever the device does with subnormals. Every
// NaN result is XF_NAN (the mode's canonical NaN).
//
// Include after xmath32.glsl (xm_expm1_small, the XM_* constants). Also
// valid C++ (tests/test_reproducible_vulkan_erf.cpp checks it against the CPU).
// Example: `XSTORE(f32)(dst, i, xm_gelu(XLOAD(f32)(src, i)));`
#ifndef CONCORD_XMATH32_ERF_GLSL
#define CONCORD_XMATH32_ERF_GLSL

#define XM_2_SQRTPI 0x3ff20dd750429b6dul   // 1.1283791670955126
#define XM_1_SQRTPI 0x3fe20dd750429b6dul   // 0.5641895835477563
#define XM_INV_SQRT2 0x3fe6a09e667f3bcdul  // 0.7071067811865476
#define XM_D1_5 0x3ff8000000000000ul
#define XM_D2_5 0x4004000000000000ul
#define XM_D3 0x4008000000000000ul
#define XM_D4 0x4010000000000000ul
#define XM_D6 0x4018000000000000ul
#define XM_D26 0x403a000000000000ul

// 1 / (2n+1)!! for n = 0..32 (canon_explog_erf.h's concord_erf_odd_fact_inv).
#define XM_ERF_LIST                                                                                          \
  0x3ff0000000000000ul, 0x3fd5555555555555ul, 0x3fb1111111111111ul, 0x3f83813813813814ul,                    \
      0x3f51566abc011567ul, 0x3f1937e11175f095ul, 0x3edf09b28ba4d955ul, 0x3ea08db48ebe51c7ul,                \
      0x3e5f28db670be53bul, 0x3e1a3d5a71b92cd3ul, 0x3dd3fdfbc45c52eaul, 0x3d8bd0ac3296b624ul,                \
      0x3d41cd3b01a822a6ul, 0x3cf519297d390c9ful, 0x3ca747e72912d023ul, 0x3c5808286c768445ul,                \
      0x3c074dba97b8be52ul, 0x3bb54e6174c62a5aul, 0x3b626d4d5e132b8cul, 0x3b0e3d36c1c38faaul,                \
      0x3ab799ec4c4db4d0ul, 0x3a619050980a3336ul, 0x3a08fac24452c5fdul, 0x39b101e0dcd0ddf3ul,                \
      0x395636b2c25f2c57ul, 0x38fbe03fb2a9a10eul, 0x38a0d4adb45318caul, 0x384395bc2a44c468ul,                \
      0x37e5fd74f512d38cul, 0x3787da878c0310ddul, 0x372906d9c10fce8bul, 0x36c96c8bf0d31af7ul,                \
      0x3669086a47b449d0ul
#if XF_BRACES
XF_CONST uint64_t XM_ERF_COEF[33] = {XM_ERF_LIST};
#else
XF_CONST uint64_t XM_ERF_COEF[33] = uint64_t[33](XM_ERF_LIST);
#endif

// e^-a for 0 <= a <= 700: a = n ln2 - r, e^-a = 2^-n (1 + expm1(r)). t holds
// n in its low bits (the SHIFT trick), so 2^-n is (1023 - n) << 52.
uint64_t xm_erf_exp_neg(uint64_t a) {
  const uint64_t t = xm_mad(a, XM_LOG2E, XM_SHIFT);
  const uint64_t n = xd_sub(t, XM_SHIFT);
  const uint64_t r = xd_add(xd_sub(xd_mul(n, XM_LN2HI), a), xd_mul(n, XM_LN2LO));
  const uint64_t q = xd_add(xm_expm1_small(r), XM_ONE);
  return xd_mul(q, (XM_SHIFT + 1023ul - t) << 52);
}

// e^(-x^2) for 0 <= x <= 26, x^2 = hi + lo exactly.
uint64_t xm_erf_gauss(uint64_t x) {
  const uint64_t hi = xd_mul(x, x);
  const uint64_t lo = xd_fma(x, x, xd_neg(hi));
  return xd_mul(xm_erf_exp_neg(hi), xd_sub(XM_ONE, lo));
}

// erf(x) for 0 <= x < 2: Horner in t = 2x^2 over the table.
uint64_t xm_erf_series(uint64_t x) {
  const int n_terms = xd_lt(x, XM_INV2) ? 12 : xd_lt(x, XM_ONE) ? 20 : xd_lt(x, XM_D1_5) ? 26 : 32;
  const uint64_t t = xd_mul(xd_mul(XM_TWO, x), x);
  uint64_t s = XM_ERF_COEF[n_terms];
  for (int n = n_terms - 1; n >= 0; --n) s = xm_mad(s, t, XM_ERF_COEF[n]);
  return xd_mul(xd_mul(xd_mul(XM_2_SQRTPI, x), xm_erf_gauss(x)), s);
}

// erfc(x) for 2 <= x < 26: the continued fraction, bottom-up from its fixed point.
uint64_t xm_erf_fraction(uint64_t x) {
  const int depth = xd_lt(x, XM_D2_5) ? 44 : xd_lt(x, XM_D3) ? 30 : xd_lt(x, XM_D4) ? 24 : xd_lt(x, XM_D6) ? 16 : 12;
  const uint64_t d = xd_from_int64(int64_t(2 * depth + 2));
  uint64_t f = xd_mul(XM_INV2, xd_add(x, xd_sqrt(xd_add(xd_mul(x, x), d))));
  for (int n = depth; n >= 1; --n) f = xd_add(x, xd_div(xd_mul(XM_INV2, xd_from_int64(int64_t(n))), f));
  return xd_div(xd_mul(XM_1_SQRTPI, xm_erf_gauss(x)), f);
}

uint64_t xm_erfc_d(uint64_t z) {
  if (xd_isnan(z)) return XD_NAN;
  if (xd_lt(z, 0ul)) {
    const uint64_t a = xd_neg(z);
    if (xd_lt(a, XM_TWO)) return xd_add(XM_ONE, xm_erf_series(a));
    if (xd_lt(a, XM_D6)) return xd_sub(XM_TWO, xm_erf_fraction(a));
    return XM_TWO;  // erfc(-6) = 2 - 2e-17 rounds to 2
  }
  if (xd_lt(z, XM_TWO)) return xd_sub(XM_ONE, xm_erf_series(z));
  if (xd_lt(z, XM_D26)) return xm_erf_fraction(z);
  return 0ul;
}

uint64_t xm_erf_d(uint64_t x) {
  if (xd_isnan(x)) return XD_NAN;
  const uint64_t a = x & XD_ABS;  // keeps erf(-0) = -0 through the sign below
  uint64_t r;
  if (xd_lt(a, XM_TWO)) r = xm_erf_series(a);
  else if (xd_lt(a, XM_D6)) r = xd_sub(XM_ONE, xm_erf_fraction(a));
  else r = XM_ONE;  // erf(6) = 1 - 2e-17 rounds to 1
  return xd_sign(x) ? xd_neg(r) : r;
}

uint xm_erf(uint x) {
  if (xf_isnan(x)) return XF_NAN;
  return xd_to_f32(xm_erf_d(xd_from_f32(x)));
}

uint xm_gelu(uint x) {
  if (xf_isnan(x)) return XF_NAN;
  if (x == XF_INF) return XF_INF;
  if (x == (XF_INF | XF_SIGN)) return XF_SIGN;  // gelu(-inf) = -0
  const uint64_t w = xd_from_f32(x);
  return xd_to_f32(xd_mul(xd_mul(w, XM_INV2), xm_erfc_d(xd_mul(xd_neg(w), XM_INV_SQRT2))));
}

#endif
