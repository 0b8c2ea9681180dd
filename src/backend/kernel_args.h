// What every device-kernel backend (OpenCL, Vulkan) hands its kernels: tensor
// geometry, dtype names for kernel variants, and scalars as storage bits.
// One copy of each, shared, so the backends cannot drift apart.
//
// A kernel maps the row-major element index i of an operand to a buffer
// offset. Coalescing never changes that mapping, so the operands of one
// launch may be coalesced independently and each keeps the fewest dims: a
// contiguous tensor becomes one dim of stride 1, a broadcast scalar no dim.
#pragma once

#include <cstdint>
#include <span>

#include "concord/tensor.h"

namespace concord::detail {

// The geometry every device kernel takes: up to kMaxKernelDims dims,
// right-aligned (dim kMaxKernelDims-1 innermost; unused dims have shape 1,
// stride 0), element strides, element offset, the dims used, and whether
// element i is at offset + i.
inline constexpr int kMaxKernelDims = 8;
struct KernelGeom {
  int64_t shape[kMaxKernelDims];
  int64_t strides[kMaxKernelDims];
  int64_t offset;
  int32_t ndim;
  int32_t contiguous;
};

// Geometry of elements at `offset` + the strided walk over `shape` (any view:
// a reduction's kept or reduced dims, a gather's source with one dim at stride
// 0). ShapeError naming `backend`, the shape, strides and device beyond
// kMaxKernelDims dims after coalescing.
KernelGeom kernel_geom_of(std::span<const int64_t> shape, std::span<const int64_t> strides, int64_t offset,
                          const char* backend, const Device& device);
// Geometry of t.
KernelGeom kernel_geom(const Tensor& t, const char* backend);
// Geometry of t viewed with `shape` (t's shape right-aligned and broadcast to
// it, stride 0 on broadcast dims).
KernelGeom kernel_geom_as(const Tensor& t, const Shape& shape, const char* backend);

// The dtype's suffix in kernel and shader variant names: "b", "u8", "i8",
// "i16", "i32", "i64", "f16", "bf16", "f32", "f64".
const char* dtype_suffix(Dtype t);

// A number in dtype t's storage bits (the CPU's conversion, convert.h),
// widened to 8 bytes, little end first.
uint64_t scalar_bits(Dtype t, const Scalar& v);

}  // namespace concord::detail
