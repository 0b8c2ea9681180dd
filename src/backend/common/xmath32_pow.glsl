// backend/common/xmath32_pow.glsl — the reproducible mode's float32 pow and atan2
// on float32 BITS, with integer operations only: float64 inside through
// xf64.glsl.
//
//   uint xm_pow(uint x, uint64_t y)   the mode's concord_pow_f32(x, y)
//                                     (backend/common/canon_pow.h): y is a
//                                     float32 operand widened (pow of two
//                                     tensors) or the double exponent of
//                                     pow(tensor, number), as its bits
//   uint xm_atan2(uint y, uint x)     concord_atan2_f32(y, x)
//
// Why: the CPU computes these in double-double / double and rounds once.
// Every double operation and every fma here is an xd_* call in canon_pow.h's
// order (a * b + c is xd_add(xd_mul(a, b), c): the CPU's build does not
// contract; a - b is xd_add(a, -b), bit for bit the same), and every branch
// tests bits, so the result is the CPU's bits whatever the device does with
// subnormals. Every NaN result is XF_NAN (the mode's canonical NaN).
//
// Include after xf32.glsl and xf64.glsl. Also valid C++
// (tests/ops/binary/test_reproducible_vulkan_pow.cpp checks it against the CPU).
// Example: `XSTORE(f32)(dst, i, xm_pow(XLOAD(f32)(a, i), xd_from_f32(XLOAD(f32)(b, i))));`
#ifndef CONCORD_XMATH32_POW_GLSL
#define CONCORD_XMATH32_POW_GLSL

#define XP_ONE 0x3ff0000000000000ul
#define XP_TWO 0x4000000000000000ul
#define XP_HALF 0x3fe0000000000000ul
#define XP_SHIFT 0x4338000000000000ul        // 1.5 * 2^52
#define XP_SQRT2 0x3ff6a09e667f3bcdul        // 0x1.6a09e667f3bcdp+0
#define XP_INVLN2_HI 0x3ff71547652b82feul
#define XP_INVLN2_LO 0x3c7777d0ffda0d24ul
#define XP_LN2_HI 0x3fe62e42fefa39eful
#define XP_LN2_LO 0x3c7abc9e3b39803ful
#define XP_D200 0x4069000000000000ul         // 200
#define XP_D16 0x4030000000000000ul          // 16
#define XP_D0625 0x3fb0000000000000ul        // 0.0625
#define XP_PIO2 0x3ff921fb54442d18ul
#define XP_PI 0x400921fb54442d18ul
#define XP_PIO2_LO 0x3c91a62633145c07ul
#define XP_PI_LO 0x3ca1a62633145c07ul
#define XP_3PIO4 0x4002d97c7f3321d2ul
#define XP_PIO4 0x3fe921fb54442d18ul
#define XP_F_ONE 0x3f800000u

// The polynomials' coefficients, highest degree first, one table walked by
// xp_horner: [0, 11) log2's atanh series 1/23, ..., 1/3; [11, 25) exp's
// Taylor 1/13!, ..., 1/2!, 1, 1; [25, 31) atan's 1/13, -1/11, ..., -1/3
// (p * z - c as p * z + (-c)).
#define XP_COEF_LIST                                                                                   \
  0x3fa642c8590b2164ul, 0x3fa8618618618618ul, 0x3faaf286bca1af28ul, 0x3fae1e1e1e1e1e1eul,              \
      0x3fb1111111111111ul, 0x3fb3b13b13b13b14ul, 0x3fb745d1745d1746ul, 0x3fbc71c71c71c71cul,          \
      0x3fc2492492492492ul, 0x3fc999999999999aul, 0x3fd5555555555555ul, 0x3de6124613a86d09ul,          \
      0x3e21eed8eff8d898ul, 0x3e5ae64567f544e4ul, 0x3e927e4fb7789f5cul, 0x3ec71de3a556c734ul,          \
      0x3efa01a01a01a01aul, 0x3f2a01a01a01a01aul, 0x3f56c16c16c16c17ul, 0x3f81111111111111ul,          \
      0x3fa5555555555555ul, 0x3fc5555555555555ul, 0x3fe0000000000000ul, 0x3ff0000000000000ul,          \
      0x3ff0000000000000ul, 0x3fb3b13b13b13b14ul, 0xbfb745d1745d1746ul, 0x3fbc71c71c71c71cul,          \
      0xbfc2492492492492ul, 0x3fc999999999999aul, 0xbfd5555555555555ul
// atan(k/16) = hi + lo, k = 0..16 (canon_pow.h's concord_atan_hi / _lo).
#define XP_ATAN_HI_LIST                                                                                \
  0x0000000000000000ul, 0x3faff55bb72cfdeaul, 0x3fbfd5ba9aac2f6eul, 0x3fc7b97b4bce5b02ul,              \
      0x3fcf5b75f92c80ddul, 0x3fd362773707ebccul, 0x3fd6f61941e4def1ul, 0x3fda64eec3cc23fdul,          \
      0x3fddac670561bb4ful, 0x3fe0657e94db30d0ul, 0x3fe1e00babdefeb4ul, 0x3fe345f01cce37bbul,          \
      0x3fe4978fa3269ee1ul, 0x3fe5d58987169b18ul, 0x3fe700a7c5784634ul, 0x3fe819d0b7158a4dul,          \
      0x3fe921fb54442d18ul
#define XP_ATAN_LO_LIST                                                                                \
  0x0000000000000000ul, 0xbc3c934d86d23f1dul, 0xbc4cd37686760c17ul, 0x3c5347b0b4f881caul,              \
      0x3c68ab6e3cf7afbdul, 0xbc6963a544b672d8ul, 0xbc7c63aae6f6e918ul, 0xbc724dec1b50b7fful,          \
      0x3c7a2b7f222f65e2ul, 0xbc7d5b495f6349e6ul, 0xbc5928df287a668ful, 0x3c81021137c71102ul,          \
      0x3c72419a87f2a458ul, 0x3c60028e4bc5e7caul, 0xbc78c34d25aadef6ul, 0xbc7bf76229d3b917ul,          \
      0x3c81a62633145c07ul
#if XF_BRACES
XF_CONST uint64_t XP_COEF[31] = {XP_COEF_LIST};
XF_CONST uint64_t XP_ATAN_HI[17] = {XP_ATAN_HI_LIST};
XF_CONST uint64_t XP_ATAN_LO[17] = {XP_ATAN_LO_LIST};
#else
XF_CONST uint64_t XP_COEF[31] = uint64_t[31](XP_COEF_LIST);
XF_CONST uint64_t XP_ATAN_HI[17] = uint64_t[17](XP_ATAN_HI_LIST);
XF_CONST uint64_t XP_ATAN_LO[17] = uint64_t[17](XP_ATAN_LO_LIST);
#endif

// Horner over XP_COEF[first .. first + n]: p = c0, then p = p * x + c_i.
uint64_t xp_horner(uint64_t x, int first, int n) {
  uint64_t p = XP_COEF[first];
  for (int i = 1; i <= n; ++i) p = xd_add(xd_mul(p, x), XP_COEF[first + i]);
  return p;
}

struct XpDD {
  uint64_t hi, lo;
};

// concord_log2_dd: log2(x) = hi + lo for x (float bits) positive finite.
XpDD xp_log2_dd(uint x) {
  const uint64_t b = xd_from_f32(x);  // float subnormals are normal doubles
  int e = int(b >> 52) - 1023;
  uint64_t m = (b & 0x000ffffffffffffful) | XP_ONE;
  if (xd_lt(XP_SQRT2, m)) {
    m = xd_mul(m, XP_HALF);
    e = e + 1;
  }
  const uint64_t a = xd_sub(m, XP_ONE), d = xd_add(m, XP_ONE);
  const uint64_t s = xd_div(a, d);
  const uint64_t s_lo = xd_div(xd_fma(xd_neg(s), d, a), d);
  const uint64_t z = xd_mul(s, s);
  const uint64_t p = xp_horner(z, 0, 10);
  const uint64_t l0 = xd_mul(XP_TWO, s);
  const uint64_t l1 = xd_add(xd_mul(XP_TWO, s_lo), xd_mul(XP_TWO, xd_mul(xd_mul(s, z), p)));
  const uint64_t lh = xd_add(l0, l1);
  const uint64_t ll = xd_sub(l1, xd_sub(lh, l0));
  const uint64_t ph = xd_mul(lh, XP_INVLN2_HI);
  const uint64_t pl = xd_add(xd_fma(lh, XP_INVLN2_HI, xd_neg(ph)),
                             xd_add(xd_mul(ll, XP_INVLN2_HI), xd_mul(lh, XP_INVLN2_LO)));
  const uint64_t ed = xd_from_int64(int64_t(e));  // exact
  XpDD r;
  r.hi = xd_add(ed, ph);
  r.lo = xd_add(xd_sub(ph, xd_sub(r.hi, ed)), pl);
  return r;
}

// concord_exp2_dd: 2^(th + tl), |th| <= 200. k = th rounded to an integer
// by the shift; its integer value is t's low bits (t's ulp is 1).
uint64_t xp_exp2_dd(uint64_t th, uint64_t tl) {
  const uint64_t t = xd_add(th, XP_SHIFT);
  const uint64_t k = xd_sub(t, XP_SHIFT);
  const uint64_t f = xd_add(xd_sub(th, k), tl);
  const uint64_t g = xd_add(xd_mul(f, XP_LN2_HI), xd_mul(f, XP_LN2_LO));
  const uint64_t p = xp_horner(g, 11, 13);
  const int64_t ki = int64_t(t) - int64_t(XP_SHIFT);
  return xd_mul(p, uint64_t(ki + 1023l) << 52);  // exact: 2^k is a normal double
}

// concord_pow_int_kind: 2 odd integer, 1 even integer, 0 not an integer (inf, NaN).
int xp_int_kind(uint64_t b) {
  const int e = int((b >> 52) & 0x7fful) - 1023;
  if (e == 1024) return 0;
  if (e >= 53) return 1;
  if (e < 0) return (b << 1) == 0ul ? 1 : 0;
  const uint64_t sig = (b & 0x000ffffffffffffful) | 0x0010000000000000ul;
  const int fb = 52 - e;
  if (fb > 0 && (sig & ((1ul << fb) - 1ul)) != 0ul) return 0;
  return ((sig >> fb) & 1ul) != 0ul ? 2 : 1;
}

// pow(x, y), C99 Annex F's special cases first, in canon_pow.h's order.
uint xm_pow(uint x, uint64_t y) {
  if (xd_iszero(y) || x == XP_F_ONE) return XP_F_ONE;  // even for NaN
  if (xf_isnan(x) || xd_isnan(y)) return XF_NAN;
  const int kind = xp_int_kind(y);
  const bool xneg = (x >> 31) != 0u;
  const uint ax = x & 0x7fffffffu;
  const bool negate = xneg && kind == 2;  // (-1)^y = -1
  if (xd_isinf(y)) {
    if (ax == XP_F_ONE) return XP_F_ONE;
    return (ax < XP_F_ONE) == !xd_sign(y) ? 0u : XF_INF;
  }
  if (ax == 0u || ax == XF_INF) {  // a power of 0 or of inf, signed for odd y
    const bool big = (ax == 0u) == xd_sign(y);
    const uint v = big ? XF_INF : 0u;
    return negate ? v | XF_SIGN : v;
  }
  if (xneg && kind == 0) return XF_NAN;
  const XpDD l = xp_log2_dd(ax);
  const uint64_t th = xd_mul(y, l.hi);
  uint64_t v;
  if (!(xd_le(th, XP_D200) && xd_le(XP_D200 | XD_SIGN, th))) {
    v = xd_lt(0ul, th) ? XD_INF : 0ul;  // beyond float's range by far
  } else {
    const uint64_t tl = xd_add(xd_fma(y, l.hi, xd_neg(th)), xd_mul(y, l.lo));
    v = xp_exp2_dd(th, tl);
  }
  return xd_to_f32(negate ? xd_neg(v) : v);
}

// (int)a for a double 0 <= a < 2^31 (truncation, on the bits).
int xp_trunc_int(uint64_t a) {
  const int e = int((a >> 52) & 0x7fful) - 1023;
  if (e < 0) return 0;
  return int(((a & 0x000ffffffffffffful) | 0x0010000000000000ul) >> (52 - e));
}

// concord_atan01: atan(a), 0 <= a <= 1, by the nearest k/16 and a series.
uint64_t xp_atan01(uint64_t a) {
  const int k = xp_trunc_int(xd_add(xd_mul(a, XP_D16), XP_HALF));
  const uint64_t c = xd_mul(xd_from_int64(int64_t(k)), XP_D0625);
  const uint64_t u = xd_div(xd_sub(a, c), xd_add(XP_ONE, xd_mul(a, c)));
  const uint64_t z = xd_mul(u, u);
  const uint64_t p = xp_horner(z, 25, 5);
  return xd_add(XP_ATAN_HI[k], xd_add(XP_ATAN_LO[k], xd_add(u, xd_mul(xd_mul(u, z), p))));
}

// atan2(y, x): the octant's pi/2 or pi plus atan of the smaller over the larger.
uint xm_atan2(uint y, uint x) {
  if (xf_isnan(x) || xf_isnan(y)) return XF_NAN;
  const bool yneg = (y >> 31) != 0u, xneg = (x >> 31) != 0u;
  const uint ay = y & 0x7fffffffu, ax = x & 0x7fffffffu;  // nonnegative: ordered as integers
  uint64_t r;
  if (ay == 0u) r = xneg ? XP_PI : 0ul;
  else if (ax == 0u) r = XP_PIO2;
  else if (ax == XF_INF && ay == XF_INF) r = xneg ? XP_3PIO4 : XP_PIO4;
  else if (ax == XF_INF) r = xneg ? XP_PI : 0ul;
  else if (ay == XF_INF) r = XP_PIO2;
  else if (ay <= ax) {
    const uint64_t t = xp_atan01(xd_div(xd_from_f32(ay), xd_from_f32(ax)));
    r = xneg ? xd_add(xd_sub(XP_PI, t), XP_PI_LO) : t;
  } else {
    const uint64_t t = xp_atan01(xd_div(xd_from_f32(ax), xd_from_f32(ay)));
    r = xneg ? xd_add(xd_add(XP_PIO2, t), XP_PIO2_LO) : xd_add(xd_sub(XP_PIO2, t), XP_PIO2_LO);
  }
  return xd_to_f32(yneg ? xd_neg(r) : r);
}

#endif
