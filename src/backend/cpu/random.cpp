// PLACEHOLDER: the kernels of this family are being written.
#include "backend/cpu/cpu_backend.h"

namespace concord::detail::cpu {
namespace {
[[noreturn]] void pending(OpId op) { throw NotImplementedError("[" + std::string(op_name(op)) + "] cpu kernel pending"); }
}
void CpuBackend::random(OpId op, const Tensor&, uint64_t, uint64_t, int64_t, int64_t) { pending(op); }
}  // namespace concord::detail::cpu
