// xmath.cl — float32 math of the reproducible mode without float64: the
// Vulkan backend's integer-only headers (common/xf32.glsl, xf64.glsl: float32
// and float64 on their bits; xmath32*.glsl: the CPU's float64-inside float32
// algorithms, step by step) compiled as OpenCL C. They give the CPU's bits for
// log, tanh, sigmoid, expm1, log1p, log2, erf, gelu, sin, cos, tan, pow and
// atan2 on a device, or a no-fp64 profile, without float64; with float64 the
// programs run the same algorithms in hardware double (cpu_math.cl, common/).
//
// The headers are GLSL written so that C++ (the tests) and OpenCL C can build
// them too. OpenCL C lacks only GLSL's constructor-style casts, its fixed-width
// type names and findMSB, given here. elementwise.cl, pow.cl and reduce.cl
// #include this file; backend.cpp's program() expands the #include lines
// from the embedded sources.
//
//   xm_<fn>(uint bits) -> uint bits        xm_pow(uint x, ulong double_bits_of_e)
//   xm_atan2(uint y, uint x)               xd_from_f32(uint) -> ulong
//   with XMATH_LOG64 defined first: xe_log(ulong) -> ulong (float64 log)
//   with XMATH_OPS: xs_<op>_f32 of the shared ops (common/xops.glsl)
#if !CONCORD_HAS_FP64
typedef ulong uint64_t;
typedef long int64_t;
// Function-like macros: `uint x` stays the type, `uint(x)` becomes a C cast.
#define uint(x) ((uint)(x))
#define int(x) ((int)(x))
#define uint64_t(x) ((ulong)(x))
#define int64_t(x) ((long)(x))
#define bool(x) ((bool)(x))
static inline int findMSB(uint v) { return v == 0u ? -1 : 31 - (int)clz(v); }
// GLSL's struct names are type names; C's need these.
typedef struct XfNum XfNum;
#include "xf32.glsl"
#include "xf64.glsl"
#include "xmath32.glsl"
#include "xmath32_erf.glsl"
#include "xmath32_pow.glsl"
#include "xmath32_trig.glsl"
#if XMATH_LOG64 || XMATH_OPS
// The float64 log on bits (norms_xd.cl, for slogdet, defines XMATH_LOG64;
// elementwise.cl's shared ops, XMATH_OPS, need exp and log1p).
#include "xmath64.glsl"
#include "xmath64_log.glsl"
#endif
#if XMATH_OPS
#include "xops.glsl"
#endif
#undef uint
#undef int
#undef uint64_t
#undef int64_t
#undef bool
// float32 in, float32 out.
#define XM1(fn, x) as_float(xm_##fn(as_uint((float)(x))))
#endif
