// shaders/elementwise.comp — unary, binary and clamp kernels of one dtype.
//   -DT=X        the dtype suffix (dtypes.glsl); its compute class comes as
//                FLTW=32|64, INTW=32|64 [UNSIGNED=1] or BOOLEAN=1
//   -DKIND=k     1 unary: out (X) = f(x)        2 unary predicate: out (bool) = p(x)
//                3 binary: out (X) = f(a, b)    4 binary predicate: out (bool) = p(a, b)
//                5 clamp: out (X) = min(max(x, lo), hi), NaN propagating
//                6 pow(x, number) (floating X): lo = the double's bits, hi = the
//                  float32 pair (hi | lo << 32), op = flags (1 odd, 2 integer)
//   -DOP_<name>=<OpId>  every elementwise op's code (elementwise.cmake)
//   -DXF=1       the reproducible mode's variant of f16/bf16/f32 (kinds 1-6):
//                values are float32 bits in a uint, computed with integer
//                operations only (xf32.glsl, elementwise_xf.glsl)
//   -DXD=1       the same for f64: float64 bits in a uint64_t (xf64.glsl);
//                no double instruction
//   -DXMATH=1    with XF or XD and KIND=1: the transcendentals on bits
//                (xmath32.glsl, float64 inside; xmath64.glsl and
//                xmath64_log.glsl), a variant of their own so that the other
//                unary ops keep a small shader
//   -DXERF=1     with XMATH: erf and gelu instead (xmath32_erf.glsl, xmath64_erf.glsl)
//   -DXTRIG=1    with XMATH: sin, cos and tan instead (xmath32_trig.glsl, xmath64_trig.glsl)
//   -DXPOW=1     with XF or XD, KIND=3 or 6: pow and atan2 (xmath32_pow.glsl,
//                xmath64_pow.glsl); KIND=6 takes the exponent's double bits in lo
//   -DXOPS=1     with XF or XD and KIND=3: the shared ops (common/canon_ops.inc
//                through xops.glsl: hypot, logaddexp, copysign, nextafter),
//                the CPU's body on bits in both modes
// The op is args.op: one variant serves every op of its kind. The op
// functions (uop, upr, bop, bpr) come from the class's elementwise_*.glsl;
// an op without its case there gives NaN (floats) or 0 and is never claimed.
#version 460
#include "common.glsl"
#include "dtypes.glsl"
#include "geom.glsl"

#if defined(XF) || defined(XD)
#include "xf32.glsl"
#if defined(XD) || defined(XMATH) || defined(XPOW) || defined(XOPS)
#include "xf64.glsl"
#endif
#if defined(XD)
#if defined(XMATH) || defined(XPOW) || defined(XOPS)
#include "xmath64.glsl"
#endif
#if defined(XERF)
#include "xmath64_erf.glsl"
#elif defined(XTRIG)
#include "xmath64_trig.glsl"
#elif defined(XMATH) || defined(XPOW) || defined(XOPS)
#include "xmath64_log.glsl"
#endif
#if defined(XPOW)
#include "xmath32_pow.glsl"
#include "xmath64_pow.glsl"
#endif
#define VT uint64_t
#define VLOAD(a, i) ld64(a, i)
#define VSTORE(a, i, v) st64(a, i, v)
#else
#if defined(XTRIG)
#include "xmath32_trig.glsl"
#elif defined(XMATH)
#include "xmath32.glsl"
#endif
#if defined(XERF)
#include "xmath32_erf.glsl"
#endif
#if defined(XPOW)
#include "xmath32_pow.glsl"
#endif
#if defined(XOPS)
#include "xmath64.glsl"
#include "xmath64_log.glsl"
#endif
#define VT uint
// xf32.glsl's XLOAD(T) pastes its argument as written: one more level here
// expands T (-DT=f32) first.
#define XLOAD_OF_(X) XLOAD_##X
#define XLOAD_OF(X) XLOAD_OF_(X)
#define XSTORE_OF_(X) XSTORE_##X
#define XSTORE_OF(X) XSTORE_OF_(X)
#define VLOAD(a, i) XLOAD_OF(T)(a, i)
#define VSTORE(a, i, v) XSTORE_OF(T)(a, i, v)
#endif
#if defined(XOPS)
#include "xops.glsl"
#endif
#include "elementwise_xf.glsl"
#elif defined(FLTW)
#include "elementwise_float.glsl"
#elif defined(INTW)
#include "elementwise_int.glsl"
#else
#include "elementwise_bool.glsl"
#endif
#if !defined(XF) && !defined(XD)
#define VT CT(T)
#define VLOAD(a, i) LOAD(T)(a, i)
#define VSTORE(a, i, v) STORE(T)(a, i, v)
#endif

layout(local_size_x = 256) in;

// Mirrors EwArgs in elementwise.cpp. lo/hi: clamp's bounds as the bits of
// the compute type (float32 in the low word, integers sign-extended).
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Args {
  uint64_t dst, a, b;
  int64_t n;
  int op, pad;
  uint64_t lo, hi;
  Geom go, ga, gb;
};
layout(push_constant) uniform Push { Args args; } pc;

void main() {
  const int64_t i = int64_t(concord_linear_id());
  Args g = pc.args;
  if (i >= g.n) return;
  const int64_t oi = geom_at(g.go, i);
  const VT x = VLOAD(g.a, geom_at(g.ga, i));
#if KIND == 1
  VSTORE(g.dst, oi, uop(g.op, x));
#elif KIND == 2
  STORE_b(g.dst, oi, upr(g.op, x));
#elif KIND == 3
  VSTORE(g.dst, oi, bop(g.op, x, VLOAD(g.b, geom_at(g.gb, i))));
#elif KIND == 4
  STORE_b(g.dst, oi, bpr(g.op, x, VLOAD(g.b, geom_at(g.gb, i))));
#elif KIND == 5
  VSTORE(g.dst, oi, clamp_op(x, g.lo, g.hi));
#elif KIND == 6 && defined(XPOW)
  VSTORE(g.dst, oi, x_pow(x, g.lo));
#elif KIND == 6
  STORE(T)(g.dst, oi, pow_number(x, g.lo, g.hi, g.op));
#else
#error "KIND must be 1..6"
#endif
}
