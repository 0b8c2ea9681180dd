// shaders/smoke_args.comp — dst[i] = src[i] * scale + bias (no contraction),
// everything but the argument block's address read from the argument block:
// the smoke test of Context::args().
#version 460
#include "common.glsl"

layout(local_size_x = 128, local_size_x_id = 0) in;

CONCORD_REF(F32, float, 4);

layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Args {
  uint64_t n;
  F32 src;
  F32 dst;
  float scale;
  float bias;
};

layout(push_constant) uniform Push {
  Args args;
} pc;

void main() {
  const uint64_t i = concord_linear_id();
  Args a = pc.args;
  if (i >= a.n) return;
  precise float y = (a.src + i).v * a.scale + a.bias;
  (a.dst + i).v = y;
}
