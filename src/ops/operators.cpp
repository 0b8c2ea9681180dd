// The operators beyond + - * /: comparisons, %, the bitwise family (composed
// from arithmetic ops: the op table has no bitwise row), ! and the compound
// assignments with PyTorch's in-place dtype rule.
#include <string>

#include "concord/creation.h"
#include "concord/ops.h"
#include "ops/elementwise_common.h"

namespace concord {

namespace {

enum class Bitwise { and_, or_, xor_ };

const char* bitwise_name(Bitwise k) {
  return k == Bitwise::and_ ? "bitwise_and" : k == Bitwise::or_ ? "bitwise_or" : "bitwise_xor";
}

[[noreturn]] void reject_floating(const char* op, const std::string& operands, const Device& dev, const char* logical) {
  throw DtypeError(std::string("[") + op + "] is defined for integer and bool operands, got " + operands + " on " +
                   dev.str() + "; convert with .to(concord::int64) first, or use " + logical + " for conditions");
}

// o as a tensor of dtype t: numbers become 0-dim CPU tensors, which go with
// any device in elementwise ops.
Tensor as_tensor(const Operand& o, Dtype t) {
  return o.is_tensor() ? o.tensor().to(t) : scalar_tensor(o.scalar(), t, kCPU);
}

// Integers bit by bit: bit k of x is remainder(floor(x / 2^k), 2), which is 0
// or 1 for negative x too (floor division shifts arithmetically), so the
// two's complement bits come out as PyTorch's; the sign bit weighs -2^(n-1).
// The partial sums never leave the dtype's range.
Tensor integer_bitwise(Bitwise kind, Tensor x, Tensor y, Dtype t) {
  const int nbits = static_cast<int>(itemsize(t)) * 8;
  Tensor acc;
  for (int k = 0; k < nbits; ++k) {
    const Tensor bx = remainder(x, 2), by = remainder(y, 2);
    const Tensor c = kind == Bitwise::and_ ? mul(bx, by) : kind == Bitwise::or_ ? maximum(bx, by)
                                                                                 : remainder(add(bx, by), 2);
    const bool sign_bit = is_signed(t) && k == nbits - 1;
    const int64_t weight = sign_bit ? static_cast<int64_t>(uint64_t{1} << k) * (k == 63 ? 1 : -1)
                                    : static_cast<int64_t>(uint64_t{1} << k);
    const Tensor term = k == 0 ? c : mul(c, weight);
    acc = k == 0 ? term : add(acc, term);
    if (k + 1 < nbits) {
      x = floor_divide(x, 2);
      y = floor_divide(y, 2);
    }
  }
  return acc.dtype() == t ? acc : acc.to(t);
}

Tensor bitwise(Bitwise kind, const Operand& a, const Operand& b) {
  const char* op = bitwise_name(kind);
  const Device dev = detail::operands_device(op, {&a, &b});
  const Dtype t = detail::result_type({&a, &b});
  const char* logical = kind == Bitwise::and_ ? "logical_and" : kind == Bitwise::or_ ? "logical_or" : "logical_xor";
  if (is_floating(t)) reject_floating(op, detail::describe_all({&a, &b}), dev, logical);
  if (t == bool_)
    return kind == Bitwise::and_ ? logical_and(a, b) : kind == Bitwise::or_ ? logical_or(a, b) : logical_xor(a, b);
  // Shapes are checked before the first of the many ops runs.
  Shape store;
  detail::broadcast_shape_ref(op, a, b, dev, store);
  return integer_bitwise(kind, as_tensor(a, t), as_tensor(b, t), t);
}

// PyTorch's canCast: no floating into integers or bool, nothing but bool into bool.
bool can_cast(Dtype from, Dtype to) {
  if (is_floating(from) && !is_floating(to)) return false;
  if (from != bool_ && to == bool_) return false;
  return true;
}

using BinaryFn = Tensor (*)(const Operand&, const Operand&);

// a OP= b: the result is computed first, then checked, then written: an error
// at any step leaves a as it was.
Tensor& in_place(const char* op, const char* sym, Tensor& a, const Operand& b, BinaryFn fn) {
  if (!a.defined())
    throw ValueError(std::string("[") + op + "] the tensor on the left is undefined (default-constructed); create "
                     "it with empty/zeros/... first");
  Tensor r = fn(a, b);
  const Operand ao(a);
  if (!can_cast(r.dtype(), a.dtype()))
    throw DtypeError(std::string("[") + op + "] the result type " + std::string(name(r.dtype())) + " of " +
                     detail::describe_all({&ao, &b}) + " on " + a.device().str() +
                     " can't be cast to the in-place output's dtype " + std::string(name(a.dtype())) +
                     "; write a = a " + sym + " b for a new tensor, or convert a with .to(" + std::string(name(r.dtype())) +
                     ") first");
  if (!(r.shape() == a.shape()))
    throw ShapeError(std::string("[") + op + "] the output of shape " + shape_str(a.shape()) +
                     " doesn't match the broadcast shape " + shape_str(r.shape()) + " of " +
                     detail::describe_all({&ao, &b}) + " on " + a.device().str() +
                     "; an in-place op cannot grow its tensor: write a = a " + sym + " b");
  a.copy_(r);
  return a;
}

}  // namespace

Tensor bitwise_and(const Operand& a, const Operand& b) { return bitwise(Bitwise::and_, a, b); }
Tensor bitwise_or(const Operand& a, const Operand& b) { return bitwise(Bitwise::or_, a, b); }
Tensor bitwise_xor(const Operand& a, const Operand& b) { return bitwise(Bitwise::xor_, a, b); }

// ~x is -1 - x in two's complement (255 - x for uint8): one op, no overflow.
Tensor bitwise_not(const Tensor& x) {
  if (!x.defined()) throw ValueError("[bitwise_not] the operand is an undefined (default-constructed) tensor");
  if (x.dtype() == bool_) return logical_not(x);
  if (is_floating(x.dtype())) reject_floating("bitwise_not", detail::describe(x), x.device(), "logical_not");
  return sub(x.dtype() == uint8 ? Scalar(255) : Scalar(-1), x);
}

#define CONCORD_DEFINE_OPERATOR(OP, FN) \
  Tensor operator OP(const Tensor& a, const Operand& b) { return FN(a, b); }
CONCORD_DEFINE_OPERATOR(==, eq)
CONCORD_DEFINE_OPERATOR(!=, ne)
CONCORD_DEFINE_OPERATOR(<, lt)
CONCORD_DEFINE_OPERATOR(<=, le)
CONCORD_DEFINE_OPERATOR(>, gt)
CONCORD_DEFINE_OPERATOR(>=, ge)
CONCORD_DEFINE_OPERATOR(%, remainder)
CONCORD_DEFINE_OPERATOR(&, bitwise_and)
CONCORD_DEFINE_OPERATOR(|, bitwise_or)
CONCORD_DEFINE_OPERATOR(^, bitwise_xor)
#undef CONCORD_DEFINE_OPERATOR
Tensor operator==(const Tensor& a, const Tensor& b) { return eq(a, b); }
Tensor operator!=(const Tensor& a, const Tensor& b) { return ne(a, b); }
Tensor operator~(const Tensor& a) { return bitwise_not(a); }

Tensor operator!(const Tensor& a) {
  if (a.defined() && is_floating(a.dtype()))
    throw DtypeError("[logical_not] operator! takes bool and integer tensors, got " + detail::describe(a) + " on " +
                     a.device().str() + "; write logical_not(x) or x == 0 for a floating tensor");
  return logical_not(a);
}

Tensor& operator+=(Tensor& a, const Operand& b) { return in_place("add_", "+", a, b, add); }
Tensor& operator-=(Tensor& a, const Operand& b) { return in_place("sub_", "-", a, b, sub); }
Tensor& operator*=(Tensor& a, const Operand& b) { return in_place("mul_", "*", a, b, mul); }
Tensor& operator/=(Tensor& a, const Operand& b) { return in_place("div_", "/", a, b, div); }
Tensor& operator%=(Tensor& a, const Operand& b) { return in_place("remainder_", "%", a, b, remainder); }
Tensor& operator&=(Tensor& a, const Operand& b) { return in_place("bitwise_and_", "&", a, b, bitwise_and); }
Tensor& operator|=(Tensor& a, const Operand& b) { return in_place("bitwise_or_", "|", a, b, bitwise_or); }
Tensor& operator^=(Tensor& a, const Operand& b) { return in_place("bitwise_xor_", "^", a, b, bitwise_xor); }

}  // namespace concord
