/* The portability layer of the shared kernels in src/backend/common.
 *
 * Every header of src/backend/common is compiled as C++ by the CPU kernels
 * and as OpenCL C 1.2 (the build embeds them and prepends them to every
 * OpenCL program, in file-name order, so this one comes first); the ones a
 * Vulkan shader includes (philox.h, the xmath*.glsl on bits, the float64
 * canon_*.h of the default mode's math64.glsl) also as GLSL 4.60 (glslc -I
 * src, with GL_GOOGLE_include_directive). Code in them uses only the common
 * subset of C: no templates, no namespaces, no library calls, concord_-prefixed names,
 * and floating-point code restricted to + - * /, sqrt and fma (all correctly
 * rounded on both sides; OpenCL programs are built with
 * -cl-fp32-correctly-rounded-divide-sqrt where the device supports it) with
 * contraction off, so every compiler gives the same bits. Code also built as
 * GLSL uses only the part of that subset GLSL shares with C: conversions
 * through the CONCORD_TO_U32(x)-style macros (GLSL has no C casts), no
 * pointers, structs declared with CONCORD_STRUCT, conditions that are bool
 * ((x & 1u) != 0u), float constants written as bits (GLSL has no hex float
 * literals and reads 0.1 as a float), every float local CONCORD_PRECISE
 * (GLSL's `precise`: no contraction), and / and sqrt only where the header
 * gives them an integer spelling on GLSL (Vulkan allows 2.5 ULP for both).
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
 *   CONCORD_TABLE_U64(name, n, LIST)  a file-scope table of n 64-bit constants,
 *                                     LIST a macro of the comma-separated values
 *   CONCORD_TABLE_U32(name, n, LIST)  the same of 32-bit constants
 *   CONCORD_FN                        `static inline` (nothing in GLSL)
 *   CONCORD_PRECISE                   GLSL's `precise` (nothing elsewhere)
 *   CONCORD_STRUCT(name) { ... };     a struct usable as `name` in every language
 *   CONCORD_TO_U32/U64/I32/I64/F32/F64(x)  value conversions: (T)(x) or T(x)
 *   CONCORD_GLSL                      1 when compiled as GLSL
 *   concord_glsl_add/sub/mul/div/fma  GLSL on doubles only: the native kit's
 *                                     operations, `precise`, fma exact-product
 *
 * Example (valid in all three languages):
 *   CONCORD_FN float concord_half_of(concord_u32 k) {
 *     CONCORD_NO_CONTRACT
 *     CONCORD_PRECISE float h = CONCORD_TO_F32(k) * concord_bits_f32(0x3f000000u);
 *     return h;
 *   }
 */
#ifndef CONCORD_CANON_BASE_H
#define CONCORD_CANON_BASE_H

#if defined(VULKAN) && !defined(__cplusplus) && !defined(__OPENCL_VERSION__)
/* GLSL (glslc defines VULKAN): the shader has included common.glsl, which
 * enables 64-bit integers; CONCORD_F64 (the variant's define) says whether
 * the device's double may be used. */
#define CONCORD_GLSL 1
#define concord_u32 uint
#define concord_u64 uint64_t
#define concord_i32 int
#define concord_i64 int64_t
#if defined(CONCORD_F64) && CONCORD_F64
#define CONCORD_CANON_F64 1
#else
#define CONCORD_CANON_F64 0
#endif
#define CONCORD_NO_CONTRACT
#define CONCORD_FN
#define CONCORD_PRECISE precise
#define CONCORD_UNUSED(x)
#define CONCORD_STRUCT(name) struct name
#define CONCORD_TO_U32(x) uint(x)
#define CONCORD_TO_U64(x) uint64_t(x)
#define CONCORD_TO_I32(x) int(x)
#define CONCORD_TO_I64(x) int64_t(x)
#define CONCORD_TO_F32(x) float(x)
#define CONCORD_TO_F64(x) double(x)
#define CONCORD_TABLE const
#define CONCORD_TABLE_U64(name, n, list) const uint64_t name[n] = uint64_t[n](list)
#define CONCORD_TABLE_U32(name, n, list) const uint name[n] = uint[n](list)
int concord_clz32(uint x) { return 31 - findMSB(x); }
int concord_clz64(uint64_t x) {
  const uint hi = uint(x >> 32);
  return hi != 0u ? 31 - findMSB(hi) : 63 - findMSB(uint(x));
}
#define concord_f32_bits(x) floatBitsToUint(x)
#define concord_bits_f32(u) uintBitsToFloat(u)
#if CONCORD_CANON_F64
#define concord_f64_bits(x) doubleBitsToUint64(x)
#define concord_bits_f64(u) uint64BitsToDouble(u)
/* Vulkan allows an unfused fma (lavapipe's double fma is), and the bodies
 * need a*b's exact error from it: Dekker's product on Veltkamp splits (every
 * step `precise`, so no driver fuses it; an operand past 2^995 scaled by
 * 2^-28 first so the split cannot overflow, the error scaled back), then
 * a*b + c two-summed and rounded once. Exact where the bodies rely on it
 * (fma(a, b, -p) with p = a*b rounded; a remainder that is representable),
 * within an ULP elsewhere. sqrt is the device's (2.5 ULP allowed), which the
 * default mode's error models absorb; the reproducible mode computes on bits
 * instead. */
void concord_glsl_split(double s, out double h, out double l) {
  precise double c = 134217729.0lf * s; /* 2^27 + 1 */
  precise double hh = c - (c - s);
  precise double ll = s - hh;
  h = hh;
  l = ll;
}
double concord_glsl_fma(double a, double b, double c) {
  const double lim = uint64BitsToDouble(0x7e20000000000000ul); /* 2^995 */
  const double down = uint64BitsToDouble(0x3e30000000000000ul), up = uint64BitsToDouble(0x41b0000000000000ul);
  const bool ba = abs(a) > lim, bb = abs(b) > lim;
  precise double sa = ba ? a * down : a;
  precise double sb = bb ? b * down : b;
  double ah, al, bh, bl;
  concord_glsl_split(sa, ah, al);
  concord_glsl_split(sb, bh, bl);
  precise double p = sa * sb;
  precise double e = (((ah * bh - p) + ah * bl) + al * bh) + al * bl;
  precise double pe = e * ((ba ? up : 1.0lf) * (bb ? up : 1.0lf));
  precise double q = a * b;
  precise double s = q + c;
  precise double bv = s - q;
  precise double t = (q - (s - bv)) + (c - bv);
  precise double r = s + (t + pe);
  return r;
}
#define CONCORD_FMA_F64(a, b, c) concord_glsl_fma(a, b, c)
/* The native kit's double operations (canon_num.h) in GLSL: each result
 * `precise`, so no driver contracts, reassociates or simplifies them (a
 * two-sum's (a + b) - a is not b to a compiler allowed inexact algebra). */
double concord_glsl_add(double a, double b) { precise double r = a + b; return r; }
double concord_glsl_sub(double a, double b) { precise double r = a - b; return r; }
double concord_glsl_mul(double a, double b) { precise double r = a * b; return r; }
double concord_glsl_div(double a, double b) { precise double r = a / b; return r; }
#define CONCORD_SQRT_F64(x) sqrt(x)
#endif
#else
#define CONCORD_GLSL 0
#define CONCORD_TABLE_U64(name, n, list) CONCORD_TABLE concord_u64 name[n] = {list}
#define CONCORD_TABLE_U32(name, n, list) CONCORD_TABLE concord_u32 name[n] = {list}
#define CONCORD_FN static inline
#define CONCORD_PRECISE
#define CONCORD_UNUSED(x) (void)(x)
#define CONCORD_STRUCT(name) \
  typedef struct name name;  \
  struct name
#define CONCORD_TO_U32(x) ((concord_u32)(x))
#define CONCORD_TO_U64(x) ((concord_u64)(x))
#define CONCORD_TO_I32(x) ((concord_i32)(x))
#define CONCORD_TO_I64(x) ((concord_i64)(x))
#define CONCORD_TO_F32(x) ((float)(x))
#define CONCORD_TO_F64(x) ((double)(x))
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
#endif /* GLSL */

#endif /* CONCORD_CANON_BASE_H */
