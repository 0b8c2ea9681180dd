// Picks the vectorised kernels (vec_math.h) of the level core/cpu_isa.h chose, once.
#include "backend/cpu/vec_math.h"

namespace concord::detail::cpu::vec {

const Kernels& kernels() {
  static const Kernels* k = kernels_for(cpu_isa());
  return *k;
}

const Kernels* kernels_for(Isa isa) {
  if (isa > cpu_isa_available()) return nullptr;
  switch (isa) {
    case Isa::baseline: return &kGenericKernels;
#if defined(__x86_64__)  // the wider tables are built only for x86-64 (CMakeLists.txt)
    case Isa::avx2: return &kAvx2Kernels;
    case Isa::avx512: return &kAvx512Kernels;
#else
    default: return nullptr;
#endif
  }
  return nullptr;
}

}  // namespace concord::detail::cpu::vec
