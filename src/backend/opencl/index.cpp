// PLACEHOLDER: the OpenCL kernels of this family are being written.
#include "backend/opencl/opencl_backend.h"

namespace concord::detail::ocl {
namespace {
[[noreturn]] void pending(OpId op) { throw NotImplementedError("[" + std::string(op_name(op)) + "] opencl kernel pending"); }
}  // namespace
void OpenClBackend::index_select(const Tensor&, int64_t, const Tensor&, const Tensor&) { pending(OpId::index_select); }
void OpenClBackend::gather(const Tensor&, int64_t, const Tensor&, const Tensor&) { pending(OpId::gather); }
void OpenClBackend::tri(OpId op, const Tensor&, int64_t, const Tensor&) { pending(op); }
}  // namespace concord::detail::ocl
