// iota_xd.cl — floating arange and linspace for programs without float64 (a
// device without cl_khr_fp64, or a no-fp64 profile): start + i * step on the
// doubles' bits (xf64.glsl through xmath.cl; two roundings, as the CPU's
// double arithmetic), then one rounding to the dtype as convert.h stores a
// double (round to odd to float32 first for the halves). So the CPU's values
// without float64; Vulkan's iota.comp -DXD_NARROW runs the same header.
// start and step arrive as their doubles' bits.
#include "xmath.cl"

static ulong iota_at(ulong start, ulong step, long i) { return xd_add(start, xd_mul(xd_from_int64(i), step)); }

__kernel void iota_xd_f32(__global uint* dst, long off, ulong start, ulong step, long n) {
  const long i = get_global_id(0);
  if (i < n) dst[off + i] = xd_to_f32(iota_at(start, step, i));
}

__kernel void iota_xd_f16(__global ushort* dst, long off, ulong start, ulong step, long n) {
  const long i = get_global_id(0);
  if (i < n) dst[off + i] = (ushort)xf_to_f16(xd_to_f32_odd(iota_at(start, step, i)));
}

__kernel void iota_xd_bf16(__global ushort* dst, long off, ulong start, ulong step, long n) {
  const long i = get_global_id(0);
  if (i < n) dst[off + i] = (ushort)xf_to_bf16(xd_to_f32_odd(iota_at(start, step, i)));
}
