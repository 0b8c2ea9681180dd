// backend/common/xmath64_trig.glsl — the reproducible mode's float64 sin, cos and tan
// on float64 BITS, with integer operations only: the CPU's body,
// canon_trig_f64.inc, over canon_num.h's kit on bits (the Payne-Hanek
// reduction is integer code in both).
//
//   uint64_t xe_sin(uint64_t x)   concord_sin_f64
//   uint64_t xe_cos(uint64_t x)   concord_cos_f64
//   uint64_t xe_tan(uint64_t x)   concord_tan_f64
//
// Why: see xmath64.glsl. The Taylor coefficients and pi/2's parts are the
// float32 family's (canon_trig_const.inc); two-sum and 2^k are xmath64.glsl's.
// Every NaN result is XD_NAN.
//
// Include after xf32.glsl, xf64.glsl and xmath64.glsl.
// Also valid C++ (tests/ops/unary/test_reproducible_vulkan_trig64.cpp).
#ifndef CONCORD_XMATH64_TRIG_GLSL
#define CONCORD_XMATH64_TRIG_GLSL

#define CONCORD_NUM_BITS 1
#include "backend/common/canon_num.h"
#undef CN_E
#define CN_E(name) xe_##name
#include "backend/common/canon_trig_f64.inc"
#undef CN_E
#undef CONCORD_NUM_BITS

uint64_t xe_sin(uint64_t x) { return xe_trig(0, x); }
uint64_t xe_cos(uint64_t x) { return xe_trig(1, x); }
uint64_t xe_tan(uint64_t x) { return xe_trig(2, x); }

#endif
