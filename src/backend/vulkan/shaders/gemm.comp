// shaders/gemm.comp — batched GEMM: out[b] = alpha·(a[b] @ b[b]) + beta·out[b]
// for a [B,M,K] and b [B,K,N] with any element strides (0 on a broadcast
// batch, negative on flipped views) and out [B,M,N] contiguous. -DT=X picks
// the dtype (dtypes.glsl suffix); one variant per dtype.
//
// Tiling: a workgroup of 16x16 invocations computes a TILE x TILE block of
// out (TILE = 16·RB); per step of 16 along K it stages a TILE x 16 panel of a
// and a 16 x TILE panel of b in shared memory, and each invocation
// accumulates an RB x RB register block (rows ty + 16i, columns tx + 16j:
// neighbouring invocations read neighbouring shared words and write
// neighbouring outputs). RB is specialization constant 0: 1, 4 or 8, picked
// by the host from the sizes (8 for 8-byte types only with 32 KiB of shared
// memory). Out-of-range rows, columns and K steps load zeros, so any M, N, K
// works (K = 0: beta·out).
//
// Accumulation:
//   f32, f16, bf16   float32 with fma; halves are widened on load, alpha and
//                    beta apply in float32 and the store rounds once
//   f16n             float16 with fma (variant gemm_f16n, T_IS_F16N: the
//                    float16 kernel of Path::native_f16, on devices with
//                    shaderFloat16): products, sums, alpha and beta in float16
//   f64              float64 with fma (variant built with CONCORD_F64=1)
//   integers         the unsigned twin of at least 32 bits (uint64 for i64):
//                    products and sums wrap modulo 2^w like the CPU's loop,
//                    and the store keeps the low bits of the type
//
// The workgroup grid is (ceil(N/TILE), ceil(M/TILE), B), offset by (gx0, gy0,
// gb0) when the host splits a grid larger than the device's group-count limits.
#version 460
#if defined(T_IS_F16N)
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#endif
#include "common.glsl"
#include "dtypes.glsl"

layout(local_size_x = 16, local_size_y = 16) in;

layout(constant_id = 0) const int RB = 4;  // register block per invocation: RB x RB
#define TILE (16 * RB)
#define TK 16

#if defined(T_IS_INT)
#if defined(T_IS_I64)
#define ACC uint64_t
#define ACC_ZERO 0ul
#define SCALAR(bits) (bits)
#else
#define ACC uint
#define ACC_ZERO 0u
#define SCALAR(bits) uint(bits)
#endif
#define MAD(x, y, acc) ((acc) + (x) * (y))
#define LOADT(p, i) ACC(LOAD(T)(p, i))
#define STORET(p, i, v) STORE(T)(p, i, v)
#elif defined(T_IS_F16N)
#define ACC float16_t
#define ACC_ZERO float16_t(0.0)
// Loads, stores and alpha/beta pass through float32 exactly (no 16-bit integer arithmetic needed).
#define SCALAR(bits) float16_t(uintBitsToFloat(uint(bits)))
#define MAD(x, y, acc) fma(x, y, acc)
#define LOADT(p, i) float16_t(LOAD(T)(p, i))
#define STORET(p, i, v) STORE(T)(p, i, float(v))
#elif defined(T_IS_F64)
#define ACC double
#define ACC_ZERO 0.0lf
#define SCALAR(bits) uint64BitsToDouble(bits)
#define MAD(x, y, acc) fma(x, y, acc)
#define LOADT(p, i) LOAD(T)(p, i)
#define STORET(p, i, v) STORE(T)(p, i, v)
#else
#define ACC float
#define ACC_ZERO 0.0
#define SCALAR(bits) uintBitsToFloat(uint(bits))
#define MAD(x, y, acc) fma(x, y, acc)
#define LOADT(p, i) LOAD(T)(p, i)
#define STORET(p, i, v) STORE(T)(p, i, v)
#endif

layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Args {
  uint64_t a, b, c;
  int64_t a_off, sab, sam, sak;
  int64_t b_off, sbb, sbk, sbn;
  int64_t c_off, M, N, K;
  uint64_t alpha, beta;  // bits of the compute type (float bits in the low word for float variants)
  int64_t gx0, gy0, gb0;
  int use_beta, pad;
};
layout(push_constant) uniform Push { Args args; } pc;

// +1 column (specialization constant 1, PAD) so that the panel stores of a
// K-fast load do not all hit one bank; the host sets it where the two padded
// panels still fit the device's shared memory (RB = 8 with 8-byte types may not).
layout(constant_id = 1) const int PAD = 1;
shared ACC sa[TK][TILE + PAD];
shared ACC sb[TK][TILE + PAD];

void main() {
  Args g = pc.args;
  const uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
  const uint tid = ty * 16u + tx;
  const int64_t n0 = (g.gx0 + int64_t(gl_WorkGroupID.x)) * TILE;
  const int64_t m0 = (g.gy0 + int64_t(gl_WorkGroupID.y)) * TILE;
  const int64_t bt = g.gb0 + int64_t(gl_WorkGroupID.z);
  const int64_t abase = g.a_off + bt * g.sab, bbase = g.b_off + bt * g.sbb;
  // Which index of a panel neighbouring invocations load: the one of unit stride when there is one.
  const bool a_kfast = abs(g.sak) <= abs(g.sam);
  const bool b_nfast = abs(g.sbn) <= abs(g.sbk);

  ACC acc[RB][RB];
  for (int i = 0; i < RB; ++i)
    for (int j = 0; j < RB; ++j) acc[i][j] = ACC_ZERO;

  for (int64_t k0 = 0; k0 < g.K; k0 += TK) {
    // Each invocation loads RB elements of each (256·RB)-element panel.
    for (uint l = 0u; l < uint(RB); ++l) {
      const uint e = tid + 256u * l;
      const uint ar = a_kfast ? e / TK : e % uint(TILE), ak = a_kfast ? e % TK : e / uint(TILE);
      const int64_t row = m0 + int64_t(ar), ka = k0 + int64_t(ak);
      sa[ak][ar] = (row < g.M && ka < g.K) ? LOADT(g.a, abase + row * g.sam + ka * g.sak) : ACC_ZERO;
      const uint bc = b_nfast ? e % uint(TILE) : e / TK, bk = b_nfast ? e / uint(TILE) : e % TK;
      const int64_t col = n0 + int64_t(bc), kb = k0 + int64_t(bk);
      sb[bk][bc] = (col < g.N && kb < g.K) ? LOADT(g.b, bbase + kb * g.sbk + col * g.sbn) : ACC_ZERO;
    }
    barrier();
    for (int kk = 0; kk < TK; ++kk) {
      ACC av[RB], bv[RB];
      for (int i = 0; i < RB; ++i) av[i] = sa[kk][ty + 16u * uint(i)];
      for (int j = 0; j < RB; ++j) bv[j] = sb[kk][tx + 16u * uint(j)];
      for (int i = 0; i < RB; ++i)
        for (int j = 0; j < RB; ++j) acc[i][j] = MAD(av[i], bv[j], acc[i][j]);
    }
    barrier();
  }

  const ACC alpha = SCALAR(g.alpha), beta = SCALAR(g.beta);
  for (int i = 0; i < RB; ++i) {
    const int64_t row = m0 + int64_t(ty) + 16 * i;
    if (row >= g.M) continue;
    for (int j = 0; j < RB; ++j) {
      const int64_t col = n0 + int64_t(tx) + 16 * j;
      if (col >= g.N) continue;
      const int64_t at = g.c_off + (bt * g.M + row) * g.N + col;
      // K == 0 is an empty sum: beta·out alone (beta == 0 writes zeros).
      ACC r = g.K == 0 ? ACC_ZERO : alpha * acc[i][j];
      if (g.use_beta != 0) r = g.K == 0 ? beta * LOADT(g.c, at) : r + beta * LOADT(g.c, at);
      STORET(g.c, at, r);
    }
  }
}
