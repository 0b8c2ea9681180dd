// backend/common/xmath64_pow.glsl — the reproducible mode's float64 pow and atan2
// on float64 BITS, with integer operations only: the CPU's body,
// canon_pow_f64.inc, over canon_num.h's kit on bits.
//
//   uint64_t xe_pow(uint64_t x, uint64_t y)     concord_pow_f64(x, y): pow of
//                                               two tensors, and pow(tensor,
//                                               number) with the number's
//                                               double bits in y
//   uint64_t xe_atan2(uint64_t y, uint64_t x)   concord_atan2_f64(y, x)
//
// Why: see xmath64.glsl. The body reuses xmath64.glsl's double-double exp
// and two-sum, xmath64_log.glsl's ln2 split and the log series'
// coefficients, and xmath32_pow.glsl's integer test of y and atan(k/16)
// table (xp_int_kind, XP_ATAN_HI / _LO, XP_COEF's atan series). Every NaN
// result is XD_NAN.
//
// Include after xf32.glsl, xf64.glsl, xmath64.glsl, xmath64_log.glsl and
// xmath32_pow.glsl. Also valid C++ (tests/ops/binary/test_reproducible_vulkan_pow64.cpp
// checks it against the CPU).
// Example: `st64(dst, i, xe_pow(ld64(a, i), ld64(b, i)));`
#ifndef CONCORD_XMATH64_POW_GLSL
#define CONCORD_XMATH64_POW_GLSL

#define CONCORD_NUM_BITS 1
#include "backend/common/canon_num.h"
#undef CN_E
#define CN_E(name) xe_##name
#define CN_POW_INT_KIND xp_int_kind
#define CN_POW_TRUNC_INT xp_trunc_int
#define CN_POW_HORNER xp_horner
#define CN_POW_ATAN_HI XP_ATAN_HI
#define CN_POW_ATAN_LO XP_ATAN_LO
#include "backend/common/canon_pow_f64.inc"
#undef CN_POW_INT_KIND
#undef CN_POW_TRUNC_INT
#undef CN_POW_HORNER
#undef CN_POW_ATAN_HI
#undef CN_POW_ATAN_LO
#undef CN_E
#undef CONCORD_NUM_BITS

#endif
