// shaders/norms.comp — vector norms of rows (Backend::vector_norm_rows, ord
// 0, 1, 2, ±inf), matrix abs-sum norms (matrix_abs_sum_norm, ord ±1, ±inf)
// and det from an LU (lu_det: the pivot sign, then the diagonal product in
// index order; n <= 128, one dispatch of PH_STORE), and slogdet from an LU
// (lu_slogdet, the SLOGDET variants only: the sign and the sum of log|u_ii|
// with the CPU's reproducible log, xmath64_log.glsl, in both modes):
// the CPU's float64 loops of src/backend/cpu/linalg_host.cpp on
// float64 bits with the integer functions of xf64.glsl, the same operations
// in the same order, so the CPU's bits in both modes whatever the device does
// with subnormals. Every NaN result is the canonical NaN.
//
// llvmpipe ends an invocation after 65535 loop iterations (the xd_ functions'
// own loops included), so each dispatch walks one chunk [j0, j1) of a loop
// and keeps its running values in a float64 state buffer (norms.cpp issues
// the chunks in order; the order of the operations is the CPU's):
//   PH_ACC   accumulate a chunk (first: set the initial values)
//   PH_SCALE ord 2 of doubles, second pass: the sum of (|x| / max)^2
//   PH_PICK  matrix norms: max / min over a chunk of the sums
//   PH_STORE round each result once to the output dtype
// Variants (linear.cmake): norms_f32 (float32 in and out), norms_f64
// (float64 bits in uint64_t; no double instruction), norms_f16 / norms_bf16
// (T_HALF: read widened exactly, the result rounded as convert.h does:
// round-to-odd to float32, then once to the half); slogdet_f32 / slogdet_f64
// (-DSLOGDET=1: the same with the float64 log, apart so that the norms keep a
// small shader).
#version 460
#include "common.glsl"
#include "dtypes.glsl"
#include "xf32.glsl"
#include "xf64.glsl"
#if defined(SLOGDET)
#include "xmath64.glsl"
#include "xmath64_log.glsl"
#endif

#ifndef T_IS_F64
#define T_IS_F64 0
#endif
#ifndef T_HALF
#define T_HALF 0  // 1: float16, 2: bfloat16
#endif

layout(local_size_x = 64) in;

layout(buffer_reference, std430, buffer_reference_align = 4) buffer RefU { uint v; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer RefD { uint64_t v; };

// Operations (norms.cpp's NormOp).
#define OP_ORD0 0
#define OP_ORD1 1
#define OP_ORD2 2
#define OP_MAXABS 3  // ord inf
#define OP_MINABS 4  // ord -inf
#define OP_MAT 5     // matrix abs-sum norm
#define OP_DET 6     // det: x the LU [items, len, len], st its int32 pivots
#define OP_SLOGDET 7 // slogdet: x, st as OP_DET; res the running (sign, log) pairs; dst the
                     // log|det|s, count the sign output's address, cols its element offset
// Phases.
#define PH_ACC 0
#define PH_SCALE 1
#define PH_PICK 2
#define PH_STORE 3

layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Args {
  uint64_t x, dst, st, res;  // input, output, running values (2 per item), matrix results
  int64_t x_off, dst_off;
  int64_t items, len;        // outputs (sums for OP_MAT's PH_ACC) and the length of each loop
  int64_t j0, j1, b0;        // this chunk; this dispatch's first item
  int64_t cols, count;       // OP_MAT: columns of a matrix; sums per matrix
  int op, phase, columns, pick_max;
};
layout(push_constant) uniform Push { Args args; } pc;

uint64_t load_x(uint64_t base, int64_t i) {
#if T_IS_F64
  return RefD(base + uint64_t(i) * 8ul).v;
#elif T_HALF == 1
  return xd_from_f32(xf_from_f16(ld16(base, i)));
#elif T_HALF == 2
  return xd_from_f32(xf_from_bf16(ld16(base, i)));
#else
  return xd_from_f32(RefU(base + uint64_t(i) * 4ul).v);
#endif
}
uint64_t st(uint64_t base, int64_t i) { return RefD(base + uint64_t(i) * 8ul).v; }
void set_st(uint64_t base, int64_t i, uint64_t v) { RefD(base + uint64_t(i) * 8ul).v = v; }

// std::max(m, v) and std::min(m, v) as the CPU writes them (neither is NaN here).
uint64_t pick(bool pick_max, uint64_t m, uint64_t v) { return pick_max ? (xd_lt(m, v) ? v : m) : (xd_lt(v, m) ? v : m); }

void vector_step(Args g, int64_t r) {
  const int64_t base = g.x_off + r * g.len;
  uint64_t a = st(g.st, 2 * r), s = st(g.st, 2 * r + 1);
  if (g.phase == PH_ACC && g.j0 == 0) {
    a = g.op == OP_MINABS ? XD_INF : 0ul;  // +0, or the count 0
    s = 0ul;
  }
  if (g.phase == PH_ACC) {
    for (int64_t i = g.j0; i < g.j1; ++i) {
      const uint64_t v = load_x(g.x, base + i);
      if (g.op == OP_ORD0) {
        a += xd_iszero(v) ? 0ul : 1ul;  // NaN counts as non-zero
      } else if (g.op == OP_ORD1) {
        s = xd_add(s, xd_abs(v));
      } else if (g.op == OP_ORD2 && T_IS_F64 == 0) {
        s = xd_add(s, xd_mul(v, v));  // exact squares of floats
      } else {  // ±inf, and ord 2 of doubles' largest |x|
        if (xd_isnan(a)) break;
        const uint64_t w = xd_abs(v);
        a = xd_isnan(w) ? XD_NAN : pick(g.op != OP_MINABS, a, w);
      }
    }
  } else if (g.phase == PH_SCALE) {
    if (xd_isnan(a) || xd_iszero(a) || xd_isinf(a)) return;
    for (int64_t i = g.j0; i < g.j1; ++i) {
      const uint64_t t = xd_div(xd_abs(load_x(g.x, base + i)), a);
      s = xd_add(s, xd_mul(t, t));
    }
  }
  set_st(g.st, 2 * r, a);
  set_st(g.st, 2 * r + 1, s);
}

uint64_t vector_result(Args g, int64_t r) {
  const uint64_t a = st(g.st, 2 * r), s = st(g.st, 2 * r + 1);
  if (g.op == OP_ORD0) return xd_from_int64(int64_t(a));
  if (g.op == OP_ORD1) return s;
  if (g.op == OP_ORD2 && T_IS_F64 == 0) return xd_sqrt(s);
  if (g.op == OP_ORD2 && !(xd_isnan(a) || xd_iszero(a) || xd_isinf(a))) return xd_mul(a, xd_sqrt(s));
  return a;
}

void matrix_step(Args g, int64_t item) {
  if (g.phase == PH_ACC) {  // item: sum k of matrix b, over i in [j0, j1) of its len terms
    const int64_t b = item / g.count, k = item % g.count;
    const int64_t base = g.x_off + b * g.len * g.count;  // r * c elements per matrix
    uint64_t s = g.j0 == 0 ? 0ul : st(g.st, item);
    for (int64_t i = g.j0; i < g.j1; ++i)
      s = xd_add(s, xd_abs(load_x(g.x, base + (g.columns != 0 ? i * g.cols + k : k * g.cols + i))));
    set_st(g.st, item, s);
  } else if (g.phase == PH_PICK) {  // item: matrix b, over its sums k in [j0, j1)
    uint64_t m = g.j0 == 0 ? (g.pick_max != 0 ? XD_INF | XD_SIGN : XD_INF) : st(g.res, item);
    for (int64_t k = g.j0; k < g.j1 && !xd_isnan(m); ++k) {
      const uint64_t s = st(g.st, item * g.count + k);
      m = xd_isnan(s) ? XD_NAN : pick(g.pick_max != 0, m, s);
    }
    set_st(g.res, item, m);
  }
}

uint64_t det_of(Args g, int64_t b) {
  const int64_t n = g.len;
  const uint64_t piv = g.st + uint64_t(b * n) * 4ul;  // offset applied by the host
  bool odd = false;  // parity of the row swaps recorded in the 1-based pivots
  for (int64_t i = 0; i < n; ++i) odd = odd != (RefU(piv + uint64_t(i) * 4ul).v != uint(i + 1));
  uint64_t d = odd ? 0xbff0000000000000ul : 0x3ff0000000000000ul;  // -1.0 or 1.0
  const int64_t base = g.x_off + b * n * n;
  for (int64_t i = 0; i < n; ++i) d = xd_mul(d, load_x(g.x, base + i * n + i));
  return d;
}

#if defined(SLOGDET)
// slogdet's loop over the diagonal terms [j0, j1) of matrix b (the CPU's
// lu_slogdet): the running sign and sum of logs in res; the loop has ended
// once the sign is 0 (a zero pivot: log|det| = -inf) or NaN (a NaN pivot).
void slogdet_step(Args g, int64_t b) {
  const int64_t n = g.len;
  uint64_t sg = st(g.res, 2 * b), la = st(g.res, 2 * b + 1);
  if (g.j0 == 0) {
    const uint64_t piv = g.st + uint64_t(b * n) * 4ul;
    bool odd = false;
    for (int64_t i = 0; i < n; ++i) odd = odd != (RefU(piv + uint64_t(i) * 4ul).v != uint(i + 1));
    sg = odd ? 0xbff0000000000000ul : 0x3ff0000000000000ul;
    la = 0ul;
  }
  const int64_t base = g.x_off + b * n * n;
  for (int64_t i = g.j0; i < g.j1 && !xd_iszero(sg) && !xd_isnan(sg); ++i) {
    const uint64_t u = load_x(g.x, base + i * n + i);
    if (xd_isnan(u)) {
      sg = XD_NAN, la = XD_NAN;
    } else if (xd_iszero(u)) {
      sg = 0ul, la = XD_INF | XD_SIGN;
    } else {
      if ((u & XD_SIGN) != 0ul) sg = xd_neg(sg);
      la = xd_add(la, xe_log(xd_abs(u)));
    }
  }
  set_st(g.res, 2 * b, sg);
  set_st(g.res, 2 * b + 1, la);
}
#endif

// Element i of an output of the variant's dtype, rounded once from v.
void store_t(uint64_t base, int64_t i, uint64_t v) {
#if T_HALF == 1
  st16(base, i, xf_to_f16(xd_to_f32_odd(v)));
#elif T_HALF == 2
  st16(base, i, xf_to_bf16(xd_to_f32_odd(v)));
#elif T_IS_F64
  RefD(base + uint64_t(i) * 8ul).v = xd_isnan(v) ? XD_NAN : v;
#else
  RefU(base + uint64_t(i) * 4ul).v = xd_to_f32(v);
#endif
}

void main() {
  Args g = pc.args;
  const int64_t item = g.b0 + int64_t(gl_GlobalInvocationID.x);
  if (item >= g.items) return;
#if defined(SLOGDET)
  if (g.phase == PH_ACC) {
    slogdet_step(g, item);
  } else {
    store_t(uint64_t(g.count), g.cols + item, st(g.res, 2 * item));
    store_t(g.dst, g.dst_off + item, st(g.res, 2 * item + 1));
  }
#else
  if (g.phase != PH_STORE) {
    if (g.op == OP_MAT) matrix_step(g, item);
    else vector_step(g, item);
    return;
  }
  store_t(g.dst, g.dst_off + item,
          g.op == OP_DET ? det_of(g, item) : g.op == OP_MAT ? st(g.res, item) : vector_result(g, item));
#endif
}
