// Unary, binary and clamp kernels, one set per dtype suffix X (see common.cl).
// Built with -DOP_<name>=<OpId> for every elementwise op (elementwise.cpp), so
// the op is a kernel argument and one program serves every op.
//
// Semantics are those of the CPU kernels (src/backend/cpu/unary.cpp,
// binary.cpp, ternary.cpp): float16/bfloat16 compute in float32 and round once
// on store; integer arithmetic wraps; integer remainder by 0 (or -1) is 0;
// maximum/minimum propagate NaN; round is half-to-even (rint).
//
// Kernel families (X = dtype suffix):
//   unary_X  / unaryc_X   out (X) = f(x)            strided / contiguous (halves:
//                                                   8 elements per work-item)
//   upred_X  / upredc_X   out (bool) = p(x)         isnan isinf isfinite logical_not
//   binary_X / binaryc_X  out (X) = f(a, b)
//   bpred_X  / bpredc_X   out (bool) = p(a, b)      comparisons and logical ops
//   clamp_X               out = min(max(x, lo), hi) with NaN propagation
// The contiguous variants take element offsets, and for binary inputs a step
// of 1 (contiguous) or 0 (one broadcast value).

// Integer results wrap: arithmetic in ulong, then the low bits reinterpreted.
#define WRAP(X, u) as_st_##X((UNSIGNED_##X)(u))
#define UL(v) ((ulong)(long)(v))

// Float math on bits for programs without float64 (xmath.cl), the float
// helpers and the math function of each op per program variant.
#define XMATH_OPS 1
#include "xmath.cl"
#include "elementwise_math.cl"

// F: the value type; M: the type math functions are evaluated in.
#define FLOAT_OPS(F, M)                                                                \
  static inline F uop_##F(int op, F x) {                                               \
    const M w = (M)x;                                                                  \
    switch (op) {                                                                      \
      case OP_neg: return -x;                                                          \
      case OP_abs: return fabs(x);                                                     \
      case OP_sign: return x > (F)0 ? (F)1 : x < (F)0 ? (F)-1 : x == (F)0 ? (F)0 : x;  \
      case OP_relu: return x < (F)0 ? (F)0 : x;                                        \
      case OP_floor: return floor(x);                                                  \
      case OP_ceil: return ceil(x);                                                    \
      case OP_round: return rint(x);                                                   \
      case OP_trunc: return trunc(x);                                                  \
      case OP_exp: return (F)EXP_##F(x, w);                                            \
      case OP_expm1: return (F)EXPM1_##F(x, w);                                        \
      case OP_log: return (F)LOG_##F(x, w);                                            \
      case OP_log1p: return (F)LOG1P_##F(x, w);                                        \
      case OP_log2: return (F)LOG2_##F(x, w);                                          \
      case OP_sqrt: return sqrt(x);                                                    \
      case OP_rsqrt: return (F)1 / sqrt(x);                                            \
      case OP_sin: return (F)SIN_##F(x, w);                                            \
      case OP_cos: return (F)COS_##F(x, w);                                            \
      case OP_tan: return (F)TAN_##F(x, w);                                            \
      case OP_tanh: return (F)TANH_##F(x, w);                                          \
      case OP_sigmoid: return (F)SIGMOID_##F(x, w);                                    \
      case OP_gelu: return (F)GELU_##F(x, w, M);                                        \
      case OP_erf: return (F)ERF_##F(x, w);                                            \
      case OP_reciprocal: return (F)1 / x;                                             \
      default: return (F)NAN;  /* an op without a case here: never its input */        \
    }                                                                                  \
  }                                                                                    \
  static inline uchar upr_##F(int op, F x) {                                         \
    switch (op) {                                                                      \
      case OP_isnan: return x != x;                                                    \
      case OP_isinf: return isinf(x) ? 1 : 0;                                          \
      case OP_isfinite: return isfinite(x) ? 1 : 0;                                    \
      case OP_logical_not: return x == (F)0;                                           \
      default: return 2;  /* not a bool: an op without a case here */                  \
    }                                                                                  \
  }                                                                                    \
  static inline F bop_##F(int op, F a, F b) {                                          \
    switch (op) {                                                                      \
      case OP_add: return a + b;                                                       \
      case OP_sub: return a - b;                                                       \
      case OP_mul: return a * b;                                                       \
      case OP_div: return a / b;                                                       \
      case OP_pow: return (F)POW_##F(a, b, M);                                         \
      case OP_maximum: return (a < b || b != b) ? b : a;                               \
      case OP_minimum: return (b < a || b != b) ? b : a;                               \
      case OP_remainder: {                                                             \
        F m = fmod(a, b);                                                              \
        if (m != (F)0 && ((b < (F)0) != (m < (F)0))) m += b;                           \
        return m;                                                                      \
      }                                                                                \
      case OP_atan2: return (F)ATAN2_##F(a, b, M);                                     \
      case OP_floor_divide: return fdiv_##F(a, b);                                     \
      default: return (F)NAN;                                                          \
    }                                                                                  \
  }
#define FLOAT_OPS_EXPANDED(F, M) FLOAT_OPS(F, M)
FLOAT_OPS_EXPANDED(float, FMATH)
#if CONCORD_HAS_FP64
FLOAT_OPS(double, double)
#endif

// The shared ops (common/canon_ops.inc: hypot, logaddexp, copysign,
// nextafter): the CPU's body in both modes, in hardware double (canon_ops.h,
// prepended) or on the bits (xops.glsl, through xmath.cl). Each float dtype
// has its own bop, so the body knows the format a half came from.
// (The names are pasted, never expanded: OpenCL C has hypot, copysign and
// nextafter built in, as macros on some compilers.)
#if CONCORD_HAS_FP64
#define OPS_CASE_F32(name) case OP_##name: return concord_##name##_f32(a, b, fmt);
#else
#define OPS_CASE_F32(name) case OP_##name: return as_float(xs_##name##_f32(as_uint(a), as_uint(b), fmt));
#endif
#define OPS_CASE_F64(name) case OP_##name: return concord_##name##_f64(a, b);
#define OPS_IS(name) || op == OP_##name
#define IS_OPS(op) (0 CONCORD_OPS_BINARY(OPS_IS))
static inline float ops_f32(int op, float a, float b, int fmt) {
  switch (op) {
    CONCORD_OPS_BINARY(OPS_CASE_F32)
    default: return NAN;
  }
}
static inline float bop_f16(int op, float a, float b) { return IS_OPS(op) ? ops_f32(op, a, b, CONCORD_OPS_FMT_F16) : bop_float(op, a, b); }
static inline float bop_bf16(int op, float a, float b) { return IS_OPS(op) ? ops_f32(op, a, b, CONCORD_OPS_FMT_BF16) : bop_float(op, a, b); }
static inline float bop_f32(int op, float a, float b) { return IS_OPS(op) ? ops_f32(op, a, b, CONCORD_OPS_FMT_F32) : bop_float(op, a, b); }
#if CONCORD_HAS_FP64
static inline double bop_f64(int op, double a, double b) {
  switch (op) {
    CONCORD_OPS_BINARY(OPS_CASE_F64)
    default: return bop_double(op, a, b);
  }
}
#endif

// ---------------------------------------------------------------- integer ops
// T: the storage (= compute) type, X: its suffix.
#define INT_OPS(X)                                                                     \
  static inline st_##X uop_##X(int op, st_##X x) {                                     \
    switch (op) {                                                                      \
      case OP_neg: return WRAP(X, (ulong)0 - UL(x));                                   \
      case OP_abs: return x < 0 ? WRAP(X, (ulong)0 - UL(x)) : x;                       \
      case OP_sign: return (st_##X)((x > 0) - (x < 0));                                \
      case OP_relu: return x < 0 ? (st_##X)0 : x;                                      \
      case OP_floor: case OP_ceil: case OP_round: case OP_trunc: return x;             \
      default: return (st_##X)0x5A;  /* an op without a case here: never its input */ \
    }                                                                                  \
  }                                                                                    \
  static inline uchar upr_##X(int op, st_##X x) {                                    \
    switch (op) {                                                                      \
      case OP_isfinite: return 1;                                                      \
      case OP_logical_not: return x == 0;                                              \
      case OP_isnan: case OP_isinf: return 0;                                          \
      default: return 2;                                                               \
    }                                                                                  \
  }                                                                                    \
  static inline st_##X ipow_##X(st_##X a, st_##X b) {                                  \
    if ((long)b < 0) return a == 1 ? (st_##X)1 : (long)a == -1 ? ((b & 1) ? (st_##X)-1 : (st_##X)1) : (st_##X)0; \
    ulong r = 1, base = UL(a);                                                         \
    for (ulong e = UL(b); e; e >>= 1) {                                                \
      if (e & 1) r *= base;                                                            \
      base *= base;                                                                    \
    }                                                                                  \
    return WRAP(X, r);                                                                 \
  }                                                                                    \
  static inline st_##X irem_##X(st_##X a, st_##X b) {                                  \
    if (b == 0 || (long)b == -1) return 0; /* -1: min % -1 traps in hardware */              \
    st_##X m = a % b;                                                                  \
    if (m != 0 && ((b < 0) != (m < 0))) m = (st_##X)(m + b);                           \
    return m;                                                                          \
  }                                                                                    \
  static inline st_##X ifloordiv_##X(st_##X a, st_##X b) {                             \
    if (b == 0) return 0;                                                              \
    if ((long)b == -1) return WRAP(X, (ulong)0 - UL(a)); /* min / -1 wraps */          \
    st_##X q = a / b;                                                                  \
    if ((st_##X)(a % b) != 0 && ((a < 0) != (b < 0))) q = (st_##X)(q - 1);             \
    return q;                                                                          \
  }                                                                                    \
  static inline st_##X bop_##X(int op, st_##X a, st_##X b) {                           \
    switch (op) {                                                                      \
      case OP_add: return WRAP(X, UL(a) + UL(b));                                      \
      case OP_sub: return WRAP(X, UL(a) - UL(b));                                      \
      case OP_mul: return WRAP(X, UL(a) * UL(b));                                      \
      case OP_maximum: return a < b ? b : a;                                           \
      case OP_minimum: return b < a ? b : a;                                           \
      case OP_pow: return ipow_##X(a, b);                                              \
      case OP_remainder: return irem_##X(a, b);                                        \
      case OP_floor_divide: return ifloordiv_##X(a, b);                                \
      default: return (st_##X)0x5A;                                                    \
    }                                                                                  \
  }
INT_OPS(u8)
INT_OPS(i8)
INT_OPS(i16)
INT_OPS(i32)
INT_OPS(i64)

// bool (0/1): sign is the identity, add = or, mul = and, maximum = or, minimum = and.
static inline uchar uop_b(int op, uchar x) { return x; }
static inline uchar upr_b(int op, uchar x) {
  switch (op) {
    case OP_isfinite: return 1;
    case OP_logical_not: return x == 0;
    default: return 0;
  }
}
static inline uchar bop_b(int op, uchar a, uchar b) {
  switch (op) {
    case OP_add: case OP_maximum: return (a != 0) | (b != 0);
    default: return (a != 0) & (b != 0);  // mul, minimum
  }
}

// Comparisons and logical ops, on the compute type.
#define BPRED(F)                                                   \
  static inline uchar bpr_##F(int op, F a, F b) {                \
    switch (op) {                                                  \
      case OP_eq: return a == b;                                   \
      case OP_ne: return a != b;                                   \
      case OP_lt: return a < b;                                    \
      case OP_le: return a <= b;                                   \
      case OP_gt: return a > b;                                    \
      case OP_ge: return a >= b;                                   \
      case OP_logical_and: return (a != (F)0) & (b != (F)0);       \
      case OP_logical_or: return (a != (F)0) | (b != (F)0);        \
      case OP_logical_xor: return (a != (F)0) != (b != (F)0);      \
      default: return 2;                                           \
    }                                                              \
  }
BPRED(uchar)
BPRED(char)
BPRED(short)
BPRED(int)
BPRED(long)
BPRED(float)
#if CONCORD_HAS_FP64
BPRED(double)
#endif

// ---------------------------------------------------------------- kernels
// X: dtype suffix; F: the suffix of its op functions (float for halves).
#define ELEMENTWISE_KERNELS(X, F, P)                                                               \
  __kernel void unary_##X(int op, Geom gx, Geom go, __global const st_##X* x, __global st_##X* out, \
                          long n) {                                                                \
    const long i = get_global_id(0);                                                               \
    if (i < n) store_##X(out, geom_at(go, i), uop_##F(op, load_##X(x, geom_at(gx, i))));           \
  }                                                                                                \
  __kernel void upred_##X(int op, Geom gx, Geom go, __global const st_##X* x, __global uchar* out, \
                          long n) {                                                                \
    const long i = get_global_id(0);                                                               \
    if (i < n) out[geom_at(go, i)] = upr_##F(op, load_##X(x, geom_at(gx, i)));                   \
  }                                                                                                \
  __kernel void upredc_##X(int op, __global const st_##X* x, long xo, __global uchar* out,         \
                           long oo, long n) {                                                      \
    const long i = get_global_id(0);                                                               \
    if (i < n) out[oo + i] = upr_##F(op, load_##X(x, xo + i));                                   \
  }                                                                                                \
  __kernel void binary_##X(int op, Geom ga, Geom gb, Geom go, __global const st_##X* a,            \
                           __global const st_##X* b, __global st_##X* out, long n) {               \
    const long i = get_global_id(0);                                                               \
    if (i < n)                                                                                     \
      store_##X(out, geom_at(go, i),                                                               \
                bop_##X(op, load_##X(a, geom_at(ga, i)), load_##X(b, geom_at(gb, i))));            \
  }                                                                                                \
  __kernel void bpred_##X(int op, Geom ga, Geom gb, Geom go, __global const st_##X* a,             \
                          __global const st_##X* b, __global uchar* out, long n) {                 \
    const long i = get_global_id(0);                                                               \
    if (i < n)                                                                                     \
      out[geom_at(go, i)] = bpr_##P(op, load_##X(a, geom_at(ga, i)), load_##X(b, geom_at(gb, i))); \
  }                                                                                                \
  __kernel void bpredc_##X(int op, __global const st_##X* a, long ao, long sa,                     \
                           __global const st_##X* b, long bo, long sb, __global uchar* out,        \
                           long oo, long n) {                                                      \
    const long i = get_global_id(0);                                                               \
    if (i < n) out[oo + i] = bpr_##P(op, load_##X(a, ao + i * sa), load_##X(b, bo + i * sb));    \
  }

// Flat (contiguous) unary and binary kernels: one element per work-item.
#define FLAT_KERNELS(X, F)                                                                         \
  __kernel void unaryc_##X(int op, __global const st_##X* x, long xo, __global st_##X* out,        \
                           long oo, long n) {                                                      \
    const long i = get_global_id(0);                                                               \
    if (i < n) store_##X(out, oo + i, uop_##F(op, load_##X(x, xo + i)));                           \
  }                                                                                                \
  __kernel void binaryc_##X(int op, __global const st_##X* a, long ao, long sa,                    \
                            __global const st_##X* b, long bo, long sb, __global st_##X* out,      \
                            long oo, long n) {                                                     \
    const long i = get_global_id(0);                                                               \
    if (i < n) store_##X(out, oo + i, bop_##X(op, load_##X(a, ao + i * sa), load_##X(b, bo + i * sb))); \
  }

// Flat kernels of the halves: eight elements per work-item, converted as
// vectors (the scalar conversions keep PoCL from vectorising), with the common
// ops in vector form and the others lane by lane. A partial last group runs
// element by element.
static inline float8 uop8_float(int op, float8 x) {
  switch (op) {
    case OP_neg: return -x;
    case OP_abs: return fabs(x);
    case OP_relu: return select(x, (float8)0.0f, x < 0.0f);
    case OP_floor: return floor(x);
    case OP_ceil: return ceil(x);
    case OP_round: return rint(x);
    case OP_trunc: return trunc(x);
    case OP_sqrt: return sqrt(x);
    case OP_reciprocal: return 1.0f / x;
    default: {
      float v[8];
      vstore8(x, 0, v);
      for (int k = 0; k < 8; ++k) v[k] = uop_float(op, v[k]);
      return vload8(0, v);
    }
  }
}
static inline float8 bop8_float(int op, float8 a, float8 b) {
  switch (op) {
    case OP_add: return a + b;
    case OP_sub: return a - b;
    case OP_mul: return a * b;
    case OP_div: return a / b;
    case OP_maximum: return select(a, b, (a < b) | (b != b));
    case OP_minimum: return select(a, b, (b < a) | (b != b));
    default: {
      float u[8], v[8];
      vstore8(a, 0, u);
      vstore8(b, 0, v);
      for (int k = 0; k < 8; ++k) u[k] = bop_float(op, u[k], v[k]);
      return vload8(0, u);
    }
  }
}
#define HALF_FLAT_KERNELS(X)                                                                       \
  __kernel void unaryc_##X(int op, __global const ushort* x, long xo, __global ushort* out,        \
                           long oo, long n) {                                                      \
    const long base = get_global_id(0) * 8;                                                        \
    if (base + 8 <= n) {                                                                           \
      store8_##X(out, oo + base, uop8_float(op, load8_##X(x, xo + base)));                         \
    } else {                                                                                       \
      for (long i = base; i < n; ++i) store_##X(out, oo + i, uop_float(op, load_##X(x, xo + i)));  \
    }                                                                                              \
  }                                                                                                \
  __kernel void binaryc_##X(int op, __global const ushort* a, long ao, long sa,                    \
                            __global const ushort* b, long bo, long sb, __global ushort* out,      \
                            long oo, long n) {                                                     \
    const long base = get_global_id(0) * 8;                                                        \
    if (base + 8 <= n && !IS_OPS(op)) {                                                            \
      const float8 x = sa ? load8_##X(a, ao + base) : (float8)load_##X(a, ao);                     \
      const float8 y = sb ? load8_##X(b, bo + base) : (float8)load_##X(b, bo);                     \
      store8_##X(out, oo + base, bop8_float(op, x, y));                                            \
    } else {                                                                                       \
      for (long i = base; i < n; ++i)                                                              \
        store_##X(out, oo + i, bop_##X(op, load_##X(a, ao + i * sa), load_##X(b, bo + i * sb))); \
    }                                                                                              \
  }
FLAT_KERNELS(b, b)
FLAT_KERNELS(u8, u8)
FLAT_KERNELS(i8, i8)
FLAT_KERNELS(i16, i16)
FLAT_KERNELS(i32, i32)
FLAT_KERNELS(i64, i64)
FLAT_KERNELS(f32, float)
#if CONCORD_HAS_FP64
FLAT_KERNELS(f64, double)
#endif
HALF_FLAT_KERNELS(f16)
HALF_FLAT_KERNELS(bf16)

ELEMENTWISE_KERNELS(b, b, uchar)
ELEMENTWISE_KERNELS(u8, u8, uchar)
ELEMENTWISE_KERNELS(i8, i8, char)
ELEMENTWISE_KERNELS(i16, i16, short)
ELEMENTWISE_KERNELS(i32, i32, int)
ELEMENTWISE_KERNELS(i64, i64, long)
ELEMENTWISE_KERNELS(f16, float, float)
ELEMENTWISE_KERNELS(bf16, float, float)
ELEMENTWISE_KERNELS(f32, float, float)
#if CONCORD_HAS_FP64
ELEMENTWISE_KERNELS(f64, double, double)
#endif

// clamp: lo/hi are already in the compute type (absent bounds are -inf/+inf or
// the type's limits); a NaN in x or in a bound propagates; lo > hi gives hi.
#define CLAMP_KERNEL(X)                                                                            \
  __kernel void clamp_##X(Geom gx, Geom go, __global const st_##X* x, __global st_##X* out,        \
                          ct_##X lo, ct_##X hi, long n) {                                          \
    const long i = get_global_id(0);                                                               \
    if (i >= n) return;                                                                            \
    ct_##X v = load_##X(x, geom_at(gx, i));                                                        \
    v = (v < lo || lo != lo) ? lo : v;                                                             \
    v = (v > hi || hi != hi) ? hi : v;                                                             \
    store_##X(out, geom_at(go, i), v);                                                             \
  }
CLAMP_KERNEL(u8)
CLAMP_KERNEL(i8)
CLAMP_KERNEL(i16)
CLAMP_KERNEL(i32)
CLAMP_KERNEL(i64)
CLAMP_KERNEL(f16)
CLAMP_KERNEL(bf16)
CLAMP_KERNEL(f32)
#if CONCORD_HAS_FP64
CLAMP_KERNEL(f64)
#endif
