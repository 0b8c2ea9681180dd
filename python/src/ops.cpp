// The ops: every unary and binary op of the op table as a function and a
// method (by the table's name), the Python operators over the same ops, the
// reductions and the matmul family. Python numbers are passed as scalars, so
// promotion is the library's (PyTorch's: a number does not widen a tensor).
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>

#include "common.h"

namespace concord::py {
namespace {

using nb::gil_scoped_release;

// a OP b with either side a number; NotImplemented for other types, so that
// Python tries the reflected operator or raises its usual TypeError.
nb::object binop(OpId op, nb::handle a, nb::handle b) {
  PyOperand x, y;
  if (!to_operand(a, x) || !to_operand(b, y)) return nb::borrow(Py_NotImplemented);
  Tensor r;
  {
    gil_scoped_release rel;
    r = binary(op, x.operand(), y.operand());
  }
  return nb::cast(std::move(r));
}

Tensor unop(OpId op, const Tensor& t) {
  gil_scoped_release rel;
  return unary(op, t);
}

nb::object matmul_any(nb::handle a, nb::handle b) {
  if (!nb::isinstance<Tensor>(a) || !nb::isinstance<Tensor>(b)) return nb::borrow(Py_NotImplemented);
  const Tensor& x = nb::cast<const Tensor&>(a);
  const Tensor& y = nb::cast<const Tensor&>(b);
  Tensor r;
  {
    gil_scoped_release rel;
    r = matmul(x, y);
  }
  return nb::cast(std::move(r));
}

template <class F>
void reduction(nb::module_& m, nb::class_<Tensor>& cls, const char* name, F f, const char* doc) {
  auto fn = [f](const Tensor& t, nb::handle dim, bool keepdim) {
    Dims d = to_dims(dim);
    gil_scoped_release rel;
    return f(t, d, keepdim);
  };
  m.def(name, fn, nb::arg("input"), nb::arg("dim").none() = nb::none(), nb::arg("keepdim") = false, doc);
  cls.def(name, fn, nb::arg("dim").none() = nb::none(), nb::arg("keepdim") = false, doc);
}

}  // namespace

void bind_tensor_ops(nb::module_& m, nb::class_<Tensor>& cls) {
  // Elementwise ops, by the op table's names (concord.exp(t), t.exp(), concord.add(a, 2)).
  for (int i = 0; i < kNumOps; ++i) {
    const OpDef& d = op_def(static_cast<OpId>(i));
    const std::string name(d.name);
    const std::string doc = std::string("concord.") + name + ": the library's " + name +
                            " (semantics, promotion and errors as concord/ops.h; the report counts it).";
    if (d.family == OpFamily::unary) {
      const OpId op = d.id;
      auto f = [op](const Tensor& t) { return unop(op, t); };
      m.def(name.c_str(), f, nb::arg("input"), doc.c_str());
      cls.def(name.c_str(), f, doc.c_str());
    } else if (d.family == OpFamily::binary) {
      const OpId op = d.id;
      auto f = [op](nb::handle a, nb::handle b) -> nb::object {
        nb::object r = binop(op, a, b);
        if (r.is(nb::handle(Py_NotImplemented)))
          throw nb::type_error("expected concord.Tensor, bool, int or float operands");
        return r;
      };
      m.def(name.c_str(), f, nb::arg("input"), nb::arg("other"), doc.c_str());
      cls.def(name.c_str(), f, nb::arg("other"), doc.c_str());
    }
  }

  // The Python operators: the same ops, reflected where the number is on the left.
  struct Op { const char* fwd; const char* rev; OpId op; };
  const Op ops[] = {
      {"__add__", "__radd__", OpId::add},        {"__sub__", "__rsub__", OpId::sub},
      {"__mul__", "__rmul__", OpId::mul},        {"__truediv__", "__rtruediv__", OpId::div},
      {"__floordiv__", "__rfloordiv__", OpId::floor_divide}, {"__mod__", "__rmod__", OpId::remainder},
      {"__pow__", "__rpow__", OpId::pow},
  };
  for (const Op& o : ops) {
    const OpId op = o.op;
    cls.def(o.fwd, [op](nb::handle a, nb::handle b) { return binop(op, a, b); }, nb::is_operator());
    cls.def(o.rev, [op](nb::handle a, nb::handle b) { return binop(op, b, a); }, nb::is_operator());
  }
  const Op cmp[] = {{"__eq__", nullptr, OpId::eq}, {"__ne__", nullptr, OpId::ne}, {"__lt__", nullptr, OpId::lt},
                    {"__le__", nullptr, OpId::le}, {"__gt__", nullptr, OpId::gt}, {"__ge__", nullptr, OpId::ge}};
  for (const Op& o : cmp) {
    const OpId op = o.op;
    cls.def(o.fwd, [op](nb::handle a, nb::handle b) { return binop(op, a, b); }, nb::is_operator());
  }
  // & | ^ are bitwise (logical on bool), as in PyTorch.
  using BW = Tensor (*)(const Operand&, const Operand&);
  const std::pair<const char*, BW> bw[] = {{"and", &bitwise_and}, {"or", &bitwise_or}, {"xor", &bitwise_xor}};
  for (const auto& [nm, fp] : bw) {
    BW f = fp;
    auto g = [f](nb::handle a, nb::handle b) -> nb::object {
      PyOperand x, y;
      if (!to_operand(a, x) || !to_operand(b, y)) return nb::borrow(Py_NotImplemented);
      Tensor r;
      {
        gil_scoped_release rel;
        r = f(x.operand(), y.operand());
      }
      return nb::cast(std::move(r));
    };
    cls.def(("__" + std::string(nm) + "__").c_str(), g, nb::is_operator());
    cls.def(("__r" + std::string(nm) + "__").c_str(), [g](nb::handle a, nb::handle b) { return g(b, a); },
            nb::is_operator());
    m.def(("bitwise_" + std::string(nm)).c_str(), g);
  }
  cls.def("__hash__", [](nb::handle self) { return (Py_hash_t)(uintptr_t)self.ptr(); });
  cls.def("__neg__", [](const Tensor& t) { return unop(OpId::neg, t); });
  cls.def("__abs__", [](const Tensor& t) { return unop(OpId::abs, t); });
  cls.def("__invert__", [](const Tensor& t) { gil_scoped_release r; return ~t; });
  cls.def("__matmul__", &matmul_any, nb::is_operator());
  cls.def("__rmatmul__", [](nb::handle a, nb::handle b) { return matmul_any(b, a); }, nb::is_operator());

  // Reductions over dims (None: all).
  reduction(m, cls, "sum", [](const Tensor& t, const Dims& d, bool k) { return sum(t, d, k); }, "Sum over dims.");
  reduction(m, cls, "mean", [](const Tensor& t, const Dims& d, bool k) { return mean(t, d, k); }, "Mean over dims.");
  reduction(m, cls, "prod", [](const Tensor& t, const Dims& d, bool k) { return prod(t, d, k); }, "Product over dims.");
  reduction(m, cls, "amax", [](const Tensor& t, const Dims& d, bool k) { return amax(t, d, k); }, "Maximum over dims.");
  reduction(m, cls, "amin", [](const Tensor& t, const Dims& d, bool k) { return amin(t, d, k); }, "Minimum over dims.");
  reduction(m, cls, "all", [](const Tensor& t, const Dims& d, bool k) { return all(t, d, k); }, "All true over dims.");
  reduction(m, cls, "any", [](const Tensor& t, const Dims& d, bool k) { return any(t, d, k); }, "Any true over dims.");
  reduction(m, cls, "logsumexp", [](const Tensor& t, const Dims& d, bool k) { return logsumexp(t, d, k); },
            "log(sum(exp)) over dims, without overflow.");
  for (const char* nm : {"var", "std"}) {
    const bool is_var = nm[0] == 'v';
    auto f = [is_var](const Tensor& t, nb::handle dim, int64_t correction, bool keepdim) {
      Dims d = to_dims(dim);
      gil_scoped_release rel;
      return is_var ? var(t, d, correction, keepdim) : concord::std(t, d, correction, keepdim);
    };
    const char* doc = is_var ? "Variance over dims (None: all), divided by n - correction (Bessel's by default). The "
                               "deviations are scaled by an exact power of two, so nothing overflows inside."
                             : "Standard deviation: sqrt(var(input, dim, correction)), the same rules.";
    m.def(nm, f, nb::arg("input"), nb::arg("dim").none() = nb::none(), nb::arg("correction") = 1, nb::arg("keepdim") = false, doc);
    cls.def(nm, f, nb::arg("dim").none() = nb::none(), nb::arg("correction") = 1, nb::arg("keepdim") = false, doc);
  }
  auto maxmin = [](bool is_max) {
    return [is_max](const Tensor& t, std::optional<int64_t> dim, bool keepdim) -> nb::object {
      if (!dim) {
        gil_scoped_release rel;
        Tensor r = is_max ? max(t) : min(t);
        nb::gil_scoped_acquire acq;
        return nb::cast(std::move(r));
      }
      ValuesIndices vi;
      {
        gil_scoped_release rel;
        vi = is_max ? t.max(*dim, keepdim) : t.min(*dim, keepdim);
      }
      return nb::make_tuple(vi.values, vi.indices);
    };
  };
  for (bool is_max : {true, false}) {
    const char* nm = is_max ? "max" : "min";
    m.def(nm, maxmin(is_max), nb::arg("input"), nb::arg("dim").none() = nb::none(), nb::arg("keepdim") = false,
          "Over all elements, or (values, indices) along dim.");
    cls.def(nm, maxmin(is_max), nb::arg("dim").none() = nb::none(), nb::arg("keepdim") = false);
  }
  for (bool is_max : {true, false}) {
    auto f = [is_max](const Tensor& t, std::optional<int64_t> dim, bool keepdim) {
      gil_scoped_release rel;
      return is_max ? argmax(t, dim, keepdim) : argmin(t, dim, keepdim);
    };
    const char* nm = is_max ? "argmax" : "argmin";
    const char* doc = "int64 index of the first extreme in row-major order (a NaN beats every number, the first "
                      "NaN wins) over the flattened input, or along dim.";
    m.def(nm, f, nb::arg("input"), nb::arg("dim").none() = nb::none(), nb::arg("keepdim") = false, doc);
    cls.def(nm, f, nb::arg("dim").none() = nb::none(), nb::arg("keepdim") = false, doc);
  }
  for (int which = 0; which < 3; ++which) {
    const char* nm = which == 0 ? "softmax" : which == 1 ? "log_softmax" : "cumsum";
    auto f = [which](const Tensor& t, int64_t dim, nb::handle dtype) {
      auto dt = to_opt_dtype(dtype);
      gil_scoped_release rel;
      return which == 0 ? softmax(t, dim, dt) : which == 1 ? log_softmax(t, dim, dt) : cumsum(t, dim, dt);
    };
    const char* doc = which == 0 ? "exp(x - max) / sum(exp(x - max)) along dim. dtype: the input is converted to it first "
                                   "(PyTorch's dtype=)."
                      : which == 1 ? "x - max - log(sum(exp(x - max))) along dim, without overflow. dtype: convert "
                                     "the input first."
                                   : "Running sum along dim, in the op table's result dtype for the input (PyTorch's) or in dtype.";
    m.def(nm, f, nb::arg("input"), nb::arg("dim"), nb::arg("dtype").none() = nb::none(), doc);
    cls.def(nm, f, nb::arg("dim"), nb::arg("dtype").none() = nb::none(), doc);
  }

  // The matmul family and friends (tensor operands only).
  using TT = Tensor (*)(const Tensor&, const Tensor&);
  struct Two { const char* name; TT f; const char* doc; };
  const Two two[] = {
      {"matmul", &matmul, "torch.matmul's rules: 1-D operands are promoted and the added dim removed, batch dims "
                          "broadcast. Both operands take one dtype (DtypeError otherwise: no implicit promotion)."},
      {"mm", &mm, "[n, k] @ [k, m]; both operands of one dtype."},
      {"bmm", &bmm, "[b, n, k] @ [b, k, m], no broadcasting; both operands of one dtype."},
      {"mv", &mv, "[n, k] @ [k]; both operands of one dtype."},
      {"dot", &dot, "Inner product of two 1-D tensors of one dtype and length (0-dim result)."},
      {"outer", &outer, "[n] x [m] -> [n, m]; both operands of one dtype."}};
  for (const Two& t : two) {
    TT f = t.f;
    auto g = [f](const Tensor& a, const Tensor& b) { gil_scoped_release rel; return f(a, b); };
    m.def(t.name, g, nb::arg("input"), nb::arg("other"), t.doc);
    cls.def(t.name, g, nb::arg("other"), t.doc);
  }
  m.def("where", [](const Tensor& c, nb::handle a, nb::handle b) {
    PyOperand x, y;
    if (!to_operand(a, x) || !to_operand(b, y)) throw nb::type_error("where: operands must be tensors or numbers");
    gil_scoped_release rel;
    return where(c, x.operand(), y.operand());
  }, nb::arg("condition"), nb::arg("input"), nb::arg("other"),
     "input where the bool condition is true, else other; all three broadcast, input and other promote as "
     "PyTorch's (numbers included).");
  // Bounds are Python numbers kept as doubles (Scalar) until clamp knows the dtype.
  auto clamp_fn = [](const Tensor& t, nb::handle lo, nb::handle hi) {
    std::optional<Scalar> l, h;
    if (!lo.is_none()) l = to_scalar(lo);
    if (!hi.is_none()) h = to_scalar(hi);
    gil_scoped_release rel;
    return clamp(t, l, h);
  };
  const char* clamp_doc = "Limits to [min, max]; either bound may be None. A NaN bound gives NaN; integer bounds are "
                          "clipped to the dtype's range (no wraparound); min > max gives max.";
  m.def("clamp", clamp_fn, nb::arg("input"), nb::arg("min").none() = nb::none(), nb::arg("max").none() = nb::none(),
        clamp_doc);
  cls.def("clamp", clamp_fn, nb::arg("min").none() = nb::none(), nb::arg("max").none() = nb::none(), clamp_doc);
  m.def("nonzero", [](const Tensor& x) { gil_scoped_release r; return nonzero(x); },
        "Indices of the nonzero (true) elements, int64 [count, ndim], row-major; reads the values on the host.",
        nb::arg("input"));
  m.def("masked_select", [](const Tensor& x, const Tensor& mask) { gil_scoped_release r; return masked_select(x, mask); },
        "The elements of x where the bool mask is true (broadcast together), 1-D in row-major order.",
        nb::arg("input"), nb::arg("mask"));
  m.def("cat", [](const std::vector<Tensor>& xs, int64_t dim) { gil_scoped_release r; return cat(xs, dim); },
        nb::arg("tensors"), nb::arg("dim") = 0,
        "Joins along dim; sizes must match in the other dims, dtypes promote, 1-D empty tensors are skipped "
        "(PyTorch's legacy rule). All on one device.");
  m.def("stack", [](const std::vector<Tensor>& xs, int64_t dim) { gil_scoped_release r; return stack(xs, dim); },
        nb::arg("tensors"), nb::arg("dim") = 0, "Joins equal shapes along a new dim; dtypes promote.");
}

}  // namespace concord::py
