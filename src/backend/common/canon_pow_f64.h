/* float64 pow and atan2 of the reproducible mode, written once for the CPU
 * (C++) and OpenCL C (canon_base.h's subset). It comes after canon_f64.h,
 * canon_f64_log.h and canon_pow.h in file-name order and reuses their
 * double-double exp, the two-sum, the integer test of pow's exponent and the
 * atan(k/16) table.
 *
 *   double concord_pow_f64(double x, double y)     x to the power y
 *   double concord_atan2_f64(double y, double x)   the angle of (x, y)
 *
 * Contract: within 1 ULP of the true value (measured against long double
 * powl / atan2l over 5M pairs: pow 0.510 ULP on normal results, 0.748 on
 * subnormal ones, which are rounded twice; atan2 0.501 ULP),
 * the same bits on the CPU and on an OpenCL device with float64. Special
 * values are the C library's (C99 Annex F):
 *   pow(x, ±0) = 1 and pow(1, y) = 1, even for NaN; otherwise NaN in, NaN out;
 *   pow(-1, ±inf) = 1; pow(x, ±inf) = +0 or +inf by |x| < 1 and the sign of y;
 *   pow(±0, y): y < 0 gives ±inf for odd integers y, else +inf; y > 0 gives ±0
 *   for odd integers, else +0; pow(±inf, y) likewise with the roles swapped;
 *   x < 0 finite: (-1)^y |x|^y for integer y, NaN for non-integer y; results
 *   past the range overflow to ±inf and underflow to ±0 (subnormals between).
 *   atan2(±0, +0) = ±0, atan2(±0, -0) = ±pi, atan2(±0, x<0) = ±pi, atan2(±0,
 *   x>0) = ±0, atan2(y≠0, ±0) = ±pi/2, atan2(±inf, +inf) = ±pi/4, atan2(±inf,
 *   -inf) = ±3pi/4, atan2(y, +inf) = ±0 and atan2(y, -inf) = ±pi for finite
 *   y, atan2(±inf, finite x) = ±pi/2.
 * Example (C++): concord_pow_f64(-2.0, 3.0) == -8.0; concord_pow_f64(-8.0, 1.0 / 3) is NaN.
 *
 * pow: e^(y ln|x|). |y ln|x|| reaches 745 before the result leaves the range,
 * so ln|x| must be good to about 2^-70 relative (53 bits of the result, 10 of
 * the exponent, guard bits): ln|x| = k ln2 + 2 atanh(s), s = f / (2 + f),
 * f = m - 1, m in [sqrt(1/2), sqrt 2), with s, s^2, s^3 and the series' first
 * two coefficients (2/3, 2/5) in double-double and the rest (to s^27, the
 * truncation below 2^-72) in double, whose rounding is then below 2^-70 of
 * the whole. t = y ln|x| = th + tl by an fma; e^th from canon_f64.h's
 * double-double exp (about 2^-59), times 1 + tl, rounded once and scaled by
 * 2^k. Exact powers (pow(3, 2), pow(4, 0.5)) stay exact.
 * atan2: the smaller of |x|, |y| over the larger as a double-double quotient
 * a, atan(a) = atan(k/16) + atan(u), u = (a - k/16) / (1 + a k/16) in
 * double-double, |u| <= 1/32, the series to u^13; then pi - t, pi/2 ± t with
 * pi and pi/2 in two parts, everything summed in double-double and rounded
 * once. Where the quotient's remainder would be inexact (operands or quotient
 * near the subnormals) a is below 2^-69 and atan(a) is the rounded quotient.
 */
#ifndef CONCORD_CANON_POW_F64_H
#define CONCORD_CANON_POW_F64_H

#ifndef __OPENCL_VERSION__
#include "backend/common/canon_f64_log.h"
#include "backend/common/canon_pow.h"
#endif

#if CONCORD_CANON_F64

/* p + e = a * b exactly. */
static inline double concord_f64_two_prod(double a, double b, double* e) {
  CONCORD_NO_CONTRACT
  const double p = a * b;
  *e = CONCORD_FMA_F64(a, b, -p);
  return p;
}

/* ln x = hi + lo for finite x > 0, |hi + lo - ln x| < 2^-70 |ln x|. */
static inline double concord_f64_log_hp(double x, double* lo) {
  CONCORD_NO_CONTRACT
  int k = 0;
  if (x < 0x1p-1022) {                         /* subnormal: make it normal */
    x = x * 0x1p54;
    k = -54;
  }
  const concord_u64 bits = concord_f64_bits(x);
  const concord_u64 mant = bits & 0x000fffffffffffffUL;
  const concord_u64 big = mant > 0x6a09e667f3bcdUL ? 1 : 0; /* m >= sqrt 2 moves to m / 2 */
  k += (int)((bits >> 52) & 0x7ff) - 1023 + (int)big;
  const double f = concord_bits_f64(mant | ((1023 - big) << 52)) - 1.0; /* exact (Sterbenz) */
  /* s = f / (2 + f) = sh + sl, |s| <= 0.1716 */
  const double dh = 2.0 + f;                   /* fast two-sum: |2| >= |f| */
  const double dl = f - (dh - 2.0);
  const double sh = f / dh;
  const double sl = (CONCORD_FMA_F64(-sh, dh, f) - sh * dl) / dh;
  /* z = s^2 = zh + zl, s^3 = ch + cl */
  double zl, cl;
  const double zh = concord_f64_two_prod(sh, sh, &zl);
  zl = zl + 2.0 * sh * sl;
  const double ch = concord_f64_two_prod(sh, zh, &cl);
  cl = cl + (sh * zl + sl * zh);
  /* R(z) = 2/7 + 2/9 z + ... + 2/27 z^10 in double */
  double r = zh * 0x1.2f684bda12f68p-4 + 0x1.47ae147ae147bp-4; /* 2/27, 2/25 */
  r = r * zh + 0x1.642c8590b2164p-4;                          /* 2/23 */
  r = r * zh + 0x1.8618618618618p-4;                          /* 2/21 */
  r = r * zh + 0x1.af286bca1af28p-4;                          /* 2/19 */
  r = r * zh + 0x1.e1e1e1e1e1e1ep-4;                          /* 2/17 */
  r = r * zh + 0x1.1111111111111p-3;                          /* 2/15 */
  r = r * zh + 0x1.3b13b13b13b14p-3;                          /* 2/13 */
  r = r * zh + 0x1.745d1745d1746p-3;                          /* 2/11 */
  r = r * zh + 0x1.c71c71c71c71cp-3;                          /* 2/9 */
  r = r * zh + 0x1.2492492492492p-2;                          /* 2/7 */
  /* w = 2/5 + z R and q = 2/3 + z w in double-double */
  double e;
  const double wh = concord_f64_two_sum(0x1.999999999999ap-2, zh * r, &e);
  const double wl = e + (-0x1.999999999999ap-56 + zl * r);
  double pl;
  const double ph = concord_f64_two_prod(zh, wh, &pl);
  pl = pl + (zh * wl + zl * wh);
  const double qh = concord_f64_two_sum(0x1.5555555555555p-1, ph, &e);
  const double ql = e + (0x1.5555555555555p-55 + pl);
  /* T = s^3 q; ln m = 2 s + T */
  double tl;
  const double th = concord_f64_two_prod(ch, qh, &tl);
  tl = tl + (ch * ql + cl * qh);
  const double h = concord_f64_two_sum(sh + sh, th, &e);
  const double l = e + (sl + sl + tl);
  /* plus k ln2: k LN2HI is exact, k LN2LO's rounding is below 2^-76 */
  const double kd = (double)k;
  const double s = concord_f64_two_sum(kd * CONCORD_F64_LN2HI, h, &e);
  const double t = e + (l + kd * CONCORD_F64_LN2LO);
  const double hi = s + t;                     /* fast two-sum: |s| >= |t| */
  *lo = t - (hi - s);
  return hi;
}

static inline double concord_pow_f64(double x, double y) {
  CONCORD_NO_CONTRACT
  if (y == 0.0 || x == 1.0) return 1.0;
  if (x != x || y != y) return x + y;
  const int kind = concord_pow_int_kind(concord_f64_bits(y));
  const int xneg = (int)(concord_f64_bits(x) >> 63);
  const double ax = xneg ? -x : x;
  const double inf = concord_bits_f64(0x7FF0000000000000UL);
  if (y - y != 0.0) { /* y = ±inf */
    if (ax == 1.0) return 1.0;
    return (ax < 1.0) == (y > 0.0) ? 0.0 : inf;
  }
  double v;
  if (ax == 0.0 || ax == inf) { /* a power of 0 or of inf, signed for odd y */
    v = (ax == 0.0) == (y < 0.0) ? inf : 0.0;
  } else if (xneg && kind == 0) {
    return (x - x) / (x - x); /* NaN: 0/0 */
  } else {
    double ll, tl, hi, lo;
    const double lh = concord_f64_log_hp(ax, &ll);
    const double th = y * lh;
    if (th > 709.79) {
      v = inf;
    } else if (!(th >= -745.2)) {
      v = 0.0;
    } else {
      tl = CONCORD_FMA_F64(y, lh, -th) + y * ll;
      /* e^(th + tl) = 2^k (hi + lo) (1 + tl), tl^2 below 2^-86 */
      const int k = concord_f64_exp_dd(th, &hi, &lo);
      v = concord_f64_scale(hi + (lo + hi * tl), k);
    }
  }
  return (xneg && kind == 2) ? -v : v;
}

/* atan(ah + al) = hi + lo for 0 <= ah <= 1, |al| <= ulp(ah): the table's
 * atan(k/16) (canon_pow.h) plus atan(u), u = (a - c) / (1 + a c), c = k/16
 * the nearest, ah - c exact (Sterbenz, or c = 0), |u| <= 1/32. */
static inline double concord_f64_atan01_dd(double ah, double al, double* lo) {
  CONCORD_NO_CONTRACT
  const int k = (int)(ah * 16.0 + 0.5);
  const double c = (double)k * 0.0625;
  const double nh = ah - c;
  double pe, e;
  const double p = concord_f64_two_prod(ah, c, &pe);
  const double dh = concord_f64_two_sum(1.0, p, &e);
  const double dl = e + (pe + al * c);
  const double uh = nh / dh;
  const double ul = ((CONCORD_FMA_F64(-uh, dh, nh) + al) - uh * dl) / dh;
  const double z = uh * uh;
  double q = 0x1.3b13b13b13b14p-4;             /* 1/13: u^15/15 < 2^-70 u */
  q = q * z - 0x1.745d1745d1746p-4;            /* 1/11 */
  q = q * z + 0x1.c71c71c71c71cp-4;            /* 1/9 */
  q = q * z - 0x1.2492492492492p-3;            /* 1/7 */
  q = q * z + 0x1.999999999999ap-3;            /* 1/5 */
  q = q * z - 0x1.5555555555555p-2;            /* 1/3 */
  const double h = concord_f64_two_sum(concord_bits_f64(concord_atan_hi[k]), uh, &e);
  const double l = e + (concord_bits_f64(concord_atan_lo[k]) + (ul + (uh * z) * q));
  const double hi = h + l;                     /* fast two-sum: |h| >= |l| */
  *lo = l - (hi - h);
  return hi;
}

/* (ah + bh) + (al + bl) rounded once. */
static inline double concord_f64_dd_add(double ah, double al, double bh, double bl) {
  CONCORD_NO_CONTRACT
  double e;
  const double s = concord_f64_two_sum(ah, bh, &e);
  return s + (e + (al + bl));
}

static inline double concord_atan2_f64(double y, double x) {
  CONCORD_NO_CONTRACT
  if (x != x || y != y) return x + y;
  const double pio2 = 0x1.921fb54442d18p+0, pio2_lo = 0x1.1a62633145c07p-54;
  const double pi = 0x1.921fb54442d18p+1, pi_lo = 0x1.1a62633145c07p-53;
  const int yneg = (int)(concord_f64_bits(y) >> 63), xneg = (int)(concord_f64_bits(x) >> 63);
  const double ay = yneg ? -y : y, ax = xneg ? -x : x;
  const double inf = concord_bits_f64(0x7FF0000000000000UL);
  double r;
  if (ay == 0.0) r = xneg ? pi : 0.0;
  else if (ax == 0.0) r = pio2;
  else if (ax == inf && ay == inf) r = xneg ? 0x1.2d97c7f3321d2p+1 : 0x1.921fb54442d18p-1;
  else if (ax == inf) r = xneg ? pi : 0.0;
  else if (ay == inf) r = pio2;
  else {
    /* a = min / max as ah + al: the quotient and its fma remainder */
    double num = ay <= ax ? ay : ax, den = ay <= ax ? ax : ay;
    if (den < 0x1p-900) {                      /* both tiny: scale up (exact), so the */
      num = num * 0x1p600;                     /* remainder below is exact too */
      den = den * 0x1p600;
    }
    const double ah = num / den;
    double th, tl = 0.0;
    if (num < 0x1p-969 || ah < 0x1p-969) {     /* the remainder could be inexact or subnormal; */
      th = ah;                                 /* den >= 2^-900, so a < 2^-69: atan(a) = a to 2^-138 */
    } else {
      const double al = CONCORD_FMA_F64(-ah, den, num) / den;
      th = concord_f64_atan01_dd(ah, al, &tl);
    }
    if (ay <= ax) r = xneg ? concord_f64_dd_add(pi, pi_lo, -th, -tl) : th;
    else r = concord_f64_dd_add(pio2, pio2_lo, xneg ? th : -th, xneg ? tl : -tl);
  }
  return yneg ? -r : r;
}

#endif /* CONCORD_CANON_F64 */
#endif /* CONCORD_CANON_POW_F64_H */
