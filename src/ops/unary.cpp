// Front ends of the unary elementwise ops, clamp and cast.
#include "concord/amp.h"
#include "concord/creation.h"
#include "concord/ops.h"
#include "ops/elementwise_common.h"

namespace concord {

using detail::Plan;

namespace {

enum class Kind {
  same,       // result in x's dtype (neg, abs, floor, ...)
  floating,   // math that needs a floating type: integer and bool inputs become float32
  predicate,  // bool result, computed in x's dtype (isnan, logical_not)
};

Tensor unary_op(OpId op, Kind kind, const Tensor& x) {
  const Device device = x.device();
  Dtype t = x.dtype();
  if (kind == Kind::floating && !is_floating(t)) t = float32;
  t = detail::autocast_dtype(op, device, t);
  Plan p = detail::plan_lazy(op, device, t, [&] { return detail::describe(x); });
  Tensor converted;
  const bool as_is = x.dtype() == p.compute && device == p.exec;  // no copy of x for the common case
  if (!as_is) converted = detail::prepare_input(p, x);
  const Tensor& in = as_is ? x : converted;
  Tensor out = empty(x.shape(), kind == Kind::predicate ? bool_ : p.compute, p.exec);
  if (out.numel() > 0) p.backend->unary(op, in, out);
  if (p.exec != p.device) out = detail::finish_output(p, out);
  detail::record(p);
  return out;
}

}  // namespace

Tensor neg(const Tensor& x) { return unary_op(OpId::neg, Kind::same, x); }
Tensor abs(const Tensor& x) { return unary_op(OpId::abs, Kind::same, x); }
Tensor sign(const Tensor& x) { return unary_op(OpId::sign, Kind::same, x); }
Tensor relu(const Tensor& x) { return unary_op(OpId::relu, Kind::same, x); }
Tensor floor(const Tensor& x) { return unary_op(OpId::floor, Kind::same, x); }
Tensor ceil(const Tensor& x) { return unary_op(OpId::ceil, Kind::same, x); }
Tensor round(const Tensor& x) { return unary_op(OpId::round, Kind::same, x); }
Tensor trunc(const Tensor& x) { return unary_op(OpId::trunc, Kind::same, x); }

Tensor exp(const Tensor& x) { return unary_op(OpId::exp, Kind::floating, x); }
Tensor expm1(const Tensor& x) { return unary_op(OpId::expm1, Kind::floating, x); }
Tensor log(const Tensor& x) { return unary_op(OpId::log, Kind::floating, x); }
Tensor log1p(const Tensor& x) { return unary_op(OpId::log1p, Kind::floating, x); }
Tensor log2(const Tensor& x) { return unary_op(OpId::log2, Kind::floating, x); }
Tensor sqrt(const Tensor& x) { return unary_op(OpId::sqrt, Kind::floating, x); }
Tensor rsqrt(const Tensor& x) { return unary_op(OpId::rsqrt, Kind::floating, x); }
Tensor sin(const Tensor& x) { return unary_op(OpId::sin, Kind::floating, x); }
Tensor cos(const Tensor& x) { return unary_op(OpId::cos, Kind::floating, x); }
Tensor tan(const Tensor& x) { return unary_op(OpId::tan, Kind::floating, x); }
Tensor tanh(const Tensor& x) { return unary_op(OpId::tanh, Kind::floating, x); }
Tensor sigmoid(const Tensor& x) { return unary_op(OpId::sigmoid, Kind::floating, x); }
Tensor gelu(const Tensor& x) { return unary_op(OpId::gelu, Kind::floating, x); }
Tensor erf(const Tensor& x) { return unary_op(OpId::erf, Kind::floating, x); }
Tensor reciprocal(const Tensor& x) { return unary_op(OpId::reciprocal, Kind::floating, x); }

Tensor isnan(const Tensor& x) { return unary_op(OpId::isnan, Kind::predicate, x); }
Tensor isinf(const Tensor& x) { return unary_op(OpId::isinf, Kind::predicate, x); }
Tensor isfinite(const Tensor& x) { return unary_op(OpId::isfinite, Kind::predicate, x); }
Tensor logical_not(const Tensor& x) { return unary_op(OpId::logical_not, Kind::predicate, x); }

Tensor cast(const Tensor& x, Dtype dtype) { return x.to(dtype); }

Tensor operator-(const Tensor& a) { return neg(a); }

// The result dtype is that of x promoted with the bounds as numbers, so
// clamp(int32, 0.5, 2) is float32 and clamp(float16, 0, 1) stays float16.
Tensor clamp(const Tensor& x, std::optional<Scalar> lo, std::optional<Scalar> hi) {
  const Device device = x.device();
  if (!lo && !hi)
    throw ValueError("[clamp] needs at least one bound for " + detail::describe(x) + " on " + device.str() +
                     "; pass lo, hi or both");
  ResultTypeState st;
  st.add_tensor(x.dtype(), x.ndim() == 0);
  if (lo) st.add_scalar(lo->dtype());
  if (hi) st.add_scalar(hi->dtype());
  Plan p = detail::plan_lazy(OpId::clamp, device, st.result(), [&] {
    return detail::describe(x) + (lo ? " and lo " + lo->str() : "") + (hi ? " and hi " + hi->str() : "");
  });
  const Tensor in = detail::prepare_input(p, x);
  Tensor out = empty(x.shape(), p.compute, p.exec);
  if (out.numel() > 0) p.backend->clamp(in, lo, hi, out);
  out = detail::finish_output(p, out);
  detail::record(p);
  return out;
}

}  // namespace concord
