// backend/common/xops.glsl — the shared elementwise ops (canon_ops.inc: hypot,
// logaddexp, copysign, nextafter) on float BITS with integer operations only:
// canon_num.h's bits kit, so the CPU's canon_ops.h bits on any device.
//
//   uint xs_<op>_f32(uint x, uint y, int fmt)          float32 bits (fmt: the
//                                                      storage format, canon_ops.h)
//   uint64_t xs_<op>_f64(uint64_t x, uint64_t y)       float64 bits
//
// Include after xf32.glsl, xf64.glsl, xmath64.glsl and xmath64_log.glsl
// (logaddexp's exp and log1p). Also valid C++ and OpenCL C (kernels/xmath.cl).
// Example: `st64(dst, i, xs_hypot_f64(ld64(a, i), ld64(b, i)));`
#ifndef CONCORD_XOPS_GLSL
#define CONCORD_XOPS_GLSL

#define CONCORD_NUM_BITS 1
#include "backend/common/canon_num.h"
#define CN_EW(name) xs_##name
#define CN_EW_EXP_D xe_exp
#define CN_EW_LOG1P_D xe_log1p
#include "backend/common/canon_ops.inc"
#undef CN_EW
#undef CN_EW_EXP_D
#undef CN_EW_LOG1P_D
#undef CONCORD_NUM_BITS

#endif
