// The pieces the binding files share: argument conversion from Python objects
// (dtypes, devices, dims, scalar-or-tensor operands) and the part registrars.
// Conversion only: every decision (promotion, checks, messages) is the library's.
#pragma once

#include <nanobind/nanobind.h>

#include <optional>
#include <vector>

#include "concord/concord.h"

namespace concord::py {

namespace nb = nanobind;

// A dtype from concord.dtype, a string ("float32", "f16"), a NumPy dtype or
// scalar type, or a torch dtype (by name). DtypeError for anything else.
Dtype to_dtype(nb::handle h);
std::optional<Dtype> to_opt_dtype(nb::handle h);   // None -> nullopt
// A device from concord.device or a string ("cpu", "emu:0").
Device to_device(nb::handle h);
// A dim argument: None (all dims), an int, or a sequence of ints.
Dims to_dims(nb::handle h);

// An elementwise operand: a concord Tensor or a Python bool/int/float.
// Returns false (and leaves `out` empty) for anything else, so the operator
// can return NotImplemented.
struct PyOperand {
  Tensor tensor;
  Scalar scalar;
  bool is_tensor = false;
  Operand operand() const { return is_tensor ? Operand(tensor) : Operand(scalar); }
};
bool to_operand(nb::handle h, PyOperand& out);
Scalar to_scalar(nb::handle h);   // TypeError unless bool, int or float

// Registrars, one per binding file.
void bind_errors(nb::module_& m);
void bind_dtypes_devices(nb::module_& m);
void bind_tensor(nb::module_& m);
void bind_tensor_ops(nb::module_& m, nb::class_<Tensor>& cls);
void bind_indexing(nb::class_<Tensor>& cls);
void bind_interop(nb::module_& m, nb::class_<Tensor>& cls);
void bind_policies(nb::module_& m);
void bind_extras(nb::module_& m);   // linalg, nn, testing
void bind_metrics(nb::module_& m);

}  // namespace concord::py
