// shaders/smoke_count.comp — counts[i - lo] += 1 for every linear id i in
// [lo, n): a launch that covers every id exactly once leaves all ones. Tests
// dispatch_1d's grid (y rows, 64-bit ids) and spec-constant local sizes.
#version 460
#include "common.glsl"

layout(local_size_x = 64, local_size_x_id = 0) in;

CONCORD_REF(U32, uint, 4);

layout(push_constant) uniform Push {
  uint64_t n;
  uint64_t lo;
  U32 counts;
} pc;

void main() {
  const uint64_t i = concord_linear_id();
  if (i >= pc.n || i < pc.lo) return;
  atomicAdd((pc.counts + (i - pc.lo)).v, 1u);
}
