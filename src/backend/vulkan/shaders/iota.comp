// shaders/iota.comp — dst[off + i] = start + i * step.
//   default   computed in double and rounded once to -DDST=X (the CPU's
//             floating arange/linspace); needs float64
//   -DINT=1   exact int64 arithmetic (two's complement on overflow), then the
//             int -> int rule (integer arange; no float64 needed)
//   -DXD=1    the default's two roundings on the doubles' bits in integer
//             operations (xf64.glsl), and the conversion to DST on bits too:
//             the reproducible mode's variant, whatever the device does with
//             float64 subnormals, and no float64 instruction at all
//   -DXD=1 -DXD_NARROW=1 (float32) or 2 (float16, bfloat16): the same, and the
//             rounding to DST on bits too, so no float64 at all: the only
//             variant of these dtypes, in both modes and on devices without
//             float64
#version 460
#if !defined(INT) && !defined(XD)
#define CONCORD_F64 1
#endif
#include "common.glsl"
#include "dtypes.glsl"
#ifdef XD
#include "xf32.glsl"
#include "xf64.glsl"
#endif

layout(local_size_x = 256) in;

#if defined(XD) && !defined(XD_NARROW)
// Stores of a double's bits to DST, converted as backend/cpu/convert.h does.
#define XD_STORE_(X) XD_STORE_##X
#define XD_STORE(X) XD_STORE_(X)
#define XD_STORE_f64(a, i, v) st64(a, i, v)
#define XD_STORE_b(a, i, v) st8(a, i, ((v) & XD_ABS) != 0ul ? 1u : 0u)  // NaN and subnormals are true
#define XD_STORE_u8(a, i, v) st8(a, i, uint(xd_to_int64_sat(v, 0l, 255l)))
#define XD_STORE_i8(a, i, v) st8(a, i, uint(xd_to_int64_sat(v, -128l, 127l)))
#define XD_STORE_i16(a, i, v) st16(a, i, uint(xd_to_int64_sat(v, -32768l, 32767l)))
#define XD_STORE_i32(a, i, v) st32(a, i, uint(xd_to_int64_sat(v, -2147483648l, 2147483647l)))
#define XD_STORE_i64(a, i, v) st64(a, i, uint64_t(xd_to_int64_sat(v, INT64_MIN_, INT64_MAX_)))
#endif

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
  XSTORE(DST)(a.dst, a.off + i, r);  // the half's rounding on bits too
#elif defined(XD)
  const uint64_t v = xd_add(a.start, xd_mul(xd_from_int64(i), a.step));
  XD_STORE(DST)(a.dst, a.off + i, v);
#else
  precise double v = a.start + double(i) * a.step;  // two roundings, never contracted
  STORE(DST)(a.dst, a.off + i, CVT(DST, f64)(v));
#endif
}
