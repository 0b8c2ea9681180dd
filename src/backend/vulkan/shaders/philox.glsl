// shaders/philox.glsl — Philox 4x32-10 and the transforms of rand / randn /
// randint, as src/backend/common/philox.h defines them (that header is the
// contract; this is its GLSL spelling, bit for bit):
//   philox_element(seed, n)       the four words of element n = offset + i
//   uniform_f32(x0), uniform_f32_below(x0, below_one), uniform_f64(x0, x1)
//   randint_offset(x0, x1, range) an offset in [0, range)
//   normal_f32(x0, x1), normal_f64(x)   Box-Muller with the header's log and cos
//
// The header's float code uses only + - * / and sqrt without contraction.
// Here every float intermediate is `precise` (no fused multiply-add), + - *
// are the device's (correctly rounded in RTE mode), and / and sqrt are done
// in integer arithmetic (div_*, sqrt_* below), since Vulkan allows them
// 2.5 ulp. Their operands are normal, nonzero numbers of known range (or a
// zero dividend/radicand), which is all the transforms need.
// Constants are the header's, written as their bits (GLSL has no hex floats).
// float64 parts need CONCORD_F64 (the variant exists only on devices with it).
#ifndef CONCORD_PHILOX_GLSL
#define CONCORD_PHILOX_GLSL

// ---------------------------------------------------------------- the generator

uvec4 philox_round(uvec4 c, uint k0, uint k1) {
  uint hi0, lo0, hi1, lo1;
  umulExtended(0xD2511F53u, c.x, hi0, lo0);
  umulExtended(0xCD9E8D57u, c.z, hi1, lo1);
  return uvec4(hi1 ^ c.y ^ k0, lo1, hi0 ^ c.w ^ k1, lo0);
}

uvec4 philox4x32_10(uvec4 ctr, uint k0, uint k1) {
  for (int i = 0; i < 9; ++i) {
    ctr = philox_round(ctr, k0, k1);
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return philox_round(ctr, k0, k1);
}

uvec4 philox_element(uint64_t seed, uint64_t n) {
  return philox4x32_10(uvec4(uint(n), uint(n >> 32), 0u, 0u), uint(seed), uint(seed >> 32));
}

// ---------------------------------------------------------------- uniform and randint

#define F16_BELOW_ONE uintBitsToFloat(0x3f7fe000u)   // 1 - 2^-11
#define BF16_BELOW_ONE uintBitsToFloat(0x3f7f0000u)  // 1 - 2^-8

float uniform_f32(uint x0) {
  precise float u = float(x0 >> 8) * uintBitsToFloat(0x33800000u);  // * 2^-24, exact
  return u;
}
float uniform_f32_below(uint x0, float below_one) {
  const float u = uniform_f32(x0);
  return u > below_one ? below_one : u;
}

// High 64 bits of a * b from 32-bit partial products, as the header.
uint64_t mulhi64(uint64_t a, uint64_t b) {
  const uint64_t m = 0xfffffffful;
  const uint64_t a0 = a & m, a1 = a >> 32, b0 = b & m, b1 = b >> 32;
  const uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const uint64_t mid = (p00 >> 32) + (p01 & m) + (p10 & m);
  return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}
uint64_t randint_offset(uint x0, uint x1, uint64_t range) {
  return mulhi64((uint64_t(x0) << 32) | uint64_t(x1), range);
}

// ---------------------------------------------------------------- float32 normal

// a / b rounded to nearest even, for normal b > 0 and a zero or normal with a
// normal quotient: the significand quotient with two extra bits and a sticky
// bit, from one 64-bit integer division.
float div_f32(float a, float b) {
  if (a == 0.0) return a;
  const uint ba = floatBitsToUint(a), bb = floatBitsToUint(b);
  uint na = (ba & 0x7fffffu) | 0x800000u;
  const uint nb = (bb & 0x7fffffu) | 0x800000u;
  int e = int((ba >> 23) & 0xffu) - int((bb >> 23) & 0xffu);
  if (na < nb) { na <<= 1; e -= 1; }  // na / nb in [1, 2)
  const uint64_t num = uint64_t(na) << 25;
  const uint q = uint(num / uint64_t(nb));  // in [2^25, 2^26)
  const bool sticky = num % uint64_t(nb) != 0ul;
  uint mant = q >> 2;
  if ((q & 2u) != 0u && (sticky || (q & 1u) != 0u || (mant & 1u) != 0u)) mant += 1u;
  // value = mant * 2^(e - 23); a carry to 2^24 moves into the exponent field.
  return uintBitsToFloat((uint(e + 126) << 23) + mant | (ba & 0x80000000u));
}

// sqrt(x) rounded to nearest, for x zero or a positive normal: digit-by-digit
// integer square root of the significand shifted so that the root has 26 bits.
float sqrt_f32(float x) {
  if (x == 0.0) return x;
  const uint bx = floatBitsToUint(x);
  const uint n = (bx & 0x7fffffu) | 0x800000u;
  const int e = int(bx >> 23) - 150;  // x = n * 2^e
  const int s = (e & 1) == 0 ? 28 : 27;  // N = n * 2^s in [2^50, 2^52), e - s even
  uint rem = 0u, root = 0u;
  for (int i = 25; i >= 0; --i) {
    const int p = 2 * i - s;  // bits p+1, p of n
    const uint pair = p >= 0 ? (n >> p) & 3u : p == -1 ? (n & 1u) << 1 : 0u;
    rem = (rem << 2) | pair;
    const uint trial = (root << 2) | 1u;
    if (rem >= trial) { rem -= trial; root = (root << 1) | 1u; }
    else root <<= 1;
  }
  uint mant = root >> 2;  // sqrt(x) = root * 2^((e - s) / 2), root in [2^25, 2^26)
  if ((root & 2u) != 0u && (rem != 0u || (root & 1u) != 0u || (mant & 1u) != 0u)) mant += 1u;
  return uintBitsToFloat((uint((e - s) / 2 + 25 + 126) << 23) + mant);
}

// log(k * 2^-24), k in [1, 2^24]: the header's concord_log_k24_f32.
float log_k24_f32(uint k) {
  const int top = findMSB(k);
  const uint kn = top > 23 ? k >> 1 : k << (23 - top);
  int e = top - 24;
  precise float m;
  if (kn > 11863283u) {
    m = float(kn) * uintBitsToFloat(0x33800000u);  // 2^-24
    e += 1;
  } else {
    m = float(kn) * uintBitsToFloat(0x34000000u);  // 2^-23
  }
  precise float f = m - 1.0;
  precise float den = 2.0 + f;
  precise float s = div_f32(f, den);
  precise float z = s * s;
  precise float r = z * (uintBitsToFloat(0x3f2aaaabu) + z * (uintBitsToFloat(0x3ecccccdu) +
                    z * (uintBitsToFloat(0x3e924925u) + z * uintBitsToFloat(0x3e638e39u))));
  const float ef = float(e);
  precise float v = ef * uintBitsToFloat(0x3f317200u) + ((f - s * (f - r)) + ef * uintBitsToFloat(0x35bfbe8eu));
  return v;
}

// cos(2 pi j 2^-24), j in [0, 2^24): the header's concord_cos2pi_j24_f32.
float cos2pi_j24_f32(uint j) {
  const uint q = (j + 0x200000u) >> 22;
  precise float r = float(int(j) - int(q << 22)) * uintBitsToFloat(0x33800000u);
  precise float z = r * r;
  precise float v;
  if ((q & 1u) != 0u) {
    v = r * (uintBitsToFloat(0x40c90fdbu) + z * (uintBitsToFloat(0xc2255de7u) + z * (uintBitsToFloat(0x42a335e3u) +
        z * (uintBitsToFloat(0xc2996966u) + z * (uintBitsToFloat(0x42283c1au) + z * uintBitsToFloat(0xc17183a8u))))));
  } else {
    v = 1.0 + z * (uintBitsToFloat(0xc19de9e6u) + z * (uintBitsToFloat(0x4281e0f8u) + z * (uintBitsToFloat(0xc2aae9e4u) +
        z * (uintBitsToFloat(0x4270fa83u) + z * (uintBitsToFloat(0xc1d368f9u) + z * uintBitsToFloat(0x40fce9c5u))))));
  }
  return ((q + 1u) & 2u) != 0u ? -v : v;
}

float normal_f32(uint x0, uint x1) {
  const float l = log_k24_f32((x0 >> 8) + 1u);
  precise float t = -2.0 * l;
  precise float z = sqrt_f32(t) * cos2pi_j24_f32(x1 >> 8);
  return z;
}

// ---------------------------------------------------------------- float64
#if CONCORD_F64

double uniform_f64(uint x0, uint x1) {
  precise double u = double((uint64_t(x0) << 21) | uint64_t(x1 >> 11)) * uint64BitsToDouble(0x3ca0000000000000ul);
  return u;  // * 2^-53, exact
}

// As div_f32 and sqrt_f32, by long division and a digit-by-digit root (the
// quotient and the root carry 55 bits: 53 and two to round with).
double div_f64(double a, double b) {
  if (a == 0.0lf) return a;
  const uint64_t ba = doubleBitsToUint64(a), bb = doubleBitsToUint64(b);
  const uint64_t mm = 0xffffffffffffful, hid = 0x10000000000000ul;
  uint64_t na = (ba & mm) | hid;
  const uint64_t nb = (bb & mm) | hid;
  int e = int((ba >> 52) & 0x7fful) - int((bb >> 52) & 0x7fful);
  if (na < nb) { na <<= 1; e -= 1; }
  uint64_t q = 0ul, r = na;
  for (int i = 0; i < 55; ++i) {
    q <<= 1;
    if (r >= nb) { r -= nb; q |= 1ul; }
    r <<= 1;
  }
  uint64_t mant = q >> 2;
  if ((q & 2ul) != 0ul && (r != 0ul || (q & 1ul) != 0ul || (mant & 1ul) != 0ul)) mant += 1ul;
  return uint64BitsToDouble((uint64_t(e + 1022) << 52) + mant | (ba & 0x8000000000000000ul));
}

double sqrt_f64(double x) {
  if (x == 0.0lf) return x;
  const uint64_t bx = doubleBitsToUint64(x);
  const uint64_t n = (bx & 0xffffffffffffful) | 0x10000000000000ul;
  const int e = int(bx >> 52) - 1075;
  const int s = (e & 1) == 0 ? 56 : 57;  // N = n * 2^s in [2^108, 2^110)
  uint64_t rem = 0ul, root = 0ul;
  for (int i = 54; i >= 0; --i) {
    const int p = 2 * i - s;
    const uint64_t pair = p >= 0 ? (n >> p) & 3ul : p == -1 ? (n & 1ul) << 1 : 0ul;
    rem = (rem << 2) | pair;
    const uint64_t trial = (root << 2) | 1ul;
    if (rem >= trial) { rem -= trial; root = (root << 1) | 1ul; }
    else root <<= 1;
  }
  uint64_t mant = root >> 2;
  if ((root & 2ul) != 0ul && (rem != 0ul || (root & 1ul) != 0ul || (mant & 1ul) != 0ul)) mant += 1ul;
  return uint64BitsToDouble((uint64_t((e - s) / 2 + 54 + 1022) << 52) + mant);
}

#define D(b) uint64BitsToDouble(b)

// log(k * 2^-53), k in [1, 2^53]: the header's concord_log_k53_f64.
double log_k53_f64(uint64_t k) {
  const int top = msb64(k);
  const uint64_t kn = top > 52 ? k >> 1 : k << (52 - top);
  int e = top - 53;
  precise double m;
  if (kn > 6369051672525772ul) {
    m = double(kn) * D(0x3ca0000000000000ul);  // 2^-53
    e += 1;
  } else {
    m = double(kn) * D(0x3cb0000000000000ul);  // 2^-52
  }
  precise double f = m - 1.0lf;
  precise double den = 2.0lf + f;
  precise double s = div_f64(f, den);
  precise double z = s * s;
  precise double r = z * (D(0x3fe5555555555555ul) + z * (D(0x3fd999999999999aul) + z * (D(0x3fd2492492492492ul) +
                     z * (D(0x3fcc71c71c71c71cul) + z * (D(0x3fc745d1745d1746ul) + z * (D(0x3fc3b13b13b13b14ul) +
                     z * (D(0x3fc1111111111111ul) + z * (D(0x3fbe1e1e1e1e1e1eul) + z * (D(0x3fbaf286bca1af28ul) +
                     z * D(0x3fb8618618618618ul))))))))));
  const double ef = double(e);
  precise double v = ef * D(0x3fe62e42fee00000ul) + ((f - s * (f - r)) + ef * D(0x3dea39ef35793c76ul));
  return v;
}

// cos(2 pi j 2^-53), j in [0, 2^53): the header's concord_cos2pi_j53_f64.
double cos2pi_j53_f64(uint64_t j) {
  const uint64_t q = (j + (1ul << 50)) >> 51;
  precise double r = double(int64_t(j) - int64_t(q << 51)) * D(0x3ca0000000000000ul);
  precise double z = r * r;
  precise double v;
  if ((q & 1ul) != 0ul) {
    v = r * (D(0x401921fb54442d18ul) + z * (D(0xc044abbce625be53ul) + z * (D(0x405466bc6775aae2ul) +
        z * (D(0xc0532d2cce62bd86ul) + z * (D(0x40450783487ee782ul) + z * (D(0xc02e3074fde8871ful) +
        z * (D(0x400e8f434d018d63ul) + z * (D(0xbfe6fadb9f155744ul) + z * (D(0x3fbaaec32af93359ul) +
        z * D(0xbf88a404211f9547ul))))))))));
  } else {
    v = 1.0lf + z * (D(0xc033bd3cc9be45deul) + z * (D(0x40503c1f081b5ac4ul) + z * (D(0xc0555d3c7e3cbffaul) +
        z * (D(0x404e1f506891babbul) + z * (D(0xc03a6d1f2a204a8cul) + z * (D(0x401f9d38a3763cc3ul) +
        z * (D(0xbffb6e24f44b128ful) + z * (D(0x3fd20c62c2f2d7f5ul) + z * (D(0xbfa2a0c591af8314ul) +
        z * D(0x3f6ef6e308d6d1c4ul))))))))));
  }
  return ((q + 1ul) & 2ul) != 0ul ? -v : v;
}

double normal_f64(uvec4 x) {
  const uint64_t a = ((uint64_t(x.x) << 21) | uint64_t(x.y >> 11)) + 1ul;
  const uint64_t b = (uint64_t(x.z) << 21) | uint64_t(x.w >> 11);
  const double l = log_k53_f64(a);
  precise double t = -2.0lf * l;
  precise double z = sqrt_f64(t) * cos2pi_j53_f64(b);
  return z;
}

#undef D
#endif  // CONCORD_F64
#endif
