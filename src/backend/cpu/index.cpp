// PLACEHOLDER: the kernels of this family are being written.
#include "backend/cpu/cpu_backend.h"

namespace concord::detail::cpu {
namespace {
[[noreturn]] void pending(OpId op) { throw NotImplementedError("[" + std::string(op_name(op)) + "] cpu kernel pending"); }
}
void CpuBackend::index_select(const Tensor&, int64_t, const Tensor&, const Tensor&) { pending(OpId::index_select); }
void CpuBackend::gather(const Tensor&, int64_t, const Tensor&, const Tensor&) { pending(OpId::gather); }
void CpuBackend::tri(OpId op, const Tensor&, int64_t, const Tensor&) { pending(op); }
}  // namespace concord::detail::cpu
