// PLACEHOLDER: the OpenCL kernels of this family are being written.
#include "backend/opencl/opencl_backend.h"

namespace concord::detail::ocl {
namespace {
[[noreturn]] void pending(OpId op) { throw NotImplementedError("[" + std::string(op_name(op)) + "] opencl kernel pending"); }
}  // namespace
void OpenClBackend::random(OpId op, const Tensor&, uint64_t, uint64_t, int64_t, int64_t) { pending(op); }
}  // namespace concord::detail::ocl
