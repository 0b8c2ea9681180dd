// The scale of var/std's squared deviations (cpu/reduce.cpp; the OpenCL and
// Vulkan kernels repeat this rule bit for bit: stat_scale in
// opencl/kernels/reduce.cl and vulkan/shaders/reduce.comp).
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <type_traits>

namespace concord::detail::cpu::red {

// The scale of var/std (the rule the OpenCL and Vulkan kernels repeat): the
// squared deviations of values near the float range's ends overflow (or
// underflow) although the standard deviation is representable, so var/std
// reduce (x * s - mean(x * s))^2 with s = 2^-e chosen from m = max|x| of the
// output, and scale the result back by 2^e (std) or 2^2e (var). Powers of two
// are exact, so s = 1 wherever nothing can overflow or underflow: for m with
// exponent E (m in [2^E, 2^(E+1))) in [kLo, kHi], and for m = 0, inf or NaN,
// keeping the plain two-pass bits. Otherwise e = E - 4 (the scaled maximum
// lies in [16, 32)), clamped so that s and 2^e stay normal.
template <class A>
struct StatScale {
  static constexpr bool kF64 = std::is_same_v<A, double>;
  using U = std::conditional_t<kF64, uint64_t, uint32_t>;
  static constexpr int kMant = kF64 ? 52 : 23, kBias = kF64 ? 1023 : 127;
  static constexpr int kLo = kF64 ? -300 : -30, kHi = kF64 ? 300 : 40;
  static constexpr int kClamp = kBias - 7;
  static A pow2(int k) { return std::bit_cast<A>(static_cast<U>(k + kBias) << kMant); }
  // s for the maximum m.
  static A scale(A m) {
    const int f = static_cast<int>((std::bit_cast<U>(m) >> kMant) & ((U(1) << (kF64 ? 11 : 8)) - 1));
    if (m == A(0) || f == 2 * kBias + 1) return A(1);  // zero, inf or NaN
    const int E = std::max(f, 1) - kBias;
    if (E >= kLo && E <= kHi) return A(1);
    return pow2(-std::clamp(E - 4, -kClamp, kClamp));
  }
  // 1 / s, exactly (s a normal power of two).
  static A inverse(A s) { return std::bit_cast<A>((static_cast<U>(2 * kBias) << kMant) - std::bit_cast<U>(s)); }
};

}  // namespace concord::detail::cpu::red
