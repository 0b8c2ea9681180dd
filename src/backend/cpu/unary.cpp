// PLACEHOLDER: the kernels of this family are being written.
#include "backend/cpu/cpu_backend.h"

namespace concord::detail::cpu {
namespace {
[[noreturn]] void pending(OpId op) { throw NotImplementedError("[" + std::string(op_name(op)) + "] cpu kernel pending"); }
}
void CpuBackend::unary(OpId op, const Tensor&, const Tensor&) { pending(op); }
}  // namespace concord::detail::cpu
