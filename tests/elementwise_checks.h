// Shared by the elementwise suites (test_unary, test_binary,
// test_elementwise): float64 references computed with <cmath> on host data,
// ULP distances, and the Elementwise fixture (every device configuration).
//
// Elementwise ops on every device configuration and dtype, against float64
// references computed here with <cmath> on host data.
//
// Error model: ops that IEEE rounds correctly (add, sub, mul, div, sqrt,
// reciprocal, remainder, rounding, min/max...) must give exactly the float64
// result rounded once to the dtype, for float16/bfloat16 too (float32 has
// enough bits that rounding twice is harmless for these). Transcendentals
// must be within a few ULPs (one ULP for float16/bfloat16). Integers are exact,
// with two's-complement wrap-around.
#pragma once

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "concord/concord.h"
#include "support/devices.h"

using namespace concord;

namespace {  // each suite has its own copy

const Dtype kFloats[] = {float16, bfloat16, float32, float64};
const Dtype kInts[] = {uint8, int8, int16, int32, int64};
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// ---- host reference helpers ----

// double -> float, truncating and forcing the last bit to 1 when inexact, so a
// second rounding to a narrower format is correct (round to odd).
float round_odd(double v) {
  float f = static_cast<float>(v);
  if (std::isnan(v) || static_cast<double>(f) == v) return f;
  if (std::fabs(static_cast<double>(f)) > std::fabs(v)) f = std::nextafter(f, 0.0f);
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u |= 1u;
  std::memcpy(&f, &u, 4);
  return f;
}

int64_t wrap(int64_t v, Dtype t) {
  const uint64_t u = static_cast<uint64_t>(v);
  switch (t) {
    case Dtype::uint8: return static_cast<uint8_t>(u);
    case Dtype::int8: return static_cast<int8_t>(u);
    case Dtype::int16: return static_cast<int16_t>(u);
    case Dtype::int32: return static_cast<int32_t>(u);
    default: return v;
  }
}

// v rounded once (correctly) to dtype t; integers wrap, bool is v != 0.
double round_to(double v, Dtype t) {
  switch (t) {
    case Dtype::float64: return v;
    case Dtype::float32: return static_cast<float>(v);
    case Dtype::float16: return static_cast<float>(float16_t(round_odd(v)));
    case Dtype::bfloat16: return static_cast<float>(bfloat16_t(round_odd(v)));
    case Dtype::bool_: return v != 0;
    default: return static_cast<double>(wrap(static_cast<int64_t>(v), t));
  }
}

// Spacing of dtype t's values at |v|.
double ulp(double v, Dtype t) {
  int mant = 52, min_exp = -1022;
  if (t == float32) { mant = 23; min_exp = -126; }
  if (t == float16) { mant = 10; min_exp = -14; }
  if (t == bfloat16) { mant = 7; min_exp = -126; }
  const int e = v == 0 ? min_exp : std::max(std::ilogb(v), min_exp);
  return std::ldexp(1.0, e - mant);
}

// Machine epsilon of the type the dtype computes in (float32 for halves).
double compute_eps(Dtype t) { return t == float64 ? 0x1p-52 : 0x1p-23; }

// A tensor of dtype t holding the values v (which must be representable in t).
Tensor make(const std::vector<double>& v, Shape shape, Dtype t, const Device& d) {
  std::vector<unsigned char> buf(v.size() * itemsize(t) + 1);
  visit_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    T* p = reinterpret_cast<T*>(buf.data());
    for (size_t i = 0; i < v.size(); ++i) {
      if constexpr (std::is_same_v<T, float16_t> || std::is_same_v<T, bfloat16_t>) p[i] = T(static_cast<float>(v[i]));
      else if constexpr (std::is_floating_point_v<T>) p[i] = static_cast<T>(v[i]);
      else if constexpr (std::is_same_v<T, bool>) p[i] = v[i] != 0;
      else p[i] = static_cast<T>(static_cast<int64_t>(v[i]));
    }
  });
  return from_host(buf.data(), std::move(shape), t, d);
}
Tensor make1(const std::vector<double>& v, Dtype t, const Device& d) {
  return make(v, Shape{static_cast<int64_t>(v.size())}, t, d);
}

// n values spread over [lo, hi] (deterministic, irregular), rounded to t.
std::vector<double> spread(int n, double lo, double hi, Dtype t, uint32_t seed = 1) {
  std::vector<double> v(n);
  uint32_t s = seed * 2654435761u + 12345u;
  for (int i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    const double u = (s >> 8) / 16777216.0;
    v[i] = round_to(lo + (hi - lo) * u, t);
  }
  return v;
}

std::vector<double> values(const Tensor& t) { return t.to_vector<double>(); }

void expect_same(double got, double want, const std::string& what) {
  if (std::isnan(want)) EXPECT_TRUE(std::isnan(got)) << what << ": got " << got << ", want NaN";
  else EXPECT_EQ(got, want) << what;
}

// |got - want| <= ulps ULPs of t at want, plus abs_tol.
void expect_near(double got, double want, Dtype t, double ulps, double abs_tol, const std::string& what) {
  if (std::isnan(want)) { EXPECT_TRUE(std::isnan(got)) << what << ": got " << got; return; }
  if (std::isinf(want)) { EXPECT_EQ(got, want) << what; return; }
  EXPECT_LE(std::fabs(got - want), ulps * ulp(want, t) + abs_tol) << what << ": got " << got << ", want " << want;
}

std::string ctx(const char* op, Dtype t, double x) {
  return std::string(op) + "(" + std::to_string(x) + ") in " + std::string(name(t));
}

class Elementwise : public test::DeviceTest {
 protected:
  bool skip(Dtype t) const { return !capabilities(device()).can_store(t); }
};

}  // namespace
