// backend/vulkan/device_info.cpp — what a physical device can do: the
// DeviceInfo of runtime.h, read with vkGetPhysicalDevice*2 property and
// feature chains, and the verdict whether concord can use it.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "backend/vulkan/internal.h"

namespace concord::detail::vk {

namespace {

// VK_KHR_cooperative_matrix postdates the headers of some distributions
// (it appeared in header 1.3.255), so the one struct we need is declared here
// with the layout and structure type given by the extension's specification.
struct CoopMatrixProps {
  VkStructureType sType;
  void* pNext;
  uint32_t MSize, NSize, KSize;
  int32_t AType, BType, CType, ResultType;
  VkBool32 saturatingAccumulation;
  int32_t scope;
};
constexpr auto kCoopMatrixPropsType = static_cast<VkStructureType>(1000506001);
using PfnCoopMatrixProps = VkResult(VKAPI_PTR*)(VkPhysicalDevice, uint32_t*, CoopMatrixProps*);

std::string version_string(uint32_t v) {
  return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v)) + "." +
         std::to_string(VK_API_VERSION_PATCH(v));
}

DeviceType device_type(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return DeviceType::integrated;
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return DeviceType::discrete;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return DeviceType::virtual_gpu;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return DeviceType::cpu;
    default: return DeviceType::other;
  }
}

void read_extensions(VkPhysicalDevice pd, DeviceInfo& info) {
  uint32_t n = 0;
  if (vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, nullptr) != VK_SUCCESS) return;
  std::vector<VkExtensionProperties> props(n);
  if (vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, props.data()) != VK_SUCCESS) return;
  for (uint32_t i = 0; i < n; ++i) info.extensions.emplace_back(props[i].extensionName);
}

void read_memory(VkPhysicalDevice pd, DeviceInfo& info) {
  VkPhysicalDeviceMemoryProperties mp;
  vkGetPhysicalDeviceMemoryProperties(pd, &mp);
  uint32_t largest = UINT32_MAX;
  for (uint32_t h = 0; h < mp.memoryHeapCount; ++h) {
    if (!(mp.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)) continue;
    info.device_local_bytes += mp.memoryHeaps[h].size;
    if (largest == UINT32_MAX || mp.memoryHeaps[h].size > mp.memoryHeaps[largest].size) largest = h;
  }
  if (largest != UINT32_MAX) info.largest_device_local_heap = mp.memoryHeaps[largest].size;
  constexpr VkMemoryPropertyFlags kShared = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT |
                                            VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
  for (uint32_t t = 0; t < mp.memoryTypeCount; ++t) {
    const auto flags = mp.memoryTypes[t].propertyFlags;
    if ((flags & kShared) != kShared) continue;
    info.host_visible_device_local = true;
    if ((flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) && mp.memoryTypes[t].heapIndex == largest)
      info.unified_memory = true;
  }
}

uint32_t find_compute_family(VkPhysicalDevice pd) {
  uint32_t n = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, nullptr);
  std::vector<VkQueueFamilyProperties> fams(n);
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, fams.data());
  // The first compute family: on most drivers the universal one, the most
  // exercised path. Transfers go through the same queue.
  for (uint32_t i = 0; i < n; ++i)
    if ((fams[i].queueFlags & VK_QUEUE_COMPUTE_BIT) && fams[i].queueCount > 0) return i;
  return UINT32_MAX;
}

void read_coop_matrix(VkInstance instance, VkPhysicalDevice pd, DeviceInfo& info) {
  if (!info.has_extension("VK_KHR_cooperative_matrix")) return;
  auto fn = reinterpret_cast<PfnCoopMatrixProps>(
      vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR"));
  if (!fn) return;
  uint32_t n = 0;
  if (fn(pd, &n, nullptr) != VK_SUCCESS) return;
  std::vector<CoopMatrixProps> props(n, CoopMatrixProps{kCoopMatrixPropsType, nullptr, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  if (fn(pd, &n, props.data()) != VK_SUCCESS && n == 0) return;
  info.cooperative_matrix = n > 0;
  info.cooperative_matrix_properties = n;
  // Kept as text for the listing: what a cooperative-matrix GEMM could use here.
  static const char* kType[] = {"f16", "f32", "f64", "s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64"};
  auto type = [](int32_t t) { return t >= 0 && t <= 10 ? std::string(kType[t]) : "type" + std::to_string(t); };
  for (uint32_t i = 0; i < n; ++i) {
    const auto& p = props[i];
    info.cooperative_matrix_configs.push_back(
        std::to_string(p.MSize) + "x" + std::to_string(p.NSize) + "x" + std::to_string(p.KSize) + " " +
        type(p.AType) + "*" + type(p.BType) + "+" + type(p.CType) + "->" + type(p.ResultType) +
        (p.scope == 3 ? "" : " scope" + std::to_string(p.scope)));
  }
}

// VK_NV_cooperative_matrix (NVIDIA): what gemm_coop.comp needs is a
// subgroup-scope 16x16x16 float16 x float16 + float32 -> float32 step, the
// cooperativeMatrix feature, the Vulkan memory model (glslang emits it for
// the extension), float16 arithmetic and 32-lane subgroups (the shader's
// four subgroups of 32).
void read_coop_matrix_nv(VkInstance instance, VkPhysicalDevice pd, DeviceInfo& info) {
  if (!info.has_extension("VK_NV_cooperative_matrix")) return;
  auto feat = make<VkPhysicalDeviceCooperativeMatrixFeaturesNV>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV);
  auto feats = make<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
  feats.pNext = &feat;
  vkGetPhysicalDeviceFeatures2(pd, &feats);
  if (!feat.cooperativeMatrix) return;
  auto fn = reinterpret_cast<PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV>(
      vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesNV"));
  if (!fn) return;
  uint32_t n = 0;
  if (fn(pd, &n, nullptr) != VK_SUCCESS || n == 0) return;
  std::vector<VkCooperativeMatrixPropertiesNV> props(
      n, make<VkCooperativeMatrixPropertiesNV>(VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV));
  if (fn(pd, &n, props.data()) != VK_SUCCESS) return;
  for (uint32_t i = 0; i < n; ++i) {
    const auto& p = props[i];
    if (p.MSize == 16 && p.NSize == 16 && p.KSize == 16 && p.AType == VK_COMPONENT_TYPE_FLOAT16_NV &&
        p.BType == VK_COMPONENT_TYPE_FLOAT16_NV && p.CType == VK_COMPONENT_TYPE_FLOAT32_NV &&
        p.DType == VK_COMPONENT_TYPE_FLOAT32_NV && p.scope == VK_SCOPE_SUBGROUP_NV)
      info.coop_nv_f16 = true;
  }
}

FloatControls float_controls(const VkPhysicalDeviceVulkan12Properties& p, int width) {
  FloatControls f;
  switch (width) {
    case 16:
      f = {bool(p.shaderDenormPreserveFloat16), bool(p.shaderDenormFlushToZeroFloat16),
           bool(p.shaderRoundingModeRTEFloat16), bool(p.shaderRoundingModeRTZFloat16),
           bool(p.shaderSignedZeroInfNanPreserveFloat16)};
      break;
    case 32:
      f = {bool(p.shaderDenormPreserveFloat32), bool(p.shaderDenormFlushToZeroFloat32),
           bool(p.shaderRoundingModeRTEFloat32), bool(p.shaderRoundingModeRTZFloat32),
           bool(p.shaderSignedZeroInfNanPreserveFloat32)};
      break;
    default:
      f = {bool(p.shaderDenormPreserveFloat64), bool(p.shaderDenormFlushToZeroFloat64),
           bool(p.shaderRoundingModeRTEFloat64), bool(p.shaderRoundingModeRTZFloat64),
           bool(p.shaderSignedZeroInfNanPreserveFloat64)};
  }
  return f;
}

}  // namespace

DeviceInfo query_device_info(VkInstance instance, VkPhysicalDevice pd, uint32_t instance_api) {
  DeviceInfo info;
  VkPhysicalDeviceProperties base;
  vkGetPhysicalDeviceProperties(pd, &base);
  info.name = base.deviceName;
  info.api_version_raw = base.apiVersion;
  info.api_version = version_string(base.apiVersion);
  info.driver_version_raw = base.driverVersion;
  info.vendor_id = base.vendorID;
  info.device_id = base.deviceID;
  info.type = device_type(base.deviceType);
  std::memcpy(info.pipeline_cache_uuid.data(), base.pipelineCacheUUID, VK_UUID_SIZE);
  const VkPhysicalDeviceLimits& lim = base.limits;
  info.max_storage_buffer_range = lim.maxStorageBufferRange;
  info.max_compute_shared_memory = lim.maxComputeSharedMemorySize;
  info.max_push_constants = lim.maxPushConstantsSize;
  for (int i = 0; i < 3; ++i) {
    info.max_workgroup_count[i] = lim.maxComputeWorkGroupCount[i];
    info.max_workgroup_size[i] = lim.maxComputeWorkGroupSize[i];
  }
  info.max_workgroup_invocations = lim.maxComputeWorkGroupInvocations;
  info.max_memory_allocations = lim.maxMemoryAllocationCount;
  info.min_storage_buffer_offset_alignment = lim.minStorageBufferOffsetAlignment;
  read_extensions(pd, info);
  read_memory(pd, info);
  info.compute_queue_family = find_compute_family(pd);

  info.api_version_used = std::min(base.apiVersion, instance_api);
  if (info.api_version_used < VK_API_VERSION_1_2) {
    // Property and feature structs of 1.2 may not be chained for this device.
    info.unusable_reason = "needs Vulkan 1.2 (the driver offers " + info.api_version + ")";
    return info;
  }
  const bool v13 = info.api_version_used >= VK_API_VERSION_1_3;
  const bool sg_ext = v13 || info.has_extension("VK_EXT_subgroup_size_control");
  const bool m4 = v13 || info.has_extension("VK_KHR_maintenance4");

  // Properties: 1.1 (subgroups, max allocation, driver UUID), 1.2 (driver
  // name, float controls), subgroup size control, maintenance4.
  auto p_m4 = make<VkPhysicalDeviceMaintenance4Properties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_PROPERTIES);
  auto p_sg = make<VkPhysicalDeviceSubgroupSizeControlProperties>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES);
  auto p12 = make<VkPhysicalDeviceVulkan12Properties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES);
  auto p11 = make<VkPhysicalDeviceVulkan11Properties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES);
  auto props = make<VkPhysicalDeviceProperties2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2);
  props.pNext = &p11;
  p11.pNext = &p12;
  void** tail = &p12.pNext;
  if (sg_ext) { *tail = &p_sg; tail = &p_sg.pNext; }
  if (m4) { *tail = &p_m4; tail = &p_m4.pNext; }
  vkGetPhysicalDeviceProperties2(pd, &props);
  info.driver_name = p12.driverName;
  info.driver_info = p12.driverInfo;
  std::memcpy(info.driver_uuid.data(), p11.driverUUID, VK_UUID_SIZE);
  info.subgroup_size = p11.subgroupSize;
  info.subgroup_ops = p11.subgroupSupportedOperations;
  info.subgroup_stages = p11.subgroupSupportedStages;
  info.max_memory_allocation = p11.maxMemoryAllocationSize;
  info.float_controls = {float_controls(p12, 16), float_controls(p12, 32), float_controls(p12, 64)};
  info.denorm_independence = p12.denormBehaviorIndependence;
  info.rounding_independence = p12.roundingModeIndependence;
  if (sg_ext) {
    info.min_subgroup_size = p_sg.minSubgroupSize;
    info.max_subgroup_size = p_sg.maxSubgroupSize;
    info.required_subgroup_size_stages = p_sg.requiredSubgroupSizeStages;
  }
  if (m4) info.max_buffer_size = p_m4.maxBufferSize;

  // Features.
  auto f_sg = make<VkPhysicalDeviceSubgroupSizeControlFeatures>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES);
  auto f12 = make<VkPhysicalDeviceVulkan12Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
  auto f11 = make<VkPhysicalDeviceVulkan11Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES);
  auto feats = make<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
  feats.pNext = &f11;
  f11.pNext = &f12;
  if (sg_ext) f12.pNext = &f_sg;  // same struct as the 1.3 core one
  vkGetPhysicalDeviceFeatures2(pd, &feats);
  info.fp64 = feats.features.shaderFloat64;
  info.int64 = feats.features.shaderInt64;
  info.int16 = feats.features.shaderInt16;
  info.int8 = f12.shaderInt8;
  info.fp16 = f12.shaderFloat16;
  info.storage8 = f12.storageBuffer8BitAccess;
  info.storage16 = f11.storageBuffer16BitAccess;
  info.push_constant8 = f12.storagePushConstant8;
  info.push_constant16 = f11.storagePushConstant16;
  info.bda = f12.bufferDeviceAddress;
  info.timeline_semaphore = f12.timelineSemaphore;
  info.scalar_block_layout = f12.scalarBlockLayout;
  info.vulkan_memory_model = f12.vulkanMemoryModel && f12.vulkanMemoryModelDeviceScope;
  info.int64_atomics = f12.shaderBufferInt64Atomics;
  if (sg_ext) {
    info.subgroup_size_control = f_sg.subgroupSizeControl;
    info.compute_full_subgroups = f_sg.computeFullSubgroups;
  }
  read_coop_matrix(instance, pd, info);
  read_coop_matrix_nv(instance, pd, info);
  const char* coop_env = std::getenv("CONCORD_VULKAN_COOP");
  info.coop_gemm_f16 = info.coop_nv_f16 && info.fp16 && info.storage16 && info.vulkan_memory_model &&
                       info.subgroup_size == 32 && (info.max_subgroup_size == 0 || info.max_subgroup_size == 32) &&
                       !(coop_env && std::string_view(coop_env) == "0");

  // maxMemoryAllocationSize bounds one buffer; so does maxBufferSize.
  if (info.max_buffer_size && info.max_buffer_size < info.max_memory_allocation)
    info.max_memory_allocation = info.max_buffer_size;

  const char* missing = info.compute_queue_family == UINT32_MAX ? "a compute queue"
                        : !info.bda                ? "bufferDeviceAddress"
                        : !info.int64              ? "shaderInt64"
                        : !info.storage8           ? "storageBuffer8BitAccess"
                        : !info.storage16          ? "storageBuffer16BitAccess"
                        : !info.timeline_semaphore ? "timelineSemaphore"
                                                   : nullptr;
  if (missing) info.unusable_reason = std::string("needs ") + missing;
  info.usable = missing == nullptr;
  return info;
}

// ----------------------------------------------------------- formatting --

const char* device_type_name(DeviceType t) {
  switch (t) {
    case DeviceType::integrated: return "integrated";
    case DeviceType::discrete: return "discrete";
    case DeviceType::virtual_gpu: return "virtual";
    case DeviceType::cpu: return "cpu";
    default: return "other";
  }
}

bool DeviceInfo::has_extension(std::string_view ext) const {
  for (const auto& e : extensions)
    if (e == ext) return true;
  return false;
}

std::string DeviceInfo::subgroup_ops_string() const {
  static const std::pair<VkSubgroupFeatureFlagBits, const char*> kOps[] = {
      {VK_SUBGROUP_FEATURE_BASIC_BIT, "basic"},
      {VK_SUBGROUP_FEATURE_VOTE_BIT, "vote"},
      {VK_SUBGROUP_FEATURE_ARITHMETIC_BIT, "arithmetic"},
      {VK_SUBGROUP_FEATURE_BALLOT_BIT, "ballot"},
      {VK_SUBGROUP_FEATURE_SHUFFLE_BIT, "shuffle"},
      {VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT, "shuffle_relative"},
      {VK_SUBGROUP_FEATURE_CLUSTERED_BIT, "clustered"},
      {VK_SUBGROUP_FEATURE_QUAD_BIT, "quad"},
  };
  std::string s;
  for (const auto& [bit, name] : kOps)
    if (subgroup_ops & bit) s += (s.empty() ? "" : " ") + std::string(name);
  return s.empty() ? "none" : s;
}

std::string DeviceInfo::summary() const {
  char ids[32];
  std::snprintf(ids, sizeof ids, "%04x:%04x", vendor_id, device_id);
  std::string s = name + " [" + device_type_name(type) + ", " + ids + "], Vulkan " + api_version;
  if (!driver_name.empty()) s += ", " + driver_name + " (" + driver_info + ")";
  s += ", " + std::to_string(device_local_bytes >> 20) + " MiB";
  if (!usable) s += " — unusable: " + unusable_reason;
  return s;
}

std::vector<std::string> DeviceInfo::details() const {
  std::vector<std::string> out;
  auto yn = [](bool b) { return b ? "yes" : "no"; };
  out.push_back(std::string("float16 arithmetic (shaderFloat16): ") + yn(fp16) +
                " (concord computes float16 and bfloat16 in float32 and rounds once)");
  const char* widths[] = {"float16", "float32", "float64"};
  for (size_t w = 0; w < 3; ++w) {
    const FloatControls& f = float_controls[w];
    if (w == 2 && !fp64) continue;
    // What the driver promises (a "no" leaves the behaviour unspecified).
    out.push_back(std::string("float controls ") + widths[w] + ": RTE rounding " + yn(f.rounding_rte) +
                  ", denormPreserve " + yn(f.denorm_preserve) + ", denormFlushToZero " + yn(f.denorm_flush_to_zero) +
                  ", signedZeroInfNanPreserve " + yn(f.signed_zero_inf_nan_preserve));
  }
  out.push_back("subgroups: " + std::to_string(subgroup_size) + " lanes (" + std::to_string(min_subgroup_size) + "-" +
                std::to_string(max_subgroup_size) + "), " + subgroup_ops_string());
  out.push_back("limits: maxStorageBufferRange " + std::to_string(max_storage_buffer_range >> 20) +
                " MiB (tensors are addressed by device address, so it does not bound a tensor), largest buffer " +
                std::to_string(max_memory_allocation >> 20) + " MiB, shared memory " +
                std::to_string(max_compute_shared_memory >> 10) + " KiB, workgroup " +
                std::to_string(max_workgroup_invocations) + " invocations");
  std::string coop = "no";
  if (cooperative_matrix) {
    coop = std::to_string(cooperative_matrix_properties) + " configurations (not used by concord's shaders yet):";
    for (const auto& c : cooperative_matrix_configs) coop += " " + c + ";";
    coop.pop_back();
  }
  out.push_back("cooperative matrix (VK_KHR_cooperative_matrix): " + coop);
  if (coop_nv_f16)
    out.push_back(std::string("cooperative matrix (VK_NV_cooperative_matrix, 16x16x16 f16*f16+f32): ") +
                  (coop_gemm_f16 ? "float16 matmul runs on it (CONCORD_VULKAN_COOP=0 turns it off)"
                                 : "not used (needs float16 arithmetic, the Vulkan memory model and 32-lane "
                                   "subgroups, and CONCORD_VULKAN_COOP not 0)"));
  if (unified_memory) out.push_back("memory: device-local memory is host-visible (tensors live in mapped memory)");
  return out;
}

}  // namespace concord::detail::vk
