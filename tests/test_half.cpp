// float16/bfloat16 conversions against an independent reference: the nearest
// representable value found by search over all finite values (ties to even).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "concord/half.h"

using namespace concord;

namespace {

// All finite non-negative values of a 16-bit format, as doubles, with their bits.
struct Table {
  std::vector<double> values;
  std::vector<uint16_t> bits;
};

Table table(bool bf16) {
  Table t;
  for (uint32_t b = 0; b < 0x8000; ++b) {
    const double v = bf16 ? static_cast<double>(detail::bf16_bits_to_f32(static_cast<uint16_t>(b)))
                          : static_cast<double>(detail::f16_bits_to_f32(static_cast<uint16_t>(b)));
    if (!std::isfinite(v)) continue;
    t.values.push_back(v);
    t.bits.push_back(static_cast<uint16_t>(b));
  }
  return t;
}

// Round-to-nearest-even by search; overflow to infinity per IEEE (beyond max + half an ulp).
uint16_t reference(const Table& t, float f, bool bf16) {
  const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  const double a = std::fabs(static_cast<double>(f));
  const uint16_t inf = bf16 ? 0x7f80 : 0x7c00;
  auto it = std::lower_bound(t.values.begin(), t.values.end(), a);
  if (it == t.values.end()) {
    const double maxv = t.values.back();
    const double prev = t.values[t.values.size() - 2];
    const double half_ulp = (maxv - prev) / 2;
    if (a >= maxv + half_ulp) return sign | inf;
    if (a > maxv - 0.0 && a < maxv + half_ulp) return sign | t.bits.back();
  }
  size_t hi = static_cast<size_t>(it - t.values.begin());
  if (hi < t.values.size() && t.values[hi] == a) return sign | t.bits[hi];
  size_t lo = hi - 1;
  const double dl = a - t.values[lo], dh = t.values[hi] - a;
  if (dl < dh) return sign | t.bits[lo];
  if (dh < dl) return sign | t.bits[hi];
  return sign | ((t.bits[lo] & 1) ? t.bits[hi] : t.bits[lo]);
}

}  // namespace

TEST(Half, Float16RoundTripsEveryValue) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const uint16_t h = static_cast<uint16_t>(b);
    const float f = detail::f16_bits_to_f32(h);
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(static_cast<float>(float16_t(f))));
      continue;
    }
    ASSERT_EQ(float16_t(f).bits, h) << "bits " << b;
  }
}

TEST(Half, BFloat16RoundTripsEveryValue) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const uint16_t h = static_cast<uint16_t>(b);
    const float f = detail::bf16_bits_to_f32(h);
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(static_cast<float>(bfloat16_t(f))));
      continue;
    }
    ASSERT_EQ(bfloat16_t(f).bits, h) << "bits " << b;
  }
}

TEST(Half, RoundingMatchesNearestEvenSearch) {
  const Table th = table(false), tb = table(true);
  std::mt19937 rng(1);
  std::vector<float> samples;
  // Random bit patterns cover every exponent, including subnormals and overflow.
  for (int i = 0; i < 400000; ++i) {
    uint32_t u = rng();
    float f;
    std::memcpy(&f, &u, 4);
    if (!std::isnan(f)) samples.push_back(f);
  }
  // Exact ties and boundaries.
  for (float f : {65504.0f, 65519.99f, 65520.0f, 65536.0f, 5.9604645e-8f, 2.9802322e-8f, 2.9802326e-8f,
                  1.0f + 1.0f / 2048, 1.0f + 3.0f / 2048, 6.1035156e-5f, -0.0f, 0.0f, 3.4028235e38f})
    samples.push_back(f);
  for (float f : samples) {
    ASSERT_EQ(float16_t(f).bits, reference(th, f, false)) << "float16 of " << f;
    ASSERT_EQ(bfloat16_t(f).bits, reference(tb, f, true)) << "bfloat16 of " << f;
  }
}

TEST(Half, SpecialValues) {
  EXPECT_EQ(float16_t(INFINITY).bits, 0x7c00);
  EXPECT_EQ(float16_t(-INFINITY).bits, 0xfc00);
  EXPECT_EQ(float16_t(1e6f).bits, 0x7c00);        // overflow
  EXPECT_EQ(float16_t(-0.0f).bits, 0x8000);
  EXPECT_EQ(float16_t(1e-10f).bits, 0x0000);      // underflow to zero
  EXPECT_EQ(float16_t(5.9604645e-8f).bits, 0x0001);  // smallest subnormal
  EXPECT_TRUE(std::isnan(static_cast<float>(float16_t(NAN))));
  EXPECT_EQ(bfloat16_t(INFINITY).bits, 0x7f80);
  EXPECT_EQ(bfloat16_t(3.4028235e38f).bits, 0x7f80);  // rounds up past the largest bfloat16
  EXPECT_TRUE(std::isnan(static_cast<float>(bfloat16_t(NAN))));
  EXPECT_EQ(static_cast<float>(bfloat16_t::from_bits(0x3f80)), 1.0f);
}

TEST(Half, BulkConversionsMatchScalar) {
  std::mt19937 rng(2);
  const size_t n = 100003;  // odd: exercises the vector tails
  std::vector<float> f(n);
  std::vector<float16_t> h(n), h2(n);
  std::vector<bfloat16_t> b(n), b2(n);
  for (auto& x : f) {
    uint32_t u = rng();
    std::memcpy(&x, &u, 4);
  }
  convert_f32_to_f16(f.data(), h.data(), n);
  convert_f32_to_bf16(f.data(), b.data(), n);
  for (size_t i = 0; i < n; ++i) {
    if (std::isnan(f[i])) {
      EXPECT_TRUE(std::isnan(static_cast<float>(h[i])));
      EXPECT_TRUE(std::isnan(static_cast<float>(b[i])));
      continue;
    }
    ASSERT_EQ(h[i].bits, float16_t(f[i]).bits) << f[i];
    ASSERT_EQ(b[i].bits, bfloat16_t(f[i]).bits) << f[i];
  }
  for (size_t i = 0; i < n; ++i) {
    h2[i] = float16_t::from_bits(static_cast<uint16_t>(rng()));
    b2[i] = bfloat16_t::from_bits(static_cast<uint16_t>(rng()));
  }
  std::vector<float> back(n);
  convert_f16_to_f32(h2.data(), back.data(), n);
  for (size_t i = 0; i < n; ++i) {
    const float ref = static_cast<float>(h2[i]);
    if (std::isnan(ref)) EXPECT_TRUE(std::isnan(back[i]));
    else ASSERT_EQ(back[i], ref);
  }
  convert_bf16_to_f32(b2.data(), back.data(), n);
  for (size_t i = 0; i < n; ++i) {
    const float ref = static_cast<float>(b2[i]);
    if (std::isnan(ref)) EXPECT_TRUE(std::isnan(back[i]));
    else ASSERT_EQ(back[i], ref);
  }
}
