// Shared by the vectorised-kernel suites (test_vec_math, test_vec_ops): the
// ISAs this CPU runs, float and long double references, ULP distances.
#pragma once

#include <omp.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "backend/cpu/host_cache.h"
#include "backend/cpu/vec_math.h"
#include "concord/concord.h"
#include "support/devices.h"

using namespace concord;
namespace vec = concord::detail::cpu::vec;

namespace {

uint32_t bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
float from_bits(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

// Position of a float on the number line (ULP steps; -0 and +0 are both 0).
int64_t ordinal(float f) {
  const uint32_t u = bits(f);
  return (u & 0x80000000u) ? -static_cast<int64_t>(u & 0x7fffffffu) : static_cast<int64_t>(u);
}
int64_t ulp_distance(float a, float b) { return std::llabs(ordinal(a) - ordinal(b)); }

bool same_bits_or_both_nan(float a, float b) { return bits(a) == bits(b) || (std::isnan(a) && std::isnan(b)); }

std::vector<const vec::Kernels*> isas() {
  std::vector<const vec::Kernels*> v;
  for (vec::Isa i : {vec::Isa::baseline, vec::Isa::avx2, vec::Isa::avx512})
    if (const vec::Kernels* k = vec::kernels_for(i)) v.push_back(k);
  return v;
}

// Every float between a and b (same sign), both included.
std::vector<float> all_between(float a, float b) {
  uint32_t lo = bits(a), hi = bits(b);
  if (lo > hi) std::swap(lo, hi);
  std::vector<float> v;
  v.reserve(hi - lo + 1);
  for (uint64_t u = lo; u <= hi; ++u) v.push_back(from_bits(static_cast<uint32_t>(u)));
  return v;
}

// n random floats, uniform over the bit patterns of [lo, hi] (so every binade gets its share).
std::vector<float> random_between(float lo, float hi, size_t n, uint32_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_int_distribution<int64_t> d(ordinal(lo), ordinal(hi));
  std::vector<float> v(n);
  for (float& f : v) {
    const int64_t o = d(g);
    f = o < 0 ? from_bits(static_cast<uint32_t>(-o) | 0x80000000u) : from_bits(static_cast<uint32_t>(o));
  }
  return v;
}

struct UnaryRef {
  vec::UnOp op;
  const char* name;
  double (*ref)(double);  // evaluated in double, rounded to float by the test
};

const UnaryRef kUnary[] = {
    {vec::UnOp::exp, "exp", [](double x) { return std::exp(x); }},
    {vec::UnOp::sigmoid, "sigmoid", [](double x) { return 1.0 / (1.0 + std::exp(-x)); }},
    {vec::UnOp::tanh, "tanh", [](double x) { return std::tanh(x); }},
    {vec::UnOp::log, "log", [](double x) { return std::log(x); }},
};

// Runs op on xs with every ISA; checks <= 1 ULP against the reference and equal bits across ISAs.
void check_unary(const UnaryRef& u, const std::vector<float>& xs, const std::string& what) {
  const auto ks = isas();
  std::vector<std::vector<float>> ys(ks.size(), std::vector<float>(xs.size()));
  for (size_t k = 0; k < ks.size(); ++k)
    ks[k]->unary(u.op, vec::Ty::f32, ys[k].data(), xs.data(), static_cast<int64_t>(xs.size()));
  int reported = 0;
  int64_t bad = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const float want = static_cast<float>(u.ref(static_cast<double>(xs[i])));
    const float got = ys[0][i];
    bool ok = std::isnan(want) ? std::isnan(got) : !std::isnan(got) && ulp_distance(got, want) <= 1;
    for (size_t k = 1; k < ks.size(); ++k) ok &= same_bits_or_both_nan(ys[k][i], got);
    if (!ok) {
      ++bad;
      if (reported++ < 5) {
        std::string per_isa;
        for (size_t k = 0; k < ks.size(); ++k) per_isa += std::string(" ") + ks[k]->name + "=" + std::to_string(ys[k][i]);
        ADD_FAILURE() << u.name << "(" << xs[i] << ") [" << what << "]: want " << want << ", got" << per_isa;
      }
    }
  }
  EXPECT_EQ(bad, 0) << u.name << " over " << what;
}

}  // namespace
