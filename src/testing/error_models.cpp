// Error-model checks: is a result's distance from an exact host reference explained by rounding?
//
// Everything here runs on the host from to_vector<double>() copies, with plain
// loops in long double, so that the checks never depend on the ops they judge.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "concord/testing.h"

namespace concord::testing {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Format { int p, emin, emax; };  // precision (with the implicit bit), exponent range
Format format_of(Dtype t) {
  switch (t) {
    case Dtype::float16: return {11, -14, 15};
    case Dtype::bfloat16: return {8, -126, 127};
    case Dtype::float32: return {24, -126, 127};
    default: return {53, -1022, 1023};
  }
}

std::vector<int64_t> unravel(int64_t flat, std::span<const int64_t> shape) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    const int64_t s = shape[d];
    idx[d] = s > 0 ? flat % s : 0;
    flat = s > 0 ? flat / s : 0;
  }
  return idx;
}

// Keeps the element with the largest error/bound ratio.
class Worst {
 public:
  explicit Worst(ModelCheck& m) : m_(m) {}
  void add(int64_t i, double err, double bound) {
    double ratio;
    if (err == 0) ratio = 0;
    else if (std::isnan(err) || bound == 0) ratio = kInf;
    else ratio = err / bound;
    ++m_.total;
    if (ratio > 1) ++m_.failures;
    if (index_ < 0 || ratio > m_.worst_ratio) {
      index_ = i;
      m_.worst_ratio = ratio;
      m_.worst_error = err;
      m_.worst_bound = bound;
    }
  }
  void finish(std::span<const int64_t> shape) {
    m_.ok = m_.failures == 0;
    if (index_ >= 0) m_.worst_index = unravel(index_, shape);
  }

 private:
  ModelCheck& m_;
  int64_t index_ = -1;
};

std::vector<double> host(const Tensor& t) { return t.to_vector<double>(); }

void require_defined(const char* op, std::initializer_list<const Tensor*> ts) {
  for (const Tensor* t : ts)
    if (!t->defined())
      throw ValueError(std::string("[") + op + "] a tensor argument is undefined (default-constructed)");
}

// The roundoff a computation over these dtypes accumulates with (the least precise wins).
double accumulation_u(std::initializer_list<Dtype> ts, const ModelOptions& o) {
  if (o.accumulate) return unit_roundoff(*o.accumulate);
  double u = 0;
  for (Dtype t : ts) u = std::max(u, accumulation_roundoff(t));
  return u;
}

// Rounding the exact value v to the output dtype costs up to half its ULP.
double output_rounding(Dtype t, double v) { return is_floating(t) && std::isfinite(v) ? 0.5 * ulp(t, v) : 0.0; }

// Error of `a` against reference `r` (non-finite values: exact match or infinitely wrong).
double abs_error(Dtype t, double a, double r) {
  if (std::isnan(r) || std::isnan(a)) return std::isnan(r) && std::isnan(a) ? 0.0 : kInf;
  if (std::isinf(a) || std::isinf(r)) return a == round_to(t, r) ? 0.0 : kInf;
  return std::fabs(a - r);
}

Shape batch_of(const Shape& s, size_t keep) { return Shape(s.begin(), s.end() - static_cast<std::ptrdiff_t>(keep)); }

// Flat offset in a (right-aligned, broadcast) batch of shape `own` for the multi-index `idx` of the full batch.
int64_t batch_offset(const std::vector<int64_t>& idx, const Shape& own) {
  int64_t off = 0;
  const size_t skip = idx.size() - own.size();
  for (size_t d = 0; d < own.size(); ++d) off = off * own[d] + (own[d] == 1 ? 0 : idx[skip + d]);
  return off;
}

std::string fmt(const char* f, double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

}  // namespace

double unit_roundoff(Dtype t) { return is_floating(t) ? std::ldexp(1.0, -format_of(t).p) : 0.0; }

double accumulation_roundoff(Dtype t) {
  if (!is_floating(t)) return 0.0;
  return t == Dtype::float64 ? std::ldexp(1.0, -53) : std::ldexp(1.0, -24);
}

double round_to(Dtype t, double v) {
  if (!is_floating(t)) return std::nearbyint(v);
  if (t == Dtype::float64 || !std::isfinite(v) || v == 0) return v;
  const Format f = format_of(t);
  if (std::fabs(v) >= std::ldexp(1.0, f.emax + 1)) return std::copysign(kInf, v);
  const int e = std::max(std::ilogb(v), f.emin);
  const double q = std::ldexp(1.0, e - f.p + 1);  // spacing of t's values around v
  const double r = std::nearbyint(v / q) * q;      // v / q is exact; nearbyint rounds to even
  const double max = std::ldexp(2.0 - std::ldexp(1.0, 1 - f.p), f.emax);
  return std::fabs(r) > max ? std::copysign(kInf, v) : r;
}

// The spacing in v's own binade (not in the binade v rounds to): a faithfully
// but not correctly rounded value just below a power of two then shows as more
// than half an ULP away.
double ulp(Dtype t, double v) {
  if (!is_floating(t)) return 1.0;
  if (std::isnan(v)) return v;
  const Format f = format_of(t);
  const double a = std::min(std::fabs(v), std::ldexp(2.0 - std::ldexp(1.0, 1 - f.p), f.emax));
  const int e = a == 0 ? f.emin : std::max(std::ilogb(a), f.emin);
  return std::ldexp(1.0, e - f.p + 1);
}

std::string ModelCheck::str() const {
  if (total == 0) return "nothing to check (no elements)";
  const std::string unit = in_ulps ? " ulp" : "";
  auto num = [&](double v) { return in_ulps ? fmt("%.3g", v) + unit : fmt("%.1e", v); };
  std::string s = "worst " + what + " " + index_str(worst_index) + ": error " +
                  num(worst_error) + " = " +
                  (std::isinf(worst_ratio) ? std::string("inf") : fmt(worst_ratio < 10 ? "%#.2g" : "%.0f", worst_ratio)) +
                  " of the bound " + num(worst_bound) + (worst_ratio <= 1 ? ": rounding" : ": NOT rounding");
  if (failures > 0)
    s += " (" + std::to_string(failures) + " of " + std::to_string(total) + " outside the bound)";
  return s;
}

ModelCheck check_elementwise(const Tensor& actual, const Tensor& reference, double max_ulp) {
  require_defined("check_elementwise", {&actual, &reference});
  if (!(actual.shape() == reference.shape()))
    throw ShapeError("[check_elementwise] actual has shape " + shape_str(actual.shape()) + " (" +
                     std::string(name(actual.dtype())) + ") but the reference has shape " +
                     shape_str(reference.shape()) + "; compute the reference for every element of the result");
  const Dtype t = actual.dtype();
  const auto a = host(actual), r = host(reference);
  ModelCheck m;
  m.in_ulps = true;
  Worst w(m);
  for (size_t i = 0; i < a.size(); ++i) {
    const double e = abs_error(t, a[i], r[i]);
    w.add(static_cast<int64_t>(i), std::isfinite(e) && e > 0 ? e / ulp(t, r[i]) : e, max_ulp);
  }
  w.finish(actual.shape());
  return m;
}

ModelCheck check_reduction(const Tensor& actual, const Tensor& x, Shape dims, bool keepdim, double c,
                           const ModelOptions& options) {
  require_defined("check_reduction", {&actual, &x});
  const Shape& xs = x.shape();
  const int64_t nd = x.ndim();
  std::vector<bool> reduced(static_cast<size_t>(nd), dims.empty());
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, nd, "check_reduction");
    if (nd == 0) continue;  // a 0-dim x accepts dim 0/-1 (as sum()) and has nothing to mark
    if (reduced[static_cast<size_t>(w)])
      throw ShapeError("[check_reduction] dim " + std::to_string(d) + " appears twice in the dims for x of shape " +
                       shape_str(xs) + "; list each dim once");
    reduced[static_cast<size_t>(w)] = true;
  }
  Shape out_shape, out_strides_full(static_cast<size_t>(nd), 0);  // per x dim: stride in the output (0 if reduced)
  int64_t n_reduced = 1;
  for (int64_t d = 0; d < nd; ++d) {
    if (reduced[static_cast<size_t>(d)]) {
      n_reduced *= xs[static_cast<size_t>(d)];
      if (keepdim) out_shape.push_back(1);
    } else {
      out_shape.push_back(xs[static_cast<size_t>(d)]);
    }
  }
  int64_t stride = 1;
  for (int64_t d = nd; d-- > 0;) {
    if (reduced[static_cast<size_t>(d)]) continue;
    out_strides_full[static_cast<size_t>(d)] = stride;
    stride *= xs[static_cast<size_t>(d)];
  }
  if (!(actual.shape() == out_shape))
    throw ShapeError("[check_reduction] actual has shape " + shape_str(actual.shape()) + " but summing x of shape " +
                     shape_str(xs) + " over dims " + shape_str(dims) + (keepdim ? " with" : " without") +
                     " keepdim gives " + shape_str(out_shape) + "; pass the same dims and keepdim as to sum()");

  const size_t nout = static_cast<size_t>(numel(out_shape));
  // Neumaier-compensated sums in long double over the finite values; infinities
  // and NaNs are counted apart so that they give IEEE's answer (inf - inf = NaN).
  std::vector<long double> sum(nout, 0.0L), comp(nout, 0.0L);
  std::vector<double> abs_sum(nout, 0.0);
  std::vector<uint8_t> pos_inf(nout, 0), neg_inf(nout, 0), nan(nout, 0);
  const auto xv = host(x);
  std::vector<int64_t> idx(static_cast<size_t>(nd), 0);
  int64_t o = 0;  // output offset of idx
  for (size_t i = 0; i < xv.size(); ++i) {
    const double v = xv[i];
    const size_t j = static_cast<size_t>(o);
    if (std::isnan(v)) nan[j] = 1;
    else if (std::isinf(v)) (v > 0 ? pos_inf : neg_inf)[j] = 1;
    else {
      const long double s = sum[j], t = s + v;
      comp[j] += std::fabs(s) >= std::fabs(static_cast<long double>(v)) ? (s - t) + v : (v - t) + s;
      sum[j] = t;
      abs_sum[j] += std::fabs(v);
    }
    for (int64_t d = nd; d-- > 0;) {  // advance the multi-index
      const size_t ud = static_cast<size_t>(d);
      o += out_strides_full[ud];
      if (++idx[ud] < xs[ud]) break;
      o -= out_strides_full[ud] * xs[ud];
      idx[ud] = 0;
    }
  }
  const double u = accumulation_u({x.dtype(), actual.dtype()}, options);
  const Dtype t = actual.dtype();
  const auto a = host(actual);
  ModelCheck m;
  Worst w(m);
  for (size_t j = 0; j < nout; ++j) {
    double ref;
    if (nan[j] || (pos_inf[j] && neg_inf[j])) ref = std::numeric_limits<double>::quiet_NaN();
    else if (pos_inf[j]) ref = kInf;
    else if (neg_inf[j]) ref = -kInf;
    else ref = static_cast<double>(sum[j] + comp[j]);
    const double bound = c * static_cast<double>(n_reduced) * u * abs_sum[j] + output_rounding(t, ref);
    w.add(static_cast<int64_t>(j), abs_error(t, a[j], ref), bound);
  }
  w.finish(out_shape);
  return m;
}

ModelCheck check_matmul(const Tensor& actual, const Tensor& a, const Tensor& b, double c,
                        const ModelOptions& options) {
  require_defined("check_matmul", {&actual, &a, &b});
  if (a.ndim() == 0 || b.ndim() == 0)
    throw ShapeError("[check_matmul] operands must have at least one dim, got " + shape_str(a.shape()) + " @ " +
                     shape_str(b.shape()));
  // 1-D operands as matmul: a [k] is a row [1, k], b [k] a column [k, 1]; those dims leave the result.
  Shape as = a.shape(), bs = b.shape();
  if (a.ndim() == 1) as.insert(0, 1);
  if (b.ndim() == 1) bs.push_back(1);
  const int64_t m = as[as.size() - 2], k = as.back(), k2 = bs[bs.size() - 2], n = bs.back();
  if (k != k2)
    throw ShapeError("[check_matmul] inner dims differ: " + shape_str(a.shape()) + " @ " + shape_str(b.shape()) +
                     "; a's last dim must equal b's second-to-last");
  const Shape ab = batch_of(as, 2), bb = batch_of(bs, 2);
  const Shape batch = broadcast_shapes(ab, bb, "check_matmul");
  Shape out_shape = batch;
  if (a.ndim() > 1) out_shape.push_back(m);
  if (b.ndim() > 1) out_shape.push_back(n);
  if (!(actual.shape() == out_shape))
    throw ShapeError("[check_matmul] actual has shape " + shape_str(actual.shape()) + " but " +
                     shape_str(a.shape()) + " @ " + shape_str(b.shape()) + " gives " + shape_str(out_shape) +
                     "; pass the operands the result was computed from");

  const auto av = host(a), bv = host(b), cv = host(actual);
  const double u = accumulation_u({a.dtype(), b.dtype(), actual.dtype()}, options);
  const Dtype t = actual.dtype();
  const int64_t nbatch = numel(batch);
  ModelCheck mc;
  Worst w(mc);
  for (int64_t bi = 0; bi < nbatch; ++bi) {
    const auto bidx = unravel(bi, batch);
    const double* A = av.data() + batch_offset(bidx, ab) * m * k;
    const double* B = bv.data() + batch_offset(bidx, bb) * k * n;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        long double s = 0;
        double mag = 0;
        for (int64_t p = 0; p < k; ++p) {
          s += static_cast<long double>(A[i * k + p]) * B[p * n + j];
          mag += std::fabs(A[i * k + p]) * std::fabs(B[p * n + j]);
        }
        const double ref = static_cast<double>(s);
        const int64_t flat = (bi * m + i) * n + j;
        const double bound = c * static_cast<double>(k) * u * mag + output_rounding(t, ref);
        w.add(flat, abs_error(t, cv[static_cast<size_t>(flat)], ref), bound);
      }
    }
  }
  w.finish(out_shape);
  return mc;
}

ModelCheck check_solve(const Tensor& x, const Tensor& a, const Tensor& b, double c, const ModelOptions& options) {
  require_defined("check_solve", {&x, &a, &b});
  const Shape& as = a.shape();
  if (a.ndim() < 2 || as[as.size() - 1] != as[as.size() - 2])
    throw ShapeError("[check_solve] a must be a square matrix or a batch of them ([..., n, n]), got " +
                     shape_str(as));
  if (!is_floating(x.dtype()))
    throw DtypeError("[check_solve] the solution x has dtype " + std::string(name(x.dtype())) +
                     "; solutions of linear systems are floating point");
  const int64_t n = as.back();
  const Shape ab = batch_of(as, 2);
  // As linalg.solve: b is a vector (or a batch of vectors) when it is 1-D or has a's shape without the last dim.
  const bool vec = b.ndim() == 1 || (b.ndim() == a.ndim() - 1 && b.shape() == batch_of(as, 1));
  Shape bs = b.shape();
  if (vec) bs.push_back(1);
  if (bs.size() < 2 || bs[bs.size() - 2] != n)
    throw ShapeError("[check_solve] b of shape " + shape_str(b.shape()) + " does not fit a of shape " +
                     shape_str(as) + "; b must be [..., n] or [..., n, k] with n = " + std::to_string(n));
  const int64_t nrhs = bs.back();
  const Shape bb = batch_of(bs, 2);
  const Shape batch = broadcast_shapes(ab, bb, "check_solve");
  Shape out_shape = batch;
  out_shape.push_back(n);
  if (!vec) out_shape.push_back(nrhs);
  if (!(x.shape() == out_shape))
    throw ShapeError("[check_solve] x has shape " + shape_str(x.shape()) + " but solving a " + shape_str(as) +
                     " with b " + shape_str(b.shape()) + " gives " + shape_str(out_shape));

  const auto av = host(a), bv = host(b), xv = host(x);
  const double u = accumulation_u({a.dtype(), b.dtype(), x.dtype()}, options);
  const double bound = c * static_cast<double>(n) * u + unit_roundoff(x.dtype());
  Shape systems = batch;  // one system per batch entry and right-hand side
  if (!vec) systems.push_back(nrhs);
  const int64_t nbatch = numel(batch);
  ModelCheck m;
  m.what = "system";
  Worst w(m);
  for (int64_t bi = 0; bi < nbatch; ++bi) {
    const auto bidx = unravel(bi, batch);
    const double* A = av.data() + batch_offset(bidx, ab) * n * n;
    const double* B = bv.data() + batch_offset(bidx, bb) * n * nrhs;
    const double* X = xv.data() + bi * n * nrhs;
    double norm_a = 0;
    for (int64_t i = 0; i < n; ++i) {
      double row = 0;
      for (int64_t j = 0; j < n; ++j) row += std::fabs(A[i * n + j]);
      norm_a = std::max(norm_a, row);
    }
    for (int64_t r = 0; r < nrhs; ++r) {
      double res = 0, norm_x = 0, norm_b = 0;
      bool bad = false;
      for (int64_t i = 0; i < n; ++i) {
        long double s = -static_cast<long double>(B[i * nrhs + r]);
        for (int64_t j = 0; j < n; ++j) s += static_cast<long double>(A[i * n + j]) * X[j * nrhs + r];
        const double ri = std::fabs(static_cast<double>(s));
        bad |= !std::isfinite(ri) || !std::isfinite(X[i * nrhs + r]);
        res = std::max(res, ri);
        norm_x = std::max(norm_x, std::fabs(X[i * nrhs + r]));
        norm_b = std::max(norm_b, std::fabs(B[i * nrhs + r]));
      }
      const double denom = norm_a * norm_x + norm_b;
      double eta = res == 0 ? 0.0 : res / denom;  // denom == 0 with a residual: infinitely wrong
      if (bad) eta = kInf;
      w.add(bi * nrhs + r, eta, bound);
    }
  }
  w.finish(systems);
  return m;
}

}  // namespace concord::testing
