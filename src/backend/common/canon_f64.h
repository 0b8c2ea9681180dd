/* float64 exp, expm1, tanh and sigmoid of the reproducible mode, written once
 * for the CPU (C++) and OpenCL C (see canon_base.h for the portable subset).
 * canon_f64_log.h holds log, log1p and log2.
 *
 * Contract: every function maps a double to a double within 1 ULP of the true
 * value (measured maxima, against long double over millions of arguments on
 * every exponent: exp 0.51, expm1 0.51, tanh 0.51, sigmoid 0.51 ULP; see
 * tests/test_reproducible_f64.cpp), with only + - * /, fma and bit operations,
 * so the CPU and an OpenCL device with float64 give the same bits.
 * Special values are the C library's:
 *   exp:     exp(+-0) = 1, exp(-inf) = +0, exp(+inf) = +inf, overflow past
 *            709.78 to +inf, underflow below -745.13 to +0 (subnormals between)
 *   expm1:   expm1(+-0) = +-0, expm1(-inf) = -1, expm1(+inf) = +inf
 *   tanh:    tanh(+-0) = +-0, tanh(+-inf) = +-1
 *   sigmoid: 1 / (1 + exp(-x)); sigmoid(+-0) = 0.5, (-inf) = +0, (+inf) = 1,
 *            and the subnormal results of x in [-745, -708] are kept
 *   NaN in, NaN out (payload free: the mode makes NaNs canonical).
 * Example (C++): double y = concord_exp_f64(1.0);   // 2.718281828459045
 *
 * Method: x = k ln2 + r with |r| <= ln2/2 carried as rh + rl (ln2 in two
 * parts, the first one short so k ln2hi is exact); exp(r) = 1 + rh + tail
 * with a degree-13 Taylor polynomial (truncation < 2^-57); results are
 * assembled in double-double (two-sum, fma remainders) and rounded once.
 * 2^k is applied in two exact steps, so a subnormal result rounds once.
 */
#ifndef CONCORD_CANON_F64_H
#define CONCORD_CANON_F64_H

#ifndef __OPENCL_VERSION__
#include "backend/common/canon_base.h"
#endif

#if CONCORD_CANON_F64

#define CONCORD_F64_LOG2E 0x1.71547652b82fep+0
#define CONCORD_F64_SHIFT 0x1.8p+52
/* ln2 = LN2HI + LN2LO; LN2HI has 32 significant bits, so k * LN2HI is exact
 * for |k| < 2^21. */
#define CONCORD_F64_LN2HI 0x1.62e42feep-1
#define CONCORD_F64_LN2LO 0x1.a39ef35793c76p-33

/* s + e = a + b exactly (Knuth's two-sum, no ordering needed). */
static inline double concord_f64_two_sum(double a, double b, double* e) {
  CONCORD_NO_CONTRACT
  const double s = a + b;
  const double bb = s - a;
  *e = (a - (s - bb)) + (b - bb);
  return s;
}

/* 2^k for -1022 <= k <= 1023. */
static inline double concord_f64_pow2(int k) {
  return concord_bits_f64((concord_u64)(concord_i64)(k + 1023) << 52);
}

/* y * 2^k for -1076 <= k <= 1025 with one rounding: two exact steps of at
 * most 2^-538 each keep the intermediate normal for y near 1. */
static inline double concord_f64_scale(double y, int k) {
  CONCORD_NO_CONTRACT
  const int k1 = k / 2;
  return (y * concord_f64_pow2(k1)) * concord_f64_pow2(k - k1);
}

/* x = k ln2 + rh + rl, |rh| <= 0.3466, |rl| <= ulp(rh); for |x| <= 746.
 * kd * LN2HI is exact and x - kd * LN2HI exact by Sterbenz. */
static inline int concord_f64_exp_reduce(double x, double* rh, double* rl) {
  CONCORD_NO_CONTRACT
  const double t = x * CONCORD_F64_LOG2E + CONCORD_F64_SHIFT;
  const double kd = t - CONCORD_F64_SHIFT;
  const double r1 = x - kd * CONCORD_F64_LN2HI;
  *rh = concord_f64_two_sum(r1, -(kd * CONCORD_F64_LN2LO), rl);
  return (int)kd;
}

/* exp(rh + rl) - 1 - rh = *th + tl to about 2^-60 relative to exp: rh^2/2
 * exact (fma), then the Taylor series to r^13 (r^14/14! < 4.3e-18 at ln2/2),
 * rl folded in as rl * (1 + rh). */
static inline double concord_f64_exp_tail(double rh, double rl, double* tl) {
  CONCORD_NO_CONTRACT
  double q = rh * 0x1.6124613a86d09p-33 + 0x1.1eed8eff8d898p-29; /* 1/13!, 1/12! */
  q = q * rh + 0x1.ae64567f544e4p-26;                              /* 1/11! */
  q = q * rh + 0x1.27e4fb7789f5cp-22;                              /* 1/10! */
  q = q * rh + 0x1.71de3a556c734p-19;                              /* 1/9! */
  q = q * rh + 0x1.a01a01a01a01ap-16;                              /* 1/8! */
  q = q * rh + 0x1.a01a01a01a01ap-13;                              /* 1/7! */
  q = q * rh + 0x1.6c16c16c16c17p-10;                              /* 1/6! */
  q = q * rh + 0x1.1111111111111p-7;                               /* 1/5! */
  q = q * rh + 0x1.5555555555555p-5;                               /* 1/4! */
  q = q * rh + 0x1.5555555555555p-3;                               /* 1/3! */
  const double r2 = rh * rh;
  const double r2l = CONCORD_FMA_F64(rh, rh, -r2);
  *tl = (0.5 * r2l + r2 * rh * q) + (rl + rl * rh);
  return 0.5 * r2;
}

/* exp(x) = 2^k (hi + lo), hi + lo in [0.70, 1.42] normalised; |x| <= 746. */
static inline int concord_f64_exp_dd(double x, double* hi, double* lo) {
  CONCORD_NO_CONTRACT
  double rh, rl, tl, e;
  const int k = concord_f64_exp_reduce(x, &rh, &rl);
  const double th = concord_f64_exp_tail(rh, rl, &tl);
  const double h = 1.0 + rh;                   /* fast two-sum: |1| >= |rh| */
  const double s = concord_f64_two_sum(h, th, &e);
  const double l = (((1.0 - h) + rh) + e) + tl;
  *hi = s + l;
  *lo = l - (*hi - s);
  return k;
}

static inline double concord_exp_f64(double x) {
  CONCORD_NO_CONTRACT
  double hi, lo;
  if (x != x) return x + x;
  if (x > 709.79) return x * 0x1p1023;         /* +inf */
  if (x < -745.2) return 0.0;
  const int k = concord_f64_exp_dd(x, &hi, &lo);
  return concord_f64_scale(hi + lo, k);
}

/* expm1(x) = hi + lo for -40 <= x <= 40, |lo| <= ulp(hi) / 2. */
static inline double concord_f64_expm1_dd(double x, double* lo) {
  CONCORD_NO_CONTRACT
  double rh, rl, tl, pl, e;
  const int k = concord_f64_exp_reduce(x, &rh, &rl);
  /* exp(r) - 1 = ph + pl */
  const double th = concord_f64_exp_tail(rh, rl, &tl);
  double ph = concord_f64_two_sum(rh, th, &pl);
  pl = pl + tl;
  e = ph + pl;                                 /* normalise: fast two-sum, |ph| >= |pl| */
  pl = pl - (e - ph);
  ph = e;
  /* 2^k (1 + p) - 1 = a + al + s p: a + al = 2^k - 1, exact while |k| <= 52 */
  const double s = concord_f64_pow2(k);
  const double a = k > 52 ? s : k < -52 ? -1.0 : s - 1.0;
  const double al = k > 52 ? -1.0 : k < -52 ? s : 0.0;
  const double h = concord_f64_two_sum(a, s * ph, &e);
  const double l = (e + s * pl) + al;
  const double hi = h + l;                     /* normalise: fast two-sum, |h| >= |l| */
  *lo = l - (hi - h);
  return hi;
}

static inline double concord_expm1_f64(double x) {
  CONCORD_NO_CONTRACT
  double lo, hi;
  if (x != x) return x + x;
  if (x > 709.79) return x * 0x1p1023;         /* +inf */
  if (x < -40.0) return -1.0;                  /* -1 + e^x rounds to -1 below -37.43 */
  if (x < 0x1p-54 && x > -0x1p-54) return x;   /* x + x^2/2 rounds to x; keeps -0 */
  if (x > 40.0) {                              /* the -1 is below 2^-57 of the result */
    const int k = concord_f64_exp_dd(x, &hi, &lo);
    return concord_f64_scale(hi + lo, k);
  }
  hi = concord_f64_expm1_dd(x, &lo);
  return hi + lo;
}

/* tanh(|x|) = e / (e + 2) with e = expm1(2|x|) in double-double. */
static inline double concord_tanh_f64(double x) {
  CONCORD_NO_CONTRACT
  double el, dl;
  const double ax = concord_bits_f64(concord_f64_bits(x) & 0x7fffffffffffffffUL);
  const concord_u64 sign = concord_f64_bits(x) & 0x8000000000000000UL;
  if (x != x) return x + x;
  if (ax < 0x1p-28) return x;                  /* x - x^3/3 rounds to x */
  if (ax >= 20.0) return concord_bits_f64(concord_f64_bits(1.0) | sign); /* 1 - 2e^-40 rounds to 1 */
  const double eh = concord_f64_expm1_dd(ax + ax, &el);
  const double dh = concord_f64_two_sum(eh, 2.0, &dl);
  dl = dl + el;
  const double q = eh / dh;
  const double r = (CONCORD_FMA_F64(-q, dh, eh) + el) - q * dl;
  const double t = q + r / dh;
  return concord_bits_f64(concord_f64_bits(t) | sign);
}

/* sigmoid(x) = 1 / (1 + e^-x) for x >= 0, e^x / (1 + e^x) below, each as a
 * double-double quotient rounded once (then scaled by 2^k for x < 0). */
static inline double concord_sigmoid_f64(double x) {
  CONCORD_NO_CONTRACT
  double yh, yl, dl;
  if (x != x) return x + x;
  if (x > 40.0) return 1.0;                    /* 1 - e^-40 rounds to 1 */
  if (x < -746.0) return 0.0;
  const int k = concord_f64_exp_dd(x >= 0.0 ? -x : x, &yh, &yl);
  /* e = 2^k (yh + yl); below 2^-60 it no longer moves 1 + e */
  const double s = k >= -60 ? concord_f64_pow2(k) : 0.0;
  const double dh = concord_f64_two_sum(1.0, s * yh, &dl);
  dl = dl + s * yl;
  if (x >= 0.0) {
    const double q = 1.0 / dh;
    const double r = CONCORD_FMA_F64(-q, dh, 1.0) - q * dl;
    return q + r / dh;
  }
  const double q = yh / dh;
  const double r = (CONCORD_FMA_F64(-q, dh, yh) + yl) - q * dl;
  return concord_f64_scale(q + r / dh, k);
}

#endif /* CONCORD_CANON_F64 */
#endif /* CONCORD_CANON_F64_H */
