/* float64 erf and gelu of the reproducible mode, written once for the CPU (C++) and
 * OpenCL C (canon_base.h's subset; canon_f64.h, which precedes this file,
 * gives the double-double exp and the two-sum).
 *
 *   double concord_erf_f64(double x)    erf(x)
 *   double concord_gelu_f64(double x)   x/2 erfc(-x/sqrt2)
 *
 * Contract: within 1 ULP of the true value (measured against long double
 * erfl over 4M values: 0.508 ULP; 0.745 where the result is subnormal, which
 * is rounded twice), the same bits on the CPU and on an OpenCL device with
 * float64. Special values are the C library's:
 * erf(+-0) = +-0, erf(+-inf) = +-1, NaN in, NaN out; erf(x) rounds to +-1
 * from |x| = 6 on (erfc(6) < 2^-54); subnormal x gives 2x/sqrt(pi) rounded.
 * gelu: within 1 ULP (0.501 against mpmath over 4000 points on [-38.7, 9],
 * 0.508 against a long double reference over 1.3M), as the CPU's default
 * kernel: gelu(+-0) = +-0, gelu(+inf) = +inf, gelu(-inf) = -0, x for
 * x > 8.5, -0 below -38.6 (the result is below half the smallest subnormal).
 * Example (C++): concord_erf_f64(0.5) == 0.5204998778130465.
 *
 * Method: |x| < 2: erf(x) = 2/sqrt(pi) x e^(-x^2) sum_n (2x^2)^n / (2n+1)!!,
 * every term positive (no cancellation); the sum by Horner in double-double
 * with the coefficients in two parts (the dropped tail below 2^-66), e^(-x^2)
 * with x^2 split exactly by an fma and a double-double exp (canon_f64.h's
 * reduction and table, the product 2^(j/64) r kept exact: ~2^-66), the
 * products in double-double, rounded once. 2 <= |x| < 6: erf = 1 - erfc,
 * erfc(x) = e^(-x^2)/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + ...))))
 * evaluated bottom-up in double (erfc <= 0.0047, so its relative error of a
 * few 2^-53 is below 2^-60 of erf). |x| < 2^-900: 2x/sqrt(pi) alone, the
 * product in double-double on 2^64 x (so its fma remainder is exact).
 * gelu needs erfc(z) to ~2^-60 relative where it is small (z = -x/sqrt2 up to
 * 27.3): the same series for |z| < 2 (1 - erf there cancels by at most 8
 * bits, which the exp's 2^-66 absorbs), the continued fraction in
 * double-double from 2 on,
 * and the rounding of z itself (z = zh + zl by an fma, which moves erfc by
 * up to 2 z^2 2^-53 relative) corrected to first order: - zl 2/sqrt(pi) e^(-zh^2).
 */
#ifndef CONCORD_CANON_F64_ERF_H
#define CONCORD_CANON_F64_ERF_H

#ifndef __OPENCL_VERSION__
#include "backend/common/canon_f64.h"
#endif

#if CONCORD_CANON_F64

/* 1 / (2n+1)!! = hi + lo for n = 0..33, as {hi, lo} pairs. */
CONCORD_TABLE double concord_f64_erf_coef[68] = {
    0x1.0000000000000p+0, 0.0, 0x1.5555555555555p-2, 0x1.5555555555555p-56,
    0x1.1111111111111p-4, 0x1.1111111111111p-60, 0x1.3813813813814p-7, -0x1.fb1fb1fb1fb20p-61,
    0x1.1566abc011567p-10, -0x1.50ffbaa655100p-64, 0x1.937e11175f095p-14, 0x1.5ba34d99b2d18p-68,
    0x1.f09b28ba4d955p-18, 0x1.5d17c1f83e8bbp-72, 0x1.08db48ebe51c7p-21, 0x1.d7aa2655dac39p-77,
    0x1.f28db670be53bp-26, -0x1.b8a0dee6a81c7p-80, 0x1.a3d5a71b92cd3p-30, 0x1.8d4a562d73466p-90,
    0x1.3fdfbc45c52eap-34, -0x1.732d38d943a75p-90, 0x1.bd0ac3296b624p-39, 0x1.87db354a65235p-96,
    0x1.1cd3b01a822a6p-43, 0x1.b8f2d110310d1p-97, 0x1.519297d390c9fp-48, 0x1.4cf9db558f77cp-102,
    0x1.747e72912d023p-53, -0x1.bcb75498c2cb4p-107, 0x1.808286c768445p-58, -0x1.25e688dfc0d1dp-112,
    0x1.74dba97b8be52p-63, 0x1.2adc0dd1eee53p-118, 0x1.54e6174c62a5ap-68, -0x1.10fa7d56e33f7p-122,
    0x1.26d4d5e132b8cp-73, -0x1.f58c1278b14a4p-129, 0x1.e3d36c1c38faap-79, 0x1.dce75ae22d6b6p-133,
    0x1.799ec4c4db4d0p-84, -0x1.b6467e5532f50p-142, 0x1.19050980a3336p-89, -0x1.c1093b75143b0p-143,
    0x1.8fac24452c5fdp-95, -0x1.df5715fbd8817p-149, 0x1.101e0dcd0ddf3p-100, -0x1.04ff60ab782c9p-154,
    0x1.636b2c25f2c57p-106, 0x1.6b1bbf8e727bfp-161, 0x1.be03fb2a9a10ep-112, 0x1.b0c641d24b224p-170,
    0x1.0d4adb45318cap-117, -0x1.4b7145f8107c5p-171, 0x1.395bc2a44c468p-123, 0x1.670c7b61aba74p-177,
    0x1.5fd74f512d38cp-129, -0x1.83504d0b99175p-183, 0x1.7da878c0310ddp-135, -0x1.f45815e438cd6p-191,
    0x1.906d9c10fce8bp-141, 0x1.a6babb4ea15d0p-195, 0x1.96c8bf0d31af7p-147, 0x1.1b2758b166f8fp-201,
    0x1.9086a47b449d0p-153, 0x1.abc671512ae30p-211, 0x1.7e978a031f273p-159, -0x1.648cfd0e42374p-213,
};

/* p + e = a * b exactly. */
static inline double concord_f64_two_prod_e(double a, double b, double* e) {
  CONCORD_NO_CONTRACT
  const double p = a * b;
  *e = CONCORD_FMA_F64(a, b, -p);
  return p;
}

/* (ah + al) (bh + bl) = hi + lo, to about 2^-104 relative. */
static inline double concord_f64_erf_mul(double ah, double al, double bh, double bl, double* lo) {
  CONCORD_NO_CONTRACT
  const double p = ah * bh;
  const double e = CONCORD_FMA_F64(ah, bh, -p) + (ah * bl + al * bh);
  const double hi = p + e;                     /* fast two-sum: |p| >= |e| */
  *lo = e - (hi - p);
  return hi;
}

/* e^x = 2^k (hi + lo) for -746 < x < 709, to about 2^-66 relative:
 * canon_f64.h's reduction and table, the Taylor series to r^7, and the
 * product 2^(j/64) r exact (fma), which concord_f64_exp_dd rounds. */
static inline int concord_f64_erf_exp(double x, double* hi, double* lo) {
  CONCORD_NO_CONTRACT
  int j;
  double rh, rl, ae, e;
  const int k = concord_f64_exp_reduce(x, &j, &rh, &rl);
  double q = rh * 0x1.a01a01a01a01ap-13 + 0x1.6c16c16c16c17p-10; /* 1/7!, 1/6! */
  q = q * rh + 0x1.1111111111111p-7;                              /* 1/5! */
  q = q * rh + 0x1.5555555555555p-5;                              /* 1/4! */
  q = q * rh + 0x1.5555555555555p-3;                              /* 1/3! */
  q = q * rh + 0.5;
  const double p = rh * rh * q + (rl + rl * rh); /* e^r - 1 - rh */
  const double th = concord_f64_exp2_64[2 * j], tl = concord_f64_exp2_64[2 * j + 1];
  const double a = concord_f64_two_prod_e(th, rh, &ae);
  const double l = ae + (tl + (th * p + tl * (rh + p)));
  const double sh = concord_f64_two_sum(th, a, &e);
  const double sl = e + l;
  *hi = sh + sl;                               /* fast two-sum: |sh| >= |sl| */
  *lo = sl - (*hi - sh);
  return k;
}

/* e^(-x^2) = 2^k (hi + lo) for 0 <= x < 27.3: x^2 = q + ql exactly,
 * e^(-q) (1 - ql). */
static inline int concord_f64_erf_gauss(double x, double* hi, double* lo) {
  CONCORD_NO_CONTRACT
  double eh, el;
  const double q = x * x;
  const double ql = CONCORD_FMA_F64(x, x, -q);
  const int k = concord_f64_erf_exp(-q, &eh, &el);
  *hi = eh;
  *lo = el - eh * ql;
  return k;
}

/* erf(x) / x = hi + lo for 0 <= x < 2 (x^2 may underflow to 0). */
static inline double concord_f64_erf_series_dd(double x, double* lo) {
  CONCORD_NO_CONTRACT
  const int n_terms = x < 0.25 ? 10 : x < 0.5 ? 13 : x < 1.0 ? 20 : x < 1.5 ? 26 : 33;
  const double q = x * x;
  const double th = 2.0 * q, tl = 2.0 * CONCORD_FMA_F64(x, x, -q); /* t = 2x^2 exactly */
  double sh = concord_f64_erf_coef[2 * n_terms], sl = concord_f64_erf_coef[2 * n_terms + 1];
  int n;
  for (n = n_terms - 1; n >= 0; --n) {
    double pl, e;
    const double ph = concord_f64_erf_mul(sh, sl, th, tl, &pl);
    sh = concord_f64_two_sum(ph, concord_f64_erf_coef[2 * n], &e);
    sl = e + (pl + concord_f64_erf_coef[2 * n + 1]);
  }
  double gh, gl, al;
  const int k = concord_f64_erf_gauss(x, &gh, &gl);
  const double s = concord_f64_pow2(k);        /* k >= -6: exact scaling */
  const double ah = concord_f64_erf_mul(sh, sl, gh * s, gl * s, &al);
  return concord_f64_erf_mul(ah, al, 0x1.20dd750429b6dp+0, 0x1.1ae3a914fed80p-56, lo); /* 2/sqrt(pi) */
}

/* erf(x) for 2^-900 <= x < 2, rounded once. */
static inline double concord_f64_erf_series(double x) {
  CONCORD_NO_CONTRACT
  double bl;
  const double bh = concord_f64_erf_series_dd(x, &bl);
  const double p = bh * x;
  return p + (CONCORD_FMA_F64(bh, x, -p) + bl * x);
}

/* erfc(x) for 2 <= x < 6 (the continued fraction, its depth set for < 2e-16
 * relative; the tail below the last level starts at its fixed point
 * f = x + (depth + 1) / (2f)). */
static inline double concord_f64_erfc_fraction(double x) {
  CONCORD_NO_CONTRACT
  double gh, gl;
  const int depth = x < 2.5 ? 44 : x < 3.0 ? 30 : x < 4.0 ? 24 : 16;
  double f = 0.5 * (x + CONCORD_SQRT_F64(x * x + (double)(2 * depth + 2)));
  int n;
  for (n = depth; n >= 1; --n) f = x + (0.5 * (double)n) / f;
  const int k = concord_f64_erf_gauss(x, &gh, &gl);
  return 0x1.20dd750429b6dp-1 * ((gh + gl) * concord_f64_pow2(k)) / f; /* 1/sqrt(pi) */
}

/* erfc(z) = 2^k (hi + lo) for 2 <= z < 27.3, to about 2^-62 relative: the
 * continued fraction in double-double (its depth set by z, the tail started
 * at its fixed point), e^(-z^2) / sqrt(pi) / f. */
static inline int concord_f64_erfc_dd(double z, double* hi, double* lo) {
  CONCORD_NO_CONTRACT
  const int depth = z < 2.5 ? 120 : z < 3.0 ? 90 : z < 4.0 ? 64 : z < 6.0 ? 40 : z < 10.0 ? 24 : 16;
  double fh = 0.5 * (z + CONCORD_SQRT_F64(z * z + (double)(2 * depth + 2))), fl = 0.0, e, gh, gl, ql;
  int n;
  for (n = depth; n >= 1; --n) {
    const double c = 0.5 * (double)n;          /* f = z + c / f */
    const double dh = c / fh;
    const double dl = (CONCORD_FMA_F64(-dh, fh, c) - dh * fl) / fh;
    fh = concord_f64_two_sum(z, dh, &e);
    fl = e + dl;
  }
  const int k = concord_f64_erf_gauss(z, &gh, &gl);
  const double ph = concord_f64_erf_mul(gh, gl, 0x1.20dd750429b6dp-1, 0x1.1ae3a914fed80p-57, &ql); /* 1/sqrt(pi) */
  const double q = ph / fh;
  const double r = ((CONCORD_FMA_F64(-q, fh, ph) + ql) - q * fl) / fh;
  *hi = q + r;
  *lo = r - (*hi - q);
  return k;
}

/* gelu(x) = x/2 erfc(z), z = -x/sqrt2 = zh + zl (fma). erfc(zh) = 2^k (eh + el)
 * in double-double: 2 - erfc(-zh) below -2 (that erfc in double suffices),
 * 1 -+ erf in (-2, 2), the fraction from 2 to 27.3 (beyond, the result is
 * below half the smallest subnormal); then erfc(zh + zl) = erfc(zh) - zl
 * 2/sqrt(pi) e^(-zh^2), x/2 times it rounded once, scaled by 2^k. */
static inline double concord_gelu_f64(double x) {
  CONCORD_NO_CONTRACT
  double eh, el, e, gh, gl;
  int k = 0;
  if (x != x) return x + x;
  if (x > 8.5) return x;                       /* erfc(-6.01) = 2 - 2e-17: x (1 - 1e-17) rounds to x */
  if (x < -38.6) return concord_bits_f64(0x8000000000000000UL); /* below 2^-1076: -0 (-inf included) */
  const double h = x * 0.5;
  if (x < 0x1p-60 && x > -0x1p-60) return h;   /* x/2 (1 + x/sqrt(2 pi)) rounds to x/2 */
  const double zh = x * -0x1.6a09e667f3bcdp-1;
  const double zl = CONCORD_FMA_F64(x, -0x1.6a09e667f3bcdp-1, -zh) + x * 0x1.bdd3413b26456p-55; /* -1/sqrt2 = -0x1.6a09e667f3bcdp-1 + 0x1.bdd3413b26456p-55 */
  const double az = zh < 0.0 ? -zh : zh;
  if (zh <= -2.0) {
    eh = concord_f64_two_sum(2.0, -concord_f64_erfc_fraction(az), &el);
  } else if (zh < 2.0) {
    double sl;
    const double sh = concord_f64_erf_series_dd(az, &sl); /* erf(|zh|) / |zh| */
    double ph = concord_f64_erf_mul(sh, sl, az, 0.0, &sl);
    if (zh > 0.0) ph = -ph, sl = -sl;
    eh = concord_f64_two_sum(1.0, ph, &e);
    el = e + sl;
  } else {
    k = concord_f64_erfc_dd(zh, &eh, &el);
  }
  /* the correction for zl, relative to erfc at most 2^-53 2 z^2: double suffices */
  const int kg = concord_f64_erf_gauss(az, &gh, &gl);
  el = el - zl * 0x1.20dd750429b6dp+0 * gh * concord_f64_pow2(kg - k);
  const double p = h * eh;
  const double v = p + (CONCORD_FMA_F64(h, eh, -p) + h * el);
  return k == 0 ? v : concord_f64_scale(v, k);
}

static inline double concord_erf_f64(double x) {
  CONCORD_NO_CONTRACT
  if (x != x) return x + x;
  const int neg = (int)(concord_f64_bits(x) >> 63); /* keeps erf(-0) = -0 */
  const double a = neg ? -x : x;
  double r;
  if (a < 0x1p-900) {                          /* 2x/sqrt(pi) (x^3 is far below): the product */
    const double b = a * 0x1p64;               /* in double-double on 2^64 x, so its remainder */
    const double p = b * 0x1.20dd750429b6dp+0; /* is exact, then one rounding to the result */
    r = (p + (CONCORD_FMA_F64(b, 0x1.20dd750429b6dp+0, -p) + b * 0x1.1ae3a914fed80p-56)) * 0x1p-64;
  } else if (a < 2.0) r = concord_f64_erf_series(a);
  else if (a < 6.0) r = 1.0 - concord_f64_erfc_fraction(a);
  else r = 1.0;
  return neg ? -r : r;
}

#endif /* CONCORD_CANON_F64 */
#endif /* CONCORD_CANON_F64_ERF_H */
