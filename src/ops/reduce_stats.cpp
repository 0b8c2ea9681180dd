// Statistical reductions and scans: var, std, norm, logsumexp, softmax,
// log_softmax, cumsum. Floating results only, except cumsum (int64 for
// integers, as sum).
#include <cmath>
#include <limits>

#include "concord/amp.h"
#include "ops/reduce_common.h"

namespace concord {

using detail::EmptyRule;
using detail::ReduceArgs;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Ops along one dim with an output of the input's shape (Backend::scan_op).
Tensor run_scan(detail::Dispatch& disp, int64_t dim, Dtype dtype) {
  const Tensor& x = disp.tensor(0);
  const char* opn = op_name(disp.op()).data();
  const Device dev = detail::common_device(opn, {&x});
  int64_t d = wrap_dim(dim, x.ndim(), opn);
  const Tensor xs = detail::as_1d(x);
  if (x.ndim() == 0) d = 0;
  return disp.run(dev, dtype, [&] { return detail::describe(x); }, {detail::Arg(xs)},
                  [&](const detail::Plan& p, const detail::Inputs& in) {
                    Tensor out = empty(xs.shape(), p.compute, p.exec);
                    if (out.numel() > 0) p.backend->scan_op(disp.op(), in[0], d, out);
                    return out.view(x.shape());
                  });
}

// softmax and log_softmax are defined on floating dtypes; say how to get one.
Dtype softmax_dtype(const char* op, const Tensor& x, std::optional<Dtype> dtype) {
  const Dtype t = dtype ? *dtype : x.dtype();
  if (!is_floating(t))
    throw DtypeError(std::string("[") + op + "] needs a floating dtype, got " + detail::describe_on(x) +
                     (dtype ? " with dtype=" + std::string(name(*dtype)) : std::string()) +
                     "; pass dtype=concord::float32 or convert with x.to(concord::float32)");
  return t;
}

}  // namespace

Tensor var(const Tensor& x, Dims dims, int64_t correction, bool keepdim) {
  ReduceArgs a;
  a.correction = correction;
  detail::Dispatch d(OpId::var, {&x});
  return detail::run_reduce(d, dims, keepdim, x.dtype(), std::nullopt, a, EmptyRule::identity(kNaN));
}

namespace {
Tensor std_once(const Tensor& x, const Dims& dims, int64_t correction, bool keepdim) {
  ReduceArgs a;
  a.correction = correction;
  detail::Dispatch d(OpId::std, {&x});
  return detail::run_reduce(d, dims, keepdim, x.dtype(), std::nullopt, a, EmptyRule::identity(kNaN));
}

// std of finite values whose squared deviations pass the accumulator's range
// (std of float32 [1e30, 1e30, -1e30]: the deviations squared overflow, the
// std is 1.15e30) is computed again from x times 2^-e, e the exponent of the
// output's max |x|, and multiplied back by 2^e: powers of two are exact, so
// every device gives the same bits, and outputs that did not overflow keep theirs.
Tensor std_rescaled(const Tensor& x, const Tensor& r, const Dims& dims, int64_t correction, bool keepdim) {
  const Tensor m = amax(abs(x), dims, true);
  const std::vector<double> mv = m.to_vector<double>();
  std::vector<double> down(mv.size(), 1.0), up1(mv.size(), 1.0), up2(mv.size(), 1.0);
  for (size_t i = 0; i < mv.size(); ++i) {
    if (!(std::isfinite(mv[i]) && mv[i] > 0)) continue;
    int e = 0;
    std::frexp(mv[i], &e);
    down[i] = std::ldexp(1.0, -e);
    up1[i] = std::ldexp(1.0, e / 2);  // 2^e in two factors: 2^128 is past float32
    up2[i] = std::ldexp(1.0, e - e / 2);
  }
  // Built on the host in float64 and converted there: nothing float64 reaches the device.
  auto factor = [&](const std::vector<double>& v, Dtype t) { return from_host(v.data(), m.shape(), float64, kCPU).to(x.device(), t); };
  const Tensor scaled = std_once(mul(x, factor(down, x.dtype())), dims, correction, true);
  const Tensor fixed = mul(mul(scaled, factor(up1, scaled.dtype())), factor(up2, scaled.dtype()));
  const Tensor redo = logical_and(isinf(r), isfinite(keepdim ? m : m.view(r.shape())));
  return where(redo, keepdim ? fixed : fixed.view(r.shape()), r);
}
}  // namespace

Tensor std(const Tensor& x, Dims dims, int64_t correction, bool keepdim) {
  Tensor r = std_once(x, dims, correction, keepdim);
  if (!is_floating(r.dtype()) || r.numel() == 0 || !any(isinf(r)).item<bool>()) return r;
  return std_rescaled(x, r, dims, correction, keepdim);
}

Tensor norm(const Tensor& x, double p, Dims dims, bool keepdim) {
  const bool inf = std::isinf(p) && p > 0;
  if (!(p == 1.0 || p == 2.0 || inf))
    throw ValueError("[norm] p = " + std::to_string(p) + " is not supported for " + detail::describe_on(x) +
                     "; use p = 1, 2 or std::numeric_limits<double>::infinity()");
  ReduceArgs a;
  a.p = p;
  detail::Dispatch d(OpId::norm, {&x});
  // The inf-norm is a max: it has no identity over zero elements.
  return detail::run_reduce(d, dims, keepdim, d.tensor(0).dtype(), std::nullopt, a,
                            inf ? EmptyRule::error() : EmptyRule::identity(0.0));
}

Tensor logsumexp(const Tensor& x, Dims dims, bool keepdim) {
  detail::Dispatch d(OpId::logsumexp, {&x});
  // Integers and bool give float32, as in PyTorch (the op table's result rule).
  const Dtype t = op_def(OpId::logsumexp).result_dtype(d.tensor(0).dtype());
  return detail::run_reduce(d, dims, keepdim, t, std::nullopt, {},
                            EmptyRule::identity(-std::numeric_limits<double>::infinity()));
}

Tensor softmax(const Tensor& x, int64_t dim, std::optional<Dtype> dtype) {
  detail::Dispatch d(OpId::softmax, {&x}, dtype.has_value());
  return run_scan(d, dim, softmax_dtype("softmax", d.tensor(0), dtype));
}

Tensor log_softmax(const Tensor& x, int64_t dim, std::optional<Dtype> dtype) {
  detail::Dispatch d(OpId::log_softmax, {&x}, dtype.has_value());
  return run_scan(d, dim, softmax_dtype("log_softmax", d.tensor(0), dtype));
}

Tensor cumsum(const Tensor& x, int64_t dim, std::optional<Dtype> dtype) {
  detail::Dispatch d(OpId::cumsum, {&x}, dtype.has_value());
  return run_scan(d, dim, dtype ? *dtype : op_def(OpId::cumsum).result_dtype(d.tensor(0).dtype()));
}

}  // namespace concord
