/* Philox 4x32-10 and the number transforms of rand / randn / randint.
 *
 * The one source of every device's generator: compiled as C++ (the CPU),
 * OpenCL C 1.2 (prepended to OpenCL programs) and GLSL (the Vulkan shader
 * random.comp includes it), in the subset canon_base.h describes. Its float
 * code is + - * / and sqrt without contraction, so every compiler gives the
 * same bits. The OpenCL program must be built with
 * -cl-fp32-correctly-rounded-divide-sqrt (ocl::Context::program adds it where
 * the device supports it); Vulkan allows / and sqrt 2.5 ULP, so on GLSL they
 * are the integer routines below (CONCORD_PX_DIV/SQRT), exact for the
 * operands the transforms give them (normal, positive divisor; zero or a
 * normal dividend / radicand).
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

CONCORD_STRUCT(concord_u32x4) {
  concord_u32 w0, w1, w2, w3;
};

/* ---- the generator ------------------------------------------------------ */

#define CONCORD_PHILOX_M0 0xD2511F53u
#define CONCORD_PHILOX_M1 0xCD9E8D57u
#define CONCORD_PHILOX_W0 0x9E3779B9u
#define CONCORD_PHILOX_W1 0xBB67AE85u

CONCORD_FN concord_u32x4 concord_philox_round(concord_u32x4 c, concord_u32 k0, concord_u32 k1) {
  const concord_u64 p0 = CONCORD_TO_U64(CONCORD_PHILOX_M0) * CONCORD_TO_U64(c.w0);
  const concord_u64 p1 = CONCORD_TO_U64(CONCORD_PHILOX_M1) * CONCORD_TO_U64(c.w2);
  concord_u32x4 r;
  r.w0 = CONCORD_TO_U32(p1 >> 32) ^ c.w1 ^ k0;
  r.w1 = CONCORD_TO_U32(p1);
  r.w2 = CONCORD_TO_U32(p0 >> 32) ^ c.w3 ^ k1;
  r.w3 = CONCORD_TO_U32(p0);
  return r;
}

/* Philox 4x32 with 10 rounds (Salmon et al., SC'11); the key is bumped by the
 * Weyl constants between rounds. */
CONCORD_FN concord_u32x4 concord_philox4x32_10(concord_u32x4 ctr, concord_u32 k0, concord_u32 k1) {
  int i;
  for (i = 0; i < 9; ++i) {
    ctr = concord_philox_round(ctr, k0, k1);
    k0 += CONCORD_PHILOX_W0;
    k1 += CONCORD_PHILOX_W1;
  }
  return concord_philox_round(ctr, k0, k1);
}

/* The four words of element number n = offset + i (see the mapping above). */
CONCORD_FN concord_u32x4 concord_philox_element(concord_u64 seed, concord_u64 n) {
  concord_u32x4 c;
  c.w0 = CONCORD_TO_U32(n);
  c.w1 = CONCORD_TO_U32(n >> 32);
  c.w2 = 0u;
  c.w3 = 0u;
  return concord_philox4x32_10(c, CONCORD_TO_U32(seed), CONCORD_TO_U32(seed >> 32));
}

/* ---- uniform ------------------------------------------------------------ */

/* Largest float16 / bfloat16 below 1 (1 - 2^-11, 1 - 2^-8). */
#define CONCORD_F16_BELOW_ONE concord_bits_f32(0x3f7fe000u)
#define CONCORD_BF16_BELOW_ONE concord_bits_f32(0x3f7f0000u)

CONCORD_FN float concord_uniform_f32(concord_u32 x0) {
  CONCORD_NO_CONTRACT
  CONCORD_PRECISE float u = CONCORD_TO_F32(x0 >> 8) * concord_bits_f32(0x33800000u); /* * 2^-24, exact */
  return u;
}

/* For the half types: rounding the result to the type cannot give 1.0. */
CONCORD_FN float concord_uniform_f32_below(concord_u32 x0, float below_one) {
  const float u = concord_uniform_f32(x0);
  return u > below_one ? below_one : u;
}

/* ---- randint ------------------------------------------------------------ */

/* High 64 bits of a * b, from 32-bit partial products (no 128-bit type in OpenCL C). */
CONCORD_FN concord_u64 concord_mulhi64(concord_u64 a, concord_u64 b) {
  const concord_u64 m = CONCORD_TO_U64(0xffffffffu);
  const concord_u64 a0 = a & m, a1 = a >> 32, b0 = b & m, b1 = b >> 32;
  const concord_u64 p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const concord_u64 mid = (p00 >> 32) + (p01 & m) + (p10 & m);
  return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

/* An offset in [0, range) for randint (range = high - low, computed modulo 2^64, >= 1). */
CONCORD_FN concord_u64 concord_randint_offset(concord_u32 x0, concord_u32 x1, concord_u64 range) {
  const concord_u64 r = (CONCORD_TO_U64(x0) << 32) | CONCORD_TO_U64(x1);
  return concord_mulhi64(r, range);
}

/* ---- / and sqrt: native, or integer routines on GLSL --------------------- */
#if CONCORD_GLSL
/* a / b rounded to nearest even, for normal b > 0 and a zero or normal with a
 * normal quotient: the significand quotient with two extra bits and a sticky
 * bit, from one 64-bit integer division. */
float concord_px_div_f32(float a, float b) {
  if (a == 0.0f) return a;
  const uint ba = floatBitsToUint(a), bb = floatBitsToUint(b);
  uint na = (ba & 0x7fffffu) | 0x800000u;
  const uint nb = (bb & 0x7fffffu) | 0x800000u;
  int e = int((ba >> 23) & 0xffu) - int((bb >> 23) & 0xffu);
  if (na < nb) { na <<= 1; e -= 1; }  /* na / nb in [1, 2) */
  const uint64_t num = uint64_t(na) << 25;
  const uint q = uint(num / uint64_t(nb));  /* in [2^25, 2^26) */
  const bool sticky = num % uint64_t(nb) != 0UL;
  uint mant = q >> 2;
  if ((q & 2u) != 0u && (sticky || (q & 1u) != 0u || (mant & 1u) != 0u)) mant += 1u;
  /* value = mant * 2^(e - 23); a carry to 2^24 moves into the exponent field. */
  return uintBitsToFloat((uint(e + 126) << 23) + mant | (ba & 0x80000000u));
}

/* sqrt(x) rounded to nearest, for x zero or a positive normal: digit-by-digit
 * integer square root of the significand shifted so that the root has 26 bits. */
float concord_px_sqrt_f32(float x) {
  if (x == 0.0f) return x;
  const uint bx = floatBitsToUint(x);
  const uint n = (bx & 0x7fffffu) | 0x800000u;
  const int e = int(bx >> 23) - 150;  /* x = n * 2^e */
  const int s = (e & 1) == 0 ? 28 : 27;  /* N = n * 2^s in [2^50, 2^52), e - s even */
  uint rem = 0u, root = 0u;
  for (int i = 25; i >= 0; --i) {
    const int p = 2 * i - s;  /* bits p+1, p of n */
    const uint pair = p >= 0 ? (n >> p) & 3u : p == -1 ? (n & 1u) << 1 : 0u;
    rem = (rem << 2) | pair;
    const uint trial = (root << 2) | 1u;
    if (rem >= trial) { rem -= trial; root = (root << 1) | 1u; }
    else root <<= 1;
  }
  uint mant = root >> 2;  /* sqrt(x) = root * 2^((e - s) / 2), root in [2^25, 2^26) */
  if ((root & 2u) != 0u && (rem != 0u || (root & 1u) != 0u || (mant & 1u) != 0u)) mant += 1u;
  return uintBitsToFloat((uint((e - s) / 2 + 25 + 126) << 23) + mant);
}
#define CONCORD_PX_DIV_F32(a, b) concord_px_div_f32(a, b)
#define CONCORD_PX_SQRT_F32(x) concord_px_sqrt_f32(x)
#else
#define CONCORD_PX_DIV_F32(a, b) ((a) / (b))
#define CONCORD_PX_SQRT_F32(x) CONCORD_SQRT_F32(x)
#endif

/* ---- float32 normal ----------------------------------------------------- */

/* log(k * 2^-24) for an integer k in [1, 2^24]. k is normalised with integer
 * operations to m * 2^e, m in [sqrt(1/2), sqrt(2)); then with f = m - 1 (exact)
 * and s = f / (2 + f), log(m) = 2 atanh(s) = f - s * (f - R(s^2)). */
CONCORD_FN float concord_log_k24_f32(concord_u32 k) {
  CONCORD_NO_CONTRACT
  const int top = 31 - concord_clz32(k);              /* k = 2^top * (1.xxx) */
  const concord_u32 kn = top > 23 ? k >> 1 : k << (23 - top);  /* in [2^23, 2^24) */
  int e = top - 24;
  CONCORD_PRECISE float m;
  if (kn > 11863283u) {                               /* m > sqrt(2): use m / 2 */
    m = CONCORD_TO_F32(kn) * concord_bits_f32(0x33800000u);  /* 2^-24 */
    e += 1;
  } else {
    m = CONCORD_TO_F32(kn) * concord_bits_f32(0x34000000u);  /* 2^-23 */
  }
  CONCORD_PRECISE float f = m - 1.0f;
  CONCORD_PRECISE float den = 2.0f + f;
  CONCORD_PRECISE float s = CONCORD_PX_DIV_F32(f, den);
  CONCORD_PRECISE float z = s * s;
  /* 2/3, 2/5, 2/7, 2/9: the atanh series; the next term is below 2^-28 relative. */
  CONCORD_PRECISE float r = z * (concord_bits_f32(0x3f2aaaabu) + z * (concord_bits_f32(0x3ecccccdu) +
                            z * (concord_bits_f32(0x3e924925u) + z * concord_bits_f32(0x3e638e39u))));
  const float ef = CONCORD_TO_F32(e);
  /* ln2 split: ln2_hi (0x1.62e4p-1) has 17 significant bits, so ef * ln2_hi is exact. */
  CONCORD_PRECISE float v =
      ef * concord_bits_f32(0x3f317200u) + ((f - s * (f - r)) + ef * concord_bits_f32(0x35bfbe8eu));
  return v;
}

/* cos(2 pi t) for t = j * 2^-24, j an integer in [0, 2^24). The quadrant and
 * the remainder r = t - q/4 in [-1/8, 1/8] are found exactly in integers; the
 * polynomials are Taylor series of sin(2 pi r) and cos(2 pi r) in r. */
CONCORD_FN float concord_cos2pi_j24_f32(concord_u32 j) {
  CONCORD_NO_CONTRACT
  const concord_u32 q = (j + 0x200000u) >> 22;        /* nearest multiple of 1/4 */
  CONCORD_PRECISE float r = CONCORD_TO_F32(CONCORD_TO_I32(j) - CONCORD_TO_I32(q << 22)) * concord_bits_f32(0x33800000u);
  CONCORD_PRECISE float z = r * r;
  CONCORD_PRECISE float v;
  if ((q & 1u) != 0u) {
    v = r * (concord_bits_f32(0x40c90fdbu) + z * (concord_bits_f32(0xc2255de7u) + z * (concord_bits_f32(0x42a335e3u) +
        z * (concord_bits_f32(0xc2996966u) + z * (concord_bits_f32(0x42283c1au) + z * concord_bits_f32(0xc17183a8u))))));
  } else {
    v = 1.0f + z * (concord_bits_f32(0xc19de9e6u) + z * (concord_bits_f32(0x4281e0f8u) + z * (concord_bits_f32(0xc2aae9e4u) +
        z * (concord_bits_f32(0x4270fa83u) + z * (concord_bits_f32(0xc1d368f9u) + z * concord_bits_f32(0x40fce9c5u))))));
  }
  /* cos(2 pi (r + q/4)) = cos, -sin, -cos, sin for q mod 4 = 0, 1, 2, 3. */
  return ((q + 1u) & 2u) != 0u ? -v : v;
}

CONCORD_FN float concord_normal_f32(concord_u32 x0, concord_u32 x1) {
  CONCORD_NO_CONTRACT
  const float l = concord_log_k24_f32((x0 >> 8) + 1u);  /* log u1, u1 in (0, 1] */
  CONCORD_PRECISE float t = -2.0f * l;
  CONCORD_PRECISE float z = CONCORD_PX_SQRT_F32(t) * concord_cos2pi_j24_f32(x1 >> 8);
  return z;
}

/* ---- float64 ------------------------------------------------------------ */
#if CONCORD_CANON_F64

#if CONCORD_GLSL
/* As the float32 routines, by long division and a digit-by-digit root (the
 * quotient and the root carry 55 bits: 53 and two to round with). */
double concord_px_div_f64(double a, double b) {
  if (a == 0.0lf) return a;
  const uint64_t ba = doubleBitsToUint64(a), bb = doubleBitsToUint64(b);
  const uint64_t mm = 0xfffffffffffffUL, hid = 0x10000000000000UL;
  uint64_t na = (ba & mm) | hid;
  const uint64_t nb = (bb & mm) | hid;
  int e = int((ba >> 52) & 0x7ffUL) - int((bb >> 52) & 0x7ffUL);
  if (na < nb) { na <<= 1; e -= 1; }
  uint64_t q = 0UL, r = na;
  for (int i = 0; i < 55; ++i) {
    q <<= 1;
    if (r >= nb) { r -= nb; q |= 1UL; }
    r <<= 1;
  }
  uint64_t mant = q >> 2;
  if ((q & 2UL) != 0UL && (r != 0UL || (q & 1UL) != 0UL || (mant & 1UL) != 0UL)) mant += 1UL;
  return uint64BitsToDouble((uint64_t(e + 1022) << 52) + mant | (ba & 0x8000000000000000UL));
}

double concord_px_sqrt_f64(double x) {
  if (x == 0.0lf) return x;
  const uint64_t bx = doubleBitsToUint64(x);
  const uint64_t n = (bx & 0xfffffffffffffUL) | 0x10000000000000UL;
  const int e = int(bx >> 52) - 1075;
  const int s = (e & 1) == 0 ? 56 : 57;  /* N = n * 2^s in [2^108, 2^110) */
  uint64_t rem = 0UL, root = 0UL;
  for (int i = 54; i >= 0; --i) {
    const int p = 2 * i - s;
    const uint64_t pair = p >= 0 ? (n >> p) & 3UL : p == -1 ? (n & 1UL) << 1 : 0UL;
    rem = (rem << 2) | pair;
    const uint64_t trial = (root << 2) | 1UL;
    if (rem >= trial) { rem -= trial; root = (root << 1) | 1UL; }
    else root <<= 1;
  }
  uint64_t mant = root >> 2;
  if ((root & 2UL) != 0UL && (rem != 0UL || (root & 1UL) != 0UL || (mant & 1UL) != 0UL)) mant += 1UL;
  return uint64BitsToDouble((uint64_t((e - s) / 2 + 54 + 1022) << 52) + mant);
}
#define CONCORD_PX_DIV_F64(a, b) concord_px_div_f64(a, b)
#define CONCORD_PX_SQRT_F64(x) concord_px_sqrt_f64(x)
#else
#define CONCORD_PX_DIV_F64(a, b) ((a) / (b))
#define CONCORD_PX_SQRT_F64(x) CONCORD_SQRT_F64(x)
#endif

#define CONCORD_PX_D(b) concord_bits_f64(b)

CONCORD_FN double concord_uniform_f64(concord_u32 x0, concord_u32 x1) {
  CONCORD_NO_CONTRACT
  CONCORD_PRECISE double u = CONCORD_TO_F64((CONCORD_TO_U64(x0) << 21) | CONCORD_TO_U64(x1 >> 11)) *
                             CONCORD_PX_D(0x3ca0000000000000UL);  /* * 2^-53, exact */
  return u;
}

/* log(k * 2^-53) for an integer k in [1, 2^53]; as the float32 version. */
CONCORD_FN double concord_log_k53_f64(concord_u64 k) {
  CONCORD_NO_CONTRACT
  const int top = 63 - concord_clz64(k);
  const concord_u64 kn = top > 52 ? k >> 1 : k << (52 - top);  /* in [2^52, 2^53) */
  int e = top - 53;
  CONCORD_PRECISE double m;
  if (kn > 6369051672525772UL) {                      /* floor(sqrt(2) * 2^52) */
    m = CONCORD_TO_F64(kn) * CONCORD_PX_D(0x3ca0000000000000UL);  /* 2^-53 */
    e += 1;
  } else {
    m = CONCORD_TO_F64(kn) * CONCORD_PX_D(0x3cb0000000000000UL);  /* 2^-52 */
  }
  CONCORD_PRECISE double f = m - 1.0;
  CONCORD_PRECISE double den = 2.0 + f;
  CONCORD_PRECISE double s = CONCORD_PX_DIV_F64(f, den);
  CONCORD_PRECISE double z = s * s;
  /* 2/(2n+1) for n = 1..10; the next term is below 2^-58 relative. */
  CONCORD_PRECISE double r =
      z * (CONCORD_PX_D(0x3fe5555555555555UL) + z * (CONCORD_PX_D(0x3fd999999999999aUL) +
      z * (CONCORD_PX_D(0x3fd2492492492492UL) + z * (CONCORD_PX_D(0x3fcc71c71c71c71cUL) +
      z * (CONCORD_PX_D(0x3fc745d1745d1746UL) + z * (CONCORD_PX_D(0x3fc3b13b13b13b14UL) +
      z * (CONCORD_PX_D(0x3fc1111111111111UL) + z * (CONCORD_PX_D(0x3fbe1e1e1e1e1e1eUL) +
      z * (CONCORD_PX_D(0x3fbaf286bca1af28UL) + z * CONCORD_PX_D(0x3fb8618618618618UL))))))))));
  const double ef = CONCORD_TO_F64(e);
  /* ln2_hi (0x1.62e42feep-1) has 32 significant bits, so ef * ln2_hi is exact. */
  CONCORD_PRECISE double v =
      ef * CONCORD_PX_D(0x3fe62e42fee00000UL) + ((f - s * (f - r)) + ef * CONCORD_PX_D(0x3dea39ef35793c76UL));
  return v;
}

/* cos(2 pi t) for t = j * 2^-53, j an integer in [0, 2^53). */
CONCORD_FN double concord_cos2pi_j53_f64(concord_u64 j) {
  CONCORD_NO_CONTRACT
  const concord_u64 q = (j + (CONCORD_TO_U64(1u) << 50)) >> 51;
  CONCORD_PRECISE double r =
      CONCORD_TO_F64(CONCORD_TO_I64(j) - CONCORD_TO_I64(q << 51)) * CONCORD_PX_D(0x3ca0000000000000UL);
  CONCORD_PRECISE double z = r * r;
  CONCORD_PRECISE double v;
  if ((q & CONCORD_TO_U64(1u)) != CONCORD_TO_U64(0u)) {
    v = r * (CONCORD_PX_D(0x401921fb54442d18UL) + z * (CONCORD_PX_D(0xc044abbce625be53UL) +
        z * (CONCORD_PX_D(0x405466bc6775aae2UL) + z * (CONCORD_PX_D(0xc0532d2cce62bd86UL) +
        z * (CONCORD_PX_D(0x40450783487ee782UL) + z * (CONCORD_PX_D(0xc02e3074fde8871fUL) +
        z * (CONCORD_PX_D(0x400e8f434d018d63UL) + z * (CONCORD_PX_D(0xbfe6fadb9f155744UL) +
        z * (CONCORD_PX_D(0x3fbaaec32af93359UL) + z * CONCORD_PX_D(0xbf88a404211f9547UL))))))))));
  } else {
    v = 1.0 + z * (CONCORD_PX_D(0xc033bd3cc9be45deUL) + z * (CONCORD_PX_D(0x40503c1f081b5ac4UL) +
        z * (CONCORD_PX_D(0xc0555d3c7e3cbffaUL) + z * (CONCORD_PX_D(0x404e1f506891babbUL) +
        z * (CONCORD_PX_D(0xc03a6d1f2a204a8cUL) + z * (CONCORD_PX_D(0x401f9d38a3763cc3UL) +
        z * (CONCORD_PX_D(0xbffb6e24f44b128fUL) + z * (CONCORD_PX_D(0x3fd20c62c2f2d7f5UL) +
        z * (CONCORD_PX_D(0xbfa2a0c591af8314UL) + z * CONCORD_PX_D(0x3f6ef6e308d6d1c4UL))))))))));
  }
  return ((q + CONCORD_TO_U64(1u)) & CONCORD_TO_U64(2u)) != CONCORD_TO_U64(0u) ? -v : v;
}

CONCORD_FN double concord_normal_f64(concord_u32x4 x) {
  CONCORD_NO_CONTRACT
  const concord_u64 a = ((CONCORD_TO_U64(x.w0) << 21) | CONCORD_TO_U64(x.w1 >> 11)) + CONCORD_TO_U64(1u);  /* u1 = a * 2^-53 in (0, 1] */
  const concord_u64 b = (CONCORD_TO_U64(x.w2) << 21) | CONCORD_TO_U64(x.w3 >> 11);
  const double l = concord_log_k53_f64(a);
  CONCORD_PRECISE double t = -2.0 * l;
  CONCORD_PRECISE double z = CONCORD_PX_SQRT_F64(t) * concord_cos2pi_j53_f64(b);
  return z;
}

#endif /* CONCORD_CANON_F64 */
#endif /* CONCORD_PHILOX_H */
