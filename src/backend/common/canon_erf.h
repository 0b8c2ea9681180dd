/* float32 erf and gelu of the reproducible mode (and the double erf / erfc
 * they are built on), written once for the CPU (C++) and OpenCL C (see
 * canon_base.h for the portable subset).
 *
 *   double concord_canon_erf_d(double x)     erf(x)
 *   double concord_canon_erfc_d(double z)    erfc(z); 0 for z >= 26 (erfc(26)
 *                                            < 6e-296, below every float result)
 *   float  concord_canon_erf_f32(float x)    erf(x), double inside, rounded once
 *   float  concord_canon_gelu_f32(float x)   x/2 * erfc(-x/sqrt2), the same
 *
 * Method (+ - * / and fma only, so the same bits everywhere):
 *   |x| < 2   erf(x) = 2/sqrt(pi) x e^(-x^2) sum_n (2x^2)^n / (2n+1)!!
 *             (all terms positive: no cancellation), erfc = 1 - erf
 *             (erfc(2) = 0.0047: at most ~8 bits of cancellation);
 *   |x| >= 2  erfc(x) = e^(-x^2)/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + ...))))
 *             (the continued fraction, evaluated bottom-up over a fixed
 *             number of levels that depends on x), erf = 1 - erfc;
 *   e^(-x^2)  with x^2 = hi + lo split by fma, e^(-hi) (1 - lo).
 * Series and fraction are truncated below 1e-16 relative; the double results
 * are good to ~1e-13 relative (the worst: erfc just below 2), the float
 * results within 1 ULP and nearly always correctly rounded.
 *
 * gelu uses erfc, not 1 + erf (which cancels for x < 0): the float result
 * keeps its accuracy down to where it underflows (x ~ -14). Special values
 * follow the C library / the CPU's default kernel: erf(+-0) = +-0,
 * erf(+-inf) = +-1, gelu(+-0) = +-0, gelu(+inf) = +inf, gelu(-inf) = -0,
 * NaN in, NaN out.
 *
 * Example: concord_canon_erf_f32(0.5f) == 0.5204999f; concord_canon_gelu_f32(1.0f) == 0.8413447f.
 * Needs double: under OpenCL only where CONCORD_CANON_F64 is 1.
 */
#ifndef CONCORD_CANON_ERF_H
#define CONCORD_CANON_ERF_H

#ifndef __OPENCL_VERSION__
#include "backend/common/canon_base.h"
#endif

#if CONCORD_CANON_F64

#define CONCORD_ERF_2_SQRTPI 1.1283791670955126
#define CONCORD_ERF_1_SQRTPI 0.5641895835477563
#define CONCORD_ERF_INV_SQRT2 0.7071067811865476

/* e^-a for 0 <= a <= 700: a = n ln2 - r, e^-a = 2^-n e^r with the Taylor
 * polynomial of e^r to r^13 (|r| <= ln2/2: truncated below 2e-17). */
static inline double concord_erf_exp_neg(double a) {
  CONCORD_NO_CONTRACT
  const double t = a * 1.4426950408889634 + 6755399441055744.0; /* 1.5 * 2^52 rounds to an integer */
  const double n = t - 6755399441055744.0;
  const double r = (n * 6.93147180369123816490e-01 - a) + n * 1.90821492927058770002e-10;
  double q = r * 1.6059043836821613e-10 + 2.08767569878681e-09;
  q = q * r + 2.505210838544172e-08;
  q = q * r + 2.755731922398589e-07;
  q = q * r + 2.7557319223985893e-06;
  q = q * r + 2.48015873015873e-05;
  q = q * r + 0.0001984126984126984;
  q = q * r + 0.001388888888888889;
  q = q * r + 0.008333333333333333;
  q = q * r + 0.041666666666666664;
  q = q * r + 0.16666666666666666;
  q = q * r + 0.5;
  q = q * r + 1.0;
  q = q * r + 1.0;
  return q * concord_bits_f64((concord_u64)(1023 - (concord_i64)n) << 52);
}

/* e^(-x^2) for 0 <= x <= 26: x^2 = hi + lo exactly, the rounding of x^2
 * alone would cost up to x^2 * 1.1e-16 relative. */
static inline double concord_erf_gauss(double x) {
  CONCORD_NO_CONTRACT
  const double hi = x * x;
  const double lo = CONCORD_FMA_F64(x, x, -hi);
  return concord_erf_exp_neg(hi) * (1.0 - lo);
}

/* erf(x) for 0 <= x < 2 (the positive series; term count for < 1e-18). */
static inline double concord_erf_series(double x) {
  CONCORD_NO_CONTRACT
  const int n_terms = x < 0.5 ? 12 : x < 1.0 ? 20 : x < 1.5 ? 26 : 32;
  const double t = 2.0 * x * x;
  double s = 1.0;
  int n;
  for (n = n_terms; n >= 1; --n) s = 1.0 + s * t / (double)(2 * n + 1);
  return CONCORD_ERF_2_SQRTPI * x * concord_erf_gauss(x) * s;
}

/* erfc(x) for 2 <= x < 26 (the continued fraction; depth for < 1e-16). */
static inline double concord_erf_fraction(double x) {
  CONCORD_NO_CONTRACT
  const int depth = x < 2.5 ? 60 : x < 3.0 ? 40 : x < 4.0 ? 30 : 24;
  double f = x;
  int n;
  for (n = depth; n >= 1; --n) f = x + (0.5 * (double)n) / f;
  return CONCORD_ERF_1_SQRTPI * concord_erf_gauss(x) / f;
}

static inline double concord_canon_erfc_d(double z) {
  CONCORD_NO_CONTRACT
  if (z != z) return z + z;
  if (z < 0.0) {
    const double a = -z;
    if (a < 2.0) return 1.0 + concord_erf_series(a);
    if (a < 6.0) return 2.0 - concord_erf_fraction(a);
    return 2.0; /* erfc(-6) = 2 - 2e-17 rounds to 2 */
  }
  if (z < 2.0) return 1.0 - concord_erf_series(z);
  if (z < 26.0) return concord_erf_fraction(z);
  return 0.0;
}

static inline double concord_canon_erf_d(double x) {
  CONCORD_NO_CONTRACT
  if (x != x) return x + x;
  const int neg = (int)(concord_f64_bits(x) >> 63); /* keeps erf(-0) = -0 */
  const double a = neg ? -x : x;
  double r;
  if (a < 2.0) r = concord_erf_series(a);
  else if (a < 6.0) r = 1.0 - concord_erf_fraction(a);
  else r = 1.0; /* erf(6) = 1 - 2e-17 rounds to 1 */
  return neg ? -r : r;
}

static inline float concord_canon_erf_f32(float x) {
  CONCORD_NO_CONTRACT
  if (x != x) return x + x;
  return (float)concord_canon_erf_d((double)x);
}

/* z = -x/sqrt2 in double: its rounding moves erfc by ~2z^2 * 1.1e-16 relative,
 * far below a float ULP down to the underflow of the result. */
static inline float concord_canon_gelu_f32(float x) {
  CONCORD_NO_CONTRACT
  if (x != x) return x + x;
  if (x == concord_bits_f32(0x7f800000u)) return x;
  if (x == concord_bits_f32(0xff800000u)) return concord_bits_f32(0x80000000u);
  const double w = (double)x;
  return (float)(w * 0.5 * concord_canon_erfc_d(-w * CONCORD_ERF_INV_SQRT2));
}

#endif /* CONCORD_CANON_F64 */

#endif /* CONCORD_CANON_ERF_H */
