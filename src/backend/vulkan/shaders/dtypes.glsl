// shaders/dtypes.glsl — concord's dtypes in shaders: element loads and
// stores through device addresses, and the conversions of
// src/backend/cpu/convert.h, bit for bit (the OpenCL kernels' common.cl
// follows the same contract).
//
//   Dtype suffixes X:  b u8 i8 i16 i32 i64 f16 bf16 f32 f64
//   CT_X               compute type: uint (b u8), int (i8 i16 i32), int64_t
//                      (i64), float (f16 bf16 f32), double (f64)
//   LOAD_X(a, i)       element i (64-bit) of the buffer at address a, as CT_X
//   STORE_X(a, i, v)   stores v (CT_X); halves round once to nearest even
//   CVT(D, S)(v)       the conversion of a CT_S value to CT_D: float -> int
//                      truncates, saturates, NaN -> 0; int -> int wraps; any ->
//                      bool is x != 0 (NaN -> 1); float64 and int64 -> halves
//                      round to odd to float32 first (one correct rounding)
//   ITEM_X             bytes per element
//
// Elements are reached by building a reference from the element's address
// (base + i * size), never by reference arithmetic: glslc 2023.2 crashes on
// `ref + i` for 8- and 16-bit element types.
//
// float64 parts need CONCORD_F64 defined to 1 (the variant is then only
// created on devices with shaderFloat64).
#ifndef CONCORD_DTYPES_GLSL
#define CONCORD_DTYPES_GLSL

#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require

#ifndef CONCORD_F64
#define CONCORD_F64 0
#endif

layout(buffer_reference, std430, buffer_reference_align = 1) buffer Ref8 { uint8_t v; };
layout(buffer_reference, std430, buffer_reference_align = 2) buffer Ref16 { uint16_t v; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Ref32 { uint v; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer Ref64 { uint64_t v; };

uint ld8(uint64_t a, int64_t i) { return uint(Ref8(a + uint64_t(i)).v); }
uint ld16(uint64_t a, int64_t i) { return uint(Ref16(a + uint64_t(i) * 2ul).v); }
uint ld32(uint64_t a, int64_t i) { return Ref32(a + uint64_t(i) * 4ul).v; }
uint64_t ld64(uint64_t a, int64_t i) { return Ref64(a + uint64_t(i) * 8ul).v; }
void st8(uint64_t a, int64_t i, uint v) { Ref8(a + uint64_t(i)).v = uint8_t(v & 0xffu); }
void st16(uint64_t a, int64_t i, uint v) { Ref16(a + uint64_t(i) * 2ul).v = uint16_t(v & 0xffffu); }
void st32(uint64_t a, int64_t i, uint v) { Ref32(a + uint64_t(i) * 4ul).v = v; }
void st64(uint64_t a, int64_t i, uint64_t v) { Ref64(a + uint64_t(i) * 8ul).v = v; }

// ---------------------------------------------------------------- halves
// Exactly include/concord/half.h's conversions, NaN payloads included.

// float16 -> float32, exact.
float f16_to_f32(uint h) {
  const uint sign = (h & 0x8000u) << 16;
  const uint em = h & 0x7fffu;
  if (em < 0x400u) {  // zero or subnormal: em * 2^-24, exact
    precise float sub = float(em) * uintBitsToFloat(0x33800000u);
    return uintBitsToFloat(floatBitsToUint(sub) | sign);
  }
  const uint big = em >= 0x7c00u ? ((em << 13) | 0x7f800000u) : ((em << 13) + 0x38000000u);
  return uintBitsToFloat(big | sign);
}

// float32 -> float16 bits, round to nearest even; overflow to inf; NaN made
// quiet with its top payload bits kept.
uint f32_to_f16(float f) {
  const uint x = floatBitsToUint(f);
  const uint sign = (x >> 16) & 0x8000u;
  const uint ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return sign | 0x7e00u | ((ax >> 13) & 0x3ffu);
  if (ax >= 0x477ff000u) return sign | 0x7c00u;
  if (ax < 0x38800000u) {
    // Subnormal results: adding 0.5 makes the float adder round at 2^-24 steps.
    precise float s = uintBitsToFloat(ax) + 0.5;
    return sign | (floatBitsToUint(s) - 0x3f000000u);
  }
  return sign | ((ax + 0xc8000fffu + ((ax >> 13) & 1u)) >> 13);  // rebias, round
}

float bf16_to_f32(uint b) { return uintBitsToFloat(b << 16); }

uint f32_to_bf16(float f) {
  uint x = floatBitsToUint(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (x >> 16) | 0x40u;  // quiet NaN
  x += 0x7fffu + ((x >> 16) & 1u);  // nearest even; overflow carries into inf
  return x >> 16;
}

// int64 -> double -> float32 with round-to-odd in the second step (the path
// convert.h takes to a half), in integer arithmetic: no float64 needed.
int msb64(uint64_t u) {
  const uint hi = uint(u >> 32);
  return hi != 0u ? 32 + findMSB(hi) : findMSB(uint(u));
}
float i64_to_f32_rto(int64_t v) {
  uint64_t u = v < 0l ? uint64_t(0ul) - uint64_t(v) : uint64_t(v);
  if (u >= (1ul << 53)) {  // the int64 -> double rounding (nearest even, 53 bits)
    const int sh = msb64(u) + 1 - 53;
    const uint64_t mask = (1ul << sh) - 1ul, halfway = 1ul << (sh - 1);
    const uint64_t rem = u & mask;
    u &= ~mask;
    if (rem > halfway || (rem == halfway && ((u >> sh) & 1ul) != 0ul)) u += 1ul << sh;
  }
  float r;
  if (u < (1ul << 24)) {
    r = float(uint(u));
  } else {  // keep 24 bits; a nonzero remainder sets the last one
    const int sh = msb64(u) + 1 - 24;
    uint t = uint(u >> sh);
    if ((u & ((1ul << sh) - 1ul)) != 0ul) t |= 1u;
    // t * 2^sh, exact: sh <= 40, so the product is a normal float.
    precise float m = float(t) * uintBitsToFloat(uint(127 + sh) << 23);
    r = m;
  }
  return v < 0l ? -r : r;
}

#if CONCORD_F64
// float32 <-> float64 in integer arithmetic: the CPU's conversions bit for
// bit, whatever the device's float unit does with subnormals (a driver may
// flush float32 subnormals: NVIDIA's does) or with NaN payloads (quiet, sign
// and top payload bits kept, as x86's cvtss2sd / cvtsd2ss).
double f32_to_f64(float f) {
  const uint b = floatBitsToUint(f);
  const uint sign = b & 0x80000000u, e = (b >> 23) & 0xffu, m = b & 0x7fffffu;
  uint hi = sign, lo = 0u;
  if (e == 0xffu) {
    hi |= 0x7ff00000u | (m >> 3) | (m != 0u ? 0x80000u : 0u);
    lo = m << 29;
  } else if (e == 0u) {
    if (m != 0u) {  // m * 2^-149 = 1.f * 2^(p - 149), a normal float64
      const int p = findMSB(m);
      const uint64_t frac = (uint64_t(m) << uint(52 - p)) & 0xffffffffffffful;
      hi |= (uint(p + 874) << 20) | uint(frac >> 32);  // 874 = 1023 - 149
      lo = uint(frac);
    }
  } else {
    hi |= ((e + 896u) << 20) | (m >> 3);  // 896 = 1023 - 127
    lo = m << 29;
  }
  return packDouble2x32(uvec2(lo, hi));
}

// float64 -> float32: round to nearest even (odd == false), or round to odd
// (odd == true: convert.h's first step to a half, so that one more rounding
// is exact; overflow then saturates at the largest float, whose half rounding
// is infinity).
float f64_to_f32(double d, bool odd) {
  const uvec2 w = unpackDouble2x32(d);
  const uint sign = w.y & 0x80000000u;
  const int e = int((w.y >> 20) & 0x7ffu);
  const uint64_t m = (uint64_t(w.y & 0xfffffu) << 32) | uint64_t(w.x);
  if (e == 0x7ff) return uintBitsToFloat(sign | (m == 0ul ? 0x7f800000u : 0x7fc00000u | uint(m >> 29)));
  if (e == 0 && m == 0ul) return uintBitsToFloat(sign);
  const uint64_t sig = e == 0 ? m : (m | (1ul << 52));  // value = sig * 2^(max(e, 1) - 1075)
  const int E = max(e, 1) - 896;                         // float32 biased exponent
  if (E >= 255) return uintBitsToFloat(sign | (odd ? 0x7f7fffffu : 0x7f800000u));
  const int sh = E > 0 ? 29 : 30 - E;  // bits dropped: 24 kept for a normal result, fewer below
  uint64_t keep = 0ul;
  bool inexact = true;
  if (sh <= 60) {
    keep = sig >> uint(sh);
    const uint64_t rem = sig & ((1ul << uint(sh)) - 1ul), halfway = 1ul << uint(sh - 1);
    inexact = rem != 0ul;
    if (!odd && (rem > halfway || (rem == halfway && (keep & 1ul) != 0ul))) keep += 1ul;
  }
  if (odd && inexact) keep |= 1ul;
  // A normal result's implicit bit carries into the exponent (rounding up to
  // 2^24 gives the next binade, to 2^23 from below the smallest normal).
  uint bits = E > 0 ? (uint(E - 1) << 23) + uint(keep) : uint(keep);
  if (bits >= 0x7f800000u) bits = odd ? 0x7f7fffffu : 0x7f800000u;
  return uintBitsToFloat(sign | bits);
}
#endif

// ---------------------------------------------------------------- loads and stores
#define CT_b uint
#define CT_u8 uint
#define CT_i8 int
#define CT_i16 int
#define CT_i32 int
#define CT_i64 int64_t
#define CT_f16 float
#define CT_bf16 float
#define CT_f32 float
#define CT_f64 double
#define ITEM_b 1
#define ITEM_u8 1
#define ITEM_i8 1
#define ITEM_i16 2
#define ITEM_i32 4
#define ITEM_i64 8
#define ITEM_f16 2
#define ITEM_bf16 2
#define ITEM_f32 4
#define ITEM_f64 8

#define LOAD_b(a, i) (ld8(a, i) != 0u ? 1u : 0u)
#define LOAD_u8(a, i) ld8(a, i)
#define LOAD_i8(a, i) (int(ld8(a, i) << 24) >> 24)
#define LOAD_i16(a, i) (int(ld16(a, i) << 16) >> 16)
#define LOAD_i32(a, i) int(ld32(a, i))
#define LOAD_i64(a, i) int64_t(ld64(a, i))
#define LOAD_f16(a, i) f16_to_f32(ld16(a, i))
#define LOAD_bf16(a, i) bf16_to_f32(ld16(a, i))
#define LOAD_f32(a, i) uintBitsToFloat(ld32(a, i))
#define LOAD_f64(a, i) uint64BitsToDouble(ld64(a, i))

#define STORE_b(a, i, v) st8(a, i, (v) != 0u ? 1u : 0u)
#define STORE_u8(a, i, v) st8(a, i, uint(v))
#define STORE_i8(a, i, v) st8(a, i, uint(v))
#define STORE_i16(a, i, v) st16(a, i, uint(v))
#define STORE_i32(a, i, v) st32(a, i, uint(v))
#define STORE_i64(a, i, v) st64(a, i, uint64_t(v))
#define STORE_f16(a, i, v) st16(a, i, f32_to_f16(v))
#define STORE_bf16(a, i, v) st16(a, i, f32_to_bf16(v))
#define STORE_f32(a, i, v) st32(a, i, floatBitsToUint(v))
#define STORE_f64(a, i, v) st64(a, i, doubleBitsToUint64(v))

// Token-pasting spellings for shaders generic in their dtypes (-DT=f32).
#define CT_(X) CT_##X
#define CT(X) CT_(X)
#define LOAD_(X) LOAD_##X
#define LOAD(X) LOAD_(X)
#define STORE_(X) STORE_##X
#define STORE(X) STORE_(X)
#define ITEM_(X) ITEM_##X
#define ITEM(X) ITEM_(X)

// ---------------------------------------------------------------- conversions
// By the source's compute class: u (b u8: uint), i (i8 i16 i32: int),
// l (i64), f (f16 bf16 f32: float), d (f64).
#define CLS_b u
#define CLS_u8 u
#define CLS_i8 i
#define CLS_i16 i
#define CLS_i32 i
#define CLS_i64 l
#define CLS_f16 f
#define CLS_bf16 f
#define CLS_f32 f
#define CLS_f64 d
#define CVT_PASTE(D, C) to_##D##_##C
#define CVT_CLASS(D, C) CVT_PASTE(D, C)
#define CVT_(D, S) CVT_CLASS(D, CLS_##S)
#define CVT(D, S) CVT_(D, S)

// float -> integer of [lo, hi]: NaN -> 0, saturate, truncate. hi_excl = 2^bits
// (exact in float), as convert.h compares against it.
#define F2I(T, F, lo, hi, hi_excl, v) \
  (isnan(v) ? T(0) : (v) <= F(lo) ? T(lo) : (v) >= F(hi_excl) ? T(hi) : T(v))

uint to_b_u(uint v) { return v != 0u ? 1u : 0u; }
uint to_b_i(int v) { return v != 0 ? 1u : 0u; }
uint to_b_l(int64_t v) { return v != 0l ? 1u : 0u; }
uint to_b_f(float v) { return (floatBitsToUint(v) & 0x7fffffffu) != 0u ? 1u : 0u; }  // bits: subnormals and NaN are true
uint to_u8_u(uint v) { return v & 0xffu; }
uint to_u8_i(int v) { return uint(v) & 0xffu; }
uint to_u8_l(int64_t v) { return uint(v) & 0xffu; }
uint to_u8_f(float v) { return F2I(uint, float, 0, 255, 256.0, v); }
int to_i8_u(uint v) { return int(v << 24) >> 24; }
int to_i8_i(int v) { return (v << 24) >> 24; }
int to_i8_l(int64_t v) { return (int(v) << 24) >> 24; }
int to_i8_f(float v) { return F2I(int, float, -128, 127, 128.0, v); }
int to_i16_u(uint v) { return int(v << 16) >> 16; }
int to_i16_i(int v) { return (v << 16) >> 16; }
int to_i16_l(int64_t v) { return (int(v) << 16) >> 16; }
int to_i16_f(float v) { return F2I(int, float, -32768, 32767, 32768.0, v); }
int to_i32_u(uint v) { return int(v); }
int to_i32_i(int v) { return v; }
int to_i32_l(int64_t v) { return int(v); }
#define INT_MIN_ int(0x80000000u)
#define INT64_MIN_ int64_t(0x8000000000000000ul)
#define INT64_MAX_ int64_t(0x7ffffffffffffffful)
int to_i32_f(float v) { return F2I(int, float, INT_MIN_, 2147483647, 2147483648.0, v); }
int64_t to_i64_u(uint v) { return int64_t(v); }
int64_t to_i64_i(int v) { return int64_t(v); }
int64_t to_i64_l(int64_t v) { return v; }
int64_t to_i64_f(float v) { return F2I(int64_t, float, INT64_MIN_, INT64_MAX_, 9223372036854775808.0, v); }
float to_f32_u(uint v) { return float(v); }
float to_f32_i(int v) { return float(v); }
float to_f32_l(int64_t v) { return float(v); }
float to_f32_f(float v) { return v; }
// Halves compute in float32; the store rounds once. int64 goes through round-to-odd.
float to_f16_u(uint v) { return float(v); }
float to_f16_i(int v) { return float(v); }
float to_f16_l(int64_t v) { return i64_to_f32_rto(v); }
float to_f16_f(float v) { return v; }
#define to_bf16_u to_f16_u
#define to_bf16_i to_f16_i
#define to_bf16_l to_f16_l
#define to_bf16_f to_f16_f

#if CONCORD_F64
uint to_b_d(double v) { const uvec2 w = unpackDouble2x32(v); return ((w.y & 0x7fffffffu) | w.x) != 0u ? 1u : 0u; }
uint to_u8_d(double v) { return F2I(uint, double, 0, 255, 256.0lf, v); }
int to_i8_d(double v) { return F2I(int, double, -128, 127, 128.0lf, v); }
int to_i16_d(double v) { return F2I(int, double, -32768, 32767, 32768.0lf, v); }
int to_i32_d(double v) { return F2I(int, double, INT_MIN_, 2147483647, 2147483648.0lf, v); }
int64_t to_i64_d(double v) { return F2I(int64_t, double, INT64_MIN_, INT64_MAX_, 9223372036854775808.0lf, v); }
float to_f32_d(double v) { return f64_to_f32(v, false); }
float to_f16_d(double v) { return f64_to_f32(v, true); }
#define to_bf16_d to_f16_d
double to_f64_u(uint v) { return double(v); }
double to_f64_i(int v) { return double(v); }
double to_f64_l(int64_t v) { return double(v); }
double to_f64_f(float v) { return f32_to_f64(v); }
double to_f64_d(double v) { return v; }
#endif

#endif
