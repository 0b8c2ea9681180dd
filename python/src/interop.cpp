// Zero-copy interop. Export: a CPU tensor's memory goes to NumPy
// (numpy(), __array__) and to DLPack consumers (__dlpack__) without a copy;
// a capsule holding a Tensor keeps the storage alive for as long as the
// consumer needs it. Tensors on other devices are copied to the CPU first.
// Import: from_numpy / from_dlpack wrap the producer's memory with from_blob,
// whose deleter drops the reference that keeps the producer's memory alive.
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include <string>

#include "common.h"

namespace concord::py {
namespace {

using nb::gil_scoped_release;
namespace dl = nb::dlpack;

std::string desc(const Tensor& t) {
  return std::string(name(t.dtype())) + shape_str(t.shape()) + " on " + t.device().str();
}

dl::dtype to_dl(Dtype t) {
  const uint8_t bits = static_cast<uint8_t>(itemsize(t) * 8);
  switch (t) {
    case Dtype::bool_: return {static_cast<uint8_t>(dl::dtype_code::Bool), 8, 1};
    case Dtype::uint8: return {static_cast<uint8_t>(dl::dtype_code::UInt), 8, 1};
    case Dtype::bfloat16: return {static_cast<uint8_t>(dl::dtype_code::Bfloat), 16, 1};
    default:
      return {static_cast<uint8_t>(is_floating(t) ? dl::dtype_code::Float : dl::dtype_code::Int), bits, 1};
  }
}

Dtype from_dl(dl::dtype d, const char* op) {
  const auto code = static_cast<dl::dtype_code>(d.code);
  if (d.lanes == 1) {
    if (code == dl::dtype_code::Bool && d.bits == 8) return bool_;
    if (code == dl::dtype_code::UInt && d.bits == 8) return uint8;
    if (code == dl::dtype_code::Bfloat && d.bits == 16) return bfloat16;
    if (code == dl::dtype_code::Int) {
      switch (d.bits) { case 8: return int8; case 16: return int16; case 32: return int32; case 64: return int64; }
    }
    if (code == dl::dtype_code::Float) {
      switch (d.bits) { case 16: return float16; case 32: return float32; case 64: return float64; }
    }
  }
  const char* kind = code == dl::dtype_code::Complex ? "complex" : code == dl::dtype_code::UInt ? "unsigned" : "other";
  throw DtypeError(std::string("[") + op + "] the array's element type (" + kind + ", " + std::to_string(d.bits) +
                   " bits) has no concord dtype; concord holds bool, uint8, int8..int64, float16, bfloat16, "
                   "float32, float64. Convert it first (e.g. .astype(numpy.float64) or .astype(numpy.int64))");
}

// The CPU tensor whose memory is exported: t itself, or a copy from its device.
Tensor host_tensor(const Tensor& t, const char* op) {
  if (!t.defined()) throw ValueError(std::string("[") + op + "] the tensor is undefined");
  if (t.device().is_cpu()) return t;
  gil_scoped_release r;
  return t.to(kCPU);
}

// A view of t's memory as an nb::ndarray of framework F; the capsule owns a
// Tensor sharing the storage, so the memory outlives every consumer.
template <class... F>
nb::ndarray<F...> view_of(const Tensor& t) {
  auto* keep = new Tensor(t);
  nb::capsule owner(keep, [](void* p) noexcept { delete static_cast<Tensor*>(p); });
  std::vector<size_t> shape(t.shape().begin(), t.shape().end());
  std::vector<int64_t> strides(t.strides().begin(), t.strides().end());
  return nb::ndarray<F...>(t.raw_data(), shape.size(), shape.data(), owner, strides.data(), to_dl(t.dtype()),
                        nb::device::cpu::value, 0);
}

nb::object to_numpy(const Tensor& t) {
  if (t.dtype() == Dtype::bfloat16)
    throw DtypeError("[numpy] " + desc(t) + ": NumPy has no bfloat16 dtype. Convert first, "
                     "t.to(concord.float32).numpy(), or take the raw bits as uint16, "
                     "t.view_bits().numpy().view(numpy.uint16); DLPack (torch.from_dlpack(t)) carries bfloat16");
  Tensor h = host_tensor(t, "numpy");
  return nb::cast(view_of<nb::numpy>(h), nb::rv_policy::reference);
}

// from_numpy / from_dlpack: wrap the producer's memory. The ndarray copy held
// by the deleter keeps the producer alive; it is released under the GIL.
Tensor wrap(nb::ndarray<nb::device::cpu> a, const char* op) {
  const Dtype dt = from_dl(a.dtype(), op);
  Shape shape;
  Strides strides;
  for (size_t d = 0; d < a.ndim(); ++d) {
    shape.push_back(static_cast<int64_t>(a.shape(d)));
    strides.push_back(a.stride(d));
  }
  auto* keep = new nb::ndarray<nb::device::cpu>(a);
  try {
    return from_blob(a.data(), shape, strides, dt, [keep](void*) {
      if (!Py_IsInitialized()) return;   // at exit: the interpreter owns nothing any more
      nb::gil_scoped_acquire g;
      delete keep;
    });
  } catch (...) {
    delete keep;   // from_blob does not call the deleter when it throws
    throw;
  }
}

}  // namespace

void bind_interop(nb::module_& m, nb::class_<Tensor>& cls) {
  cls.def("numpy", &to_numpy,
          "The tensor as a NumPy array. CPU tensors share memory (writes show through both ways, the array keeps "
          "the memory alive); tensors on other devices are copied. bfloat16 raises DtypeError (no NumPy dtype).");
  cls.def("__array__", [](const Tensor& t, nb::handle dtype, nb::handle /*copy*/) {
    nb::object a = to_numpy(t);
    if (!dtype.is_none()) a = a.attr("astype")(dtype);
    return a;
  }, nb::arg("dtype").none() = nb::none(), nb::arg("copy").none() = nb::none());
  cls.def("__dlpack__", [](const Tensor& t, nb::kwargs) {
    Tensor h = host_tensor(t, "__dlpack__");
    // An nb::ndarray without a framework goes to Python as a DLPack capsule.
    return nb::cast(view_of<>(h), nb::rv_policy::reference);
  }, "DLPack export (any dtype, bfloat16 included). CPU tensors are shared; others are copied to the CPU.");
  cls.def("__dlpack_device__", [](const Tensor&) { return nb::make_tuple(1 /* kDLCPU */, 0); });
  cls.def("view_bits", [](const Tensor& t) {
    // The same memory reinterpreted as the signed integer of its width: the
    // raw bits of a float16/bfloat16 tensor (for NumPy, which lacks bfloat16).
    const Dtype as = itemsize(t.dtype()) == 1 ? int8 : itemsize(t.dtype()) == 2 ? int16
                   : itemsize(t.dtype()) == 4 ? int32 : int64;
    return Tensor(t.storage(), t.shape(), t.strides(), t.offset(), as);
  }, "The same memory as the signed integer dtype of the same width (a view).");

  m.def("_wrap_array", [](nb::ndarray<nb::device::cpu> a, const char* op) { return wrap(a, op); },
        nb::arg("array").noconvert(), nb::arg("op"));
  m.def("_copy_array", [](nb::ndarray<nb::device::cpu, nb::c_contig, nb::ro> a) {
    const Dtype dt = from_dl(a.dtype(), "tensor");
    Shape shape;
    for (size_t d = 0; d < a.ndim(); ++d) shape.push_back(static_cast<int64_t>(a.shape(d)));
    gil_scoped_release r;
    return from_host(a.data(), shape, dt);
  }, nb::arg("array").noconvert());
}

}  // namespace concord::py
