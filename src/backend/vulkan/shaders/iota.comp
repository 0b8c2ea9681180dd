// shaders/iota.comp — dst[off + i] = start + i * step, computed in double and
// rounded once to -DDST=X (the CPU's arange/linspace). Needs float64.
#version 460
#define CONCORD_F64 1
#include "common.glsl"
#include "dtypes.glsl"

layout(local_size_x = 256) in;

layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Args {
  uint64_t dst;
  int64_t off;
  double start, step;
  int64_t n, pad;
};
layout(push_constant) uniform Push { Args args; } pc;

void main() {
  const int64_t i = int64_t(concord_linear_id());
  Args a = pc.args;
  if (i >= a.n) return;
  precise double v = a.start + double(i) * a.step;  // two roundings, never contracted
  STORE(DST)(a.dst, a.off + i, CVT(DST, f64)(v));
}
