// Shared by the comparison-toolkit suites (test_compare, test_error_models):
// small tensor makers and the next representable value of a dtype, worked
// out on host bits, independently of the code under test.
#pragma once

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "concord/concord.h"
#include "concord/testing.h"
#include "support/devices.h"

namespace ct = concord::testing;
using concord::Dtype;
using concord::Tensor;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Tensor f32(const std::vector<float>& v, concord::Shape s) { return concord::from_vector(v, std::move(s)); }
Tensor f64(const std::vector<double>& v, concord::Shape s) { return concord::from_vector(v, std::move(s)); }
Tensor f32(const std::vector<float>& v) { return concord::tensor(v); }
Tensor f64(const std::vector<double>& v) { return concord::tensor(v); }

// A tensor of dtype t holding the given values (each exactly representable in t).
Tensor make(Dtype t, const std::vector<double>& v) { return f64(v).to(t); }

std::vector<float> random_floats(size_t n, unsigned seed, float lo = -1.f, float hi = 1.f) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(gen);
  return v;
}

// --- next representable value above a positive v, stepping the bit patterns ---
double to_dtype(Dtype t, double v) {
  switch (t) {
    case Dtype::float16: return static_cast<float>(concord::float16_t(static_cast<float>(v)));
    case Dtype::bfloat16: return static_cast<float>(concord::bfloat16_t(static_cast<float>(v)));
    case Dtype::float32: return static_cast<float>(v);
    default: return v;
  }
}
double next_up(Dtype t, double v) {
  switch (t) {
    case Dtype::float16: {
      auto h = concord::float16_t(static_cast<float>(v));
      return concord::detail::f16_bits_to_f32(static_cast<uint16_t>(h.bits + 1));
    }
    case Dtype::bfloat16: {
      auto h = concord::bfloat16_t(static_cast<float>(v));
      return concord::detail::bf16_bits_to_f32(static_cast<uint16_t>(h.bits + 1));
    }
    case Dtype::float32: return std::nextafter(static_cast<float>(v), 1e30f);
    default: return std::nextafter(v, kInf);
  }
}
double next_down(Dtype t, double v) {
  switch (t) {
    case Dtype::float16: {
      auto h = concord::float16_t(static_cast<float>(v));
      return concord::detail::f16_bits_to_f32(static_cast<uint16_t>(h.bits - 1));
    }
    case Dtype::bfloat16: {
      auto h = concord::bfloat16_t(static_cast<float>(v));
      return concord::detail::bf16_bits_to_f32(static_cast<uint16_t>(h.bits - 1));
    }
    case Dtype::float32: return std::nextafter(static_cast<float>(v), -1e30f);
    default: return std::nextafter(v, -kInf);
  }
}

}  // namespace
