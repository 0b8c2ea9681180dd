// backend/common/xmath32.glsl — the CPU's float32 log, tanh, sigmoid, expm1, log1p
// and log2 on float32 BITS, with integer operations only: float64 inside
// through xf64.glsl.
//
//   uint xm_log(uint x)       the CPU's log_f32 (cpu/vec_math.h, vec_impl_math.h Log)
//   uint xm_tanh(uint x)      vec_impl_math.h Tanh
//   uint xm_sigmoid(uint x)   vec_impl_math.h Sigmoid
//   uint xm_expm1(uint x), xm_log1p(uint x), xm_log2(uint x)
//                             the mode's concord_expm1_f32 / log1p / log2:
//                             canon_explog.h's body (canon_explog.inc) on bits
//   uint64_t xm_exp_d(uint64_t x), xm_expm1_d(uint64_t x)   the float64 helpers
//
// Why: the CPU computes these in float64 and rounds once (the last three as
// the reproducible mode's canon_explog.h). Vulkan promises no
// correctly rounded double division, no kept subnormals and no fused fma (and
// may contract a * b + c); here every double operation is an xd_* call in the
// CPU's order (the bodies canon_cpu_math.inc and canon_explog.inc, which
// OpenCL with float64 runs natively), so the result is the CPU's bits on any
// device. Every a * b + c is xd_add(xd_mul(a, b), c): the
// CPU's build does not contract either. Every NaN result is XF_NAN (the mode's
// canonical NaN), so a variant built on these needs no separate NaN pass.
//
// Include after common.glsl, dtypes.glsl, xf32.glsl and xf64.glsl. Also valid
// C++ (tests/ops/unary/test_reproducible_vulkan_math.cpp checks it against the CPU).
// Example: `XSTORE(f32)(dst, i, xm_log(XLOAD(f32)(src, i)));`
#ifndef CONCORD_XMATH32_GLSL
#define CONCORD_XMATH32_GLSL

// The CPU's log, tanh and sigmoid (and xm_exp_d, xm_expm1_d): the body
// OpenCL's kernels/cpu_math.cl runs natively, canon_cpu_math.inc, on bits.
#define CONCORD_NUM_BITS 1
#include "backend/common/canon_num.h"
#undef CN_C
#define CN_C(name) xm_##name
#include "backend/common/canon_cpu_math.inc"
#undef CN_C
#undef CONCORD_NUM_BITS

// The mode's expm1, log1p and log2 (uint xm_expm1(uint x), xm_log1p,
// xm_log2; also xm_expm1_small, which xmath32_erf.glsl uses): canon_explog.h's
// one body, canon_explog.inc, on the doubles' bits.
#define CONCORD_NUM_BITS 1
#include "backend/common/canon_num.h"
#define CN_XL_COEF xm_xl_coef
#define CN_XL_HORNER xm_xl_horner
#define CN_XL_EXPM1_SMALL xm_expm1_small
#define CN_XL_ATANH2_POLY xm_atanh2_poly
#define CN_XL_LOGRED XmLogReduced
#define CN_XL_REDUCE_LOG xm_reduce_log
#define CN_XL_EXPM1 xm_expm1
#define CN_XL_LOG1P xm_log1p
#define CN_XL_LOG2 xm_log2
#include "backend/common/canon_explog.inc"
#undef CN_XL_COEF
#undef CN_XL_HORNER
#undef CN_XL_EXPM1_SMALL
#undef CN_XL_ATANH2_POLY
#undef CN_XL_LOGRED
#undef CN_XL_REDUCE_LOG
#undef CN_XL_EXPM1
#undef CN_XL_LOG1P
#undef CN_XL_LOG2
#undef CONCORD_NUM_BITS

#endif
