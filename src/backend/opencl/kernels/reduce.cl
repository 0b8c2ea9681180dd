// Reductions, softmax and cumsum (host side: reduce.cpp; argmax/argmin are argreduce.cl).
//
// Evaluation order, identical to the CPU engine (src/backend/cpu/reduce_impl.h)
// so that results are the same bits on both: the n reduced elements of one
// output, in row-major order, are cut into blocks of RED_BLOCK elements; in a
// block, element i goes to lane i % RED_LANES and lanes accumulate in
// increasing i; lanes combine as a tree (l += l + w, w = 8, 4, 2, 1); block
// results combine by recursive halving (left half = floor(nb / 2) blocks).
// Two layouts evaluate that same order: red_rows (one work-item per output,
// everything serial) and red_blocks + red_combine (one 16-item work-group per
// block, then one work-item per output over the block results; past 16
// block results, rounds of red_subtrees evaluate the tree's lower nodes in
// parallel first).
//
// Options: -DXS=<x dtype suffix> -DOS=<out dtype suffix> and one of
//   -DRED=<RED_*> -DACC=<accumulator type> -DAS=<its dtype suffix, for cvt>
//   (argmax / argmin: kernels/argreduce.cl)
//   -DSCAN=1 -DACC -DAS -DSCAN_ULONG=0|1       (softmax pass 3, cumsum)
// Reductions also get -DRED_FLOAT=0|1, -DRED_ULONG=0|1 (integer sums in ulong)
// and, for integer max/min, -DRED_LOWEST / -DRED_HIGHEST.
// Geometries: kg walks the outputs (kept dims), rg the reduced dims of one
// output (offset 0); both are coalesced on the host like the CPU's.
// -DCONCORD_NAN_RULE=1 (floating out and accumulator only): the reproducible
// mode's NaN rule in the stores to out, so no second pass runs over it.

#include "xmath.cl"  // log_acc in the mode without float64

// common.cl's ST(X), CVT(D, S), ... paste their arguments unexpanded: these
// spellings expand XS / OS / AS first.
#define E_ST(X) ST(X)
#define E_CT(X) CT(X)
#define E_LOAD(X) LOAD(X)
#define E_CVT(D, S) CVT(D, S)

#define RED_BLOCK 4096
#define RED_LANES 16

// out[i] = v, v being the value a (accumulator type) converted to out. Under
// the NaN rule a NaN a is stored as the canonical quiet NaN of out's dtype,
// written as integer bits so that neither the conversion nor the driver picks
// the payload or sign (core/nan_rule.h; common.cl's LOAD_STORE_CANON).
#if CONCORD_NAN_RULE
#define NR_CAT_(a, b) a##b
#define NR_CAT(a, b) NR_CAT_(a, b)
#define NR_BITS_T_f16 ushort
#define NR_BITS_T_bf16 ushort
#define NR_BITS_T_f32 uint
#define NR_BITS_T_f64 ulong
#define NR_CANON_f16 ((ushort)0x7e00)
#define NR_CANON_bf16 ((ushort)0x7fc0)
#define NR_CANON_f32 0x7fc00000u
#define NR_CANON_f64 0x7ff8000000000000ul
#define OUT_PUT(out, i, a, v)                                                       \
  do {                                                                              \
    if (isnan(a)) ((__global NR_CAT(NR_BITS_T_, OS)*)(out))[i] = NR_CAT(NR_CANON_, OS); \
    else (out)[i] = (v);                                                            \
  } while (0)
#else
#define OUT_PUT(out, i, a, v) ((out)[i] = (v))
#endif

// Element offset of reduced element i (rg has offset 0).
static inline long red_off(Geom rg, long i) {
  if (rg.ndim == 0) return 0;
  if (rg.ndim == 1) return i * rg.strides[MAX_DIMS - 1];
  return geom_offset(rg, i);
}

#define XLOAD(p, off) E_LOAD(XS)(p, off)
typedef E_CT(XS) val_t;

// ============================================================== reductions
// float64 exp-sums and logs in the reproducible mode (-DRED_F64_SHARED=1): the
// CPU's algorithms there (common/canon_f64*.h), so its bits.
#if RED_F64_SHARED
#define EXP_RED(x) concord_exp_f64(x)
#else
#define EXP_RED(x) exp_acc(x)
#endif

#ifdef RED
#define RED_SUM 1
#define RED_PROD 2
#define RED_MAX 3
#define RED_MIN 4
#define RED_ABSMAX 5
#define RED_ABSSUM 6
#define RED_SQSUM 7
#define RED_SQDEV 8
#define RED_EXPSUM 9
#define RED_ALL 10
#define RED_ANY 11
#define RED_SCSUM 12  // sum of v * s (var/std's scaled mean)

typedef ACC acc_t;
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

// The per-output parameter: for the squared deviations, (scale, mean of the
// scaled values) at params[o] and params[nout + o]; else one accumulator.
#if RED == RED_SQDEV
typedef CAT(ACC, 2) param_t;
#define LOAD_PARAM(params, o, nout) ((param_t)((params)[o], (params)[(nout) + (o)]))
#else
typedef acc_t param_t;
#define LOAD_PARAM(params, o, nout) ((params) ? (params)[o] : (acc_t)0)
#endif

#if RED == RED_SUM || RED == RED_ABSSUM || RED == RED_SQSUM || RED == RED_SQDEV || RED == RED_EXPSUM || RED == RED_SCSUM
// -0.0 so that a lane holding a single -0.0 keeps its sign.
#define IDENT ((acc_t)(-0.0))
#define COMB(a, b) ((a) + (b))
#elif RED == RED_PROD
#define IDENT ((acc_t)1)
#define COMB(a, b) ((a) * (b))
#elif RED == RED_MAX || RED == RED_ABSMAX
#define COMB(a, b) (((a) > (b) || (a) != (a)) ? (a) : (b))
#elif RED == RED_MIN
#define COMB(a, b) (((a) < (b) || (a) != (a)) ? (a) : (b))
#elif RED == RED_ALL
#define IDENT ((acc_t)1)
#define COMB(a, b) ((a) & (b))
#elif RED == RED_ANY
#define IDENT ((acc_t)0)
#define COMB(a, b) ((a) | (b))
#endif

#if RED == RED_ABSMAX
#define IDENT ((acc_t)0)
#elif (RED == RED_MAX || RED == RED_MIN) && RED_FLOAT
#define IDENT (RED == RED_MAX ? (acc_t)(-INFINITY) : (acc_t)INFINITY)
#elif RED == RED_MAX || RED == RED_MIN
#define IDENT (RED == RED_MAX ? (acc_t)RED_LOWEST : (acc_t)RED_HIGHEST)
#endif

// map(v, p): the value an element contributes (p: the output's parameter).
static inline acc_t red_map(val_t v, param_t p) {
#if RED == RED_SUM || RED == RED_PROD || RED == RED_MAX || RED == RED_MIN
  return (acc_t)v;
#elif RED == RED_ABSMAX || RED == RED_ABSSUM
  return fabs((acc_t)v);
#elif RED == RED_SQSUM
  const acc_t a = (acc_t)v;
  return a * a;
#elif RED == RED_SCSUM
  return (acc_t)v * p;
#elif RED == RED_SQDEV
  const acc_t d = (acc_t)v * p.x - p.y;
  return d * d;
#elif RED == RED_EXPSUM
  return EXP_RED((acc_t)v - p);
#else
  return v != (val_t)0 ? (acc_t)1 : (acc_t)0;
#endif
}

// One block, serially: lane l takes elements l, l + 16, ...; then the lane tree.
static inline acc_t red_block(__global const E_ST(XS)* x, long base, Geom rg, long i0, long len, param_t p) {
  acc_t acc[RED_LANES];
  for (int l = 0; l < RED_LANES; ++l) acc[l] = IDENT;
  long i = 0;
  for (; i + RED_LANES <= len; i += RED_LANES)
    for (int l = 0; l < RED_LANES; ++l)
      acc[l] = COMB(acc[l], red_map(XLOAD(x, base + red_off(rg, i0 + i + l)), p));
  for (int l = 0; i < len; ++i, ++l) acc[l] = COMB(acc[l], red_map(XLOAD(x, base + red_off(rg, i0 + i)), p));
  for (int w = RED_LANES / 2; w >= 1; w /= 2)
    for (int l = 0; l < w; ++l) acc[l] = COMB(acc[l], acc[l + w]);
  return acc[0];
}

// The nb block results of one output combined by recursive halving, evaluated
// with an explicit stack (post-order). Leaves come from `part` when non-null,
// else are computed with red_block.
static inline acc_t red_tree(long nb, __global const acc_t* part, __global const E_ST(XS)* x, long base,
                             Geom rg, long n, param_t p) {
  long fs[64], fl[64];
  int st[64];
  acc_t vals[64];
  int sp = 0, vp = 0;
  fs[0] = 0, fl[0] = nb, st[0] = 0, sp = 1;
  while (sp > 0) {
    const int t = sp - 1;
    if (fl[t] == 1) {
      const long b = fs[t];
      vals[vp++] = part ? part[b] : red_block(x, base, rg, b * RED_BLOCK, min((long)RED_BLOCK, n - b * RED_BLOCK), p);
      --sp;
    } else if (st[t] == 0) {
      st[t] = 1;
      fs[sp] = fs[t], fl[sp] = fl[t] / 2, st[sp] = 0, ++sp;
    } else if (st[t] == 1) {
      st[t] = 2;
      fs[sp] = fs[t] + fl[t] / 2, fl[sp] = fl[t] - fl[t] / 2, st[sp] = 0, ++sp;
    } else {
      const acc_t r = vals[--vp];
      const acc_t l = vals[--vp];
      vals[vp++] = COMB(l, r);
      --sp;
    }
  }
  return vals[0];
}

// What happens to the combined value before the store (all in the accumulator type).
#define POST_NONE 0
#define POST_DIV 1        // a / div            (mean, var)
#define POST_DIV_SQRT 2   // sqrt(a / div)      (std)
#define POST_SQRT 3       // sqrt(a)            (2-norm)
#define POST_ADD_LOG 4    // p + log(a)         (logsumexp)
#define POST_LOG 5        // log(a)             (log_softmax's denominator)
#define POST_FINITE 6     // isinf(a) ? 0 : a   (logsumexp's shift)
#define POST_SCALE 7      // the scale s of max|x| (var/std)
#define POST_VAR 8        // a / div * 2^2e     (var, p.x = s = 2^-e)
#define POST_STD 9        // sqrt(a / div) * 2^e (std)

#if RED_FLOAT
// var/std's scale: StatScale of src/backend/cpu/stat_scale.h (the rule and
// why are there), in the same bits.
#if RED_F64
typedef ulong bits_t;
#define ABITS(v) as_ulong(v)
#define AFROM(b) as_double(b)
#define S_MANT 52
#define S_BIAS 1023
#define S_LO (-300)
#define S_HI 300
#else
typedef uint bits_t;
#define ABITS(v) as_uint(v)
#define AFROM(b) as_float(b)
#define S_MANT 23
#define S_BIAS 127
#define S_LO (-30)
#define S_HI 40
#endif
static inline acc_t stat_scale(acc_t m) {
  const int f = (int)((ABITS(m) >> S_MANT) & (bits_t)(2 * S_BIAS + 1));
  if (m == (acc_t)0 || f == 2 * S_BIAS + 1) return (acc_t)1;
  const int e = max(f, 1) - S_BIAS;
  if (e >= S_LO && e <= S_HI) return (acc_t)1;
  const int k = clamp(e - 4, -(S_BIAS - 7), S_BIAS - 7);
  return AFROM((bits_t)(S_BIAS - k) << S_MANT);
}
// 1 / s, exactly.
static inline acc_t stat_inverse(acc_t s) { return AFROM(((bits_t)(2 * S_BIAS) << S_MANT) - ABITS(s)); }
#endif

#if RED_FLOAT
// The log of a float32 accumulator is the CPU's (cpu_math.cl's log_f32_cpu,
// float64 inside) where the device has float64, or its port on bits
// (xmath.cl) in the mode without, so logsumexp and log_softmax's denominator
// give its bits; float64, and the default mode without float64, use the
// library's log.
static inline acc_t log_acc(acc_t a) {
#if CONCORD_HAS_FP64 && !RED_F64
  return log_f32_cpu(a);
#elif CONCORD_NAN_RULE && !RED_F64  /* the mode without float64: the same log on bits (xmath.cl) */
  return XM1(log, a);
#elif RED_F64_SHARED
  return concord_log_f64(a);
#else
  return log(a);
#endif
}
#endif

static inline acc_t red_post(acc_t a, int post, long div, param_t p) {
#if RED_FLOAT && RED == RED_SQDEV
  const acc_t r = stat_inverse(p.x);
  switch (post) {
    case POST_VAR: return a / (acc_t)div * r * r;
    case POST_STD: return sqrt(a / (acc_t)div) * r;
    default: return a;
  }
#elif RED_FLOAT
  switch (post) {
    case POST_SCALE: return stat_scale(a);
    case POST_DIV: return a / (acc_t)div;
    case POST_DIV_SQRT: return sqrt(a / (acc_t)div);
    case POST_SQRT: return sqrt(a);
    case POST_ADD_LOG: return p + log_acc(a);
    case POST_LOG: return log_acc(a);
    case POST_FINITE: return isinf(a) ? (acc_t)0 : a;
    default: return a;
  }
#else
  return a;
#endif
}

// The accumulator as an out element (the conversions of convert.h). Integer
// sums accumulate in ulong (wrap-around) and convert as int64.
#if RED_ULONG
#define RED_STORE(a) E_CVT(OS, AS)((long)(a))
#else
#define RED_STORE(a) E_CVT(OS, AS)(a)
#endif

// One work-item per output: the whole order serially.
__kernel void red_rows(__global const E_ST(XS)* x, Geom kg, Geom rg, long nout, long n,
                       __global const acc_t* params, int post, long div, __global E_ST(OS)* out, long oo) {
  const long o = get_global_id(0);
  if (o >= nout) return;
  const param_t p = LOAD_PARAM(params, o, nout);
  const long nb = (n + RED_BLOCK - 1) / RED_BLOCK;
  const acc_t a = red_post(red_tree(nb, 0, x, geom_offset(kg, o), rg, n, p), post, div, p);
  OUT_PUT(out, oo + o, a, RED_STORE(a));
}

// One 16-item work-group per (output, block): partial[o * nb + b].
__kernel __attribute__((reqd_work_group_size(RED_LANES, 1, 1)))
void red_blocks(__global const E_ST(XS)* x, Geom kg, Geom rg, long n, long nb,
                __global const acc_t* params, __global acc_t* partial) {
  __local acc_t lanes[RED_LANES];
  const long g = get_group_id(0);
  const int l = get_local_id(0);
  const long o = g / nb, b = g - o * nb;
  const long base = geom_offset(kg, o);
  const param_t p = LOAD_PARAM(params, o, (long)get_num_groups(0) / nb);
  const long i0 = b * RED_BLOCK, len = min((long)RED_BLOCK, n - i0);
  acc_t acc = IDENT;
  for (long i = l; i < len; i += RED_LANES) acc = COMB(acc, red_map(XLOAD(x, base + red_off(rg, i0 + i)), p));
  lanes[l] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int w = RED_LANES / 2; w >= 1; w /= 2) {
    if (l < w) lanes[l] = COMB(lanes[l], lanes[l + w]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) partial[g] = lanes[0];
}

// Many block results: work-item (output o, node k) evaluates node k at
// depth `depth` of o's halving tree into nodes[o * 2^depth + k]. nb >=
// 2^depth, so no leaf lies above that depth, and the tree above is complete:
// its subtrees are again halving trees, so rounds of this kernel followed by
// red_combine evaluate the same tree, each round in parallel.
__kernel void red_subtrees(__global const acc_t* partial, long nout, long nb, int depth, __global acc_t* nodes) {
  const long id = get_global_id(0);
  if (id >= (nout << depth)) return;
  const long o = id >> depth;
  long s = 0, len = nb;
  for (int d = depth - 1; d >= 0; --d) {
    const long h = len / 2;
    if (((id >> d) & 1) != 0) s += h, len -= h;
    else len = h;
  }
  Geom none;
  none.ndim = 0;
  nodes[id] = red_tree(len, partial + o * nb + s, 0, 0, none, 0, (param_t)0);
}

// One work-item per output over its nb block results.
__kernel void red_combine(__global const acc_t* partial, long nout, long nb, __global const acc_t* params,
                          int post, long div, __global E_ST(OS)* out, long oo) {
  const long o = get_global_id(0);
  if (o >= nout) return;
  const param_t p = LOAD_PARAM(params, o, nout);
  Geom none;
  none.ndim = 0;
  const acc_t a = red_post(red_tree(nb, partial + o * nb, 0, 0, none, 0, p), post, div, p);
  OUT_PUT(out, oo + o, a, RED_STORE(a));
}
#endif  // RED

// ============================================================== softmax, cumsum
#ifdef SCAN
typedef ACC acc_t;
#if SCAN_ULONG
#define SCAN_ZERO ((acc_t)0)
#define SCAN_STORE(a) E_CVT(OS, AS)((long)(a))
#else
#define SCAN_ZERO ((acc_t)(-0.0))  // a lone -0.0 keeps its sign, as on the CPU
#define SCAN_STORE(a) E_CVT(OS, AS)(a)
#endif

#if !SCAN_ULONG
// softmax pass 3: out = exp(x - m) * (1 / s) as the CPU computes it (a product
// by the reciprocal), or (x - m) - s for log_softmax (s = log of the sum
// there). Elements in (output, reduced) order; out has the same split.
__kernel void softmax_out(__global const E_ST(XS)* x, Geom kg, Geom rg, Geom okg, Geom org, long n, long total,
                          __global const acc_t* m, __global const acc_t* s, int is_log, __global E_ST(OS)* out) {
  const long t = get_global_id(0);
  if (t >= total) return;
  const long o = t / n, i = t - o * n;
  const acc_t d = (acc_t)XLOAD(x, geom_offset(kg, o) + red_off(rg, i)) - m[o];
  const acc_t r = is_log ? d - s[o] : EXP_RED(d) * ((acc_t)1 / s[o]);
  OUT_PUT(out, geom_offset(okg, o) + red_off(org, i), r, E_CVT(OS, AS)(r));
}
#endif

// cumsum: one work-item per line, sequential in the accumulator type (ulong,
// wrapping, for integers), rounded to out at every step.
__kernel void cumsum_rows(__global const E_ST(XS)* x, Geom kg, long xs, Geom okg, long os, long nout, long n,
                          __global E_ST(OS)* out) {
  const long o = get_global_id(0);
  if (o >= nout) return;
  const long xb = geom_offset(kg, o), ob = geom_offset(okg, o);
  acc_t acc = SCAN_ZERO;
  for (long i = 0; i < n; ++i) {
    acc += (acc_t)XLOAD(x, xb + i * xs);
    OUT_PUT(out, ob + i * os, acc, SCAN_STORE(acc));
  }
}
#endif  // SCAN
