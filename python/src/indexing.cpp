// Indexing and the view methods. t[key] turns the Python key (int, slice,
// None, Ellipsis, or a tuple of them) into the library's index terms; the
// result is a view (Tensor::index). A 1-D integer tensor key gathers along
// dim 0 (index_select, a copy). A bool tensor key over the leading dims
// selects as PyTorch does (nonzero + index_select, a copy: [count, rest...]).
// t[key] = value writes through index_put_ (masked_fill_ for a bool key).
#include <nanobind/stl/optional.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <vector>

#include "common.h"

namespace concord::py {
namespace {

using indexing::TensorIndex;
using nb::gil_scoped_release;

std::optional<int64_t> slice_part(PyObject* o) {
  if (o == Py_None) return std::nullopt;
  return nb::cast<int64_t>(nb::handle(o));
}

TensorIndex term(nb::handle h) {
  if (h.is_none()) return indexing::None;
  if (h.ptr() == Py_Ellipsis) return indexing::Ellipsis;
  if (PySlice_Check(h.ptr())) {
    auto* s = reinterpret_cast<PySliceObject*>(h.ptr());
    return indexing::Slice(slice_part(s->start), slice_part(s->stop), slice_part(s->step));
  }
  if (PyLong_Check(h.ptr()) && !PyBool_Check(h.ptr())) return nb::cast<int64_t>(h);
  if (PyIndex_Check(h.ptr()) && !PyBool_Check(h.ptr()))   // numpy integers
    return nb::cast<int64_t>(nb::int_(h));
  throw nb::type_error(("[index] unsupported index term " + nb::cast<std::string>(nb::repr(h)) +
                        "; use ints, slices (positive step), None, Ellipsis, or a 1-D int64 tensor alone")
                           .c_str());
}

std::vector<TensorIndex> terms(nb::handle key) {
  std::vector<TensorIndex> out;
  if (PyTuple_Check(key.ptr())) {
    for (nb::handle h : key) out.push_back(term(h));
  } else {
    out.push_back(term(key));
  }
  return out;
}

// The mask over t's leading dims, as PyTorch takes it: its shape must equal
// the first mask.ndim() sizes of t.
void check_mask(const Tensor& t, const Tensor& mask) {
  const Shape& ms = mask.shape();
  const bool ok = mask.ndim() <= t.ndim() && std::equal(ms.begin(), ms.end(), t.shape().begin());
  if (!ok)
    throw ShapeError("[index] the bool mask of shape " + shape_str(ms) + " does not match the leading dims of the tensor " +
                     shape_str(t.shape()) + " on " + t.device().str() +
                     "; a mask indexes the first dims it covers, with their exact sizes");
}

// t[mask]: [count, t.shape[mask.ndim():]...], the selected rows in row-major order.
Tensor mask_select_rows(const Tensor& t, const Tensor& mask) {
  check_mask(t, mask);
  Shape rows{mask.numel()};
  for (int64_t d = mask.ndim(); d < t.ndim(); ++d) rows.push_back(t.size(d));
  const Tensor pos = nonzero(mask.reshape({-1})).reshape({-1});
  return index_select(t.reshape(rows), 0, pos);
}

// The mask with trailing size-1 dims, so that it broadcasts over t's other dims.
Tensor mask_for_fill(const Tensor& t, const Tensor& mask) {
  check_mask(t, mask);
  Shape s = mask.shape();
  s.resize(static_cast<size_t>(t.ndim()), 1);
  return mask.reshape(s);
}

bool is_mask(nb::handle key) { return nb::isinstance<Tensor>(key) && nb::cast<const Tensor&>(key).dtype() == bool_; }

Shape to_shape_args(nb::args args) {
  Shape s;
  if (args.size() == 1 && !PyLong_Check(args[0].ptr())) {
    for (nb::handle x : args[0]) s.push_back(nb::cast<int64_t>(x));
  } else {
    for (nb::handle x : args) s.push_back(nb::cast<int64_t>(x));
  }
  return s;
}

}  // namespace

void bind_indexing(nb::class_<Tensor>& cls) {
  cls.def("__getitem__", [](const Tensor& t, nb::handle key) {
    if (is_mask(key)) {
      const Tensor& mask = nb::cast<const Tensor&>(key);
      gil_scoped_release r;
      return mask_select_rows(t, mask);
    }
    if (nb::isinstance<Tensor>(key)) {
      const Tensor& idx = nb::cast<const Tensor&>(key);
      gil_scoped_release r;
      return index_select(t, 0, idx);
    }
    std::vector<TensorIndex> k = terms(key);
    gil_scoped_release r;
    return t.index(k);
  });
  cls.def("__setitem__", [](Tensor& t, nb::handle key, nb::handle value) {
    if (is_mask(key)) {
      const Tensor& mask = nb::cast<const Tensor&>(key);
      if (nb::isinstance<Tensor>(value)) {
        const Tensor& v = nb::cast<const Tensor&>(value);
        gil_scoped_release r;
        t.masked_fill_(mask_for_fill(t, mask), v);   // a 0-dim value (masked_fill_ says so otherwise)
      } else {
        Scalar s = to_scalar(value);
        gil_scoped_release r;
        t.masked_fill_(mask_for_fill(t, mask), s);
      }
      return;
    }
    std::vector<TensorIndex> k = terms(key);
    if (nb::isinstance<Tensor>(value)) {
      const Tensor& v = nb::cast<const Tensor&>(value);
      gil_scoped_release r;
      t.index_put_(k, v);
    } else {
      Scalar s = to_scalar(value);
      gil_scoped_release r;
      t.index_put_(k, s);
    }
  });

  cls.def("reshape", [](const Tensor& t, nb::args a) { Shape s = to_shape_args(a); gil_scoped_release r; return t.reshape(s); },
          "A view when the strides allow, else a copy; one size may be -1.")
      .def("view", [](const Tensor& t, nb::args a) { Shape s = to_shape_args(a); gil_scoped_release r; return t.view(s); },
           "A view (ShapeError when the strides do not allow one).")
      .def("permute", [](const Tensor& t, nb::args a) { Shape s = to_shape_args(a); gil_scoped_release r; return t.permute(s); })
      .def("expand", [](const Tensor& t, nb::args a) { Shape s = to_shape_args(a); gil_scoped_release r; return t.expand(s); })
      .def("transpose", [](const Tensor& t, int64_t a, int64_t b) { return t.transpose(a, b); })
      .def("t", [](const Tensor& t) { return t.t(); })
      .def_prop_ro("T", [](const Tensor& t) {
        Shape dims;
        for (int64_t d = t.ndim() - 1; d >= 0; --d) dims.push_back(d);
        return t.permute(dims);
      })
      .def("flatten", [](const Tensor& t, int64_t a, int64_t b) { return t.flatten(a, b); },
           nb::arg("start_dim") = 0, nb::arg("end_dim") = -1)
      .def("squeeze", [](const Tensor& t, std::optional<int64_t> d) { return d ? t.squeeze(*d) : t.squeeze(); },
           nb::arg("dim") = nb::none())
      .def("unsqueeze", [](const Tensor& t, int64_t d) { return t.unsqueeze(d); })
      .def("narrow", [](const Tensor& t, int64_t d, int64_t s, int64_t n) { return t.narrow(d, s, n); })
      .def("select", [](const Tensor& t, int64_t d, int64_t i) { return t.select(d, i); })
      .def("flip", [](const Tensor& t, nb::args a) { Shape s = to_shape_args(a); gil_scoped_release r; return t.flip(Dims(s.begin(), s.end())); });
}

}  // namespace concord::py
