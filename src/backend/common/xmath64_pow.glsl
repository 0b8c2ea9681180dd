// backend/common/xmath64_pow.glsl — the reproducible mode's float64 pow and atan2
// on float64 BITS, with integer operations only: the CPU's
// src/backend/common/canon_pow_f64.h, every double operation an xd_* call
// (xf64.glsl) in the header's order, every fma an xd_fma, every branch a
// compare on bits.
//
//   uint64_t xe_pow(uint64_t x, uint64_t y)     concord_pow_f64(x, y): pow of
//                                               two tensors, and pow(tensor,
//                                               number) with the number's
//                                               double bits in y
//   uint64_t xe_atan2(uint64_t y, uint64_t x)   concord_atan2_f64(y, x)
//
// Why: see xmath64.glsl. The header reuses canon_f64.h's double-double exp
// and two-sum (xe_exp_dd, xe_two_sum, xe_scale here), canon_f64_log.h's
// ln2 split and the log series' coefficients (XE_LN2HI, XE_COEF), and
// canon_pow.h's integer test of y and atan(k/16) table (xmath32_pow.glsl's
// xp_int_kind, XP_ATAN_HI / _LO, XP_COEF's atan series); so does this file.
// Every NaN result is XD_NAN. Magnitudes (sign bit clear, no NaN) are
// ordered as integers, so atan2 compares them directly.
//
// Include after xf32.glsl, xf64.glsl, xmath64.glsl, xmath64_log.glsl and
// xmath32_pow.glsl. Also valid C++ (tests/ops/binary/test_reproducible_vulkan_pow64.cpp
// checks it against the CPU).
// Example: `st64(dst, i, xe_pow(ld64(a, i), ld64(b, i)));`
#ifndef CONCORD_XMATH64_POW_GLSL
#define CONCORD_XMATH64_POW_GLSL

#define XW_C27 0x3fb2f684bda12f68ul       // 2/27
#define XW_C25 0x3fb47ae147ae147bul       // 2/25
#define XW_C23 0x3fb642c8590b2164ul       // 2/23
#define XW_C5LO 0xbc7999999999999aul      // -0x1.999999999999ap-56: 2/5's tail
#define XW_C3LO 0x3c85555555555555ul      // 0x1.5555555555555p-55: 2/3's tail
#define XW_TINY900 0x07b0000000000000ul   // 0x1p-900
#define XW_TINY969 0x0360000000000000ul   // 0x1p-969
#define XW_P600 0x6570000000000000ul      // 0x1p600

// p + e = a * b exactly (concord_f64_two_prod); the pair's l is e.
XePair xe_two_prod(uint64_t a, uint64_t b) {
  XePair r;
  r.h = xd_mul(a, b);
  r.l = xd_fma(a, b, xd_neg(r.h));
  r.k = 0;
  return r;
}

// ln x = h + l for finite x > 0, to 2^-70 (concord_f64_log_hp).
XePair xe_log_hp(uint64_t x) {
  int k = 0;
  if (xd_lt(x, XE_MIN_NORMAL)) {  // subnormal: make it normal
    x = xd_mul(x, XE_P54);
    k = -54;
  }
  const uint64_t mant = x & 0x000ffffffffffffful;
  const uint big = mant > 0x6a09e667f3bcdul ? 1u : 0u;  // m >= sqrt 2 moves to m / 2
  k += int(uint(x >> 52) & 0x7ffu) - 1023 + int(big);
  const uint64_t f = xd_sub(mant | (uint64_t(1023u - big) << 52), XE_ONE);  // exact (Sterbenz)
  // s = f / (2 + f) = sh + sl
  const uint64_t dh = xd_add(XE_TWO, f);
  const uint64_t dl = xd_sub(f, xd_sub(dh, XE_TWO));
  const uint64_t sh = xd_div(f, dh);
  const uint64_t sl = xd_div(xd_sub(xd_fma(xd_neg(sh), dh, f), xd_mul(sh, dl)), dh);
  // z = s^2, s^3 = c
  XePair z = xe_two_prod(sh, sh);
  z.l = xd_add(z.l, xd_mul(xd_mul(XE_TWO, sh), sl));
  XePair c = xe_two_prod(sh, z.h);
  c.l = xd_add(c.l, xd_add(xd_mul(sh, z.l), xd_mul(sl, z.h)));
  // R(z) = 2/7 + ... + 2/27 z^10: 2/27, 2/25, 2/23 here, then XE_COEF's 2/21 .. 2/7
  uint64_t r = xd_add(xd_mul(z.h, XW_C27), XW_C25);
  r = xd_add(xd_mul(r, z.h), XW_C23);
  for (int i = 16; i <= 23; ++i) r = xd_add(xd_mul(r, z.h), XE_COEF[i]);
  // w = 2/5 + z R, q = 2/3 + z w, in double-double (XE_COEF[24], [25])
  const XePair w0 = xe_two_sum(XE_COEF[24], xd_mul(z.h, r));
  const uint64_t wl = xd_add(w0.l, xd_add(XW_C5LO, xd_mul(z.l, r)));
  XePair p = xe_two_prod(z.h, w0.h);
  p.l = xd_add(p.l, xd_add(xd_mul(z.h, wl), xd_mul(z.l, w0.h)));
  const XePair q0 = xe_two_sum(XE_COEF[25], p.h);
  const uint64_t ql = xd_add(q0.l, xd_add(XW_C3LO, p.l));
  // T = s^3 q; ln m = 2 s + T
  XePair t = xe_two_prod(c.h, q0.h);
  t.l = xd_add(t.l, xd_add(xd_mul(c.h, ql), xd_mul(c.l, q0.h)));
  const XePair m = xe_two_sum(xd_add(sh, sh), t.h);
  const uint64_t l = xd_add(m.l, xd_add(xd_add(sl, sl), t.l));
  // plus k ln2
  const uint64_t kd = xe_from_int(k);
  const XePair s = xe_two_sum(xd_mul(kd, XE_LN2HI), m.h);
  const uint64_t tt = xd_add(s.l, xd_add(l, xd_mul(kd, XE_LN2LO)));
  XePair o;
  o.h = xd_add(s.h, tt);
  o.l = xd_sub(tt, xd_sub(o.h, s.h));
  o.k = 0;
  return o;
}

// pow(x, y), C99 Annex F's special cases first, in the header's order.
uint64_t xe_pow(uint64_t x, uint64_t y) {
  if (xd_iszero(y) || x == XE_ONE) return XE_ONE;  // even for NaN
  if (xd_isnan(x) || xd_isnan(y)) return XD_NAN;
  const int kind = xp_int_kind(y);
  const bool xneg = xd_sign(x);
  const uint64_t ax = x & XD_ABS;
  if (xd_isinf(y)) {
    if (ax == XE_ONE) return XE_ONE;
    return (ax < XE_ONE) == !xd_sign(y) ? 0ul : XD_INF;
  }
  uint64_t v;
  if (ax == 0ul || ax == XD_INF) {  // a power of 0 or of inf, signed for odd y
    v = (ax == 0ul) == xd_sign(y) ? XD_INF : 0ul;
  } else if (xneg && kind == 0) {
    return XD_NAN;
  } else {
    const XePair lg = xe_log_hp(ax);
    const uint64_t th = xd_mul(y, lg.h);
    if (xd_lt(XE_EXP_HI, th)) {
      v = XD_INF;
    } else if (!xd_le(XE_EXP_LO, th)) {
      v = 0ul;
    } else {
      const uint64_t tl = xd_add(xd_fma(y, lg.h, xd_neg(th)), xd_mul(y, lg.l));
      // e^(th + tl) = 2^k (h + l) (1 + tl)
      const XePair e = xe_exp_dd(th);
      v = xe_scale(xd_add(e.h, xd_add(e.l, xd_mul(e.h, tl))), e.k);
    }
  }
  return (xneg && kind == 2) ? xd_neg(v) : v;
}

// atan(ah + al) = h + l for 0 <= ah <= 1, |al| <= ulp(ah)
// (concord_f64_atan01_dd): atan(k/16) plus the series of u.
XePair xe_atan01_dd(uint64_t ah, uint64_t al) {
  const int k = xp_trunc_int(xd_add(xd_mul(ah, XP_D16), XP_HALF));
  const uint64_t c = xd_mul(xe_from_int(k), XP_D0625);
  const uint64_t nh = xd_sub(ah, c);
  const XePair p = xe_two_prod(ah, c);
  const XePair d = xe_two_sum(XE_ONE, p.h);
  const uint64_t dl = xd_add(d.l, xd_add(p.l, xd_mul(al, c)));
  const uint64_t uh = xd_div(nh, d.h);
  const uint64_t ul = xd_div(xd_sub(xd_add(xd_fma(xd_neg(uh), d.h, nh), al), xd_mul(uh, dl)), d.h);
  const uint64_t z = xd_mul(uh, uh);
  const uint64_t q = xp_horner(z, 25, 5);  // 1/13, -1/11, ..., -1/3
  const XePair s = xe_two_sum(XP_ATAN_HI[k], uh);
  const uint64_t l = xd_add(s.l, xd_add(XP_ATAN_LO[k], xd_add(ul, xd_mul(xd_mul(uh, z), q))));
  XePair r;
  r.h = xd_add(s.h, l);
  r.l = xd_sub(l, xd_sub(r.h, s.h));
  r.k = 0;
  return r;
}

// (ah + bh) + (al + bl) rounded once (concord_f64_dd_add).
uint64_t xe_dd_add(uint64_t ah, uint64_t al, uint64_t bh, uint64_t bl) {
  const XePair s = xe_two_sum(ah, bh);
  return xd_add(s.h, xd_add(s.l, xd_add(al, bl)));
}

// atan2(y, x): the octant's pi/2 or pi and atan of the smaller over the larger.
uint64_t xe_atan2(uint64_t y, uint64_t x) {
  if (xd_isnan(x) || xd_isnan(y)) return XD_NAN;
  const bool yneg = xd_sign(y), xneg = xd_sign(x);
  const uint64_t ay = y & XD_ABS, ax = x & XD_ABS;
  uint64_t r;
  if (ay == 0ul) r = xneg ? XP_PI : 0ul;
  else if (ax == 0ul) r = XP_PIO2;
  else if (ax == XD_INF && ay == XD_INF) r = xneg ? XP_3PIO4 : XP_PIO4;
  else if (ax == XD_INF) r = xneg ? XP_PI : 0ul;
  else if (ay == XD_INF) r = XP_PIO2;
  else {
    // a = min / max as ah + al: the quotient and its fma remainder
    uint64_t num = ay <= ax ? ay : ax, den = ay <= ax ? ax : ay;
    if (den < XW_TINY900) {  // both tiny: scale up (exact), so the remainder is exact too
      num = xd_mul(num, XW_P600);
      den = xd_mul(den, XW_P600);
    }
    const uint64_t ah = xd_div(num, den);
    XePair t;
    t.h = ah;
    t.l = 0ul;
    t.k = 0;
    if (!(num < XW_TINY969 || ah < XW_TINY969))  // else atan(a) = a to 2^-138
      t = xe_atan01_dd(ah, xd_div(xd_fma(xd_neg(ah), den, num), den));
    if (ay <= ax) r = xneg ? xe_dd_add(XP_PI, XP_PI_LO, xd_neg(t.h), xd_neg(t.l)) : t.h;
    else r = xe_dd_add(XP_PIO2, XP_PIO2_LO, xneg ? t.h : xd_neg(t.h), xneg ? t.l : xd_neg(t.l));
  }
  return yneg ? xd_neg(r) : r;
}

#endif
