// shaders/elementwise_xf.glsl — the reproducible mode's elementwise ops of
// the floating dtypes ("_x" variants of elementwise.comp), on BITS with
// integer operations only: float32 and the halves (XF: float32 bits in a
// uint, xf32.glsl; the halves load as float32 bits, compute in float32 and
// round once on store, as on the CPU) and float64 (XD: float64 bits in a
// uint64_t, xf64.glsl; no double instruction, so no shaderFloat64 needed).
// One source for both widths: the CPU's bits (src/backend/cpu/unary.cpp,
// binary.cpp, ternary.cpp) whatever the device does with subnormals,
// division or fma.
//
// Every floating result is an xf*.glsl result or passes through x_canon, so
// a NaN result is always the canonical NaN (the mode's NaN rule) and the
// dispatcher needs no separate NaN pass. An op without its case here gives
// NaN (or false) and is never claimed in the mode (elementwise.cpp).
//
// The transcendental variants carry only their ops, so the other unary ops
// keep a small shader: XMATH (log, tanh, sigmoid, expm1, log1p, log2; float64
// adds exp), XERF (erf, gelu), XTRIG (sin, cos, tan), from xmath32*.glsl
// (float64 inside, on bits) or xmath64*.glsl; XPOW adds pow and atan2 to the
// binary ops, XOPS the shared ops (xops.glsl). The rounding ops, sign, fmod
// and Python's % and // come from xf_ops.glsl; relu, maximum/minimum and
// clamp are here, each mirroring the CPU's expression operation for
// operation.
#ifndef CONCORD_ELEMENTWISE_XF_GLSL
#define CONCORD_ELEMENTWISE_XF_GLSL

#include "xf_ops.glsl"

XV uop(int op, XV x) {
  switch (op) {
#if defined(XD) && defined(XERF)
    case OP_erf:
    case OP_gelu: return xe_erf_gelu(op == OP_gelu, x);  // one inlined copy
#elif defined(XERF)
    case OP_erf: return xm_erf(x);
    case OP_gelu: return xm_gelu(x);
#elif defined(XD) && defined(XTRIG)
    case OP_sin: return xe_sin(x);
    case OP_cos: return xe_cos(x);
    case OP_tan: return xe_tan(x);
#elif defined(XTRIG)
    case OP_sin: return xm_sin(x);
    case OP_cos: return xm_cos(x);
    case OP_tan: return xm_tan(x);
#elif defined(XD) && defined(XMATH)
    case OP_exp: return xe_exp(x);
    case OP_expm1: return xe_expm1(x);
    case OP_tanh: return xe_tanh(x);
    case OP_sigmoid: return xe_sigmoid(x);
    case OP_log: return xe_log(x);
    case OP_log1p: return xe_log1p(x);
    case OP_log2: return xe_log2(x);
#elif defined(XMATH)
    case OP_log: return xm_log(x);
    case OP_tanh: return xm_tanh(x);
    case OP_sigmoid: return xm_sigmoid(x);
    case OP_expm1: return xm_expm1(x);  // the mode's canon_explog.h algorithms
    case OP_log1p: return xm_log1p(x);
    case OP_log2: return xm_log2(x);
#else
    case OP_neg: return XN(neg)(x);
    case OP_abs: return XN(abs)(x);
    case OP_sign: return x_signum(x);
    case OP_relu: return x_ltz(x) ? X_0 : x_canon(x);  // relu(-0) = -0
    case OP_trunc: return x_round(x, 0);
    case OP_floor: return x_round(x, 1);
    case OP_ceil: return x_round(x, 2);
    case OP_round: return x_round(x, 3);
    case OP_sqrt: return XN(sqrt)(x);
    case OP_rsqrt: return XN(div)(X_ONE, XN(sqrt)(x));  // two roundings, as the CPU's 1 / sqrt(x)
    case OP_reciprocal: return XN(div)(X_ONE, x);
#if !defined(XD)
    case OP_exp: return xf_exp(x);  // the CPU's float32 exp, small: not in XMATH
#endif
#endif
    default: return X_NANV;
  }
}

uint upr(int op, XV x) {
  switch (op) {
    case OP_isnan: return XN(isnan)(x) ? 1u : 0u;
    case OP_isinf: return XN(isinf)(x) ? 1u : 0u;
    case OP_isfinite: return XN(isnan)(x) || XN(isinf)(x) ? 0u : 1u;
    case OP_logical_not: return XN(iszero)(x) ? 1u : 0u;
    default: return 0u;
  }
}

#if defined(XOPS) && defined(XD)
#define XS_CASE(name) case OP_##name: return x_canon(xs_##name##_f64(a, b));
#elif defined(XOPS)
// The shared ops (xops.glsl), told the storage format of T (nextafter's step).
#define XS_FMT_f32 CONCORD_OPS_FMT_F32
#define XS_FMT_f16 CONCORD_OPS_FMT_F16
#define XS_FMT_bf16 CONCORD_OPS_FMT_BF16
#define XS_FMT_OF_(X) XS_FMT_##X
#define XS_FMT_OF(X) XS_FMT_OF_(X)
#define XS_CASE(name) case OP_##name: return x_canon(xs_##name##_f32(a, b, XS_FMT_OF(T)));
#endif

#if defined(XPOW) && defined(XD)
XV x_pow(XV a, uint64_t e) { return xe_pow(a, e); }
#elif defined(XPOW)
XV x_pow(XV a, uint64_t e) { return xm_pow(a, e); }  // the CPU's concord_pow_f32(a, (double)b)
#endif

XV bop(int op, XV a, XV b) {
  switch (op) {
    case OP_add: return XN(add)(a, b);
    case OP_sub: return XN(sub)(a, b);
    case OP_mul: return XN(mul)(a, b);
    case OP_div: return XN(div)(a, b);
    case OP_maximum: return x_canon(XN(lt)(a, b) || XN(isnan)(b) ? b : a);  // NaN propagates
    case OP_minimum: return x_canon(XN(lt)(b, a) || XN(isnan)(b) ? b : a);
    case OP_remainder: return x_remainder(a, b);
    case OP_floor_divide: return x_floor_divide(a, b);
#if defined(XPOW) && defined(XD)
    case OP_pow: return x_pow(a, b);
    case OP_atan2: return xe_atan2(a, b);  // atan2(y = a, x = b)
#elif defined(XPOW)
    case OP_pow: return x_pow(a, xd_from_f32(b));
    case OP_atan2: return xm_atan2(a, b);
#endif
#if defined(XOPS)
    CONCORD_OPS_BINARY(XS_CASE)
#endif
    default: return X_NANV;
  }
}

// NaN compares unequal to everything (ne is true, the ordered ones false);
// the logical ops take NaN as true.
uint bpr(int op, XV a, XV b) {
  switch (op) {
    case OP_eq: return XN(eq)(a, b) ? 1u : 0u;
    case OP_ne: return XN(eq)(a, b) ? 0u : 1u;
    case OP_lt: return XN(lt)(a, b) ? 1u : 0u;
    case OP_le: return XN(le)(a, b) ? 1u : 0u;
    case OP_gt: return XN(lt)(b, a) ? 1u : 0u;
    case OP_ge: return XN(le)(b, a) ? 1u : 0u;
    case OP_logical_and: return !XN(iszero)(a) && !XN(iszero)(b) ? 1u : 0u;
    case OP_logical_or: return !XN(iszero)(a) || !XN(iszero)(b) ? 1u : 0u;
    case OP_logical_xor: return XN(iszero)(a) != XN(iszero)(b) ? 1u : 0u;
    default: return 0u;
  }
}

// clamp: the bounds arrive as the width's bits; a NaN in x or a bound
// propagates, lo > hi gives hi (the CPU's clamp_typed).
XV clamp_op(XV x, uint64_t lo_bits, uint64_t hi_bits) {
  const XV lo = XV(lo_bits), hi = XV(hi_bits);
  x = XN(lt)(x, lo) || XN(isnan)(lo) ? lo : x;
  return x_canon(XN(lt)(hi, x) || XN(isnan)(hi) ? hi : x);
}

#endif
