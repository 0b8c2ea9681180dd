// PLACEHOLDER: the OpenCL kernels of this family are being written.
#include "backend/opencl/opencl_backend.h"

namespace concord::detail::ocl {
namespace {
[[noreturn]] void pending(OpId op) { throw NotImplementedError("[" + std::string(op_name(op)) + "] opencl kernel pending"); }
}  // namespace
void OpenClBackend::matmul(const Tensor&, const Tensor&, const Tensor&) { pending(OpId::matmul); }
}  // namespace concord::detail::ocl
