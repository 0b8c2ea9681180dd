// src/dist/exact_sum.cpp — encoding into, and rounding out of, the exact
// fixed-point accumulator (see exact_sum.h).
#include "dist/exact_sum.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace concord::dist::detail {
namespace {

struct Parts { uint64_t m; int32_t e; bool neg; };   // |x| = m * 2^e, m odd

// x finite and nonzero.
Parts decompose(double x) {
  uint64_t u;
  std::memcpy(&u, &x, 8);
  const bool neg = u >> 63;
  const int32_t ef = static_cast<int32_t>((u >> 52) & 0x7ff);
  uint64_t m = u & ((uint64_t{1} << 52) - 1);
  int32_t e = -1074;
  if (ef != 0) { m |= uint64_t{1} << 52; e = ef - 1075; }
  const int tz = std::countr_zero(m);   // odd m: the narrowest window
  return {m >> tz, e + tz, neg};
}

// acc += v << shift (or -=), two's complement over `limbs` limbs. v < 2^53.
void add_shifted(uint64_t* acc, size_t limbs, uint64_t v, size_t shift, bool subtract) {
  const size_t q = shift / 64, r = shift % 64;
  uint64_t w[2] = {v << r, r ? v >> (64 - r) : 0};
  unsigned carry = 0;
  for (size_t l = q; l < limbs; ++l) {
    const uint64_t add = l - q < 2 ? w[l - q] : 0;
    if (l - q >= 2 && carry == 0) break;
    const uint64_t a = acc[l];
    if (!subtract) {
      const uint64_t s = a + add;
      const unsigned c1 = s < a;
      acc[l] = s + carry;
      carry = c1 | (acc[l] < s);
    } else {
      const uint64_t d = a - add;
      const unsigned b1 = a < add;
      acc[l] = d - carry;
      carry = b1 | (d < carry);
    }
  }
}

// A magnitude of up to kMaxLimbs limbs on the stack: rounding runs once per
// element, so it must not allocate. The widest window, float64's whole range
// (2098 bits) plus growth and sign, takes 34 limbs; a quotient 2 more.
constexpr size_t kMaxLimbs = 40;
struct Mag {
  uint64_t l[kMaxLimbs];
  size_t n;
  size_t size() const { return n; }
  uint64_t operator[](size_t i) const { return l[i]; }
  uint64_t& operator[](size_t i) { return l[i]; }
};

// Bits [pos, pos + n) of the magnitude (n <= 64).
uint64_t bits_at(const Mag& m, size_t pos, size_t n) {
  const size_t q = pos / 64, r = pos % 64;
  uint64_t v = q < m.size() ? m[q] >> r : 0;
  if (r && q + 1 < m.size()) v |= m[q + 1] << (64 - r);
  return n == 64 ? v : v & ((uint64_t{1} << n) - 1);
}

bool any_below(const Mag& m, size_t pos) {
  const size_t q = pos / 64, r = pos % 64;
  for (size_t l = 0; l < q && l < m.size(); ++l)
    if (m[l]) return true;
  return r && q < m.size() && (m[q] & ((uint64_t{1} << r) - 1));
}

}  // namespace

size_t limbs_for(const Window& w, uint64_t contributions) {
  if (w.empty()) return 1;
  // Magnitude bits, the growth of a sum of `contributions` terms, and a sign bit.
  const int64_t bits = int64_t{w.top} - w.lsb + 1 + std::bit_width(contributions) + 1;
  return static_cast<size_t>((bits + 63) / 64);
}

void accumulate(const double* x, size_t n, int32_t base, size_t limbs, uint64_t* acc) {
  for (size_t i = 0; i < n; ++i) {
    const double v = x[i];
    if (!std::isfinite(v) || v == 0) continue;
    const Parts p = decompose(v);
    add_shifted(acc + i * limbs, limbs, p.m, static_cast<size_t>(p.e - base), p.neg);
  }
}

void add_flags(const double* x, size_t n, uint8_t* flags) {
  for (size_t i = 0; i < n; ++i) {
    const double v = x[i];
    uint8_t f = std::isnan(v) ? kNaN : v == INFINITY ? kPosInf : v == -INFINITY ? kNegInf : 0;
    if (!(v == 0 && std::signbit(v))) f |= kNotNegZero;
    flags[i] |= f;
  }
}

double round_exact(const uint64_t* acc, size_t limbs, int32_t base, uint64_t divisor, Format fmt, uint8_t flags) {
  if ((flags & kNaN) || ((flags & kPosInf) && (flags & kNegInf))) return std::numeric_limits<double>::quiet_NaN();
  if (flags & kPosInf) return INFINITY;
  if (flags & kNegInf) return -INFINITY;
  // Magnitude and sign of the two's-complement integer; for a quotient, two
  // more low limbs so that it keeps >= 64 significant bits beyond the divisor's.
  const size_t low = divisor > 1 ? 2 : 0;
  Mag m;
  m.n = limbs + low;
  for (size_t i = 0; i < low; ++i) m[i] = 0;
  std::memcpy(m.l + low, acc, limbs * 8);
  const bool neg = acc[limbs - 1] >> 63;
  if (neg) {
    unsigned carry = 1;
    for (size_t i = 0; i < m.n; ++i) { m[i] = ~m[i] + carry; carry = carry && m[i] == 0; }
  }
  base -= static_cast<int32_t>(64 * low);
  bool sticky = false;
  if (divisor > 1) {
    unsigned __int128 rem = 0;
    for (size_t l = m.size(); l-- > 0;) {
      const unsigned __int128 cur = (rem << 64) | m[l];
      m[l] = static_cast<uint64_t>(cur / divisor);
      rem = cur % divisor;
    }
    sticky = rem != 0;
  }
  int64_t h = -1;   // the highest set bit
  for (size_t l = m.size(); l-- > 0;)
    if (m[l]) { h = static_cast<int64_t>(l * 64) + 63 - std::countl_zero(m[l]); break; }
  if (h < 0) return (flags & kNotNegZero) ? 0.0 : -0.0;
  // The result's lowest bit: p bits below the top, but not below the format's subnormals.
  const int64_t r = std::max<int64_t>(h - (fmt.p - 1), int64_t{fmt.emin} - base);
  if (r <= 0) {
    const double v = std::ldexp(static_cast<double>(bits_at(m, 0, static_cast<size_t>(h + 1))), base);
    return neg ? -v : v;
  }
  const auto ur = static_cast<size_t>(r);
  uint64_t mant = h >= r ? bits_at(m, ur, static_cast<size_t>(h - r + 1)) : 0;
  const bool guard = bits_at(m, ur - 1, 1) != 0;
  sticky = sticky || any_below(m, ur - 1);
  if (guard && (sticky || (mant & 1))) ++mant;     // to nearest, ties to even
  const double v = std::ldexp(static_cast<double>(mant), static_cast<int>(base + r));
  return neg ? -v : v;
}

}  // namespace concord::dist::detail
