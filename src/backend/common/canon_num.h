/* The arithmetic kit of the shared algorithms: one algorithm body
 * (a common/<name>.inc) written over these macros compiles to native float/double
 * arithmetic (the CPU; OpenCL with float64) or to the integer-only
 * arithmetic on bits of xf32.glsl / xf64.glsl (Vulkan's "_x" variants;
 * OpenCL without float64; the C++ tests of both), with the same operations
 * in the same order, hence the same bits.
 *
 * Select the kit before including a body: CONCORD_NUM_BITS 1 (bits; after
 * xf32.glsl and xf64.glsl) or 0 (native; needs CONCORD_CANON_F64: C++,
 * OpenCL C with float64, and GLSL on the device's doubles, Vulkan's
 * default-mode float64 math). Each
 * body names its functions through macros its wrapper defines, and undefines
 * what it defined, so one translation unit may hold both instantiations.
 *
 *   CN_F / CN_D             a float32 / float64 value (float, double; or uint,
 *                           uint64_t bits)
 *   CN_K(bits)              a float64 constant, written as its bits
 *   CN_ADD/SUB/MUL/DIV(a, b)  IEEE double + - * / (two roundings for a*b+c:
 *                           contraction is off on every side)
 *   CN_FMA(a, b, c), CN_SQRT(a)     IEEE fma (one rounding) and square root
 *   CN_LT(a, b)             a < b (false with a NaN)
 *   CN_NEG(a)               -a
 *   CN_D_ISNAN(d), CN_D_NAN(d), CN_D_SIGNBIT(d)  NaN test, the NaN result
 *                           for d, the sign bit (1 for -0)
 *   CN_D_INVALID(d)         the NaN result of an invalid operation on d
 *                           ((d - d) / (d - d) natively, the canonical NaN on bits)
 *   CN_D_FROM_F(x), CN_F_FROM_D(d)  float32 <-> float64 (exact / nearest even)
 *   CN_D_FROM_INT(k)        an int, exactly
 *   CN_D_FROM_U53(m)        a 64-bit unsigned below 2^53, exactly
 *   CN_D_BITS(d), CN_D_OF_BITS(u)   the bits of a double and back
 *   CN_F_ISNAN(x), CN_F_ISZERO(x)  float32 NaN / +-0 tests
 *   CN_F_NAN(x)             the NaN result for input x
 *                           (x + x natively, the canonical NaN on bits)
 *   CN_F_LT(a, b), CN_F_EQ_BITS(x, u)  float32 compare; x has exactly the bits u
 *   CN_F_NEG(x)             float32 -x (the canonical NaN for a NaN on bits)
 *   CN_F_OF_BITS(u), CN_F_BITS(x)   a float32 from its bits, and its bits
 *   CN_F_NONFINITE(x), CN_F_INVALID(x)  inf or NaN; the NaN result of an
 *                           invalid operation on x (x - x natively, the
 *                           canonical NaN on bits)
 *
 * Example (a body):
 *   CONCORD_FN CN_F CN_TWICE(CN_F x) { return CN_F_FROM_D(CN_ADD(CN_D_FROM_F(x), CN_D_FROM_F(x))); }
 */
#ifndef CONCORD_CANON_NUM_H
#define CONCORD_CANON_NUM_H
#ifndef __OPENCL_VERSION__
#include "backend/common/canon_base.h"
#endif
#endif

#undef CN_F
#undef CN_D
#undef CN_K
#undef CN_ADD
#undef CN_SUB
#undef CN_MUL
#undef CN_DIV
#undef CN_LT
#undef CN_D_SIGNBIT
#undef CN_D_NAN
#undef CN_D_INVALID
#undef CN_D_ISNAN
#undef CN_SQRT
#undef CN_FMA
#undef CN_NEG
#undef CN_D_FROM_F
#undef CN_F_FROM_D
#undef CN_D_FROM_INT
#undef CN_D_FROM_U53
#undef CN_D_BITS
#undef CN_D_OF_BITS
#undef CN_F_ISNAN
#undef CN_F_ISZERO
#undef CN_F_NAN
#undef CN_F_LT
#undef CN_F_NEG
#undef CN_F_EQ_BITS
#undef CN_F_OF_BITS
#undef CN_F_BITS
#undef CN_F_NONFINITE
#undef CN_F_INVALID

#if CONCORD_NUM_BITS
#define CN_F uint
#define CN_D uint64_t
#define CN_K(bits) (bits)
#define CN_ADD(a, b) xd_add(a, b)
#define CN_SUB(a, b) xd_sub(a, b)
#define CN_MUL(a, b) xd_mul(a, b)
#define CN_DIV(a, b) xd_div(a, b)
#define CN_LT(a, b) xd_lt(a, b)
#define CN_FMA(a, b, c) xd_fma(a, b, c)
#define CN_SQRT(a) xd_sqrt(a)
#define CN_D_ISNAN(d) xd_isnan(d)
#define CN_D_NAN(d) XD_NAN
#define CN_D_INVALID(d) XD_NAN
#define CN_D_SIGNBIT(d) (xd_sign(d) ? 1 : 0)
#define CN_NEG(a) xd_neg(a)
#define CN_D_FROM_F(x) xd_from_f32(x)
#define CN_F_FROM_D(d) xd_to_f32(d)
#define CN_D_FROM_INT(k) xd_from_int64(int64_t(k))
#define CN_D_FROM_U53(m) xd_from_int64(int64_t(m))
#define CN_D_BITS(d) (d)
#define CN_D_OF_BITS(u) (u)
#define CN_F_ISNAN(x) xf_isnan(x)
#define CN_F_ISZERO(x) xf_iszero(x)
#define CN_F_NAN(x) XF_NAN
#define CN_F_LT(a, b) xf_lt(a, b)
#define CN_F_NEG(x) xf_neg(x)
#define CN_F_EQ_BITS(x, u) ((x) == (u))
#define CN_F_OF_BITS(u) (u)
#define CN_F_BITS(x) (x)
#define CN_F_NONFINITE(x) (((x) & 0x7f800000u) == 0x7f800000u)
#define CN_F_INVALID(x) XF_NAN
#else
#define CN_F float
#define CN_D double
#define CN_K(bits) concord_bits_f64(bits)
#if CONCORD_GLSL
#define CN_ADD(a, b) concord_glsl_add(a, b)
#define CN_SUB(a, b) concord_glsl_sub(a, b)
#define CN_MUL(a, b) concord_glsl_mul(a, b)
#define CN_DIV(a, b) concord_glsl_div(a, b)
#else
#define CN_ADD(a, b) ((a) + (b))
#define CN_SUB(a, b) ((a) - (b))
#define CN_MUL(a, b) ((a) * (b))
#define CN_DIV(a, b) ((a) / (b))
#endif
#define CN_LT(a, b) ((a) < (b))
#define CN_FMA(a, b, c) CONCORD_FMA_F64(a, b, c)
#define CN_SQRT(a) CONCORD_SQRT_F64(a)
#define CN_D_ISNAN(d) ((d) != (d))
#define CN_D_NAN(d) ((d) + (d))
#define CN_D_INVALID(d) (((d) - (d)) / ((d) - (d)))
#define CN_D_SIGNBIT(d) CONCORD_TO_I32(concord_f64_bits(d) >> 63)
#define CN_NEG(a) (-(a))
#define CN_D_FROM_F(x) CONCORD_TO_F64(x)
#define CN_F_FROM_D(d) CONCORD_TO_F32(d)
#define CN_D_FROM_INT(k) CONCORD_TO_F64(k)
#define CN_D_FROM_U53(m) CONCORD_TO_F64(m)
#define CN_D_BITS(d) concord_f64_bits(d)
#define CN_D_OF_BITS(u) concord_bits_f64(u)
#define CN_F_ISNAN(x) ((x) != (x))
#define CN_F_ISZERO(x) ((x) == 0.0f)
#define CN_F_NAN(x) ((x) + (x))
#define CN_F_LT(a, b) ((a) < (b))
#define CN_F_NEG(x) (-(x))
#define CN_F_EQ_BITS(x, u) (concord_f32_bits(x) == (u))
#define CN_F_OF_BITS(u) concord_bits_f32(u)
#define CN_F_BITS(x) concord_f32_bits(x)
#define CN_F_NONFINITE(x) (!((x) - (x) == 0.0f))
#define CN_F_INVALID(x) ((x) - (x))
#endif
