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

// ---------------------------------------------------------------- float ops
// Math functions of float32 (and so of the halves) are evaluated in float64
// when the device has it and rounded once: nearly always the correctly rounded
// result, like the CPU's. Without float64 they run in float32 (a few ULP),
// except in the reproducible mode, where xmath.cl gives the CPU's bits.
// +-, *, /, sqrt, rsqrt and reciprocal stay in the dtype (correctly rounded).

// tanh(x) rounds to +-1 once |x| > 13 ln 2 (float32) or 27.5 ln 2 (float64);
// some libraries (PoCL 3.1's float32 tanh) stop one ulp short, even at +-inf.
static inline float tanh_float(float x) { return fabs(x) > 9.0110f ? copysign(1.0f, x) : tanh(x); }

// gelu(x) = x/2 * erfc(-x/sqrt 2), not 1 + erf (which cancels for x < 0).
// erfc is steep for large z = -x/sqrt 2, so the rounding error of z itself
// would cost ~2z^2 half-ulps: z is formed as zh + zl (the product's error by
// fma, plus the constant's tail) and erfc(zh + zl) ~ erfc(zh) - zl*erfc'(zh).
static inline float gelu_float(float x) {
  if (isinf(x)) return x > 0.0f ? x : -0.0f;
  const float c_hi = 0.70710677f, c_lo = 1.21016171e-08f;  // 1/sqrt(2) = c_hi + c_lo
  const float zh = -x * c_hi;
  const float zl = fma(-x, c_hi, -zh) + -x * c_lo;
  const float e = erfc(zh) - zl * 1.12837917f * exp(-zh * zh);
  return x * 0.5f * e;
}
#if CONCORD_HAS_FP64
static inline double tanh_double(double x) { return fabs(x) > 19.07 ? copysign(1.0, x) : tanh(x); }
static inline double gelu_double(double x) {
  if (isinf(x)) return x > 0.0 ? x : -0.0;
  const double c_hi = 0.70710678118654757, c_lo = -4.8336466567264567e-17;
  const double zh = -x * c_hi;
  const double zl = fma(-x, c_hi, -zh) + -x * c_lo;
  const double e = erfc(zh) - zl * 1.1283791670955126 * exp(-zh * zh);
  return x * 0.5 * e;
}
#define FMATH double
#else
#define FMATH float
#endif

// Python's // on floats (the CPU's FloorDivide): the floor of the exact quotient.
#define FLOOR_DIVIDE(F)                                                                \
  static inline F fdiv_##F(F a, F b) {                                                 \
    if (b == (F)0) return a / b;                                                       \
    const F m = fmod(a, b);                                                            \
    F q = (a - m) / b;                                                                 \
    if (m != (F)0 && ((b < (F)0) != (m < (F)0))) q -= (F)1;                            \
    if (q == (F)0) return copysign((F)0, a / b);                                       \
    F f = floor(q);                                                                    \
    if (q - f > (F)0.5) f += (F)1;                                                     \
    return f;                                                                          \
  }
FLOOR_DIVIDE(float)
#if CONCORD_HAS_FP64
FLOOR_DIVIDE(double)
#endif

#define EXP_float(x, w) exp_f32(x)
// float32 (and the halves) with float64: the CPU's algorithms (cpu_math.cl), so
// its bits; without float64, xmath.cl's port on bits in the mode, float32 math on the
// device's own terms in the default mode.
#if CONCORD_HAS_FP64
#define LOG_float(x, w) log_f32_cpu(x)
#define TANH_float(x, w) tanh_f32_cpu(x)
#define SIGMOID_float(x, w) sigmoid_f32_cpu(x)
#elif CONCORD_NAN_RULE  /* the mode without float64: the same algorithms on bits (xmath.cl) */
#define LOG_float(x, w) XM1(log, x)
#define TANH_float(x, w) XM1(tanh, x)
#define SIGMOID_float(x, w) XM1(sigmoid, x)
#else
#define LOG_float(x, w) log(w)
#define TANH_float(x, w) tanh_float(w)
/* in float, exp(-x) overflows below -88, where exp(x) / (1 + exp(x)) keeps the subnormal results */
#define SIGMOID_float(x, w) ((w) < -80.0f ? exp(w) / (1.0f + exp(w)) : 1.0f / (1.0f + exp(-(w))))
#endif
// float32 sin/cos/tan/pow/atan2 in the reproducible mode's program variant
// with float64: the CPU's code in the mode (common/canon_trig.h, canon_pow.h).
#if CONCORD_HAS_FP64 && CONCORD_NAN_RULE
#define SIN_float(x, w) concord_sin_f32(x)
#define COS_float(x, w) concord_cos_f32(x)
#define TAN_float(x, w) concord_tan_f32(x)
#define POW_float(a, b, M) concord_pow_f32(a, (double)(b))
#define ATAN2_float(a, b, M) concord_atan2_f32(a, b)
#elif CONCORD_NAN_RULE  /* without float64: xmath.cl, on bits */
#define SIN_float(x, w) XM1(sin, x)
#define COS_float(x, w) XM1(cos, x)
#define TAN_float(x, w) XM1(tan, x)
#define POW_float(a, b, M) as_float(xm_pow(as_uint((float)(a)), xd_from_f32(as_uint((float)(b)))))
#define ATAN2_float(a, b, M) as_float(xm_atan2(as_uint((float)(a)), as_uint((float)(b))))
#else
#define SIN_float(x, w) sin(w)
#define COS_float(x, w) cos(w)
#define TAN_float(x, w) tan(w)
#define POW_float(a, b, M) pow((M)(a), (M)(b))
#define ATAN2_float(a, b, M) atan2((M)(a), (M)(b))
#endif
#if CONCORD_NAN_RULE  /* the mode: the CPU's float64 sin/cos/tan (common/canon_trig_f64.h) */
#define SIN_double(x, w) concord_sin_f64(x)
#define COS_double(x, w) concord_cos_f64(x)
#define TAN_double(x, w) concord_tan_f64(x)
#else
#define SIN_double(x, w) sin(w)
#define COS_double(x, w) cos(w)
#define TAN_double(x, w) tan(w)
#endif
#if CONCORD_NAN_RULE
#define POW_double(a, b, M) concord_pow_f64(a, b)
#define ATAN2_double(a, b, M) concord_atan2_f64(a, b)
#else
#define POW_double(a, b, M) pow(a, b)
#define ATAN2_double(a, b, M) atan2(a, b)
#endif
// float64 in the reproducible mode's program: the CPU's algorithms there
// (common/canon_f64*.h), so its bits; the device's own elsewhere.
#if CONCORD_NAN_RULE
#define EXP_double(x, w) concord_exp_f64(x)
#define EXPM1_double(x, w) concord_expm1_f64(x)
#define LOG_double(x, w) concord_log_f64(x)
#define LOG1P_double(x, w) concord_log1p_f64(x)
#define LOG2_double(x, w) concord_log2_f64(x)
#define TANH_double(x, w) concord_tanh_f64(x)
#define SIGMOID_double(x, w) concord_sigmoid_f64(x)
#else
#define EXP_double(x, w) exp(w)
#define EXPM1_double(x, w) expm1(w)
#define LOG_double(x, w) log(w)
#define LOG1P_double(x, w) log1p(w)
#define LOG2_double(x, w) log2(w)
#define TANH_double(x, w) tanh_double(w)
#define SIGMOID_double(x, w) (1.0 / (1.0 + exp(-(w))))
#endif
// CANON_F(fn, x, native): in the reproducible mode (the NaN-rule variant),
// float32's fn is the CPU's (backend/common/canon_*.h with float64, xmath.cl's
// port on bits without), so its bits; elsewhere the device's own, faster
// native expression.
#if CONCORD_HAS_FP64 && CONCORD_NAN_RULE
#define CANON_float(fn, x, native) concord_##fn##_f32(x)
#elif CONCORD_NAN_RULE  /* pasted here: passed on, fn would expand first (PoCL's expm1 is a macro) */
#define CANON_float(fn, x, native) as_float(xm_##fn(as_uint((float)(x))))
#else
#define CANON_float(fn, x, native) (native)
#endif
#define CANON_double(fn, x, native) (native)
#define EXPM1_float(x, w) CANON_float(expm1, x, expm1(w))
#define LOG1P_float(x, w) CANON_float(log1p, x, log1p(w))
#define LOG2_float(x, w) CANON_float(log2, x, log2(w))
#define ERF_float(x, w) CANON_float(erf, x, erf(w))
#define GELU_float(x, w, M) CANON_float(gelu, x, gelu_##M(w))
#if CONCORD_NAN_RULE
#define ERF_double(x, w) concord_erf_f64(x)
#define GELU_double(x, w, M) concord_gelu_f64(x)
#else
#define ERF_double(x, w) erf(w)
#define GELU_double(x, w, M) gelu_double(w)
#endif

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
                bop_##F(op, load_##X(a, geom_at(ga, i)), load_##X(b, geom_at(gb, i))));            \
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
    if (i < n) store_##X(out, oo + i, bop_##F(op, load_##X(a, ao + i * sa), load_##X(b, bo + i * sb))); \
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
    if (base + 8 <= n) {                                                                           \
      const float8 x = sa ? load8_##X(a, ao + base) : (float8)load_##X(a, ao);                     \
      const float8 y = sb ? load8_##X(b, bo + base) : (float8)load_##X(b, bo);                     \
      store8_##X(out, oo + base, bop8_float(op, x, y));                                            \
    } else {                                                                                       \
      for (long i = base; i < n; ++i)                                                              \
        store_##X(out, oo + i, bop_float(op, load_##X(a, ao + i * sa), load_##X(b, bo + i * sb))); \
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
