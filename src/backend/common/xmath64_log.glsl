// backend/common/xmath64_log.glsl — the reproducible mode's float64 log, log1p and
// log2 on float64 BITS, with integer operations only: the CPU's body,
// canon_f64_log.inc, over canon_num.h's kit on bits.
//
//   uint64_t xe_log(uint64_t x)     concord_log_f64
//   uint64_t xe_log1p(uint64_t x)   concord_log1p_f64
//   uint64_t xe_log2(uint64_t x)    concord_log2_f64
//
// Why: see xmath64.glsl (whose two-sum, Horner table and pair
// this file uses). Every NaN result is XD_NAN.
//
// Include after xf32.glsl, xf64.glsl and xmath64.glsl. Also valid C++
// (tests/ops/unary/test_reproducible_vulkan_math64.cpp).
#ifndef CONCORD_XMATH64_LOG_GLSL
#define CONCORD_XMATH64_LOG_GLSL

#define CONCORD_NUM_BITS 1
#include "backend/common/canon_num.h"
#undef CN_E
#define CN_E(name) xe_##name
#include "backend/common/canon_f64_log.inc"
#undef CN_E
#undef CONCORD_NUM_BITS

uint64_t xe_log(uint64_t x) { return xe_logs(0, x); }
uint64_t xe_log1p(uint64_t x) { return xe_logs(1, x); }
uint64_t xe_log2(uint64_t x) { return xe_logs(2, x); }

#endif
