// backend/common/xmath32_pow.glsl — the reproducible mode's float32 pow and atan2
// on float32 BITS, with integer operations only: float64 inside through
// xf64.glsl.
//
//   uint xm_pow(uint x, uint64_t y)   the mode's concord_pow_f32(x, y)
//                                     (backend/common/canon_pow.h): y is a
//                                     float32 operand widened (pow of two
//                                     tensors) or the double exponent of
//                                     pow(tensor, number), as its bits
//   uint xm_atan2(uint y, uint x)     concord_atan2_f32(y, x)
//
// Why: the CPU computes these in double-double / double and rounds once.
// Here the same body, canon_pow.inc, runs on canon_num.h's bits kit: every
// double operation and fma an xd_* call in the same order, every branch a test
// of bits, so the result is the CPU's bits whatever the device does with
// subnormals. Every NaN result is XF_NAN (the mode's canonical NaN).
// xmath64_pow.glsl uses xp_int_kind, xp_trunc_int, xp_horner, the XP_ tables
// and the XP_ constants below.
//
// Include after xf32.glsl and xf64.glsl. Also valid C++
// (tests/ops/binary/test_reproducible_vulkan_pow.cpp checks it against the CPU).
// Example: `XSTORE(f32)(dst, i, xm_pow(XLOAD(f32)(a, i), xd_from_f32(XLOAD(f32)(b, i))));`
#ifndef CONCORD_XMATH32_POW_GLSL
#define CONCORD_XMATH32_POW_GLSL

#define CONCORD_NUM_BITS 1
#include "backend/common/canon_num.h"
#define CN_POW_COEF XP_COEF
#define CN_POW_ATAN_HI XP_ATAN_HI
#define CN_POW_ATAN_LO XP_ATAN_LO
#define CN_POW_HORNER xp_horner
#define CN_POW_DD XpDD
#define CN_POW_LOG2_DD xp_log2_dd
#define CN_POW_EXP2_DD xp_exp2_dd
#define CN_POW_INT_KIND xp_int_kind
#define CN_POW_TRUNC_INT xp_trunc_int
#define CN_POW_ATAN01 xp_atan01
#define CN_POW_F32 xm_pow
#define CN_ATAN2_F32 xm_atan2
#include "backend/common/canon_pow.inc"
#undef CN_POW_COEF
#undef CN_POW_ATAN_HI
#undef CN_POW_ATAN_LO
#undef CN_POW_HORNER
#undef CN_POW_DD
#undef CN_POW_LOG2_DD
#undef CN_POW_EXP2_DD
#undef CN_POW_INT_KIND
#undef CN_POW_TRUNC_INT
#undef CN_POW_ATAN01
#undef CN_POW_F32
#undef CN_ATAN2_F32
#undef CONCORD_NUM_BITS
#define XP_ONE CONCORD_POW_ONE
#define XP_TWO CONCORD_POW_TWO
#define XP_HALF CONCORD_POW_HALF
#define XP_SHIFT CONCORD_POW_SHIFT
#define XP_SQRT2 CONCORD_POW_SQRT2
#define XP_INVLN2_HI CONCORD_POW_INVLN2_HI
#define XP_INVLN2_LO CONCORD_POW_INVLN2_LO
#define XP_LN2_HI CONCORD_POW_LN2_HI
#define XP_LN2_LO CONCORD_POW_LN2_LO
#define XP_D200 CONCORD_POW_D200
#define XP_D16 CONCORD_POW_D16
#define XP_D0625 CONCORD_POW_D0625
#define XP_PIO2 CONCORD_POW_PIO2
#define XP_PI CONCORD_POW_PI
#define XP_PIO2_LO CONCORD_POW_PIO2_LO
#define XP_PI_LO CONCORD_POW_PI_LO
#define XP_3PIO4 CONCORD_POW_3PIO4
#define XP_PIO4 CONCORD_POW_PIO4
#define XP_F_ONE CONCORD_POW_F_ONE

#endif
