// The CPU reduction engine shared by reduce.cpp and softmax.cpp.
//
// Order of evaluation (the determinism contract): the n reduced elements of
// one output, in row-major order of the reduced dims, are cut into blocks of
// kBlock elements. Inside a block, element i goes to lane i % kLanes; lanes
// accumulate in increasing i, then combine as a tree (lane l += lane l + w for
// w = kLanes/2 ... 1). Block results combine by recursive halving. Threads only
// decide who computes which block, so the bits never depend on the thread
// count, and the three layouts below (contiguous rows, columns, gathered)
// produce the same bits for the same logical sequence. The tree shape also
// keeps the rounding error near log2(n)·u instead of n·u.
//
// Contiguous runs of float32/float16/bfloat16 for sum, max, min and the
// exp-sum go to the vectorised kernels (vec_math.h), which hold the lanes of a
// block in vector registers: the same order, the same bits, several times
// faster. Every other layout and reducer uses the scalar loops below.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "backend/cpu/convert.h"
#include "backend/cpu/loops.h"
#include "backend/cpu/vec_math.h"
#include "backend/common/canon_f64_log.h"

namespace concord::detail::cpu::red {

inline constexpr int64_t kBlock = vec::kRedBlock;  // elements per block (a multiple of kLanes)
inline constexpr int kLanes = vec::kRedLanes;      // independent accumulators per block
inline constexpr int kCols = 128;        // columns handled together by the column layout

// Accumulation type: float32 for halves and float32, float64 for float64,
// uint64 (wrapping, no UB) for integers and bool.
template <class T>
using acc_t = std::conditional_t<std::is_same_v<T, double>, double,
                                 std::conditional_t<std::is_floating_point_v<compute_t<T>>, float, uint64_t>>;

// A walk over a few dims (outermost first) with element strides.
struct Walker {
  int nd = 0;
  const int64_t* shape = nullptr;
  const int64_t* stride = nullptr;
  int64_t idx[kMaxDims] = {0};
  int64_t off = 0;
  void seek(int64_t lin) {
    off = 0;
    for (int d = nd - 1; d >= 0; --d) {
      idx[d] = lin % shape[d];
      lin /= shape[d];
      off += idx[d] * stride[d];
    }
  }
  void next() {
    for (int d = nd - 1; d >= 0; --d) {
      off += stride[d];
      if (++idx[d] < shape[d]) return;
      off -= stride[d] * shape[d];
      idx[d] = 0;
    }
  }
};

// x split into kept dims (the outputs, row-major) and reduced dims, each group
// coalesced and without size-1 dims. Strides in elements.
struct Geom {
  int nk = 0, nr = 0;
  int64_t ks[kMaxDims], kst[kMaxDims], rs[kMaxDims], rst[kMaxDims];
  int64_t n_out = 1, n_red = 1;
  Walker kept() const { Walker w; w.nd = nk; w.shape = ks; w.stride = kst; return w; }
  Walker reduced() const { Walker w; w.nd = nr; w.shape = rs; w.stride = rst; return w; }
};

inline void push_dim(int& n, int64_t* s, int64_t* st, int64_t size, int64_t stride) {
  if (size == 1) return;
  if (n > 0 && st[n - 1] == stride * size) {  // the previous (outer) dim continues this one
    s[n - 1] *= size;
    st[n - 1] = stride;
    return;
  }
  s[n] = size;
  st[n] = stride;
  ++n;
}

// dims: sorted, unique.
inline Geom make_geom(const Tensor& x, const Dims& dims) {
  if (x.ndim() > kMaxDims)
    throw ShapeError("[cpu] tensors with more than 16 dims are not supported, got " + shape_str(x.shape()));
  Geom g;
  size_t j = 0;
  for (int64_t d = 0; d < x.ndim(); ++d) {
    const bool red = j < dims.size() && dims[j] == d;
    if (red) {
      ++j;
      push_dim(g.nr, g.rs, g.rst, x.shape()[d], x.strides()[d]);
      g.n_red *= x.shape()[d];
    } else {
      push_dim(g.nk, g.ks, g.kst, x.shape()[d], x.strides()[d]);
      g.n_out *= x.shape()[d];
    }
  }
  return g;
}

template <class R>
inline typename R::A lane_tree(const R& r, typename R::A* acc) {
  for (int w = kLanes / 2; w >= 1; w /= 2)
    for (int l = 0; l < w; ++l) acc[l] = r.combine(acc[l], acc[l + w]);
  return acc[0];
}

// One block of contiguous values.
template <class R>
inline typename R::A block_contig(const R& r, const typename R::V* x, int64_t len, typename R::P p) {
  using A = typename R::A;
  A acc[kLanes];
  for (int l = 0; l < kLanes; ++l) acc[l] = r.identity();
  int64_t i = 0;
  for (; i + kLanes <= len; i += kLanes)
    for (int l = 0; l < kLanes; ++l) acc[l] = r.combine(acc[l], r.map(x[i + l], p));
  for (int l = 0; i < len; ++i, ++l) acc[l] = r.combine(acc[l], r.map(x[i], p));
  return lane_tree(r, acc);
}

template <class R>
inline typename R::A combine_blocks(const R& r, const typename R::A* p, int64_t nb) {
  if (nb == 1) return p[0];
  const int64_t h = nb / 2;
  return r.combine(combine_blocks(r, p, h), combine_blocks(r, p + h, nb - h));
}

// Converts n values of T (contiguous) to V.
template <class T, class V>
inline void load_contig(const T* src, int64_t n, V* dst) {
  if constexpr (std::is_same_v<T, float16_t> && std::is_same_v<V, float>) {
    convert_f16_to_f32(src, dst, static_cast<size_t>(n));
  } else if constexpr (std::is_same_v<T, bfloat16_t> && std::is_same_v<V, float>) {
    convert_bf16_to_f32(src, dst, static_cast<size_t>(n));
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<V>(src[i]);
  }
}

// Copies elements [i0, i0 + len) of the reduced dims (row-major) to buf as V,
// a run of the innermost reduced dim at a time.
template <class T, class V>
inline void gather(const T* xb, const Geom& g, int64_t i0, int64_t len, V* buf) {
  Walker rw = g.reduced();
  rw.seek(i0);
  const int last = g.nr - 1;
  const int64_t s = g.rst[last], size = g.rs[last];
  for (int64_t i = 0; i < len;) {
    const int64_t run = std::min(len - i, size - rw.idx[last]);
    const T* p = xb + rw.off;
    for (int64_t k = 0; k < run; ++k) buf[i + k] = static_cast<V>(p[k * s]);
    i += run;
    rw.off += (run - 1) * s;  // to the run's last element, then one step with carry
    rw.idx[last] += run - 1;
    rw.next();
  }
}

// ---- reducers: V is the value type read, A the accumulator, P the per-output parameter ----

template <class T>
struct SumR {  // map(v) = v
  using V = compute_t<T>;
  using A = acc_t<T>;
  using P = A;
  // -0.0 so that a lane holding one -0.0 keeps its sign (x + -0.0 == x for all x).
  static A identity() { if constexpr (std::is_floating_point_v<A>) return A(-0.0); else return A(0); }
  static A combine(A a, A b) { return a + b; }
  static A map(V v, A) { return static_cast<A>(v); }
};

template <class T>
struct ProdR {
  using V = compute_t<T>;
  using A = acc_t<T>;
  using P = A;
  static A identity() { return A(1); }
  static A combine(A a, A b) { return a * b; }
  static A map(V v, A) { return static_cast<A>(v); }
};

// max/min propagating NaN. For floats V = A = compute type; integers keep their type.
template <class T, bool kMax>
struct ExtremeR {
  using V = compute_t<T>;
  using A = V;
  using P = A;
  static A identity() {
    if constexpr (std::is_floating_point_v<A>) return kMax ? -std::numeric_limits<A>::infinity() : std::numeric_limits<A>::infinity();
    else return kMax ? std::numeric_limits<A>::lowest() : std::numeric_limits<A>::max();
  }
  static A combine(A a, A b) {
    if constexpr (kMax) return (a > b || a != a) ? a : b;
    else return (a < b || a != a) ? a : b;
  }
  static A map(V v, A) { return v; }
};

template <class T>
struct AbsMaxR {  // inf-norm: max |v|, NaN propagates
  using V = compute_t<T>;
  using A = std::conditional_t<std::is_same_v<T, double>, double, float>;
  using P = A;
  static A identity() { return A(0); }
  static A combine(A a, A b) { return (a > b || a != a) ? a : b; }
  static A map(V v, A) { return std::fabs(static_cast<A>(v)); }
};

template <class T>
struct AbsSumR : SumR<T> {
  using A = typename SumR<T>::A;
  static A map(typename SumR<T>::V v, A) { return std::fabs(static_cast<A>(v)); }
};

template <class T>
struct SquareSumR : SumR<T> {
  using A = typename SumR<T>::A;
  static A map(typename SumR<T>::V v, A) { const A a = static_cast<A>(v); return a * a; }
};

template <class T>
struct ScaledSumR : SumR<T> {  // sum v * s, s (a power of two) from params
  using A = typename SumR<T>::A;
  static A map(typename SumR<T>::V v, A s) { return static_cast<A>(v) * s; }
};

// The parameter of the squared deviations: the scale s (a power of two) and
// the mean of the scaled values.
template <class A>
struct ScaledMean {
  A scale, mean;
};

template <class T>
struct SquaredDevR : SumR<T> {  // sum (v - mean)^2: ScaledSquaredDevR's bits for s = 1
  using A = typename SumR<T>::A;
  static A map(typename SumR<T>::V v, A m) { const A d = static_cast<A>(v) - m; return d * d; }
};

template <class T>
struct ScaledSquaredDevR : SumR<T> {  // sum (v * s - mean)^2
  using A = typename SumR<T>::A;
  using P = ScaledMean<A>;
  static A map(typename SumR<T>::V v, P p) { const A d = static_cast<A>(v) * p.scale - p.mean; return d * d; }
};

template <class T>
struct ExpSumR : SumR<T> {  // sum exp(v - shift), shift from params
  using A = typename SumR<T>::A;
  // float32: exp_f32, the bits of the vectorised exp, so every layout agrees.
  static A map(typename SumR<T>::V v, A s) {
    if constexpr (std::is_same_v<A, float>) return vec::exp_f32(static_cast<A>(v) - s);
    else return std::exp(static_cast<A>(v) - s);
  }
};

// float64 in the reproducible mode: the exp shared with OpenCL
// (backend/common/canon_f64.h). The caller picks it on its own thread
// (nan_rule_in_stores()), since worker threads do not see the mode.
template <class T>
struct ExpSumSharedR : SumR<T> {
  using A = typename SumR<T>::A;
  static A map(typename SumR<T>::V v, A s) { return concord_exp_f64(static_cast<A>(v) - s); }
};

template <class T, bool kAll>
struct BoolR {
  using V = compute_t<T>;
  using A = uint8_t;
  using P = A;
  static A identity() { return kAll ? 1 : 0; }
  static A combine(A a, A b) { return kAll ? (a & b) : (a | b); }
  static A map(V v, A) { return v != V(0); }
};

// Reducers with a vectorised kernel for contiguous float32/float16/bfloat16
// runs (vec::RedOp), -1 for the others (explicitly: AbsSumR and friends derive
// from SumR but must not inherit its kernel).
template <class R> inline constexpr int vec_op_v = -1;
template <class T> inline constexpr int vec_op_v<SumR<T>> = static_cast<int>(vec::RedOp::sum);
template <class T> inline constexpr int vec_op_v<ExtremeR<T, true>> = static_cast<int>(vec::RedOp::max);
template <class T> inline constexpr int vec_op_v<ExtremeR<T, false>> = static_cast<int>(vec::RedOp::min);
template <class T> inline constexpr int vec_op_v<ExpSumR<T>> = static_cast<int>(vec::RedOp::exp_sum);

template <class T>
inline constexpr bool is_vec_type_v = std::is_same_v<T, float> || std::is_same_v<T, float16_t> || std::is_same_v<T, bfloat16_t>;
template <class T>
inline constexpr vec::Ty vec_ty_v = std::is_same_v<T, float> ? vec::Ty::f32 : std::is_same_v<T, float16_t> ? vec::Ty::f16 : vec::Ty::bf16;

// Runs reducer R over x (element type T) and calls fin(o, acc) once per output o
// (possibly from several threads, each o once). params[o] (or P{} if null) is
// handed to R::map for the elements of output o.
template <class T, class R, class F>
void run(const Tensor& x, const Geom& g, const R& r, const typename R::P* params, F&& fin) {
  using A = typename R::A;
  using P = typename R::P;
  using V = typename R::V;
  const int64_t n = g.n_red, nout = g.n_out;
  if (nout == 0) return;
  if (n == 0) {
    for (int64_t o = 0; o < nout; ++o) fin(o, r.identity());
    return;
  }
  const T* base = static_cast<const T*>(x.raw_data());
  const int64_t nb = (n + kBlock - 1) / kBlock;
  const int64_t per_block = std::min(n, kBlock);
  std::vector<A> partial(nb > 1 ? static_cast<size_t>(nout * nb) : 0);
  auto emit = [&](int64_t o, int64_t b, A v) {
    if (nb == 1) fin(o, v);
    else partial[static_cast<size_t>(o * nb + b)] = v;
  };
  auto param = [&](int64_t o) { return params ? params[o] : P{}; };
  const bool inner = g.nr == 0 || (g.nr == 1 && g.rst[0] == 1);
  const bool column = !inner && g.nk >= 1 && g.kst[g.nk - 1] == 1 && g.ks[g.nk - 1] >= 4;

  bool vec_done = false;
  if constexpr (vec_op_v<R> >= 0 && is_vec_type_v<T>) {
    if (inner) {
      // Runs of whole blocks of one output go to the vectorised kernel.
      const vec::Kernels& vk = vec::kernels();
      const int64_t items = nout * nb;
      parallel_for(items, std::max<int64_t>(1, kParallelGrain / per_block), [&](int64_t ib, int64_t ie) {
        constexpr int64_t kChunk = 64;
        float part[kChunk];
        Walker kw = g.kept();
        kw.seek(ib / nb);
        for (int64_t it = ib; it < ie;) {
          const int64_t o = it / nb, b = it % nb;
          const int64_t bn = std::min({ie - it, nb - b, kChunk});
          const int64_t i0 = b * kBlock, len = std::min(bn * kBlock, n - i0);
          vk.reduce_blocks(static_cast<vec::RedOp>(vec_op_v<R>), vec_ty_v<T>, base + kw.off + i0, len,
                           static_cast<float>(param(o)), part, nullptr);
          for (int64_t j = 0; j < bn; ++j) emit(o, b + j, static_cast<A>(part[j]));
          it += bn;
          if (it < ie && it % nb == 0) kw.next();
        }
      });
      vec_done = true;
    }
  }
  if (vec_done) {
    // done above
  } else if (column) {
    // Outputs along the contiguous innermost kept dim advance together: row by
    // row, kCols columns at a time, each column with its own kLanes lanes.
    const int64_t W = g.ks[g.nk - 1];
    const int64_t chunks = (W + kCols - 1) / kCols;
    const int64_t items = (nout / W) * chunks * nb;
    const int64_t grain = std::max<int64_t>(1, kParallelGrain / (per_block * std::min<int64_t>(W, kCols)));
    parallel_for(items, grain, [&](int64_t ib, int64_t ie) {
      A acc[kLanes][kCols];
      P pj[kCols];
      V tmp[kCols];
      Walker kw = g.kept(), rw = g.reduced();
      for (int64_t it = ib; it < ie; ++it) {
        const int64_t b = it % nb, oc = it / nb;
        const int64_t o0 = (oc / chunks) * W + (oc % chunks) * kCols;
        const int cw = static_cast<int>(std::min<int64_t>(kCols, W - (oc % chunks) * kCols));
        kw.seek(o0);
        const T* xb = base + kw.off;
        for (int j = 0; j < cw; ++j) pj[j] = param(o0 + j);
        for (int l = 0; l < kLanes; ++l)
          for (int j = 0; j < cw; ++j) acc[l][j] = r.identity();
        const int64_t i0 = b * kBlock, len = std::min(kBlock, n - i0);
        rw.seek(i0);
        for (int64_t i = 0; i < len; ++i, rw.next()) {
          const T* row = xb + rw.off;
          const V* v;
          if constexpr (std::is_same_v<T, V>) {
            v = row;
          } else {
            load_contig(row, cw, tmp);
            v = tmp;
          }
          A* a = acc[i % kLanes];
          // omp simd: -O2's cost model would not vectorise a loop of unknown trip count;
          // columns are independent, so this does not change the order per column.
#pragma omp simd
          for (int j = 0; j < cw; ++j) a[j] = r.combine(a[j], r.map(v[j], pj[j]));
        }
        for (int w = kLanes / 2; w >= 1; w /= 2)
          for (int l = 0; l < w; ++l)
#pragma omp simd
            for (int j = 0; j < cw; ++j) acc[l][j] = r.combine(acc[l][j], acc[l + w][j]);
        for (int j = 0; j < cw; ++j) emit(o0 + j, b, acc[0][j]);
      }
    });
  } else {
    const int64_t items = nout * nb;
    const int64_t grain = std::max<int64_t>(1, kParallelGrain / per_block);
    parallel_for(items, grain, [&](int64_t ib, int64_t ie) {
      std::unique_ptr<V[]> buf;  // not std::vector: V may be bool
      if (!inner || !std::is_same_v<T, V>) buf.reset(new V[static_cast<size_t>(per_block)]);
      Walker kw = g.kept();
      int64_t cur = -1;
      for (int64_t it = ib; it < ie; ++it) {
        const int64_t o = it / nb, b = it % nb;
        if (o != cur) {
          if (o == cur + 1 && cur >= 0) kw.next();
          else kw.seek(o);
          cur = o;
        }
        const int64_t i0 = b * kBlock, len = std::min(kBlock, n - i0);
        const T* xb = base + kw.off;
        const V* v;
        if (inner) {
          const T* src = xb + i0;
          if constexpr (std::is_same_v<T, V>) {
            v = src;
          } else {
            load_contig(src, len, buf.get());
            v = buf.get();
          }
        } else {
          gather(xb, g, i0, len, buf.get());
          v = buf.get();
        }
        emit(o, b, block_contig(r, v, len, param(o)));
      }
    });
  }
  if (nb > 1) {
    parallel_for(nout, std::max<int64_t>(1, kParallelGrain / nb), [&](int64_t ob, int64_t oe) {
      for (int64_t o = ob; o < oe; ++o) fin(o, combine_blocks(r, partial.data() + o * nb, nb));
    });
  }
}

}  // namespace concord::detail::cpu::red
