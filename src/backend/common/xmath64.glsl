// backend/common/xmath64.glsl — the reproducible mode's float64 exp, expm1, tanh and
// sigmoid on float64 BITS (a uint64_t), with integer operations only: the
// CPU's body, canon_f64.inc, over canon_num.h's kit on bits (every double
// operation an xd_* call of xf64.glsl, every branch a compare on bits). xmath64_log.glsl holds log, log1p and log2;
// xmath64_erf.glsl erf and gelu (both use this file's pieces).
//
//   uint64_t xe_exp(uint64_t x)      concord_exp_f64
//   uint64_t xe_expm1(uint64_t x)    concord_expm1_f64
//   uint64_t xe_tanh(uint64_t x)     concord_tanh_f64
//   uint64_t xe_sigmoid(uint64_t x)  concord_sigmoid_f64
//
// Why: Vulkan promises no kept float64 subnormals, no correctly rounded
// double division and no fused fma (lavapipe has none of them), so the
// header's double-double algorithm cannot run on the device's doubles and
// keep the CPU's bits; on bits it does, on any device (and on one without
// shaderFloat64 too). A NaN result is always XD_NAN, the mode's canonical
// NaN. Where the header computes a value it then discards (x + x for a NaN,
// x * 0x1p1023 past overflow) the result is returned directly.
//
// Include after xf32.glsl and xf64.glsl. Also valid C++
// (tests/ops/unary/test_reproducible_vulkan_math64.cpp checks it against the CPU).
// Example: `st64(dst, i, xe_exp(ld64(src, i)));`
#ifndef CONCORD_XMATH64_GLSL
#define CONCORD_XMATH64_GLSL

// float64 1, as OpenCL's norms_xd.cl names it.
#define XE_ONE CONCORD_XE_ONE

#define CONCORD_NUM_BITS 1
#include "backend/common/canon_num.h"
#undef CN_E
#define CN_E(name) xe_##name
#include "backend/common/canon_f64.inc"
#undef CN_E
#undef CONCORD_NUM_BITS

#endif
