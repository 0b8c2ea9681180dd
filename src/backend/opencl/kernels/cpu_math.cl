// cpu_math.cl — the CPU's float32 sigmoid, tanh and log in OpenCL C, operation
// for operation (backend/cpu/vec_impl_math.h and vec_math.h's log_f32), so
// their bits; float64 inside, so only with CONCORD_HAS_FP64. Prepended to every
// program after common.cl (backend.cpp); used by elementwise.cl (both modes)
// and reduce.cl (logsumexp, log_softmax).
//
//   log_f32_cpu(x), tanh_f32_cpu(x), sigmoid_f32_cpu(x)   float -> float
//   exp_d(x), expm1_d(x)                                   the float64 helpers
#if CONCORD_HAS_FP64
// The CPU's float32 sigmoid, tanh and log (backend/cpu/vec_impl_math.h:
// float64 inside, rounded once), operation for operation, hence its bits. The
// constants are vec_math.h's (expc).
#define EXPC_LOG2E 1.4426950408889634074
#define EXPC_SHIFT 6755399441055744.0
#define EXPC_LN2HI 6.93147180369123816490e-01
#define EXPC_LN2LO 1.90821492927058770002e-10

// x = n ln2 + r, |r| <= ln2/2; *scale = 2^n (the low bits of t hold n).
static inline double reduce_ln2_d(double x, double* scale) {
  const double t = x * EXPC_LOG2E + EXPC_SHIFT;
  const double n = t - EXPC_SHIFT;
  const double r = (x - n * EXPC_LN2HI) - n * EXPC_LN2LO;
  *scale = as_double((as_ulong(t) + 1023UL) << 52);
  return r;
}
static inline double exp_d(double x) {
  double s;
  const double r = reduce_ln2_d(x, &s);
  double p = r * (1.0 / 40320) + (1.0 / 5040);
  p = p * r + (1.0 / 720);
  p = p * r + (1.0 / 120);
  p = p * r + (1.0 / 24);
  p = p * r + (1.0 / 6);
  p = p * r + 0.5;
  p = p * r + 1.0;
  p = p * r + 1.0;
  return p * s;
}
static inline double expm1_d(double x) {
  double s;
  const double r = reduce_ln2_d(x, &s);
  double p = r * (1.0 / 362880) + (1.0 / 40320);
  p = p * r + (1.0 / 5040);
  p = p * r + (1.0 / 720);
  p = p * r + (1.0 / 120);
  p = p * r + (1.0 / 24);
  p = p * r + (1.0 / 6);
  p = p * r + 0.5;
  p = p * r + 1.0;
  const double q = p * r;
  return q * s + (s - 1.0);
}
// x clamped to [-lim, lim] with the x86 min/max rule (NaN passes through).
static inline float clamp_x86(float x, float lim) {
  const float m = lim < x ? lim : x;
  return -lim > m ? -lim : m;
}
static inline float sigmoid_f32_cpu(float x) {
  return (float)(1.0 / (1.0 + exp_d((double)clamp_x86(-x, 160.0f))));
}
static inline float tanh_f32_cpu(float x) {
  float ax = as_float(as_uint(x) & 0x7fffffffu);
  ax = ax > 20.0f ? 20.0f : ax;
  const double a = (double)ax;
  const double e = expm1_d(a + a);
  const float t = (float)(e / (e + 2.0));
  return as_float(as_uint(t) | (as_uint(x) & 0x80000000u));
}
static inline float log_f32_cpu(float x) {
  const double xd = (double)x;
  const ulong bits = as_ulong(xd);
  const ulong mant = bits & 0x000fffffffffffffUL;
  const ulong big = 1UL - ((mant - (0x6a09e667f3bcdUL + 1UL)) >> 63);
  const ulong e = ((bits >> 52) & 0x7ffUL) + big;
  const double m = as_double((mant | 0x3ff0000000000000UL) - (big << 52));
  const double s = (m - 1.0) / (m + 1.0);
  const double z = s * s;
  double p = z * (2.0 / 13) + (2.0 / 11);
  p = p * z + (2.0 / 9);
  p = p * z + (2.0 / 7);
  p = p * z + (2.0 / 5);
  p = p * z + (2.0 / 3);
  p = p * z + 2.0;
  const double ed = as_double(e + (as_ulong(EXPC_SHIFT) - 1023UL)) - EXPC_SHIFT;
  const double r = ed * 0.69314718055994530942 + s * p;
  float y = (float)r;
  y = x == 0.0f ? -INFINITY : y;
  y = x < 0.0f ? NAN : y;
  y = x == INFINITY ? INFINITY : y;
  return x != x ? x + x : y;
}
#endif
