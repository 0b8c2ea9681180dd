/* float32 sin, cos and tan with the same bits on every device (the
 * reproducible mode, issue 18); float16 and bfloat16 go through float32.
 *
 * Written once (canon_trig.inc, over canon_num.h's kit): compiled as C++
 * (cpu/unary.cpp, in the mode) and as OpenCL C 1.2 (prepended to every
 * program; elementwise.cl uses it where the device has float64), and on the
 * doubles' bits as xmath32_trig.glsl's xm_sin, xm_cos, xm_tan (Vulkan's "_x"
 * variants, OpenCL without float64). It keeps to canon_base.h's subset:
 * + - * /, integer and bit operations, no library calls, no contraction.
 *
 *   float concord_sin_f32(float x)    sin(x), |error| < 0.5 ULP + 2^-20 ULP
 *   float concord_cos_f32(float x)    cos(x), likewise
 *   float concord_tan_f32(float x)    tan(x), likewise
 *
 * Method: the argument is reduced to r = x - q pi/2, |r| <= pi/4, exactly for
 * every float32 (Payne-Hanek: the 24-bit significand times a 160-bit window of
 * the bits of 2/pi in integer arithmetic, which keeps at least 95 bits after
 * the binary point, more than the closest float32 to a multiple of pi/2 needs),
 * then r is rounded to double and the Taylor polynomials of sin and cos are
 * evaluated in double (relative error about 2^-52) and rounded once to float:
 * over every float32, within 0.5 ULP of the C library's double sin, cos, tan
 * (correctly rounded but for the reference's own double rounding).
 * Edge cases, as the C library: sin/tan(±0) = ±0, cos(±0) = 1, tiny x gives x
 * for sin and tan, ±inf and NaN give NaN.
 * Example (C++): concord_sin_f32(1e30f) == sinf(1e30f) (both -0.0646...).
 */
#ifndef CONCORD_CANON_TRIG_H
#define CONCORD_CANON_TRIG_H

#ifndef __OPENCL_VERSION__
#include "backend/common/canon_base.h"
#endif

#if CONCORD_CANON_F64
#define CONCORD_NUM_BITS 0
#include "backend/common/canon_num.h"
#define CN_TRIG_TWO_OVER_PI concord_two_over_pi
#define CN_TRIG_COEF concord_trig_coef
#define CN_TRIG_ARG concord_trig_arg
#define CN_TRIG_REDUCE concord_trig_reduce
#define CN_TRIG_HORNER concord_trig_horner
#define CN_SIN_POLY concord_sin_poly
#define CN_COS_POLY concord_cos_poly
#define CN_TRIG_ARG_OF concord_trig_arg_of
#define CN_SIN_F32 concord_sin_f32
#define CN_COS_F32 concord_cos_f32
#define CN_TAN_F32 concord_tan_f32
#include "backend/common/canon_trig.inc"
#undef CN_TRIG_TWO_OVER_PI
#undef CN_TRIG_COEF
#undef CN_TRIG_ARG
#undef CN_TRIG_REDUCE
#undef CN_TRIG_HORNER
#undef CN_SIN_POLY
#undef CN_COS_POLY
#undef CN_TRIG_ARG_OF
#undef CN_SIN_F32
#undef CN_COS_F32
#undef CN_TAN_F32
#undef CONCORD_NUM_BITS
#endif /* CONCORD_CANON_F64 */

#endif /* CONCORD_CANON_TRIG_H */
