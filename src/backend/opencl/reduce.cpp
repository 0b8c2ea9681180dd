// PLACEHOLDER: the OpenCL kernels of this family are being written.
#include "backend/opencl/opencl_backend.h"

namespace concord::detail::ocl {
namespace {
[[noreturn]] void pending(OpId op) { throw NotImplementedError("[" + std::string(op_name(op)) + "] opencl kernel pending"); }
}  // namespace
void OpenClBackend::reduce(OpId op, const Tensor&, const Dims&, const Tensor&, const ReduceArgs&) { pending(op); }
void OpenClBackend::arg_reduce(OpId op, const Tensor&, int64_t, const Tensor&) { pending(op); }
void OpenClBackend::scan_op(OpId op, const Tensor&, int64_t, const Tensor&) { pending(op); }
}  // namespace concord::detail::ocl
