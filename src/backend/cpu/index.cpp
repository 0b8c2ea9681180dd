// index_select, gather and tril/triu on the CPU.
//
// These kernels move elements without looking at them, so they work on raw
// items of 1, 2, 4 or 8 bytes whatever the dtype. Index values are checked
// here, where the data lives: every index is validated before anything is
// written, and a bad one raises ShapeError naming its value and the size.
// (The OpenCL kernels cannot throw: they set an error flag that the host
// reads after the kernel, then raises the same error.)
#include <algorithm>
#include <cstring>

#include "backend/kernel_errors.h"
#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/loops.h"

namespace concord::detail::cpu {

namespace {

template <size_t N> struct Item;
template <> struct Item<1> { using type = uint8_t; };
template <> struct Item<2> { using type = uint16_t; };
template <> struct Item<4> { using type = uint32_t; };
template <> struct Item<8> { using type = uint64_t; };

// Calls f(Item{}, Index{}) with the raw item type and the index's C++ type.
template <class F>
void visit_item_index(size_t item, Dtype index, F&& f) {
  auto with_index = [&](auto it) {
    if (index == Dtype::int32) f(it, int32_t{});
    else f(it, int64_t{});
  };
  switch (item) {
    case 1: with_index(Item<1>::type{}); break;
    case 2: with_index(Item<2>::type{}); break;
    case 4: with_index(Item<4>::type{}); break;
    default: with_index(Item<8>::type{}); break;
  }
}

// Throws for the first index (in row-major order) outside [0, size).
void check_indices(const char* op, const Tensor& index, const Tensor& x, int64_t dim) {
  const int64_t size = x.size(dim);
  Iter it({&index});
  int64_t bad = 0;
  bool found = false;
  auto scan = [&](auto tag) {
    using I = decltype(tag);
    for_range(it, 0, it.numel, [&](char* const* p, const int64_t* s, int64_t n) {
      if (found) return;
      const char* q = p[0];
      for (int64_t k = 0; k < n; ++k, q += s[0]) {
        const int64_t v = *reinterpret_cast<const I*>(q);
        if (v < 0 || v >= size) { bad = v; found = true; return; }
      }
    });
  };
  if (index.dtype() == Dtype::int32) scan(int32_t{});
  else scan(int64_t{});
  if (found) throw_index_out_of_range(op, bad, x, dim);
}

// out[..., i, ...] = x[..., idx(i), ...] along dim: x is viewed with stride 0
// along dim (so the iterator stays at the start of the dim) and the index adds
// idx * stride(dim) per element.
void take(const Tensor& x, int64_t dim, const Tensor& index_view, const Tensor& out) {
  Strides xs = x.strides();
  const int64_t dim_bytes = xs[dim] * static_cast<int64_t>(itemsize(x.dtype()));
  xs[dim] = 0;
  const Tensor xv(x.storage(), out.shape(), xs, x.offset(), x.dtype());
  Iter it({&out, &xv, &index_view});
  visit_item_index(itemsize(x.dtype()), index_view.dtype(), [&](auto item, auto idx) {
    using T = decltype(item);
    using I = decltype(idx);
    for_each(it, [dim_bytes](char* const* p, const int64_t* s, int64_t n) {
      char* d = p[0];
      const char* src = p[1];
      const char* ip = p[2];
      for (int64_t k = 0; k < n; ++k, d += s[0], src += s[1], ip += s[2]) {
        const int64_t i = *reinterpret_cast<const I*>(ip);
        *reinterpret_cast<T*>(d) = *reinterpret_cast<const T*>(src + i * dim_bytes);
      }
    });
  });
}

}  // namespace

void CpuBackend::index_select(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& out) {
  check_indices("index_select", index, x, dim);
  if (out.numel() == 0) return;
  // The 1-D index spread over out's shape: its stride along dim, 0 elsewhere.
  Strides is(out.ndim(), 0);
  is[dim] = index.stride(0);
  const Tensor iv(index.storage(), out.shape(), is, index.offset(), index.dtype());
  take(x, dim, iv, out);
}

void CpuBackend::gather(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& out) {
  check_indices("gather", index, x, dim);
  if (out.numel() == 0) return;
  take(x, dim, index, out);
}

void CpuBackend::tri(OpId op, const Tensor& x, int64_t diagonal, const Tensor& out) {
  const int64_t nd = x.ndim();
  const int64_t R = x.size(nd - 2), C = x.size(nd - 1);
  if (out.numel() == 0) return;
  const int64_t rows = out.numel() / C;
  const size_t item = itemsize(x.dtype());
  const int64_t sr = x.stride(nd - 2), sc = x.stride(nd - 1);
  // Large offsets keep or drop whole rows; clamping avoids overflow below.
  const int64_t diag = std::clamp<int64_t>(diagonal, -(R + C), R + C);
  const bool lower = op == OpId::tril;
  char* const obase = static_cast<char*>(out.raw_data());
  const char* const xbase = static_cast<const char*>(x.raw_data());
  visit_item_index(item, Dtype::int64, [&](auto tag, auto) {
    using T = decltype(tag);
    parallel_for(rows, std::max<int64_t>(1, kParallelGrain / C), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t i = r % R;
        // Element offset of this row in x: batch dims by division, then the row.
        int64_t rem = r / R, off = i * sr;
        for (int64_t d = nd - 3; d >= 0; --d) {
          off += (rem % x.size(d)) * x.stride(d);
          rem /= x.size(d);
        }
        const int64_t lo = lower ? 0 : std::clamp<int64_t>(i + diag, 0, C);
        const int64_t hi = lower ? std::clamp<int64_t>(i + diag + 1, 0, C) : C;
        T* o = reinterpret_cast<T*>(obase) + r * C;
        const T* s = reinterpret_cast<const T*>(xbase) + off;
        std::fill(o, o + lo, T{0});  // all-zero bytes are zero in every dtype
        if (sc == 1) std::memcpy(o + lo, s + lo, static_cast<size_t>(std::max<int64_t>(0, hi - lo)) * sizeof(T));
        else for (int64_t j = lo; j < hi; ++j) o[j] = s[j * sc];
        std::fill(o + std::max(lo, hi), o + C, T{0});
      }
    });
  });
}

}  // namespace concord::detail::cpu
