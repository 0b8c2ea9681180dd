/* float32 sin, cos and tan with the same bits on every device (the
 * reproducible mode, issue 18); float16 and bfloat16 go through float32.
 *
 * Compiled as C++ (cpu/unary.cpp, in the mode) and as OpenCL C 1.2 (prepended
 * to every program; elementwise.cl uses it where the device has float64), so
 * it keeps to canon_base.h's subset: + - * /, integer and bit operations, no
 * library calls, no contraction.
 *
 *   float concord_sin_f32(float x)    sin(x), |error| < 0.5 ULP + 2^-20 ULP
 *   float concord_cos_f32(float x)    cos(x), likewise
 *   float concord_tan_f32(float x)    tan(x), likewise
 *
 * Method: the argument is reduced to r = x - q pi/2, |r| <= pi/4, exactly for
 * every float32 (Payne-Hanek: the 24-bit significand times a 160-bit window of
 * the bits of 2/pi in integer arithmetic, which keeps at least 95 bits after
 * the binary point, more than the closest float32 to a multiple of pi/2 needs),
 * then r is rounded to double and the Taylor polynomials of sin and cos are
 * evaluated in double (relative error about 2^-52) and rounded once to float:
 * over every float32, within 0.5 ULP of the C library's double sin, cos, tan
 * (correctly rounded but for the reference's own double rounding).
 * Edge cases, as the C library: sin/tan(±0) = ±0, cos(±0) = 1, tiny x gives x
 * for sin and tan, ±inf and NaN give NaN.
 * Example (C++): concord_sin_f32(1e30f) == sinf(1e30f) (both -0.0646...).
 */
#ifndef CONCORD_CANON_TRIG_H
#define CONCORD_CANON_TRIG_H

#ifndef __OPENCL_VERSION__
#include "backend/common/canon_base.h"
#endif

#if CONCORD_CANON_F64

/* 2/pi in binary, 32 bits a word, most significant first (320 bits). */
CONCORD_TABLE concord_u32 concord_two_over_pi[10] = {
    0xA2F9836Eu, 0x4E441529u, 0xFC2757D1u, 0xF534DDC0u, 0xDB629599u,
    0x3C439041u, 0xFE5163ABu, 0xDEBBC561u, 0xB7246E3Au, 0x424DD2E0u};

#define CONCORD_PIO2_HI 0x1.921fb54442d18p+0
#define CONCORD_PIO2_LO 0x1.1a62633145c07p-54

typedef struct {
  double r; /* x - q pi/2, |r| <= pi/4 (plus rounding) */
  int q;    /* the quadrant, q mod 4 */
} concord_trig_arg;

/* ax = |x|, finite and >= pi/4. |x| = m 2^s with m the 24-bit significand;
 * x 2/pi mod 4 = m 2^s T mod 4, and the words of T before word j only add
 * multiples of 4 (their lowest weight 2^(s - 32 j) >= 4), so the product
 * P = m * T[j..j+4] (192 bits) holds the quadrant and >= 95 fraction bits; the
 * words after j+4 change the fraction by < 2^-103. */
static inline concord_trig_arg concord_trig_reduce(float ax) {
  CONCORD_NO_CONTRACT
  const concord_u32 b = concord_f32_bits(ax);
  const int s = (int)(b >> 23) - 150; /* -24 .. 104 */
  const concord_u64 m = (concord_u64)((b & 0x7FFFFFu) | 0x800000u);
  const int j = s >= 2 ? (s - 2) >> 5 : 0;
  concord_u64 t4 = m * concord_two_over_pi[j + 4];
  concord_u64 t3 = m * concord_two_over_pi[j + 3] + (t4 >> 32);
  concord_u64 t2 = m * concord_two_over_pi[j + 2] + (t3 >> 32);
  concord_u64 t1 = m * concord_two_over_pi[j + 1] + (t2 >> 32);
  concord_u64 t0 = m * concord_two_over_pi[j] + (t1 >> 32);
  /* P as three 64-bit limbs, most significant first */
  const concord_u64 p2 = t0;
  const concord_u64 p1 = (t1 << 32) | (t2 & 0xFFFFFFFFu);
  const concord_u64 p0 = (t3 << 32) | (t4 & 0xFFFFFFFFu);
  /* P has 32 (j + 5) - s fraction bits; shift so that 2 integer bits and 126
   * fraction bits fill (hi, lo). sh is 1 .. 58. */
  const int sh = 32 * (j + 5) - s - 126;
  const concord_u64 hi = (p1 >> sh) | (p2 << (64 - sh));
  const concord_u64 lo = (p0 >> sh) | (p1 << (64 - sh));
  concord_trig_arg a;
  /* round to the nearest quadrant: the fraction becomes signed, in [-1/2, 1/2) */
  a.q = (int)(((hi + ((concord_u64)1 << 61)) >> 62) & 3u);
  concord_u64 fh = (hi << 2) | (lo >> 62);
  concord_u64 fl = lo << 2;
  const int neg = (int)(fh >> 63);
  if (neg) {
    fh = ~fh;
    fl = ~fl + 1u;
    if (fl == 0) fh += 1u;
  }
  /* |fraction| = (fh, fl) 2^-128, nonzero (pi is irrational); its top 64 bits to double */
  const int lz = fh != 0 ? concord_clz64(fh) : 64 + concord_clz64(fl);
  concord_u64 top;
  if (lz == 0) top = fh;
  else if (lz < 64) top = (fh << lz) | (fl >> (64 - lz));
  else if (lz == 64) top = fl;
  else top = fl << (lz - 64);
  const double d = (double)(top >> 11) + (double)(top & 0x7FFu) * 0x1p-11; /* one rounding */
  const double f = d * concord_bits_f64((concord_u64)(1023 - 53 - lz) << 52);  /* 2^(-53-lz), exact */
  const double r = f * CONCORD_PIO2_HI + f * CONCORD_PIO2_LO;
  a.r = neg ? -r : r;
  return a;
}

/* sin(r) - r for |r| <= pi/4 + 2^-20: Taylor to r^19 (truncation < 2^-60 |r|). */
static inline double concord_sin_poly(double r) {
  CONCORD_NO_CONTRACT
  const double z = r * r;
  double p = -0x1.2f49b46814157p-57;
  p = p * z + 0x1.952c77030ad4ap-49;
  p = p * z - 0x1.ae7f3e733b81fp-41;
  p = p * z + 0x1.6124613a86d09p-33;
  p = p * z - 0x1.ae64567f544e4p-26;
  p = p * z + 0x1.71de3a556c734p-19;
  p = p * z - 0x1.a01a01a01a01ap-13;
  p = p * z + 0x1.1111111111111p-7;
  p = p * z - 0x1.5555555555555p-3;
  return r + (r * z) * p;
}

/* cos(r) for |r| <= pi/4 + 2^-20: Taylor to r^18 (truncation < 2^-57). */
static inline double concord_cos_poly(double r) {
  CONCORD_NO_CONTRACT
  const double z = r * r;
  double p = -0x1.6827863b97d97p-53;
  p = p * z + 0x1.ae7f3e733b81fp-45;
  p = p * z - 0x1.93974a8c07c9dp-37;
  p = p * z + 0x1.1eed8eff8d898p-29;
  p = p * z - 0x1.27e4fb7789f5cp-22;
  p = p * z + 0x1.a01a01a01a01ap-16;
  p = p * z - 0x1.6c16c16c16c17p-10;
  p = p * z + 0x1.5555555555555p-5;
  return 1.0 - 0.5 * z + (z * z) * p;
}

/* The reduced argument of x: |x| itself up to float32(pi/4) (rounded up), else
 * Payne-Hanek. x finite. */
static inline concord_trig_arg concord_trig_arg_of(float x) {
  const float ax = concord_bits_f32(concord_f32_bits(x) & 0x7FFFFFFFu);
  if (ax <= 0x1.921fb6p-1f) {
    concord_trig_arg a;
    a.r = (double)ax;
    a.q = 0;
    return a;
  }
  return concord_trig_reduce(ax);
}

static inline float concord_sin_f32(float x) {
  CONCORD_NO_CONTRACT
  if (!(x - x == 0.0f)) return x - x; /* inf or NaN: NaN */
  const concord_trig_arg a = concord_trig_arg_of(x);
  double v = (a.q & 1) ? concord_cos_poly(a.r) : concord_sin_poly(a.r);
  if (a.q & 2) v = -v;
  if (concord_f32_bits(x) >> 31) v = -v; /* sin is odd: -0 keeps its sign */
  return (float)v;
}

static inline float concord_cos_f32(float x) {
  CONCORD_NO_CONTRACT
  if (!(x - x == 0.0f)) return x - x;
  const concord_trig_arg a = concord_trig_arg_of(x);
  double v = (a.q & 1) ? concord_sin_poly(a.r) : concord_cos_poly(a.r);
  if (((a.q + 1) & 2) != 0) v = -v; /* q = 1, 2: negative */
  return (float)v;
}

static inline float concord_tan_f32(float x) {
  CONCORD_NO_CONTRACT
  if (!(x - x == 0.0f)) return x - x;
  const concord_trig_arg a = concord_trig_arg_of(x);
  const double s = concord_sin_poly(a.r), c = concord_cos_poly(a.r);
  double v = (a.q & 1) ? -c / s : s / c;
  if (concord_f32_bits(x) >> 31) v = -v;
  return (float)v;
}

#endif /* CONCORD_CANON_F64 */

#endif /* CONCORD_CANON_TRIG_H */
