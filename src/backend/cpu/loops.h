// Strided N-d iteration for CPU kernels (the heart of every elementwise kernel).
//
// An Iter holds up to 4 operands (operand 0 is usually the output) over one
// shape, with byte strides. Dims are coalesced where every operand allows, so
// a contiguous tensor becomes one long row. for_each() calls
//   fn(char* const* ptrs, const int64_t* strides, int64_t n)
// for runs of the innermost dim, splitting the element range across threads
// for large tensors. The split only decides who computes which elements, so
// elementwise results never depend on the thread count.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "concord/tensor.h"
#include "core/nan_rule.h"

namespace concord::detail::cpu {

// f with the reproducible mode's NaN rule applied to its result (kernels that
// fuse the rule into their stores, core/nan_rule.h): a NaN becomes the
// canonical quiet NaN of the compute type, which stores to float16/bfloat16
// keep as theirs (0x7e00, 0x7fc0).
template <class F>
struct CanonNan {
  F f;
  template <class... V>
  auto operator()(V... v) const {
    const auto r = f(v...);
    using R = std::remove_const_t<decltype(r)>;
    return r != r ? std::numeric_limits<R>::quiet_NaN() : r;
  }
};

inline constexpr int kMaxOps = 4;
inline constexpr int kMaxDims = 16;
// Below this many elements an op runs on one thread: forking costs more than it saves.
inline constexpr int64_t kParallelGrain = 32768;

struct Iter {
  int nops = 0;
  int ndim = 0;  // after coalescing; dim 0 is the innermost
  int64_t numel = 0;
  int64_t shape[kMaxDims];
  int64_t strides[kMaxDims][kMaxOps];  // bytes
  char* base[kMaxOps];

  // All tensors must have the same shape (broadcast beforehand with expand()).
  Iter(std::initializer_list<const Tensor*> ts);
  bool contiguous(int op, int64_t elem) const { return ndim <= 1 && (ndim == 0 || strides[0][op] == elem); }
};

inline Iter::Iter(std::initializer_list<const Tensor*> ts) {
  const Tensor& first = **ts.begin();
  numel = first.numel();
  const int nd = static_cast<int>(first.ndim());
  if (nd > kMaxDims) throw ShapeError("[cpu] tensors with more than 16 dims are not supported, got " + shape_str(first.shape()));
  for (const Tensor* t : ts) {
    base[nops] = static_cast<char*>(t->raw_data());
    ++nops;
  }
  // Reverse dims so that dim 0 is innermost; drop size-1 dims.
  ndim = 0;
  for (int d = nd - 1; d >= 0; --d) {
    if (first.shape()[d] == 1) continue;
    shape[ndim] = first.shape()[d];
    int k = 0;
    for (const Tensor* t : ts) strides[ndim][k++] = t->strides()[d] * static_cast<int64_t>(itemsize(t->dtype()));
    ++ndim;
  }
  // Coalesce dim i+1 into i when stride[i+1] == stride[i] * shape[i] for every operand.
  int out = 0;
  for (int d = 1; d < ndim; ++d) {
    bool ok = true;
    for (int k = 0; k < nops; ++k) ok &= strides[d][k] == strides[out][k] * shape[out];
    if (ok) {
      shape[out] *= shape[d];
    } else {
      ++out;
      shape[out] = shape[d];
      for (int k = 0; k < nops; ++k) strides[out][k] = strides[d][k];
    }
  }
  if (ndim > 0) ndim = out + 1;
  if (ndim == 0) {  // a single element
    ndim = 1;
    shape[0] = 1;
    for (int k = 0; k < nops; ++k) strides[0][k] = 0;
  }
}

// Calls fn for the elements [begin, end) in row-major order of the coalesced shape.
template <class F>
void for_range(const Iter& it, int64_t begin, int64_t end, F&& fn) {
  char* ptrs[kMaxOps];
  int64_t inner[kMaxOps];
  if (it.ndim == 1) {  // one run (every contiguous tensor): no index bookkeeping
    for (int k = 0; k < it.nops; ++k) {
      inner[k] = it.strides[0][k];
      ptrs[k] = it.base[k] + begin * inner[k];
    }
    fn(static_cast<char* const*>(ptrs), static_cast<const int64_t*>(inner), end - begin);
    return;
  }
  int64_t idx[kMaxDims] = {0};
  int64_t rem = begin;
  for (int d = 0; d < it.ndim; ++d) { idx[d] = rem % it.shape[d]; rem /= it.shape[d]; }
  for (int k = 0; k < it.nops; ++k) inner[k] = it.strides[0][k];
  int64_t pos = begin;
  while (pos < end) {
    for (int k = 0; k < it.nops; ++k) {
      char* p = it.base[k];
      for (int d = 0; d < it.ndim; ++d) p += idx[d] * it.strides[d][k];
      ptrs[k] = p;
    }
    const int64_t n = std::min(it.shape[0] - idx[0], end - pos);
    fn(static_cast<char* const*>(ptrs), static_cast<const int64_t*>(inner), n);
    pos += n;
    idx[0] += n;
    for (int d = 0; d + 1 < it.ndim && idx[d] == it.shape[d]; ++d) { idx[d] = 0; ++idx[d + 1]; }
  }
}

template <class F>
void for_each(const Iter& it, F&& fn, int64_t grain = kParallelGrain) {
  const int64_t n = it.numel;
  if (n == 0) return;
  if (n < grain) return for_range(it, 0, n, fn);  // small: not even a call into OpenMP
  const int threads = omp_get_max_threads();
  if (threads <= 1 || omp_in_parallel()) return for_range(it, 0, n, fn);
  const int64_t chunks = std::min<int64_t>(threads, (n + grain - 1) / grain);
#pragma omp parallel for num_threads(static_cast<int>(chunks)) schedule(static)
  for (int64_t c = 0; c < chunks; ++c) {
    // Chunk edges are rounded to 64 elements so vector loops stay aligned.
    int64_t b = (n * c / chunks) & ~int64_t{63};
    int64_t e = c + 1 == chunks ? n : ((n * (c + 1) / chunks) & ~int64_t{63});
    if (b < e) for_range(it, b, e, fn);
  }
}

// Runs f(begin, end) over [0, n) in parallel chunks when n is large.
template <class F>
void parallel_for(int64_t n, int64_t grain, F&& f) {
  if (n <= 0) return;
  const int threads = omp_get_max_threads();
  if (n < grain || threads <= 1 || omp_in_parallel()) { f(int64_t{0}, n); return; }
  const int64_t chunks = std::min<int64_t>(threads, (n + grain - 1) / grain);
#pragma omp parallel for num_threads(static_cast<int>(chunks)) schedule(static)
  for (int64_t c = 0; c < chunks; ++c) f(n * c / chunks, n * (c + 1) / chunks);
}

}  // namespace concord::detail::cpu
