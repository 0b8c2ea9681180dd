// pow(x, number) with the number's full double value (host side:
// elementwise.cpp, OpenClBackend::pow_scalar; the scheme and its bound:
// ScalarExponent in src/core/backend.h). Strided, one element per work-item;
// float16/bfloat16 compute in float32 and round once on store.
//
//   pows_X(gx, go, x, out, hi, lo, flags, n)   the split scheme, float32 only
//                                              (flags: 1 odd integer, 2 integer)
//   pows64_X(gx, go, x, out, e, n)             float(pow(double(x), e)), with float64
//   pows64c_X(gx, go, x, out, e, n)            the reproducible mode's pow (canon_pow.h, canon_pow_f64.h), with float64
//   powsx_X(gx, go, x, out, e_bits, n)         the same without float64: xmath.cl's pow, e as its double's bits

#include "xmath.cl"  // powsx_X, without float64

// e = hi + lo: pow(|x|, hi) * (1 + lo * ln|x|), then the sign of x's power.
static inline float pow_split(float x, float hi, float lo, int flags) {
  const float a = fabs(x);
  float r = pow(a, hi);
  if (lo != 0.0f && isfinite(r) && r != 0.0f) {
    const float t = lo * log(a);
    r = r + r * t;
  }
  if (signbit(x) && !isnan(x)) {
    if (flags & 1) r = -r;
    else if (!(flags & 2) && a != 0.0f && !isinf(a)) r = NAN;
  }
  return r;
}

#define POW_SPLIT_KERNEL(X)                                                                        \
  __kernel void pows_##X(Geom gx, Geom go, __global const st_##X* x, __global st_##X* out,         \
                         float hi, float lo, int flags, long n) {                                  \
    const long i = get_global_id(0);                                                               \
    if (i < n) store_##X(out, geom_at(go, i), pow_split(load_##X(x, geom_at(gx, i)), hi, lo, flags)); \
  }
POW_SPLIT_KERNEL(f32)
POW_SPLIT_KERNEL(f16)
POW_SPLIT_KERNEL(bf16)

#if CONCORD_HAS_FP64
#define POW_WIDE_KERNEL(X)                                                                         \
  __kernel void pows64_##X(Geom gx, Geom go, __global const st_##X* x, __global st_##X* out,       \
                           double e, long n) {                                                     \
    const long i = get_global_id(0);                                                               \
    if (i < n) store_##X(out, geom_at(go, i), (ct_##X)pow((double)load_##X(x, geom_at(gx, i)), e)); \
  }
POW_WIDE_KERNEL(f32)
POW_WIDE_KERNEL(f16)
POW_WIDE_KERNEL(bf16)
POW_WIDE_KERNEL(f64)

// The reproducible mode (float32 and the halves): common/canon_pow.h's pow with
// the double exponent, the code the CPU runs in the mode, so the CPU's bits.
#define POW_CANON_KERNEL(X)                                                                        \
  __kernel void pows64c_##X(Geom gx, Geom go, __global const st_##X* x, __global st_##X* out,      \
                            double e, long n) {                                                    \
    const long i = get_global_id(0);                                                               \
    if (i < n) store_##X(out, geom_at(go, i), (ct_##X)concord_pow_f32(load_##X(x, geom_at(gx, i)), e)); \
  }
POW_CANON_KERNEL(f32)
POW_CANON_KERNEL(f16)
POW_CANON_KERNEL(bf16)
// float64: common/canon_pow_f64.h, the CPU's code in the mode.
__kernel void pows64c_f64(Geom gx, Geom go, __global const st_f64* x, __global st_f64* out, double e, long n) {
  const long i = get_global_id(0);
  if (i < n) store_f64(out, geom_at(go, i), concord_pow_f64(load_f64(x, geom_at(gx, i)), e));
}
#endif

#if !CONCORD_HAS_FP64
// The reproducible mode without float64 (float32 and the halves): canon_pow.h's
// algorithm on bits (xmath.cl), the exponent's full double value as its bits.
#define POW_BITS_KERNEL(X)                                                                         \
  __kernel void powsx_##X(Geom gx, Geom go, __global const st_##X* x, __global st_##X* out,        \
                          ulong e, long n) {                                                       \
    const long i = get_global_id(0);                                                               \
    if (i < n) store_##X(out, geom_at(go, i), as_float(xm_pow(as_uint((float)load_##X(x, geom_at(gx, i))), e))); \
  }
POW_BITS_KERNEL(f32)
POW_BITS_KERNEL(f16)
POW_BITS_KERNEL(bf16)
#endif
