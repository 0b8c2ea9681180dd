// shaders/elementwise_where.comp — out = cond ? a : b on raw items of BITS
// bytes (where only selects: every bit of the chosen operand is kept).
#version 460
#include "common.glsl"
#include "dtypes.glsl"
#include "geom.glsl"

layout(local_size_x = 256) in;

// Mirrors WhereArgs in elementwise.cpp.
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Args {
  uint64_t dst, cond, a, b;
  int64_t n, pad;
  Geom go, gc, ga, gb;
};
layout(push_constant) uniform Push { Args args; } pc;

void main() {
  const int64_t i = int64_t(concord_linear_id());
  Args g = pc.args;
  if (i >= g.n) return;
  const bool c = ld8(g.cond, geom_at(g.gc, i)) != 0u;
  const uint64_t src = c ? g.a : g.b;
  const int64_t si = c ? geom_at(g.ga, i) : geom_at(g.gb, i);
  const int64_t oi = geom_at(g.go, i);
#if BITS == 1
  st8(g.dst, oi, ld8(src, si));
#elif BITS == 2
  st16(g.dst, oi, ld16(src, si));
#elif BITS == 4
  st32(g.dst, oi, ld32(src, si));
#else
  st64(g.dst, oi, ld64(src, si));
#endif
}
