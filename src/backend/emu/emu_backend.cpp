// The emu device: an emulated accelerator. Its memory is separate host memory
// (so moving data there is a real, counted copy), its kernels are the CPU's,
// and its default profile (no-fp64) makes it behave like a float64-less GPU.
#include "backend/cpu/cpu_backend.h"

namespace concord::detail::emu {

class EmuBackend final : public cpu::CpuBackend {
 public:
  DeviceKind kind() const override { return DeviceKind::emu; }
};

Backend& backend() {
  static EmuBackend b;
  return b;
}

}  // namespace concord::detail::emu
