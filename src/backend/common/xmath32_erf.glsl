// backend/common/xmath32_erf.glsl — the reproducible mode's float32 erf and gelu on
// float32 BITS, with integer operations only: float64 inside through
// xf64.glsl.
//
//   uint xm_erf(uint x)       the mode's concord_erf_f32 (backend/common/canon_explog_erf.h)
//   uint xm_gelu(uint x)      concord_gelu_f32: x/2 * erfc(-x/sqrt2)
//   uint64_t xm_erf_d(uint64_t x), xm_erfc_d(uint64_t z)   the float64 ones inside
//
// Why: the CPU computes both in float64 (a series below 2, a continued
// fraction above, e^(-x^2) from an fma split) and rounds once. Here the same
// body, canon_explog_erf.inc, runs on canon_num.h's bits kit: every double
// operation is an xd_* call in the same order (a * b + c as two roundings,
// the fma as xd_fma, sqrt as xd_sqrt), so the result is the CPU's bits
// whatever the device does with subnormals. Every NaN result is XF_NAN (the
// mode's canonical NaN).
//
// Include after xmath32.glsl (xm_expm1_small, the XM_* constants). Also
// valid C++ (tests/test_reproducible_vulkan_erf.cpp checks it against the CPU).
// Example: `XSTORE(f32)(dst, i, xm_gelu(XLOAD(f32)(src, i)));`
#ifndef CONCORD_XMATH32_ERF_GLSL
#define CONCORD_XMATH32_ERF_GLSL

// canon_explog_erf.h's one body (canon_explog_erf.inc) on the doubles' bits,
// after xmath32.glsl's instantiation of canon_explog.inc (xm_expm1_small).
#define CONCORD_NUM_BITS 1
#include "backend/common/canon_num.h"
#define CN_XL_EXPM1_SMALL xm_expm1_small
#define CN_ERF_COEF XM_ERF_COEF
#define CN_ERF_EXP_NEG xm_erf_exp_neg
#define CN_ERF_GAUSS xm_erf_gauss
#define CN_ERF_SERIES xm_erf_series
#define CN_ERF_FRACTION xm_erf_fraction
#define CN_ERFC_D xm_erfc_d
#define CN_ERF_D xm_erf_d
#define CN_ERF_F32 xm_erf
#define CN_GELU_F32 xm_gelu
#include "backend/common/canon_explog_erf.inc"
#undef CN_XL_EXPM1_SMALL
#undef CN_ERF_COEF
#undef CN_ERF_EXP_NEG
#undef CN_ERF_GAUSS
#undef CN_ERF_SERIES
#undef CN_ERF_FRACTION
#undef CN_ERFC_D
#undef CN_ERF_D
#undef CN_ERF_F32
#undef CN_GELU_F32
#undef CONCORD_NUM_BITS

#endif
