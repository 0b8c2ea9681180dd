/* float32 erf and gelu of the reproducible mode (and the double erf / erfc
 * they are built on), written once for the CPU (C++) and OpenCL C (see
 * canon_base.h for the portable subset).
 *
 *   double concord_erf_d(double x)     erf(x)
 *   double concord_erfc_d(double z)    erfc(z); 0 for z >= 26 (erfc(26)
 *                                            < 6e-296, below every float result)
 *   float  concord_erf_f32(float x)    erf(x), double inside, rounded once
 *   float  concord_gelu_f32(float x)   x/2 * erfc(-x/sqrt2), the same
 *
 * Method (+ - * /, sqrt and fma only, so the same bits everywhere):
 *   |x| < 2   erf(x) = 2/sqrt(pi) x e^(-x^2) sum_n (2x^2)^n / (2n+1)!!
 *             (all terms positive: no cancellation), erfc = 1 - erf
 *             (erfc(2) = 0.0047: at most ~8 bits of cancellation);
 *   |x| >= 2  erfc(x) = e^(-x^2)/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + ...))))
 *             (the continued fraction, evaluated bottom-up over a number
 *             of levels that depends on x), erf = 1 - erfc;
 *   e^(-x^2)  with x^2 = hi + lo split by fma, e^(-hi) (1 - lo).
 * Series and fraction are truncated at ~1e-16 relative; the double results
 * are good to 1.2e-13 relative (against long double over [-7, 26]; the
 * worst: erfc just below 2), so the float results are within 1 ULP and
 * correctly rounded on every float32 checked.
 *
 * gelu uses erfc, not 1 + erf (which cancels for x < 0): the float result
 * keeps its accuracy down to where it underflows (x ~ -14). Special values
 * follow the C library / the CPU's default kernel: erf(+-0) = +-0,
 * erf(+-inf) = +-1, gelu(+-0) = +-0, gelu(+inf) = +inf, gelu(-inf) = -0,
 * NaN in, NaN out.
 *
 * Example: concord_erf_f32(0.5f) == 0.5204999f; concord_gelu_f32(1.0f) == 0.84134477f.
 * Needs double: under OpenCL only where CONCORD_CANON_F64 is 1.
 */
#ifndef CONCORD_CANON_EXPLOG_ERF_H
#define CONCORD_CANON_EXPLOG_ERF_H

#ifndef __OPENCL_VERSION__
#include "backend/common/canon_base.h"
#include "backend/common/canon_explog.h"
#endif

#if CONCORD_CANON_F64

#define CONCORD_ERF_2_SQRTPI 1.1283791670955126
#define CONCORD_ERF_1_SQRTPI 0.5641895835477563
#define CONCORD_ERF_INV_SQRT2 0.7071067811865476

/* e^-a for 0 <= a <= 700: a = n ln2 - r, e^-a = 2^-n e^r, e^r = 1 + expm1(r)
 * by canon_explog.h's polynomial (|r| <= ln2/2: truncated below 2e-17). */
static inline double concord_erf_exp_neg(double a) {
  CONCORD_NO_CONTRACT
  const double t = a * concord_bits_f64(CONCORD_XL_LOG2E) + concord_bits_f64(CONCORD_XL_SHIFT);
  const double n = t - concord_bits_f64(CONCORD_XL_SHIFT);
  const double r = (n * concord_bits_f64(CONCORD_XL_LN2_HI) - a) + n * concord_bits_f64(CONCORD_XL_LN2_LO);
  const double q = concord_xl_expm1_small(r) + 1.0;
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

/* 1 / (2n+1)!! for n = 0..32, correctly rounded. */
CONCORD_TABLE double concord_erf_odd_fact_inv[33] = {
    1.0, 0.3333333333333333, 0.06666666666666667, 0.009523809523809525, 0.0010582010582010583,
    9.62000962000962e-05, 7.4000074000074e-06, 4.9333382666716e-07, 2.901963686277412e-08,
    1.5273493085670588e-09, 7.273091945557423e-11, 3.1622138893727926e-12, 1.264885555749117e-13,
    4.684761317589322e-15, 1.6154349370997664e-16, 5.211080442257311e-18, 1.5791152855325184e-19,
    4.5117579586643385e-21, 1.2193940428822536e-22, 3.1266513920057783e-24, 7.625979004892143e-26,
    1.7734834895098008e-27, 3.9410744211328905e-29, 8.38526472581466e-31, 1.7112785154723796e-32,
    3.3554480695536855e-34, 6.33103409349752e-36, 1.1510971079086399e-37, 2.019468610366035e-39,
    3.4228281531627713e-41, 5.611193693709461e-43, 8.906656656681684e-45, 1.3702548702587206e-46};

/* erf(x) for 0 <= x < 2 (the positive series, Horner in t = 2x^2 with a
 * term count that keeps the dropped tail below 1e-18 relative). */
static inline double concord_erf_series(double x) {
  CONCORD_NO_CONTRACT
  const int n_terms = x < 0.5 ? 12 : x < 1.0 ? 20 : x < 1.5 ? 26 : 32;
  const double t = 2.0 * x * x;
  double s = concord_erf_odd_fact_inv[n_terms];
  int n;
  for (n = n_terms - 1; n >= 0; --n) s = s * t + concord_erf_odd_fact_inv[n];
  return CONCORD_ERF_2_SQRTPI * x * concord_erf_gauss(x) * s;
}

/* erfc(x) for 2 <= x < 26 (the continued fraction, its depth set for < 2e-16
 * relative). The tail below the last level starts at its fixed point
 * f = x + (depth + 1) / (2f), which saves a third of the levels. */
static inline double concord_erf_fraction(double x) {
  CONCORD_NO_CONTRACT
  const int depth = x < 2.5 ? 44 : x < 3.0 ? 30 : x < 4.0 ? 24 : x < 6.0 ? 16 : 12;
  double f = 0.5 * (x + CONCORD_SQRT_F64(x * x + (double)(2 * depth + 2)));
  int n;
  for (n = depth; n >= 1; --n) f = x + (0.5 * (double)n) / f;
  return CONCORD_ERF_1_SQRTPI * concord_erf_gauss(x) / f;
}

static inline double concord_erfc_d(double z) {
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

static inline double concord_erf_d(double x) {
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

static inline float concord_erf_f32(float x) {
  CONCORD_NO_CONTRACT
  if (x != x) return x + x;
  return (float)concord_erf_d((double)x);
}

/* z = -x/sqrt2 in double: its rounding moves erfc by ~2z^2 * 1.1e-16 relative,
 * far below a float ULP down to the underflow of the result. */
static inline float concord_gelu_f32(float x) {
  CONCORD_NO_CONTRACT
  if (x != x) return x + x;
  if (x == concord_bits_f32(0x7f800000u)) return x;
  if (x == concord_bits_f32(0xff800000u)) return concord_bits_f32(0x80000000u);
  const double w = (double)x;
  return (float)(w * 0.5 * concord_erfc_d(-w * CONCORD_ERF_INV_SQRT2));
}

#endif /* CONCORD_CANON_F64 */

#endif /* CONCORD_CANON_EXPLOG_ERF_H */
