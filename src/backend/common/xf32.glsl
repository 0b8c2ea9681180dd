// backend/common/xf32.glsl — float32 arithmetic on bits, in integer operations
// only: the reproducible mode's "_x" shader variants.
//
// Why: Vulkan lets a device flush float32 subnormals in any float instruction
// (a compare or a negate included) unless it promises
// shaderDenormPreserveFloat32, which lavapipe and NVIDIA do not. These
// functions never touch the float unit, so their results are the CPU's
// whatever the device's float controls.
//
// A float32 value is its bits in a `uint`. Every arithmetic result is
// correctly rounded to nearest even, with IEEE subnormals, overflow to inf and
// IEEE signed zeros; every NaN result is the canonical quiet NaN XF_NAN (the
// reproducible mode's NaN rule, core/nan_rule.h), so a variant built from
// these needs no separate NaN pass.
//
//   xf_add(a, b)  xf_sub(a, b)  xf_mul(a, b)  xf_div(a, b)  xf_sqrt(a)
//   xf_fma(a, b, c)       a * b + c rounded once
//   xf_neg(a)  xf_abs(a)  sign bit only (NaN -> XF_NAN)
//   xf_isnan / xf_isinf / xf_iszero (±0)
//   xf_eq / xf_lt / xf_le IEEE compares: false when either is NaN; -0 == +0
//   xf_from_int(v)        int32 -> float32, nearest even
//   xf_exp(x)             the CPU's exp_f32 (backend/cpu/vec_math.h) operation
//                         for operation, hence its bits
//   xf_from_f16 / xf_to_f16, xf_from_bf16 / xf_to_bf16   half <-> float32 bits
//                         (include/concord/half.h's rounding; NaN -> canonical)
//   XLOAD(T)(a, i), XSTORE(T)(a, i, bits)   T = f16, bf16, f32 (dtypes.glsl)
//
// The file is also valid C++ (tests/test_xf32.cpp compiles it against the
// CPU's float unit): no out parameters, no array constructors outside
// XF_TABLE8. Shaders include it after common.glsl and dtypes.glsl.
#ifndef CONCORD_XF32_GLSL
#define CONCORD_XF32_GLSL

#define XF_NAN 0x7fc00000u
#define XF_INF 0x7f800000u
#define XF_SIGN 0x80000000u

// Tables: GLSL's array constructors, or braces where these headers build as
// C++ (the tests) or OpenCL C (kernels/xmath.cl: float32 math of the mode on
// an OpenCL device without float64), whose program-scope tables must be in
// the constant address space.
#if defined(__cplusplus) || defined(__OPENCL_C_VERSION__)
#define XF_BRACES 1
#else
#define XF_BRACES 0
#endif
#ifdef __OPENCL_C_VERSION__
#define XF_CONST constant const
#else
#define XF_CONST const
#endif
#if XF_BRACES
#define XF_TABLE8(a, b, c, d, e, f, g, h) {a, b, c, d, e, f, g, h}
#else
#define XF_TABLE8(a, b, c, d, e, f, g, h) uint[8](a, b, c, d, e, f, g, h)
#endif

// |x| = m * 2^e (m an integer, not normalised for subnormals).
struct XfNum {
  uint64_t m;
  int e;
};

int xf_msb64(uint64_t m) {
  const uint hi = uint(m >> 32);
  return hi != 0u ? 32 + findMSB(hi) : findMSB(uint(m));
}

bool xf_isnan(uint a) { return (a & 0x7fffffffu) > XF_INF; }
bool xf_isinf(uint a) { return (a & 0x7fffffffu) == XF_INF; }
bool xf_iszero(uint a) { return (a & 0x7fffffffu) == 0u; }
bool xf_sign(uint a) { return (a & XF_SIGN) != 0u; }
uint xf_neg(uint a) { return xf_isnan(a) ? XF_NAN : a ^ XF_SIGN; }
uint xf_abs(uint a) { return xf_isnan(a) ? XF_NAN : a & 0x7fffffffu; }

// A total order key of a non-NaN float (-0 and +0 both 0).
int xf_key(uint a) {
  const int k = int(a & 0x7fffffffu);
  return xf_sign(a) ? -k : k;
}
bool xf_eq(uint a, uint b) { return !xf_isnan(a) && !xf_isnan(b) && xf_key(a) == xf_key(b); }
bool xf_lt(uint a, uint b) { return !xf_isnan(a) && !xf_isnan(b) && xf_key(a) < xf_key(b); }
bool xf_le(uint a, uint b) { return !xf_isnan(a) && !xf_isnan(b) && xf_key(a) <= xf_key(b); }

// Finite nonzero a as m * 2^e, m normalised to bit 62 (so that sums of two
// such keep a zero bit below every rounding position; see xf_round).
XfNum xf_unpack62(uint a) {
  const uint f = (a >> 23) & 0xffu;
  XfNum r;
  r.m = uint64_t(f != 0u ? ((a & 0x7fffffu) | 0x800000u) : (a & 0x7fffffu));
  r.e = f != 0u ? int(f) - 150 : -149;
  const int s = 62 - xf_msb64(r.m);
  r.m <<= s;
  r.e -= s;
  return r;
}

// m >> shift (shift >= 1) rounded to nearest even. m's lowest bit may be a
// sticky bit (set when nonzero bits were dropped below it): correct as long
// as the rounding position is at least two bits above it, which every caller
// guarantees (its operands carry zero bits there).
uint64_t xf_rne_shift(uint64_t m, int shift) {
  if (shift >= 65) return 0ul;  // below half of the last place
  if (shift == 64) return m > (1ul << 63) ? 1ul : 0ul;
  const uint64_t q = m >> shift;
  const uint64_t rem = m & ((1ul << shift) - 1ul);
  const uint64_t halfway = 1ul << (shift - 1);
  return q + ((rem > halfway || (rem == halfway && (q & 1ul) != 0ul)) ? 1ul : 0ul);
}

// The float32 nearest (ties to even) to (-1)^neg * m * 2^e, m != 0.
uint xf_round(bool neg, uint64_t m, int e) {
  const int n = xf_msb64(m);
  const uint s = neg ? XF_SIGN : 0u;
  if (n + e > 127) return s | XF_INF;
  // 24 significant bits, or fewer where the last place is 2^-149 (subnormal).
  const int shift = max(n - 23, -149 - e);
  const uint64_t q = shift <= 0 ? (m << (-shift)) : xf_rne_shift(m, shift);
  // The result's last place is 2^(e + shift); q <= 2^24. Adding q to the
  // exponent field below the result's exponent lets q's leading bit (and a
  // carry out of rounding) complete it; subnormals have field 0.
  const int E = e + shift + 23;  // the exponent when normal (-126 when subnormal)
  const uint bits = (uint(E + 126) << 23) + uint(q);
  return s | (bits >= XF_INF ? XF_INF : bits);
}

// (-1)^nx mx 2^ex + (-1)^ny my 2^ey, both nonzero, normalised to bit 62.
uint xf_add_parts(bool nx, uint64_t mx, int ex, bool ny, uint64_t my, int ey) {
  if (ey > ex || (ey == ex && my > mx)) {  // x is the larger magnitude
    const bool tn = nx; nx = ny; ny = tn;
    const uint64_t tm = mx; mx = my; my = tm;
    const int te = ex; ex = ey; ey = te;
  }
  const int d = ex - ey;
  // Bits shifted out of y leave a sticky 1; only when d exceeds y's zero
  // low bits, where x dominates (cancellation of at most one bit).
  uint64_t ya = 1ul;
  if (d == 0) ya = my;
  else if (d < 63) ya = (my >> d) | ((my & ((1ul << d) - 1ul)) != 0ul ? 1ul : 0ul);
  if (nx == ny) return xf_round(nx, mx + ya, ex);
  const uint64_t m = mx - ya;
  return m == 0ul ? 0u : xf_round(nx, m, ex);  // exact cancellation is +0
}

uint xf_add(uint a, uint b) {
  if (xf_isnan(a) || xf_isnan(b)) return XF_NAN;
  if (xf_isinf(a) || xf_isinf(b)) {
    if (xf_isinf(a) && xf_isinf(b) && xf_sign(a) != xf_sign(b)) return XF_NAN;
    return xf_isinf(a) ? a : b;
  }
  if (xf_iszero(a)) return xf_iszero(b) ? (a & b) : b;  // -0 only from -0 + -0
  if (xf_iszero(b)) return a;
  const XfNum x = xf_unpack62(a), y = xf_unpack62(b);
  return xf_add_parts(xf_sign(a), x.m, x.e, xf_sign(b), y.m, y.e);
}

uint xf_sub(uint a, uint b) { return xf_add(a, xf_neg(b)); }

uint xf_mul(uint a, uint b) {
  if (xf_isnan(a) || xf_isnan(b)) return XF_NAN;
  const uint s = (a ^ b) & XF_SIGN;
  if (xf_isinf(a) || xf_isinf(b)) return xf_iszero(a) || xf_iszero(b) ? XF_NAN : s | XF_INF;
  if (xf_iszero(a) || xf_iszero(b)) return s;
  const XfNum x = xf_unpack62(a), y = xf_unpack62(b);
  // 24-bit significands: the product is exact in 48 bits.
  return xf_round(s != 0u, (x.m >> 39) * (y.m >> 39), x.e + y.e + 78);
}

uint xf_fma(uint a, uint b, uint c) {
  if (xf_isnan(a) || xf_isnan(b) || xf_isnan(c)) return XF_NAN;
  const bool np = ((a ^ b) & XF_SIGN) != 0u;
  if (xf_isinf(a) || xf_isinf(b)) {
    if (xf_iszero(a) || xf_iszero(b)) return XF_NAN;
    if (xf_isinf(c) && xf_sign(c) != np) return XF_NAN;
    return (np ? XF_SIGN : 0u) | XF_INF;
  }
  if (xf_isinf(c)) return c;
  if (xf_iszero(a) || xf_iszero(b)) {  // an exact ±0 product
    if (xf_iszero(c)) return (np && xf_sign(c)) ? XF_SIGN : 0u;
    return c;
  }
  const XfNum x = xf_unpack62(a), y = xf_unpack62(b);
  uint64_t pm = (x.m >> 39) * (y.m >> 39);  // exact, 47 or 48 bits
  int pe = x.e + y.e + 78;
  const int s = 62 - xf_msb64(pm);
  pm <<= s;
  pe -= s;
  if (xf_iszero(c)) return xf_round(np, pm, pe);
  const XfNum z = xf_unpack62(c);
  return xf_add_parts(np, pm, pe, xf_sign(c), z.m, z.e);
}

uint xf_div(uint a, uint b) {
  if (xf_isnan(a) || xf_isnan(b)) return XF_NAN;
  const uint s = (a ^ b) & XF_SIGN;
  if (xf_isinf(a)) return xf_isinf(b) ? XF_NAN : s | XF_INF;
  if (xf_isinf(b)) return s;
  if (xf_iszero(b)) return xf_iszero(a) ? XF_NAN : s | XF_INF;
  if (xf_iszero(a)) return s;
  const XfNum x = xf_unpack62(a), y = xf_unpack62(b);
  // 2^62 <= mx < 2^63 over a 24-bit my: a quotient of 39-40 bits, the
  // remainder folded into a sticky bit below a zero bit.
  const uint64_t my = y.m >> 39;
  const uint64_t q = x.m / my, r = x.m - q * my;
  return xf_round(s != 0u, (q << 2) | (r != 0ul ? 1ul : 0ul), x.e - (y.e + 39) - 2);
}

uint xf_sqrt(uint a) {
  if (xf_isnan(a)) return XF_NAN;
  if (xf_iszero(a)) return a;
  if (xf_sign(a)) return XF_NAN;
  if (xf_isinf(a)) return a;
  XfNum x = xf_unpack62(a);
  if ((x.e & 1) != 0) {  // an even exponent (the low bits are zero: exact)
    x.m >>= 1;
    x.e += 1;
  }
  // Digit-by-digit integer square root: root = floor(sqrt(m)), 31-32 bits.
  uint64_t rem = x.m, root = 0ul, bit = 1ul << 62;
  while (bit > rem) bit >>= 2;
  while (bit != 0ul) {
    if (rem >= root + bit) {
      rem -= root + bit;
      root = (root >> 1) + bit;
    } else {
      root >>= 1;
    }
    bit >>= 2;
  }
  return xf_round(false, (root << 2) | (rem != 0ul ? 1ul : 0ul), x.e / 2 - 2);
}

uint xf_from_int(int v) {
  if (v == 0) return 0u;
  const uint64_t m = v < 0 ? uint64_t(-int64_t(v)) : uint64_t(v);
  return xf_round(v < 0, m, 0);
}

// ------------------------------------------------------------------ exp
// The CPU's exp_f32 (vec_math.h expf32 constants, as bits).
XF_CONST uint XF_EXP_T[8] = XF_TABLE8(0x3f800000u, 0x3f8b95c2u, 0x3f9837f0u, 0x3fa5fed7u, 0x3fb504f3u, 0x3fc5672au,
                                   0x3fd744fdu, 0x3feac0c7u);
XF_CONST uint XF_EXP_TLO[8] = XF_TABLE8(0x0u, 0xb260aba1u, 0x33231b71u, 0xb32c9d5eu, 0x32cfe77au, 0x320aa837u,
                                     0xb2d4a58au, 0xb24116deu);

uint xf_exp(uint x) {
  if (xf_isnan(x)) return XF_NAN;
  const uint kClamp = 0x42d00000u, kMinusClamp = 0xc2d00000u;  // ±104
  if (xf_lt(kClamp, x)) x = kClamp;
  if (xf_lt(x, kMinusClamp)) x = kMinusClamp;
  const uint kShift = 0x4b400000u;  // 1.5 * 2^23
  const uint t = xf_add(xf_mul(x, 0x4138aa3bu), kShift);  // x * 8/ln2 + shift
  const uint kf = xf_sub(t, kShift);
  const uint r = xf_sub(xf_sub(x, xf_mul(kf, 0x3db17000u)), xf_mul(kf, 0x3685fdf4u));
  const int k = int(t - kShift);
  const int j = k & 7, e = k >> 3, e1 = e >> 1, e2 = e - e1;
  const uint p = xf_add(xf_mul(xf_add(xf_mul(r, 0x3d2aaaabu), 0x3e2aaaabu), r), 0x3f000000u);
  const uint q = xf_add(r, xf_mul(xf_mul(r, r), p));
  const uint v = xf_add(XF_EXP_T[j], xf_add(xf_mul(XF_EXP_T[j], q), XF_EXP_TLO[j]));
  return xf_mul(xf_mul(v, uint(e1 + 127) << 23), uint(e2 + 127) << 23);
}

// ------------------------------------------------------------------ halves
uint xf_from_f16(uint h) {
  const uint s = (h & 0x8000u) << 16;
  const uint em = h & 0x7fffu;
  if (em > 0x7c00u) return s | XF_NAN;  // the NaN's sign is kept (copysign reads it)
  if (em == 0x7c00u) return s | XF_INF;
  if (em == 0u) return s;
  if (em < 0x400u) return s | xf_round(false, uint64_t(em), -24);  // subnormal: em * 2^-24, exact
  return s | ((em << 13) + 0x38000000u);
}

uint xf_to_f16(uint f) {
  if (xf_isnan(f)) return 0x7e00u;
  const uint s = (f >> 16) & 0x8000u;
  const uint ax = f & 0x7fffffffu;
  if (ax >= 0x477ff000u) return s | 0x7c00u;  // rounds to inf
  if (ax < 0x38800000u) {  // below 2^-14: a multiple of 2^-24, rounded once
    if (ax == 0u) return s;
    const XfNum x = xf_unpack62(f);
    const int shift = -24 - x.e;  // >= 25 here
    return s | uint(xf_rne_shift(x.m, shift));
  }
  return s | ((ax + 0xc8000fffu + ((ax >> 13) & 1u)) >> 13);  // rebias, round
}

uint xf_from_bf16(uint b) { return xf_isnan(b << 16) ? ((b & 0x8000u) << 16) | XF_NAN : b << 16; }

uint xf_to_bf16(uint f) {
  if (xf_isnan(f)) return 0x7fc0u;
  return (f + 0x7fffu + ((f >> 16) & 1u)) >> 16;  // nearest even; overflow carries into inf
}

// Two steps, so that a T defined as a macro (-DT=f32) expands before the paste.
#define XLOAD(T) XLOAD_(T)
#define XSTORE(T) XSTORE_(T)
#define XLOAD_(T) XLOAD_##T
#define XSTORE_(T) XSTORE_##T
#define XLOAD_f32(a, i) ld32(a, i)
#define XLOAD_f16(a, i) xf_from_f16(ld16(a, i))
#define XLOAD_bf16(a, i) xf_from_bf16(ld16(a, i))
#define XSTORE_f32(a, i, v) st32(a, i, v)
#define XSTORE_f16(a, i, v) st16(a, i, xf_to_f16(v))
#define XSTORE_bf16(a, i, v) st16(a, i, xf_to_bf16(v))

#endif
