// softmax, log_softmax and cumsum along one dim on the CPU.
//
// softmax is three passes per row: the max, the sum of exp(x - max) in the
// engine's fixed blocked order (reduce_impl.h), then an elementwise pass that
// multiplies by 1/sum (a division per element is a sizeable share of a row).
// float32 and the halves use exp_f32 (vec_math.h) everywhere: rows contiguous
// in memory run on the vectorised kernels, other layouts on scalar loops with
// the same bits. float64 in the reproducible mode uses the exp and log shared
// with OpenCL (backend/common/canon_f64*.h) instead of libm's.
// cumsum is sequential along the dim in the accumulation dtype (float32 for
// halves, int64 wrapping for integers), rounded to the output at every step.
#include <cmath>

#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/reduce_impl.h"
#include "backend/cpu/vec_math.h"

namespace concord::detail::cpu {

namespace {

using red::Geom;
using red::Walker;

// A tensor over host memory owned by the caller (for Iter), expanded to shape.
template <class A>
Tensor wrap_rows(std::vector<A>& v, const Shape& keep_shape, const Shape& shape, const Device& dev) {
  auto st = std::make_shared<Storage>();
  st->ptr = v.data();
  st->nbytes = v.size() * sizeof(A);
  st->device = dev;
  Tensor t(st, keep_shape, contiguous_strides(keep_shape), 0, dtype_v<A>);
  return t.expand(shape);
}

// softmax / log_softmax over rows contiguous in x and out, for float32 and the
// halves, with the vectorised kernels: the max and the sum of exp(x - max) in
// the engine's block order, then one output pass. The operations and their
// order are those of the general path below (exp_f32 there), so the bits are
// the same for every layout and thread count.
template <class T, bool kLog>
void softmax_rows_vec(const Geom& g, const Geom& go, const T* xb, T* ob) {
  constexpr vec::Ty ty = red::vec_ty_v<T>;
  constexpr bool kF32 = std::is_same_v<T, float>;
  const vec::Kernels& vk = vec::kernels();
  // The reproducible mode's NaN rule in the output pass's stores (core/nan_rule.h).
  const auto row_out = nan_rule_in_stores() ? vk.row_out_canon : vk.row_out;
  const int64_t n = g.n_red, nb = (n + red::kBlock - 1) / red::kBlock;
  const int64_t rows = g.n_out;
  // exp(x - max) is kept for the output pass: in out itself for float32, in a
  // float buffer for the halves when the row is short enough (long rows recompute it).
  constexpr int64_t kKeep = int64_t{1} << 16;
  const bool keep = !kLog && (kF32 || n <= kKeep);
  const red::ExtremeR<T, true> mr;
  const red::SumR<T> sr;
  // The blocks of rows [rb, re): one thread per row range (many rows), or all
  // threads on the blocks of each row (few long rows).
  auto row = [&](const T* x, T* o, std::vector<float>& part, std::vector<float>& ebuf, bool split) {
    // any: max_any in place of op (the engine's max).
    auto blocks = [&](vec::RedOp op, float shift, float* e, bool any = false) {
      auto run = [&](int64_t bb, int64_t be) {
        const int64_t i0 = bb * red::kBlock, len = std::min(be * red::kBlock, n) - i0;
        if (any) vk.max_any(ty, x + i0, len, part.data() + bb);
        else vk.reduce_blocks(op, ty, x + i0, len, shift, part.data() + bb, e ? e + i0 : nullptr);
      };
      if (split) parallel_for(nb, 1, run);
      else run(0, nb);
    };
    // softmax takes the max in any order first (Kernels::max_any): without NaNs it is
    // the engine's max, up to the sign of a zero max, which no exp(x - max)
    // sees. A NaN anywhere makes the sum NaN (so does an inf row's inf - inf);
    // then the row is redone with the engine's max, whose NaN the output keeps.
    // log_softmax's x - max sees the sign: it takes the engine's max at once.
    float* e = !keep ? nullptr : kF32 ? reinterpret_cast<float*>(o) : ebuf.data();
    float m = 0.0f, s = 0.0f;
    for (bool any : {!kLog && vk.max_any, false}) {
      blocks(vec::RedOp::max, 0.0f, nullptr, any);
      m = red::combine_blocks(mr, part.data(), nb);
      blocks(vec::RedOp::exp_sum_max, m, e);
      s = red::combine_blocks(sr, part.data(), nb);
      if (!any || s == s) break;
    }
    auto out = [&](int64_t ib, int64_t ie) {
      if (kLog) row_out(vec::RowOut::log, ty, o + ib, x + ib, ie - ib, m, vec::log_f32(s));
      else if (keep) row_out(vec::RowOut::scale, ty, o + ib, e + ib, ie - ib, 1.0f / s, 0.0f);
      else row_out(vec::RowOut::exp_scale_max, ty, o + ib, x + ib, ie - ib, m, 1.0f / s);
    };
    if (split) parallel_for(n, kParallelGrain, out);
    else out(0, n);
  };
  auto rows_range = [&](int64_t rb, int64_t re, bool split) {
    std::vector<float> part(static_cast<size_t>(nb));
    std::vector<float> ebuf(keep && !kF32 ? static_cast<size_t>(n) : 0);
    Walker kx = g.kept(), ko = go.kept();
    kx.seek(rb);
    ko.seek(rb);
    for (int64_t r = rb; r < re; ++r, kx.next(), ko.next()) row(xb + kx.off, ob + ko.off, part, ebuf, split);
  };
  if (rows >= omp_get_max_threads() || n < kParallelGrain)
    parallel_for(rows, std::max<int64_t>(1, kParallelGrain / n), [&](int64_t rb, int64_t re) { rows_range(rb, re, false); });
  else
    rows_range(0, rows, true);
}

template <class T, bool kLog>
void softmax_typed(const Tensor& x, int64_t dim, const Tensor& out) {
  using A = red::acc_t<T>;
  using V = compute_t<T>;
  const Geom g = red::make_geom(x, Dims{dim});
  if constexpr (red::is_vec_type_v<T>) {
    const Geom go = red::make_geom(out, Dims{dim});
    const bool rows_contig = (g.nr == 0 || g.rst[0] == 1) && (go.nr == 0 || go.rst[0] == 1);
    if (rows_contig && g.n_out > 0 && g.n_red > 0) {
      softmax_rows_vec<T, kLog>(g, go, static_cast<const T*>(x.raw_data()), detail::host_data<T>(out));
      return nan_rule_fused(out);  // every element went through row_out
    }
  }
  std::vector<A> m(static_cast<size_t>(g.n_out)), s(static_cast<size_t>(g.n_out));
  red::run<T>(x, g, red::ExtremeR<T, true>{}, nullptr, [&](int64_t o, V a) { m[o] = static_cast<A>(a); });
  // float64 in the reproducible mode: exp and log shared with OpenCL (backend/common/canon_f64*.h).
  const bool shared = std::is_same_v<T, double> && nan_rule_in_stores();
  if constexpr (std::is_same_v<T, double>) {
    if (shared)
      red::run<T>(x, g, red::ExpSumSharedR<T>{}, m.data(),
                  [&](int64_t o, A a) { s[o] = kLog ? concord_log_f64(a) : A(1) / a; });
  }
  if (!shared)
    red::run<T>(x, g, red::ExpSumR<T>{}, m.data(), [&](int64_t o, A a) { s[o] = kLog ? vec::log_acc(a) : A(1) / a; });
  Shape keep = x.shape();
  keep[dim] = 1;
  const Tensor mt = wrap_rows(m, keep, x.shape(), x.device());
  const Tensor stt = wrap_rows(s, keep, x.shape(), x.device());
  Iter it({&out, &x, &mt, &stt});
  for_each(it, [shared](char* const* p, const int64_t* st, int64_t n) {
    char *o = p[0], *xi = p[1], *mi = p[2], *si = p[3];
    for (int64_t i = 0; i < n; ++i, o += st[0], xi += st[1], mi += st[2], si += st[3]) {
      const A d = static_cast<A>(static_cast<V>(*reinterpret_cast<const T*>(xi))) - *reinterpret_cast<const A*>(mi);
      A r;
      if constexpr (kLog) r = d - *reinterpret_cast<const A*>(si);
      else if constexpr (std::is_same_v<A, float>) r = vec::exp_f32(d) * *reinterpret_cast<const A*>(si);
      else r = (shared ? concord_exp_f64(d) : std::exp(d)) * *reinterpret_cast<const A*>(si);
      *reinterpret_cast<T*>(o) = convert<T>(r);
    }
  });
}

template <class T>
void cumsum_typed(const Tensor& x, int64_t dim, const Tensor& out) {
  using A = red::acc_t<T>;
  using V = compute_t<T>;
  const Geom gx = red::make_geom(x, Dims{dim});
  const Geom go = red::make_geom(out, Dims{dim});
  const int64_t n = gx.n_red, nout = gx.n_out;
  if (n == 0 || nout == 0) return;
  const int64_t xs = gx.nr ? gx.rst[0] : 0, os = go.nr ? go.rst[0] : 0;
  const T* xb = static_cast<const T*>(x.raw_data());
  T* ob = detail::host_data<T>(out);
  const A zero = std::is_floating_point_v<A> ? A(-0.0) : A(0);  // -0.0: a lone -0.0 keeps its sign
  // Column layout: the innermost kept dim is contiguous in both, so rows advance together.
  const bool column = gx.nk >= 1 && go.nk >= 1 && gx.kst[gx.nk - 1] == 1 && go.kst[go.nk - 1] == 1 &&
                      gx.ks[gx.nk - 1] == go.ks[go.nk - 1] && gx.ks[gx.nk - 1] >= 4 && xs != 1;
  if (column) {
    constexpr int64_t C = red::kCols;
    const int64_t W = gx.ks[gx.nk - 1];
    const int64_t chunks = (W + C - 1) / C;
    parallel_for((nout / W) * chunks, std::max<int64_t>(1, kParallelGrain / (n * C)), [&](int64_t cb, int64_t ce) {
      Walker kx = gx.kept(), ko = go.kept();
      A acc[C];
      for (int64_t c = cb; c < ce; ++c) {
        const int64_t o0 = (c / chunks) * W + (c % chunks) * C;
        const int cw = static_cast<int>(std::min<int64_t>(C, W - (c % chunks) * C));
        kx.seek(o0);
        ko.seek(o0);
        for (int j = 0; j < cw; ++j) acc[j] = zero;
        for (int64_t i = 0; i < n; ++i) {
          const T* xr = xb + kx.off + i * xs;
          T* orow = ob + ko.off + i * os;
#pragma omp simd
          for (int j = 0; j < cw; ++j) {
            acc[j] += static_cast<A>(static_cast<V>(xr[j]));
            orow[j] = convert<T>(acc[j]);
          }
        }
      }
    });
    return;
  }
  parallel_for(nout, std::max<int64_t>(1, kParallelGrain / n), [&](int64_t rb, int64_t re) {
    Walker kx = gx.kept(), ko = go.kept();
    kx.seek(rb);
    ko.seek(rb);
    for (int64_t r = rb; r < re; ++r, kx.next(), ko.next()) {
      const T* xr = xb + kx.off;
      T* orow = ob + ko.off;
      A acc = zero;
      for (int64_t i = 0; i < n; ++i) {
        acc += static_cast<A>(static_cast<V>(xr[i * xs]));
        orow[i * os] = convert<T>(acc);
      }
    }
  });
}

}  // namespace

void CpuBackend::scan_op(OpId op, const Tensor& x, int64_t dim, const Tensor& out) {
  if (x.numel() == 0) return;
  visit_dtype(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      throw NotImplementedError("[" + std::string(op_name(op)) + "] has no cpu kernel for bool");
    } else {
      if (op == OpId::cumsum) {
        cumsum_typed<T>(x, dim, out);
        return;
      }
      if constexpr (std::is_floating_point_v<compute_t<T>>) {
        if (op == OpId::softmax) { softmax_typed<T, false>(x, dim, out); return; }
        if (op == OpId::log_softmax) { softmax_typed<T, true>(x, dim, out); return; }
      }
      throw NotImplementedError("[" + std::string(op_name(op)) + "] has no cpu kernel for " + std::string(name(x.dtype())));
    }
  });
}

}  // namespace concord::detail::cpu
