// shaders/linalg.comp — batched dense linear algebra on small matrices, one
// workgroup per matrix: LU with partial pivoting, LU solve, triangular solve,
// Cholesky (the Backend methods of the same names). One variant per dtype
// (float32; float64 with CONCORD_F64=1), the operation chosen by Args.op, and
// the reproducible mode's "_x" variants on bits (XMODE, below).
//
// Every element receives the same operations in the same order as the CPU
// backend's small-matrix loops (src/backend/cpu/linalg.cpp, linalg_small.h):
// invocations split only updates that are independent of each other, every
// dot product runs in ascending index order, and nothing is contracted into
// an fma (`precise`). The OpenCL kernels (kernels/linalg.cl) follow the same
// order.
//
// The matrix (lu, a) is worked on in shared memory when the pipeline's
// specialization constant CAP (elements of the shared copy) holds n·n, else
// in place in device memory; right-hand sides always stay in device memory.
// Device-memory accesses are coherent and every step ends with a buffer and
// shared-memory barrier. Loop iterations per invocation stay bounded (llvmpipe
// silently ends an invocation after 65535 loop iterations in all): right-hand
// sides come in slices of 64 columns (rows for right solves) per workgroup, and
// the host sends n <= 128 only. Barriers sit in uniform control flow only: a zero
// pivot, bad pivots, a failed Cholesky step switch work off through loop
// bounds that are the same in every invocation.
#version 460
#include "common.glsl"

#ifndef CONCORD_F64
#define CONCORD_F64 0
#endif
#ifndef XMODE
#define XMODE 0
#endif
// Every float operation goes through the F_* macros: plain float
// instructions by default; with XMODE (the reproducible mode's "_x"
// variants) the integer functions of xf32.glsl (XMODE 1, float32 bits in a
// uint) or xf64.glsl (XMODE 2, float64 bits in a uint64_t), compares and
// |x| included, so that no float instruction can flush a subnormal or round
// a division differently from the CPU. Their NaN results are canonical, and
// F_CANON makes every value loaded canonical too: an "_x" variant's floating
// stores need no separate NaN pass.
#if XMODE == 1
#include "xf32.glsl"
#define T uint
#define TSIZE 4ul
#define NAN_T XF_NAN
#define ZERO_T 0u
#define F_SUB(a, b) xf_sub(a, b)
#define F_MUL(a, b) xf_mul(a, b)
#define F_DIV(a, b) xf_div(a, b)
#define F_SQRT(a) xf_sqrt(a)
#define F_ABS(a) xf_abs(a)
#define F_GT(a, b) xf_lt(b, a)
#define F_ISZERO(a) xf_iszero(a)
#define F_CANON(a) (xf_isnan(a) ? XF_NAN : (a))
layout(buffer_reference, std430, buffer_reference_align = 4) coherent buffer RefT { uint v; };
#elif XMODE == 2
#include "xf32.glsl"
#include "xf64.glsl"
#define T uint64_t
#define TSIZE 8ul
#define NAN_T XD_NAN
#define ZERO_T 0ul
#define F_SUB(a, b) xd_sub(a, b)
#define F_MUL(a, b) xd_mul(a, b)
#define F_DIV(a, b) xd_div(a, b)
#define F_SQRT(a) xd_sqrt(a)
#define F_ABS(a) xd_abs(a)
#define F_GT(a, b) xd_lt(b, a)
#define F_ISZERO(a) xd_iszero(a)
#define F_CANON(a) (xd_isnan(a) ? XD_NAN : (a))
layout(buffer_reference, std430, buffer_reference_align = 8) coherent buffer RefT { uint64_t v; };
#else
#if CONCORD_F64
#extension GL_EXT_shader_explicit_arithmetic_types_float64 : require
#define T double
#define TSIZE 8ul
#define NAN_T uint64BitsToDouble(0x7ff8000000000000ul)
layout(buffer_reference, std430, buffer_reference_align = 8) coherent buffer RefT { double v; };
#else
#define T float
#define TSIZE 4ul
#define NAN_T uintBitsToFloat(0x7fc00000u)
layout(buffer_reference, std430, buffer_reference_align = 4) coherent buffer RefT { float v; };
#endif
#define ZERO_T T(0)
#define F_SUB(a, b) ((a) - (b))
#define F_MUL(a, b) ((a) * (b))
#define F_DIV(a, b) ((a) / (b))
#define F_SQRT(a) sqrt(a)
#define F_ABS(a) abs(a)
#define F_GT(a, b) ((a) > (b))
#define F_ISZERO(a) ((a) == T(0))
#define F_CANON(a) (a)
#endif
layout(buffer_reference, std430, buffer_reference_align = 4) coherent buffer RefI { int v; };

layout(local_size_x = 64) in;
#define SLICE 64  // right-hand-side columns (rows for right solves) per workgroup
layout(constant_id = 0) const int CAP = 1;  // shared working copy, in elements; 1: none

// Operation codes (linalg.cpp's LinalgOp).
#define OP_LU_FACTOR 1
#define OP_LU_SOLVE 2
#define OP_CHOLESKY 3
#define OP_SOLVE_TRIANGULAR 4

layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Args {
  uint64_t mat, piv, info, rhs;  // byte-0 addresses of the buffers
  int64_t mat_off, piv_off, info_off, rhs_off;  // element offsets of matrix 0
  int64_t b0;                    // index of this dispatch's first matrix
  int op, n, k, upper, left, unit, local_copy;
  int s0;                        // index of this dispatch's first slice of right-hand sides
};
layout(push_constant) uniform Push { Args args; } pc;

shared T sh[CAP];
shared int s_pivot[2];  // by parity of k: invocation 0 may write k+1's before the others read k's
shared int s_bad;
shared T s_diag;

uint64_t g_mat;  // address of this matrix in device memory
bool g_local;

T gld(uint64_t base, int i) { return F_CANON(RefT(base + uint64_t(i) * TSIZE).v); }
void gst(uint64_t base, int i, T v) { RefT(base + uint64_t(i) * TSIZE).v = v; }
// The working matrix.
T A(int i) { return g_local ? sh[i] : gld(g_mat, i); }
void setA(int i, T v) {
  if (g_local) sh[i] = v;
  else gst(g_mat, i, v);
}

void sync() {
  memoryBarrierBuffer();
  memoryBarrierShared();
  barrier();
}

// `is_result`: the matrix is also the result; an "_x" variant then makes its
// NaNs canonical in place where it is not worked on in shared memory (the
// shared copy goes back whole).
void load_matrix(int len, bool is_result) {
  if (g_local) {
    for (int e = int(gl_LocalInvocationID.x); e < len; e += 64) sh[e] = gld(g_mat, e);
  } else if (XMODE != 0 && is_result) {
    for (int e = int(gl_LocalInvocationID.x); e < len; e += 64) gst(g_mat, e, gld(g_mat, e));
  }
  sync();
}
void store_matrix(int len) {
  sync();
  if (g_local) {
    for (int e = int(gl_LocalInvocationID.x); e < len; e += 64) gst(g_mat, e, sh[e]);
  }
}

// In place LU (row-major n x n), right-looking as LAPACK's getf2: pivot = the
// first largest |a[i][k]|, full-row swaps, l = a[i][k] / a[k][k], then
// a[i][j] -= l * a[k][j]. A zero pivot is recorded (the first goes to info)
// and its column skipped, as getrf does.
void lu_factor(int n, uint64_t pv, uint64_t info) {
  const int lid = int(gl_LocalInvocationID.x);
  load_matrix(n * n, true);
  int first_zero = 0;  // the same in every invocation
  for (int k = 0; k < n; ++k) {
    if (lid == 0) {
      int p = k;
      T best = F_ABS(A(k * n + k));
      for (int i = k + 1; i < n; ++i) {
        const T v = F_ABS(A(i * n + k));
        if (F_GT(v, best)) {
          best = v;
          p = i;
        }
      }
      RefI(pv + uint64_t(k) * 4ul).v = p + 1;
      s_pivot[k & 1] = F_ISZERO(A(p * n + k)) ? -1 : p;
    }
    sync();
    const int p = s_pivot[k & 1];
    if (p < 0 && first_zero == 0) first_zero = k + 1;
    const int live = p >= 0 ? n : 0;
    if (p != k)
      for (int j = lid; j < live; j += 64) {
        const T t = A(k * n + j);
        setA(k * n + j, A(p * n + j));
        setA(p * n + j, t);
      }
    sync();
    const T d = A(k * n + k);
    for (int i = k + 1 + lid; i < live; i += 64) {
      precise T l = F_DIV(A(i * n + k), d);
      setA(i * n + k, l);
    }
    sync();
    // One column of the trailing block per invocation, rows in order.
    for (int j = k + 1 + lid; j < live; j += 64) {
      const T akj = A(k * n + j);
      for (int i = k + 1; i < n; ++i) {
        precise T v = F_SUB(A(i * n + j), F_MUL(A(i * n + k), akj));
        setA(i * n + j, v);
      }
    }
    sync();
  }
  store_matrix(n * n);
  if (lid == 0) RefI(info).v = first_zero;
}

// rhs (n x k) := U^-1 L^-1 P rhs for the factors of lu_factor. Pivots outside
// [1, n] set the flag at `bad` and leave this rhs untouched (the host raises).
void lu_solve(int n, int k, int c0, int c1, uint64_t pv, uint64_t x, uint64_t bad) {
  const int lid = int(gl_LocalInvocationID.x);
  if (lid == 0) s_bad = 0;
  sync();
  for (int i = lid; i < n; i += 64) {
    const int q = RefI(pv + uint64_t(i) * 4ul).v;
    if (q < 1 || q > n) s_bad = 1;
  }
  sync();
  const bool any_bad = s_bad != 0;
  if (any_bad && lid == 0) RefI(bad).v = 1;
  const int kc = any_bad ? 0 : c1 - c0;  // bad pivots: every loop below is empty
  load_matrix(n * n, false);
  // Row swaps in order; each invocation owns whole columns.
  for (int c = c0 + lid; c < c0 + kc; c += 64)
    for (int i = 0; i < n; ++i) {
      const int p = RefI(pv + uint64_t(i) * 4ul).v - 1;
      if (p != i) {
        const T t = gld(x, i * k + c);
        gst(x, i * k + c, gld(x, p * k + c));
        gst(x, p * k + c, t);
      }
    }
  sync();
  // L (unit lower), by columns: step j subtracts l[i][j] x[j] from every later row.
  for (int j = 0; j + 1 < n; ++j) {
    const int m = (n - j - 1) * kc;
    for (int e = lid; e < m; e += 64) {
      const int i = j + 1 + e / kc, c = c0 + e % kc;
      precise T v = F_SUB(gld(x, i * k + c), F_MUL(A(i * n + j), gld(x, j * k + c)));
      gst(x, i * k + c, v);
    }
    sync();
  }
  // U, by rows from the bottom: whole columns per invocation, sums in
  // descending order of j (as the CPU's).
  for (int c = c0 + lid; c < c0 + kc; c += 64)
    for (int i = n - 1; i >= 0; --i) {
      precise T s = gld(x, i * k + c);
      for (int j = n - 1; j > i; --j) s = F_SUB(s, F_MUL(A(i * n + j), gld(x, j * k + c)));
      precise T q = F_DIV(s, A(i * n + i));
      gst(x, i * k + c, q);
    }
}

// Triangular solve with the named triangle of the matrix (the other is never
// read): left: A X = B with rhs n x k (this workgroup: columns [c0, c1));
// right: X A = B with rhs k x n (rows [c0, c1)).
void solve_triangular(int n, int k, int c0, int c1, bool upper, bool left, bool unit, uint64_t x) {
  const int kc = c1 - c0;
  const int lid = int(gl_LocalInvocationID.x);
  if (XMODE != 0) {
    // A unit solve never stores some rows (columns) of the slice: make the
    // whole slice canonical first, so that every element leaves canonical.
    const int len = n * kc;
    for (int e = lid; e < len; e += 64) {
      const int idx = left ? (e / kc) * k + c0 + e % kc : (c0 + e / n) * n + e % n;
      gst(x, idx, gld(x, idx));
    }
  }
  load_matrix(n * n, false);
  if (left && upper) {
    // By rows from the bottom, whole columns per invocation, sums in descending j.
    for (int c = c0 + lid; c < c1; c += 64)
      for (int i = n - 1; i >= 0; --i) {
        precise T s = gld(x, i * k + c);
        for (int j = n - 1; j > i; --j) s = F_SUB(s, F_MUL(A(i * n + j), gld(x, j * k + c)));
        precise T q = unit ? s : F_DIV(s, A(i * n + i));
        gst(x, i * k + c, q);
      }
  } else if (left) {
    // Lower, by columns: row j is final once divided; then it is subtracted from the later rows.
    for (int j = 0; j < n; ++j) {
      if (!unit) {
        for (int c = c0 + lid; c < c1; c += 64) {
          precise T q = F_DIV(gld(x, j * k + c), A(j * n + j));
          gst(x, j * k + c, q);
        }
        sync();
      }
      const int m = (n - j - 1) * kc;
      for (int e = lid; e < m; e += 64) {
        const int i = j + 1 + e / kc, c = c0 + e % kc;
        precise T v = F_SUB(gld(x, i * k + c), F_MUL(A(i * n + j), gld(x, j * k + c)));
        gst(x, i * k + c, v);
      }
      sync();
    }
  } else {
    // Right: every row r of X solves x A = b. Upper: x[j] is final after steps
    // 0..j-1, then it is subtracted from x[j+1..]; lower: the same from the end.
    for (int s = 0; s < n; ++s) {
      const int j = upper ? s : n - 1 - s;
      if (!unit) {
        for (int r = c0 + lid; r < c1; r += 64) {
          precise T q = F_DIV(gld(x, r * n + j), A(j * n + j));
          gst(x, r * n + j, q);
        }
        sync();
      }
      const int w = upper ? n - j - 1 : j;  // columns updated at this step
      const int m0 = upper ? j + 1 : 0;
      for (int e = lid; e < w * kc; e += 64) {
        const int r = c0 + e / w, col = m0 + e % w;
        precise T v = F_SUB(gld(x, r * n + col), F_MUL(gld(x, r * n + j), A(j * n + col)));
        gst(x, r * n + col, v);
      }
      sync();
    }
  }
}

// Cholesky by columns (left-looking, as potf2), reading and writing only the
// lower triangle. Stops at the first leading minor that is not positive
// definite: its diagonal keeps the failed value, info = its order.
void cholesky(int n, uint64_t info) {
  const int lid = int(gl_LocalInvocationID.x);
  load_matrix(n * n, true);
  int status = 0;  // the same in every invocation
  for (int j = 0; j < n; ++j) {
    if (lid == 0 && status == 0) {
      precise T d = A(j * n + j);
      for (int p = 0; p < j; ++p) d = F_SUB(d, F_MUL(A(j * n + p), A(j * n + p)));
      s_diag = d;
    }
    sync();
    T d = s_diag;
    if (status == 0 && !F_GT(d, ZERO_T)) {  // also NaN: stop here
      if (lid == 0) setA(j * n + j, d);
      status = j + 1;
    }
    const int live = status == 0 ? n : 0;
    d = F_SQRT(d);
    if (lid == 0 && live != 0) setA(j * n + j, d);
    for (int i = j + 1 + lid; i < live; i += 64) {
      precise T s = A(i * n + j);
      for (int p = 0; p < j; ++p) s = F_SUB(s, F_MUL(A(i * n + p), A(j * n + p)));
      precise T q = F_DIV(s, d);
      setA(i * n + j, q);
    }
    sync();
  }
  store_matrix(n * n);
  if (lid == 0) RefI(info).v = status;
}

void main() {
  Args g = pc.args;
  const int64_t b = g.b0 + int64_t(gl_WorkGroupID.x);
  const int n = g.n, k = g.k;
  const int64_t nn = int64_t(n) * n;
  g_mat = g.mat + uint64_t(g.mat_off + b * nn) * TSIZE;
  g_local = CAP > 1 && g.local_copy != 0;
  const uint64_t pv = g.piv + uint64_t(g.piv_off + b * n) * 4ul;
  const uint64_t rhs = g.rhs + uint64_t(g.rhs_off + b * int64_t(n) * k) * TSIZE;
  // Right-hand sides in slices of SLICE columns (left) or rows (right), one per workgroup row.
  const int c0 = (g.s0 + int(gl_WorkGroupID.y)) * SLICE, c1 = min(k, c0 + SLICE);
  switch (g.op) {
    case OP_LU_FACTOR:
      lu_factor(n, pv, g.info + uint64_t(g.info_off + b) * 4ul);
      break;
    case OP_LU_SOLVE:
      lu_solve(n, k, c0, c1, pv, rhs, g.info);
      break;
    case OP_CHOLESKY:
      cholesky(n, g.info + uint64_t(g.info_off + b) * 4ul);
      break;
    case OP_SOLVE_TRIANGULAR:
      solve_triangular(n, k, c0, c1, g.upper != 0, g.left != 0, g.unit != 0, rhs);
      break;
    default:  // an operation without its case: NaN, never a silent result
      for (int e = int(gl_LocalInvocationID.x); e < nn; e += 64) gst(g_mat, e, NAN_T);
      break;
  }
}
