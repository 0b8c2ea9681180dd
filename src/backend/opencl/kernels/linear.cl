// Integer matmul: c[b] = alpha·(a[b] @ b[b]) + beta·c[b] with wrap-around
// arithmetic in the element type (beta == 0: c is only written). Built with -DT=<element type> -DU=<uint|ulong> -DTS=<tile>.
//
// Products and sums are done in the unsigned type U of at least T's width:
// arithmetic modulo 2^w gives the same low bits as the CPU's wrapping integer
// accumulation, and unsigned overflow is defined in OpenCL C (signed is not).
// float32/float64 use CLBlast, the half types go through float32 (linear.cpp).
//
// matmul_canon (built with -DX=<dtype suffix> -DTS=<tile>): the reproducible
// mode's float GEMM, the order of operations of backend/cpu/gemm_canon.h:
// per output, acc = -0, then acc = fma(a[i,k], b[k,j], acc) for k in order
// (OpenCL's fma is correctly rounded; the K tail is not padded, so no extra
// +0 reaches acc), then r = alpha·acc, r = r + beta·c (FP_CONTRACT is off in
// common.cl), rounded once to the storage type. Halves compute in float32.

#ifdef T
__kernel void matmul_int(__global const T* a, long a_off, long sab, long sam, long sak,
                         __global const T* b, long b_off, long sbb, long sbk, long sbn,
                         __global T* c, long c_off, long M, long N, long K, long alpha, long beta) {
  __local U ta[TS][TS];
  __local U tb[TS][TS];
  const int lx = get_local_id(0), ly = get_local_id(1);
  const long col = get_global_id(0), row = get_global_id(1), bt = get_global_id(2);
  const long abase = a_off + bt * sab, bbase = b_off + bt * sbb;
  U acc = 0;
  for (long k0 = 0; k0 < K; k0 += TS) {
    const long ka = k0 + lx, kb = k0 + ly;
    ta[ly][lx] = (row < M && ka < K) ? (U)a[abase + row * sam + ka * sak] : (U)0;
    tb[ly][lx] = (kb < K && col < N) ? (U)b[bbase + kb * sbk + col * sbn] : (U)0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int kk = 0; kk < TS; ++kk) acc += ta[ly][kk] * tb[kk][lx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (row < M && col < N) {
    const long at = c_off + (bt * M + row) * N + col;
    acc *= (U)alpha;
    if (beta != 0) acc += (U)beta * (U)c[at];
    c[at] = (T)acc;
  }
}
#endif

#ifdef X
// X is a macro (f32, ...): paste its value, not its name.
#define MM_CAT_(a, b) a##b
#define MM_CAT(a, b) MM_CAT_(a, b)
#define S_X MM_CAT(st_, X)
#define C_X MM_CAT(ct_, X)
#define LOAD_X MM_CAT(load_, X)
#define STORE_X MM_CAT(store_, X)
__kernel void matmul_canon(__global const S_X* a, long a_off, long sab, long sam, long sak,
                           __global const S_X* b, long b_off, long sbb, long sbk, long sbn,
                           __global S_X* c, long c_off, long M, long N, long K, C_X alpha, C_X beta,
                           int use_beta) {
  __local C_X ta[TS][TS];
  __local C_X tb[TS][TS];
  const int lx = get_local_id(0), ly = get_local_id(1);
  const long col = get_global_id(0), row = get_global_id(1), bt = get_global_id(2);
  const long abase = a_off + bt * sab, bbase = b_off + bt * sbb;
  C_X acc = -(C_X)0;
  for (long k0 = 0; k0 < K; k0 += TS) {
    const long ka = k0 + lx, kb = k0 + ly;
    ta[ly][lx] = (row < M && ka < K) ? LOAD_X(a, abase + row * sam + ka * sak) : (C_X)0;
    tb[ly][lx] = (kb < K && col < N) ? LOAD_X(b, bbase + kb * sbk + col * sbn) : (C_X)0;
    barrier(CLK_LOCAL_MEM_FENCE);
    const int kn = (int)min((long)TS, K - k0);
    for (int kk = 0; kk < kn; ++kk) acc = fma(ta[ly][kk], tb[kk][lx], acc);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (row < M && col < N) {
    const long at = c_off + (bt * M + row) * N + col;
    C_X r = alpha * acc;
    if (use_beta != 0) r = r + beta * LOAD_X(c, at);
    STORE_X(c, at, r);
  }
}
#endif
