// common.cl — prepended to every kernel file (after common/*.h).
//
// Contents, by the names other kernel files may rely on:
//
//   Geom                 tensor geometry, mirrors ocl::Geom in opencl_backend.h
//                        (dims right-aligned: dim MAX_DIMS-1 is innermost; dims
//                        below MAX_DIMS-ndim are unused).
//   geom_offset(g, i)    element offset (in elements, from the buffer start) of
//                        the i-th element of g in row-major order.
//   geom_at(g, i)        the same, with a fast path when g.contiguous.
//
//   Dtype suffixes X:    b u8 i8 i16 i32 i64 f16 bf16 f32 f64 (f64 only when
//                        CONCORD_HAS_FP64).
//   st_X                 storage type in buffers: uchar uchar char short int long
//                        ushort ushort float double (halves are raw bits; bool is 0/1).
//   ct_X                 compute type: the storage type, except float for f16/bf16.
//   to_ct_X(st_X)        storage value -> compute value (exact).
//   f16_bits_to_f32, f32_to_f16_bits, bf16_bits_to_f32, f32_to_bf16_bits: the half conversions;
//   f16x8_to_f32 ... and load8_X(p, i) / store8_X(p, i, float8) for X = f16, bf16: eight at a time.
//   from_ct_X(ct_X)      compute value -> storage value (halves: rounded once, to
//                        nearest even, NaN kept quiet with its top payload bits,
//                        overflow to inf: identical to include/concord/half.h).
//   load_X(p, i)         to_ct_X(p[i]) for a __global pointer.
//   store_X(p, i, v)     p[i] = from_ct_X(v).
//   cvt_D_S(st_S) -> st_D  the conversion of src/backend/cpu/convert.h, bit for bit:
//                        float -> int truncates, saturates, NaN -> 0; int -> int
//                        wraps; any -> bool is x != 0 (NaN -> 1); float64 and
//                        int64 -> f16/bf16 round to odd to float32 first.
//   ST(X), CT(X), LOAD(X), STORE(X), TO_CT(X), FROM_CT(X), CVT(D, S)
//                        token-pasting spellings for macros generating kernels.
//
// Arithmetic is never contracted (a*b+c stays two roundings), so add/sub/mul/
// div/sqrt give the CPU backend's bits.
#pragma OPENCL FP_CONTRACT OFF
#ifndef CONCORD_HAS_FP64
#define CONCORD_HAS_FP64 0
#endif
#if CONCORD_HAS_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

// ---------------------------------------------------------------- exp
// exp of one float32: the CPU's exp_f32 (src/backend/cpu/vec_math.h, which
// holds the derivation) operation for operation, uncontracted, hence the
// CPU's bits (0.63 ULP at most). float64 keeps the library's exp.
__constant float kExpT[8] = {0x1p+0f, 0x1.172b84p+0f, 0x1.306fep+0f, 0x1.4bfdaep+0f,
                             0x1.6a09e6p+0f, 0x1.8ace54p+0f, 0x1.ae89fap+0f, 0x1.d5818ep+0f};
__constant float kExpTlo[8] = {0.0f, -0x1.c15742p-27f, 0x1.4636e2p-25f, -0x1.593abcp-25f,
                               0x1.9fcef4p-26f, 0x1.15506ep-27f, -0x1.a94b14p-26f, -0x1.822dbcp-27f};
static inline float exp_f32(float x) {
  x = x > 104.0f ? 104.0f : x;
  x = x < -104.0f ? -104.0f : x;
  const float shift = 12582912.0f;  // 1.5 * 2^23
  const float t = x * 0x1.715476p+3f + shift;
  const float kf = t - shift;
  const float r = (x - kf * (2839.0f / 32768.0f)) - kf * 0x1.0bfbe8p-18f;
  const int k = (int)(as_uint(t) - as_uint(shift));
  const int j = k & 7, e = k >> 3, e1 = e >> 1, e2 = e - e1;
  const float p = (r * (1.0f / 24.0f) + (1.0f / 6.0f)) * r + 0.5f;
  const float q = r + (r * r) * p;
  const float v = kExpT[j] + (kExpT[j] * q + kExpTlo[j]);
  return (v * as_float((uint)(e1 + 127) << 23)) * as_float((uint)(e2 + 127) << 23);
}
// exp in a float accumulator: the CPU's exp_f32 for float (softmax's and
// logsumexp's sums of exp(x - max)), the library's for double.
static inline float __attribute__((overloadable)) exp_acc(float x) { return exp_f32(x); }
#if CONCORD_HAS_FP64
static inline double __attribute__((overloadable)) exp_acc(double x) { return exp(x); }
#endif

// ---------------------------------------------------------------- geometry
#define MAX_DIMS 8
typedef struct {
  long shape[MAX_DIMS];
  long strides[MAX_DIMS];
  long offset;
  int ndim;
  int contiguous;
} Geom;

static inline long geom_offset(Geom g, long i) {
  long off = g.offset;
  if (i < 0x80000000L) {  // 32-bit division is several times faster than 64-bit
    uint r = (uint)i;
    for (int d = MAX_DIMS - 1; d >= MAX_DIMS - g.ndim; --d) {
      // A dim of 2^31 or more is larger than r: clamping it keeps q = 0.
      const uint s = g.shape[d] < 0x80000000L ? (uint)g.shape[d] : 0x80000000u;
      const uint q = r / s;
      off += (long)(r - q * s) * g.strides[d];
      r = q;
    }
    return off;
  }
  for (int d = MAX_DIMS - 1; d >= MAX_DIMS - g.ndim; --d) {
    const long s = g.shape[d];
    const long q = i / s;
    off += (i - q * s) * g.strides[d];
    i = q;
  }
  return off;
}

static inline long geom_at(Geom g, long i) { return g.contiguous ? g.offset + i : geom_offset(g, i); }

// ---------------------------------------------------------------- types
typedef uchar st_b;   typedef uchar ct_b;
typedef uchar st_u8;  typedef uchar ct_u8;
typedef char st_i8;   typedef char ct_i8;
typedef short st_i16; typedef short ct_i16;
typedef int st_i32;   typedef int ct_i32;
typedef long st_i64;  typedef long ct_i64;
typedef ushort st_f16;  typedef float ct_f16;
typedef ushort st_bf16; typedef float ct_bf16;
typedef float st_f32; typedef float ct_f32;
#if CONCORD_HAS_FP64
typedef double st_f64; typedef double ct_f64;
#endif

#define ST(X) st_##X
#define CT(X) ct_##X
#define LOAD(X) load_##X
#define STORE(X) store_##X
#define TO_CT(X) to_ct_##X
#define FROM_CT(X) from_ct_##X
#define CVT(D, S) cvt_##D##_##S

// ---------------------------------------------------------------- halves
// Both directions are branch-free selects (so work-item loops vectorise) and
// exactly half.h's conversions, NaN payloads included.

// float16 -> float32, exact.
static inline float f16_bits_to_f32(ushort h) {
  const uint sign = (uint)(h & 0x8000u) << 16;
  const uint em = h & 0x7fffu;
  const float sub = (float)em * 0x1p-24f;  // zero or subnormal: em * 2^-24, exact
  const uint big = em >= 0x7c00u ? ((em << 13) | 0x7f800000u) : ((em << 13) + 0x38000000u);
  return as_float(as_uint(em < 0x400u ? sub : as_float(big)) | sign);
}

// float32 -> float16, round to nearest even; overflow to inf; NaN made quiet
// with its top payload bits kept.
static inline ushort f32_to_f16_bits(float f) {
  const uint x = as_uint(f);
  const uint sign = (x >> 16) & 0x8000u;
  const uint ax = x & 0x7fffffffu;
  const uint nan = 0x7e00u | ((ax >> 13) & 0x3ffu);
  // Subnormal results: adding 0.5 makes the float adder round at 2^-24 steps.
  const uint sub = as_uint(as_float(ax) + 0.5f) - 0x3f000000u;
  const uint normal = (ax + 0xc8000fffu + ((ax >> 13) & 1u)) >> 13;  // rebias, round
  const uint r = ax > 0x7f800000u ? nan : ax >= 0x477ff000u ? 0x7c00u : ax < 0x38800000u ? sub : normal;
  return (ushort)(sign | r);
}

static inline float bf16_bits_to_f32(ushort b) { return as_float((uint)b << 16); }

static inline ushort f32_to_bf16_bits(float f) {
  uint x = as_uint(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (ushort)((x >> 16) | 0x40u);  // quiet NaN
  x += 0x7fffu + ((x >> 16) & 1u);  // nearest even; overflow carries into inf
  return (ushort)(x >> 16);
}

// int64 -> double -> float32 with round-to-odd in the second step (convert.h's
// path to a half), in integer arithmetic so it needs no float64.
static inline float i64_to_f32_rto(long v) {
  ulong u = v < 0 ? (ulong)0 - (ulong)v : (ulong)v;
  if (u >= (1ul << 53)) {  // the int64 -> double rounding (nearest even, 53 bits)
    const uint sh = (uint)(64 - clz(u)) - 53u;
    const ulong mask = (1ul << sh) - 1ul, halfway = 1ul << (sh - 1u);
    const ulong rem = u & mask;
    u &= ~mask;
    if (rem > halfway || (rem == halfway && ((u >> sh) & 1ul))) u += 1ul << sh;
  }
  float r;
  if (u < (1ul << 24)) {
    r = (float)u;
  } else {  // keep 24 bits; a nonzero remainder sets the last one
    const int sh = (64 - (int)clz(u)) - 24;
    uint t = (uint)(u >> sh);
    if (u & ((1ul << sh) - 1ul)) t |= 1u;
    r = ldexp((float)t, sh);
  }
  return v < 0 ? -r : r;
}

#if CONCORD_HAS_FP64
// double -> float rounding to odd (as convert.h), so one more rounding to a
// half is exact.
static inline float f64_to_f32_rto(double d) {
  float f = (float)d;
  if ((double)f == d || isnan(d)) return f;
  if (fabs((double)f) > fabs(d)) f = nextafter(f, 0.0f);
  return as_float(as_uint(f) | 1u);
}
#endif

// Eight at a time, as vectors (the same bits as the scalar versions).
static inline float8 f16x8_to_f32(ushort8 h) {
  const uint8 hh = convert_uint8(h);
  const uint8 sign = (hh & 0x8000u) << 16;
  const uint8 em = hh & 0x7fffu;
  const float8 sub = convert_float8(em) * 0x1p-24f;
  const uint8 big = em >= 0x7c00u ? ((em << 13) | 0x7f800000u) : ((em << 13) + 0x38000000u);
  return as_float8((em < 0x400u ? as_uint8(sub) : big) | sign);
}
static inline ushort8 f32x8_to_f16(float8 f) {
  const uint8 x = as_uint8(f);
  const uint8 sign = (x >> 16) & 0x8000u;
  const uint8 ax = x & 0x7fffffffu;
  const uint8 nan = 0x7e00u | ((ax >> 13) & 0x3ffu);
  const uint8 sub = as_uint8(as_float8(ax) + 0.5f) - 0x3f000000u;
  const uint8 normal = (ax + 0xc8000fffu + ((ax >> 13) & 1u)) >> 13;
  const uint8 r = ax > 0x7f800000u ? nan : ax >= 0x477ff000u ? (uint8)0x7c00u : ax < 0x38800000u ? sub : normal;
  return convert_ushort8(sign | r);
}
static inline float8 bf16x8_to_f32(ushort8 b) { return as_float8(convert_uint8(b) << 16); }
static inline ushort8 f32x8_to_bf16(float8 f) {
  const uint8 x = as_uint8(f);
  const uint8 r = (x & 0x7fffffffu) > 0x7f800000u ? ((x >> 16) | 0x40u) : ((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
  return convert_ushort8(r);
}
// load8_X / store8_X (X = f16, bf16): elements i .. i+7 of p as float8.
static inline float8 load8_f16(__global const ushort* p, long i) { return f16x8_to_f32(vload8(0, p + i)); }
#if CONCORD_NAN_RULE
static inline ushort8 canon8(ushort8 h, float8 v, ushort c) { return select(h, (ushort8)(c), as_ushort8(convert_short8(isnan(v)))); }
#else
static inline ushort8 canon8(ushort8 h, float8 v, ushort c) { return h; }
#endif
static inline void store8_f16(__global ushort* p, long i, float8 v) { vstore8(canon8(f32x8_to_f16(v), v, 0x7e00), 0, p + i); }
static inline float8 load8_bf16(__global const ushort* p, long i) { return bf16x8_to_f32(vload8(0, p + i)); }
static inline void store8_bf16(__global ushort* p, long i, float8 v) { vstore8(canon8(f32x8_to_bf16(v), v, 0x7fc0), 0, p + i); }

// ---------------------------------------------------------------- compute <-> storage
#define IDENTITY_CT(X) \
  static inline ct_##X to_ct_##X(st_##X v) { return v; } \
  static inline st_##X from_ct_##X(ct_##X v) { return v; }
IDENTITY_CT(b)
IDENTITY_CT(u8)
IDENTITY_CT(i8)
IDENTITY_CT(i16)
IDENTITY_CT(i32)
IDENTITY_CT(i64)
IDENTITY_CT(f32)
#if CONCORD_HAS_FP64
IDENTITY_CT(f64)
#endif
static inline float to_ct_f16(ushort v) { return f16_bits_to_f32(v); }
static inline ushort from_ct_f16(float v) { return f32_to_f16_bits(v); }
static inline float to_ct_bf16(ushort v) { return bf16_bits_to_f32(v); }
static inline ushort from_ct_bf16(float v) { return f32_to_bf16_bits(v); }

#define LOAD_STORE(X) \
  static inline ct_##X load_##X(__global const st_##X* p, long i) { return to_ct_##X(p[i]); } \
  static inline void store_##X(__global st_##X* p, long i, ct_##X v) { p[i] = from_ct_##X(v); }
LOAD_STORE(b)
LOAD_STORE(u8)
LOAD_STORE(i8)
LOAD_STORE(i16)
LOAD_STORE(i32)
LOAD_STORE(i64)
#if CONCORD_NAN_RULE
// The reproducible mode's NaN rule in the stores (elementwise.cl built with
// -DCONCORD_NAN_RULE=1; core/nan_rule.h): every NaN stored is the canonical
// quiet NaN of its dtype, written as integer bits so no driver can change it.
#define LOAD_STORE_CANON(X, U, CANON)                                                                      \
  static inline ct_##X load_##X(__global const st_##X* p, long i) { return to_ct_##X(p[i]); }             \
  static inline void store_##X(__global st_##X* p, long i, ct_##X v) {                                      \
    if (isnan(v)) ((__global U*)p)[i] = CANON;                                                              \
    else p[i] = from_ct_##X(v);                                                                             \
  }
LOAD_STORE_CANON(f16, ushort, (ushort)0x7e00)
LOAD_STORE_CANON(bf16, ushort, (ushort)0x7fc0)
LOAD_STORE_CANON(f32, uint, 0x7fc00000u)
#if CONCORD_HAS_FP64
LOAD_STORE_CANON(f64, ulong, 0x7ff8000000000000ul)
#endif
#else
LOAD_STORE(f16)
LOAD_STORE(bf16)
LOAD_STORE(f32)
#if CONCORD_HAS_FP64
LOAD_STORE(f64)
#endif
#endif

// ---------------------------------------------------------------- conversions
// Integer storage types by suffix, with their limits, for float -> int.
#define LIM_MIN_u8 0
#define LIM_MAX_u8 UCHAR_MAX
#define LIM_MIN_i8 CHAR_MIN
#define LIM_MAX_i8 CHAR_MAX
#define LIM_MIN_i16 SHRT_MIN
#define LIM_MAX_i16 SHRT_MAX
#define LIM_MIN_i32 INT_MIN
#define LIM_MAX_i32 INT_MAX
#define LIM_MIN_i64 LONG_MIN
#define LIM_MAX_i64 LONG_MAX
#define UNSIGNED_u8 uchar
#define UNSIGNED_i8 uchar
#define UNSIGNED_i16 ushort
#define UNSIGNED_i32 uint
#define UNSIGNED_i64 ulong

// float (F = float or double) -> integer X: NaN -> 0, saturate, truncate.
// The upper bound is compared against 2^bits computed in F, like convert.h.
#define FLOAT_TO_INT(X, F)                                              \
  static inline st_##X f2i_##X##_##F(F v) {                                    \
    if (isnan(v)) return (st_##X)0;                                     \
    const F lo = (F)LIM_MIN_##X;                                        \
    const F hi_excl = (F)LIM_MAX_##X + (F)1;                            \
    if (v <= lo) return (st_##X)LIM_MIN_##X;                            \
    if (v >= hi_excl) return (st_##X)LIM_MAX_##X;                       \
    return (st_##X)v;                                                   \
  }
FLOAT_TO_INT(u8, float)
FLOAT_TO_INT(i8, float)
FLOAT_TO_INT(i16, float)
FLOAT_TO_INT(i32, float)
FLOAT_TO_INT(i64, float)
#if CONCORD_HAS_FP64
FLOAT_TO_INT(u8, double)
FLOAT_TO_INT(i8, double)
FLOAT_TO_INT(i16, double)
FLOAT_TO_INT(i32, double)
FLOAT_TO_INT(i64, double)
#endif

// Integer (and bool) -> integer: two's complement wrap-around, done in unsigned
// arithmetic so no conversion is out of range.
#define INT_TO_INT(D, S) \
  static inline st_##D cvt_##D##_##S(st_##S v) { return as_##st_##D((UNSIGNED_##D)(ulong)(long)v); }
// as_st_X spellings (as_type needs the exact type name).
#define as_st_u8 as_uchar
#define as_st_i8 as_char
#define as_st_i16 as_short
#define as_st_i32 as_int
#define as_st_i64 as_long
#define INT_SOURCES(D) INT_TO_INT(D, u8) INT_TO_INT(D, i8) INT_TO_INT(D, i16) INT_TO_INT(D, i32) INT_TO_INT(D, i64) INT_TO_INT(D, b)
INT_SOURCES(u8)
INT_SOURCES(i8)
INT_SOURCES(i16)
INT_SOURCES(i32)
INT_SOURCES(i64)

// Any -> bool: x != 0 (NaN is nonzero; halves compare as floats, so -0 -> 0).
#define TO_BOOL(S) static inline uchar cvt_b_##S(st_##S v) { return to_ct_##S(v) != (ct_##S)0 ? 1 : 0; }
TO_BOOL(u8)
TO_BOOL(i8)
TO_BOOL(i16)
TO_BOOL(i32)
TO_BOOL(i64)
TO_BOOL(f16)
TO_BOOL(bf16)
TO_BOOL(f32)
#if CONCORD_HAS_FP64
TO_BOOL(f64)
#endif
static inline uchar cvt_b_b(uchar v) { return v; }

// Floats -> integers.
#define FLOAT_SOURCES(D) \
  static inline st_##D cvt_##D##_f32(float v) { return f2i_##D##_float(v); } \
  static inline st_##D cvt_##D##_f16(ushort v) { return f2i_##D##_float(f16_bits_to_f32(v)); } \
  static inline st_##D cvt_##D##_bf16(ushort v) { return f2i_##D##_float(bf16_bits_to_f32(v)); }
FLOAT_SOURCES(u8)
FLOAT_SOURCES(i8)
FLOAT_SOURCES(i16)
FLOAT_SOURCES(i32)
FLOAT_SOURCES(i64)
#if CONCORD_HAS_FP64
static inline uchar cvt_u8_f64(double v) { return f2i_u8_double(v); }
static inline char cvt_i8_f64(double v) { return f2i_i8_double(v); }
static inline short cvt_i16_f64(double v) { return f2i_i16_double(v); }
static inline int cvt_i32_f64(double v) { return f2i_i32_double(v); }
static inline long cvt_i64_f64(double v) { return f2i_i64_double(v); }
#endif

// -> float32 (integers round to nearest even; halves widen exactly).
#define TO_F32_FROM_INT(S) static inline float cvt_f32_##S(st_##S v) { return (float)v; }
TO_F32_FROM_INT(b)
TO_F32_FROM_INT(u8)
TO_F32_FROM_INT(i8)
TO_F32_FROM_INT(i16)
TO_F32_FROM_INT(i32)
TO_F32_FROM_INT(i64)
static inline float cvt_f32_f16(ushort v) { return f16_bits_to_f32(v); }
static inline float cvt_f32_bf16(ushort v) { return bf16_bits_to_f32(v); }
static inline float cvt_f32_f32(float v) { return v; }

// -> halves: through float32 (one rounding from int32 and narrower, which is
// exact below 2^24), int64 and float64 through round-to-odd.
#define TO_HALF(H)                                                                   \
  static inline ushort cvt_##H##_b(uchar v) { return from_ct_##H((float)v); }               \
  static inline ushort cvt_##H##_u8(uchar v) { return from_ct_##H((float)v); }              \
  static inline ushort cvt_##H##_i8(char v) { return from_ct_##H((float)v); }               \
  static inline ushort cvt_##H##_i16(short v) { return from_ct_##H((float)v); }             \
  static inline ushort cvt_##H##_i32(int v) { return from_ct_##H((float)v); }               \
  static inline ushort cvt_##H##_i64(long v) { return from_ct_##H(i64_to_f32_rto(v)); }     \
  static inline ushort cvt_##H##_f32(float v) { return from_ct_##H(v); }
TO_HALF(f16)
TO_HALF(bf16)
static inline ushort cvt_f16_f16(ushort v) { return v; }
static inline ushort cvt_bf16_bf16(ushort v) { return v; }
static inline ushort cvt_f16_bf16(ushort v) { return f32_to_f16_bits(bf16_bits_to_f32(v)); }
static inline ushort cvt_bf16_f16(ushort v) { return f32_to_bf16_bits(f16_bits_to_f32(v)); }

#if CONCORD_HAS_FP64
#define TO_F64_FROM_INT(S) static inline double cvt_f64_##S(st_##S v) { return (double)v; }
TO_F64_FROM_INT(b)
TO_F64_FROM_INT(u8)
TO_F64_FROM_INT(i8)
TO_F64_FROM_INT(i16)
TO_F64_FROM_INT(i32)
TO_F64_FROM_INT(i64)
static inline double cvt_f64_f16(ushort v) { return (double)f16_bits_to_f32(v); }
static inline double cvt_f64_bf16(ushort v) { return (double)bf16_bits_to_f32(v); }
static inline double cvt_f64_f32(float v) { return (double)v; }
static inline double cvt_f64_f64(double v) { return v; }
static inline float cvt_f32_f64(double v) { return (float)v; }
static inline ushort cvt_f16_f64(double v) { return f32_to_f16_bits(f64_to_f32_rto(v)); }
static inline ushort cvt_bf16_f64(double v) { return f32_to_bf16_bits(f64_to_f32_rto(v)); }
#endif

// Bool -> integer types come from INT_SOURCES (0/1); integer -> itself is the identity.
