// argmax / argmin (host side: reduce.cpp), split from reduce.cl: each block's
// first extreme (NaN first for floats) by a lane tree, then the block winners
// in parallel rounds of groups, then the last few in order; ties keep the
// lowest index, as the CPU.
//
// Options: -DXS=<x dtype suffix> -DARG_MAX=0|1 -DARG_FLOAT=0|1.

// common.cl's ST(X), LOAD(X), ... paste their arguments unexpanded: these
// spellings expand XS first.
#define E_ST(X) ST(X)
#define E_CT(X) CT(X)
#define E_LOAD(X) LOAD(X)
#define XLOAD(p, off) E_LOAD(XS)(p, off)
typedef E_CT(XS) val_t;

#ifdef ARG_MAX
#if ARG_FLOAT
#define ARG_NAN(v) isnan(v)
#else
#define ARG_NAN(v) 0
#endif
// cand beats cur (cur seen first): NaN beats everything after it, then strict order.
static inline int arg_better(val_t cand, val_t cur) {
  if (ARG_NAN(cur)) return 0;
  if (ARG_NAN(cand)) return 1;
  return ARG_MAX ? cand > cur : cand < cur;
}

// Either of two candidates, whichever the sequential scan would have kept:
// arg_better, and the lower index among equals. Returns 1 to take b.
static inline int arg_take_b(val_t va, long ia, val_t vb, long ib) {
  if (ib < 0) return 0;
  if (ia < 0) return 1;
  if (ib < ia) return !arg_better(va, vb);
  return arg_better(vb, va);
}

__kernel void arg_rows(__global const E_ST(XS)* x, Geom kg, long rs, long nout, long n, __global long* out, long oo) {
  const long o = get_global_id(0);
  if (o >= nout) return;
  const long base = geom_offset(kg, o);
  val_t best = XLOAD(x, base);
  long bi = 0;
  for (long i = 1; i < n; ++i) {
    const val_t v = XLOAD(x, base + i * rs);
    if (arg_better(v, best)) best = v, bi = i;
  }
  out[oo + o] = bi;
}

// One work-group of ARG_GROUP items per output: strided scans, then a tree.
#define ARG_GROUP 64

// Each item's candidate (best, bi) reduced by a tree in local memory: the
// winner's index, for every item.
static inline long arg_group_winner(__local val_t* bv, __local long* bidx, val_t best, long bi) {
  const int l = get_local_id(0);
  bv[l] = best;
  bidx[l] = bi;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int w = ARG_GROUP / 2; w >= 1; w /= 2) {
    if (l < w && arg_take_b(bv[l], bidx[l], bv[l + w], bidx[l + w])) bv[l] = bv[l + w], bidx[l] = bidx[l + w];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  return bidx[0];
}
// One work-group per (output, chunk of `chunk` elements) writes the chunk's
// winner index to win[woff + group]. chunk = n: one group per output, the
// answer itself. Shorter chunks for long outputs, then arg_merge: the winner
// of winners is the winner (the order is total: NaN first, then the value,
// then the lower index), so the split changes nothing.
__kernel __attribute__((reqd_work_group_size(ARG_GROUP, 1, 1)))
void arg_chunks(__global const E_ST(XS)* x, Geom kg, long rs, long n, long chunk, __global long* win, long woff) {
  __local val_t bv[ARG_GROUP];
  __local long bidx[ARG_GROUP];
  const long gid = get_group_id(0), nchunks = (n + chunk - 1) / chunk;
  const long o = gid / nchunks, lo = (gid - o * nchunks) * chunk, hi = min(n, lo + chunk);
  const int l = get_local_id(0);
  const long base = geom_offset(kg, o);
  val_t best = 0;
  long bi = -1;
  for (long i = lo + l; i < hi; i += ARG_GROUP) {
    const val_t v = XLOAD(x, base + i * rs);
    if (bi < 0 || arg_better(v, best)) best = v, bi = i;
  }
  const long win_i = arg_group_winner(bv, bidx, best, bi);
  if (l == 0) win[woff + gid] = win_i;
}

// Second pass: one work-group per output over its chunk winners (in chunk
// order, so a strided scan still meets lower indices first).
__kernel __attribute__((reqd_work_group_size(ARG_GROUP, 1, 1)))
void arg_merge(__global const E_ST(XS)* x, Geom kg, long rs, long nchunks, __global const long* win,
               __global long* out, long oo) {
  __local val_t bv[ARG_GROUP];
  __local long bidx[ARG_GROUP];
  const long o = get_group_id(0);
  const int l = get_local_id(0);
  const long base = geom_offset(kg, o);
  val_t best = 0;
  long bi = -1;
  for (long k = l; k < nchunks; k += ARG_GROUP) {
    const long i = win[o * nchunks + k];
    const val_t v = XLOAD(x, base + i * rs);
    if (bi < 0 || arg_better(v, best)) best = v, bi = i;
  }
  const long win_i = arg_group_winner(bv, bidx, best, bi);
  if (l == 0) out[oo + o] = win_i;
}
#endif  // ARG_MAX
