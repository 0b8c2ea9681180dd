// backend/common/xmath64_erf.glsl — the reproducible mode's float64 erf and gelu on
// float64 BITS, with integer operations only: the CPU's
// src/backend/common/canon_f64_erf.h, every double operation an xd_* call
// (xf64.glsl) in the header's order, every fma an xd_fma, every branch a
// compare on bits.
//
//   uint64_t xe_erf(uint64_t x)    concord_erf_f64
//   uint64_t xe_gelu(uint64_t x)   concord_gelu_f64
//   uint64_t xe_erf_gelu(bool gelu, uint64_t x)   either (one inlined copy)
//
// Why: see xmath64.glsl, whose reduction (xe_exp_reduce), 2^(j/64) table,
// Taylor coefficients (xe_horner), two-sum, pair and scaling this file uses.
// Every NaN result is XD_NAN; where the header returns x + x for a NaN the
// result is returned directly.
//
// Include after xf32.glsl, xf64.glsl and xmath64.glsl. Also valid C++
// (tests/ops/unary/test_reproducible_vulkan_erf64.cpp checks it against the CPU).
#ifndef CONCORD_XMATH64_ERF_GLSL
#define CONCORD_XMATH64_ERF_GLSL

#define XE_2SPI_HI 0x3ff20dd750429b6dul  // 2/sqrt(pi) = HI + LO
#define XE_2SPI_LO 0x3c71ae3a914fed80ul
#define XE_1SPI_HI 0x3fe20dd750429b6dul  // 1/sqrt(pi) = HI + LO
#define XE_1SPI_LO 0x3c61ae3a914fed80ul
#define XE_MRS2_HI 0xbfe6a09e667f3bcdul  // -1/sqrt2 = HI + LO
#define XE_MRS2_LO 0x3c8bdd3413b26456ul
#define XE_P025 0x3fd0000000000000ul     // 0.25
#define XE_P15 0x3ff8000000000000ul      // 1.5
#define XE_P25 0x4004000000000000ul      // 2.5
#define XE_P3 0x4008000000000000ul       // 3.0
#define XE_P4 0x4010000000000000ul       // 4.0
#define XE_P6 0x4018000000000000ul       // 6.0
#define XE_P10 0x4024000000000000ul      // 10.0
#define XE_P85 0x4021000000000000ul      // 8.5
#define XE_M386 0xc0434ccccccccccdul     // -38.6
#define XE_T60 0x3c30000000000000ul      // 0x1p-60
#define XE_T900 0x07b0000000000000ul     // 0x1p-900
#define XE_P64 0x43f0000000000000ul      // 0x1p64
#define XE_M64 0x3bf0000000000000ul      // 0x1p-64

// 1 / (2n+1)!! = hi + lo for n = 0..33 as {hi, lo} pairs (concord_f64_erf_coef).
#define XE_ERF_COEF_LIST \
  0x3ff0000000000000ul, 0x0000000000000000ul, 0x3fd5555555555555ul, 0x3c75555555555555ul, \
  0x3fb1111111111111ul, 0x3c31111111111111ul, 0x3f83813813813814ul, 0xbc2fb1fb1fb1fb20ul, \
  0x3f51566abc011567ul, 0xbbf50ffbaa655100ul, 0x3f1937e11175f095ul, 0x3bb5ba34d99b2d18ul, \
  0x3edf09b28ba4d955ul, 0x3b75d17c1f83e8bbul, 0x3ea08db48ebe51c7ul, 0x3b2d7aa2655dac39ul, \
  0x3e5f28db670be53bul, 0xbafb8a0dee6a81c7ul, 0x3e1a3d5a71b92cd3ul, 0x3a58d4a562d73466ul, \
  0x3dd3fdfbc45c52eaul, 0xba5732d38d943a75ul, 0x3d8bd0ac3296b624ul, 0x39f87db354a65235ul, \
  0x3d41cd3b01a822a6ul, 0x39eb8f2d110310d1ul, 0x3cf519297d390c9ful, 0x3994cf9db558f77cul, \
  0x3ca747e72912d023ul, 0xb94bcb75498c2cb4ul, 0x3c5808286c768445ul, 0xb8f25e688dfc0d1dul, \
  0x3c074dba97b8be52ul, 0x3892adc0dd1eee53ul, 0x3bb54e6174c62a5aul, 0xb8510fa7d56e33f7ul, \
  0x3b626d4d5e132b8cul, 0xb7ef58c1278b14a4ul, 0x3b0e3d36c1c38faaul, 0x37adce75ae22d6b6ul, \
  0x3ab799ec4c4db4d0ul, 0xb71b6467e5532f50ul, 0x3a619050980a3336ul, 0xb70c1093b75143b0ul, \
  0x3a08fac24452c5fdul, 0xb6adf5715fbd8817ul, 0x39b101e0dcd0ddf3ul, 0xb6504ff60ab782c9ul, \
  0x395636b2c25f2c57ul, 0x35e6b1bbf8e727bful, 0x38fbe03fb2a9a10eul, 0x355b0c641d24b224ul, \
  0x38a0d4adb45318caul, 0xb544b7145f8107c5ul, 0x384395bc2a44c468ul, 0x34e670c7b61aba74ul, \
  0x37e5fd74f512d38cul, 0xb4883504d0b99175ul, 0x3787da878c0310ddul, 0xb40f45815e438cd6ul, \
  0x372906d9c10fce8bul, 0x33ca6babb4ea15d0ul, 0x36c96c8bf0d31af7ul, 0x3361b2758b166f8ful, \
  0x3669086a47b449d0ul, 0x32cabc671512ae30ul, 0x3607e978a031f273ul, 0xb2a648cfd0e42374ul
#if XF_BRACES
XF_CONST uint64_t XE_ERF_COEF[68] = {XE_ERF_COEF_LIST};
#else
XF_CONST uint64_t XE_ERF_COEF[68] = uint64_t[68](XE_ERF_COEF_LIST);
#endif

// (ah + al) (bh + bl) = h + l (concord_f64_erf_mul).
XePair xe_erf_mul(uint64_t ah, uint64_t al, uint64_t bh, uint64_t bl) {
  const uint64_t p = xd_mul(ah, bh);
  const uint64_t e = xd_add(xd_fma(ah, bh, xd_neg(p)), xd_add(xd_mul(ah, bl), xd_mul(al, bh)));
  XePair r;
  r.h = xd_add(p, e);
  r.l = xd_sub(e, xd_sub(r.h, p));
  r.k = 0;
  return r;
}

// e^x = 2^k (h + l) to about 2^-66 (concord_f64_erf_exp): the Taylor series
// to r^7 (xe_horner over expm1's 1/7! .. 1/3!, then 1/2), 2^(j/64) r exact.
XePair xe_erf_exp(uint64_t x) {
  const XePair r = xe_exp_reduce(x);
  const int j = r.k & 63;
  const uint64_t rh = r.h, rl = r.l;
  const uint64_t q = xd_add(xd_mul(xe_horner(rh, 11, 4), rh), XE_HALF);
  const uint64_t p = xd_add(xd_mul(xd_mul(rh, rh), q), xd_add(rl, xd_mul(rl, rh)));
  const uint64_t th = XE_EXP2[2 * j], tl = XE_EXP2[2 * j + 1];
  const uint64_t a = xd_mul(th, rh);
  const uint64_t ae = xd_fma(th, rh, xd_neg(a));
  const uint64_t l = xd_add(ae, xd_add(tl, xd_add(xd_mul(th, p), xd_mul(tl, xd_add(rh, p)))));
  const XePair s = xe_two_sum(th, a);
  const uint64_t sl = xd_add(s.l, l);
  XePair e;
  e.h = xd_add(s.h, sl);
  e.l = xd_sub(sl, xd_sub(e.h, s.h));
  e.k = (r.k - j) >> 6;  // an exact multiple of 64
  return e;
}

// e^(-x^2) = 2^k (h + l) for 0 <= x < 27.3 (concord_f64_erf_gauss).
XePair xe_erf_gauss(uint64_t x) {
  const uint64_t q = xd_mul(x, x);
  const uint64_t ql = xd_fma(x, x, xd_neg(q));
  XePair e = xe_erf_exp(xd_neg(q));
  e.l = xd_sub(e.l, xd_mul(e.h, ql));
  return e;
}

// erf(x) / x = h + l for 0 <= x < 2 (concord_f64_erf_series_dd); g = e^(-x^2).
XePair xe_erf_series_dd(uint64_t x, XePair g) {
  const int n_terms = xd_lt(x, XE_P025) ? 10 : xd_lt(x, XE_HALF) ? 13 : xd_lt(x, XE_ONE) ? 20
                      : xd_lt(x, XE_P15) ? 26 : 33;
  const uint64_t q = xd_mul(x, x);
  const uint64_t th = xd_mul(XE_TWO, q), tl = xd_mul(XE_TWO, xd_fma(x, x, xd_neg(q)));
  uint64_t sh = XE_ERF_COEF[2 * n_terms], sl = XE_ERF_COEF[2 * n_terms + 1];
  for (int n = n_terms - 1; n >= 0; --n) {
    const XePair p = xe_erf_mul(sh, sl, th, tl);
    const XePair s = xe_two_sum(p.h, XE_ERF_COEF[2 * n]);
    sh = s.h;
    sl = xd_add(s.l, xd_add(p.l, XE_ERF_COEF[2 * n + 1]));
  }
  const uint64_t sc = xe_pow2(g.k);  // k >= -6: exact scaling
  const XePair a = xe_erf_mul(sh, sl, xd_mul(g.h, sc), xd_mul(g.l, sc));
  return xe_erf_mul(a.h, a.l, XE_2SPI_HI, XE_2SPI_LO);
}

// erfc(x) for 2 <= x < 6 in double (concord_f64_erfc_fraction); g = e^(-x^2).
uint64_t xe_erfc_fraction(uint64_t x, XePair g) {
  const int depth = xd_lt(x, XE_P25) ? 44 : xd_lt(x, XE_P3) ? 30 : xd_lt(x, XE_P4) ? 24 : 16;
  uint64_t f = xd_mul(XE_HALF, xd_add(x, xd_sqrt(xd_add(xd_mul(x, x), xe_from_int(2 * depth + 2)))));
  for (int n = depth; n >= 1; --n) f = xd_add(x, xd_div(xd_mul(XE_HALF, xe_from_int(n)), f));
  return xd_div(xd_mul(XE_1SPI_HI, xd_mul(xd_add(g.h, g.l), xe_pow2(g.k))), f);
}

// erfc(z) = 2^k (h + l) for 2 <= z < 27.3 (concord_f64_erfc_dd): the
// fraction in double-double; g = e^(-z^2).
XePair xe_erfc_dd(uint64_t z, XePair g) {
  const int depth = xd_lt(z, XE_P25) ? 120 : xd_lt(z, XE_P3) ? 90 : xd_lt(z, XE_P4) ? 64
                    : xd_lt(z, XE_P6) ? 40 : xd_lt(z, XE_P10) ? 24 : 16;
  uint64_t fh = xd_mul(XE_HALF, xd_add(z, xd_sqrt(xd_add(xd_mul(z, z), xe_from_int(2 * depth + 2)))));
  uint64_t fl = 0ul;
  for (int n = depth; n >= 1; --n) {
    const uint64_t c = xd_mul(XE_HALF, xe_from_int(n));  // f = z + c / f
    const uint64_t dh = xd_div(c, fh);
    const uint64_t dl = xd_div(xd_sub(xd_fma(xd_neg(dh), fh, c), xd_mul(dh, fl)), fh);
    const XePair s = xe_two_sum(z, dh);
    fh = s.h;
    fl = xd_add(s.l, dl);
  }
  const XePair p = xe_erf_mul(g.h, g.l, XE_1SPI_HI, XE_1SPI_LO);
  const uint64_t q = xd_div(p.h, fh);
  const uint64_t r = xd_div(xd_sub(xd_add(xd_fma(xd_neg(q), fh, p.h), p.l), xd_mul(q, fl)), fh);
  XePair e;
  e.h = xd_add(q, r);
  e.l = xd_sub(r, xd_sub(e.h, q));
  e.k = g.k;
  return e;
}

// erf (gelu false: concord_erf_f64) or gelu (true: concord_gelu_f64) of x,
// with one copy of each piece (the shader inlines every call: a smaller
// one builds into a pipeline much faster on software devices). The branches
// take t = |x| (erf) or |zh| (gelu) and e^(-t^2) = g, which the header
// computes in each branch and again for gelu's correction: the same bits.
// erf: 2x/sqrt(pi) below 2^-900 (in double-double on 2^64 x), the series
// below 2, 1 - erfc to 6, then +-1, the sign put back on bits (erf(-0) = -0).
// gelu: x/2 erfc(z), z = -x/sqrt2 = zh + zl; erfc(zh) = 2^k (eh + el) by
// the branch of zh, corrected for zl, times x/2 rounded once.
uint64_t xe_erf_gelu(bool gelu, uint64_t x) {
  if (xd_isnan(x)) return XD_NAN;
  const uint64_t sign = x & XD_SIGN;
  uint64_t h = 0ul, zh = 0ul, zl = 0ul, t;
  int path;  // 1 the series, 2 the fraction in double, 3 in double-double
  if (gelu) {
    if (xd_lt(XE_P85, x)) return x;
    if (xd_lt(x, XE_M386)) return XD_SIGN;  // -0 (-inf included)
    h = xd_mul(x, XE_HALF);
    if (xd_lt(x, XE_T60) && xd_lt(XE_T60 | XD_SIGN, x)) return h;
    zh = xd_mul(x, XE_MRS2_HI);
    zl = xd_add(xd_fma(x, XE_MRS2_HI, xd_neg(zh)), xd_mul(x, XE_MRS2_LO));
    t = xd_lt(zh, 0ul) ? xd_neg(zh) : zh;
    path = xd_le(zh, XE_TWO | XD_SIGN) ? 2 : xd_lt(zh, XE_TWO) ? 1 : 3;
  } else {
    t = x & XD_ABS;
    if (xd_lt(t, XE_T900)) {
      const uint64_t b = xd_mul(t, XE_P64);
      const uint64_t p = xd_mul(b, XE_2SPI_HI);
      return xd_mul(xd_add(p, xd_add(xd_fma(b, XE_2SPI_HI, xd_neg(p)), xd_mul(b, XE_2SPI_LO))), XE_M64) | sign;
    }
    if (xd_le(XE_P6, t)) return XE_ONE | sign;
    path = xd_lt(t, XE_TWO) ? 1 : 2;
  }
  const XePair g = xe_erf_gauss(t);
  uint64_t eh, el;
  int k = 0;
  if (path == 1) {
    const XePair s = xe_erf_series_dd(t, g);  // erf(t) / t
    if (!gelu) {
      const uint64_t p = xd_mul(s.h, t);
      return xd_add(p, xd_add(xd_fma(s.h, t, xd_neg(p)), xd_mul(s.l, t))) | sign;
    }
    XePair p = xe_erf_mul(s.h, s.l, t, 0ul);
    if (xd_lt(0ul, zh)) {
      p.h = xd_neg(p.h);
      p.l = xd_neg(p.l);
    }
    const XePair d = xe_two_sum(XE_ONE, p.h);
    eh = d.h;
    el = xd_add(d.l, p.l);
  } else if (path == 2) {
    const uint64_t f = xe_erfc_fraction(t, g);
    if (!gelu) return xd_sub(XE_ONE, f) | sign;
    const XePair d = xe_two_sum(XE_TWO, xd_neg(f));
    eh = d.h;
    el = d.l;
  } else {
    const XePair e = xe_erfc_dd(t, g);
    eh = e.h;
    el = e.l;
    k = e.k;
  }
  el = xd_sub(el, xd_mul(xd_mul(xd_mul(zl, XE_2SPI_HI), g.h), xe_pow2(g.k - k)));
  const uint64_t p = xd_mul(h, eh);
  const uint64_t v = xd_add(p, xd_add(xd_fma(h, eh, xd_neg(p)), xd_mul(h, el)));
  return k == 0 ? v : xe_scale(v, k);
}
uint64_t xe_erf(uint64_t x) { return xe_erf_gelu(false, x); }
uint64_t xe_gelu(uint64_t x) { return xe_erf_gelu(true, x); }

#endif
