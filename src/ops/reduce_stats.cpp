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

Tensor std(const Tensor& x, Dims dims, int64_t correction, bool keepdim) {
  ReduceArgs a;
  a.correction = correction;
  detail::Dispatch d(OpId::std, {&x});
  return detail::run_reduce(d, dims, keepdim, x.dtype(), std::nullopt, a, EmptyRule::identity(kNaN));
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
