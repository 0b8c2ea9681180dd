// shaders/reduce.comp — reductions, argmax/argmin, cumsum and softmax's
// output pass of one input dtype (host side: reduce.cpp).
//   -DX=<dtype suffix>   the input dtype (dtypes.glsl)
//   -DACC_F=1 | ACC_D=1 | ACC_I=1   the accumulator: float (f16 bf16 f32),
//                        double (f64), int64_t wrapping (integers and bool)
// The stage, the reducer and the post step come in the argument block (one
// variant per dtype). A reducer or post step without its case for this
// accumulator gives NaN (floats) or 0 and is never claimed.
//
// Evaluation order, the CPU engine's (src/backend/cpu/reduce_impl.h), so
// sums are the CPU's bits: the n reduced elements of one output (row-major
// over the reduced dims) are cut into blocks of 4096; element i of a block
// goes to lane i % 16, lanes accumulate in increasing i, then combine as a
// tree (lane l += lane l + w, w = 8, 4, 2, 1); block results combine by
// recursive halving (left half: floor(nb / 2) blocks). Stage BLOCKS runs one
// 16-invocation workgroup per (output, block); stage COMBINE one invocation
// per output over its block results (past 16 blocks, rounds of stage
// SUBTREES first evaluate the tree's nodes at a fixed depth, each in its own
// invocation, until 16 or fewer remain).
// No atomics: the same bits on every run.
// Every arithmetic result is `precise` (never contracted into an fma).
//
// The arithmetic comes from reduce_ops.glsl (the default mode's float
// instructions) or, with -DXF=1 (the "reduce_x_*" variants of f16 bf16 f32,
// the reproducible mode), from reduce_xops.glsl: float32 on bits through
// xf32.glsl, integer instructions only, so the CPU's bits whatever the
// device does with subnormals, and every NaN stored canonical; with -DXD=1
// too ("reduce_x_f64"), the same file on float64 bits through xf64.glsl;
// with -DXMATH=1 as well ("reduce_xs_f64", softmax, log_softmax and
// logsumexp only) also the CPU's float64 exp and log on bits (xmath64.glsl,
// xmath64_log.glsl).
#version 460
#include "common.glsl"
#include "dtypes.glsl"
#include "geom.glsl"

#define LANES 16
#define BLOCK 4096

// Mirrors RedArgs in reduce.cpp.
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Args {
  uint64_t src, dst, params, part;
  int64_t nout, n, nb, div, oo, xs, os, i0;
  int red, post, stage, omode;
  Geom kg, rg, okg, org;
};
layout(push_constant) uniform Push { Args args; } pc;

#define ST_BLOCKS 0
#define ST_COMBINE 1
#define ST_ARG_BLOCKS 2
#define ST_ARG_COMBINE 3
#define ST_CUMSUM 4
#define ST_SOFTMAX 5
#define ST_SUBTREES 6
#define ST_ARG_MERGE 7

#define R_SUM 1
#define R_PROD 2
#define R_MAX 3
#define R_MIN 4
#define R_ABSMAX 5
#define R_ABSSUM 6
#define R_SQSUM 7
#define R_SQDEV 8
#define R_EXPSUM 9
#define R_ALL 10
#define R_ANY 11
#define R_SCSUM 12  // sum of v * p (var/std's scaled mean)

#define P_NONE 0
#define P_DIV 1       // a / div          (mean, var)
#define P_DIV_SQRT 2  // sqrt(a / div)    (std)
#define P_SQRT 3      // sqrt(a)          (2-norm)
#define P_ADD_LOG 4   // p + log(a)       (logsumexp)
#define P_LOG 5       // log(a)           (log_softmax's denominator)
#define P_FINITE 6    // isinf(a) ? 0 : a (logsumexp's shift)
#define P_RECIP 7     // 1 / a            (softmax's scale)
#define P_SCALE 8     // the scale s of max|x| a (var/std)
#define P_VAR 9       // a / div * 2^2e   (var; p = s = 2^-e)
#define P_STD 10      // sqrt(a / div) * 2^e (std)

layout(local_size_x = LANES) in;

#if defined(XF)
#include "reduce_xops.glsl"
#else
#include "reduce_ops.glsl"
#endif

int64_t red_off(int64_t i) {
  Geom rg = pc.args.rg;
  if (rg.ndim == 0) return 0;
  if (rg.ndim == 1) return i * rg.strides[MAX_DIMS - 1];
  return geom_offset(rg, i);
}

shared A lanes[LANES];
shared int64_t lidx[LANES];

// The block results part[0, nb) combined by recursive halving, post-order
// with an explicit stack (about 3 nb iterations).
A block_tree(int r, uint64_t part, int64_t nb) {
  int64_t fs[40], fl[40];
  int st[40];
  A vals[40];
  int sp = 1, vp = 0;
  fs[0] = 0, fl[0] = nb, st[0] = 0;
  while (sp > 0) {
    const int t = sp - 1;
    if (fl[t] == 1) {
      vals[vp++] = ld_acc(part, fs[t]);
      --sp;
    } else if (st[t] == 0) {
      st[t] = 1;
      fs[sp] = fs[t], fl[sp] = fl[t] / 2, st[sp] = 0, ++sp;
    } else if (st[t] == 1) {
      st[t] = 2;
      fs[sp] = fs[t] + fl[t] / 2, fl[sp] = fl[t] - fl[t] / 2, st[sp] = 0, ++sp;
    } else {
      const A rr = vals[--vp];
      const A ll = vals[--vp];
      vals[vp++] = combine(r, ll, rr);
      --sp;
    }
  }
  return vals[0];
}

// Of two candidates, the one the sequential scan keeps (the lower index among
// equals); true to take b.
bool arg_take_b(bool amax, A va, int64_t ia, A vb, int64_t ib) {
  if (ib < 0) return false;
  if (ia < 0) return true;
  if (ib < ia) return !arg_better(amax, va, vb);
  return arg_better(amax, vb, va);
}

void main() {
  Args g = pc.args;
  const int64_t id = int64_t(concord_linear_id());
  const int stage = g.stage, r = g.red;
  if (stage == ST_BLOCKS || stage == ST_ARG_BLOCKS) {
    // Uniform per workgroup: every invocation reaches the barriers.
    const int64_t grp = id / LANES;
    const int l = int(gl_LocalInvocationID.x);
    const int64_t o = grp / g.nb, b = grp - o * g.nb;
    const int64_t base = geom_offset(g.kg, o);
    const int64_t i0 = b * BLOCK, len = min(int64_t(BLOCK), g.n - i0);
    if (stage == ST_BLOCKS) {
      const A p = g.params != 0ul ? ld_acc(g.params, o) : A(0);
      const A q = r == R_SQDEV ? ld_acc(g.params, g.nout + o) : A(0);
      A acc = identity(r);
      for (int64_t i = l; i < len; i += LANES) acc = combine(r, acc, map_x(r, load_x(base + red_off(i0 + i)), p, q));
      lanes[l] = acc;
      barrier();
      for (int w = LANES / 2; w >= 1; w /= 2) {
        if (l < w) lanes[l] = combine(r, lanes[l], lanes[l + w]);
        barrier();
      }
      if (l == 0) {
        if (g.nb == 1) store_out(g.oo + o, post_step(g.post, lanes[0], g.div, p));
        else st_acc(g.part, grp, lanes[0]);
      }
    } else {
      const bool amax = r == R_MAX;
      A best = A(0);
      int64_t bi = -1;
      for (int64_t i = l; i < len; i += LANES) {
        const A v = load_x(base + red_off(i0 + i));
        if (bi < 0 || arg_better(amax, v, best)) best = v, bi = i0 + i;
      }
      lanes[l] = best;
      lidx[l] = bi;
      barrier();
      for (int w = LANES / 2; w >= 1; w /= 2) {
        if (l < w && arg_take_b(amax, lanes[l], lidx[l], lanes[l + w], lidx[l + w]))
          lanes[l] = lanes[l + w], lidx[l] = lidx[l + w];
        barrier();
      }
      if (l == 0) {
        if (g.nb == 1) {
          st64(g.dst, g.oo + o, uint64_t(lidx[0]));
        } else {  // values at part, indices after them
          st_acc(g.part, grp, lanes[0]);
          st64(g.part + uint64_t(g.nout * g.nb) * 8ul, grp, uint64_t(lidx[0]));
        }
      }
    }
    return;
  }
  if (stage == ST_SUBTREES) {
    // Many blocks: invocation (output o, node k) evaluates node k at depth
    // i0 of o's halving tree into params[o * 2^i0 + k]; a COMBINE over those
    // 2^i0 values (a complete tree) then finishes the same tree. nb >= 2^i0,
    // so no leaf lies above that depth.
    const int depth = int(g.i0);
    if (id >= g.nout << depth) return;
    const int64_t o = id >> depth;
    int64_t s = 0, len = g.nb;
    for (int d = depth - 1; d >= 0; --d) {
      const int64_t h = len / 2;
      if (((id >> d) & 1l) != 0l) s += h, len -= h;
      else len = h;
    }
    st_acc(g.params, id, block_tree(r, g.part + uint64_t(o * g.nb + s) * uint64_t(ITEM(AS)), len));
    return;
  }
  if (stage == ST_COMBINE) {
    if (id >= g.nout) return;
    const A p = g.params != 0ul ? ld_acc(g.params, id) : A(0);
    const A a = block_tree(r, g.part + uint64_t(id * g.nb) * uint64_t(ITEM(AS)), g.nb);
    store_out(g.oo + id, post_step(g.post, a, g.div, p));
    return;
  }
  if (stage == ST_ARG_MERGE) {
    // Groups of i0 block winners in order, one invocation each: the group's
    // winner (a later one wins only when strictly better: the scan's rule,
    // which is associative) into params, laid out as part is (nout x ng
    // values, then their indices), for ng = ceil(nb / i0) groups per output.
    const int64_t ng = (g.nb + g.i0 - 1) / g.i0;
    if (id >= g.nout * ng) return;
    const bool amax = r == R_MAX;
    const int64_t o = id / ng, gi = id - o * ng;
    const int64_t b0 = o * g.nb + gi * g.i0, b1 = o * g.nb + min(g.nb, (gi + 1) * g.i0);
    const uint64_t idx = g.part + uint64_t(g.nout * g.nb) * 8ul;
    A best = ld_acc(g.part, b0);
    int64_t bi = int64_t(ld64(idx, b0));
    for (int64_t b = b0 + 1; b < b1; ++b) {
      const A v = ld_acc(g.part, b);
      if (arg_better(amax, v, best)) best = v, bi = int64_t(ld64(idx, b));
    }
    st_acc(g.params, id, best);
    st64(g.params + uint64_t(g.nout * ng) * 8ul, id, uint64_t(bi));
    return;
  }
  if (stage == ST_ARG_COMBINE) {
    // Block winners in order: a later block wins only when strictly better.
    if (id >= g.nout) return;
    const bool amax = r == R_MAX;
    const uint64_t idx = g.part + uint64_t(g.nout * g.nb) * 8ul;
    A best = ld_acc(g.part, id * g.nb);
    int64_t bi = int64_t(ld64(idx, id * g.nb));
    for (int64_t b = 1; b < g.nb; ++b) {
      const A v = ld_acc(g.part, id * g.nb + b);
      if (arg_better(amax, v, best)) best = v, bi = int64_t(ld64(idx, id * g.nb + b));
    }
    st64(g.dst, g.oo + id, uint64_t(bi));
    return;
  }
  if (stage == ST_CUMSUM) {
    // Elements [i0, i0 + n) of line id, sequential; the running sum carries
    // between launches in part (the accumulator, before rounding to out).
    if (id >= g.nout) return;
    const int64_t xb = geom_offset(g.kg, id), ob = geom_offset(g.okg, id);
    A acc = g.i0 == 0 ? identity(R_SUM) : ld_acc(g.part, id);  // -0.0 for floats: a lone -0.0 keeps its sign
    for (int64_t i = g.i0; i < g.i0 + g.n; ++i) {
      acc = combine(R_SUM, acc, load_x(xb + i * g.xs));
      store_out(ob + i * g.os, acc);
    }
    st_acc(g.part, id, acc);
    return;
  }
#if defined(FLTW) || defined(XF)
  if (stage == ST_SOFTMAX) {
    // out = exp(x - m) * s (s: 1 / the sum), or (x - m) - s for log_softmax
    // (s: log of the sum), as the CPU.
    const int64_t total = g.nout * g.n;
    if (id >= total) return;
    const int64_t o = id / g.n, i = id - o * g.n;
    const A v = load_x(geom_offset(g.kg, o) + red_off(i));
    const A res = softmax_out(v, ld_acc(g.params, o), ld_acc(g.part, o), r == 1);
    store_x(geom_offset(g.okg, o) + (g.org.ndim == 0 ? 0 : g.org.ndim == 1 ? i * g.org.strides[MAX_DIMS - 1]
                                                       : geom_offset(g.org, i)),
            res);
    return;
  }
#endif
}
