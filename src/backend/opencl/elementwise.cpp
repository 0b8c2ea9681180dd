// PLACEHOLDER: the OpenCL kernels of this family are being written.
#include "backend/opencl/opencl_backend.h"

namespace concord::detail::ocl {
namespace {
[[noreturn]] void pending(OpId op) { throw NotImplementedError("[" + std::string(op_name(op)) + "] opencl kernel pending"); }
}  // namespace
void OpenClBackend::copy(const Tensor&, const Tensor&) { pending(OpId::copy); }
void OpenClBackend::fill(const Tensor&, Scalar) { pending(OpId::fill); }
void OpenClBackend::iota(const Tensor&, double, double) { pending(OpId::arange); }
void OpenClBackend::unary(OpId op, const Tensor&, const Tensor&) { pending(op); }
void OpenClBackend::binary(OpId op, const Tensor&, const Tensor&, const Tensor&) { pending(op); }
void OpenClBackend::where(const Tensor&, const Tensor&, const Tensor&, const Tensor&) { pending(OpId::where); }
void OpenClBackend::clamp(const Tensor&, std::optional<Scalar>, std::optional<Scalar>, const Tensor&) { pending(OpId::clamp); }
}  // namespace concord::detail::ocl
namespace concord::detail::ocl {
Geom geom(const Tensor&) { return {}; }
Geom geom_as(const Tensor&, const Shape&) { return {}; }
const char* cl_type(Dtype) { return ""; }
}  // namespace concord::detail::ocl
