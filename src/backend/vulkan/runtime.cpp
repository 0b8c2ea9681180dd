// backend/vulkan/runtime.cpp — errors, the instance, device enumeration, the
// context registry and process-exit ordering. Device properties live in
// device_info.cpp, contexts in context.cpp, memory in memory.cpp, pipelines
// in pipelines.cpp.
#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <cstring>
#include <sstream>

#include "backend/vulkan/internal.h"
#include "concord/error.h"

namespace concord::detail::vk {

// ---------------------------------------------------------------- errors --

std::string result_name(VkResult r) {
#define VKRES(code) {code, #code}
  static const std::pair<VkResult, const char*> kNames[] = {
      VKRES(VK_SUCCESS), VKRES(VK_NOT_READY), VKRES(VK_TIMEOUT), VKRES(VK_EVENT_SET),
      VKRES(VK_EVENT_RESET), VKRES(VK_INCOMPLETE), VKRES(VK_ERROR_OUT_OF_HOST_MEMORY),
      VKRES(VK_ERROR_OUT_OF_DEVICE_MEMORY), VKRES(VK_ERROR_INITIALIZATION_FAILED),
      VKRES(VK_ERROR_DEVICE_LOST), VKRES(VK_ERROR_MEMORY_MAP_FAILED), VKRES(VK_ERROR_LAYER_NOT_PRESENT),
      VKRES(VK_ERROR_EXTENSION_NOT_PRESENT), VKRES(VK_ERROR_FEATURE_NOT_PRESENT),
      VKRES(VK_ERROR_INCOMPATIBLE_DRIVER), VKRES(VK_ERROR_TOO_MANY_OBJECTS),
      VKRES(VK_ERROR_FORMAT_NOT_SUPPORTED), VKRES(VK_ERROR_FRAGMENTED_POOL), VKRES(VK_ERROR_UNKNOWN),
      VKRES(VK_ERROR_OUT_OF_POOL_MEMORY), VKRES(VK_ERROR_INVALID_EXTERNAL_HANDLE),
      VKRES(VK_ERROR_FRAGMENTATION), VKRES(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS),
      VKRES(VK_PIPELINE_COMPILE_REQUIRED), VKRES(VK_ERROR_SURFACE_LOST_KHR),
      VKRES(VK_ERROR_NATIVE_WINDOW_IN_USE_KHR), VKRES(VK_SUBOPTIMAL_KHR), VKRES(VK_ERROR_OUT_OF_DATE_KHR),
      VKRES(VK_ERROR_INCOMPATIBLE_DISPLAY_KHR), VKRES(VK_ERROR_VALIDATION_FAILED_EXT),
      VKRES(VK_ERROR_INVALID_SHADER_NV), VKRES(VK_ERROR_NOT_PERMITTED_KHR),
  };
#undef VKRES
  for (const auto& [code, name] : kNames)
    if (code == r) return name;
  return "VkResult(" + std::to_string(static_cast<int>(r)) + ")";
}

namespace {

bool is_oom(VkResult r) {
  return r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY ||
         r == VK_ERROR_OUT_OF_POOL_MEMORY || r == VK_ERROR_FRAGMENTATION;
}

// What the user can do about a failed call.
const char* hint(VkResult r) {
  if (is_oom(r)) return "free tensors, use a smaller batch or move work to the cpu";
  switch (r) {
    case VK_ERROR_INITIALIZATION_FAILED:
    case VK_ERROR_INCOMPATIBLE_DRIVER:
      return "the driver could not start; check it with `vulkaninfo`";
    case VK_ERROR_TOO_MANY_OBJECTS:
      return "too many live allocations; free tensors or call empty_cache()";
    default:
      return "this is a concord or driver bug; please report it with the output of `concord devices`";
  }
}

}  // namespace

std::string Context::mark_lost(const char* what) {
  lost_ = true;
  return "[vulkan] " + device_string() + " (" + info_.name + ") was lost (VK_ERROR_DEVICE_LOST in " + what +
         ": a driver reset, a hung or too long shader, or a faulting memory access); results of queued "
         "work are gone; restart the process";
}

void check(VkResult r, const char* what, Context* ctx) {
  if (r == VK_SUCCESS) return;
  if (r == VK_ERROR_DEVICE_LOST && ctx) throw DeviceError(ctx->mark_lost(what));
  std::ostringstream msg;
  msg << "[vulkan] " << what << " failed";
  if (ctx) msg << " on " << ctx->device_string() << " (" << ctx->info().name << ")";
  msg << ": " << result_name(r) << "; " << hint(r);
  if (is_oom(r)) throw OutOfMemoryError(msg.str());
  throw DeviceError(msg.str());
}

// ----------------------------------------------------------- enumeration --

namespace {

struct Physical {
  VkPhysicalDevice pd;
  DeviceInfo info;
};

// Process-wide state, held through a never-deleted pointer so that code
// running during static destruction (a global tensor releasing its buffer)
// still finds valid Context objects; their Vulkan objects are destroyed by
// Shutdown below, before the driver unloads.
struct Runtime {
  std::once_flag enumerated;
  VkInstance instance = VK_NULL_HANDLE;
  uint32_t instance_api = 0;
  std::vector<Physical> usable;
  std::vector<DeviceInfo> skipped;
  std::mutex mu;  // guards contexts and shut_down
  std::vector<std::unique_ptr<Context>> contexts;
  bool shut_down = false;
};
Runtime& runtime() {
  static Runtime* rt = new Runtime;  // intentionally never deleted, see above
  return *rt;
}

template <class F>
void each_context(F f) {
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> lock(rt.mu);
  for (auto& c : rt.contexts)
    if (c) f(*c);
}

// Marks every library loaded so far (the driver, its LLVM) RTLD_NODELETE, so
// that vkDestroyInstance at exit does not unmap the driver: memory it reaches
// only from its own globals stays reachable for leak checkers (LeakSanitizer
// runs after the exit-time destructors and would report it as leaked from an
// "<unknown module>"). The process is exiting: nothing is lost.
void keep_libraries_mapped() {
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void*) {
        if (info->dlpi_name && *info->dlpi_name) dlopen(info->dlpi_name, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
        return 0;
      },
      nullptr);
}

// Constructed right after vkCreateInstance loaded the driver, so destroyed
// before the driver's own static objects: contexts first, then the instance.
struct Shutdown {
  ~Shutdown() {
    keep_libraries_mapped();
    each_context([](Context& c) { c.shutdown(); });
    Runtime& rt = runtime();
    {
      std::lock_guard<std::mutex> lock(rt.mu);
      rt.shut_down = true;
    }
    if (rt.instance) vkDestroyInstance(rt.instance, nullptr);
    rt.instance = VK_NULL_HANDLE;
  }
};

bool disabled_by_env() {
  const char* v = std::getenv("CONCORD_VULKAN");
  return v && std::strcmp(v, "0") == 0;
}

// nullptr on any failure: no loader entry point, a 1.0-only loader (it would
// reject apiVersion 1.2), no driver (VK_ERROR_INCOMPATIBLE_DRIVER).
VkInstance create_instance(uint32_t& api) {
  auto enumerate_version = reinterpret_cast<PFN_vkEnumerateInstanceVersion>(
      vkGetInstanceProcAddr(VK_NULL_HANDLE, "vkEnumerateInstanceVersion"));
  uint32_t loader = VK_API_VERSION_1_0;
  if (!enumerate_version || enumerate_version(&loader) != VK_SUCCESS || loader < VK_API_VERSION_1_1)
    return VK_NULL_HANDLE;
  api = loader >= VK_API_VERSION_1_3 ? VK_API_VERSION_1_3 : VK_API_VERSION_1_2;

  // VK_KHR_portability_enumeration lists portability drivers (MoltenVK),
  // which loaders otherwise hide.
  std::vector<const char*> exts;
  VkInstanceCreateFlags flags = 0;
  uint32_t n = 0;
  if (vkEnumerateInstanceExtensionProperties(nullptr, &n, nullptr) == VK_SUCCESS) {
    std::vector<VkExtensionProperties> props(n);
    if (vkEnumerateInstanceExtensionProperties(nullptr, &n, props.data()) == VK_SUCCESS)
      for (uint32_t i = 0; i < n; ++i)
        if (std::strcmp(props[i].extensionName, VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME) == 0) {
          exts.push_back(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME);
          flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
        }
  }
  auto app = make<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
  app.pApplicationName = "concord";
  app.pEngineName = "concord";
  app.apiVersion = api;
  auto ci = make<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
  ci.flags = flags;
  ci.pApplicationInfo = &app;
  ci.enabledExtensionCount = static_cast<uint32_t>(exts.size());
  ci.ppEnabledExtensionNames = exts.data();
  VkInstance instance = VK_NULL_HANDLE;
  if (vkCreateInstance(&ci, nullptr, &instance) != VK_SUCCESS) return VK_NULL_HANDLE;
  return instance;
}

const Runtime& enumerated() {
  Runtime& rt = runtime();
  std::call_once(rt.enumerated, [&] {
    if (disabled_by_env()) return;
    rt.instance = create_instance(rt.instance_api);
    if (!rt.instance) return;
    static Shutdown shutdown;  // see Shutdown
    uint32_t n = 0;
    if (vkEnumeratePhysicalDevices(rt.instance, &n, nullptr) != VK_SUCCESS || n == 0) return;
    std::vector<VkPhysicalDevice> pds(n);
    // VK_INCOMPLETE (a device vanished in between) still gives usable handles.
    if (vkEnumeratePhysicalDevices(rt.instance, &n, pds.data()) < VK_SUCCESS) return;
    for (uint32_t i = 0; i < n; ++i) {
      DeviceInfo info = query_device_info(rt.instance, pds[i], rt.instance_api);
      if (info.usable) rt.usable.push_back({pds[i], std::move(info)});
      else rt.skipped.push_back(std::move(info));
    }
    rt.contexts.resize(rt.usable.size());
  });
  return rt;
}

[[noreturn]] void throw_no_device(size_t index) {
  const Runtime& rt = enumerated();
  const size_t n = rt.usable.size();
  std::string msg = "[vulkan] device vulkan:" + std::to_string(index) + " does not exist; " +
                    std::to_string(n) + " usable Vulkan device" + (n == 1 ? "" : "s") + " found";
  if (!rt.skipped.empty()) msg += " (" + std::to_string(rt.skipped.size()) + " more cannot be used)";
  if (disabled_by_env()) msg += "; the backend is off (CONCORD_VULKAN=0)";
  throw DeviceError(msg + "; see `concord devices`");
}

}  // namespace

size_t device_count() { return enumerated().usable.size(); }

const DeviceInfo& device_info(size_t index) {
  const Runtime& rt = enumerated();
  if (index >= rt.usable.size()) throw_no_device(index);
  return rt.usable[index].info;
}

const std::vector<DeviceInfo>& skipped_devices() { return enumerated().skipped; }

void drain_on_thread_exit() {
  struct Drain {
    ~Drain() { each_context([](Context& c) { c.drain(); }); }
  };
  thread_local Drain drain;  // constructed on the thread's first call
  (void)drain;
}

Context& context(size_t index) {
  const Runtime& crt = enumerated();
  if (index >= crt.usable.size()) throw_no_device(index);
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> lock(rt.mu);
  if (rt.shut_down)
    throw DeviceError("[vulkan] vulkan:" + std::to_string(index) +
                      " used after the runtime shut down; do not use Vulkan tensors during static destruction");
  auto& slot = rt.contexts[index];
  if (!slot) slot = std::make_unique<Context>(index, crt.usable[index].pd, crt.usable[index].info);
  return *slot;
}

}  // namespace concord::detail::vk
