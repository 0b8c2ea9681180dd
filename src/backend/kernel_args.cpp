// Geometry, dtype suffixes and scalar bits for device kernels (backend/kernel_args.h).
#include "backend/kernel_args.h"

#include <cstring>

#include "backend/cpu/convert.h"

namespace concord::detail {

KernelGeom kernel_geom_of(std::span<const int64_t> shape, std::span<const int64_t> strides, int64_t offset,
                          const char* backend, const Device& device) {
  // (size, stride) from the outermost dim to the innermost, size-1 dims dropped,
  // a dim merged into the one outside it when stride_outer == stride_inner * size_inner.
  SmallVec<int64_t, kMaxKernelDims> sizes, steps;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    if (!sizes.empty() && steps.back() == strides[d] * shape[d]) {
      sizes.back() *= shape[d];
      steps.back() = strides[d];
    } else {
      sizes.push_back(shape[d]);
      steps.push_back(strides[d]);
    }
  }
  // Outermost stride-0 dims never change the offset; the kernels ignore what
  // is left of the index after the last dim, so they can go.
  size_t first = 0;
  while (first < sizes.size() && steps[first] == 0) ++first;
  const size_t nd = sizes.size() - first;
  if (nd > static_cast<size_t>(kMaxKernelDims))
    throw ShapeError("[" + std::string(backend) + "] a tensor view of shape " + shape_str(shape) + " with strides " +
                     shape_str(strides) + " on " + device.str() + " needs " + std::to_string(nd) +
                     " dims after merging; its kernels take at most " + std::to_string(kMaxKernelDims) +
                     ". Make it contiguous first (x.contiguous()) or use fewer dims.");
  KernelGeom g{};
  for (int d = 0; d < kMaxKernelDims; ++d) g.shape[d] = 1, g.strides[d] = 0;
  for (size_t k = 0; k < nd; ++k) {
    const size_t slot = static_cast<size_t>(kMaxKernelDims) - nd + k;
    g.shape[slot] = sizes[first + k];
    g.strides[slot] = steps[first + k];
  }
  g.offset = offset;
  g.ndim = static_cast<int32_t>(nd);
  // Element i at offset + i: one unit-stride dim, or no dim at all for a single element.
  const bool single = numel(shape) <= 1;
  g.contiguous = (nd == 1 && g.strides[kMaxKernelDims - 1] == 1 && first == 0) || (nd == 0 && single);
  return g;
}

KernelGeom kernel_geom(const Tensor& t, const char* backend) {
  return kernel_geom_of(t.shape(), t.strides(), t.offset(), backend, t.device());
}

KernelGeom kernel_geom_as(const Tensor& t, const Shape& shape, const char* backend) {
  // Right-align t's dims with `shape`; missing or size-1 dims broadcast with stride 0.
  Strides strides(shape.size(), 0);
  const size_t lead = shape.size() - static_cast<size_t>(t.ndim());
  for (size_t d = 0; d < static_cast<size_t>(t.ndim()); ++d)
    if (t.shape()[d] != 1) strides[lead + d] = t.strides()[d];
  return kernel_geom_of(shape, strides, t.offset(), backend, t.device());
}

const char* dtype_suffix(Dtype t) {
  static constexpr const char* kNames[kNumDtypes] = {"b", "u8", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64"};
  return kNames[static_cast<int>(t)];
}

uint64_t scalar_bits(Dtype t, const Scalar& v) {
  return visit_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    T x;
    if (v.is_floating()) x = cpu::convert<T>(v.to_double());
    else if (v.is_bool()) x = cpu::convert<T>(v.to_bool());
    else x = cpu::convert<T>(v.to_int());
    uint64_t u = 0;
    std::memcpy(&u, &x, sizeof(T));
    return u;
  });
}

}  // namespace concord::detail
