// Integer matmul: c[b] = alpha·(a[b] @ b[b]) + beta·c[b] with wrap-around
// arithmetic in the element type (beta == 0: c is only written). Built with -DT=<element type> -DU=<uint|ulong> -DTS=<tile>.
//
// Products and sums are done in the unsigned type U of at least T's width:
// arithmetic modulo 2^w gives the same low bits as the CPU's wrapping integer
// accumulation, and unsigned overflow is defined in OpenCL C (signed is not).
// float32/float64 use CLBlast, the half types go through float32 (linear.cpp).

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
