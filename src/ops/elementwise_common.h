// Front-end helpers shared by the elementwise ops (unary.cpp, binary.cpp):
// operand description, result dtype, broadcasting with clear errors.
//
// They are written for the small-tensor case: nothing here allocates or builds
// a string unless a message is needed (the dispatcher passes an input whose
// dtype and device already match through untouched, and broadcasts stay
// stride-0 views).
#pragma once

#include <string>

#include "concord/ops.h"
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

// The device all tensor operands share (DeviceError otherwise). A 0-dim CPU
// tensor goes with any device, as a number does (PyTorch's rule): the
// dispatcher moves its one element to where the op runs.
inline Device operands_device(const char* op, std::initializer_list<const Operand*> ops) {
  const Tensor* ts[3] = {nullptr, nullptr, nullptr};
  const Tensor* host0 = nullptr;  // a 0-dim CPU operand
  int n = 0;
  for (const Operand* o : ops) {
    if (!o->is_tensor()) continue;
    const Tensor& t = o->tensor();
    if (!t.defined())
      throw ValueError(std::string("[") + op + "] an operand is an undefined (default-constructed) tensor; "
                       "create it with empty/zeros/from_host first");
    if (t.ndim() == 0 && t.storage()->device.is_cpu()) {
      host0 = &t;
      continue;
    }
    if (n < 3) ts[n++] = &t;
  }
  if (n == 0 && !host0)
    throw ValueError(std::string("[") + op + "] needs at least one tensor operand, got " + describe_all(ops) +
                     "; wrap a number with scalar_tensor()");
  return n == 0 ? kCPU : common_device(op, {ts[0], ts[1], ts[2]});
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

// The dtype an elementwise op runs in for operands promoted to t (predicates
// compute in t), and its output dtype on a plan (the op table's result rule).
inline Dtype run_dtype(const OpDef& d, Dtype t) { return d.result == ResultRule::boolean ? t : d.result_dtype(t); }
inline Dtype out_dtype(const OpDef& d, const Plan& p) { return d.result == ResultRule::boolean ? bool_ : p.compute; }

// The shape the operands broadcast to, without building a new Shape when
// both are tensors of one shape (then it is a's). `store` holds any new shape.
inline const Shape& broadcast_shape_ref(const char* op, const Operand& a, const Operand& b, const Device& device,
                                        Shape& store) {
  if (a.is_tensor() && b.is_tensor() && a.tensor().shape() == b.tensor().shape()) return a.tensor().shape();
  store = broadcast_operands(op, {&a, &b}, device);
  return store;
}

}  // namespace concord::detail
