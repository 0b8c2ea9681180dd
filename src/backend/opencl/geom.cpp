// Tensor geometry for OpenCL kernels (ocl::Geom, mirrored by Geom in kernels/common.cl).
//
// Each operand of a kernel gets its own Geom mapping the row-major element
// index i to a buffer offset. Coalescing never changes that mapping, so the
// operands of one launch may be coalesced independently and each keeps the
// fewest dims: a contiguous tensor becomes one dim of stride 1, a broadcast
// scalar no dim at all.
#include <vector>

#include "backend/opencl/opencl_backend.h"

namespace concord::detail::ocl {

namespace {

Geom make_geom(std::span<const int64_t> shape, std::span<const int64_t> strides, int64_t offset,
               const Tensor& t) {
  // (size, stride) from the outermost dim to the innermost, size-1 dims dropped,
  // a dim merged into the one outside it when stride_outer == stride_inner * size_inner.
  struct Dim { int64_t size, stride; };
  std::vector<Dim> dims;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    if (!dims.empty() && dims.back().stride == strides[d] * shape[d]) {
      dims.back().size *= shape[d];
      dims.back().stride = strides[d];
    } else {
      dims.push_back({shape[d], strides[d]});
    }
  }
  // Outermost stride-0 dims never change the offset; geom_offset ignores what
  // is left of the index after the last dim, so they can go.
  size_t first = 0;
  while (first < dims.size() && dims[first].stride == 0) ++first;
  const size_t nd = dims.size() - first;
  if (nd > static_cast<size_t>(kMaxDims))
    throw ShapeError("[opencl] a tensor of shape " + shape_str(t.shape()) + " with strides " +
                     shape_str(t.strides()) + " on " + t.device().str() + " needs " + std::to_string(nd) +
                     " dims after merging; OpenCL kernels take at most " + std::to_string(kMaxDims) +
                     ". Make it contiguous on the CPU first or use fewer dims.");
  Geom g{};
  for (int d = 0; d < kMaxDims; ++d) g.shape[d] = 1, g.strides[d] = 0;
  for (size_t k = 0; k < nd; ++k) {
    const size_t slot = static_cast<size_t>(kMaxDims) - nd + k;
    g.shape[slot] = dims[first + k].size;
    g.strides[slot] = dims[first + k].stride;
  }
  g.offset = offset;
  g.ndim = static_cast<cl_int>(nd);
  // Element i at offset + i: one unit-stride dim, or no dim at all for a single element.
  const bool single = numel(shape) <= 1;
  g.contiguous = (nd == 1 && g.strides[kMaxDims - 1] == 1 && first == 0) || (nd == 0 && single);
  return g;
}

}  // namespace

Geom geom(const Tensor& t) { return make_geom(t.shape(), t.strides(), t.offset(), t); }

Geom geom_as(const Tensor& t, const Shape& shape) {
  // Right-align t's dims with `shape`; missing or size-1 dims broadcast with stride 0.
  Strides strides(shape.size(), 0);
  const size_t lead = shape.size() - static_cast<size_t>(t.ndim());
  for (size_t d = 0; d < static_cast<size_t>(t.ndim()); ++d)
    if (t.shape()[d] != 1) strides[lead + d] = t.strides()[d];
  return make_geom(shape, strides, t.offset(), t);
}

const char* cl_type(Dtype t) {
  switch (t) {
    case Dtype::bool_: case Dtype::uint8: return "uchar";
    case Dtype::int8: return "char";
    case Dtype::int16: return "short";
    case Dtype::int32: return "int";
    case Dtype::int64: return "long";
    case Dtype::float16: case Dtype::bfloat16: return "ushort";
    case Dtype::float32: return "float";
    default: return "double";
  }
}

}  // namespace concord::detail::ocl
