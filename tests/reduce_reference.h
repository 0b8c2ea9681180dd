// Float64 references for the reduction tests: plain loops over host copies.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "concord/concord.h"
#include "support/devices.h"

namespace concord::test::reduce {

// Unit roundoff of a dtype, and of the dtype its sums accumulate in.
inline double unit(Dtype t) {
  switch (t) {
    case float16: return std::ldexp(1.0, -11);
    case bfloat16: return std::ldexp(1.0, -8);
    case float32: return std::ldexp(1.0, -24);
    case float64: return std::ldexp(1.0, -53);
    default: return 0.0;
  }
}
inline double acc_unit(Dtype t) { return t == float64 ? unit(float64) : unit(float32); }

// Additions one element can go through in the blocked order (lanes of 4096/16, a
// 16-lane tree, then a tree over the blocks), plus slack.
inline double sum_depth(int64_t n) {
  const int64_t nb = (n + 4095) / 4096;
  return static_cast<double>(std::min<int64_t>(n, 4096) / 16 + 4) + std::ceil(std::log2(static_cast<double>(nb))) + 2;
}

// Random values exactly representable in t (integers in [lo, hi] for integer
// dtypes). splitmix64: fast enough for the 10M-element cases.
inline std::vector<double> random_values(int64_t n, Dtype t, double lo, double hi, uint64_t seed) {
  uint64_t state = seed * 0x9e3779b97f4a7c15ULL + 1;
  auto next = [&] {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  std::vector<double> v(static_cast<size_t>(n));
  if (t == bool_) {
    for (auto& x : v) x = (next() % 10) < 6;
  } else if (is_integral(t)) {
    const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
    for (auto& x : v) x = lo + static_cast<double>(next() % span);
  } else {
    for (auto& x : v) x = lo + (hi - lo) * std::ldexp(static_cast<double>(next() >> 11), -53);
    if (t != float64) v = from_host(v.data(), Shape{n}, float64).to(t).to_vector<double>();
  }
  return v;
}

// A tensor of dtype t on device d holding v (already representable in t).
inline Tensor make(const std::vector<double>& v, Shape shape, Dtype t, const Device& d) {
  return from_host(v.data(), shape, float64).to(t).to(d);
}

// For each output (row-major over the kept dims) the elements it reduces, in row-major order.
inline std::vector<std::vector<double>> groups(const std::vector<double>& v, const Shape& shape, std::vector<int64_t> dims) {
  const int64_t nd = static_cast<int64_t>(shape.size());
  if (dims.empty())
    for (int64_t i = 0; i < nd; ++i) dims.push_back(i);
  for (auto& d : dims) d = d < 0 ? d + nd : d;
  std::vector<bool> red(static_cast<size_t>(nd), false);
  for (auto d : dims) red[static_cast<size_t>(d)] = true;
  int64_t nout = 1;
  for (int64_t i = 0; i < nd; ++i)
    if (!red[i]) nout *= shape[i];
  std::vector<std::vector<double>> g(static_cast<size_t>(nout));
  std::vector<int64_t> idx(static_cast<size_t>(nd), 0);
  for (size_t lin = 0; lin < v.size(); ++lin) {
    int64_t o = 0;
    for (int64_t i = 0; i < nd; ++i)
      if (!red[i]) o = o * shape[i] + idx[i];
    g[static_cast<size_t>(o)].push_back(v[lin]);
    for (int64_t i = nd - 1; i >= 0; --i) {
      if (++idx[i] < shape[i]) break;
      idx[i] = 0;
    }
  }
  return g;
}

inline double ref_sum(const std::vector<double>& g) { double s = 0; for (double x : g) s += x; return s; }
inline double ref_abs_sum(const std::vector<double>& g) { double s = 0; for (double x : g) s += std::fabs(x); return s; }
inline double ref_mean(const std::vector<double>& g) { return ref_sum(g) / static_cast<double>(g.size()); }
inline double ref_var(const std::vector<double>& g, int64_t correction) {
  const double m = ref_mean(g);
  double s = 0;
  for (double x : g) s += (x - m) * (x - m);
  return s / static_cast<double>(std::max<int64_t>(static_cast<int64_t>(g.size()) - correction, 0));
}
inline double ref_max(const std::vector<double>& g) { double m = -INFINITY; for (double x : g) m = std::max(m, x); return m; }
inline double ref_min(const std::vector<double>& g) { double m = INFINITY; for (double x : g) m = std::min(m, x); return m; }
inline double ref_logsumexp(const std::vector<double>& g) {
  const double m = ref_max(g);
  double s = 0;
  for (double x : g) s += std::exp(x - m);
  return m + std::log(s);
}

// The bytes of every element (row-major), for bitwise comparisons.
inline std::vector<uint8_t> bits(const Tensor& t) {
  const Tensor h = t.to(kCPU).contiguous();
  std::vector<uint8_t> b(h.nbytes());
  if (!b.empty()) std::memcpy(b.data(), h.raw_data(), b.size());
  return b;
}

inline bool usable(const DeviceConfig& c, Dtype t) { return can_store(c, t); }

}  // namespace concord::test::reduce
