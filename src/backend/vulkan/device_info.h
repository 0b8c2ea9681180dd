// backend/vulkan/device_info.h — what a Vulkan device is and can do, and
// the enumeration of devices. Part of the runtime (runtime.h includes it);
// needs no context, so `concord devices` can list devices without opening them.
//
//   for (size_t i = 0; i < vk::device_count(); ++i)
//     std::cout << "vulkan:" << i << "  " << vk::device_info(i).summary() << "\n";
//   for (const auto& d : vk::skipped_devices())
//     std::cout << "(skipped) " << d.summary() << "\n";   // names unusable_reason
#pragma once

#include <vulkan/vulkan.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace concord::detail::vk {

enum class DeviceType : uint8_t { other, integrated, discrete, virtual_gpu, cpu };
const char* device_type_name(DeviceType t);  // "discrete", "cpu", ...

// What a shader may assume about float arithmetic of one width
// (VkPhysicalDeviceFloatControlsProperties).
struct FloatControls {
  bool denorm_preserve = false;
  bool denorm_flush_to_zero = false;
  bool rounding_rte = false;  // round-to-nearest-even can be requested
  bool rounding_rtz = false;
  bool signed_zero_inf_nan_preserve = false;
};

// What a device reports about itself, read once at enumeration.
struct DeviceInfo {
  std::string name, driver_name, driver_info;
  std::string api_version;  // "1.3.230", what the device reports
  uint32_t api_version_used = 0;  // min(device, instance): what concord may use
  uint32_t api_version_raw = 0, driver_version_raw = 0, vendor_id = 0, device_id = 0;
  DeviceType type = DeviceType::other;
  std::array<uint8_t, VK_UUID_SIZE> pipeline_cache_uuid{}, driver_uuid{};
  std::vector<std::string> extensions;

  // Usable = Vulkan >= 1.2, a compute queue, bufferDeviceAddress, shaderInt64,
  // storageBuffer8BitAccess, storageBuffer16BitAccess, timelineSemaphore.
  bool usable = false;
  std::string unusable_reason;  // "needs bufferDeviceAddress"; empty when usable
  uint32_t compute_queue_family = UINT32_MAX;

  // Shader features (all are enabled on the device when present).
  bool fp64 = false, int64 = false, int16 = false, int8 = false;
  bool fp16 = false;  // shaderFloat16: half arithmetic
  bool storage8 = false, storage16 = false, bda = false, timeline_semaphore = false;
  bool push_constant8 = false, push_constant16 = false;
  bool scalar_block_layout = false, int64_atomics = false;
  // Enabled together: with the memory model on, Device-scope atomics need
  // vulkanMemoryModelDeviceScope (so the model is only enabled when both are there).
  bool vulkan_memory_model = false;
  bool subgroup_size_control = false, compute_full_subgroups = false;
  bool cooperative_matrix = false;           // VK_KHR_cooperative_matrix (detected and listed)
  uint32_t cooperative_matrix_properties = 0;  // number of supported (M,N,K,types) combinations
  std::vector<std::string> cooperative_matrix_configs;  // "MxNxK A*B+C->R" (subgroup scope unless named)
  // VK_NV_cooperative_matrix with its feature and a subgroup-scope 16x16x16
  // float16*float16+float32 step (what shaders/gemm_coop.comp uses).
  bool coop_nv_f16 = false;
  // float16 matmul runs gemm_coop.comp: coop_nv_f16, float16 arithmetic, the
  // Vulkan memory model, 32-lane subgroups, and CONCORD_VULKAN_COOP not "0".
  bool coop_gemm_f16 = false;

  // Float controls for 16-, 32- and 64-bit floats: float_controls[0|1|2].
  std::array<FloatControls, 3> float_controls{};
  VkShaderFloatControlsIndependence denorm_independence = VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_NONE;
  VkShaderFloatControlsIndependence rounding_independence = VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_NONE;

  uint32_t subgroup_size = 0, min_subgroup_size = 0, max_subgroup_size = 0;
  VkSubgroupFeatureFlags subgroup_ops = 0;  // VK_SUBGROUP_FEATURE_*_BIT
  VkShaderStageFlags subgroup_stages = 0, required_subgroup_size_stages = 0;

  uint64_t max_storage_buffer_range = 0;  // descriptor limit; irrelevant with BDA
  uint32_t max_compute_shared_memory = 0, max_push_constants = 0;
  std::array<uint32_t, 3> max_workgroup_count{}, max_workgroup_size{};
  uint32_t max_workgroup_invocations = 0;
  uint64_t max_memory_allocation = 0;  // largest single buffer we will create
  uint64_t max_buffer_size = 0;        // maintenance4 maxBufferSize (0 = not reported)
  uint32_t max_memory_allocations = 0; // maxMemoryAllocationCount
  uint64_t min_storage_buffer_offset_alignment = 0;
  uint64_t device_local_bytes = 0;     // sum of the device-local heaps
  uint64_t largest_device_local_heap = 0;
  // A DEVICE_LOCAL|HOST_VISIBLE memory type exists (any size: also a 256 MiB BAR).
  bool host_visible_device_local = false;
  // The largest device-local heap is host-visible and coherent (CPU devices,
  // integrated GPUs, resizable BAR): tensors then live in mapped memory and
  // read()/write() are memcpy after a wait.
  bool unified_memory = false;

  bool has_extension(std::string_view ext) const;
  std::string subgroup_ops_string() const;
  // What `concord devices` prints under the device, one line each: float16
  // arithmetic, float controls per width, subgroups, limits, cooperative matrix.
  std::vector<std::string> details() const;  // "basic vote arithmetic ballot ..."
  std::string summary() const;              // one line for `concord devices`
};

// Usable devices, enumerated once, lazily. 0 (never throws) without a loader,
// without a driver, when vkCreateInstance fails, or with CONCORD_VULKAN=0
// (then no instance is created at all).
size_t device_count();
// Info of usable device `index` ("vulkan:index"); DeviceError if out of range.
const DeviceInfo& device_info(size_t index);
// Devices that were found but cannot be used, each with unusable_reason.
const std::vector<DeviceInfo>& skipped_devices();

}  // namespace concord::detail::vk
