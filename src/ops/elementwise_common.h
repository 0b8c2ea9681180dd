// Front-end helpers shared by the elementwise ops (unary.cpp, binary.cpp):
// operand description, result dtype, broadcasting with clear errors, and
// turning an operand into a kernel input on the plan's execution device.
//
// They are written for the small-tensor case: nothing here allocates or builds
// a string unless a message is needed, an input whose dtype and device already
// match is passed through untouched, and broadcasts stay stride-0 views.
#pragma once

#include <cstring>
#include <string>

#include "backend/cpu/convert.h"
#include "concord/ops.h"
#include "concord/policy.h"
#include "core/dispatch.h"

namespace concord::detail {

// "float32[2, 3]" for a tensor, "scalar 2.5" for a number.
inline std::string describe(const Operand& o) {
  return o.is_tensor() ? describe(o.tensor()) : "scalar " + o.scalar().str();
}

// "float32[2, 3] and scalar 2.5" (for the shapes part of messages).
inline std::string describe_all(std::initializer_list<const Operand*> ops) {
  std::string s;
  for (const Operand* o : ops) s += (s.empty() ? "" : " and ") + describe(*o);
  return s;
}

// Promotion over the operands: dimensioned tensors, then 0-dim tensors, then numbers.
inline Dtype result_type(std::initializer_list<const Operand*> ops) {
  ResultTypeState st;
  for (const Operand* o : ops) {
    if (o->is_tensor()) st.add_tensor(o->tensor().dtype(), o->tensor().ndim() == 0);
    else st.add_scalar(o->scalar().dtype());
  }
  return st.result();
}

// The device all tensor operands share (DeviceError otherwise).
inline Device operands_device(const char* op, std::initializer_list<const Operand*> ops) {
  const Tensor* ts[3] = {nullptr, nullptr, nullptr};
  int n = 0;
  for (const Operand* o : ops) {
    if (!o->is_tensor()) continue;
    if (!o->tensor().defined())
      throw ValueError(std::string("[") + op + "] an operand is an undefined (default-constructed) tensor; "
                       "create it with empty/zeros/from_host first");
    if (n < 3) ts[n++] = &o->tensor();
  }
  if (n == 0)
    throw ValueError(std::string("[") + op + "] needs at least one tensor operand, got " + describe_all(ops) +
                     "; wrap a number with scalar_tensor()");
  return common_device(op, {ts[0], ts[1], ts[2]});
}

// NumPy broadcasting of the tensor operands' shapes (numbers have shape []).
// Throws ShapeError naming the op, every operand (shape and dtype) and the device.
inline Shape broadcast_operands(const char* op, std::initializer_list<const Operand*> ops, const Device& device) {
  Shape out;
  bool first = true;
  for (const Operand* o : ops) {
    if (!o->is_tensor()) continue;
    const Shape& s = o->tensor().shape();
    if (first) { out = s; first = false; continue; }
    if (s == out) continue;
    const size_t nd = std::max(out.size(), s.size());
    Shape r(nd);
    for (size_t i = 0; i < nd; ++i) {
      const int64_t x = i + out.size() >= nd ? out[i + out.size() - nd] : 1;
      const int64_t y = i + s.size() >= nd ? s[i + s.size() - nd] : 1;
      if (x != y && x != 1 && y != 1)
        throw ShapeError(std::string("[") + op + "] operands do not broadcast: " + describe_all(ops) + " on " +
                         device.str() + " (sizes " + std::to_string(x) + " and " + std::to_string(y) + " at dim " +
                         std::to_string(static_cast<int64_t>(i) - static_cast<int64_t>(nd)) +
                         "); sizes must match or be 1, so reshape or unsqueeze one operand");
      r[i] = x == 1 ? y : x;
    }
    out = std::move(r);
  }
  return out;
}

// plan() with the shapes text built only when plan() may throw (it only goes into messages).
template <class F>
Plan plan_lazy(OpId op, const Device& device, Dtype dtype, F&& shapes) {
  const bool may_throw = !op_dtypes(op).has(dtype) || fallback_policy() == FallbackPolicy::strict ||
                         dtype_policy() == DtypePolicy::strict;
  return plan(op, device, dtype, may_throw ? shapes() : std::string());
}

// A 0-dim tensor holding s in dtype t on the plan's execution device. It is
// written straight into fresh device memory (not through fill): a number is
// part of the op, so it must not add a fill to the report or fall back itself.
inline Tensor scalar_input(const Plan& p, const Scalar& s, Dtype t) {
  unsigned char buf[8] = {};
  visit_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    T v;
    if (s.is_floating()) v = cpu::convert<T>(s.to_double());
    else if (s.is_bool()) v = cpu::convert<T>(s.to_bool());
    else v = cpu::convert<T>(s.to_int());
    std::memcpy(buf, &v, sizeof(T));
  });
  auto st = p.backend->allocate(itemsize(t), p.exec);
  p.backend->write(*st, 0, buf, itemsize(t));
  return Tensor(std::move(st), Shape{}, Strides{}, 0, t);
}

// t as a view of the given shape (t itself when it already has it).
inline Tensor expand_to(const Tensor& t, const Shape& shape) {
  return t.shape() == shape ? t : t.expand(shape);
}

// The kernel input for an operand: on p.exec, in dtype t (p.compute unless
// stated), broadcast to shape.
inline Tensor kernel_input(const Plan& p, const Operand& o, const Shape& shape) {
  if (!o.is_tensor()) return scalar_input(p, o.scalar(), p.compute).expand(shape);
  return expand_to(prepare_input(p, o.tensor()), shape);
}

// kernel_input without a copy when the operand already is the kernel input
// (the common case): a reference to the operand's tensor, else to `store`,
// which then holds the converted/broadcast input.
inline const Tensor& kernel_input_ref(const Plan& p, const Operand& o, const Shape& shape, Tensor& store) {
  if (o.is_tensor()) {
    const Tensor& t = o.tensor();
    if (t.dtype() == p.compute && (&t.shape() == &shape || t.shape() == shape) && t.device() == p.exec) return t;
  }
  store = kernel_input(p, o, shape);
  return store;
}

// The shape the operands broadcast to, without building a new Shape when
// both are tensors of one shape (then it is a's). `store` holds any new shape.
inline const Shape& broadcast_shape_ref(const char* op, const Operand& a, const Operand& b, const Device& device,
                                        Shape& store) {
  if (a.is_tensor() && b.is_tensor() && a.tensor().shape() == b.tensor().shape()) return a.tensor().shape();
  store = broadcast_operands(op, {&a, &b}, device);
  return store;
}

}  // namespace concord::detail
