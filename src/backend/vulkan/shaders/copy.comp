// shaders/copy.comp — data movement between strided tensors.
//   -DDST=X -DSRC=Y   dst (X) = CVT(X, Y)(src (Y)): the conversions of dtypes.glsl
//   -DBITS=N          a raw copy of N-byte items (same-dtype copies keep
//                     every bit, NaN payloads included)
#version 460
#include "common.glsl"
#include "dtypes.glsl"
#include "geom.glsl"

layout(local_size_x = 256) in;

layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Args {
  uint64_t dst, src;
  int64_t n, pad;
  Geom gd, gs;
};
layout(push_constant) uniform Push { Args args; } pc;

void main() {
  const int64_t i = int64_t(concord_linear_id());
  Args a = pc.args;
  if (i >= a.n) return;
  const int64_t di = geom_at(a.gd, i), si = geom_at(a.gs, i);
#if defined(BITS) && BITS == 1
  st8(a.dst, di, ld8(a.src, si));
#elif defined(BITS) && BITS == 2
  st16(a.dst, di, ld16(a.src, si));
#elif defined(BITS) && BITS == 4
  st32(a.dst, di, ld32(a.src, si));
#elif defined(BITS) && BITS == 8
  st64(a.dst, di, ld64(a.src, si));
#else
  STORE(DST)(a.dst, di, CVT(DST, SRC)(LOAD(SRC)(a.src, si)));
#endif
}
