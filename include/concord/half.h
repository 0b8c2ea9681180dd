// concord/half.h — float16 and bfloat16 as C++ value types.
//
// Both are storage formats: arithmetic on them converts to float, computes in
// float32 and rounds once on the way back (round-to-nearest-even). Conversions
// are exact for NaN (quiet, sign kept), infinities, subnormals, and overflow
// (values beyond the largest finite half round to infinity as IEEE requires).
//
//   concord::float16_t h(0.1f);        // nearest half: 0.0999755859375
//   float f = static_cast<float>(h);   // exact widening
//   auto b = concord::bfloat16_t::from_bits(0x3f80);  // 1.0
//
// Bulk conversions (convert_f32_to_f16 and friends) use F16C/AVX-512 where the
// CPU has it, chosen at run time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace concord {

namespace detail {

inline uint32_t f32_bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
inline float bits_f32(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

// IEEE binary32 -> binary16, round to nearest even.
inline uint16_t f32_to_f16_bits(float f) {
  uint32_t x = f32_bits(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) {  // inf or nan
    return static_cast<uint16_t>(sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u | ((ax >> 13) & 0x3ffu) : 0u));
  }
  if (ax >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to >= 65520: inf
  if (ax < 0x38800000u) {  // below the smallest normal half (2^-14): subnormal or zero
    // Adding 0.5 shifts the value so that the float adder does RNE at 2^-24 granularity.
    float v = bits_f32(ax) + 0.5f;
    return static_cast<uint16_t>(sign | (f32_bits(v) - 0x3f000000u));
  }
  uint32_t mant_odd = (ax >> 13) & 1u;
  ax += 0xc8000fffu + mant_odd;  // rebias exponent (-112 << 23) and round
  return static_cast<uint16_t>(sign | (ax >> 13));
}

inline float f16_bits_to_f32(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0x1f) return bits_f32(sign | 0x7f800000u | (mant << 13));
  if (exp == 0) {  // zero or subnormal: mant * 2^-24, exact in float
    float v = static_cast<float>(mant) * 5.9604644775390625e-8f;
    return sign ? -v : v;
  }
  return bits_f32(sign | ((exp + 112u) << 23) | (mant << 13));
}

inline uint16_t f32_to_bf16_bits(float f) {
  uint32_t x = f32_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet NaN
  x += 0x7fffu + ((x >> 16) & 1u);  // round to nearest even; overflow carries into inf correctly
  return static_cast<uint16_t>(x >> 16);
}

inline float bf16_bits_to_f32(uint16_t b) { return bits_f32(static_cast<uint32_t>(b) << 16); }

}  // namespace detail

struct float16_t {
  uint16_t bits = 0;
  float16_t() = default;
  explicit float16_t(float f) : bits(detail::f32_to_f16_bits(f)) {}
  explicit float16_t(double d) : float16_t(static_cast<float>(d)) {}  // note: double rounding; see cast kernels
  static float16_t from_bits(uint16_t b) { float16_t h; h.bits = b; return h; }
  operator float() const { return detail::f16_bits_to_f32(bits); }
};

struct bfloat16_t {
  uint16_t bits = 0;
  bfloat16_t() = default;
  explicit bfloat16_t(float f) : bits(detail::f32_to_bf16_bits(f)) {}
  explicit bfloat16_t(double d) : bfloat16_t(static_cast<float>(d)) {}
  static bfloat16_t from_bits(uint16_t b) { bfloat16_t h; h.bits = b; return h; }
  operator float() const { return detail::bf16_bits_to_f32(bits); }
};

static_assert(sizeof(float16_t) == 2 && sizeof(bfloat16_t) == 2);

// Bulk conversions, vectorised where the CPU allows (runtime dispatch).
void convert_f16_to_f32(const float16_t* src, float* dst, size_t n);
void convert_f32_to_f16(const float* src, float16_t* dst, size_t n);
void convert_bf16_to_f32(const bfloat16_t* src, float* dst, size_t n);
void convert_f32_to_bf16(const float* src, bfloat16_t* dst, size_t n);

}  // namespace concord
