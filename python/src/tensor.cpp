// concord.Tensor: properties, printing, conversions to Python numbers and
// lists, device and dtype moves, and the creation functions. Every call that
// computes releases the GIL while the library runs.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "common.h"

namespace concord::py {
namespace {

using nb::gil_scoped_release;

Shape to_shape(nb::handle h) {
  Shape s;
  if (PyLong_Check(h.ptr())) {
    s.push_back(nb::cast<int64_t>(h));
    return s;
  }
  for (nb::handle x : h) s.push_back(nb::cast<int64_t>(x));
  return s;
}

nb::tuple shape_tuple(const Shape& s) {
  nb::list l;
  for (int64_t d : s) l.append(d);
  return nb::tuple(l);
}

// One element as the Python number of its category (PyTorch's item()).
nb::object item_of(const Tensor& t) {
  if (t.dtype() == Dtype::bool_) return nb::bool_(t.item<bool>());
  if (is_floating(t.dtype())) return nb::float_(t.item<double>());
  return nb::int_(t.item<int64_t>());
}

template <class T, class Make>
nb::object nest(const std::vector<T>& flat, const Shape& shape, size_t dim, size_t& pos, Make make) {
  if (dim == shape.size()) return make(flat[pos++]);
  nb::list l;
  for (int64_t i = 0; i < shape[dim]; ++i) l.append(nest(flat, shape, dim + 1, pos, make));
  return l;
}

nb::object tolist(const Tensor& t) {
  size_t pos = 0;
  if (t.dtype() == Dtype::bool_) {
    std::vector<bool> v;
    { gil_scoped_release r; v = t.to_vector<bool>(); }
    return nest(v, t.shape(), 0, pos, [](bool x) { return nb::object(nb::bool_(x)); });
  }
  if (is_floating(t.dtype())) {
    std::vector<double> v;
    { gil_scoped_release r; v = t.to_vector<double>(); }
    return nest(v, t.shape(), 0, pos, [](double x) { return nb::object(nb::float_(x)); });
  }
  std::vector<int64_t> v;
  { gil_scoped_release r; v = t.to_vector<int64_t>(); }
  return nest(v, t.shape(), 0, pos, [](int64_t x) { return nb::object(nb::int_(x)); });
}

// .to(x): a dtype, a device, or a string naming either ("float16", "emu:0").
bool names_device(nb::handle h) {
  if (nb::isinstance<Device>(h)) return true;
  if (!nb::isinstance<nb::str>(h)) return !nb::isinstance<Dtype>(h) && nb::hasattr(h, "type") && nb::hasattr(h, "index");
  const std::string s = nb::cast<std::string>(h);
  if (s.find(':') != std::string::npos) return true;   // "kind:index" (Device parses and checks it)
  const std::string kind = s.substr(0, s.find(':'));
  for (const DeviceKind& k : device_kinds())
    if (k.name() == kind) return true;
  return false;
}

Tensor to_any(const Tensor& t, nb::handle a, nb::handle dtype) {
  std::optional<Device> dev;
  std::optional<Dtype> dt = to_opt_dtype(dtype);
  if (!a.is_none()) {
    if (names_device(a)) dev = to_device(a);
    else dt = to_dtype(a);
  }
  gil_scoped_release r;
  if (dev && dt) return t.to(*dev, *dt);
  if (dev) return t.to(*dev);
  if (dt) return t.to(*dt);
  return t;
}

Device opt_device(nb::handle h) { return h.is_none() ? kCPU : to_device(h); }
Dtype opt_float(nb::handle h) { return h.is_none() ? float32 : to_dtype(h); }
std::optional<uint64_t> opt_seed(nb::handle h) {
  if (h.is_none()) return std::nullopt;
  return nb::cast<uint64_t>(h);
}

}  // namespace

void bind_tensor(nb::module_& m) {
  auto cls = nb::class_<Tensor>(m, "Tensor",
      "A concord tensor: shared storage with a shape, strides, a dtype and a device. Indexing gives views; "
      "the operators follow PyTorch 1.13's promotion. Create one with concord.tensor, zeros, arange, ...");
  cls.def_prop_ro("shape", [](const Tensor& t) { return shape_tuple(t.shape()); })
      .def("size", [](const Tensor& t, std::optional<int64_t> d) -> nb::object {
        if (d) return nb::int_(t.size(*d));
        return shape_tuple(t.shape());
      }, nb::arg("dim") = nb::none())
      .def_prop_ro("dtype", &Tensor::dtype)
      .def_prop_ro("device", &Tensor::device)
      .def_prop_ro("ndim", &Tensor::ndim)
      .def("dim", &Tensor::ndim)
      .def("numel", &Tensor::numel)
      .def_prop_ro("nbytes", &Tensor::nbytes)
      .def_prop_ro("itemsize", [](const Tensor& t) { return itemsize(t.dtype()); })
      .def("stride", [](const Tensor& t) { return shape_tuple(t.strides()); }, "Strides in elements.")
      .def("storage_offset", &Tensor::offset)
      .def("is_contiguous", &Tensor::is_contiguous)
      .def("__len__", [](const Tensor& t) {
        if (t.ndim() == 0) throw nb::type_error("len() of a 0-d tensor");
        return t.size(0);
      })
      .def("__repr__", [](const Tensor& t) { gil_scoped_release r; return t.str(); })
      .def("item", &item_of, "The one element as a Python bool, int or float (ShapeError unless numel() == 1).")
      .def("tolist", &tolist, "All elements as nested Python lists (a number for a 0-d tensor).")
      .def("__float__", [](const Tensor& t) { return t.item<double>(); })
      .def("__int__", [](const Tensor& t) { return t.item<int64_t>(); })
      .def("__bool__", [](const Tensor& t) { return t.item<bool>(); })
      .def("to", &to_any, nb::arg("device_or_dtype").none() = nb::none(), nb::arg("dtype").none() = nb::none(),
           "t.to(concord.float64), t.to('emu:0'), t.to('emu:0', concord.float16): a moved or converted copy "
           "(self when nothing changes). Moves follow the dtype policy of the target device.")
      .def("cpu", [](const Tensor& t) { gil_scoped_release r; return t.to(kCPU); })
      .def("contiguous", [](const Tensor& t) { gil_scoped_release r; return t.contiguous(); })
      .def("clone", [](const Tensor& t) { gil_scoped_release r; return t.clone(); })
      .def("copy_", [](Tensor& t, const Tensor& src) -> Tensor& { gil_scoped_release r; return t.copy_(src); },
           nb::rv_policy::reference_internal)
      .def("fill_", [](Tensor& t, nb::handle v) -> Tensor& {
        Scalar s = to_scalar(v);
        gil_scoped_release r;
        return t.fill_(s);
      }, nb::rv_policy::reference_internal)
      .def("zero_", [](Tensor& t) -> Tensor& { gil_scoped_release r; return t.zero_(); }, nb::rv_policy::reference_internal);

  m.def("_zeros", [](nb::handle shape, nb::handle dtype, nb::handle device) {
    Shape s = to_shape(shape); Dtype d = opt_float(dtype); Device dev = opt_device(device);
    gil_scoped_release r;
    return zeros(s, d, dev);
  }, nb::arg("shape"), nb::arg("dtype").none(), nb::arg("device").none());
  m.def("_ones", [](nb::handle shape, nb::handle dtype, nb::handle device) {
    Shape s = to_shape(shape); Dtype d = opt_float(dtype); Device dev = opt_device(device);
    gil_scoped_release r;
    return ones(s, d, dev);
  }, nb::arg("shape"), nb::arg("dtype").none(), nb::arg("device").none());
  m.def("_full", [](nb::handle shape, nb::handle value, nb::handle dtype, nb::handle device) {
    Shape s = to_shape(shape); Scalar v = to_scalar(value); Device dev = opt_device(device);
    // No dtype: PyTorch infers it from the value (bool, int64, float32).
    Dtype d = !dtype.is_none() ? to_dtype(dtype) : v.is_bool() ? bool_ : v.is_integer() ? int64 : float32;
    gil_scoped_release r;
    return full(s, v, d, dev);
  }, nb::arg("shape"), nb::arg("value"), nb::arg("dtype").none(), nb::arg("device").none());
  m.def("_arange", [](nb::handle start, nb::handle end, nb::handle step, nb::handle dtype, nb::handle device) {
    Scalar a = to_scalar(start), b = to_scalar(end), c = to_scalar(step);
    auto d = to_opt_dtype(dtype); Device dev = opt_device(device);
    gil_scoped_release r;
    return arange(a, b, c, d, dev);
  }, nb::arg("start"), nb::arg("end"), nb::arg("step"), nb::arg("dtype").none(), nb::arg("device").none());
  m.def("_linspace", [](double a, double b, int64_t n, nb::handle dtype, nb::handle device) {
    Dtype d = opt_float(dtype); Device dev = opt_device(device);
    gil_scoped_release r;
    return linspace(a, b, n, d, dev);
  }, nb::arg("start"), nb::arg("end"), nb::arg("steps"), nb::arg("dtype").none(), nb::arg("device").none());
  m.def("_eye", [](int64_t n, std::optional<int64_t> mm, nb::handle dtype, nb::handle device) {
    Dtype d = opt_float(dtype); Device dev = opt_device(device);
    gil_scoped_release r;
    return eye(n, mm, d, dev);
  }, nb::arg("n"), nb::arg("m").none(), nb::arg("dtype").none(), nb::arg("device").none());
  m.def("_rand", [](nb::handle shape, nb::handle dtype, nb::handle device, nb::handle seed) {
    Shape s = to_shape(shape); Dtype d = opt_float(dtype); Device dev = opt_device(device); auto sd = opt_seed(seed);
    gil_scoped_release r;
    return rand(s, d, dev, sd);
  }, nb::arg("shape"), nb::arg("dtype").none(), nb::arg("device").none(), nb::arg("seed").none());
  m.def("_randn", [](nb::handle shape, nb::handle dtype, nb::handle device, nb::handle seed) {
    Shape s = to_shape(shape); Dtype d = opt_float(dtype); Device dev = opt_device(device); auto sd = opt_seed(seed);
    gil_scoped_release r;
    return randn(s, d, dev, sd);
  }, nb::arg("shape"), nb::arg("dtype").none(), nb::arg("device").none(), nb::arg("seed").none());
  m.def("manual_seed", [](uint64_t s) { manual_seed(s); }, "Seeds the generator that rand/randn use without a seed.");

  bind_tensor_ops(m, cls);
  bind_indexing(cls);
  bind_interop(m, cls);
}

}  // namespace concord::py
