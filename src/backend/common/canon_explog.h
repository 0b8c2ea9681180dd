/* float32 expm1, log1p and log2 of the reproducible mode, written once for the
 * CPU (C++) and OpenCL C (see canon_base.h for the portable subset).
 *
 *   float concord_expm1_f32(float x)    e^x - 1
 *   float concord_log1p_f32(float x)    ln(1 + x)
 *   float concord_log2_f32(float x)     log2(x)
 *
 * Each evaluates in double with + - * / only and rounds once to float, so the
 * bits are the same on every device that has double. The double results are
 * good to a few 1e-16 relative (the polynomials are truncated Taylor series
 * whose first dropped term is below 2e-17 on the reduced range), so the float
 * result is the correctly rounded one except for inputs within ~1e-8 ULP of a
 * rounding boundary, and never more than 1 ULP off. Halves go through these
 * (widened to float, rounded once on store).
 *
 * Special values follow the C library:
 *   expm1: +-0 -> +-0, +inf -> +inf, -inf -> -1, x > 88.72 -> +inf,
 *          x < -17.33 -> -1, subnormal x -> x
 *   log1p: +-0 -> +-0, -1 -> -inf, x < -1 (and -inf) -> NaN, +inf -> +inf,
 *          subnormal x -> x
 *   log2:  +-0 -> -inf, x < 0 (and -inf) -> NaN, +inf -> +inf, 2^k -> k exactly
 *   NaN in, NaN out (the mode canonicalises the payload).
 *
 * Example: concord_expm1_f32(1e-10f) == 1e-10f; concord_log2_f32(8.0f) == 3.0f.
 * Needs double: under OpenCL only where CONCORD_CANON_F64 is 1.
 */
#ifndef CONCORD_CANON_EXPLOG_H
#define CONCORD_CANON_EXPLOG_H

#ifndef __OPENCL_VERSION__
#include "backend/common/canon_base.h"
#endif

#if CONCORD_CANON_F64

#define CONCORD_XL_LN2_HI 6.93147180369123816490e-01 /* 32 trailing zero bits: n * hi is exact */
#define CONCORD_XL_LN2_LO 1.90821492927058770002e-10
#define CONCORD_XL_LOG2E 1.4426950408889634
#define CONCORD_XL_SQRT2 1.4142135623730951
#define CONCORD_XL_SHIFT 6755399441055744.0 /* 1.5 * 2^52: adding it rounds to an integer */

/* expm1(r) for |r| <= ln2/2 (+ a little): r * (1 + r/2! + ... + r^12/13!). */
static inline double concord_xl_expm1_small(double r) {
  CONCORD_NO_CONTRACT
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
  return r * q;
}

static inline float concord_expm1_f32(float x) {
  CONCORD_NO_CONTRACT
  if (x != x) return x + x;
  double w = (double)x;
  /* Beyond +-100 the float result is +inf or -1 already; the clamp keeps 2^n
   * a normal double. */
  if (w > 100.0) w = 100.0;
  if (w < -100.0) w = -100.0;
  if (w < 0.34657359027997264 && w > -0.34657359027997264) return (float)concord_xl_expm1_small(w);
  /* w = n ln2 + r, |r| <= ln2/2: e^w - 1 = 2^n expm1(r) + (2^n - 1), both
   * terms of the same sign or the sum >= 0.3 in size, so no cancellation. */
  const double t = w * CONCORD_XL_LOG2E + CONCORD_XL_SHIFT;
  const double n = t - CONCORD_XL_SHIFT;
  const double r = (w - n * CONCORD_XL_LN2_HI) - n * CONCORD_XL_LN2_LO;
  const double s = concord_bits_f64((concord_u64)((concord_i64)n + 1023) << 52);
  return (float)(s * concord_xl_expm1_small(r) + (s - 1.0));
}

/* 2 atanh(s) / s = 2 + 2s^2/3 + ... + 2s^18/19 for |s| <= 0.1716 (z = s^2). */
static inline double concord_xl_atanh2_poly(double z) {
  CONCORD_NO_CONTRACT
  double p = z * (2.0 / 19) + (2.0 / 17);
  p = p * z + (2.0 / 15);
  p = p * z + (2.0 / 13);
  p = p * z + (2.0 / 11);
  p = p * z + (2.0 / 9);
  p = p * z + (2.0 / 7);
  p = p * z + (2.0 / 5);
  p = p * z + (2.0 / 3);
  p = p * z + 2.0;
  return p;
}

/* u = 2^e m with m in [sqrt2/2, sqrt2]; returns s = (m-1)/(m+1) and sets *e.
 * u is a positive finite normal double. m - 1 is exact (Sterbenz). */
static inline double concord_xl_reduce_log(double u, int* e) {
  CONCORD_NO_CONTRACT
  const concord_u64 b = concord_f64_bits(u);
  int k = (int)((b >> 52) & 0x7ff) - 1023;
  double m = concord_bits_f64((b & 0x000fffffffffffffUL) | 0x3ff0000000000000UL);
  if (m > CONCORD_XL_SQRT2) {
    m = m * 0.5;
    k = k + 1;
  }
  *e = k;
  return (m - 1.0) / (m + 1.0);
}

static inline float concord_log1p_f32(float x) {
  CONCORD_NO_CONTRACT
  if (x != x) return x + x;
  if (x < -1.0f) return concord_bits_f32(0x7fc00000u);
  if (x == -1.0f) return concord_bits_f32(0xff800000u);
  if (x == concord_bits_f32(0x7f800000u)) return x;
  const double w = (double)x;
  if (w > -0.29289321881345248 && w < 0.41421356237309515) {
    /* 1 + w in [sqrt2/2, sqrt2]: ln(1 + w) = 2 atanh(w / (2 + w)), with 2 + w
     * exact; keeps -0 and tiny w (s * 2 = w). */
    const double s = w / (2.0 + w);
    return (float)(s * concord_xl_atanh2_poly(s * s));
  }
  /* 1 + w is exact for every float w here (below 2^52 the bits fit; above it
   * the lost 1 is far below a float ULP of the result). */
  int e;
  const double s = concord_xl_reduce_log(1.0 + w, &e);
  const double ed = (double)e;
  return (float)(ed * CONCORD_XL_LN2_HI + (ed * CONCORD_XL_LN2_LO + s * concord_xl_atanh2_poly(s * s)));
}

static inline float concord_log2_f32(float x) {
  CONCORD_NO_CONTRACT
  if (x != x) return x + x;
  if (x < 0.0f) return concord_bits_f32(0x7fc00000u);
  if (x == 0.0f) return concord_bits_f32(0xff800000u);
  if (x == concord_bits_f32(0x7f800000u)) return x;
  /* float subnormals are normal doubles, so one reduction serves every x. */
  int e;
  const double s = concord_xl_reduce_log((double)x, &e);
  const double l = s * concord_xl_atanh2_poly(s * s);
  return (float)((double)e + l * CONCORD_XL_LOG2E);
}

#endif /* CONCORD_CANON_F64 */

#endif /* CONCORD_CANON_EXPLOG_H */
