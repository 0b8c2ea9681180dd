// shaders/index.comp — index_select / gather (-DIDX=32|64, the index's
// width) and tril / triu (-DTRI=1) on raw -DBITS=N-byte items (host side:
// index.cpp). Items are moved without being looked at, so one variant per
// item size serves every dtype (all-zero bits are zero in every dtype).
#version 460
#include "common.glsl"
#include "dtypes.glsl"
#include "geom.glsl"

layout(local_size_x = 256) in;

#if BITS == 1
#define LD_ITEM ld8
#define ST_ITEM st8
#define ZERO 0u
#elif BITS == 2
#define LD_ITEM ld16
#define ST_ITEM st16
#define ZERO 0u
#elif BITS == 4
#define LD_ITEM ld32
#define ST_ITEM st32
#define ZERO 0u
#else
#define LD_ITEM ld64
#define ST_ITEM st64
#define ZERO 0ul
#endif

#ifdef TRI
// Mirrors TriArgs in index.cpp. Element i of the contiguous out is (r, c) of
// its [R, C] matrix: tril keeps c - r <= diag, triu c - r >= diag.
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Args {
  uint64_t dst, x;
  int64_t n, off, rows, cols, diag, lower;
  Geom gx;
};
layout(push_constant) uniform Push { Args args; } pc;

void main() {
  const int64_t i = int64_t(concord_linear_id());
  Args a = pc.args;
  if (i >= a.n) return;
  const int64_t q = i / a.cols;
  const int64_t d = (i - q * a.cols) - q % a.rows;
  const bool keep = a.lower != 0l ? d <= a.diag : d >= a.diag;
  ST_ITEM(a.dst, a.off + i, keep ? LD_ITEM(a.x, geom_at(a.gx, i)) : ZERO);
}
#else
// Mirrors TakeArgs in index.cpp. out[i] = x[gx(i) + idx(i) * dstride]: gx
// views x with out's shape and stride 0 along dim, gi views the index with
// out's shape. An index outside [0, size) is never followed: it sets the
// flag at `err` and writes nothing; the host then raises the error.
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Args {
  uint64_t dst, x, idx, err;
  int64_t n, off, dstride, size;
  Geom gx, gi;
};
layout(push_constant) uniform Push { Args args; } pc;

void main() {
  const int64_t i = int64_t(concord_linear_id());
  Args a = pc.args;
  if (i >= a.n) return;
#if IDX == 32
  // Sign-extended by shifts: int64_t(int(u)) came out zero-extended on lavapipe.
  const int64_t v = int64_t(uint64_t(ld32(a.idx, geom_at(a.gi, i))) << 32) >> 32;
#else
  const int64_t v = int64_t(ld64(a.idx, geom_at(a.gi, i)));
#endif
  if (v < 0l || v >= a.size) {
    st32(a.err, 0l, 1u);
    return;
  }
  ST_ITEM(a.dst, a.off + i, LD_ITEM(a.x, geom_offset(a.gx, i) + v * a.dstride));
}
#endif
