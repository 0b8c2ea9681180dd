/* Philox 4x32-10 and the number transforms of rand / randn / randint.
 *
 * This file is compiled twice: as C++ by the CPU kernels and as OpenCL C 1.2
 * (the build embeds every header of src/backend/common and prepends them to OpenCL
 * programs). It therefore uses only the common subset of C: no templates, no
 * namespaces, no library calls, concord_-prefixed names, and floating-point
 * code restricted to + - * / and sqrt with contraction off, so that both
 * compilers produce the same bits. The OpenCL program must be built with
 * -cl-fp32-correctly-rounded-divide-sqrt (ocl::Context::program adds it where
 * the device supports it); float / and sqrt are otherwise allowed 2.5-3 ulp.
 *
 * Element mapping (the contract every device follows):
 *   element i of a tensor drawn with (seed, offset) is a pure function of
 *   (seed, offset + i):  with n = offset + i,
 *     counter = (lo32(n), hi32(n), 0, 0),  key = (lo32(seed), hi32(seed)),
 *     (x0, x1, x2, x3) = philox4x32_10(counter, key).
 *   rand float32      (x0 >> 8) * 2^-24                      in [0, 1)
 *   rand float64      ((x0 << 21) | (x1 >> 11)) * 2^-53      in [0, 1)
 *   rand float16/bf16 min(float32 draw, largest value below 1 in the type),
 *                     then rounded to nearest even (so a draw that would round
 *                     up to 1.0 gives the largest value below 1 instead)
 *   randn float32     Box-Muller: u1 = ((x0 >> 8) + 1) * 2^-24 in (0, 1],
 *                     u2 = (x1 >> 8) * 2^-24, z = sqrt(-2 log u1) * cos(2 pi u2)
 *   randn float64     the same in double with 53-bit u1 from (x0, x1) and u2
 *                     from (x2, x3)
 *   randn half types  the float32 normal, rounded to nearest even
 *   randint [lo, hi)  lo + mulhi64(r, hi - lo) with r = (x0 << 32) | x1 (the
 *                     high 64 bits of the 128-bit product): every value is hit
 *                     by floor or ceil of 2^64 / (hi - lo) inputs, a bias below
 *                     (hi - lo) / 2^64
 * log and cos are evaluated here with polynomials (about 1-2 ulp); libm is
 * never called, since its results differ between platforms.
 */
#ifndef CONCORD_PHILOX_H
#define CONCORD_PHILOX_H

#ifndef __OPENCL_VERSION__
#include "backend/common/canon_base.h"
#endif
/* canon_base.h's portability layer under this file's historical names. */
#define CONCORD_PHILOX_F64 CONCORD_CANON_F64
#define CONCORD_PHILOX_NO_CONTRACT CONCORD_NO_CONTRACT

typedef struct {
  concord_u32 w0, w1, w2, w3;
} concord_u32x4;

/* ---- the generator ------------------------------------------------------ */

#define CONCORD_PHILOX_M0 0xD2511F53u
#define CONCORD_PHILOX_M1 0xCD9E8D57u
#define CONCORD_PHILOX_W0 0x9E3779B9u
#define CONCORD_PHILOX_W1 0xBB67AE85u

static inline concord_u32x4 concord_philox_round(concord_u32x4 c, concord_u32 k0, concord_u32 k1) {
  const concord_u64 p0 = (concord_u64)CONCORD_PHILOX_M0 * c.w0;
  const concord_u64 p1 = (concord_u64)CONCORD_PHILOX_M1 * c.w2;
  concord_u32x4 r;
  r.w0 = (concord_u32)(p1 >> 32) ^ c.w1 ^ k0;
  r.w1 = (concord_u32)p1;
  r.w2 = (concord_u32)(p0 >> 32) ^ c.w3 ^ k1;
  r.w3 = (concord_u32)p0;
  return r;
}

/* Philox 4x32 with 10 rounds (Salmon et al., SC'11); the key is bumped by the
 * Weyl constants between rounds. */
static inline concord_u32x4 concord_philox4x32_10(concord_u32x4 ctr, concord_u32 k0, concord_u32 k1) {
  int i;
  for (i = 0; i < 9; ++i) {
    ctr = concord_philox_round(ctr, k0, k1);
    k0 += CONCORD_PHILOX_W0;
    k1 += CONCORD_PHILOX_W1;
  }
  return concord_philox_round(ctr, k0, k1);
}

/* The four words of element number n = offset + i (see the mapping above). */
static inline concord_u32x4 concord_philox_element(concord_u64 seed, concord_u64 n) {
  concord_u32x4 c;
  c.w0 = (concord_u32)n;
  c.w1 = (concord_u32)(n >> 32);
  c.w2 = 0u;
  c.w3 = 0u;
  return concord_philox4x32_10(c, (concord_u32)seed, (concord_u32)(seed >> 32));
}

/* ---- uniform ------------------------------------------------------------ */

/* Largest float16 / bfloat16 below 1 (1 - 2^-11, 1 - 2^-8). */
#define CONCORD_F16_BELOW_ONE 0x1.ffcp-1f
#define CONCORD_BF16_BELOW_ONE 0x1.fep-1f

static inline float concord_uniform_f32(concord_u32 x0) {
  CONCORD_PHILOX_NO_CONTRACT
  return (float)(x0 >> 8) * 0x1p-24f;
}

/* For the half types: rounding the result to the type cannot give 1.0. */
static inline float concord_uniform_f32_below(concord_u32 x0, float below_one) {
  const float u = concord_uniform_f32(x0);
  return u > below_one ? below_one : u;
}

/* ---- randint ------------------------------------------------------------ */

/* High 64 bits of a * b, from 32-bit partial products (no 128-bit type in OpenCL C). */
static inline concord_u64 concord_mulhi64(concord_u64 a, concord_u64 b) {
  const concord_u64 a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu, b1 = b >> 32;
  const concord_u64 p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const concord_u64 mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
  return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

/* An offset in [0, range) for randint (range = high - low, computed modulo 2^64, >= 1). */
static inline concord_u64 concord_randint_offset(concord_u32 x0, concord_u32 x1, concord_u64 range) {
  const concord_u64 r = ((concord_u64)x0 << 32) | x1;
  return concord_mulhi64(r, range);
}

/* ---- float32 normal ----------------------------------------------------- */

/* log(k * 2^-24) for an integer k in [1, 2^24]. k is normalised with integer
 * operations to m * 2^e, m in [sqrt(1/2), sqrt(2)); then with f = m - 1 (exact)
 * and s = f / (2 + f), log(m) = 2 atanh(s) = f - s * (f - R(s^2)). */
static inline float concord_log_k24_f32(concord_u32 k) {
  CONCORD_PHILOX_NO_CONTRACT
  const int top = 31 - concord_clz32(k);              /* k = 2^top * (1.xxx) */
  const concord_u32 kn = top > 23 ? k >> 1 : k << (23 - top);  /* in [2^23, 2^24) */
  int e = top - 24;
  float m;
  if (kn > 11863283u) {                               /* m > sqrt(2): use m / 2 */
    m = (float)kn * 0x1p-24f;
    e += 1;
  } else {
    m = (float)kn * 0x1p-23f;
  }
  const float f = m - 1.0f;
  const float s = f / (2.0f + f);
  const float z = s * s;
  /* 2/3, 2/5, 2/7, 2/9: the atanh series; the next term is below 2^-28 relative. */
  const float r = z * (0x1.555556p-1f + z * (0x1.99999ap-2f + z * (0x1.24924ap-2f + z * 0x1.c71c72p-3f)));
  const float ef = (float)e;
  /* ln2 split: ln2_hi has 17 significant bits, so ef * ln2_hi is exact. */
  return ef * 0x1.62e4p-1f + ((f - s * (f - r)) + ef * 0x1.7f7d1cp-20f);
}

/* cos(2 pi t) for t = j * 2^-24, j an integer in [0, 2^24). The quadrant and
 * the remainder r = t - q/4 in [-1/8, 1/8] are found exactly in integers; the
 * polynomials are Taylor series of sin(2 pi r) and cos(2 pi r) in r. */
static inline float concord_cos2pi_j24_f32(concord_u32 j) {
  CONCORD_PHILOX_NO_CONTRACT
  const concord_u32 q = (j + 0x200000u) >> 22;        /* nearest multiple of 1/4 */
  const float r = (float)((int)j - (int)(q << 22)) * 0x1p-24f;
  const float z = r * r;
  float v;
  if (q & 1u) {
    v = r * (0x1.921fb6p+2f + z * (-0x1.4abbcep+5f + z * (0x1.466bc6p+6f + z * (-0x1.32d2ccp+6f +
            z * (0x1.507834p+5f + z * -0x1.e3075p+3f)))));
  } else {
    v = 1.0f + z * (-0x1.3bd3ccp+4f + z * (0x1.03c1f0p+6f + z * (-0x1.55d3c8p+6f + z * (0x1.e1f506p+5f +
            z * (-0x1.a6d1f2p+4f + z * 0x1.f9d38ap+2f)))));
  }
  /* cos(2 pi (r + q/4)) = cos, -sin, -cos, sin for q mod 4 = 0, 1, 2, 3. */
  return ((q + 1u) & 2u) ? -v : v;
}

static inline float concord_normal_f32(concord_u32 x0, concord_u32 x1) {
  CONCORD_PHILOX_NO_CONTRACT
  const float l = concord_log_k24_f32((x0 >> 8) + 1u);  /* log u1, u1 in (0, 1] */
  return CONCORD_SQRT_F32(-2.0f * l) * concord_cos2pi_j24_f32(x1 >> 8);
}

/* ---- float64 ------------------------------------------------------------ */
#if CONCORD_PHILOX_F64

static inline double concord_uniform_f64(concord_u32 x0, concord_u32 x1) {
  CONCORD_PHILOX_NO_CONTRACT
  return (double)(((concord_u64)x0 << 21) | (x1 >> 11)) * 0x1p-53;
}

/* log(k * 2^-53) for an integer k in [1, 2^53]; as the float32 version. */
static inline double concord_log_k53_f64(concord_u64 k) {
  CONCORD_PHILOX_NO_CONTRACT
  const int top = 63 - concord_clz64(k);
  const concord_u64 kn = top > 52 ? k >> 1 : k << (52 - top);  /* in [2^52, 2^53) */
  int e = top - 53;
  double m;
  if (kn > 6369051672525772UL) {                      /* floor(sqrt(2) * 2^52) */
    m = (double)kn * 0x1p-53;
    e += 1;
  } else {
    m = (double)kn * 0x1p-52;
  }
  const double f = m - 1.0;
  const double s = f / (2.0 + f);
  const double z = s * s;
  /* 2/(2n+1) for n = 1..10; the next term is below 2^-58 relative. */
  const double r = z * (0x1.5555555555555p-1 + z * (0x1.999999999999ap-2 + z * (0x1.2492492492492p-2 +
                   z * (0x1.c71c71c71c71cp-3 + z * (0x1.745d1745d1746p-3 + z * (0x1.3b13b13b13b14p-3 +
                   z * (0x1.1111111111111p-3 + z * (0x1.e1e1e1e1e1e1ep-4 + z * (0x1.af286bca1af28p-4 +
                   z * 0x1.8618618618618p-4)))))))));
  const double ef = (double)e;
  /* ln2_hi has 32 significant bits, so ef * ln2_hi is exact. */
  return ef * 0x1.62e42feep-1 + ((f - s * (f - r)) + ef * 0x1.a39ef35793c76p-33);
}

/* cos(2 pi t) for t = j * 2^-53, j an integer in [0, 2^53). */
static inline double concord_cos2pi_j53_f64(concord_u64 j) {
  CONCORD_PHILOX_NO_CONTRACT
  const concord_u64 q = (j + ((concord_u64)1 << 50)) >> 51;
  const double r = (double)((concord_i64)j - (concord_i64)(q << 51)) * 0x1p-53;
  const double z = r * r;
  double v;
  if (q & 1u) {
    v = r * (0x1.921fb54442d18p+2 + z * (-0x1.4abbce625be53p+5 + z * (0x1.466bc6775aae2p+6 +
            z * (-0x1.32d2cce62bd86p+6 + z * (0x1.50783487ee782p+5 + z * (-0x1.e3074fde8871fp+3 +
            z * (0x1.e8f434d018d63p+1 + z * (-0x1.6fadb9f155744p-1 + z * (0x1.aaec32af93359p-4 +
            z * -0x1.8a404211f9547p-7)))))))));
  } else {
    v = 1.0 + z * (-0x1.3bd3cc9be45dep+4 + z * (0x1.03c1f081b5ac4p+6 + z * (-0x1.55d3c7e3cbffap+6 +
              z * (0x1.e1f506891babbp+5 + z * (-0x1.a6d1f2a204a8cp+4 + z * (0x1.f9d38a3763cc3p+2 +
              z * (-0x1.b6e24f44b128fp+0 + z * (0x1.20c62c2f2d7f5p-2 + z * (-0x1.2a0c591af8314p-5 +
              z * 0x1.ef6e308d6d1c4p-9)))))))));
  }
  return ((q + 1u) & 2u) ? -v : v;
}

static inline double concord_normal_f64(concord_u32x4 x) {
  CONCORD_PHILOX_NO_CONTRACT
  const concord_u64 a = (((concord_u64)x.w0 << 21) | (x.w1 >> 11)) + 1u;  /* u1 = a * 2^-53 in (0, 1] */
  const concord_u64 b = ((concord_u64)x.w2 << 21) | (x.w3 >> 11);
  return CONCORD_SQRT_F64(-2.0 * concord_log_k53_f64(a)) * concord_cos2pi_j53_f64(b);
}

#endif /* CONCORD_PHILOX_F64 */
#endif /* CONCORD_PHILOX_H */
