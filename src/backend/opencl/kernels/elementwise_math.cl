// elementwise_math.cl — the float helpers of elementwise.cl and the choice of
// each float32/float64 math function per program variant (the device's own,
// the CPU's float64-inside algorithms, or xmath.cl's port on bits). Included
// by elementwise.cl (backend.cpp's program() expands the #include).
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
// float32 gelu in double (GELU_float with M = double); float64's is concord_gelu_f64.
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
/* below -708 e^-x overflows; sigmoid is e^x there (subnormal down to -745.1) */
#define SIGMOID_double(x, w) ((w) < -708.0 ? exp(w) : 1.0 / (1.0 + exp(-(w))))
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
#if !CONCORD_HAS_FP64 && !CONCORD_NAN_RULE
/* without float64, the device's float erfc is subnormal below x = -13 and x/2
   multiplies its lost bits (9 ULP on PoCL at -13.24): xmath.cl's on bits there */
#define GELU_float(x, w, M) ((w) < -12.0f ? as_float(xm_gelu(as_uint((float)(x)))) : gelu_float(w))
#else
#define GELU_float(x, w, M) CANON_float(gelu, x, gelu_##M(w))
#endif
// float64 gelu runs the CPU's mode algorithm (canon_f64_erf.h) in both modes:
// with the device's erfc, a subnormal erfc(z) (x < -37.6) lost 12 ULP of
// the result.
#define GELU_double(x, w, M) concord_gelu_f64(x)
#if CONCORD_NAN_RULE
#define ERF_double(x, w) concord_erf_f64(x)
#else
#define ERF_double(x, w) erf(w)
#endif
