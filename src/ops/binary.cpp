// Front ends of the binary elementwise ops, where, and the operators.
#include "concord/amp.h"
#include "concord/creation.h"
#include "concord/ops.h"
#include "ops/elementwise_common.h"

namespace concord {

using detail::Plan;

namespace {

enum class Kind {
  arith,     // result in the promoted dtype
  floating,  // true division and friends: integer and bool results become float32
  compare,   // bool result, compared in the promoted dtype
};

Tensor binary_op(OpId op, Kind kind, const Operand& a, const Operand& b) {
  const char* opn = op_name(op).data();  // names are string literals
  const Device device = detail::operands_device(opn, {&a, &b});
  Dtype t = detail::result_type({&a, &b});
  if (kind == Kind::floating && !is_floating(t)) t = float32;
  t = detail::autocast_dtype(op, device, t);
  // Small ops are dominated by this function: inputs that are already what the
  // kernel needs are passed by reference (no Tensor or Shape copies).
  Shape shape_store;
  const Shape& shape = detail::broadcast_shape_ref(opn, a, b, device, shape_store);
  Plan p = detail::plan_lazy(op, device, t, [&] { return detail::describe_all({&a, &b}); });
  Tensor sa, sb;
  const Tensor& ia = detail::kernel_input_ref(p, a, shape, sa);
  const Tensor& ib = detail::kernel_input_ref(p, b, shape, sb);
  Tensor out = empty(shape, kind == Kind::compare ? bool_ : p.compute, p.exec);
  if (out.numel() > 0) p.backend->binary(op, ia, ib, out);
  if (p.exec != p.device) out = detail::finish_output(p, out);
  detail::record(p);
  return out;
}

bool is_one(const Scalar& s) { return s.is_floating() ? s.to_double() == 1.0 : s.to_int() == 1; }
bool is_minus_one(const Scalar& s) { return s.is_floating() ? s.to_double() == -1.0 : s.to_int() == -1; }

// o converted to dtype t (numbers stay numbers: they follow the tensor's dtype anyway).
Tensor as_tensor_of(const Operand& o, Dtype t) { return o.tensor().to(t); }

}  // namespace

Tensor add(const Operand& a, const Operand& b) { return binary_op(OpId::add, Kind::arith, a, b); }
Tensor sub(const Operand& a, const Operand& b) { return binary_op(OpId::sub, Kind::arith, a, b); }
Tensor mul(const Operand& a, const Operand& b) { return binary_op(OpId::mul, Kind::arith, a, b); }
Tensor div(const Operand& a, const Operand& b) { return binary_op(OpId::div, Kind::floating, a, b); }
Tensor pow(const Operand& a, const Operand& b) { return binary_op(OpId::pow, Kind::arith, a, b); }
Tensor maximum(const Operand& a, const Operand& b) { return binary_op(OpId::maximum, Kind::arith, a, b); }
Tensor minimum(const Operand& a, const Operand& b) { return binary_op(OpId::minimum, Kind::arith, a, b); }
Tensor remainder(const Operand& a, const Operand& b) { return binary_op(OpId::remainder, Kind::arith, a, b); }
Tensor atan2(const Operand& a, const Operand& b) { return binary_op(OpId::atan2, Kind::floating, a, b); }
Tensor eq(const Operand& a, const Operand& b) { return binary_op(OpId::eq, Kind::compare, a, b); }
Tensor ne(const Operand& a, const Operand& b) { return binary_op(OpId::ne, Kind::compare, a, b); }
Tensor lt(const Operand& a, const Operand& b) { return binary_op(OpId::lt, Kind::compare, a, b); }
Tensor le(const Operand& a, const Operand& b) { return binary_op(OpId::le, Kind::compare, a, b); }
Tensor gt(const Operand& a, const Operand& b) { return binary_op(OpId::gt, Kind::compare, a, b); }
Tensor ge(const Operand& a, const Operand& b) { return binary_op(OpId::ge, Kind::compare, a, b); }
Tensor logical_and(const Operand& a, const Operand& b) { return binary_op(OpId::logical_and, Kind::compare, a, b); }
Tensor logical_or(const Operand& a, const Operand& b) { return binary_op(OpId::logical_or, Kind::compare, a, b); }
Tensor logical_xor(const Operand& a, const Operand& b) { return binary_op(OpId::logical_xor, Kind::compare, a, b); }

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
Tensor where(const Tensor& cond, const Operand& a, const Operand& b) {
  const Operand c(cond);
  const Device device = detail::operands_device("where", {&c, &a, &b});
  if (cond.dtype() != bool_)
    throw DtypeError("[where] the condition must be bool, got " + detail::describe(cond) + " on " + device.str() +
                     "; make it with a comparison (e.g. ne(cond, 0))");
  const Dtype t = detail::result_type({&a, &b});
  const Shape shape = detail::broadcast_operands("where", {&c, &a, &b}, device);
  Plan p = detail::plan_lazy(OpId::where, device, t, [&] { return detail::describe_all({&c, &a, &b}); });
  const Tensor ic = detail::expand_to(cond.device() == p.exec ? cond : cond.to(p.exec), shape);
  const Tensor ia = detail::kernel_input(p, a, shape);
  const Tensor ib = detail::kernel_input(p, b, shape);
  Tensor out = empty(shape, p.compute, p.exec);
  if (out.numel() > 0) p.backend->where(ic, ia, ib, out);
  out = detail::finish_output(p, out);
  detail::record(p);
  return out;
}

Tensor operator+(const Tensor& a, const Operand& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Operand& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Operand& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Operand& b) { return div(a, b); }

}  // namespace concord
