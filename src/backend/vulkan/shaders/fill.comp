// shaders/fill.comp — dst = value on a strided tensor of -DBITS=N-byte items
// (the value's bits, already in the dtype, are in the argument block).
// -DCANON=1: only the NaN items become `value` (the canonical NaN); `pad`
// holds +inf's bits, and NaN <=> (bits & ~sign) > inf, compared as integers.
#version 460
#include "common.glsl"
#include "dtypes.glsl"
#include "geom.glsl"

layout(local_size_x = 256) in;

layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Args {
  uint64_t dst, value;
  int64_t n, pad;
  Geom gd;
};
layout(push_constant) uniform Push { Args args; } pc;

void main() {
  const int64_t i = int64_t(concord_linear_id());
  Args a = pc.args;
  if (i >= a.n) return;
  const int64_t di = geom_at(a.gd, i);
#if defined(CANON) && BITS == 2
  if ((ld16(a.dst, di) & 0x7fffu) > uint(a.pad)) st16(a.dst, di, uint(a.value));
#elif defined(CANON) && BITS == 4
  if ((ld32(a.dst, di) & 0x7fffffffu) > uint(a.pad)) st32(a.dst, di, uint(a.value));
#elif defined(CANON)
  if ((ld64(a.dst, di) & 0x7fffffffffffffffUL) > uint64_t(a.pad)) st64(a.dst, di, a.value);
#elif BITS == 1
  st8(a.dst, di, uint(a.value));
#elif BITS == 2
  st16(a.dst, di, uint(a.value));
#elif BITS == 4
  st32(a.dst, di, uint(a.value));
#else
  st64(a.dst, di, a.value);
#endif
}
