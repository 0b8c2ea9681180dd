// PLACEHOLDER: the kernels of this family are being written.
#include "backend/cpu/cpu_backend.h"

namespace concord::detail::cpu {
namespace {
[[noreturn]] void pending(OpId op) { throw NotImplementedError("[" + std::string(op_name(op)) + "] cpu kernel pending"); }
}
void CpuBackend::where(const Tensor&, const Tensor&, const Tensor&, const Tensor&) { pending(OpId::where); }
void CpuBackend::clamp(const Tensor&, std::optional<Scalar>, std::optional<Scalar>, const Tensor&) { pending(OpId::clamp); }

}  // namespace concord::detail::cpu
