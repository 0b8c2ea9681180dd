// src/dist/staging.h — host staging shared by the collectives: a tensor on
// another device is copied to the CPU (Tensor::to, so the copy is counted in
// the report's transfers) and the result is copied back to that device.
#pragma once

#include <cstring>
#include <vector>

#include "concord/creation.h"
#include "concord/tensor.h"

namespace concord::dist::detail {

inline Tensor on_host(const Tensor& t) { return t.device().is_cpu() ? t : t.to(kCPU); }

// All elements of t, row-major, converted to T (float64 holds every floating dtype exactly).
template <class T> std::vector<T> host_values(const Tensor& t, Dtype as) {
  std::vector<T> v(static_cast<size_t>(t.numel()));
  if (!v.empty()) concord::detail::to_host_as(on_host(t), as, v.data());
  return v;
}

// A tensor of `shape` from host data of dtype `from`, converted to `dtype` on `device`.
inline Tensor finish(const void* data, size_t count, const Shape& shape, Dtype from, Dtype dtype, const Device& device) {
  Tensor r = from_host(data, count, shape, from, kCPU).to(dtype);
  return device.is_cpu() ? r : r.to(device, dtype);
}

}  // namespace concord::dist::detail
