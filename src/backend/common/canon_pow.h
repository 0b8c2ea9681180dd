/* float32 pow and atan2 with the same bits on every device (the reproducible
 * mode, issue 18); float16 and bfloat16 go through float32.
 *
 * Written once (canon_pow.inc, over canon_num.h's arithmetic kit): this header
 * instantiates it in native double for the CPU (cpu/binary.cpp, cpu/unary.cpp)
 * and OpenCL C with float64 (prepended to every program); xmath32_pow.glsl on
 * the doubles' bits for Vulkan's "_x" variants and OpenCL without float64.
 *
 *   float concord_pow_f32(float x, double y)     pow(x, y) rounded once to
 *       float; y is a float32 operand widened (pow of two tensors) or the full
 *       double exponent of pow(tensor, number). |error| < 0.5 ULP + 2^-20 ULP.
 *   float concord_atan2_f32(float y, float x)    atan2(y, x), likewise.
 *
 * pow: log2|x| in double-double from (m-1)/(m+1) (relative error < 2^-57),
 * t = y log2|x| in double-double (fma), 2^t by a Taylor polynomial on
 * |frac| <= 1/2 and an exact power-of-two scale; the result is a double with
 * relative error < 2^-50 rounded once, so exact powers (pow(3, 2) = 9) stay
 * exact. Special cases are C99's (Annex F), which the C library gives:
 *   pow(x, ±0) = 1 and pow(1, y) = 1, even for NaN; otherwise NaN in, NaN out;
 *   pow(-1, ±inf) = 1; pow(x, ±inf) = +0 or +inf by |x| < 1 and the sign of y;
 *   pow(±0, y): y < 0 gives ±inf for odd integers y, else +inf; y > 0 gives ±0
 *   for odd integers, else +0; pow(±inf, y) likewise with the roles swapped;
 *   x < 0 finite: (-1)^y |x|^y for integer y, NaN for non-integer y.
 * atan2: the smaller of |x|, |y| over the larger, atan of it by a table of
 * atan(k/16) and a degree-13 series, then the octant's pi/2 or pi added in
 * double. atan2(±0, +0) = ±0, atan2(±0, -0) = ±pi, atan2(±0, x<0) = ±pi,
 * atan2(y≠0, ±0) = ±pi/2, atan2(±inf, ±inf) = ±pi/4 or ±3pi/4, atan2(y, +inf)
 * = ±0, atan2(y, -inf) = ±pi for finite y; NaN in, NaN out.
 * Example (C++): concord_pow_f32(-8.0f, 1.0 / 3) is NaN; concord_pow_f32(-2.0f, 3.0) == -8.0f.
 */
#ifndef CONCORD_CANON_POW_H
#define CONCORD_CANON_POW_H

#ifndef __OPENCL_VERSION__
#include "backend/common/canon_base.h"
#endif

#if CONCORD_CANON_F64
#define CONCORD_NUM_BITS 0
#include "backend/common/canon_num.h"
#define CN_POW_COEF concord_pow_coef
#define CN_POW_ATAN_HI concord_atan_hi
#define CN_POW_ATAN_LO concord_atan_lo
#define CN_POW_HORNER concord_pow_horner
#define CN_POW_DD concord_dd
#define CN_POW_LOG2_DD concord_log2_dd
#define CN_POW_EXP2_DD concord_exp2_dd
#define CN_POW_INT_KIND concord_pow_int_kind
#define CN_POW_TRUNC_INT concord_pow_trunc_int
#define CN_POW_ATAN01 concord_atan01
#define CN_POW_F32 concord_pow_f32
#define CN_ATAN2_F32 concord_atan2_f32
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
#endif /* CONCORD_CANON_F64 */

#endif /* CONCORD_CANON_POW_H */
