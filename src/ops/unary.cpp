// Front ends of the unary elementwise ops, clamp and cast.
#include "concord/amp.h"
#include "concord/creation.h"
#include "concord/ops.h"
#include "ops/elementwise_common.h"

namespace concord {

using detail::Arg;
using detail::Inputs;
using detail::Plan;

namespace {

// Every unary op: the op table decides the dtype it runs in (integers give
// float32 for the floating ops) and its output dtype (bool for predicates).
Tensor unary_op(OpId op, const Tensor& x0) {
  const OpDef& def = op_def(op);
  detail::Dispatch d(op, {&x0});
  const Tensor& x = d.tensor(0);
  return d.run(x.device(), detail::run_dtype(def, x.dtype()), [&] { return detail::describe(x); }, {Arg(x)},
               [&](const Plan& p, const Inputs& in) {
                 Tensor out = empty(x.shape(), detail::out_dtype(def, p), p.exec);
                 if (out.numel() > 0) p.backend->unary(op, in[0], out);
                 return out;
               });
}

}  // namespace

Tensor unary(OpId op, const Tensor& x) {
  if (op_def(op).family != OpFamily::unary)
    throw ValueError("[unary] " + std::string(op_name(op)) + " is a " + std::string(op_family(op)) +
                     " op, not a unary one; call it by its own function");
  return unary_op(op, x);
}

Tensor neg(const Tensor& x) { return unary_op(OpId::neg, x); }
Tensor abs(const Tensor& x) { return unary_op(OpId::abs, x); }
Tensor sign(const Tensor& x) { return unary_op(OpId::sign, x); }
Tensor relu(const Tensor& x) { return unary_op(OpId::relu, x); }
Tensor floor(const Tensor& x) { return unary_op(OpId::floor, x); }
Tensor ceil(const Tensor& x) { return unary_op(OpId::ceil, x); }
Tensor round(const Tensor& x) { return unary_op(OpId::round, x); }
Tensor trunc(const Tensor& x) { return unary_op(OpId::trunc, x); }

Tensor exp(const Tensor& x) { return unary_op(OpId::exp, x); }
Tensor expm1(const Tensor& x) { return unary_op(OpId::expm1, x); }
Tensor log(const Tensor& x) { return unary_op(OpId::log, x); }
Tensor log1p(const Tensor& x) { return unary_op(OpId::log1p, x); }
Tensor log2(const Tensor& x) { return unary_op(OpId::log2, x); }
Tensor sqrt(const Tensor& x) { return unary_op(OpId::sqrt, x); }
Tensor rsqrt(const Tensor& x) { return unary_op(OpId::rsqrt, x); }
Tensor sin(const Tensor& x) { return unary_op(OpId::sin, x); }
Tensor cos(const Tensor& x) { return unary_op(OpId::cos, x); }
Tensor tan(const Tensor& x) { return unary_op(OpId::tan, x); }
Tensor tanh(const Tensor& x) { return unary_op(OpId::tanh, x); }
Tensor sigmoid(const Tensor& x) { return unary_op(OpId::sigmoid, x); }
Tensor gelu(const Tensor& x) { return unary_op(OpId::gelu, x); }
Tensor erf(const Tensor& x) { return unary_op(OpId::erf, x); }
Tensor reciprocal(const Tensor& x) { return unary_op(OpId::reciprocal, x); }

Tensor isnan(const Tensor& x) { return unary_op(OpId::isnan, x); }
Tensor isinf(const Tensor& x) { return unary_op(OpId::isinf, x); }
Tensor isfinite(const Tensor& x) { return unary_op(OpId::isfinite, x); }
Tensor logical_not(const Tensor& x) { return unary_op(OpId::logical_not, x); }

Tensor cast(const Tensor& x, Dtype dtype) { return x.to(dtype); }

Tensor operator-(const Tensor& a) { return neg(a); }

// The result dtype is that of x promoted with the bounds as numbers, so
// clamp(int32, 0.5, 2) is float32 and clamp(float16, 0, 1) stays float16.
Tensor clamp(const Tensor& x0, std::optional<Scalar> lo, std::optional<Scalar> hi) {
  detail::Dispatch d(OpId::clamp, {&x0});
  const Tensor& x = d.tensor(0);
  const Device device = x.device();
  if (!lo && !hi)
    throw ValueError("[clamp] needs at least one bound for " + detail::describe(x) + " on " + device.str() +
                     "; pass lo, hi or both");
  ResultTypeState st;
  st.add_tensor(x.dtype(), x.ndim() == 0);
  if (lo) st.add_scalar(lo->dtype());
  if (hi) st.add_scalar(hi->dtype());
  auto describe = [&] {
    return detail::describe(x) + (lo ? " and lo " + lo->str() : "") + (hi ? " and hi " + hi->str() : "");
  };
  return d.run(device, st.result(), describe, {Arg(x)}, [&](const Plan& p, const Inputs& in) {
    Tensor out = empty(x.shape(), p.compute, p.exec);
    if (out.numel() > 0) p.backend->clamp(in[0], lo, hi, out);
    return out;
  });
}

}  // namespace concord
