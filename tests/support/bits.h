// Bit-level comparison helpers shared by the reproducible-mode tests: the
// first element whose bits differ between two tensors, and the distance of a
// double from a long double reference in units of the last place.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>

#include "concord/tensor.h"

namespace concord::test {

// "" when a and b have one dtype, one shape and the same bits in every
// element; else the first differing element with both bit patterns (b is the
// reference, usually the CPU's result).
inline std::string first_difference(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || !(a.shape() == b.shape()))
    return std::string(name(a.dtype())) + shape_str(a.shape()) + " vs " + std::string(name(b.dtype())) +
           shape_str(b.shape());
  const Tensor x = a.to(kCPU).contiguous(), y = b.to(kCPU).contiguous();
  const size_t isz = itemsize(x.dtype());
  const auto* p = static_cast<const unsigned char*>(x.raw_data());
  const auto* q = static_cast<const unsigned char*>(y.raw_data());
  for (size_t i = 0; i < x.nbytes(); i += isz)
    if (std::memcmp(p + i, q + i, isz) != 0) {
      uint64_t u = 0, v = 0;
      std::memcpy(&u, p + i, isz);
      std::memcpy(&v, q + i, isz);
      char buf[128];
      std::snprintf(buf, sizeof buf, "element %zu: bits 0x%llx vs the CPU's 0x%llx", i / isz,
                    static_cast<unsigned long long>(u), static_cast<unsigned long long>(v));
      return buf;
    }
  return "";
}

// |y - r| in units of the last place of r in double (the subnormal spacing at
// the bottom); 0 for matching NaNs or equal infinities, 1e9 for a NaN or an
// infinity on one side only.
inline double ulps_f64(double y, long double r) {
  if (std::isnan(static_cast<double>(r))) return std::isnan(y) ? 0.0 : 1e9;
  if (std::isinf(y) || std::isinf(static_cast<double>(r))) return y == static_cast<double>(r) ? 0.0 : 1e9;
  int e = 0;
  const double a = std::fabs(static_cast<double>(r));
  std::frexp(a == 0.0 ? std::numeric_limits<double>::denorm_min() : a, &e);
  return static_cast<double>(fabsl(static_cast<long double>(y) - r) / std::ldexp(1.0L, std::max(e - 53, -1074)));
}

}  // namespace concord::test
