// common/xf32.glsl and xf64.glsl (the Vulkan reproducible variants' float32
// and float64 on bits, integer operations only) compiled as C++ and checked against this CPU's
// IEEE float unit (no flush to zero here): every result bit for bit, over
// special values, subnormals, near-overflow values, cancellations and
// random bit patterns. xf_exp against the CPU's exp_f32, the half
// conversions against include/concord/half.h.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "backend/cpu/convert.h"
#include "backend/cpu/vec_math.h"
#include "concord/half.h"

namespace xf32_glsl {
#include "support/glsl_shim.h"
#include "backend/common/xf32.glsl"
#include "backend/common/xf64.glsl"
}  // namespace xf32_glsl

namespace {

using xf32_glsl::uint;

uint bits(float f) { return std::bit_cast<uint32_t>(f); }
float flt(uint u) { return std::bit_cast<float>(u); }

// What the mode expects: the float unit's result, every NaN canonical.
uint expect(float r) { return std::isnan(r) ? XF_NAN : bits(r); }

// Inputs: special values, boundaries, then random patterns biased toward
// subnormals, near-equal pairs (cancellation) and extreme exponents.
std::vector<uint> specials() {
  std::vector<uint> v = {0x0u,        0x80000000u, 0x1u,        0x80000001u, 0x7fffffu,   0x807fffffu, 0x800000u,
                         0x80800000u, 0x7f7fffffu, 0xff7fffffu, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00001u,
                         0x7f800001u, 0x3f800000u, 0xbf800000u, 0x3f800001u, 0x3f7fffffu, 0x400000u,   0x34000000u,
                         0x33800000u, 0x4b400000u, 0x5f000000u, 0x1f800000u, 0x00c00000u, 0x7f000000u, 0x00000003u};
  return v;
}

uint random_float(std::mt19937& g) {
  const uint r = g();
  switch (g() % 6) {
    case 0: return r;                                          // anything
    case 1: return r & 0x807fffffu;                            // subnormal
    case 2: return (r & 0x80ffffffu) | ((g() % 4u) << 23);      // around the smallest normals
    case 3: return (r & 0x807fffffu) | ((100u + g() % 54u) << 23);  // |x| near 1
    case 4: return (r & 0x807fffffu) | ((200u + g() % 55u) << 23);  // large
    default: return (r & 0x807fffffu) | ((g() % 40u) << 23);  // tiny normals
  }
}

// b near a: the same exponent or one apart, for cancellations.
uint near(std::mt19937& g, uint a) {
  const uint delta = g() % 4096u;
  return ((g() & 1u) ? a + delta : a - delta) ^ ((g() & 1u) ? 0x80000000u : 0u);
}

std::vector<std::pair<uint, uint>> pairs() {
  std::vector<std::pair<uint, uint>> out;
  const auto sp = specials();
  for (uint a : sp)
    for (uint b : sp) out.push_back({a, b});
  std::mt19937 g(1234);
  for (int i = 0; i < 600000; ++i) {
    const uint a = random_float(g);
    out.push_back({a, (i & 3) == 0 ? near(g, a) : random_float(g)});
  }
  return out;
}

template <class XF, class HW>
void check_binary(const char* name, XF xf, HW hw) {
  int bad = 0;
  for (const auto& [a, b] : pairs()) {
    const uint want = expect(hw(flt(a), flt(b)));
    const uint got = xf(a, b);
    if (got != want && ++bad <= 5)
      ADD_FAILURE() << name << "(" << std::hex << a << ", " << b << ") = " << got << ", the CPU gives " << want;
  }
  EXPECT_EQ(bad, 0) << name;
}

TEST(Xf32, AddSubMulDivMatchTheFloatUnit) {
  check_binary("xf_add", xf32_glsl::xf_add, [](float a, float b) { return a + b; });
  check_binary("xf_sub", xf32_glsl::xf_sub, [](float a, float b) { return a - b; });
  check_binary("xf_mul", xf32_glsl::xf_mul, [](float a, float b) { return a * b; });
  check_binary("xf_div", xf32_glsl::xf_div, [](float a, float b) { return a / b; });
}

TEST(Xf32, FmaIsOneRounding) {
  std::mt19937 g(99);
  const auto sp = specials();
  int bad = 0, n = 0;
  auto one = [&](uint a, uint b, uint c) {
    ++n;
    const uint want = expect(std::fma(flt(a), flt(b), flt(c)));
    const uint got = xf32_glsl::xf_fma(a, b, c);
    if (got != want && ++bad <= 5)
      ADD_FAILURE() << "xf_fma(" << std::hex << a << ", " << b << ", " << c << ") = " << got << ", fma gives " << want;
  };
  for (uint a : sp)
    for (uint b : sp)
      for (uint c : sp) one(a, b, c);
  // Products exactly halfway between two floats, nudged by an addend far
  // below them: only the addend's sticky trace decides the rounding.
  for (int i = 0; i < 20000; ++i) {
    const uint a = 0x3f800001u + 2u * (g() % 4096u) + ((g() % 200u) << 23);  // odd significand
    const uint b = 0x3fc00000u + ((g() % 60u) << 23);                        // 1.5 * 2^k
    const uint tiny = (g() % 40u + 1u) << 23 | (g() & 0x7fffffu);
    one(a, b, tiny);
    one(a, b, tiny | 0x80000000u);
    one(a | 0x80000000u, b, tiny);
  }
  for (int i = 0; i < 600000; ++i) {
    const uint a = random_float(g), b = random_float(g);
    uint c = random_float(g);
    if (i % 3 == 0) c = bits(-(flt(a) * flt(b))) ^ (g() % 64u);  // c cancels the product's leading bits
    one(a, b, c);
  }
  EXPECT_EQ(bad, 0) << "of " << n;
}

TEST(Xf32, SqrtAndIntConversion) {
  std::mt19937 g(7);
  int bad = 0;
  std::vector<uint> xs = specials();
  for (int i = 0; i < 1000000; ++i) xs.push_back(random_float(g));
  for (uint a : xs) {
    const uint want = expect(std::sqrt(flt(a)));
    if (xf32_glsl::xf_sqrt(a) != want && ++bad <= 5)
      ADD_FAILURE() << "xf_sqrt(" << std::hex << a << ") = " << xf32_glsl::xf_sqrt(a) << ", want " << want;
  }
  for (int i = 0; i < 1000000; ++i) {
    const int v = i < 4 ? std::vector<int>{0, INT32_MIN, INT32_MAX, -1}[i] : static_cast<int>(g()) >> (g() % 31);
    if (xf32_glsl::xf_from_int(v) != bits(static_cast<float>(v)) && ++bad <= 5) ADD_FAILURE() << "xf_from_int(" << v << ")";
  }
  EXPECT_EQ(bad, 0);
}

TEST(Xf32, ComparesAndSignOps) {
  int bad = 0;
  for (const auto& [a, b] : pairs()) {
    const float x = flt(a), y = flt(b);
    bad += xf32_glsl::xf_eq(a, b) != (x == y);
    bad += xf32_glsl::xf_lt(a, b) != (x < y);
    bad += xf32_glsl::xf_le(a, b) != (x <= y);
    bad += xf32_glsl::xf_neg(a) != expect(-x);
    bad += xf32_glsl::xf_abs(a) != expect(std::fabs(x));
  }
  EXPECT_EQ(bad, 0);
}

TEST(Xf32, ExpIsTheCpusExpF32) {
  // Every 4093rd float32 bit pattern (both signs, every exponent), plus the
  // saturation and subnormal-result boundaries.
  int bad = 0;
  for (uint64_t u = 0; u <= 0xffffffffull; u += 4093) {
    const uint a = static_cast<uint>(u);
    const uint want = expect(concord::detail::cpu::vec::exp_f32(flt(a)));
    if (xf32_glsl::xf_exp(a) != want && ++bad <= 5)
      ADD_FAILURE() << "xf_exp(" << std::hex << a << ") = " << xf32_glsl::xf_exp(a) << ", exp_f32 gives " << want;
  }
  for (float x : {-104.0f, -103.97f, -87.4f, -87.3f, -88.72f, -100.0f, 88.72f, 88.73f, 104.0f, 1e30f, -1e30f}) {
    const uint want = expect(concord::detail::cpu::vec::exp_f32(x));
    bad += xf32_glsl::xf_exp(bits(x)) != want;
  }
  EXPECT_EQ(bad, 0);
}

TEST(Xf32, HalfConversionsAreHalfH) {
  int bad = 0;
  for (uint h = 0; h < 65536; ++h) {
    const float f16 = concord::detail::f16_bits_to_f32(static_cast<uint16_t>(h));
    const float bf = concord::detail::bf16_bits_to_f32(static_cast<uint16_t>(h));
    // A NaN loads as the canonical NaN with its own sign (copysign reads it).
    const uint sign = (h & 0x8000u) << 16;
    bad += xf32_glsl::xf_from_f16(h) != (std::isnan(f16) ? sign | XF_NAN : expect(f16));
    bad += xf32_glsl::xf_from_bf16(h) != (std::isnan(bf) ? sign | XF_NAN : expect(bf));
  }
  std::mt19937 g(5);
  std::vector<uint> xs = specials();
  for (int i = 0; i < 1000000; ++i) xs.push_back(random_float(g));
  for (uint u = 0x33000000u; u < 0x38900000u; u += 97) xs.push_back(u);  // the half subnormal range
  for (uint a : xs) {
    const float x = flt(a);
    const uint want16 = std::isnan(x) ? 0x7e00u : concord::detail::f32_to_f16_bits(x);
    const uint wantbf = std::isnan(x) ? 0x7fc0u : concord::detail::f32_to_bf16_bits(x);
    if (xf32_glsl::xf_to_f16(a) != want16 && ++bad <= 5)
      ADD_FAILURE() << "xf_to_f16(" << std::hex << a << ") = " << xf32_glsl::xf_to_f16(a) << ", want " << want16;
    bad += xf32_glsl::xf_to_bf16(a) != wantbf;
  }
  EXPECT_EQ(bad, 0);
}

// ------------------------------------------------------------ float64
using u64 = uint64_t;
u64 dbits(double d) { return std::bit_cast<uint64_t>(d); }
double dbl(u64 u) { return std::bit_cast<double>(u); }
u64 dexpect(double r) { return std::isnan(r) ? XD_NAN : dbits(r); }

std::vector<u64> dspecials() {
  return {0x0ul, XD_SIGN, 0x1ul, XD_SIGN | 1ul, 0xffffffffffffful, 0x10000000000000ul, 0x7fefffffffffffffull,
          XD_INF, XD_SIGN | XD_INF, XD_NAN, 0xfff0000000000001ull, 0x3ff0000000000000ul, 0x3ff0000000000001ul,
          0x3fefffffffffffffull, 0x8000000000000ul, 0x3cb0000000000000ul, 0x4330000000000000ul, 0x0010000000000001ul};
}

u64 random_double(std::mt19937_64& g) {
  const u64 r = g();
  switch (g() % 6) {
    case 0: return r;
    case 1: return r & 0x800ffffffffffffful;                                    // subnormal
    case 2: return (r & 0x801ffffffffffffful) | ((g() % 4ul) << 52);           // smallest normals
    case 3: return (r & 0x800ffffffffffffful) | ((900ul + g() % 250ul) << 52);  // near 1
    case 4: return (r & 0x800ffffffffffffful) | ((1800ul + g() % 247ul) << 52); // large
    default: return (r & 0x800ffffffffffffful) | ((g() % 60ul) << 52);          // tiny normals
  }
}

TEST(Xf64, ArithmeticMatchesTheFloatUnit) {
  std::mt19937_64 g(42);
  std::vector<std::pair<u64, u64>> ps;
  for (u64 a : dspecials())
    for (u64 b : dspecials()) ps.push_back({a, b});
  for (int i = 0; i < 400000; ++i) {
    const u64 a = random_double(g);
    ps.push_back({a, (i & 3) == 0 ? ((a + g() % 65536ul) ^ ((g() & 1ul) << 63)) : random_double(g)});
  }
  int bad = 0;
  // A half's bits, every NaN as the canonical one.
  auto half_expect = [](auto h, uint a_nan) -> uint {
    return std::isnan(static_cast<float>(h)) ? a_nan : std::bit_cast<uint16_t>(h);
  };
  auto check = [&](const char* name, u64 got, double want, u64 a, u64 b) {
    if (got != dexpect(want) && ++bad <= 8)
      ADD_FAILURE() << name << "(" << std::hex << a << ", " << b << ") = " << got << ", the CPU gives " << dexpect(want);
  };
  for (const auto& [a, b] : ps) {
    const double x = dbl(a), y = dbl(b);
    check("xd_add", xf32_glsl::xd_add(a, b), x + y, a, b);
    check("xd_sub", xf32_glsl::xd_sub(a, b), x - y, a, b);
    check("xd_mul", xf32_glsl::xd_mul(a, b), x * y, a, b);
    check("xd_div", xf32_glsl::xd_div(a, b), x / y, a, b);
    check("xd_sqrt", xf32_glsl::xd_sqrt(a), std::sqrt(x), a, 0);
    bad += xf32_glsl::xd_lt(a, b) != (x < y);
    bad += xf32_glsl::xd_le(a, b) != (x <= y);
    bad += xf32_glsl::xd_eq(a, b) != (x == y);
    bad += xf32_glsl::xd_to_f32(a) != expect(static_cast<float>(x));
    // Round to odd, then to the halves: convert.h's one rounding of a double.
    bad += xf32_glsl::xd_to_f32_odd(a) != expect(concord::detail::cpu::round_to_odd_f32(x));
    bad += xf32_glsl::xf_to_f16(xf32_glsl::xd_to_f32_odd(a)) !=
           half_expect(concord::detail::cpu::convert<concord::float16_t>(x), 0x7e00);
    bad += xf32_glsl::xf_to_bf16(xf32_glsl::xd_to_f32_odd(a)) !=
           half_expect(concord::detail::cpu::convert<concord::bfloat16_t>(x), 0x7fc0);
  }
  for (uint a : specials()) bad += xf32_glsl::xd_from_f32(a) != dexpect(static_cast<double>(flt(a)));
  for (int i = 0; i < 200000; ++i) {
    const int64_t v = i < 3 ? std::vector<int64_t>{0, INT64_MIN, INT64_MAX}[i] : static_cast<int64_t>(g()) >> (g() % 63);
    bad += xf32_glsl::xd_from_int64(v) != dbits(static_cast<double>(v));
  }
  EXPECT_EQ(bad, 0);
}

TEST(Xf64, FmaIsOneRounding) {
  std::mt19937_64 g(3);
  int bad = 0;
  auto one = [&](u64 a, u64 b, u64 c) {
    const u64 want = dexpect(std::fma(dbl(a), dbl(b), dbl(c)));
    const u64 got = xf32_glsl::xd_fma(a, b, c);
    if (got != want && ++bad <= 8)
      ADD_FAILURE() << "xd_fma(" << std::hex << a << ", " << b << ", " << c << ") = " << got << ", fma gives " << want;
  };
  const auto sp = dspecials();
  for (u64 a : sp)
    for (u64 b : sp)
      for (u64 c : sp) one(a, b, c);
  for (int i = 0; i < 20000; ++i) {  // halfway products nudged by a far smaller addend
    const u64 a = 0x3ff0000000000001ul + 2ul * (g() % 65536ul) + ((g() % 1500ul) << 52);
    const u64 b = 0x3ff8000000000000ul + ((g() % 60ul) << 52);
    const u64 tiny = ((g() % 100ul + 1ul) << 52) | (g() & 0xffffffffffffful);
    one(a, b, tiny);
    one(a, b, tiny | XD_SIGN);
  }
  for (int i = 0; i < 400000; ++i) {
    const u64 a = random_double(g), b = random_double(g);
    u64 c = random_double(g);
    if (i % 3 == 0) c = dbits(-(dbl(a) * dbl(b))) ^ (g() % 4096ul);  // cancels the product's leading bits
    one(a, b, c);
  }
  EXPECT_EQ(bad, 0);
}

}  // namespace
