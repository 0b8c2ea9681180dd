// OpenCL backend glue (being written).
#include "core/backend.h"

namespace concord::detail {
size_t opencl_device_count() { return 0; }
namespace ocl {
Backend& backend(int index) { throw DeviceError("[opencl] no device opencl:" + std::to_string(index)); }
Capabilities capabilities(int) { return {}; }
}  // namespace ocl
}  // namespace concord::detail
