// shaders/gemm_coop.comp — float16 GEMM on matrix units through
// GL_NV_cooperative_matrix (VK_NV_cooperative_matrix: NVIDIA's tensor cores):
// out[b] = alpha·(a[b] @ b[b]) + beta·out[b], with the Args block, grid and
// operand rules of gemm.comp (any element strides, out [B,M,N] contiguous).
//
// Numerics: the products of two float16 values are exact in float32 and the
// 16x16x16 steps accumulate in float32 (the fcoopmatNV<32> accumulators), so
// the error model is gemm_f16's (float32 accumulation, bound 2·k·u32·|A||B|),
// only the order of the sums inside a step is the matrix unit's. alpha and
// beta apply in float32 and the float16 store rounds once, as in gemm.comp.
//
// Tiling: 256 invocations (8 subgroups of 32; the host uses this variant only
// where the subgroup size is 32) compute a 128x128 block of out, each
// subgroup a 32x64 part as 2x4 tiles of 16x16. Per 32-deep K step the block
// stages a 128x32 panel of a and a 32x128 panel of b in shared memory, as
// raw float16 bits, zero outside the matrices (so any M, N, K works). A panel
// is staged along its operand's faster index: a with unit k stride as [m][k]
// rows (row-major tiles), a with unit m stride as [k][m] rows (column-major
// tiles); b likewise. Each invocation moves runs of 8 elements: one 16-byte
// load where the host vouched for the alignment (Args.flags) and the run is
// inside the matrix, else 8 element loads. The next panels are loaded into
// registers while the current ones are multiplied. The result leaves through
// a per-subgroup 16x16 scratch so that ragged edges, alpha, beta and the
// rounding store are plain per-element code.
//
// Shared-memory offsets and strides of the cooperative loads and stores are
// multiples of 16 bytes (the extension's alignment rule).
#version 460
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#include "common.glsl"
#include "dtypes.glsl"

layout(local_size_x = 256) in;

#define BM 128
#define BN 128
#define BK 32
#define ROW_K 40    // halves per staged row along k: BK + 8
#define ROW_MN 136  // halves per staged row along m or n: 128 + 8
#define PANEL 5120  // halves of a staged panel: max(128·ROW_K, 32·ROW_MN)

layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Args {
  uint64_t a, b, c;
  int64_t a_off, sab, sam, sak;
  int64_t b_off, sbb, sbk, sbn;
  int64_t c_off, M, N, K;
  uint64_t alpha, beta;  // float32 bits in the low word
  int64_t gx0, gy0, gb0;
  int use_beta, flags;   // flags: 1 = a's runs may be read 16 bytes at a time, 2 = b's
};
layout(push_constant) uniform Push { Args args; } pc;
CONCORD_REF(Run16, uvec4, 16);

shared float16_t sa[PANEL];
shared float16_t sb[PANEL];
shared float scratch[8 * 256];

#define ACC fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>
#define OPND fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>

// One operand's panel geometry: element (row r, col k) of the operand sits at
// base + r·s_r + k·s_k, for r < R (m of a, n of b) and k < K.
struct Operand {
  uint64_t p;
  int64_t base, s_r, s_k, R, K;
  bool kfast, vec;
};

// Run q (0..511) of the panel at (r0, k0): 8 halves along the faster index,
// as 4 words, and the offset in halves of its place in the staged panel.
uvec4 fetch(Operand o, int64_t r0, int64_t k0, uint q, out uint dst) {
  int64_t slow, fast0, slow_n, fast_n, s_slow;
  if (o.kfast) {  // [r][k]: 4 runs per row of 32 k
    slow = r0 + int64_t(q >> 2), fast0 = k0 + int64_t((q & 3u) * 8u);
    slow_n = o.R, fast_n = o.K, s_slow = o.s_r;
    dst = (q >> 2) * ROW_K + (q & 3u) * 8u;
  } else {  // [k][r]: 16 runs per row of 128 r
    slow = k0 + int64_t(q >> 4), fast0 = r0 + int64_t((q & 15u) * 8u);
    slow_n = o.K, fast_n = o.R, s_slow = o.s_k;
    dst = (q >> 4) * ROW_MN + (q & 15u) * 8u;
  }
  const int64_t s_fast = o.kfast ? o.s_k : o.s_r;
  const int64_t at = o.base + slow * s_slow + fast0 * s_fast;
  if (slow >= slow_n) return uvec4(0u);
  if (o.vec && fast0 + 8 <= fast_n) return Run16(o.p + uint64_t(at) * 2ul).v;
  uint h[8];
  for (int i = 0; i < 8; ++i) h[i] = fast0 + i < fast_n ? ld16(o.p, at + int64_t(i) * s_fast) : 0u;
  return uvec4(h[0] | (h[1] << 16), h[2] | (h[3] << 16), h[4] | (h[5] << 16), h[6] | (h[7] << 16));
}

// Stores a run in a staged panel (a macro: a shared array cannot be passed
// by reference). unpackFloat2x16 reinterprets: the bits stay.
#define PUT(s, dst, w)                               \
  for (uint i_ = 0u; i_ < 4u; ++i_) {                \
    const f16vec2 v_ = unpackFloat2x16((w)[i_]);     \
    s[(dst) + 2u * i_] = v_.x;                       \
    s[(dst) + 2u * i_ + 1u] = v_.y;                  \
  }

void main() {
  Args g = pc.args;
  const uint tid = gl_LocalInvocationID.x, lane = tid & 31u, sg = tid >> 5;
  const uint sm = (sg >> 1) * 32u, sn = (sg & 1u) * 64u;  // the subgroup's part of the block
  const int64_t n0 = (g.gx0 + int64_t(gl_WorkGroupID.x)) * BN;
  const int64_t m0 = (g.gy0 + int64_t(gl_WorkGroupID.y)) * BM;
  const int64_t bt = g.gb0 + int64_t(gl_WorkGroupID.z);
  // Which index is staged along rows: the one of unit stride when there is one.
  const Operand A = Operand(g.a, g.a_off + bt * g.sab, g.sam, g.sak, g.M, g.K, abs(g.sak) <= abs(g.sam),
                            (g.flags & 1) != 0);
  const Operand B = Operand(g.b, g.b_off + bt * g.sbb, g.sbn, g.sbk, g.N, g.K, abs(g.sbk) < abs(g.sbn),
                            (g.flags & 2) != 0);

  ACC acc[2][4];
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j) acc[i][j] = ACC(0.0);

  uvec4 ra[2], rb[2];
  uint da[2], db[2];
  for (uint l = 0u; l < 2u; ++l) {
    ra[l] = fetch(A, m0, 0, tid + 256u * l, da[l]);
    rb[l] = fetch(B, n0, 0, tid + 256u * l, db[l]);
  }
  for (int64_t k0 = 0; k0 < g.K; k0 += BK) {
    for (uint l = 0u; l < 2u; ++l) {
      PUT(sa, da[l], ra[l]);
      PUT(sb, db[l], rb[l]);
    }
    barrier();
    if (k0 + BK < g.K)
      for (uint l = 0u; l < 2u; ++l) {
        ra[l] = fetch(A, m0, k0 + BK, tid + 256u * l, da[l]);
        rb[l] = fetch(B, n0, k0 + BK, tid + 256u * l, db[l]);
      }
    for (uint kk = 0u; kk < BK; kk += 16u) {
      OPND fa[2], fb[4];
      for (uint i = 0u; i < 2u; ++i) {
        const uint r = sm + 16u * i;
        if (A.kfast) coopMatLoadNV(fa[i], sa, r * ROW_K + kk, ROW_K, false);
        else coopMatLoadNV(fa[i], sa, kk * ROW_MN + r, ROW_MN, true);
      }
      for (uint j = 0u; j < 4u; ++j) {
        const uint cidx = sn + 16u * j;
        if (B.kfast) coopMatLoadNV(fb[j], sb, cidx * ROW_K + kk, ROW_K, true);
        else coopMatLoadNV(fb[j], sb, kk * ROW_MN + cidx, ROW_MN, false);
      }
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 4; ++j) acc[i][j] = coopMatMulAddNV(fa[i], fb[j], acc[i][j]);
    }
    barrier();
  }

  const float alpha = uintBitsToFloat(uint(g.alpha)), beta = uintBitsToFloat(uint(g.beta));
  const uint scr = sg * 256u;
  for (uint i = 0u; i < 2u; ++i)
    for (uint j = 0u; j < 4u; ++j) {
      coopMatStoreNV(acc[i][j], scratch, scr, 16u, false);
      subgroupBarrier();
      for (uint e = lane; e < 256u; e += 32u) {
        const int64_t row = m0 + int64_t(sm + 16u * i + (e >> 4)), col = n0 + int64_t(sn + 16u * j + (e & 15u));
        if (row >= g.M || col >= g.N) continue;
        const int64_t at = g.c_off + (bt * g.M + row) * g.N + col;
        // K == 0 is an empty sum: beta·out alone (beta == 0 writes zeros).
        float v = g.K == 0 ? 0.0 : alpha * scratch[scr + e];
        if (g.use_beta != 0) v = g.K == 0 ? beta * LOAD_f16(g.c, at) : v + beta * LOAD_f16(g.c, at);
        STORE_f16(g.c, at, v);
      }
      subgroupBarrier();
    }
}
