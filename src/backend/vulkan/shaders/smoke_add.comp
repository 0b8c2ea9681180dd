// shaders/smoke_add.comp — c[i] = a[i] + b[i] over float32 (or -DT=... for
// another type), addresses and n in push constants. The runtime's smoke test.
#version 460
#include "common.glsl"

#ifndef T
#define T float
#endif

layout(local_size_x = 256, local_size_x_id = 0) in;

CONCORD_REF(Elem, T, 4);

layout(push_constant) uniform Push {
  uint64_t n;
  Elem a, b, c;
} pc;

void main() {
  const uint64_t i = concord_linear_id();
  if (i >= pc.n) return;
  (pc.c + i).v = (pc.a + i).v + (pc.b + i).v;
}
