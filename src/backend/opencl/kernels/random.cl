// rand / randn / randint (host side: random.cpp). Element i is a pure function
// of (seed, offset + i) through backend/common/philox.h, the same code the CPU
// kernels run, so both give the same bits. Options: -DOS=<out dtype suffix>.

// common.cl's ST(X), ... paste their arguments unexpanded: these expand OS first.
#define E_ST(X) ST(X)
#define E_FROM_CT(X) FROM_CT(X)
#define E_CVT(D, S) CVT(D, S)

// rand: uniform in [0, 1); the half types clamp below 1 before rounding.
__kernel void rand_uniform(__global E_ST(OS)* out, ulong seed, ulong offset, long n, long oo) {
  const long i = get_global_id(0);
  if (i >= n) return;
  const concord_u32x4 x = concord_philox_element(seed, offset + (ulong)i);
#if defined(OS_F64)
  out[oo + i] = concord_uniform_f64(x.w0, x.w1);
#elif defined(OS_F16)
  out[oo + i] = from_ct_f16(concord_uniform_f32_below(x.w0, CONCORD_F16_BELOW_ONE));
#elif defined(OS_BF16)
  out[oo + i] = from_ct_bf16(concord_uniform_f32_below(x.w0, CONCORD_BF16_BELOW_ONE));
#else
  out[oo + i] = concord_uniform_f32(x.w0);
#endif
}

// randn: Box-Muller; the half types round the float32 normal once.
__kernel void rand_normal(__global E_ST(OS)* out, ulong seed, ulong offset, long n, long oo) {
  const long i = get_global_id(0);
  if (i >= n) return;
  const concord_u32x4 x = concord_philox_element(seed, offset + (ulong)i);
#if defined(OS_F64)
  out[oo + i] = concord_normal_f64(x);
#else
  out[oo + i] = E_FROM_CT(OS)(concord_normal_f32(x.w0, x.w1));
#endif
}

// randint: low + an offset in [0, range) (range = high - low modulo 2^64),
// converted to the dtype as an int64 (convert.h's rules).
__kernel void rand_int(__global E_ST(OS)* out, ulong seed, ulong offset, long n, long oo, ulong low, ulong range) {
  const long i = get_global_id(0);
  if (i >= n) return;
  const concord_u32x4 x = concord_philox_element(seed, offset + (ulong)i);
  const long v = (long)(low + concord_randint_offset(x.w0, x.w1, range));
  out[oo + i] = E_CVT(OS, i64)(v);
}
