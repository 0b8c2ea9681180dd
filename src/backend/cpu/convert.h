// Element conversions shared by every CPU kernel (and the contract the
// OpenCL kernels follow), so that a cast gives the same bits on every device:
//   float -> integer   truncate toward zero, saturate at the type's limits, NaN -> 0
//   integer -> integer wrap around (two's complement), like NumPy and PyTorch
//   any -> bool        x != 0 (NaN -> true)
//   float64 -> float16/bfloat16  rounded once (round-to-odd to float32 first,
//                      so the second rounding is exact: no double rounding)
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "concord/half.h"

namespace concord::detail::cpu {

template <class T> struct is_half_t : std::false_type {};
template <> struct is_half_t<float16_t> : std::true_type {};
template <> struct is_half_t<bfloat16_t> : std::true_type {};
template <class T> inline constexpr bool is_half_v = is_half_t<T>::value;

// float with the rounding of double -> float replaced by round-to-odd.
inline float round_to_odd_f32(double d) {
  float f = static_cast<float>(d);
  if (static_cast<double>(f) == d || std::isnan(d)) return f;
  // Truncate toward zero, then force the last mantissa bit to 1.
  if (std::fabs(static_cast<double>(f)) > std::fabs(d)) f = std::nextafter(f, 0.0f);
  uint32_t u = detail::f32_bits(f) | 1u;
  return detail::bits_f32(u);
}

// The value type arithmetic on T is done in: float for halves, else T.
template <class T> using compute_t = std::conditional_t<is_half_v<T>, float, T>;

template <class To, class From>
inline To convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<To, bool>) {
    if constexpr (is_half_v<From>) return static_cast<float>(v) != 0.0f;
    else return v != From(0);
  } else if constexpr (is_half_v<From>) {
    return convert<To>(static_cast<float>(v));
  } else if constexpr (is_half_v<To>) {
    if constexpr (std::is_same_v<From, double>) return To(round_to_odd_f32(v));
    else if constexpr (std::is_same_v<From, int64_t>) return To(round_to_odd_f32(static_cast<double>(v)));
    else return To(static_cast<float>(v));
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    if (std::isnan(v)) return To(0);
    constexpr From lo = static_cast<From>(std::numeric_limits<To>::min());
    // The largest integer type value may not be representable; compare against 2^bits.
    constexpr From hi_excl = static_cast<From>(std::numeric_limits<To>::max()) + From(1);
    if (v <= lo) return std::numeric_limits<To>::min();
    if (v >= hi_excl) return std::numeric_limits<To>::max();
    return static_cast<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

}  // namespace concord::detail::cpu
