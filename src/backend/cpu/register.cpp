// The cpu backend's registration: one device, host memory, every op.
#include "backend/cpu/cpu_backend.h"
#include "core/cpu_isa.h"
#include "core/registry.h"

namespace concord::detail {

namespace cpu {
Capabilities host_capabilities(const char* description) {
  Capabilities c;
  c.storable = DtypeSet::all();
  c.computable = DtypeSet::all();
  c.computable.remove(float16).remove(bfloat16);
  for (int i = 0; i < kNumOps; ++i) c.native[i] = c.reproducible[i] = op_dtypes(static_cast<OpId>(i));
  c.description = description;
  return c;
}
}  // namespace cpu

const BackendDef& cpu_backend_def() {
  static const BackendDef def{
      .name = "cpu",
      .memory = MemorySpace::host,
      .count = [] { return size_t{1}; },
      .backend = [](int) -> Backend& {
        static cpu::CpuBackend b;
        return b;
      },
      .capabilities =
          [](int) {
            const std::string d = "host CPU (OpenBLAS, OpenMP, " + std::string(name(cpu_isa())) + " kernels)";
            return cpu::host_capabilities(d.c_str());
          },
  };
  return def;
}

}  // namespace concord::detail
