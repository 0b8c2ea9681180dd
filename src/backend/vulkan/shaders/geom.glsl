// shaders/geom.glsl — tensor geometry in argument blocks; mirrors vk::Geom
// (vulkan_backend.h) byte for byte (std430: 144 bytes, 8-byte aligned).
//
//   Geom                 dims right-aligned: dim MAX_DIMS-1 is innermost; dims
//                        below MAX_DIMS-ndim are unused; strides in elements
//   geom_offset(g, i)    element offset (from the buffer start) of the i-th
//                        element of g in row-major order
//   geom_at(g, i)        the same, with a fast path when g.contiguous
#ifndef CONCORD_GEOM_GLSL
#define CONCORD_GEOM_GLSL

#define MAX_DIMS 8

struct Geom {
  int64_t shape[MAX_DIMS];
  int64_t strides[MAX_DIMS];
  int64_t offset;
  int ndim;
  int contiguous;
};

int64_t geom_offset(Geom g, int64_t i) {
  int64_t off = g.offset;
  if (i < 0x80000000l) {  // 32-bit division is several times faster than 64-bit
    uint r = uint(i);
    for (int d = MAX_DIMS - 1; d >= MAX_DIMS - g.ndim; --d) {
      // A dim of 2^31 or more is larger than r: clamping it keeps q = 0.
      const uint s = g.shape[d] < 0x80000000l ? uint(g.shape[d]) : 0x80000000u;
      const uint q = r / s;
      off += int64_t(r - q * s) * g.strides[d];
      r = q;
    }
    return off;
  }
  for (int d = MAX_DIMS - 1; d >= MAX_DIMS - g.ndim; --d) {
    const int64_t s = g.shape[d];
    const int64_t q = i / s;
    off += (i - q * s) * g.strides[d];
    i = q;
  }
  return off;
}

int64_t geom_at(Geom g, int64_t i) { return g.contiguous != 0 ? g.offset + i : geom_offset(g, i); }

#endif
