/* float32 pow and atan2 with the same bits on every device (the reproducible
 * mode, issue 18); float16 and bfloat16 go through float32.
 *
 * Compiled as C++ (cpu/binary.cpp and cpu/unary.cpp, in the mode) and as
 * OpenCL C 1.2 (prepended to every program; elementwise.cl and pow.cl use it
 * where the device has float64), so it keeps to canon_base.h's subset.
 *
 *   float concord_pow_f32(float x, double y)     pow(x, y) rounded once to
 *       float; y is a float32 operand widened (pow of two tensors) or the full
 *       double exponent of pow(tensor, number). |error| < 0.5 ULP + 2^-20 ULP.
 *   float concord_atan2_f32(float y, float x)    atan2(y, x), likewise.
 *
 * pow: log2|x| in double-double from (m-1)/(m+1) (relative error < 2^-57),
 * t = y log2|x| in double-double (fma), 2^t by a Taylor polynomial on
 * |frac| <= 1/2 and an exact power-of-two scale; the result is a double with
 * relative error < 2^-50 rounded once, so exact powers (pow(3, 2) = 9) stay
 * exact. Special cases are C99's (Annex F), which the C library gives:
 *   pow(x, ±0) = 1 and pow(1, y) = 1, even for NaN; otherwise NaN in, NaN out;
 *   pow(-1, ±inf) = 1; pow(x, ±inf) = +0 or +inf by |x| < 1 and the sign of y;
 *   pow(±0, y): y < 0 gives ±inf for odd integers y, else +inf; y > 0 gives ±0
 *   for odd integers, else +0; pow(±inf, y) likewise with the roles swapped;
 *   x < 0 finite: (-1)^y |x|^y for integer y, NaN for non-integer y.
 * atan2: the smaller of |x|, |y| over the larger, atan of it by a table of
 * atan(k/16) and a degree-13 series, then the octant's pi/2 or pi added in
 * double. atan2(±0, +0) = ±0, atan2(±0, -0) = ±pi, atan2(±0, x<0) = ±pi,
 * atan2(y≠0, ±0) = ±pi/2, atan2(±inf, ±inf) = ±pi/4 or ±3pi/4, atan2(y, +inf)
 * = ±0, atan2(y, -inf) = ±pi for finite y; NaN in, NaN out.
 * Example (C++): concord_pow_f32(-8.0f, 1.0 / 3) is NaN; concord_pow_f32(-2.0f, 3.0) == -8.0f.
 */
#ifndef CONCORD_CANON_POW_H
#define CONCORD_CANON_POW_H

#ifndef __OPENCL_VERSION__
#include "backend/common/canon_base.h"
#endif

#if CONCORD_CANON_F64

#define CONCORD_POW_INVLN2_HI 0x1.71547652b82fep+0
#define CONCORD_POW_INVLN2_LO 0x1.777d0ffda0d24p-56
#define CONCORD_POW_LN2_HI 0x1.62e42fefa39efp-1
#define CONCORD_POW_LN2_LO 0x1.abc9e3b39803fp-56

typedef struct {
  double hi, lo;
} concord_dd;

/* log2(x) = hi + lo for a positive finite float x. x = 2^e m, m in
 * [sqrt(1/2), sqrt(2)]; ln m = 2 atanh(s), s = (m-1)/(m+1) (m-1 and m+1 are
 * exact, s's rounding error is recovered with an fma), so only the series
 * tail 2 s^3 (1/3 + s^2/5 + ...), about 1% of ln m, carries rounding error. */
static inline concord_dd concord_log2_dd(float x) {
  CONCORD_NO_CONTRACT
  const concord_u64 b = concord_f64_bits((double)x); /* float subnormals are normal doubles */
  int e = (int)(b >> 52) - 1023;
  double m = concord_bits_f64((b & 0x000FFFFFFFFFFFFFul) | 0x3FF0000000000000ul);
  if (m > 0x1.6a09e667f3bcdp+0) {
    m = m * 0.5;
    e = e + 1;
  }
  const double a = m - 1.0, d = m + 1.0;
  const double s = a / d;
  const double s_lo = CONCORD_FMA_F64(-s, d, a) / d;
  const double z = s * s;
  double p = 0x1.642c8590b2164p-5;
  p = p * z + 0x1.8618618618618p-5;
  p = p * z + 0x1.af286bca1af28p-5;
  p = p * z + 0x1.e1e1e1e1e1e1ep-5;
  p = p * z + 0x1.1111111111111p-4;
  p = p * z + 0x1.3b13b13b13b14p-4;
  p = p * z + 0x1.745d1745d1746p-4;
  p = p * z + 0x1.c71c71c71c71cp-4;
  p = p * z + 0x1.2492492492492p-3;
  p = p * z + 0x1.999999999999ap-3;
  p = p * z + 0x1.5555555555555p-2;
  /* ln m = 2s + (2 s_lo + 2 s z p), |second| << |first| */
  const double l0 = 2.0 * s, l1 = 2.0 * s_lo + 2.0 * ((s * z) * p);
  const double lh = l0 + l1, ll = l1 - (lh - l0);
  /* times 1/ln 2 in double-double */
  const double ph = lh * CONCORD_POW_INVLN2_HI;
  const double pl = CONCORD_FMA_F64(lh, CONCORD_POW_INVLN2_HI, -ph) + (ll * CONCORD_POW_INVLN2_HI + lh * CONCORD_POW_INVLN2_LO);
  /* plus e: |e| >= 1 > |ph| unless e = 0, so the fast two-sum is exact */
  concord_dd r;
  const double ed = (double)e;
  r.hi = ed + ph;
  r.lo = (ph - (r.hi - ed)) + pl;
  return r;
}

/* 2^(th + tl) as a double, |th| <= 200, |tl| <= 2^-40 |th| (plus 2^-60). */
static inline double concord_exp2_dd(double th, double tl) {
  CONCORD_NO_CONTRACT
  const double k = (th + 0x1.8p52) - 0x1.8p52; /* nearest integer */
  const double f = (th - k) + tl;               /* th - k is exact */
  const double g = f * CONCORD_POW_LN2_HI + f * CONCORD_POW_LN2_LO;
  double p = 0x1.6124613a86d09p-33; /* 1/13!: Taylor of e^g, |g| <= 0.35, truncation < 2^-60 */
  p = p * g + 0x1.1eed8eff8d898p-29;
  p = p * g + 0x1.ae64567f544e4p-26;
  p = p * g + 0x1.27e4fb7789f5cp-22;
  p = p * g + 0x1.71de3a556c734p-19;
  p = p * g + 0x1.a01a01a01a01ap-16;
  p = p * g + 0x1.a01a01a01a01ap-13;
  p = p * g + 0x1.6c16c16c16c17p-10;
  p = p * g + 0x1.1111111111111p-7;
  p = p * g + 0x1.5555555555555p-5;
  p = p * g + 0x1.5555555555555p-3;
  p = p * g + 0.5;
  p = p * g + 1.0;
  p = p * g + 1.0;
  const concord_i64 ki = (concord_i64)k;
  return p * concord_bits_f64((concord_u64)(ki + 1023) << 52); /* exact: 2^k is a normal double */
}

/* 2 if y is an odd integer, 1 if an even integer, 0 if not an integer (or inf/NaN). */
static inline int concord_pow_int_kind(double y) {
  const concord_u64 b = concord_f64_bits(y);
  const int e = (int)((b >> 52) & 0x7FF) - 1023;
  if (e == 1024) return 0;               /* inf, NaN */
  if (e >= 53) return 1;                 /* every bit is above the binary point: even */
  if (e < 0) return (b << 1) == 0 ? 1 : 0; /* ±0 is even; 0 < |y| < 1 is not an integer */
  const concord_u64 sig = (b & 0x000FFFFFFFFFFFFFul) | 0x0010000000000000ul;
  const int fb = 52 - e;                 /* fraction bits */
  if (fb > 0 && (sig & ((((concord_u64)1) << fb) - 1u)) != 0) return 0;
  return ((sig >> fb) & 1u) ? 2 : 1;
}

static inline float concord_pow_f32(float x, double y) {
  CONCORD_NO_CONTRACT
  const double xd = (double)x;
  if (y == 0.0 || xd == 1.0) return 1.0f;
  if (xd != xd || y != y) return (float)(xd + y);
  const int kind = concord_pow_int_kind(y);
  const int xneg = (int)(concord_f32_bits(x) >> 31);
  const double ax = xneg ? -xd : xd;
  const double inf = concord_bits_f64(0x7FF0000000000000ul);
  if (y - y != 0.0) { /* y = ±inf */
    if (ax == 1.0) return 1.0f;
    return (ax < 1.0) == (y > 0.0) ? 0.0f : (float)inf;
  }
  if (ax == 0.0 || ax == inf) { /* ±0 and ±inf: a power of 0 or of inf, signed for odd y */
    const int big = (ax == 0.0) == (y < 0.0);
    const double v = big ? inf : 0.0;
    return (float)((xneg && kind == 2) ? -v : v);
  }
  if (xneg && kind == 0) return (float)((xd - xd) / (xd - xd)); /* NaN: 0/0 */
  const concord_dd l = concord_log2_dd((float)ax);
  const double th = y * l.hi;
  double v;
  if (!(th <= 200.0 && th >= -200.0)) {
    v = th > 0.0 ? inf : 0.0; /* beyond float's range by far (|t| >= 200) */
  } else {
    const double tl = CONCORD_FMA_F64(y, l.hi, -th) + y * l.lo;
    v = concord_exp2_dd(th, tl);
  }
  return (float)((xneg && kind == 2) ? -v : v);
}

/* atan(k/16) = hi + lo, k = 0..16 */
CONCORD_TABLE double concord_atan_hi[17] = {
    0.0, 0x1.ff55bb72cfdeap-5, 0x1.fd5ba9aac2f6ep-4, 0x1.7b97b4bce5b02p-3, 0x1.f5b75f92c80ddp-3,
    0x1.362773707ebccp-2, 0x1.6f61941e4def1p-2, 0x1.a64eec3cc23fdp-2, 0x1.dac670561bb4fp-2,
    0x1.0657e94db30d0p-1, 0x1.1e00babdefeb4p-1, 0x1.345f01cce37bbp-1, 0x1.4978fa3269ee1p-1,
    0x1.5d58987169b18p-1, 0x1.700a7c5784634p-1, 0x1.819d0b7158a4dp-1, 0x1.921fb54442d18p-1};
CONCORD_TABLE double concord_atan_lo[17] = {
    0.0, -0x1.c934d86d23f1dp-60, -0x1.cd37686760c17p-59, 0x1.347b0b4f881cap-58, 0x1.8ab6e3cf7afbdp-57,
    -0x1.963a544b672d8p-57, -0x1.c63aae6f6e918p-56, -0x1.24dec1b50b7ffp-56, 0x1.a2b7f222f65e2p-56,
    -0x1.d5b495f6349e6p-56, -0x1.928df287a668fp-58, 0x1.1021137c71102p-55, 0x1.2419a87f2a458p-56,
    0x1.0028e4bc5e7cap-57, -0x1.8c34d25aadef6p-56, -0x1.bf76229d3b917p-56, 0x1.1a62633145c07p-55};

/* atan(a) for 0 <= a <= 1: atan(c) + atan((a - c) / (1 + a c)), c = k/16 the
 * nearest; a - c is exact (Sterbenz, or c = 0), |u| <= 1/32. */
static inline double concord_atan01(double a) {
  CONCORD_NO_CONTRACT
  const int k = (int)(a * 16.0 + 0.5);
  const double c = (double)k * 0.0625;
  const double u = (a - c) / (1.0 + a * c);
  const double z = u * u;
  double p = 0x1.3b13b13b13b14p-4;
  p = p * z - 0x1.745d1745d1746p-4;
  p = p * z + 0x1.c71c71c71c71cp-4;
  p = p * z - 0x1.2492492492492p-3;
  p = p * z + 0x1.999999999999ap-3;
  p = p * z - 0x1.5555555555555p-2;
  return concord_atan_hi[k] + (concord_atan_lo[k] + (u + (u * z) * p));
}

static inline float concord_atan2_f32(float y, float x) {
  CONCORD_NO_CONTRACT
  const double yd = (double)y, xd = (double)x;
  if (xd != xd || yd != yd) return (float)(xd + yd);
  const double pio2 = 0x1.921fb54442d18p+0, pi = 0x1.921fb54442d18p+1;
  const double pio2_lo = 0x1.1a62633145c07p-54, pi_lo = 0x1.1a62633145c07p-53;
  const int yneg = (int)(concord_f32_bits(y) >> 31), xneg = (int)(concord_f32_bits(x) >> 31);
  const double ay = yneg ? -yd : yd, ax = xneg ? -xd : xd;
  const double inf = concord_bits_f64(0x7FF0000000000000ul);
  double r;
  if (ay == 0.0) r = xneg ? pi : 0.0;
  else if (ax == 0.0) r = pio2;
  else if (ax == inf && ay == inf) r = xneg ? 0x1.2d97c7f3321d2p+1 : 0x1.921fb54442d18p-1;
  else if (ax == inf) r = xneg ? pi : 0.0;
  else if (ay == inf) r = pio2;
  else if (ay <= ax) {
    const double t = concord_atan01(ay / ax);
    r = xneg ? (pi - t) + pi_lo : t;
  } else {
    const double t = concord_atan01(ax / ay);
    r = xneg ? (pio2 + t) + pio2_lo : (pio2 - t) + pio2_lo;
  }
  return (float)(yneg ? -r : r);
}

#endif /* CONCORD_CANON_F64 */

#endif /* CONCORD_CANON_POW_H */
