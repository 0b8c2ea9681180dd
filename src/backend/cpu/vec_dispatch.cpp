// Picks the vectorised kernels (vec_math.h) for this CPU, once.
#include <cpuid.h>

#include <cstdlib>
#include <cstring>
#include <initializer_list>

#include "backend/cpu/vec_math.h"

namespace concord::detail::cpu::vec {

namespace {
// F16C from CPUID: clang 14 rejects __builtin_cpu_supports("f16c").
bool has_f16c() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C) != 0;
}

bool cpu_has(Isa isa) {
  switch (isa) {
    case Isa::generic: return true;
    case Isa::avx2: return __builtin_cpu_supports("avx2") && has_f16c();
    case Isa::avx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
             __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") && has_f16c();
  }
  return false;
}

const Kernels* pick() {
  // CONCORD_CPU_ISA pins an ISA (when the CPU has it); results are the same on every ISA.
  if (const char* e = std::getenv("CONCORD_CPU_ISA")) {
    for (const Kernels* k : {&kGenericKernels, &kAvx2Kernels, &kAvx512Kernels})
      if (std::strcmp(e, k->name) == 0 && cpu_has(k->isa)) return k;
  }
  if (cpu_has(Isa::avx512)) return &kAvx512Kernels;
  if (cpu_has(Isa::avx2)) return &kAvx2Kernels;
  return &kGenericKernels;
}
}  // namespace

const Kernels& kernels() {
  static const Kernels* k = pick();
  return *k;
}

const Kernels* kernels_for(Isa isa) {
  if (!cpu_has(isa)) return nullptr;
  switch (isa) {
    case Isa::generic: return &kGenericKernels;
    case Isa::avx2: return &kAvx2Kernels;
    case Isa::avx512: return &kAvx512Kernels;
  }
  return nullptr;
}

}  // namespace concord::detail::cpu::vec
