// src/dist/exact_sum.h — the exact accumulator behind the reproducible sum.
//
// A finite value is m * 2^e with an odd integer m < 2^53 (any float16,
// bfloat16, float32 or float64, read as a double). Over all contributions of
// all ranks, the window [lsb, top] holds every set bit; relative to base =
// lsb, each value is an integer, and their sum fits in a two's-complement
// integer of limbs_for(window, contributions) 64-bit limbs. Integer addition
// is associative, so any order of merging gives the same integer, which is
// then rounded once (round_exact).
#pragma once

#include <cstddef>
#include <cstdint>

namespace concord::dist::detail {

struct Window {
  int32_t lsb = INT32_MAX;   // lowest set bit's exponent over finite nonzero values
  int32_t top = INT32_MIN;   // highest set bit's exponent
  bool special = false;      // some NaN, +-inf or -0 (needs the per-element flags)
  bool nonfinite = false;    // some NaN or +-inf (-0 alone only matters where a sum is zero)
  bool empty() const { return lsb > top; }
};
// scan_raw (sum_paths.h) finds the window of raw values.
size_t limbs_for(const Window& w, uint64_t contributions);

// acc[i * limbs ...] += x[i] * 2^-base for finite x (others are left to flags).
void accumulate(const double* x, size_t n, int32_t base, size_t limbs, uint64_t* acc);

// Per element: OR of kNaN, kPosInf, kNegInf, kNotNegZero over the contributions.
enum : uint8_t { kNaN = 1, kPosInf = 2, kNegInf = 4, kNotNegZero = 8 };
void add_flags(const double* x, size_t n, uint8_t* flags);

// A floating format: p significand bits, emin the exponent of its smallest subnormal.
struct Format { int p; int emin; };

// The integer acc (limbs limbs) times 2^base, divided by divisor, rounded once
// to nearest even into fmt; returned as the double of that value (exact), +-inf
// on overflow. flags (kNotNegZero when none were exchanged: no special values) give
// the NaN, inf and signed-zero rules of concord/dist.h.
double round_exact(const uint64_t* acc, size_t limbs, int32_t base, uint64_t divisor, Format fmt, uint8_t flags);

}  // namespace concord::dist::detail
