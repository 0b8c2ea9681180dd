// Reductions (sum, mean, prod, max/min, var/std, norm, all/any, logsumexp)
// and argmax/argmin on the CPU. The evaluation order is fixed by the engine
// in reduce_impl.h, so results do not depend on the thread count.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/reduce_impl.h"
#include "backend/cpu/stat_scale.h"

namespace concord::detail::cpu {

namespace {

using red::Geom;
using red::Walker;

template <class O, class V>
void store_as(void* o, int64_t i, V v) { static_cast<O*>(o)[i] = convert<O>(v); }

// The engine (red::run) is instantiated once per input dtype and reducer; the
// output dtype is a stored-through function pointer, one call per output.
// Visiting the output dtype around the engine instantiated it 11 times more
// (this file took 10 minutes to compile under ASan).
template <class T, class R, class Post>
void reduce_to(const Tensor& x, const Geom& g, const Tensor& out, const R& r, const typename R::P* params, Post post) {
  using V = std::invoke_result_t<Post, int64_t, typename R::A>;
  void (*store)(void*, int64_t, V) = nullptr;
  visit_dtype(out.dtype(), [&](auto otag) { store = &store_as<decltype(otag), V>; });
  void* o = out.raw_data();
  red::run<T>(x, g, r, params, [&](int64_t i, typename R::A a) { store(o, i, post(i, a)); });
}

// Per-output values of a first pass (the mean for var, the max for logsumexp).
template <class T, class R, class Post>
std::vector<typename R::A> first_pass(const Tensor& x, const Geom& g, const R& r, Post post,
                                      const typename R::P* params = nullptr) {
  std::vector<typename R::A> v(static_cast<size_t>(g.n_out));
  red::run<T>(x, g, r, params, [&](int64_t i, typename R::A a) { v[i] = post(a); });
  return v;
}

template <class T>
void reduce_float_stats(OpId op, const Tensor& x, const Geom& g, const Tensor& out, const ReduceArgs& args) {
  using A = red::acc_t<T>;
  const int64_t n = g.n_red;
  const A an = static_cast<A>(n);
  auto ident = [](int64_t, A a) { return a; };
  switch (op) {
    case OpId::mean:
      reduce_to<T>(x, g, out, red::SumR<T>{}, nullptr, [an](int64_t, A a) { return a / an; });
      return;
    case OpId::var:
    case OpId::std: {
      // Three passes in the accumulation dtype: max|x| (for the scale, see
      // StatScale), the mean of the scaled values, their squared deviations.
      using S = red::StatScale<A>;
      // max|x|: on contiguous rows of the float32 family from the vectorised
      // max and min (faster than one scalar pass; a NaN in either gives s = 1,
      // as max|x| = NaN would), else in one pass.
      std::vector<A> sc;
      if (red::is_vec_type_v<T> && (g.nr == 0 || (g.nr == 1 && g.rst[0] == 1))) {
        auto mx = first_pass<T>(x, g, red::ExtremeR<T, true>{}, [](auto m) { return static_cast<A>(m); });
        sc = first_pass<T>(x, g, red::ExtremeR<T, false>{}, [](auto m) { return static_cast<A>(m); });
        for (size_t i = 0; i < sc.size(); ++i)
          sc[i] = (mx[i] != mx[i] || sc[i] != sc[i]) ? A(1) : S::scale(std::max(std::fabs(mx[i]), std::fabs(sc[i])));
      } else {
        sc = first_pass<T>(x, g, red::AbsMaxR<T>{}, [](A m) { return S::scale(m); });
      }
      const bool plain = std::all_of(sc.begin(), sc.end(), [](A s) { return s == A(1); });
      // With s = 1 the scaled sum is the plain sum: the vectorised kernel gives the same bits.
      auto mean = plain ? first_pass<T>(x, g, red::SumR<T>{}, [an](A a) { return a / an; })
                        : first_pass<T>(x, g, red::ScaledSumR<T>{}, [an](A a) { return a / an; }, sc.data());
      const A dof = static_cast<A>(std::max<int64_t>(n - args.correction, 0));
      const bool take_sqrt = op == OpId::std;
      auto fin = [&sc, dof, take_sqrt](int64_t i, A a) {
        const A v = a / dof, r = S::inverse(sc[i]);
        return take_sqrt ? std::sqrt(v) * r : v * r * r;
      };
      if (plain) {  // (v * 1 - m)^2 is (v - m)^2: the plain reducer, the same bits
        reduce_to<T>(x, g, out, red::SquaredDevR<T>{}, mean.data(), fin);
      } else {
        std::vector<red::ScaledMean<A>> p(sc.size());
        for (size_t i = 0; i < p.size(); ++i) p[i] = {sc[i], mean[i]};
        reduce_to<T>(x, g, out, red::ScaledSquaredDevR<T>{}, p.data(), fin);
      }
      return;
    }
    case OpId::norm:
      if (std::isinf(args.p)) reduce_to<T>(x, g, out, red::AbsMaxR<T>{}, nullptr, ident);
      else if (args.p == 1.0) reduce_to<T>(x, g, out, red::AbsSumR<T>{}, nullptr, ident);
      else reduce_to<T>(x, g, out, red::SquareSumR<T>{}, nullptr, [](int64_t, A a) { return std::sqrt(a); });
      return;
    case OpId::logsumexp: {
      // Shift by the max (0 when it is infinite, so that all -inf gives -inf, not NaN).
      auto shift = first_pass<T>(x, g, red::ExtremeR<T, true>{}, [](compute_t<T> m) {
        return std::isinf(m) ? A(0) : static_cast<A>(m);
      });
      if constexpr (std::is_same_v<T, double>) {
        if (nan_rule_in_stores()) {  // the reproducible mode: exp and log shared with OpenCL
          reduce_to<T>(x, g, out, red::ExpSumSharedR<T>{}, shift.data(),
                       [&shift](int64_t i, A a) { return shift[i] + concord_log_f64(a); });
          return;
        }
      }
      reduce_to<T>(x, g, out, red::ExpSumR<T>{}, shift.data(),
                   [&shift](int64_t i, A a) { return shift[i] + vec::log_acc(a); });
      return;
    }
    default:
      throw NotImplementedError("[" + std::string(op_name(op)) + "] is not a float reduction of the cpu backend");
  }
}

template <class T>
void reduce_typed(OpId op, const Tensor& x, const Geom& g, const Tensor& out, const ReduceArgs& args) {
  auto ident = [](int64_t, auto a) { return a; };
  switch (op) {
    case OpId::all: reduce_to<T>(x, g, out, red::BoolR<T, true>{}, nullptr, ident); return;
    case OpId::any: reduce_to<T>(x, g, out, red::BoolR<T, false>{}, nullptr, ident); return;
    default: break;
  }
  if constexpr (!std::is_same_v<T, bool>) {
    switch (op) {
      case OpId::sum: reduce_to<T>(x, g, out, red::SumR<T>{}, nullptr, ident); return;
      case OpId::prod: reduce_to<T>(x, g, out, red::ProdR<T>{}, nullptr, ident); return;
      case OpId::max: case OpId::amax: reduce_to<T>(x, g, out, red::ExtremeR<T, true>{}, nullptr, ident); return;
      case OpId::min: case OpId::amin: reduce_to<T>(x, g, out, red::ExtremeR<T, false>{}, nullptr, ident); return;
      default: break;
    }
    if constexpr (std::is_floating_point_v<compute_t<T>>) {
      reduce_float_stats<T>(op, x, g, out, args);
      return;
    }
  }
  throw NotImplementedError("[" + std::string(op_name(op)) + "] has no cpu kernel for " + std::string(name(x.dtype())));
}

// ---- argmax / argmin: first occurrence wins; a NaN beats everything after it ----

template <class V, bool kMax>
inline bool better(V cand, V cur) {
  if (cur != cur) return false;
  if (cand != cand) return true;
  return kMax ? cand > cur : cand < cur;
}

// Scans x[i0, i1) (stride s) and updates (best, idx). Chunks of 256: the chunk's
// extreme comes from the vectorised max kernel, and only a chunk that beats
// the best so far is searched for its first occurrence.
template <class T, bool kMax>
void arg_scan(const T* x, int64_t s, int64_t i0, int64_t i1, compute_t<T>& best, int64_t& idx) {
  using V = compute_t<T>;
  constexpr int64_t C = 256;
  const red::ExtremeR<T, kMax> er;
  V buf[C];
  for (int64_t c0 = i0; c0 < i1; c0 += C) {
    const int64_t len = std::min(C, i1 - c0);
    const V* v = buf;
    if constexpr (std::is_same_v<T, V>) {
      if (s == 1) v = x + c0;
    }
    if (v == buf)
      for (int64_t k = 0; k < len; ++k) buf[k] = static_cast<V>(x[(c0 + k) * s]);
    const V cm = red::block_contig(er, v, len, V{});
    if (idx >= 0 && !better<V, kMax>(cm, best)) continue;
    const bool nan = cm != cm;
    for (int64_t k = 0; k < len; ++k) {
      if (nan ? v[k] != v[k] : v[k] == cm) {
        best = v[k];
        idx = c0 + k;
        break;
      }
    }
    if (nan) return;  // nothing after a NaN wins
  }
}

template <class T, bool kMax>
void arg_typed(const Tensor& x, const Geom& g, const Tensor& out) {
  using V = compute_t<T>;
  const T* base = static_cast<const T*>(x.raw_data());
  int64_t* o = detail::host_data<int64_t>(out);
  const int64_t n = g.n_red, nout = g.n_out;
  const int64_t rs = g.nr ? g.rst[0] : 0;
  if (nout == 0 || n == 0) return;
  if (nout == 1) {
    // One long scan: chunks in parallel, merged in order (an earlier chunk wins ties).
    Walker kw = g.kept();
    kw.seek(0);
    const T* xb = base + kw.off;
    const int64_t chunk = 1 << 16;
    const int64_t nc = (n + chunk - 1) / chunk;
    std::vector<V> bv(nc);
    std::vector<int64_t> bi(nc, -1);
    parallel_for(nc, 1, [&](int64_t cb, int64_t ce) {
      for (int64_t c = cb; c < ce; ++c) arg_scan<T, kMax>(xb, rs, c * chunk, std::min(n, (c + 1) * chunk), bv[c], bi[c]);
    });
    V best = bv[0];
    int64_t bidx = bi[0];
    for (int64_t c = 1; c < nc; ++c)
      if (better<V, kMax>(bv[c], best)) { best = bv[c]; bidx = bi[c]; }
    o[0] = bidx;
    return;
  }
  parallel_for(nout, std::max<int64_t>(1, kParallelGrain / n), [&](int64_t ob, int64_t oe) {
    Walker kw = g.kept();
    kw.seek(ob);
    for (int64_t oi = ob; oi < oe; ++oi, kw.next()) {
      V best{};
      int64_t bidx = -1;
      arg_scan<T, kMax>(base + kw.off, rs, 0, n, best, bidx);
      o[oi] = bidx;
    }
  });
}

}  // namespace

void CpuBackend::reduce(OpId op, const Tensor& x, const Dims& dims, const Tensor& out, const ReduceArgs& args) {
  const Geom g = red::make_geom(x, dims);
  visit_dtype(x.dtype(), [&](auto tag) { reduce_typed<decltype(tag)>(op, x, g, out, args); });
}

void CpuBackend::arg_reduce(OpId op, const Tensor& x, int64_t dim, const Tensor& out) {
  const Geom g = red::make_geom(x, Dims{dim});
  visit_dtype(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      throw NotImplementedError("[" + std::string(op_name(op)) + "] has no cpu kernel for bool; the front end converts to uint8");
    } else if (op == OpId::argmax) {
      arg_typed<T, true>(x, g, out);
    } else {
      arg_typed<T, false>(x, g, out);
    }
  });
}

}  // namespace concord::detail::cpu
