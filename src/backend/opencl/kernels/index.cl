// index_select, gather and tril/triu (host side: index.cpp).
//
// These kernels move items without looking at them: -DE=uchar|ushort|uint|ulong
// by item size, whatever the dtype (all-zero bits are zero in every dtype), and
// -DIT=int|long for the index type.

#ifdef IT
// out[i] = x[xoff(i) + idx(i) * dstride]: xg views x with out's shape and
// stride 0 along dim, ig views the index with out's shape (index_select: the
// 1-D index spread along dim, stride 0 elsewhere). An index outside [0, size)
// sets err[0] and writes nothing; the host then raises the error.
__kernel void take(__global const E* x, Geom xg, long dstride, long size, __global const IT* idx, Geom ig,
                   long n, __global E* out, long oo, __global int* err) {
  const long i = get_global_id(0);
  if (i >= n) return;
  const long v = (long)idx[geom_at(ig, i)];
  if (v < 0 || v >= size) {
    err[0] = 1;
    return;
  }
#ifdef NAN_CANON
  // The reproducible mode's NaN rule on the item's bits (index.cpp, nan_rule_opts).
  const E w = x[geom_offset(xg, i) + v * dstride];
  out[oo + i] = (w & NAN_ABS) > NAN_INF ? (E)NAN_CANON : w;
#else
  out[oo + i] = x[geom_offset(xg, i) + v * dstride];
#endif
}
#endif

// Rows of the last two dims [R, C]: the element (r, c) is kept by tril when
// c - r <= diagonal, by triu when c - r >= diagonal; the others are zero.
__kernel void tri(__global const E* x, Geom xg, long R, long C, long diagonal, int lower, long n,
                  __global E* out, long oo) {
  const long i = get_global_id(0);
  if (i >= n) return;
  const long c = i % C, r = (i / C) % R;
  const long d = c - r;
  const int keep = lower ? d <= diagonal : d >= diagonal;
  out[oo + i] = keep ? x[geom_at(xg, i)] : (E)0;
}
