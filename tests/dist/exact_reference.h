// tests/dist/exact_reference.h — an independent exact sum for the dist tests.
//
// Each value is spread into one signed counter per binary digit (from 2^-1300
// to 2^1200, via frexp: no bit tricks shared with the library), the counters
// are normalised to bits, and the result is rounded to nearest even by
// binary long division (for the mean) and a plain bit walk: slow and simple.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace dist_test {

struct Fmt { int p; int emin; };   // significand bits; exponent of the smallest subnormal
inline constexpr Fmt kF64{53, -1074}, kF32{24, -149}, kF16{11, -24}, kBF16{8, -133};

constexpr int kLow = -1300, kHigh = 1200;   // digit i is 2^(kLow + i)

// The correctly rounded (sum of xs) / divisor, with concord/dist.h's rules
// for NaN, infinities and the sign of zero.
inline double exact_mean(const std::vector<double>& xs, uint64_t divisor, Fmt f) {
  bool nan = false, pinf = false, ninf = false, all_neg_zero = true;
  std::vector<int64_t> digit(kHigh - kLow, 0);
  for (double x : xs) {
    if (std::isnan(x)) nan = true;
    else if (std::isinf(x)) (x > 0 ? pinf : ninf) = true;
    if (!(x == 0 && std::signbit(x))) all_neg_zero = false;
    if (!std::isfinite(x) || x == 0) continue;
    int e = 0;
    double fr = std::frexp(std::fabs(x), &e);     // x = fr * 2^e, fr in [0.5, 1)
    for (int k = e - 1; fr != 0; --k) {           // peel bits from the top
      fr *= 2;
      if (fr >= 1) { digit[static_cast<size_t>(k - kLow)] += x < 0 ? -1 : 1; fr -= 1; }
    }
  }
  if (nan || (pinf && ninf)) return std::numeric_limits<double>::quiet_NaN();
  if (pinf) return INFINITY;
  if (ninf) return -INFINITY;
  auto normalise = [](std::vector<int64_t>& d) {
    int64_t carry = 0;
    for (auto& v : d) {
      const int64_t s = v + carry;
      v = ((s % 2) + 2) % 2;
      carry = (s - v) / 2;
    }
    return carry;
  };
  std::vector<int64_t> bits = digit;
  bool neg = false;
  if (normalise(bits) < 0) {
    neg = true;
    for (auto& v : digit) v = -v;
    bits = digit;
    normalise(bits);
  }
  // Quotient bits, from the top down (remainders stay below the divisor).
  std::vector<int> q(bits.size(), 0);
  uint64_t rem = 0;
  for (size_t i = bits.size(); i-- > 0;) {
    rem = 2 * rem + static_cast<uint64_t>(bits[i]);
    if (rem >= divisor) { q[i] = 1; rem -= divisor; }
  }
  bool sticky = rem != 0;
  int h = -1;
  for (int i = static_cast<int>(q.size()) - 1; i >= 0; --i)
    if (q[static_cast<size_t>(i)]) { h = i; break; }
  if (h < 0) {
    // Digits below 2^-1300 are not kept: a nonzero quotient there rounds to zero anyway.
    if (sticky) return neg ? -0.0 : 0.0;
    return all_neg_zero ? -0.0 : 0.0;
  }
  const int lsb = std::max(h - (f.p - 1), f.emin - kLow);
  double mant = 0;
  for (int i = h; i >= lsb; --i) mant = 2 * mant + q[static_cast<size_t>(i)];
  const bool guard = lsb > 0 && q[static_cast<size_t>(lsb - 1)];
  for (int i = lsb - 2; i >= 0; --i) sticky = sticky || q[static_cast<size_t>(i)];
  if (guard && (sticky || std::fmod(mant, 2) == 1)) mant += 1;
  const double v = std::ldexp(mant, lsb + kLow);
  return neg ? -v : v;
}

inline double exact_sum(const std::vector<double>& xs, Fmt f) { return exact_mean(xs, 1, f); }

}  // namespace dist_test
