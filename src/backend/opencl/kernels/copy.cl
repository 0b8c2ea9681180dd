// Data movement: copy with dtype conversion, raw-bit copies, where, fill and iota.
//
//   copy_D_S      dst (D) = cvt_D_S(src (S)), both strided (Geom)
//   copyc_D_S     the same for contiguous dst and src (element offsets)
//   bits_N        dst = src for items of N bytes (same-dtype strided copies)
//   where_N       out = cond ? a : b on items of N bytes (selection never converts)
//   fill_N        dst = v on a strided dst of N-byte items
//   canon_N       NaN items of a strided dst become the canonical NaN (integer compares)
//   iota_X        dst[i] = cvt_X_f64(start + i * step), computed in double
//   iota_int_X    dst[i] = cvt_X_i64(start + i * step), exact in long (integer dtypes, no float64 needed)
// Contiguous same-dtype copies and contiguous fills use clEnqueueCopyBuffer /
// clEnqueueFillBuffer instead.

#define COPY_KERNEL(D, S)                                                               \
  __kernel void copy_##D##_##S(Geom gd, Geom gs, __global st_##D* dst,                  \
                               __global const st_##S* src, long n) {                    \
    const long i = get_global_id(0);                                                    \
    if (i < n) dst[geom_at(gd, i)] = cvt_##D##_##S(src[geom_at(gs, i)]);                \
  }                                                                                     \
  __kernel void copyc_##D##_##S(__global st_##D* dst, long doff, __global const st_##S* src, \
                                long soff, long n) {                                    \
    const long i = get_global_id(0);                                                    \
    if (i < n) dst[doff + i] = cvt_##D##_##S(src[soff + i]);                            \
  }

#define COPY_FROM_ALL32(D) \
  COPY_KERNEL(D, b) COPY_KERNEL(D, u8) COPY_KERNEL(D, i8) COPY_KERNEL(D, i16) COPY_KERNEL(D, i32) \
  COPY_KERNEL(D, i64) COPY_KERNEL(D, f16) COPY_KERNEL(D, bf16) COPY_KERNEL(D, f32)
#if CONCORD_HAS_FP64
#define COPY_FROM_ALL(D) COPY_FROM_ALL32(D) COPY_KERNEL(D, f64)
#else
#define COPY_FROM_ALL(D) COPY_FROM_ALL32(D)
#endif

COPY_FROM_ALL(b)
COPY_FROM_ALL(u8)
COPY_FROM_ALL(i8)
COPY_FROM_ALL(i16)
COPY_FROM_ALL(i32)
COPY_FROM_ALL(i64)
COPY_FROM_ALL(f16)
COPY_FROM_ALL(bf16)
COPY_FROM_ALL(f32)
#if CONCORD_HAS_FP64
COPY_FROM_ALL(f64)
#endif

#define BITS_KERNELS(N, U)                                                                       \
  __kernel void bits_##N(Geom gd, Geom gs, __global U* dst, __global const U* src, long n) {    \
    const long i = get_global_id(0);                                                             \
    if (i < n) dst[geom_at(gd, i)] = src[geom_at(gs, i)];                                        \
  }                                                                                              \
  __kernel void where_##N(Geom gc, Geom ga, Geom gb, Geom go, __global const uchar* c,          \
                          __global const U* a, __global const U* b, __global U* out, long n) {   \
    const long i = get_global_id(0);                                                             \
    if (i < n) out[geom_at(go, i)] = c[geom_at(gc, i)] ? a[geom_at(ga, i)] : b[geom_at(gb, i)];  \
  }                                                                                              \
  __kernel void fill_##N(Geom gd, __global U* dst, U v, long n) {                                \
    const long i = get_global_id(0);                                                             \
    if (i < n) dst[geom_at(gd, i)] = v;                                                          \
  }
BITS_KERNELS(1, uchar)
BITS_KERNELS(2, ushort)
BITS_KERNELS(4, uint)
BITS_KERNELS(8, ulong)

// canon_N: NaNs (|bits| > inf's bits) become `canon`, in integer arithmetic.
#define CANON_KERNEL(N, U, ABS)                                                   \
  __kernel void canon_##N(Geom gd, __global U* dst, U inf, U canon, long n) {     \
    const long i = get_global_id(0);                                              \
    if (i >= n) return;                                                           \
    const long j = geom_at(gd, i);                                                \
    if ((U)(dst[j] & (U)(ABS)) > inf) dst[j] = canon;                             \
  }
CANON_KERNEL(2, ushort, 0x7fff)
CANON_KERNEL(4, uint, 0x7fffffffu)
CANON_KERNEL(8, ulong, 0x7fffffffffffffffUL)

#define IOTA_INT_KERNEL(X)                                                                    \
  __kernel void iota_int_##X(__global st_##X* dst, long off, long start, long step, long n) {     \
    const long i = get_global_id(0);                                                            \
    if (i < n) dst[off + i] = cvt_##X##_i64((long)((ulong)start + (ulong)i * (ulong)step));      \
  }
IOTA_INT_KERNEL(b)
IOTA_INT_KERNEL(u8)
IOTA_INT_KERNEL(i8)
IOTA_INT_KERNEL(i16)
IOTA_INT_KERNEL(i32)
IOTA_INT_KERNEL(i64)

#if CONCORD_HAS_FP64
#define IOTA_KERNEL(X)                                                                  \
  __kernel void iota_##X(__global st_##X* dst, long off, double start, double step, long n) { \
    const long i = get_global_id(0);                                                    \
    if (i < n) dst[off + i] = cvt_##X##_f64(start + (double)i * step);                  \
  }
IOTA_KERNEL(b)
IOTA_KERNEL(u8)
IOTA_KERNEL(i8)
IOTA_KERNEL(i16)
IOTA_KERNEL(i32)
IOTA_KERNEL(i64)
IOTA_KERNEL(f16)
IOTA_KERNEL(bf16)
IOTA_KERNEL(f32)
IOTA_KERNEL(f64)
#endif
