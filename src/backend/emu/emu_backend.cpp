// The emu device: an emulated accelerator. Its memory is separate host memory
// (so moving data there is a real, counted copy), its kernels are the CPU's,
// and its default profile (no-fp64) makes it behave like a float64-less GPU.
// CONCORD_EMU_DEVICES=N (0..64) sets how many there are (default 1).
#include <cstdlib>
#include <deque>
#include <mutex>

#include "backend/cpu/cpu_backend.h"
#include "core/registry.h"

namespace concord::detail {

namespace emu {

class EmuBackend final : public cpu::CpuBackend {
 public:
  std::string_view kind_name() const override { return "emu"; }
};

size_t count() {
  const char* e = std::getenv("CONCORD_EMU_DEVICES");
  if (!e) return 1;
  char* end = nullptr;
  const long v = std::strtol(e, &end, 10);
  if (end == e || *end != '\0' || v < 0 || v > 64)
    throw ValueError("[device] CONCORD_EMU_DEVICES='" + std::string(e) + "' is not a count in 0..64");
  return static_cast<size_t>(v);
}

}  // namespace emu

const BackendDef& emu_backend_def() {
  static const BackendDef def{
      .name = "emu",
      .memory = MemorySpace::host,
      .count = emu::count,
      .backend = [](int) -> Backend& {
        static emu::EmuBackend b;  // one backend object serves every emu device
        return b;
      },
      .capabilities = [](int) { return cpu::host_capabilities("emulated accelerator (host kernels, own memory)"); },
      .default_profile = "no-fp64",  // like many GPUs
      .availability_hint = "set CONCORD_EMU_DEVICES=N for more emu devices",
  };
  return def;
}

}  // namespace concord::detail
