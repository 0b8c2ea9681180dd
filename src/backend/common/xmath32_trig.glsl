// backend/common/xmath32_trig.glsl — the reproducible mode's float32 sin, cos and tan
// on float32 BITS, with integer operations only: float64 inside through
// xf64.glsl.
//
//   uint xm_sin(uint x), xm_cos(uint x), xm_tan(uint x)
//                             the mode's concord_sin_f32 / cos / tan
//                             (backend/common/canon_trig.h)
//
// Why: the CPU reduces the argument exactly (Payne-Hanek, integer
// arithmetic on the bits of 2/pi), evaluates Taylor polynomials in double
// and rounds once. This is the same body on canon_num.h's bits kit: the
// reduction is integer work already, every double operation an xd_* call in
// the same order, so the result is the CPU's bits whatever the device does
// with subnormals. Every NaN result is XF_NAN (the mode's canonical NaN).
//
// Include after xf32.glsl and xf64.glsl. Also valid C++
// (tests/test_reproducible_vulkan_trig.cpp checks it against the CPU).
// Example: `XSTORE(f32)(dst, i, xm_sin(XLOAD(f32)(src, i)));`
#ifndef CONCORD_XMATH32_TRIG_GLSL
#define CONCORD_XMATH32_TRIG_GLSL

// canon_trig.h's one body (canon_trig.inc) on the doubles' bits.
#define CONCORD_NUM_BITS 1
#include "backend/common/canon_num.h"
#define CN_TRIG_TWO_OVER_PI XM_TWO_OVER_PI
#define CN_TRIG_COEF XM_TRIG_COEF
#define CN_TRIG_ARG XmTrigArg
#define CN_TRIG_REDUCE xm_trig_reduce
#define CN_TRIG_HORNER xm_trig_horner
#define CN_SIN_POLY xm_sin_poly
#define CN_COS_POLY xm_cos_poly
#define CN_TRIG_ARG_OF xm_trig_arg
#define CN_SIN_F32 xm_sin
#define CN_COS_F32 xm_cos
#define CN_TAN_F32 xm_tan
#include "backend/common/canon_trig.inc"
#undef CN_TRIG_TWO_OVER_PI
#undef CN_TRIG_COEF
#undef CN_TRIG_ARG
#undef CN_TRIG_REDUCE
#undef CN_TRIG_HORNER
#undef CN_SIN_POLY
#undef CN_COS_POLY
#undef CN_TRIG_ARG_OF
#undef CN_SIN_F32
#undef CN_COS_F32
#undef CN_TAN_F32
#undef CONCORD_NUM_BITS

#endif
