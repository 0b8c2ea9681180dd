// backend/common/xmath64_erf.glsl — the reproducible mode's float64 erf and gelu on
// float64 BITS, with integer operations only: the CPU's body,
// canon_f64_erf.inc, over canon_num.h's kit on bits.
//
//   uint64_t xe_erf(uint64_t x)    concord_erf_f64
//   uint64_t xe_gelu(uint64_t x)   concord_gelu_f64
//   uint64_t xe_erf_gelu(bool gelu, uint64_t x)   either (one inlined copy)
//
// Why: see xmath64.glsl, whose reduction (xe_exp_reduce), 2^(j/64) table,
// Taylor coefficients (xe_horner), two-sum, pair and scaling this file uses.
// Every NaN result is XD_NAN.
//
// Include after xf32.glsl, xf64.glsl and xmath64.glsl. Also valid C++
// (tests/ops/unary/test_reproducible_vulkan_erf64.cpp checks it against the CPU).
#ifndef CONCORD_XMATH64_ERF_GLSL
#define CONCORD_XMATH64_ERF_GLSL

#define CONCORD_NUM_BITS 1
#include "backend/common/canon_num.h"
#undef CN_E
#define CN_E(name) xe_##name
#include "backend/common/canon_f64_erf.inc"
#undef CN_E
#undef CONCORD_NUM_BITS

uint64_t xe_erf(uint64_t x) { return xe_erf_gelu(false, x); }
uint64_t xe_gelu(uint64_t x) { return xe_erf_gelu(true, x); }

#endif
