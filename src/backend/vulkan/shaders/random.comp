// shaders/random.comp — rand / randn / randint into a contiguous tensor of
// dtype -DT=X (host side: random.cpp). Element i is a pure function of
// (seed, offset + i) through backend/common/philox.h, the CPU's and OpenCL's
// source, so the bits are the CPU's.
// -DFK=k: the float kind of T: 1 f16, 2 bf16, 3 f32, 4 f64, 0 not floating.
// The op is args.op: 1 rand, 2 randn (floating dtypes), 3 randint. A code
// without its case here writes zero bits and is never claimed.
#version 460
#include "common.glsl"
#include "dtypes.glsl"
#include "backend/common/philox.h"

layout(local_size_x = 256) in;

// Mirrors RandomArgs in random.cpp.
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Args {
  uint64_t dst;
  int64_t off, n;
  uint64_t seed, offset, low, range;
  int op, pad;
};
layout(push_constant) uniform Push { Args args; } pc;

void main() {
  const int64_t i = int64_t(concord_linear_id());
  Args a = pc.args;
  if (i >= a.n) return;
  const concord_u32x4 x = concord_philox_element(a.seed, a.offset + uint64_t(i));
  const int64_t di = a.off + i;
  if (a.op == 3) {
    const int64_t v = int64_t(a.low + concord_randint_offset(x.w0, x.w1, a.range));
    STORE(T)(a.dst, di, CVT(T, i64)(v));
    return;
  }
#if FK == 4
  if (a.op == 1) STORE(T)(a.dst, di, concord_uniform_f64(x.w0, x.w1));
  else if (a.op == 2) STORE(T)(a.dst, di, concord_normal_f64(x));
  else STORE(T)(a.dst, di, 0.0lf);
#elif FK >= 1 && FK <= 3
#if FK == 1
  const float u = concord_uniform_f32_below(x.w0, CONCORD_F16_BELOW_ONE);
#elif FK == 2
  const float u = concord_uniform_f32_below(x.w0, CONCORD_BF16_BELOW_ONE);
#else
  const float u = concord_uniform_f32(x.w0);
#endif
  if (a.op == 1) STORE(T)(a.dst, di, u);
  else if (a.op == 2) STORE(T)(a.dst, di, concord_normal_f32(x.w0, x.w1));  // halves: rounded once by the store
  else STORE(T)(a.dst, di, 0.0);
#else
  STORE(T)(a.dst, di, CVT(T, i64)(int64_t(0)));  // integer dtypes: randint only
#endif
}
