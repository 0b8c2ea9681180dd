// Front ends of the binary elementwise ops, where, and the operators.
#include "concord/amp.h"
#include "concord/creation.h"
#include "concord/ops.h"
#include "ops/elementwise_common.h"

namespace concord {

using detail::Arg;
using detail::Inputs;
using detail::Plan;
using detail::Prep;

namespace {

// Every binary op: operands promote (PyTorch's rules, numbers included) and
// broadcast; the op table decides the dtype it runs in and its output dtype.
// sub with any bool operand (tensor or number) raises, as PyTorch: "x - True" is
// almost always a mask inverted the wrong way. Checked on the operands as given,
// before promotion makes bool - 2 an int64 op.
void reject_bool_sub(const Operand& a, const Operand& b) {
  auto is_bool = [](const Operand& o) { return o.is_tensor() ? o.tensor().dtype() == bool_ : o.scalar().is_bool(); };
  if (!is_bool(a) && !is_bool(b)) return;
  const Operand& t = a.is_tensor() ? a : b;
  throw DtypeError("[sub] subtraction with a bool operand is not supported (operands " +
                   detail::describe_all({&a, &b}) + (t.is_tensor() ? " on " + t.tensor().device().str() : "") +
                   "); to invert a mask use logical_not, else convert the bool operand with .to(int64) or "
                   ".to(float32) first");
}

// pow(floating tensor, number): the number keeps its full double value
// (Backend::pow_scalar) instead of becoming a tensor of the compute dtype,
// which would round 1/3. to float32 (or float16). The one place that decides
// it, and whether the device evaluates in float64 or by the split scheme:
// float64 where the exec device has it, and in the reproducible mode, whose
// pow kernels are those that give the CPU's bits (cpu, emu's, which are the
// CPU's, OpenCL's and Vulkan's on-bits variants; a device that does not claim
// them falls back to the CPU).
Tensor pow_number(detail::Dispatch& d, const Device& device, Dtype t, const Operand& a, const Operand& b,
                  const Shape& shape) {
  const OpDef& def = op_def(OpId::pow);
  return d.run(device, t, [&] { return detail::describe_all({&a, &b}); },
               {Arg(a, Prep::compute, &shape)}, [&](const Plan& p, const Inputs& in) {
                 Tensor out = empty(shape, detail::out_dtype(def, p), p.exec);
                 const bool wide = reproducible() || capabilities(p.exec).can_compute(float64);
                 if (out.numel() > 0) p.backend->pow_scalar(in[0], detail::ScalarExponent::of(b.scalar().to_double(), wide), out);
                 return out;
               });
}

Tensor binary_op(OpId op, const Operand& a0, const Operand& b0) {
  if (op == OpId::sub) reject_bool_sub(a0, b0);
  detail::Dispatch d(op, {&a0, &b0});
  const Operand& a = d.operand(0);
  const Operand& b = d.operand(1);
  const OpDef& def = op_def(op);
  const char* opn = def.name.data();  // names are string literals
  const Device device = detail::operands_device(opn, {&a, &b});
  // Small ops are dominated by this function: no Shape copy when both operands have one shape.
  Shape shape_store;
  const Shape& shape = detail::broadcast_shape_ref(opn, a, b, device, shape_store);
  const Dtype t = detail::run_dtype(def, detail::result_type({&a, &b}));
  if (op == OpId::pow && a.is_tensor() && !b.is_tensor() && is_floating(t))
    return pow_number(d, device, t, a, b, shape);
  return d.run(device, t,
               [&] { return detail::describe_all({&a, &b}); },
               {Arg(a, Prep::compute, &shape), Arg(b, Prep::compute, &shape)},
               [&](const Plan& p, const Inputs& in) {
                 Tensor out = empty(shape, detail::out_dtype(def, p), p.exec);
                 if (out.numel() > 0) p.backend->binary(op, in[0], in[1], out);
                 return out;
               });
}

}  // namespace

Tensor binary(OpId op, const Operand& a, const Operand& b) {
  if (op_def(op).family != OpFamily::binary)
    throw ValueError("[binary] " + std::string(op_name(op)) + " is a " + std::string(op_family(op)) +
                     " op, not a binary one; call it by its own function");
  return binary_op(op, a, b);
}

namespace {

bool is_one(const Scalar& s) { return s.is_floating() ? s.to_double() == 1.0 : s.to_int() == 1; }
bool is_minus_one(const Scalar& s) { return s.is_floating() ? s.to_double() == -1.0 : s.to_int() == -1; }

// o converted to dtype t (numbers stay numbers: they follow the tensor's dtype anyway).
Tensor as_tensor_of(const Operand& o, Dtype t) { return o.tensor().to(t); }

}  // namespace

Tensor add(const Operand& a, const Operand& b) { return binary_op(OpId::add, a, b); }
Tensor sub(const Operand& a, const Operand& b) { return binary_op(OpId::sub, a, b); }
Tensor mul(const Operand& a, const Operand& b) { return binary_op(OpId::mul, a, b); }
Tensor div(const Operand& a, const Operand& b) { return binary_op(OpId::div, a, b); }
Tensor pow(const Operand& a, const Operand& b) { return binary_op(OpId::pow, a, b); }
Tensor maximum(const Operand& a, const Operand& b) { return binary_op(OpId::maximum, a, b); }
Tensor minimum(const Operand& a, const Operand& b) { return binary_op(OpId::minimum, a, b); }
Tensor remainder(const Operand& a, const Operand& b) { return binary_op(OpId::remainder, a, b); }
Tensor floor_divide(const Operand& a, const Operand& b) { return binary_op(OpId::floor_divide, a, b); }
Tensor atan2(const Operand& a, const Operand& b) { return binary_op(OpId::atan2, a, b); }
Tensor hypot(const Operand& a, const Operand& b) { return binary_op(OpId::hypot, a, b); }
Tensor logaddexp(const Operand& a, const Operand& b) { return binary_op(OpId::logaddexp, a, b); }
Tensor copysign(const Operand& a, const Operand& b) { return binary_op(OpId::copysign, a, b); }
Tensor nextafter(const Operand& a, const Operand& b) { return binary_op(OpId::nextafter, a, b); }
Tensor eq(const Operand& a, const Operand& b) { return binary_op(OpId::eq, a, b); }
Tensor ne(const Operand& a, const Operand& b) { return binary_op(OpId::ne, a, b); }
Tensor lt(const Operand& a, const Operand& b) { return binary_op(OpId::lt, a, b); }
Tensor le(const Operand& a, const Operand& b) { return binary_op(OpId::le, a, b); }
Tensor gt(const Operand& a, const Operand& b) { return binary_op(OpId::gt, a, b); }
Tensor ge(const Operand& a, const Operand& b) { return binary_op(OpId::ge, a, b); }
Tensor logical_and(const Operand& a, const Operand& b) { return binary_op(OpId::logical_and, a, b); }
Tensor logical_or(const Operand& a, const Operand& b) { return binary_op(OpId::logical_or, a, b); }
Tensor logical_xor(const Operand& a, const Operand& b) { return binary_op(OpId::logical_xor, a, b); }

// a + alpha*b as PyTorch computes it: alpha*b rounded in the compute type,
// then the sum rounded (float16/bfloat16: both steps in float32, then one
// rounding to the dtype). alpha = 1 and -1 are plain add and sub.
Tensor add(const Operand& a, const Operand& b, Scalar alpha) {
  if (is_one(alpha)) return add(a, b);
  const Dtype t = detail::result_type({&a, &b});
  if ((alpha.is_floating() && !is_floating(t)) || (alpha.is_bool() && t != bool_))
    throw ValueError("[add] alpha " + alpha.str() + " does not fit the result dtype " + std::string(name(t)) +
                     " of " + detail::describe_all({&a, &b}) + "; pass an integer alpha for integer operands (a bool "
                     "alpha only for bool operands), or convert the operands with .to(float32)");
  if (is_minus_one(alpha) && t != bool_) return sub(a, b);
  detail::operands_device("add", {&a, &b});
  if (!b.is_tensor()) {
    // Scale the number on the host, in double or int64 (what the C++ number already is).
    const Scalar& s = b.scalar();
    const Scalar sb = alpha.is_bool() ? Scalar(s.to_bool() && alpha.to_bool())
                      : s.is_floating() || alpha.is_floating()
                          ? Scalar(s.to_double() * alpha.to_double())
                          : Scalar(static_cast<int64_t>(static_cast<uint64_t>(s.to_int()) *
                                                        static_cast<uint64_t>(alpha.to_int())));
    return add(a, sb);
  }
  const Dtype work = is_half(t) ? float32 : t;
  const Tensor scaled = mul(as_tensor_of(b, work), alpha);
  Tensor sum = a.is_tensor() ? add(as_tensor_of(a, work), scaled) : add(a.scalar(), scaled);
  return sum.to(t);
}

// cond must be bool; a and b promote together (numbers allowed) and broadcast with cond.
Tensor where(const Tensor& cond, const Operand& a0, const Operand& b0) {
  detail::Dispatch d(OpId::where, {&a0, &b0});
  const Operand& a = d.operand(0);
  const Operand& b = d.operand(1);
  const Operand c(cond);
  const Device device = detail::operands_device("where", {&c, &a, &b});
  if (cond.dtype() != bool_)
    throw DtypeError("[where] the condition must be bool, got " + detail::describe(cond) + " on " + device.str() +
                     "; make it with a comparison (e.g. ne(cond, 0))");
  const Shape shape = detail::broadcast_operands("where", {&c, &a, &b}, device);
  return d.run(device, detail::result_type({&a, &b}), [&] { return detail::describe_all({&c, &a, &b}); },
               {Arg(cond, Prep::move, &shape), Arg(a, Prep::compute, &shape), Arg(b, Prep::compute, &shape)},
               [&](const Plan& p, const Inputs& in) {
                 Tensor out = empty(shape, p.compute, p.exec);
                 if (out.numel() > 0) p.backend->where(in[0], in[1], in[2], out);
                 return out;
               });
}

Tensor operator+(const Tensor& a, const Operand& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Operand& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Operand& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Operand& b) { return div(a, b); }

}  // namespace concord
