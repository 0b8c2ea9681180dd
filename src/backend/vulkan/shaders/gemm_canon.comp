// shaders/gemm_canon.comp — the reproducible mode's float GEMM,
// out[b] = alpha·(a[b] @ b[b]) + beta·out[b], in the order of
// backend/cpu/gemm_canon.h (OpenCL: linear.cl, matmul_canon), computed on
// float BITS with integer operations (xf32.glsl; xf64.glsl for float64), so
// the CPU's bits come out whatever the device does with subnormals, double
// division or fma. -DT=f32|f16|bf16 picks the storage type (halves widen
// exactly on load and round once on store); -DT=f64 -DXD=1 computes float64
// on its bits in uint64_t (no double instruction: CONCORD_F64=0).
//
// Per output element (i, j):
//   acc = -0;  for k in order:  acc = fma(a[i,k], b[k,j], acc)
//   r = alpha·acc;  if use_beta:  r = r + beta·out[i,j]   (two roundings, no fma)
// K == 0 (an empty sum): r = beta·out[i,j] with use_beta, else +0, as the
// CPU's empty-sum path.
//
// Operands have any element strides (0 on a broadcast batch, negative on
// flipped views); out is [B, M, N] contiguous from c_off. A 16x16 workgroup
// computes a TILE x TILE block of out (TILE = 16·RB, RB specialization
// constant 0, picked by the host from the sizes), each invocation an RB x RB
// register block, one chain per output; per step of 16 along K the group
// stages a TILE x 16 panel of a and a 16 x TILE panel of b in shared memory
// (fewer shared-memory reads per fma as RB grows). The tail of a K step
// loads a = +0 and b = -0: fma(+0, -0, acc) is acc exactly (x + -0 == x for
// every x, -0 and NaN included), so the chain is unchanged and the inner
// loop needs no bound.
//
// The host splits long sums into K chunks (llvmpipe ends an invocation after
// 65535 loop iterations): `flags` bit 0 continues the chains stored in the
// scratch `acc` [B, M, N] (of the compute type: float32, or float64 for
// f64), bit 1 stores them there instead of finishing. The chain is the same
// one, only paused between dispatches.
//
// Every floating result comes from xf32.glsl / xf64.glsl (or is +0), so NaNs
// are already the canonical quiet NaN: no separate NaN pass is needed after
// this kernel.
// The workgroup grid is (ceil(N/TILE), ceil(M/TILE), B), offset by (gx0,
// gy0, gb0) when the host splits a grid larger than the device's limits.
#version 460
#include "common.glsl"
#include "dtypes.glsl"
#include "xf32.glsl"

// XT: the compute type's bits and operations (float32's, or float64's with XD).
#ifdef XD
#include "xf64.glsl"
#define XT uint64_t
#define X_FMA xd_fma
#define X_MUL xd_mul
#define X_ADD xd_add
#define X_NEG_ZERO XD_SIGN
#define X_ZERO 0ul
#define X_LOAD(a, i) ld64(a, i)
#define X_STORE(a, i, v) st64(a, i, v)
#define X_SCALAR(s) (s)
#define ACC_LOAD(a, i) ld64(a, i)
#define ACC_STORE(a, i, v) st64(a, i, v)
#else
#define XT uint
#define X_FMA xf_fma
#define X_MUL xf_mul
#define X_ADD xf_add
#define X_NEG_ZERO XF_SIGN
#define X_ZERO 0u
#define X_LOAD(a, i) XLOAD(T)(a, i)
#define X_STORE(a, i, v) XSTORE(T)(a, i, v)
#define X_SCALAR(s) uint(s)
#define ACC_LOAD(a, i) ld32(a, i)
#define ACC_STORE(a, i, v) st32(a, i, v)
#endif

layout(local_size_x = 16, local_size_y = 16) in;
#define TS 16
layout(constant_id = 0) const int RB = 1;  // register block per invocation: RB x RB outputs (1, 2 or 4)
#define TILE (16 * RB)

layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Args {
  uint64_t a, b, c, acc;
  int64_t a_off, sab, sam, sak;
  int64_t b_off, sbb, sbk, sbn;
  int64_t c_off, M, N, K;
  int64_t gx0, gy0, gb0;
  uint64_t alpha, beta;  // float32 bits (low half), float64 bits with XD
  int use_beta, flags;
};
layout(push_constant) uniform Push { Args args; } pc;

#define FLAG_CONTINUE 1
#define FLAG_PAUSE 2

shared XT sa[TS][TILE + 1];  // sa[k][row]: a panel, TILE rows x 16 k
shared XT sb[TS][TILE + 1];  // sb[k][col]: b panel, 16 k x TILE columns

void main() {
  Args g = pc.args;
  const uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
  const uint tid = ty * 16u + tx;
  const int64_t n0 = (g.gx0 + int64_t(gl_WorkGroupID.x)) * TILE;
  const int64_t m0 = (g.gy0 + int64_t(gl_WorkGroupID.y)) * TILE;
  const int64_t bt = g.gb0 + int64_t(gl_WorkGroupID.z);
  const int64_t abase = g.a_off + bt * g.sab, bbase = g.b_off + bt * g.sbb;

  // Output (i, j) of the block: row m0 + ty + 16i, column n0 + tx + 16j.
  XT acc[RB][RB];
  for (int i = 0; i < RB; ++i)
    for (int j = 0; j < RB; ++j) {
      const int64_t row = m0 + int64_t(ty) + 16 * i, col = n0 + int64_t(tx) + 16 * j;
      const bool inside = row < g.M && col < g.N;
      acc[i][j] = inside && (g.flags & FLAG_CONTINUE) != 0 ? ACC_LOAD(g.acc, (bt * g.M + row) * g.N + col) : X_NEG_ZERO;
    }

  for (int64_t k0 = 0; k0 < g.K; k0 += TS) {
    // Each invocation loads RB elements of each (256·RB)-element panel.
    for (int l = 0; l < RB; ++l) {
      const uint e = tid + 256u * uint(l);
      const uint ar = e / TS, ak = e % TS;
      const int64_t row = m0 + int64_t(ar), ka = k0 + int64_t(ak);
      sa[ak][ar] = (row < g.M && ka < g.K) ? X_LOAD(g.a, abase + row * g.sam + ka * g.sak) : X_ZERO;
      const uint bk = e / uint(TILE), bc = e % uint(TILE);
      const int64_t col = n0 + int64_t(bc), kb = k0 + int64_t(bk);
      sb[bk][bc] = (kb < g.K && col < g.N) ? X_LOAD(g.b, bbase + kb * g.sbk + col * g.sbn) : X_NEG_ZERO;
    }
    barrier();
    for (int kk = 0; kk < TS; ++kk) {
      XT av[RB], bv[RB];
      for (int i = 0; i < RB; ++i) av[i] = sa[kk][ty + 16u * uint(i)];
      for (int j = 0; j < RB; ++j) bv[j] = sb[kk][tx + 16u * uint(j)];
      for (int i = 0; i < RB; ++i)
        for (int j = 0; j < RB; ++j) acc[i][j] = X_FMA(av[i], bv[j], acc[i][j]);
    }
    barrier();
  }

  for (int i = 0; i < RB; ++i)
    for (int j = 0; j < RB; ++j) {
      const int64_t row = m0 + int64_t(ty) + 16 * i, col = n0 + int64_t(tx) + 16 * j;
      if (row >= g.M || col >= g.N) continue;
      const int64_t at = (bt * g.M + row) * g.N + col;  // element of out (and of the scratch)
      if ((g.flags & FLAG_PAUSE) != 0) {
        ACC_STORE(g.acc, at, acc[i][j]);
        continue;
      }
      const int64_t ci = g.c_off + at;
      const XT alpha = X_SCALAR(g.alpha), beta = X_SCALAR(g.beta);
      XT r;
      if (g.K == 0 && (g.flags & FLAG_CONTINUE) == 0)  // the empty sum: beta·out, or +0
        r = g.use_beta != 0 ? X_MUL(beta, X_LOAD(g.c, ci)) : X_ZERO;
      else {
        r = X_MUL(alpha, acc[i][j]);
        if (g.use_beta != 0) r = X_ADD(r, X_MUL(beta, X_LOAD(g.c, ci)));
      }
      X_STORE(g.c, ci, r);
    }
}
