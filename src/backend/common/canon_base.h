/* The portability layer of the shared kernels in src/backend/common.
 *
 * Every header of src/backend/common is compiled twice: as C++ by the CPU
 * kernels and as OpenCL C 1.2 (the build embeds them and prepends them to
 * every OpenCL program, in file-name order, so this one comes first). Code in
 * them uses only the common subset of C: no templates, no namespaces, no
 * library calls, concord_-prefixed names, and floating-point code restricted
 * to + - * /, sqrt and fma (all correctly rounded on both sides; OpenCL
 * programs are built with -cl-fp32-correctly-rounded-divide-sqrt where the
 * device supports it) with contraction off, so both compilers give the same
 * bits.
 *
 *   concord_u32 / u64 / i32 / i64     fixed-width integers
 *   CONCORD_CANON_F64                 1 where double exists (always in C++)
 *   CONCORD_NO_CONTRACT               first statement of a function body that
 *                                     must not contract a*b+c into an fma
 *   concord_clz32/64(x)               leading zeros (x != 0)
 *   CONCORD_SQRT_F32/F64(x)           IEEE square root
 *   CONCORD_FMA_F32/F64(a, b, c)      IEEE fused multiply-add (one rounding)
 *   concord_f32_bits(x) / concord_bits_f32(u)     float <-> its bits
 *   concord_f64_bits(x) / concord_bits_f64(u)     double <-> its bits
 *   CONCORD_TABLE                     qualifier of a file-scope constant table:
 *                                     CONCORD_TABLE double t[4] = {...};
 */
#ifndef CONCORD_CANON_BASE_H
#define CONCORD_CANON_BASE_H

#ifdef __OPENCL_VERSION__
typedef uint concord_u32;
typedef ulong concord_u64;
typedef int concord_i32;
typedef long concord_i64;
#if defined(CONCORD_HAS_FP64) && CONCORD_HAS_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define CONCORD_CANON_F64 1
#else
#define CONCORD_CANON_F64 0
#endif
/* Scoped to each function body, so other kernels keep their setting. */
#define CONCORD_NO_CONTRACT _Pragma("OPENCL FP_CONTRACT OFF")
static inline int concord_clz32(concord_u32 x) { return (int)clz(x); }
static inline int concord_clz64(concord_u64 x) { return (int)clz(x); }
#define CONCORD_SQRT_F32(x) sqrt(x)
#define CONCORD_SQRT_F64(x) sqrt(x)
#define CONCORD_FMA_F32(a, b, c) fma(a, b, c)
#define CONCORD_FMA_F64(a, b, c) fma(a, b, c)
#define CONCORD_TABLE __constant
static inline concord_u32 concord_f32_bits(float x) { return as_uint(x); }
static inline float concord_bits_f32(concord_u32 u) { return as_float(u); }
#if CONCORD_CANON_F64
static inline concord_u64 concord_f64_bits(double x) { return as_ulong(x); }
static inline double concord_bits_f64(concord_u64 u) { return as_double(u); }
#endif
#else
#include <stdint.h>
#include <string.h>
typedef uint32_t concord_u32;
typedef uint64_t concord_u64;
typedef int32_t concord_i32;
typedef int64_t concord_i64;
#define CONCORD_CANON_F64 1
/* The C++ side is built with -ffp-contract=off. */
#define CONCORD_NO_CONTRACT
static inline int concord_clz32(concord_u32 x) { return __builtin_clz(x); }
static inline int concord_clz64(concord_u64 x) { return __builtin_clzll(x); }
/* IEEE sqrt and fma without <math.h> (glibc's fma is exact without FMA hardware too). */
#define CONCORD_SQRT_F32(x) __builtin_sqrtf(x)
#define CONCORD_SQRT_F64(x) __builtin_sqrt(x)
#define CONCORD_FMA_F32(a, b, c) __builtin_fmaf(a, b, c)
#define CONCORD_FMA_F64(a, b, c) __builtin_fma(a, b, c)
#define CONCORD_TABLE static const
static inline concord_u32 concord_f32_bits(float x) { concord_u32 u; memcpy(&u, &x, 4); return u; }
static inline float concord_bits_f32(concord_u32 u) { float x; memcpy(&x, &u, 4); return x; }
static inline concord_u64 concord_f64_bits(double x) { concord_u64 u; memcpy(&u, &x, 8); return u; }
static inline double concord_bits_f64(concord_u64 u) { double x; memcpy(&x, &u, 8); return x; }
#endif

#endif /* CONCORD_CANON_BASE_H */
