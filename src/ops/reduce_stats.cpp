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

// Validate dim -> plan(op, dtype) -> Backend::scan_op (same shape out) -> record.
Tensor run_scan(OpId op, const Tensor& x, int64_t dim, Dtype dtype) {
  const std::string opn(op_name(op));
  const Device dev = detail::common_device(opn.c_str(), {&x});
  int64_t d = wrap_dim(dim, x.ndim(), opn.c_str());
  detail::Plan p = detail::plan(op, dev, dtype, detail::describe(x));
  const Tensor xs = detail::as_1d(x);
  if (x.ndim() == 0) d = 0;
  Tensor xin = detail::prepare_input(p, xs);
  Tensor out = empty(xs.shape(), p.compute, p.exec);
  if (out.numel() > 0) p.backend->scan_op(op, xin, d, out);
  out = detail::finish_output(p, out);
  detail::record(p);
  return out.view(x.shape());
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
  return detail::run_reduce(OpId::var, x, dims, keepdim, x.dtype(), std::nullopt, a, EmptyRule::identity(kNaN));
}

Tensor std(const Tensor& x, Dims dims, int64_t correction, bool keepdim) {
  ReduceArgs a;
  a.correction = correction;
  return detail::run_reduce(OpId::std, x, dims, keepdim, x.dtype(), std::nullopt, a, EmptyRule::identity(kNaN));
}

Tensor norm(const Tensor& x, double p, Dims dims, bool keepdim) {
  const bool inf = std::isinf(p) && p > 0;
  if (!(p == 1.0 || p == 2.0 || inf))
    throw ValueError("[norm] p = " + std::to_string(p) + " is not supported for " + detail::describe_on(x) +
                     "; use p = 1, 2 or std::numeric_limits<double>::infinity()");
  ReduceArgs a;
  a.p = p;
  // The inf-norm is a max: it has no identity over zero elements.
  return detail::run_reduce(OpId::norm, x, dims, keepdim, detail::autocast_dtype(OpId::norm, x.device(), x.dtype()),
                            std::nullopt, a,
                            inf ? EmptyRule::error() : EmptyRule::identity(0.0));
}

Tensor logsumexp(const Tensor& x, Dims dims, bool keepdim) {
  // Integers and bool give float32, as in PyTorch.
  const Dtype t = detail::autocast_dtype(OpId::logsumexp, x.device(), is_floating(x.dtype()) ? x.dtype() : float32);
  return detail::run_reduce(OpId::logsumexp, x, dims, keepdim, t, std::nullopt, {},
                            EmptyRule::identity(-std::numeric_limits<double>::infinity()));
}

Tensor softmax(const Tensor& x, int64_t dim, std::optional<Dtype> dtype) {
  const Dtype t = softmax_dtype("softmax", x, dtype);
  return run_scan(OpId::softmax, x, dim, dtype ? t : detail::autocast_dtype(OpId::softmax, x.device(), t));
}

Tensor log_softmax(const Tensor& x, int64_t dim, std::optional<Dtype> dtype) {
  const Dtype t = softmax_dtype("log_softmax", x, dtype);
  return run_scan(OpId::log_softmax, x, dim, dtype ? t : detail::autocast_dtype(OpId::log_softmax, x.device(), t));
}

Tensor cumsum(const Tensor& x, int64_t dim, std::optional<Dtype> dtype) {
  const Dtype natural = is_floating(x.dtype()) ? x.dtype() : int64;
  const Dtype t = dtype ? *dtype : detail::autocast_dtype(OpId::cumsum, x.device(), natural);
  return run_scan(OpId::cumsum, x, dim, t);
}

}  // namespace concord
