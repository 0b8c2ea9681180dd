// backend/common/xmath64_trig.glsl — the reproducible mode's float64 sin, cos and tan
// on float64 BITS, with integer operations only: the CPU's
// src/backend/common/canon_trig_f64.h, every double operation an xd_* call
// (xf64.glsl) in the header's order, every fma an xd_fma, every branch a
// compare on bits, the Payne-Hanek reduction the header's uint64 code.
//
//   uint64_t xe_sin(uint64_t x)   concord_sin_f64
//   uint64_t xe_cos(uint64_t x)   concord_cos_f64
//   uint64_t xe_tan(uint64_t x)   concord_tan_f64
//
// Why: see xmath64.glsl. The Taylor coefficients and pi/2's first two parts
// are the float32 family's (xmath32_trig.glsl: the same doubles); two-sum
// is xmath64.glsl's. Every NaN result is XD_NAN.
//
// Include after xf32.glsl, xf64.glsl, xmath64.glsl and xmath32_trig.glsl.
// Also valid C++ (tests/ops/unary/test_reproducible_vulkan_trig64.cpp).
#ifndef CONCORD_XMATH64_TRIG_GLSL
#define CONCORD_XMATH64_TRIG_GLSL

// 2/pi after two zero words (the window may start before the binary point),
// 32 bits a word, most significant first: 1184 bits, enough for exponent 1023.
#define XE_TWO_OVER_PI_LIST                                                                                  \
  0x00000000u, 0x00000000u, 0xA2F9836Eu, 0x4E441529u, 0xFC2757D1u, 0xF534DDC0u, 0xDB629599u, 0x3C439041u,   \
      0xFE5163ABu, 0xDEBBC561u, 0xB7246E3Au, 0x424DD2E0u, 0x06492EEAu, 0x09D1921Cu, 0xFE1DEB1Cu, 0xB129A73Eu, \
      0xE88235F5u, 0x2EBB4484u, 0xE99C7026u, 0xB45F7E41u, 0x3991D639u, 0x835339F4u, 0x9C845F8Bu, 0xBDF9283Bu, \
      0x1FF897FFu, 0xDE05980Fu, 0xEF2F118Bu, 0x5A0A6D1Fu, 0x6D367ECFu, 0x27CB09B7u, 0x4F463F66u, 0x9E5FEA2Du, \
      0x7527BAC7u, 0xEBE5F17Bu, 0x3D0739F7u, 0x8A5292EAu, 0x6BFB5FB1u, 0x1F8D5D08u, 0x56033046u
#if XF_BRACES
XF_CONST uint XE_TWO_OVER_PI[39] = {XE_TWO_OVER_PI_LIST};
#else
XF_CONST uint XE_TWO_OVER_PI[39] = uint[39](XE_TWO_OVER_PI_LIST);
#endif
#define XE_TP1 XM_PIO2_HI                 // pi/2 = P1 + P2 + P3
#define XE_TP2 XM_PIO2_LO
#define XE_TP3 0xb91f1976b7ed8fbcul
#define XE_TINV 0x3fe45f306dc9c883ul      // 2/pi
#define XE_PIO4 0x3fe921fb54442d18ul      // pi/4 rounded down
#define XE_T20 0x4130000000000000ul       // 0x1p20
#define XE_T27 0x3e40000000000000ul       // 0x1p-27
#define XE_P53 0x3ca0000000000000ul       // 0x1p-53
#define XE_SIXTH_HI 0x3fc5555555555555ul  // 1/6 = HI + LO
#define XE_SIXTH_LO 0x3c65555555555555ul
#define XE_24TH_HI 0x3fa5555555555555ul   // 1/24 = HI + LO
#define XE_24TH_LO 0x3c45555555555555ul

// (double)m for m < 2^53, exactly.
uint64_t xe_from_u53(uint64_t m) { return m == 0ul ? 0ul : xd_round(false, m, 0); }

// |x| = q pi/2 + h + l, q (mod 4) in k, for |x| in [pi/4, 2^20)
// (concord_trig64_cody_waite): q from the low bits of ax 2/pi + 1.5 2^52.
XePair xe_trig_cody_waite(uint64_t ax) {
  const uint64_t sh = xd_add(xd_mul(ax, XE_TINV), XE_SHIFT);
  const uint64_t kd = xd_sub(sh, XE_SHIFT);
  const uint64_t t = xd_fma(xd_neg(kd), XE_TP1, ax);
  const uint64_t ph = xd_mul(kd, XE_TP2);
  const uint64_t pl = xd_fma(kd, XE_TP2, xd_neg(ph));
  const XePair a = xe_two_sum(t, xd_neg(ph));
  const uint64_t low = xd_sub(xd_sub(a.l, pl), xd_mul(kd, XE_TP3));
  XePair r = xe_two_sum(a.h, low);
  r.k = int(uint(sh) & 3u);
  return r;
}

// The same for finite |x| >= 2^20 (concord_trig64_payne_hanek): the 53-bit
// significand times a 224-bit window of 2/pi in 32-bit digits, 2 integer and
// 190 fraction bits kept, the signed fraction times pi/2 as a double-double.
XePair xe_trig_payne_hanek(uint64_t ax) {
  const int s = int(uint(ax >> 52)) - 1075;  // -32 .. 971
  const uint64_t m = (ax & 0xffffffffffffful) | 0x10000000000000ul;
  const int j = (s + 62) / 32 - 2;  // floor((s - 2) / 32)
  const uint64_t mh = m >> 32, ml = m & 0xfffffffful;
  uint d[8];
  uint64_t c = 0ul;
  for (int i = 0; i < 7; ++i) {
    const uint64_t t = ml * uint64_t(XE_TWO_OVER_PI[j + 8 - i]) + c;
    d[i] = uint(t & 0xfffffffful);
    c = t >> 32;
  }
  d[7] = uint(c);
  c = 0ul;
  for (int i = 0; i < 7; ++i) {
    const uint64_t t = mh * uint64_t(XE_TWO_OVER_PI[j + 8 - i]) + uint64_t(d[i + 1]) + c;
    d[i + 1] = uint(t & 0xfffffffful);
    c = t >> 32;
  }
  const int sh = 32 * (j + 7) - s - 190;  // 1 .. 32
  const uint64_t l0 = uint64_t(d[0]) | (uint64_t(d[1]) << 32);
  const uint64_t l1 = uint64_t(d[2]) | (uint64_t(d[3]) << 32);
  const uint64_t l2 = uint64_t(d[4]) | (uint64_t(d[5]) << 32);
  const uint64_t l3 = uint64_t(d[6]) | (uint64_t(d[7]) << 32);
  const uint64_t a0 = (l0 >> sh) | (l1 << (64 - sh));
  const uint64_t a1 = (l1 >> sh) | (l2 << (64 - sh));
  const uint64_t a2 = (l2 >> sh) | (l3 << (64 - sh));
  const int q = int(uint((a2 + (1ul << 61)) >> 62) & 3u);  // the nearest quadrant
  uint64_t f2 = (a2 << 2) | (a1 >> 62);
  uint64_t f1 = (a1 << 2) | (a0 >> 62);
  uint64_t f0 = a0 << 2;
  const bool neg = (f2 >> 63) != 0ul;  // the fraction in [-1/2, 1/2)
  if (neg) {
    f0 = ~f0 + 1ul;
    f1 = ~f1 + (f0 == 0ul ? 1ul : 0ul);
    f2 = ~f2 + ((f0 == 0ul && f1 == 0ul) ? 1ul : 0ul);
  }
  int lz = 0;
  if (f2 == 0ul) {
    f2 = f1;
    f1 = f0;
    f0 = 0ul;
    lz = 64;
  }
  const int z = 63 - xf_msb64(f2);
  const uint64_t u = z == 0 ? f2 : (f2 << z) | (f1 >> (64 - z));
  const uint64_t v = z == 0 ? f1 : (f1 << z) | (f0 >> (64 - z));
  lz += z;
  const uint64_t fh = xd_mul(xe_from_u53(u >> 11), xe_pow2(-53 - lz));
  const uint64_t fl = xd_mul(xd_add(xe_from_u53(u & 0x7fful), xd_mul(xe_from_u53(v >> 11), XE_P53)),
                             xe_pow2(-64 - lz));
  const uint64_t h = xd_mul(fh, XE_TP1);
  const uint64_t e = xd_add(xd_fma(fh, XE_TP1, xd_neg(h)), xd_add(xd_mul(fh, XE_TP2), xd_mul(fl, XE_TP1)));
  const uint64_t r = xd_add(h, e);  // fast two-sum: |h| >= |e|
  const uint64_t re = xd_sub(e, xd_sub(r, h));
  XePair p;
  p.h = neg ? xd_neg(r) : r;
  p.l = neg ? xd_neg(re) : re;
  p.k = q;
  return p;
}

// The reduced argument of ax = |x| (finite, >= 2^-27) (concord_trig64_reduce).
XePair xe_trig_reduce(uint64_t ax) {
  if (ax <= XE_PIO4) {
    XePair r;
    r.h = ax;
    r.l = 0ul;
    r.k = 0;
    return r;
  }
  if (ax < XE_T20) return xe_trig_cody_waite(ax);
  return xe_trig_payne_hanek(ax);
}

// Tail polynomials in z = r^2, Horner over XM_TRIG_COEF (concord_trig64_sin_dd
// / cos_dd's P, Q): sin's 1/19! .. 1/5! at [0, 8), cos's -1/18! .. -1/6! at [9, 16).
uint64_t xe_trig_tail(uint64_t z, int first, int n) {
  uint64_t p = XM_TRIG_COEF[first];
  for (int i = 1; i < n; ++i) p = xd_add(xd_mul(p, z), XM_TRIG_COEF[first + i]);
  return p;
}

// sin(r) (sin = true) or cos(r) as h + l for |r| <= pi/4 + 2^-30, r = rh + rl
// (concord_trig64_sin_dd, cos_dd): the named terms in double-double.
XePair xe_trig_dd(bool sin, uint64_t rh, uint64_t rl) {
  const uint64_t z = xd_mul(rh, rh);
  const uint64_t zl = xd_add(xd_fma(rh, rh, xd_neg(z)), xd_mul(xd_mul(XE_TWO, rh), rl));
  uint64_t hi, lo;
  if (sin) {
    const uint64_t c = xd_mul(z, rh);  // r^3
    const uint64_t cl = xd_add(xd_fma(z, rh, xd_neg(c)), xd_add(xd_mul(zl, rh), xd_mul(z, rl)));
    const uint64_t t = xd_mul(c, XE_SIXTH_HI);
    const uint64_t tl = xd_add(xd_fma(c, XE_SIXTH_HI, xd_neg(t)),
                               xd_add(xd_mul(c, XE_SIXTH_LO), xd_mul(cl, XE_SIXTH_HI)));
    const uint64_t p = xe_trig_tail(z, 0, 8);
    const XePair a = xe_two_sum(rh, xd_neg(t));
    hi = a.h;
    lo = xd_add(xd_sub(xd_add(a.l, rl), tl), xd_mul(xd_mul(c, z), p));
  } else {
    const uint64_t w = xd_mul(z, z);  // r^4
    const uint64_t wl = xd_add(xd_fma(z, z, xd_neg(w)), xd_mul(xd_mul(XE_TWO, z), zl));
    const uint64_t u = xd_mul(w, XE_24TH_HI);
    const uint64_t ul = xd_add(xd_fma(w, XE_24TH_HI, xd_neg(u)),
                               xd_add(xd_mul(w, XE_24TH_LO), xd_mul(wl, XE_24TH_HI)));
    const uint64_t p = xe_trig_tail(z, 9, 7);
    const XePair a1 = xe_two_sum(XE_ONE, xd_mul(XE_HALF | XD_SIGN, z));
    const XePair a2 = xe_two_sum(a1.h, u);
    hi = a2.h;
    lo = xd_add(xd_add(xd_add(a1.l, a2.l), xd_sub(ul, xd_mul(XE_HALF, zl))), xd_mul(xd_mul(w, z), p));
  }
  XePair r;
  r.h = xd_add(hi, lo);
  r.l = xd_sub(lo, xd_sub(r.h, hi));
  r.k = 0;
  return r;
}

// sin (op 0), cos (1) and tan (2) of x, the header's specials first.
uint64_t xe_trig(int op, uint64_t x) {
  const uint64_t ax = x & XD_ABS;
  if (ax >= XD_INF) return XD_NAN;  // inf or NaN
  if (ax < XE_T27) return op == 1 ? XE_ONE : x;
  const XePair r = xe_trig_reduce(ax);
  const bool odd = (r.k & 1) != 0;
  const uint64_t sgn = x & XD_SIGN;
  if (op == 0) {
    const XePair v = xe_trig_dd(!odd, r.h, r.l);
    const uint64_t s = xd_add(v.h, v.l);
    return ((r.k & 2) != 0 ? xd_neg(s) : s) ^ sgn;  // odd
  }
  if (op == 1) {
    const XePair v = xe_trig_dd(odd, r.h, r.l);
    const uint64_t c = xd_add(v.h, v.l);
    return ((r.k + 1) & 2) != 0 ? xd_neg(c) : c;  // q = 1, 2: negative
  }
  const XePair sn = xe_trig_dd(true, r.h, r.l);
  const XePair cs = xe_trig_dd(false, r.h, r.l);
  // n / d in double-double, rounded once: s / c, or -c / s in odd quadrants
  const uint64_t nh = odd ? xd_neg(cs.h) : sn.h, nl = odd ? xd_neg(cs.l) : sn.l;
  const uint64_t dh = odd ? sn.h : cs.h, dl = odd ? sn.l : cs.l;
  const uint64_t t = xd_div(nh, dh);
  const uint64_t rem = xd_sub(xd_add(xd_fma(xd_neg(t), dh, nh), nl), xd_mul(t, dl));
  return xd_add(t, xd_div(rem, dh)) ^ sgn;
}
uint64_t xe_sin(uint64_t x) { return xe_trig(0, x); }
uint64_t xe_cos(uint64_t x) { return xe_trig(1, x); }
uint64_t xe_tan(uint64_t x) { return xe_trig(2, x); }

#endif
