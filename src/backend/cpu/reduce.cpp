// PLACEHOLDER: the kernels of this family are being written.
#include "backend/cpu/cpu_backend.h"

namespace concord::detail::cpu {
namespace {
[[noreturn]] void pending(OpId op) { throw NotImplementedError("[" + std::string(op_name(op)) + "] cpu kernel pending"); }
}
void CpuBackend::reduce(OpId op, const Tensor&, const Dims&, const Tensor&, const ReduceArgs&) { pending(op); }
void CpuBackend::arg_reduce(OpId op, const Tensor&, int64_t, const Tensor&) { pending(op); }
}  // namespace concord::detail::cpu
