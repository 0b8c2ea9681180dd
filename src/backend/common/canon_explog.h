/* float32 expm1, log1p and log2 of the reproducible mode, written once
 * (canon_explog.inc, over canon_num.h's arithmetic kit) for the CPU (C++),
 * OpenCL C and, on the doubles' bits, Vulkan and OpenCL without float64
 * (xmath32.glsl's xm_expm1, xm_log1p, xm_log2: the same body).
 *
 *   float concord_expm1_f32(float x)    e^x - 1
 *   float concord_log1p_f32(float x)    ln(1 + x)
 *   float concord_log2_f32(float x)     log2(x)
 *
 * Each evaluates in double with + - * / only and rounds once to float, so the
 * bits are the same on every device that has double. The double results are
 * good to a few 1e-16 relative (the polynomials are truncated Taylor series
 * whose first dropped term is below 2e-17 on the reduced range), so the float
 * result is the correctly rounded one except for inputs within ~1e-8 ULP of a
 * rounding boundary, and never more than 1 ULP off. Halves go through these
 * (widened to float, rounded once on store).
 *
 * Special values follow the C library:
 *   expm1: +-0 -> +-0, +inf -> +inf, -inf -> -1, x > 88.72 -> +inf,
 *          x < -17.33 -> -1, subnormal x -> x
 *   log1p: +-0 -> +-0, -1 -> -inf, x < -1 (and -inf) -> NaN, +inf -> +inf,
 *          subnormal x -> x
 *   log2:  +-0 -> -inf, x < 0 (and -inf) -> NaN, +inf -> +inf, 2^k -> k exactly
 *   NaN in, NaN out (the mode canonicalises the payload).
 *
 * Example: concord_expm1_f32(1e-10f) == 1e-10f; concord_log2_f32(8.0f) == 3.0f.
 * Needs double: under OpenCL only where CONCORD_CANON_F64 is 1.
 */
#ifndef CONCORD_CANON_EXPLOG_H
#define CONCORD_CANON_EXPLOG_H

#ifndef __OPENCL_VERSION__
#include "backend/common/canon_base.h"
#endif

#if CONCORD_CANON_F64
#define CONCORD_NUM_BITS 0
#include "backend/common/canon_num.h"
#define CN_XL_COEF concord_xl_coef
#define CN_XL_HORNER concord_xl_horner
#define CN_XL_EXPM1_SMALL concord_xl_expm1_small
#define CN_XL_ATANH2_POLY concord_xl_atanh2_poly
#define CN_XL_LOGRED concord_xl_logred
#define CN_XL_REDUCE_LOG concord_xl_reduce_log
#define CN_XL_EXPM1 concord_expm1_f32
#define CN_XL_LOG1P concord_log1p_f32
#define CN_XL_LOG2 concord_log2_f32
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
#endif /* CONCORD_CANON_F64 */

#endif /* CONCORD_CANON_EXPLOG_H */
