// Python objects -> the library's argument types (dtypes, devices, dims,
// operands), and the dtype and device classes. Names are parsed by the
// library (parse_dtype, Device(string)), so the messages are its own.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>

#include "common.h"

namespace concord::py {

Dtype to_dtype(nb::handle h) {
  if (nb::isinstance<Dtype>(h)) return nb::cast<Dtype>(h);
  std::string s;
  if (nb::isinstance<nb::str>(h)) {
    s = nb::cast<std::string>(h);
  } else if (nb::hasattr(h, "__name__") && nb::hasattr(h, "dtype")) {  // numpy.float32, the scalar type
    s = nb::cast<std::string>(h.attr("__name__"));
  } else {  // a numpy.dtype ("float32") or a torch.dtype ("torch.float32")
    s = nb::cast<std::string>(nb::str(h));
    if (s.rfind("torch.", 0) == 0) s = s.substr(6);
  }
  if (s == "bool_") s = "bool";
  return parse_dtype(s);
}

std::optional<Dtype> to_opt_dtype(nb::handle h) {
  if (h.is_none()) return std::nullopt;
  return to_dtype(h);
}

Device to_device(nb::handle h) {
  if (nb::isinstance<Device>(h)) return nb::cast<Device>(h);
  if (nb::isinstance<nb::str>(h)) return Device(nb::cast<std::string>(h));
  // A torch.device or anything else that prints as "type:index".
  return Device(nb::cast<std::string>(nb::str(h)));
}

Dims to_dims(nb::handle h) {
  Dims d;
  if (h.is_none()) return d;
  if (PyLong_Check(h.ptr())) {
    d.push_back(nb::cast<int64_t>(h));
    return d;
  }
  for (nb::handle x : h) d.push_back(nb::cast<int64_t>(x));
  return d;
}

Scalar to_scalar(nb::handle h) {
  if (PyBool_Check(h.ptr())) return Scalar(h.ptr() == Py_True);
  if (PyLong_Check(h.ptr())) return Scalar(nb::cast<int64_t>(h));
  if (PyFloat_Check(h.ptr())) return Scalar(PyFloat_AsDouble(h.ptr()));
  throw nb::type_error(("expected a bool, int or float, got " +
                        nb::cast<std::string>(nb::str(nb::handle((PyObject*)Py_TYPE(h.ptr())))))
                           .c_str());
}

bool to_operand(nb::handle h, PyOperand& out) {
  if (nb::isinstance<Tensor>(h)) {
    out.tensor = nb::cast<Tensor>(h);
    out.is_tensor = true;
    return true;
  }
  if (PyBool_Check(h.ptr()) || PyLong_Check(h.ptr()) || PyFloat_Check(h.ptr())) {
    out.scalar = to_scalar(h);
    return true;
  }
  return false;
}

void bind_dtypes_devices(nb::module_& m) {
  auto dt = nb::enum_<Dtype>(m, "dtype", "A tensor's element type (concord.float32, ...).");
  for (Dtype t : kAllDtypes) dt.value(std::string(name(t)).c_str(), t);
  dt.def_prop_ro("itemsize", [](Dtype t) { return itemsize(t); })
      .def_prop_ro("is_floating_point", [](Dtype t) { return is_floating(t); })
      .def("__str__", [](Dtype t) { return "concord." + std::string(name(t)); })
      .def("__repr__", [](Dtype t) { return "concord." + std::string(name(t)); });
  m.def("promote_types", [](nb::handle a, nb::handle b) { return promote_types(to_dtype(a), to_dtype(b)); },
        "The dtype two tensor dtypes promote to (PyTorch's table).");

  nb::class_<Device>(m, "device", "A device: 'cpu', 'emu:0', 'opencl:0', 'vulkan:0'.")
      .def("__init__", [](Device* d, const std::string& s) { new (d) Device(s); })
      .def("__init__", [](Device* d, const std::string& kind, int index) { new (d) Device(DeviceKind(kind), index); })
      .def_prop_ro("type", [](const Device& d) { return std::string(d.kind().name()); })
      .def_prop_ro("index", &Device::index)
      .def("__str__", &Device::str)
      .def("__repr__", [](const Device& d) { return "device('" + d.str() + "')"; })
      .def("__eq__", [](const Device& a, nb::handle b) {
        try { return a == to_device(b); } catch (const Error&) { return false; }
      })
      .def("__hash__", [](const Device& d) { return nb::hash(nb::str(d.str().c_str())); });
  nb::implicitly_convertible<nb::str, Device>();

  m.def("devices", [] {
    nb::list out;
    for (const Device& d : devices()) {
      const Capabilities& c = capabilities(d);
      nb::dict info;
      info["device"] = d;
      info["name"] = d.str();
      info["description"] = c.description;
      info["profile"] = profile(d).str();
      info["memory"] = memory_space(d) == MemorySpace::host ? "host" : "device";
      nb::list storable, computable;
      for (Dtype t : kAllDtypes) {
        if (c.can_store(t)) storable.append(t);
        if (c.can_compute(t)) computable.append(t);
      }
      info["storable"] = storable;
      info["computable"] = computable;
      info["rounds_to_nearest"] = c.rounds_to_nearest;
      info["keeps_subnormals"] = c.keeps_subnormals;
      info["details"] = c.details;
      out.append(info);
    }
    return out;
  }, "The available devices, each a dict: device, name, description, profile, memory ('host' or 'device'), "
     "storable and computable dtypes (after the profile), rounds_to_nearest, keeps_subnormals, details.");
  m.def("is_available", [](nb::handle d) { return is_available(to_device(d)); });
  m.def("synchronize", [](nb::handle d) { synchronize(to_device(d)); });
}

}  // namespace concord::py
