// shaders/iota.comp — dst[off + i] = start + i * step.
//   default   computed in double and rounded once to -DDST=X (the CPU's
//             floating arange/linspace); needs float64
//   -DINT=1   exact int64 arithmetic (two's complement on overflow), then the
//             int -> int rule (integer arange; no float64 needed)
//   -DXD=1    the default's two roundings on the doubles' bits in integer
//             operations (xf64.glsl): the reproducible mode's variant, whatever
//             the device does with float64 subnormals
//   -DXD=1 -DXD_NARROW=1 (float32) or 2 (float16, bfloat16): the same, and the
//             rounding to DST on bits too, so no float64 at all: the only
//             variant of these dtypes, in both modes and on devices without
//             float64
#version 460
#if !defined(INT) && !defined(XD_NARROW)
#define CONCORD_F64 1
#endif
#include "common.glsl"
#include "dtypes.glsl"
#ifdef XD
#include "xf32.glsl"
#include "xf64.glsl"
#endif

layout(local_size_x = 256) in;

#ifdef INT
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Args {
  uint64_t dst;
  int64_t off, start, step, n, pad;
};
#elif defined(XD)
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Args {
  uint64_t dst;
  int64_t off;
  uint64_t start, step;  // the doubles' bits
  int64_t n, pad;
};
#else
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Args {
  uint64_t dst;
  int64_t off;
  double start, step;
  int64_t n, pad;
};
#endif
layout(push_constant) uniform Push { Args args; } pc;

void main() {
  const int64_t i = int64_t(concord_linear_id());
  Args a = pc.args;
  if (i >= a.n) return;
#ifdef INT
  const int64_t v = int64_t(uint64_t(a.start) + uint64_t(i) * uint64_t(a.step));
  STORE(DST)(a.dst, a.off + i, CVT(DST, i64)(v));
#elif defined(XD_NARROW)
  const uint64_t v = xd_add(a.start, xd_mul(xd_from_int64(i), a.step));
  // float64 -> half rounds once (backend/cpu/convert.h): round to odd to
  // float32 first, so the store's rounding to the half is the only one.
  const uint r = XD_NARROW == 2 ? xd_to_f32_odd(v) : xd_to_f32(v);
  STORE(DST)(a.dst, a.off + i, uintBitsToFloat(r));
#elif defined(XD)
  const uint64_t v = xd_add(a.start, xd_mul(xd_from_int64(i), a.step));
  STORE(DST)(a.dst, a.off + i, CVT(DST, f64)(uint64BitsToDouble(v)));  // the conversions are integer work
#else
  precise double v = a.start + double(i) * a.step;  // two roundings, never contracted
  STORE(DST)(a.dst, a.off + i, CVT(DST, f64)(v));
#endif
}
