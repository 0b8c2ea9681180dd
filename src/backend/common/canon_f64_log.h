/* float64 log, log1p and log2 of the reproducible mode, written once for the
 * CPU (C++) and OpenCL C (the portable subset of canon_base.h; the two-sum
 * comes from canon_f64.h, which precedes this file).
 *
 * Contract: within 1 ULP of the true value (measured maxima against long
 * double over 7M arguments on every exponent and around the branch points:
 * log 0.534, log1p 0.548, log2 0.528 ULP), same bits on the CPU and
 * on an OpenCL device with float64. Special values are the C library's:
 *   log, log2: (+-0) = -inf, (x < 0) = NaN, (+inf) = +inf, (1) = +0;
 *              log2(2^k) = k exactly; subnormals are accepted
 *   log1p:     (+-0) = +-0, (-1) = -inf, (x < -1) = NaN, (+inf) = +inf
 * Example (C++): double y = concord_log2_f64(8.0);   // 3.0
 *
 * Method: x = 2^k m with m in [sqrt(1/2), sqrt 2), f = m - 1 (exact),
 * log m = 2 atanh(s), s = f / (2 + f) carried as sh + sl (fma remainder);
 * log m = 2 sh + (2 sl + sh^3 P(sh^2)), P to s^21 (truncation < 2^-60 of
 * the result). The pieces are summed in double-double and rounded once.
 */
#ifndef CONCORD_CANON_F64_LOG_H
#define CONCORD_CANON_F64_LOG_H

#ifndef __OPENCL_VERSION__
#include "backend/common/canon_f64.h"
#endif

#if CONCORD_CANON_F64

/* ln2 = LN2HI + LN2LO; LN2HI has 32 significant bits, so k * LN2HI is exact
 * for |k| < 2^21. */
#define CONCORD_F64_LN2HI 0x1.62e42feep-1
#define CONCORD_F64_LN2LO 0x1.a39ef35793c76p-33
/* 1/ln2 = INVLN2HI + INVLN2LO */
#define CONCORD_F64_INVLN2HI 0x1.71547652b82fep+0
#define CONCORD_F64_INVLN2LO 0x1.777d0ffda0d24p-56

/* log(1 + f) + c = lh + ll for -0.2929 <= f <= 0.4143 and |c| <= 2^-52, with
 * lh = 2 sh exact and ll the small rest. */
static inline void concord_f64_log_core(double f, double c, double* lh, double* ll) {
  CONCORD_NO_CONTRACT
  const double dh = 2.0 + f;                   /* fast two-sum: |2| >= |f| */
  const double dl = f - (dh - 2.0);
  const double sh = f / dh;
  const double sl = (CONCORD_FMA_F64(-sh, dh, f) - sh * dl) / dh;
  const double z = sh * sh;
  double p = z * 0x1.8618618618618p-4 + 0x1.af286bca1af28p-4; /* 2/21, 2/19 */
  p = p * z + 0x1.e1e1e1e1e1e1ep-4;                          /* 2/17 */
  p = p * z + 0x1.1111111111111p-3;                          /* 2/15 */
  p = p * z + 0x1.3b13b13b13b14p-3;                          /* 2/13 */
  p = p * z + 0x1.745d1745d1746p-3;                          /* 2/11 */
  p = p * z + 0x1.c71c71c71c71cp-3;                          /* 2/9 */
  p = p * z + 0x1.2492492492492p-2;                          /* 2/7 */
  p = p * z + 0x1.999999999999ap-2;                          /* 2/5 */
  p = p * z + 0x1.5555555555555p-1;                          /* 2/3 */
  *lh = sh + sh;
  *ll = (sl + sl) + sh * z * p + c;            /* log(1 + c) = c to 2^-104 */
}

/* log(x (1 + c)) = k ln2 + lh + ll for finite x > 0 and |c| <= 2^-52;
 * returns k. */
static inline int concord_f64_log_parts(double x, double c, double* lh, double* ll) {
  CONCORD_NO_CONTRACT
  int k = 0;
  if (x < 0x1p-1022) {                         /* subnormal: make it normal */
    x = x * 0x1p54;
    k = -54;
  }
  const concord_u64 bits = concord_f64_bits(x);
  const concord_u64 mant = bits & 0x000fffffffffffffUL;
  /* m >= sqrt 2 (mantissa above 0x6a09e667f3bcd) moves to m / 2 */
  const concord_u64 big = mant > 0x6a09e667f3bcdUL ? 1 : 0;
  k += (int)((bits >> 52) & 0x7ff) - 1023 + (int)big;
  const double m = concord_bits_f64(mant | ((1023 - big) << 52));
  concord_f64_log_core(m - 1.0, c, lh, ll);    /* m - 1 is exact (Sterbenz) */
  return k;
}

/* k ln2 + lh + ll rounded once: k LN2HI is exact, the two-sum with lh too. */
static inline double concord_f64_log_sum(int k, double lh, double ll) {
  CONCORD_NO_CONTRACT
  double e;
  const double kd = (double)k;
  const double s = concord_f64_two_sum(kd * CONCORD_F64_LN2HI, lh, &e);
  return s + (e + (ll + kd * CONCORD_F64_LN2LO));
}

static inline double concord_log_f64(double x) {
  CONCORD_NO_CONTRACT
  double lh, ll;
  if (x != x) return x + x;
  if (x == 0.0) return -1.0 / (x * x);         /* -inf for +-0 */
  if (x < 0.0) return (x - x) / (x - x);       /* NaN */
  if (x > 0x1.fffffffffffffp1023) return x;    /* +inf */
  const int k = concord_f64_log_parts(x, 0.0, &lh, &ll);
  return concord_f64_log_sum(k, lh, ll);
}

static inline double concord_log1p_f64(double x) {
  CONCORD_NO_CONTRACT
  double c, lh, ll;
  if (x != x) return x + x;
  if (x < 0x1p-54 && x > -0x1p-54) return x;   /* x - x^2/2 rounds to x; keeps -0 */
  if (x == -1.0) return -1.0 / ((x + 1.0) * (x + 1.0)); /* -inf */
  if (x < -1.0) return (x - x) / (x - x);      /* NaN */
  if (x > 0x1.fffffffffffffp1023) return x;    /* +inf */
  if (x > -0.2929 && x < 0.4142) {             /* 1 + x is m itself: f = x, exact */
    concord_f64_log_core(x, 0.0, &lh, &ll);
    return lh + ll;
  }
  /* 1 + x = u + c exactly; log(1 + x) = log(u (1 + c/u)), c/u <= 2^-53 */
  const double u = concord_f64_two_sum(1.0, x, &c);
  const int k = concord_f64_log_parts(u, c / u, &lh, &ll);
  return concord_f64_log_sum(k, lh, ll);
}

/* log2 x = k + (lh + ll) / ln2, the product in double-double. */
static inline double concord_log2_f64(double x) {
  CONCORD_NO_CONTRACT
  double lh, ll, e;
  if (x != x) return x + x;
  if (x == 0.0) return -1.0 / (x * x);         /* -inf for +-0 */
  if (x < 0.0) return (x - x) / (x - x);       /* NaN */
  if (x > 0x1.fffffffffffffp1023) return x;    /* +inf */
  const int k = concord_f64_log_parts(x, 0.0, &lh, &ll);
  const double nh = lh + ll;                   /* fast two-sum: |lh| >= |ll| */
  const double nl = ll - (nh - lh);
  const double ph = nh * CONCORD_F64_INVLN2HI;
  const double pl = CONCORD_FMA_F64(nh, CONCORD_F64_INVLN2HI, -ph) +
                    (nh * CONCORD_F64_INVLN2LO + nl * CONCORD_F64_INVLN2HI);
  const double s = concord_f64_two_sum((double)k, ph, &e);
  return s + (e + pl);
}

#endif /* CONCORD_CANON_F64 */
#endif /* CONCORD_CANON_F64_LOG_H */
