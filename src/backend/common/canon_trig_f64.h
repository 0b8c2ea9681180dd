/* float64 sin, cos and tan of the reproducible mode, written once for the CPU
 * (C++) and OpenCL C (see canon_base.h for the portable subset; canon_trig.h
 * holds the float32 ones).
 *
 *   double concord_sin_f64(double x)    sin(x)
 *   double concord_cos_f64(double x)    cos(x)
 *   double concord_tan_f64(double x)    tan(x)
 *
 * Contract: within 1 ULP of the true value for every double, with only
 * + - * /, fma and integer operations, so the CPU and an OpenCL device with
 * float64 give the same bits. Measured maxima against long double over 21M
 * arguments (bit patterns on every exponent, the doubles nearest k pi/2):
 * sin 0.515, cos 0.513, tan 0.523 ULP; at the known worst case of the
 * reduction, 0x1.6ac5b262ca1ffp+849 (about 2^-61 from a multiple of pi/2),
 * all three are correctly rounded (checked with mpmath).
 * Special values are the C library's: sin/tan(+-0) = +-0, cos(+-0) = 1,
 * +-inf and NaN give NaN, |x| < 2^-27 gives x for sin and tan and 1 for cos.
 * Example (C++): concord_sin_f64(1e300) == -0.8178819121159085 (as sin()).
 *
 * Method: r = x - q pi/2 with |r| <= pi/4 as a double-double rh + rl. Below
 * 2^20 Cody-Waite with pi/2 in three doubles (the first step an exact fma,
 * the products' errors caught by fma); above, Payne-Hanek: the 53-bit
 * significand times a 224-bit window of 2/pi in integer arithmetic, of which
 * 2 integer and 190 fraction bits are kept (the closest double to a multiple
 * of pi/2 is about 2^-61 away, so >= 128 significant bits remain). Then
 * sin(r) = r - r^3/6 + r^5 P(r^2) and cos(r) = 1 - r^2/2 + r^4/24 + r^6 Q(r^2):
 * the named terms in double-double, the Taylor tails P, Q (to r^19, r^18) in
 * double, every result a double-double good to about 2^-60 relative, rounded
 * once; tan = sin / cos as a double-double quotient (fma remainder).
 */
#ifndef CONCORD_CANON_TRIG_F64_H
#define CONCORD_CANON_TRIG_F64_H

#ifndef __OPENCL_VERSION__
#include "backend/common/canon_base.h"
#endif

#if CONCORD_CANON_F64

/* 2/pi in binary after two zero words (so the window may start before the
 * binary point), 32 bits a word, most significant first: 1184 bits, enough
 * for the largest exponent (1023). */
CONCORD_TABLE concord_u32 concord_two_over_pi_f64[39] = {
    0x00000000u, 0x00000000u, 0xA2F9836Eu, 0x4E441529u, 0xFC2757D1u, 0xF534DDC0u,
    0xDB629599u, 0x3C439041u, 0xFE5163ABu, 0xDEBBC561u, 0xB7246E3Au, 0x424DD2E0u,
    0x06492EEAu, 0x09D1921Cu, 0xFE1DEB1Cu, 0xB129A73Eu, 0xE88235F5u, 0x2EBB4484u,
    0xE99C7026u, 0xB45F7E41u, 0x3991D639u, 0x835339F4u, 0x9C845F8Bu, 0xBDF9283Bu,
    0x1FF897FFu, 0xDE05980Fu, 0xEF2F118Bu, 0x5A0A6D1Fu, 0x6D367ECFu, 0x27CB09B7u,
    0x4F463F66u, 0x9E5FEA2Du, 0x7527BAC7u, 0xEBE5F17Bu, 0x3D0739F7u, 0x8A5292EAu,
    0x6BFB5FB1u, 0x1F8D5D08u, 0x56033046u};

/* pi/2 = P1 + P2 + P3 + O(2^-161); 2/pi rounded */
#define CONCORD_TRIG64_P1 0x1.921fb54442d18p+0
#define CONCORD_TRIG64_P2 0x1.1a62633145c07p-54
#define CONCORD_TRIG64_P3 -0x1.f1976b7ed8fbcp-110
#define CONCORD_TRIG64_INV 0x1.45f306dc9c883p-1

/* s + e = a + b exactly (two-sum). */
static inline double concord_trig64_two_sum(double a, double b, double* e) {
  CONCORD_NO_CONTRACT
  const double s = a + b;
  const double bb = s - a;
  *e = (a - (s - bb)) + (b - bb);
  return s;
}

/* ax = |x| in [pi/4, 2^20): q = round(ax 2/pi) (an integer below 2^20),
 * ax - q P1 is exact (a multiple of 2^-53 below 1), q P2 is split exactly by
 * fma, and q P3 (< 2^-86) rounds by < 2^-139: r is good to 2^-138 absolute. */
static inline int concord_trig64_cody_waite(double ax, double* rh, double* rl) {
  CONCORD_NO_CONTRACT
  const double kd = (ax * CONCORD_TRIG64_INV + 0x1.8p52) - 0x1.8p52;
  const double t = CONCORD_FMA_F64(-kd, CONCORD_TRIG64_P1, ax);
  const double ph = kd * CONCORD_TRIG64_P2;
  const double pl = CONCORD_FMA_F64(kd, CONCORD_TRIG64_P2, -ph);
  double ae;
  const double a = concord_trig64_two_sum(t, -ph, &ae);
  const double low = (ae - pl) - kd * CONCORD_TRIG64_P3;
  *rh = concord_trig64_two_sum(a, low, rl);
  return (int)kd & 3;
}

/* ax = |x| >= 2^20, finite: ax = m 2^s (m the 53-bit significand, s >= -32).
 * ax 2/pi mod 4 = m 2^s T mod 4; the words before the window (index j) only
 * add multiples of 4, those after it change the fraction by < 2^-138. */
static inline int concord_trig64_payne_hanek(double ax, double* rh, double* rl) {
  CONCORD_NO_CONTRACT
  const concord_u64 b = concord_f64_bits(ax);
  const int s = (int)(b >> 52) - 1075;                     /* -32 .. 971 */
  const concord_u64 m = (b & 0xFFFFFFFFFFFFFUL) | 0x10000000000000UL;
  const int j = (s + 62) / 32 - 2;                         /* floor((s - 2) / 32) */
  const concord_u64 mh = m >> 32, ml = m & 0xFFFFFFFFu;
  concord_u32 d[8];
  concord_u64 c = 0;
  /* P = m * window, little-endian 32-bit digits: m's low half, then its high half */
  for (int i = 0; i < 7; ++i) {
    const concord_u64 t = ml * concord_two_over_pi_f64[j + 8 - i] + c;
    d[i] = (concord_u32)(t & 0xFFFFFFFFu);
    c = t >> 32;
  }
  d[7] = (concord_u32)c;
  c = 0;
  for (int i = 0; i < 7; ++i) {
    const concord_u64 t = mh * concord_two_over_pi_f64[j + 8 - i] + d[i + 1] + c;
    d[i + 1] = (concord_u32)(t & 0xFFFFFFFFu); /* carries past bit 256: integer bits */
    c = t >> 32;
  }
  /* P has 32 (j + 7) - s fraction bits (191 .. 222): keep 2 integer and 190
   * fraction bits, from bit sh = 1 .. 32 */
  const int sh = 32 * (j + 7) - s - 190;
  const concord_u64 l0 = (concord_u64)d[0] | ((concord_u64)d[1] << 32);
  const concord_u64 l1 = (concord_u64)d[2] | ((concord_u64)d[3] << 32);
  const concord_u64 l2 = (concord_u64)d[4] | ((concord_u64)d[5] << 32);
  const concord_u64 l3 = (concord_u64)d[6] | ((concord_u64)d[7] << 32);
  const concord_u64 a0 = (l0 >> sh) | (l1 << (64 - sh));
  const concord_u64 a1 = (l1 >> sh) | (l2 << (64 - sh));
  const concord_u64 a2 = (l2 >> sh) | (l3 << (64 - sh));
  /* the nearest quadrant; the fraction becomes signed, in [-1/2, 1/2) */
  const int q = (int)(((a2 + ((concord_u64)1 << 61)) >> 62) & 3u);
  concord_u64 f2 = (a2 << 2) | (a1 >> 62);
  concord_u64 f1 = (a1 << 2) | (a0 >> 62);
  concord_u64 f0 = a0 << 2;
  const int neg = (int)(f2 >> 63);
  if (neg) {
    f0 = ~f0 + 1u;
    f1 = ~f1 + (f0 == 0 ? 1u : 0u);
    f2 = ~f2 + ((f0 == 0 && f1 == 0) ? 1u : 0u);
  }
  /* |fraction| = (f2, f1, f0) 2^-192, nonzero and above 2^-64 (no double
   * is that close to a multiple of pi/2); one limb shift kept for safety */
  int lz = 0;
  if (f2 == 0) {
    f2 = f1;
    f1 = f0;
    f0 = 0;
    lz = 64;
  }
  const int z = concord_clz64(f2);
  const concord_u64 u = z == 0 ? f2 : (f2 << z) | (f1 >> (64 - z));
  const concord_u64 v = z == 0 ? f1 : (f1 << z) | (f0 >> (64 - z));
  lz += z;
  /* fraction = (u 2^-64 + v 2^-128) 2^-lz as fh + fl (|fl| < ulp(fh)) */
  const double fh = (double)(u >> 11) * concord_bits_f64((concord_u64)(1023 - 53 - lz) << 52);
  const double fl = ((double)(u & 0x7FFu) + (double)(v >> 11) * 0x1p-53) *
                    concord_bits_f64((concord_u64)(1023 - 64 - lz) << 52);
  /* r = fraction * pi/2 */
  const double h = fh * CONCORD_TRIG64_P1;
  const double e = CONCORD_FMA_F64(fh, CONCORD_TRIG64_P1, -h) + (fh * CONCORD_TRIG64_P2 + fl * CONCORD_TRIG64_P1);
  const double r = h + e;                                  /* fast two-sum: |h| >= |e| */
  const double re = e - (r - h);
  *rh = neg ? -r : r;
  *rl = neg ? -re : re;
  return q;
}

/* The reduced argument of |x| (x finite, |x| >= 2^-27): |x| = q pi/2 + rh + rl. */
static inline int concord_trig64_reduce(double ax, double* rh, double* rl) {
  if (ax <= 0x1.921fb54442d18p-1) { /* pi/4 rounded down */
    *rh = ax;
    *rl = 0.0;
    return 0;
  }
  if (ax < 0x1p20) return concord_trig64_cody_waite(ax, rh, rl);
  return concord_trig64_payne_hanek(ax, rh, rl);
}

/* sin(r) = hi + *lo for |r| <= pi/4 + 2^-30: r - r^3/6 in double-double,
 * r^5 (1/5! - r^2/7! + ... - r^14/19!) in double (below 0.0026 |r|, so its
 * rounding stays under 2^-61 |r|; the truncation is below 2^-72 |r|). */
static inline double concord_trig64_sin_dd(double rh, double rl, double* lo) {
  CONCORD_NO_CONTRACT
  const double z = rh * rh;
  const double zl = CONCORD_FMA_F64(rh, rh, -z) + 2.0 * rh * rl;
  const double c = z * rh;                                  /* r^3 */
  const double cl = CONCORD_FMA_F64(z, rh, -c) + (zl * rh + z * rl);
  const double t = c * 0x1.5555555555555p-3;               /* r^3 / 6 */
  const double tl = CONCORD_FMA_F64(c, 0x1.5555555555555p-3, -t) + (c * 0x1.5555555555555p-57 + cl * 0x1.5555555555555p-3);
  double p = -0x1.2f49b46814157p-57;                        /* -1/19! */
  p = p * z + 0x1.952c77030ad4ap-49;                        /* 1/17! */
  p = p * z - 0x1.ae7f3e733b81fp-41;                        /* 1/15! */
  p = p * z + 0x1.6124613a86d09p-33;                        /* 1/13! */
  p = p * z - 0x1.ae64567f544e4p-26;                        /* 1/11! */
  p = p * z + 0x1.71de3a556c734p-19;                        /* 1/9! */
  p = p * z - 0x1.a01a01a01a01ap-13;                        /* 1/7! */
  p = p * z + 0x1.1111111111111p-7;                         /* 1/5! */
  double e;
  const double hi = concord_trig64_two_sum(rh, -t, &e);
  *lo = ((e + rl) - tl) + (c * z) * p;
  const double s = hi + *lo;
  *lo = *lo - (s - hi);
  return s;
}

/* cos(r) = hi + *lo for |r| <= pi/4 + 2^-30: 1 - r^2/2 + r^4/24 in
 * double-double, r^6 (-1/6! + r^2/8! - ... + r^12/18!) in double (below
 * 0.00033, its rounding under 2^-64; truncation below 2^-68). */
static inline double concord_trig64_cos_dd(double rh, double rl, double* lo) {
  CONCORD_NO_CONTRACT
  const double z = rh * rh;
  const double zl = CONCORD_FMA_F64(rh, rh, -z) + 2.0 * rh * rl;
  const double w = z * z;                                   /* r^4 */
  const double wl = CONCORD_FMA_F64(z, z, -w) + 2.0 * z * zl;
  const double u = w * 0x1.5555555555555p-5;               /* r^4 / 24 */
  const double ul = CONCORD_FMA_F64(w, 0x1.5555555555555p-5, -u) + (w * 0x1.5555555555555p-59 + wl * 0x1.5555555555555p-5);
  double p = -0x1.6827863b97d97p-53;                        /* -1/18! */
  p = p * z + 0x1.ae7f3e733b81fp-45;                        /* 1/16! */
  p = p * z - 0x1.93974a8c07c9dp-37;                        /* 1/14! */
  p = p * z + 0x1.1eed8eff8d898p-29;                        /* 1/12! */
  p = p * z - 0x1.27e4fb7789f5cp-22;                        /* 1/10! */
  p = p * z + 0x1.a01a01a01a01ap-16;                        /* 1/8! */
  p = p * z - 0x1.6c16c16c16c17p-10;                        /* 1/6! */
  double e1, e2;
  const double h1 = concord_trig64_two_sum(1.0, -0.5 * z, &e1);
  const double hi = concord_trig64_two_sum(h1, u, &e2);
  *lo = ((e1 + e2) + (ul - 0.5 * zl)) + (w * z) * p;
  const double s = hi + *lo;
  *lo = *lo - (s - hi);
  return s;
}

static inline double concord_sin_f64(double x) {
  CONCORD_NO_CONTRACT
  const double ax = concord_bits_f64(concord_f64_bits(x) & 0x7FFFFFFFFFFFFFFFUL);
  if (!(x - x == 0.0)) return x - x;                        /* inf or NaN: NaN */
  if (ax < 0x1p-27) return x;                               /* x - x^3/6 rounds to x */
  double rh, rl, lo;
  const int q = concord_trig64_reduce(ax, &rh, &rl);
  const double hi = (q & 1) ? concord_trig64_cos_dd(rh, rl, &lo) : concord_trig64_sin_dd(rh, rl, &lo);
  double v = hi + lo;
  if (q & 2) v = -v;
  return (concord_f64_bits(x) >> 63) ? -v : v;              /* odd */
}

static inline double concord_cos_f64(double x) {
  CONCORD_NO_CONTRACT
  const double ax = concord_bits_f64(concord_f64_bits(x) & 0x7FFFFFFFFFFFFFFFUL);
  if (!(x - x == 0.0)) return x - x;
  if (ax < 0x1p-27) return 1.0;                             /* 1 - x^2/2 rounds to 1 */
  double rh, rl, lo;
  const int q = concord_trig64_reduce(ax, &rh, &rl);
  const double hi = (q & 1) ? concord_trig64_sin_dd(rh, rl, &lo) : concord_trig64_cos_dd(rh, rl, &lo);
  const double v = hi + lo;
  return ((q + 1) & 2) ? -v : v;                            /* q = 1, 2: negative */
}

static inline double concord_tan_f64(double x) {
  CONCORD_NO_CONTRACT
  const double ax = concord_bits_f64(concord_f64_bits(x) & 0x7FFFFFFFFFFFFFFFUL);
  if (!(x - x == 0.0)) return x - x;
  if (ax < 0x1p-27) return x;                               /* x + x^3/3 rounds to x */
  double rh, rl, sl, cl;
  const int q = concord_trig64_reduce(ax, &rh, &rl);
  const double sh = concord_trig64_sin_dd(rh, rl, &sl);
  const double ch = concord_trig64_cos_dd(rh, rl, &cl);
  /* n / d in double-double, rounded once: tan = s / c, or -c / s in odd quadrants */
  const double nh = (q & 1) ? -ch : sh, nl = (q & 1) ? -cl : sl;
  const double dh = (q & 1) ? sh : ch, dl = (q & 1) ? sl : cl;
  const double t = nh / dh;
  const double rem = (CONCORD_FMA_F64(-t, dh, nh) + nl) - t * dl;
  const double v = t + rem / dh;
  return (concord_f64_bits(x) >> 63) ? -v : v;
}

#endif /* CONCORD_CANON_F64 */
#endif /* CONCORD_CANON_TRIG_F64_H */
