// shaders/xint_check.comp — the integer conversions and compares of
// xf32.glsl / xf64.glsl on the device, for tests/test_vulkan_xint.cpp (the
// same headers compiled as C++ are checked by tests/test_xf32.cpp; a device
// compiler may still differ). Per element i of v (int64) and w (float64 bits):
//   out[4i]     xd_from_int64(v[i])
//   out[4i + 1] xd_from_int64(int64_t(e)), e = int(v[i]) (an int widened at
//               the call site, as xmath32_pow.glsl and xmath32_erf.glsl do)
//   out[4i + 2] xf_from_int(e)
//   out[4i + 3] bits 0..2: xd_lt, xd_le, xd_eq of (out[4i], w[i]); bit 3:
//               xd_int64_neg(int64_t(e))
#version 460
#include "common.glsl"
#include "xf32.glsl"
#include "xf64.glsl"

layout(local_size_x = 64, local_size_x_id = 0) in;

CONCORD_REF(U64, uint64_t, 8);

layout(push_constant) uniform Push {
  uint64_t n;
  U64 v, w, out_;
} pc;

void main() {
  const uint64_t i = concord_linear_id();
  if (i >= pc.n) return;
  const int64_t v = int64_t((pc.v + i).v);
  const uint64_t w = (pc.w + i).v;
  const int e = int(v);
  const uint64_t a = xd_from_int64(v);
  const uint flags = (xd_lt(a, w) ? 1u : 0u) | (xd_le(a, w) ? 2u : 0u) | (xd_eq(a, w) ? 4u : 0u) |
                     (xd_int64_neg(int64_t(e)) ? 8u : 0u);
  (pc.out_ + 4ul * i).v = a;
  (pc.out_ + 4ul * i + 1ul).v = xd_from_int64(int64_t(e));
  (pc.out_ + 4ul * i + 2ul).v = uint64_t(xf_from_int(e));
  (pc.out_ + 4ul * i + 3ul).v = uint64_t(flags);
}
