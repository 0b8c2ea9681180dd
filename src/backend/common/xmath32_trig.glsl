// backend/common/xmath32_trig.glsl — the reproducible mode's float32 sin, cos and tan
// on float32 BITS, with integer operations only: float64 inside through
// xf64.glsl.
//
//   uint xm_sin(uint x), xm_cos(uint x), xm_tan(uint x)
//                             the mode's concord_sin_f32 / cos / tan
//                             (backend/common/canon_trig.h)
//
// Why: the CPU reduces the argument exactly (Payne-Hanek, integer
// arithmetic on the bits of 2/pi), evaluates Taylor polynomials in double
// and rounds once. The reduction is integer work already; every double
// operation is an xd_* call in canon_trig.h's order, so the result is the
// CPU's bits whatever the device does with subnormals. Every NaN result is
// XF_NAN (the mode's canonical NaN).
//
// Include after xf32.glsl and xf64.glsl. Also valid C++
// (tests/test_reproducible_vulkan_trig.cpp checks it against the CPU).
// Example: `XSTORE(f32)(dst, i, xm_sin(XLOAD(f32)(src, i)));`
#ifndef CONCORD_XMATH32_TRIG_GLSL
#define CONCORD_XMATH32_TRIG_GLSL

// 2/pi in binary, 32 bits a word, most significant first (320 bits).
#define XM_TWO_OVER_PI_LIST \
  0xA2F9836Eu, 0x4E441529u, 0xFC2757D1u, 0xF534DDC0u, 0xDB629599u, 0x3C439041u, 0xFE5163ABu, 0xDEBBC561u, \
      0xB7246E3Au, 0x424DD2E0u
// sin's coefficients (9, highest first), then cos's (8), as float64 bits.
#define XM_TRIG_LIST                                                                                     \
  0xbc62f49b46814157ul, 0x3ce952c77030ad4aul, 0xbd6ae7f3e733b81ful, 0x3de6124613a86d09ul,                \
      0xbe5ae64567f544e4ul, 0x3ec71de3a556c734ul, 0xbf2a01a01a01a01aul, 0x3f81111111111111ul,            \
      0xbfc5555555555555ul, 0xbca6827863b97d97ul, 0x3d2ae7f3e733b81ful, 0xbda93974a8c07c9dul,            \
      0x3e21eed8eff8d898ul, 0xbe927e4fb7789f5cul, 0x3efa01a01a01a01aul, 0xbf56c16c16c16c17ul,            \
      0x3fa5555555555555ul
#if XF_BRACES
XF_CONST uint XM_TWO_OVER_PI[10] = {XM_TWO_OVER_PI_LIST};
XF_CONST uint64_t XM_TRIG_COEF[17] = {XM_TRIG_LIST};
#else
XF_CONST uint XM_TWO_OVER_PI[10] = uint[10](XM_TWO_OVER_PI_LIST);
XF_CONST uint64_t XM_TRIG_COEF[17] = uint64_t[17](XM_TRIG_LIST);
#endif
#define XM_PIO2_HI 0x3ff921fb54442d18ul
#define XM_PIO2_LO 0x3c91a62633145c07ul
#define XM_TRIG_ONE 0x3ff0000000000000ul
#define XM_TRIG_HALF 0x3fe0000000000000ul
#define XM_TRIG_2M11 0x3f40000000000000ul  // 2^-11
#define XM_F_PIO4 0x3f490fdbu               // float32(pi/4), rounded up

// x - q pi/2 as a double, and the quadrant q mod 4.
struct XmTrigArg {
  uint64_t r;
  int q;
};

// canon_trig.h's concord_trig_reduce for ax = |x| finite and > float32(pi/4).
XmTrigArg xm_trig_reduce(uint b) {
  const int s = int(b >> 23) - 150;
  const uint64_t m = uint64_t((b & 0x7FFFFFu) | 0x800000u);
  const int j = s >= 2 ? (s - 2) >> 5 : 0;
  const uint64_t t4 = m * uint64_t(XM_TWO_OVER_PI[j + 4]);
  const uint64_t t3 = m * uint64_t(XM_TWO_OVER_PI[j + 3]) + (t4 >> 32);
  const uint64_t t2 = m * uint64_t(XM_TWO_OVER_PI[j + 2]) + (t3 >> 32);
  const uint64_t t1 = m * uint64_t(XM_TWO_OVER_PI[j + 1]) + (t2 >> 32);
  const uint64_t t0 = m * uint64_t(XM_TWO_OVER_PI[j]) + (t1 >> 32);
  const uint64_t p2 = t0;
  const uint64_t p1 = (t1 << 32) | (t2 & 0xFFFFFFFFul);
  const uint64_t p0 = (t3 << 32) | (t4 & 0xFFFFFFFFul);
  const int sh = 32 * (j + 5) - s - 126;  // 1 .. 58
  const uint64_t hi = (p1 >> sh) | (p2 << (64 - sh));
  const uint64_t lo = (p0 >> sh) | (p1 << (64 - sh));
  XmTrigArg a;
  a.q = int(((hi + (1ul << 61)) >> 62) & 3ul);
  uint64_t fh = (hi << 2) | (lo >> 62);
  uint64_t fl = lo << 2;
  const bool neg = (fh >> 63) != 0ul;
  if (neg) {
    fh = ~fh;
    fl = ~fl + 1ul;
    if (fl == 0ul) fh += 1ul;
  }
  const int lz = fh != 0ul ? 63 - xf_msb64(fh) : 127 - xf_msb64(fl);
  uint64_t top;
  if (lz == 0) top = fh;
  else if (lz < 64) top = (fh << lz) | (fl >> (64 - lz));
  else if (lz == 64) top = fl;
  else top = fl << (lz - 64);
  const uint64_t d = xd_add(xd_from_int64(int64_t(top >> 11)),
                            xd_mul(xd_from_int64(int64_t(top & 0x7FFul)), XM_TRIG_2M11));  // one rounding
  const uint64_t f = xd_mul(d, uint64_t(1023 - 53 - lz) << 52);                             // exact
  const uint64_t r = xd_add(xd_mul(f, XM_PIO2_HI), xd_mul(f, XM_PIO2_LO));
  a.r = neg ? xd_neg(r) : r;
  return a;
}

// Horner over XM_TRIG_COEF[first .. first + n] in z.
uint64_t xm_trig_horner(uint64_t z, int first, int n) {
  uint64_t p = XM_TRIG_COEF[first];
  for (int i = 1; i <= n; ++i) p = xd_add(xd_mul(p, z), XM_TRIG_COEF[first + i]);
  return p;
}

// sin(r) = r + (r z) p(z), cos(r) = (1 - z/2) + z^2 p(z), z = r^2.
uint64_t xm_sin_poly(uint64_t r) {
  const uint64_t z = xd_mul(r, r);
  return xd_add(r, xd_mul(xd_mul(r, z), xm_trig_horner(z, 0, 8)));
}
uint64_t xm_cos_poly(uint64_t r) {
  const uint64_t z = xd_mul(r, r);
  return xd_add(xd_sub(XM_TRIG_ONE, xd_mul(XM_TRIG_HALF, z)), xd_mul(xd_mul(z, z), xm_trig_horner(z, 9, 7)));
}

// |x| itself up to float32(pi/4), else the reduction. x finite.
XmTrigArg xm_trig_arg(uint x) {
  const uint ax = x & 0x7FFFFFFFu;
  if (ax <= XM_F_PIO4) {
    XmTrigArg a;
    a.r = xd_from_f32(ax);
    a.q = 0;
    return a;
  }
  return xm_trig_reduce(ax);
}

bool xm_nonfinite(uint x) { return (x & 0x7f800000u) == 0x7f800000u; }

uint xm_sin(uint x) {
  if (xm_nonfinite(x)) return XF_NAN;
  const XmTrigArg a = xm_trig_arg(x);
  uint64_t v = (a.q & 1) != 0 ? xm_cos_poly(a.r) : xm_sin_poly(a.r);
  if ((a.q & 2) != 0) v = xd_neg(v);
  if ((x >> 31) != 0u) v = xd_neg(v);  // sin is odd: -0 keeps its sign
  return xd_to_f32(v);
}

uint xm_cos(uint x) {
  if (xm_nonfinite(x)) return XF_NAN;
  const XmTrigArg a = xm_trig_arg(x);
  uint64_t v = (a.q & 1) != 0 ? xm_sin_poly(a.r) : xm_cos_poly(a.r);
  if (((a.q + 1) & 2) != 0) v = xd_neg(v);  // q = 1, 2: negative
  return xd_to_f32(v);
}

uint xm_tan(uint x) {
  if (xm_nonfinite(x)) return XF_NAN;
  const XmTrigArg a = xm_trig_arg(x);
  const uint64_t s = xm_sin_poly(a.r), c = xm_cos_poly(a.r);
  uint64_t v = (a.q & 1) != 0 ? xd_div(xd_neg(c), s) : xd_div(s, c);
  if ((x >> 31) != 0u) v = xd_neg(v);
  return xd_to_f32(v);
}

#endif
