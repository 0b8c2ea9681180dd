// The exception classes: concord.Error and one subclass per C++ error type,
// each also deriving from the matching Python built-in so that code catching
// TypeError or ValueError keeps working. The C++ message passes unchanged.
#include <Python.h>

#include "common.h"

namespace concord::py {
namespace {

PyObject* g_error = nullptr;
PyObject* g_dtype = nullptr;
PyObject* g_unsupported = nullptr;
PyObject* g_shape = nullptr;
PyObject* g_notimpl = nullptr;
PyObject* g_device = nullptr;
PyObject* g_oom = nullptr;
PyObject* g_linalg = nullptr;
PyObject* g_value = nullptr;
PyObject* g_file = nullptr;
PyObject* g_assert = nullptr;
PyObject* g_notcomp = nullptr;

PyObject* make(nb::module_& m, const char* name, PyObject* base, PyObject* builtin, const char* doc) {
  PyObject* bases = builtin ? PyTuple_Pack(2, base, builtin) : PyTuple_Pack(1, base);
  const std::string full = std::string("concord.") + name;
  PyObject* cls = PyErr_NewExceptionWithDoc(full.c_str(), doc, bases, nullptr);
  Py_DECREF(bases);
  if (!cls) throw nb::python_error();
  m.attr(name) = nb::handle(cls);
  return cls;
}

}  // namespace

void bind_errors(nb::module_& m) {
  g_error = make(m, "Error", PyExc_Exception, nullptr, "The base of every error concord raises.");
  g_dtype = make(m, "DtypeError", g_error, PyExc_TypeError, "A dtype the op does not define.");
  g_unsupported = make(m, "UnsupportedDtypeError", g_dtype, nullptr,
                       "The device cannot hold or compute a dtype and the dtype policy is strict.");
  g_shape = make(m, "ShapeError", g_error, PyExc_ValueError, "Shapes that do not fit together, bad dims.");
  g_notimpl = make(m, "NotImplementedError", g_error, PyExc_NotImplementedError,
                   "The device has no kernel for the op and the fallback policy is strict.");
  g_device = make(m, "DeviceError", g_error, PyExc_RuntimeError, "Device not found, driver failure, bad device string.");
  g_oom = make(m, "OutOfMemoryError", g_error, PyExc_MemoryError, "An allocation failed.");
  g_linalg = make(m, "LinAlgError", g_error, PyExc_ValueError, "A singular or not positive-definite matrix.");
  g_value = make(m, "ValueError", g_error, PyExc_ValueError, "A bad argument value that is not a shape or dtype.");
  g_file = make(m, "FileError", g_error, PyExc_OSError, "A file that cannot be read or written.");
  g_notcomp = make(m, "NotComputableError", g_error, PyExc_ValueError,
                   "A metric's compute() before any sample was seen.");
  g_assert = make(m, "AssertionError", g_error, PyExc_AssertionError,
                  "concord.testing.assert_close: the tensors are not close (the message says where and by how much).");

  // Most derived first: the C++ classes are siblings under concord::Error.
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const UnsupportedDtypeError& e) { PyErr_SetString(g_unsupported, e.what());
    } catch (const DtypeError& e) { PyErr_SetString(g_dtype, e.what());
    } catch (const ShapeError& e) { PyErr_SetString(g_shape, e.what());
    } catch (const NotImplementedError& e) { PyErr_SetString(g_notimpl, e.what());
    } catch (const DeviceError& e) { PyErr_SetString(g_device, e.what());
    } catch (const OutOfMemoryError& e) { PyErr_SetString(g_oom, e.what());
    } catch (const LinAlgError& e) { PyErr_SetString(g_linalg, e.what());
    } catch (const ValueError& e) { PyErr_SetString(g_value, e.what());
    } catch (const FileError& e) { PyErr_SetString(g_file, e.what());
    } catch (const metrics::NotComputableError& e) { PyErr_SetString(g_notcomp, e.what());
    } catch (const testing::AssertionError& e) { PyErr_SetString(g_assert, e.what());
    } catch (const Error& e) { PyErr_SetString(g_error, e.what());
    }
  });
}

}  // namespace concord::py
