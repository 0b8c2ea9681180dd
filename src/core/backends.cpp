// Which backend owns which device, and what each claims before profiles.
#include "backend/cpu/cpu_backend.h"
#include "core/backend.h"

namespace concord::detail {

namespace emu { Backend& backend(); }
namespace ocl {
Backend& backend(int index);
Capabilities capabilities(int index);
}  // namespace ocl

Backend& cpu_backend() {
  static cpu::CpuBackend b;
  return b;
}

Backend& backend_for(const Device& d) {
  switch (d.kind()) {
    case DeviceKind::cpu: return cpu_backend();
    case DeviceKind::emu:
      if (!is_available(d)) capabilities(d);  // throws the "not available" DeviceError
      return emu::backend();
    default:
      if (!is_available(d)) capabilities(d);
      return ocl::backend(d.index());
  }
}

namespace {
// The CPU has a kernel for every op and dtype the op is defined for; it
// computes float16/bfloat16 in float32 (widened).
Capabilities host_capabilities(const char* description) {
  Capabilities c;
  c.storable = DtypeSet::all();
  c.computable = DtypeSet::all();
  c.computable.remove(float16).remove(bfloat16);
  for (int i = 0; i < kNumOps; ++i) c.native[i] = op_dtypes(static_cast<OpId>(i));
  c.description = description;
  return c;
}
}  // namespace

Capabilities backend_capabilities(const Device& d) {
  switch (d.kind()) {
    case DeviceKind::cpu: return host_capabilities("host CPU (OpenBLAS, OpenMP)");
    case DeviceKind::emu: return host_capabilities("emulated accelerator (host kernels, own memory)");
    default: return ocl::capabilities(d.index());
  }
}

}  // namespace concord::detail

namespace concord {

void synchronize(const Device& d) { detail::backend_for(d).synchronize(d); }

}  // namespace concord
