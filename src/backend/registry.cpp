// Every backend compiled into this build, one line each, in the order their
// devices are listed. cpu comes first: it is the reference and the fallback
// target. A backend's folder defines its BackendDef (see core/registry.h).
#include "core/registry.h"

namespace concord::detail {

#if CONCORD_HAVE_VULKAN
#define CONCORD_VULKAN_BACKEND(X) X(vulkan)
#else
#define CONCORD_VULKAN_BACKEND(X)
#endif
#if CONCORD_HAVE_OPENCL
#define CONCORD_OPENCL_BACKEND(X) X(opencl)
#else
#define CONCORD_OPENCL_BACKEND(X)
#endif
#define CONCORD_BACKENDS(X) X(cpu) X(emu) CONCORD_OPENCL_BACKEND(X) CONCORD_VULKAN_BACKEND(X)
static_assert(kMaxDeviceKinds >= 4, "raise kMaxDeviceKinds for more backends");

#define CONCORD_DECLARE(name) const BackendDef& name##_backend_def();
CONCORD_BACKENDS(CONCORD_DECLARE)
#undef CONCORD_DECLARE

const std::vector<const BackendDef*>& backend_defs() {
#define CONCORD_ENTRY(name) &name##_backend_def(),
  static const std::vector<const BackendDef*> defs = {CONCORD_BACKENDS(CONCORD_ENTRY)};
#undef CONCORD_ENTRY
  return defs;
}

}  // namespace concord::detail
