/* float64 exp, expm1, tanh and sigmoid of the reproducible mode, written once
 * for the CPU (C++) and OpenCL C (see canon_base.h for the portable subset).
 * canon_f64_log.h holds log, log1p and log2.
 *
 * Contract: every function maps a double to a double within 1 ULP of the true
 * value, with only + - * /, fma and bit operations, so the CPU and an OpenCL
 * device with float64 give the same bits. Measured maxima against long double
 * over 7M arguments on every exponent and around the branch points:
 * exp 0.510, expm1 0.564, tanh 0.561, sigmoid 0.510 ULP; 0.750 for exp and
 * sigmoid where the result is subnormal (rounded twice: to 53 bits, then to
 * the subnormal's precision).
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
 * Method: x = (64 k + j) ln2/64 + r with |r| <= ln2/128 carried as rh + rl
 * (ln2/64 in two parts, the first short so kd * ln2hi/64 is exact); exp(x) =
 * 2^k 2^(j/64) (1 + r + p(r)), the table 2^(j/64) held as hi + lo, p the
 * Taylor series from r^2 to r^6. expm1 near 0 (|x| < 0.125) sums its Taylor
 * series to x^13 instead, free of cancellation. Results are assembled in
 * double-double (two-sum, fma remainders) and rounded once; 2^k is applied in
 * two exact steps, so a subnormal result rounds once more only.
 */
#ifndef CONCORD_CANON_F64_H
#define CONCORD_CANON_F64_H

#ifndef __OPENCL_VERSION__
#include "backend/common/canon_base.h"
#endif

#if CONCORD_CANON_F64

#define CONCORD_F64_SHIFT 0x1.8p+52
/* ln2/64 = L64HI + L64LO; L64HI has 29 significant bits, so kd * L64HI is
 * exact for |kd| < 2^24. */
#define CONCORD_F64_INV_L64 0x1.71547652b82fep+6
#define CONCORD_F64_L64HI 0x1.62e42ffp-7
#define CONCORD_F64_L64LO -0x1.718432a1b0e26p-41

/* 2^(j/64) = hi + lo for j = 0..63, as {hi, lo} pairs (hi rounded to nearest,
 * lo the rounded rest). */
CONCORD_TABLE double concord_f64_exp2_64[128] = {
    0x1.0000000000000p+0, 0x0.0p+0,
    0x1.02c9a3e778061p+0, -0x1.19083535b085dp-56,
    0x1.059b0d3158574p+0, 0x1.d73e2a475b465p-55,
    0x1.0874518759bc8p+0, 0x1.186be4bb284ffp-57,
    0x1.0b5586cf9890fp+0, 0x1.8a62e4adc610bp-54,
    0x1.0e3ec32d3d1a2p+0, 0x1.03a1727c57b53p-59,
    0x1.11301d0125b51p+0, -0x1.6c51039449b3ap-54,
    0x1.1429aaea92de0p+0, -0x1.32fbf9af1369ep-54,
    0x1.172b83c7d517bp+0, -0x1.19041b9d78a76p-55,
    0x1.1a35beb6fcb75p+0, 0x1.e5b4c7b4968e4p-55,
    0x1.1d4873168b9aap+0, 0x1.e016e00a2643cp-54,
    0x1.2063b88628cd6p+0, 0x1.dc775814a8495p-55,
    0x1.2387a6e756238p+0, 0x1.9b07eb6c70573p-54,
    0x1.26b4565e27cddp+0, 0x1.2bd339940e9d9p-55,
    0x1.29e9df51fdee1p+0, 0x1.612e8afad1255p-55,
    0x1.2d285a6e4030bp+0, 0x1.0024754db41d5p-54,
    0x1.306fe0a31b715p+0, 0x1.6f46ad23182e4p-55,
    0x1.33c08b26416ffp+0, 0x1.32721843659a6p-54,
    0x1.371a7373aa9cbp+0, -0x1.63aeabf42eae2p-54,
    0x1.3a7db34e59ff7p+0, -0x1.5e436d661f5e3p-56,
    0x1.3dea64c123422p+0, 0x1.ada0911f09ebcp-55,
    0x1.4160a21f72e2ap+0, -0x1.ef3691c309278p-58,
    0x1.44e086061892dp+0, 0x1.89b7a04ef80d0p-59,
    0x1.486a2b5c13cd0p+0, 0x1.3c1a3b69062f0p-56,
    0x1.4bfdad5362a27p+0, 0x1.d4397afec42e2p-56,
    0x1.4f9b2769d2ca7p+0, -0x1.4b309d25957e3p-54,
    0x1.5342b569d4f82p+0, -0x1.07abe1db13cadp-55,
    0x1.56f4736b527dap+0, 0x1.9bb2c011d93adp-54,
    0x1.5ab07dd485429p+0, 0x1.6324c054647adp-54,
    0x1.5e76f15ad2148p+0, 0x1.ba6f93080e65ep-54,
    0x1.6247eb03a5585p+0, -0x1.383c17e40b497p-54,
    0x1.6623882552225p+0, -0x1.bb60987591c34p-54,
    0x1.6a09e667f3bcdp+0, -0x1.bdd3413b26456p-54,
    0x1.6dfb23c651a2fp+0, -0x1.bbe3a683c88abp-57,
    0x1.71f75e8ec5f74p+0, -0x1.16e4786887a99p-55,
    0x1.75feb564267c9p+0, -0x1.0245957316dd3p-54,
    0x1.7a11473eb0187p+0, -0x1.41577ee04992fp-55,
    0x1.7e2f336cf4e62p+0, 0x1.05d02ba15797ep-56,
    0x1.82589994cce13p+0, -0x1.d4c1dd41532d8p-54,
    0x1.868d99b4492edp+0, -0x1.fc6f89bd4f6bap-54,
    0x1.8ace5422aa0dbp+0, 0x1.6e9f156864b27p-54,
    0x1.8f1ae99157736p+0, 0x1.5cc13a2e3976cp-55,
    0x1.93737b0cdc5e5p+0, -0x1.75fc781b57ebcp-57,
    0x1.97d829fde4e50p+0, -0x1.d185b7c1b85d1p-54,
    0x1.9c49182a3f090p+0, 0x1.c7c46b071f2bep-56,
    0x1.a0c667b5de565p+0, -0x1.359495d1cd533p-54,
    0x1.a5503b23e255dp+0, -0x1.d2f6edb8d41e1p-54,
    0x1.a9e6b5579fdbfp+0, 0x1.0fac90ef7fd31p-54,
    0x1.ae89f995ad3adp+0, 0x1.7a1cd345dcc81p-54,
    0x1.b33a2b84f15fbp+0, -0x1.2805e3084d708p-57,
    0x1.b7f76f2fb5e47p+0, -0x1.5584f7e54ac3bp-56,
    0x1.bcc1e904bc1d2p+0, 0x1.23dd07a2d9e84p-55,
    0x1.c199bdd85529cp+0, 0x1.11065895048ddp-55,
    0x1.c67f12e57d14bp+0, 0x1.2884dff483cadp-54,
    0x1.cb720dcef9069p+0, 0x1.503cbd1e949dbp-56,
    0x1.d072d4a07897cp+0, -0x1.cbc3743797a9cp-54,
    0x1.d5818dcfba487p+0, 0x1.2ed02d75b3707p-55,
    0x1.da9e603db3285p+0, 0x1.c2300696db532p-54,
    0x1.dfc97337b9b5fp+0, -0x1.1a5cd4f184b5cp-54,
    0x1.e502ee78b3ff6p+0, 0x1.39e8980a9cc8fp-55,
    0x1.ea4afa2a490dap+0, -0x1.e9c23179c2893p-54,
    0x1.efa1bee615a27p+0, 0x1.dc7f486a4b6b0p-54,
    0x1.f50765b6e4540p+0, 0x1.9d3e12dd8a18bp-54,
    0x1.fa7c1819e90d8p+0, 0x1.74853f3a5931ep-55,
};

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

/* x = (64 k + j) ln2/64 + rh + rl with 0 <= j < 64, |rh| <= 0.00543,
 * |rl| <= ulp(rh); returns k, for |x| <= 746. kd * L64HI is exact and
 * x - kd * L64HI exact by Sterbenz. */
static inline int concord_f64_exp_reduce(double x, int* j, double* rh, double* rl) {
  CONCORD_NO_CONTRACT
  const double t = x * CONCORD_F64_INV_L64 + CONCORD_F64_SHIFT;
  const double kd = t - CONCORD_F64_SHIFT;
  const double r1 = x - kd * CONCORD_F64_L64HI;
  *rh = concord_f64_two_sum(r1, -(kd * CONCORD_F64_L64LO), rl);
  const int ki = (int)kd;
  *j = ki & 63;
  return (ki - *j) / 64;
}

/* exp(x) = 2^k (hi + lo), hi + lo in [0.99, 2.01] normalised; |x| <= 746.
 * 2^(j/64) (1 + r + p) with p = the Taylor series from r^2 to r^6
 * (r^7/7! < 2^-64), every product of the small terms below 2^-60. */
static inline int concord_f64_exp_dd(double x, double* hi, double* lo) {
  CONCORD_NO_CONTRACT
  int j;
  double rh, rl;
  const int k = concord_f64_exp_reduce(x, &j, &rh, &rl);
  double q = rh * 0x1.6c16c16c16c17p-10 + 0x1.1111111111111p-7; /* 1/6!, 1/5! */
  q = q * rh + 0x1.5555555555555p-5;                             /* 1/4! */
  q = q * rh + 0x1.5555555555555p-3;                             /* 1/3! */
  q = q * rh + 0.5;
  const double p = rh * rh * q + (rl + rl * rh);
  const double th = concord_f64_exp2_64[2 * j], tl = concord_f64_exp2_64[2 * j + 1];
  const double l = tl + (th * rh + (th * p + tl * (rh + p)));
  *hi = th + l;                                /* fast two-sum: |th| >= |l| */
  *lo = l - (*hi - th);
  return k;
}

/* expm1(x) - x = th + tl for |x| <= 0.125, to about 2^-60 relative: x^2/2
 * exact (fma), then the Taylor series to x^13 (x^14/14! < 4.3e-18). */
static inline double concord_f64_expm1_tail(double x, double* tl) {
  CONCORD_NO_CONTRACT
  double q = x * 0x1.6124613a86d09p-33 + 0x1.1eed8eff8d898p-29; /* 1/13!, 1/12! */
  q = q * x + 0x1.ae64567f544e4p-26;                              /* 1/11! */
  q = q * x + 0x1.27e4fb7789f5cp-22;                              /* 1/10! */
  q = q * x + 0x1.71de3a556c734p-19;                              /* 1/9! */
  q = q * x + 0x1.a01a01a01a01ap-16;                              /* 1/8! */
  q = q * x + 0x1.a01a01a01a01ap-13;                              /* 1/7! */
  q = q * x + 0x1.6c16c16c16c17p-10;                              /* 1/6! */
  q = q * x + 0x1.1111111111111p-7;                               /* 1/5! */
  q = q * x + 0x1.5555555555555p-5;                               /* 1/4! */
  q = q * x + 0x1.5555555555555p-3;                               /* 1/3! */
  const double x2 = x * x;
  *tl = 0.5 * CONCORD_FMA_F64(x, x, -x2) + x2 * x * q;
  return 0.5 * x2;
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

/* expm1(x) = hi + lo for -40 <= x <= 40, |lo| <= ulp(hi) / 2. Near 0 the
 * series (no cancellation), else 2^k (yh + yl) - 1 with an exact two-sum. */
static inline double concord_f64_expm1_dd(double x, double* lo) {
  CONCORD_NO_CONTRACT
  double h, l, e;
  if (x < 0.125 && x > -0.125) {
    double tl;
    const double th = concord_f64_expm1_tail(x, &tl);
    h = concord_f64_two_sum(x, th, &l);
    l = l + tl;
  } else {
    double yh, yl;
    const double s = concord_f64_pow2(concord_f64_exp_dd(x, &yh, &yl));
    h = concord_f64_two_sum(s * yh, -1.0, &e);
    l = e + s * yl;
  }
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
