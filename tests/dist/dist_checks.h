// tests/dist/dist_checks.h — data and comparisons shared by the dist tests.
// Every rank builds the same global list of contributions from a seed, takes
// its share, and compares the collective's result with a reference computed
// in the test from the whole list (exact_reference.h): the single-process
// computation on the same data, whatever the number of ranks.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "concord/concord.h"
#include "concord/dist.h"
#include "exact_reference.h"

namespace dist_test {

using concord::Dtype;
using concord::Tensor;

inline Fmt fmt_of(Dtype t) {
  return t == Dtype::float64 ? kF64 : t == Dtype::float32 ? kF32 : t == Dtype::float16 ? kF16 : kBF16;
}
inline int emax_of(Dtype t) {   // exponent of the largest finite power of two
  return t == Dtype::float64 ? 1023 : t == Dtype::float16 ? 15 : 127;
}

// A tensor of dt from doubles (rounded by concord's cast), and its values back.
inline Tensor make(const std::vector<double>& v, Dtype dt) {
  return concord::from_vector(v, concord::Shape{static_cast<int64_t>(v.size())}).to(dt);
}
inline std::vector<double> values(const Tensor& t) { return t.to_vector<double>(); }

// n values of dt over its whole range: normal values of many scales, subnormals,
// numbers that cancel, small integers; no NaN or inf (the edge tests add those).
inline std::vector<double> mixed(uint64_t seed, size_t n, Dtype dt) {
  std::mt19937_64 g(seed);
  std::normal_distribution<double> nd;
  const Fmt f = fmt_of(dt);
  std::uniform_int_distribution<int> scale(f.emin + f.p, emax_of(dt) - 6), kind(0, 9);
  std::uniform_int_distribution<int> near_one(std::max(-20, f.emin + f.p), std::min(20, emax_of(dt) - 8));
  std::vector<double> v(n);
  for (auto& x : v) {
    const int k = kind(g);
    if (k < 4) x = std::ldexp(nd(g), near_one(g));
    else if (k < 7) x = std::ldexp(nd(g), scale(g));
    else if (k == 7) x = std::ldexp(static_cast<double>(std::uniform_int_distribution<int>(-7, 7)(g)), f.emin);
    else if (k == 8) x = std::round(nd(g) * 100);
    else x = std::ldexp(nd(g), emax_of(dt) - 8);
  }
  return make(v, dt).to_vector<double>();   // exactly the dtype's values
}

// Contributions j of `global` held by this rank: j -> rank (j + shift) % world.
inline std::vector<Tensor> share(const std::vector<Tensor>& global, int shift) {
  const int p = concord::dist::world_size(), r = concord::dist::rank();
  std::vector<Tensor> mine;
  for (size_t j = 0; j < global.size(); ++j)
    if (static_cast<int>((j + static_cast<size_t>(shift)) % static_cast<size_t>(p)) == r) mine.push_back(global[j]);
  return mine;
}

// The reference per element: the exact sum (divisor 1) or mean of element i over `global`.
inline std::vector<double> reference(const std::vector<std::vector<double>>& global, uint64_t divisor, Fmt f) {
  std::vector<double> out(global.empty() ? 0 : global[0].size());
  for (size_t i = 0; i < out.size(); ++i) {
    std::vector<double> col;
    for (const auto& c : global) col.push_back(c[i]);
    out[i] = exact_mean(col, divisor, f);
  }
  return out;
}

inline uint64_t bits(double x) { uint64_t u; std::memcpy(&u, &x, 8); return u; }

// "" if got has dt and the bits of want (rounded to dt by the cast; NaN matches any NaN).
inline std::string same_bits(const Tensor& got, const std::vector<double>& want, Dtype dt) {
  if (got.dtype() != dt) return "dtype " + std::string(concord::name(got.dtype()));
  const auto g = values(got);
  const auto w = values(make(want, dt));
  if (g.size() != w.size()) return "size " + std::to_string(g.size()) + " vs " + std::to_string(w.size());
  for (size_t i = 0; i < g.size(); ++i) {
    if (std::isnan(g[i]) && std::isnan(w[i])) continue;
    if (bits(g[i]) != bits(w[i]))
      return "element " + std::to_string(i) + ": got " + std::to_string(g[i]) + " want " + std::to_string(w[i]) +
             " (rank " + std::to_string(concord::dist::rank()) + " of " + std::to_string(concord::dist::world_size()) + ")";
  }
  return "";
}

inline constexpr Dtype kFloats[] = {Dtype::float16, Dtype::bfloat16, Dtype::float32, Dtype::float64};

}  // namespace dist_test
