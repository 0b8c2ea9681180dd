// shaders/det.comp — determinants from an LU (Backend::lu_det), one
// invocation per matrix: the CPU's loop of src/backend/cpu/linalg_host.cpp
// (the pivot sign, then the diagonal product in index order in float64,
// rounded once to the LU's dtype) on float64 bits with the integer functions
// of xf64.glsl, so the CPU's bits in both modes whatever the device does with
// subnormals (one variant serves both). Every NaN result is the canonical NaN.
// n <= 128 (linalg_max_n): far below llvmpipe's 65535 loop iterations.
//
// Variants (linear.cmake): det_f32 (T_IS_F64 0: float32 LU and result) and
// det_f64 (T_IS_F64 1: float64 bits in uint64_t; no double instruction).
#version 460
#include "common.glsl"
#include "xf32.glsl"
#include "xf64.glsl"

#ifndef T_IS_F64
#define T_IS_F64 0
#endif

layout(local_size_x = 64) in;

layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer RefU { uint v; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer RefD { uint64_t v; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer RefW { uint v; };
layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer RefI { int v; };

layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Args {
  uint64_t lu, piv, det;                // byte-0 addresses of the buffers
  int64_t lu_off, piv_off, det_off;     // element offsets of matrix 0
  int64_t count, n;
  int64_t b0;                           // this dispatch's first matrix
};
layout(push_constant) uniform Push { Args args; } pc;

// Element i of the LU as float64 bits (float32 widens exactly).
uint64_t load_lu(uint64_t base, int64_t i) {
#if T_IS_F64
  return RefD(base + uint64_t(i) * 8ul).v;
#else
  return xd_from_f32(RefU(base + uint64_t(i) * 4ul).v);
#endif
}

void main() {
  Args g = pc.args;
  const int64_t b = g.b0 + int64_t(gl_GlobalInvocationID.x);
  if (b >= g.count) return;
  const int64_t n = g.n;
  const uint64_t piv = g.piv + uint64_t(g.piv_off + b * n) * 4ul;
  // Parity of the row swaps recorded in the 1-based pivots.
  bool odd = false;
  for (int64_t i = 0; i < n; ++i) odd = odd != (RefI(piv + uint64_t(i) * 4ul).v != int(i + 1));
  uint64_t d = odd ? 0xbff0000000000000ul : 0x3ff0000000000000ul;  // -1.0 or 1.0
  const int64_t base = g.lu_off + b * n * n;
  for (int64_t i = 0; i < n; ++i) d = xd_mul(d, load_lu(g.lu, base + i * n + i));
#if T_IS_F64
  RefD(g.det + uint64_t(g.det_off + b) * 8ul).v = xd_isnan(d) ? XD_NAN : d;
#else
  RefW(g.det + uint64_t(g.det_off + b) * 4ul).v = xd_to_f32(d);
#endif
}
