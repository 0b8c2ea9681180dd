// backend/vulkan/context.cpp — the logical device and its objects, stats,
// test hooks, drain and shutdown. Recording and submission: queue.cpp.
#include <algorithm>
#include <cstring>

#include "backend/vulkan/internal.h"
#include "concord/error.h"

namespace concord::detail::vk {

Context::Context(size_t index, VkPhysicalDevice physical, const DeviceInfo& info)
    : index_(index), physical_(physical), info_(info) {
  try {
    create_device();
  } catch (...) {
    shutdown();
    throw;
  }
}

Context::~Context() { shutdown(); }

void Context::create_device() {
  // Enable everything concord's shaders may use that the device has.
  auto f_sg = make<VkPhysicalDeviceSubgroupSizeControlFeatures>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES);
  f_sg.subgroupSizeControl = info_.subgroup_size_control;
  f_sg.computeFullSubgroups = info_.compute_full_subgroups;
  auto f12 = make<VkPhysicalDeviceVulkan12Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
  f12.bufferDeviceAddress = VK_TRUE;
  f12.storageBuffer8BitAccess = VK_TRUE;
  f12.timelineSemaphore = VK_TRUE;
  f12.storagePushConstant8 = info_.push_constant8;
  f12.shaderInt8 = info_.int8;
  f12.shaderFloat16 = info_.fp16;
  f12.scalarBlockLayout = info_.scalar_block_layout;
  f12.vulkanMemoryModel = info_.vulkan_memory_model;
  f12.vulkanMemoryModelDeviceScope = info_.vulkan_memory_model;
  f12.shaderBufferInt64Atomics = info_.int64_atomics;
  if (info_.subgroup_size_control) f12.pNext = &f_sg;
  auto f11 = make<VkPhysicalDeviceVulkan11Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES);
  f11.pNext = &f12;
  f11.storageBuffer16BitAccess = VK_TRUE;
  f11.storagePushConstant16 = info_.push_constant16;
  // The cooperative-matrix GEMM (gemm_coop.comp), when it will be used.
  auto f_coop = make<VkPhysicalDeviceCooperativeMatrixFeaturesNV>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV);
  f_coop.cooperativeMatrix = VK_TRUE;
  f_coop.pNext = f11.pNext;
  if (info_.coop_gemm_f16) f11.pNext = &f_coop;
  auto feats = make<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
  feats.pNext = &f11;
  feats.features.shaderInt64 = VK_TRUE;
  feats.features.shaderFloat64 = info_.fp64;
  feats.features.shaderInt16 = info_.int16;

  std::vector<const char*> exts;
  // The spec requires enabling it where present (MoltenVK).
  if (info_.has_extension("VK_KHR_portability_subset")) exts.push_back("VK_KHR_portability_subset");
  if (info_.subgroup_size_control && info_.api_version_used < VK_API_VERSION_1_3)
    exts.push_back("VK_EXT_subgroup_size_control");
  if (info_.coop_gemm_f16) exts.push_back("VK_NV_cooperative_matrix");

  const float priority = 1.0f;
  auto q = make<VkDeviceQueueCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO);
  q.queueFamilyIndex = info_.compute_queue_family;
  q.queueCount = 1;
  q.pQueuePriorities = &priority;
  auto ci = make<VkDeviceCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO);
  ci.pNext = &feats;
  ci.queueCreateInfoCount = 1;
  ci.pQueueCreateInfos = &q;
  ci.enabledExtensionCount = static_cast<uint32_t>(exts.size());
  ci.ppEnabledExtensionNames = exts.data();
  check(vkCreateDevice(physical_, &ci, nullptr, &device_), "vkCreateDevice", this);
  vkGetDeviceQueue(device_, info_.compute_queue_family, 0, &queue_);

  // 1.2 entry points through the device: no link-time need for a 1.2 loader,
  // and no loader trampoline.
  wait_semaphores_ = reinterpret_cast<PFN_vkWaitSemaphores>(vkGetDeviceProcAddr(device_, "vkWaitSemaphores"));
  semaphore_value_ = reinterpret_cast<PFN_vkGetSemaphoreCounterValue>(
      vkGetDeviceProcAddr(device_, "vkGetSemaphoreCounterValue"));
  buffer_address_ = reinterpret_cast<PFN_vkGetBufferDeviceAddress>(
      vkGetDeviceProcAddr(device_, "vkGetBufferDeviceAddress"));
  if (!wait_semaphores_ || !semaphore_value_ || !buffer_address_)
    check(VK_ERROR_INITIALIZATION_FAILED, "vkGetDeviceProcAddr(Vulkan 1.2 functions)", this);

  auto pci = make<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
  pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT | VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
  pci.queueFamilyIndex = info_.compute_queue_family;
  check(vkCreateCommandPool(device_, &pci, nullptr, &cmd_pool_), "vkCreateCommandPool", this);

  auto tci = make<VkSemaphoreTypeCreateInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO);
  tci.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  auto sci = make<VkSemaphoreCreateInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO);
  sci.pNext = &tci;
  check(vkCreateSemaphore(device_, &sci, nullptr, &timeline_), "vkCreateSemaphore(timeline)", this);

  // One layout for every pipeline: push constants only.
  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, std::min<uint32_t>(128, info_.max_push_constants)};
  auto lci = make<VkPipelineLayoutCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO);
  lci.pushConstantRangeCount = 1;
  lci.pPushConstantRanges = &range;
  check(vkCreatePipelineLayout(device_, &lci, nullptr, &layout_), "vkCreatePipelineLayout", this);

  vkGetPhysicalDeviceMemoryProperties(physical_, &mem_props_);
  heap_live_.assign(mem_props_.memoryHeapCount, 0);
  // The memory type for buffers, from a probe buffer's requirements (all our
  // buffers have the same usage, hence the same memoryTypeBits).
  auto bi = make<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
  bi.size = 256;
  bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
             VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
  VkBuffer probe = VK_NULL_HANDLE;
  check(vkCreateBuffer(device_, &bi, nullptr, &probe), "vkCreateBuffer(probe)", this);
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(device_, probe, &req);
  vkDestroyBuffer(device_, probe, nullptr);
  constexpr VkMemoryPropertyFlags kUnified = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT |
                                             VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                             VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  tensor_type_ = UINT32_MAX;
  if (info_.unified_memory) {
    tensor_type_ = pick_memory_type(req.memoryTypeBits, kUnified, VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
    // Only the big heap: a 256 MiB BAR window is no place for tensors.
    if (tensor_type_ != UINT32_MAX &&
        mem_props_.memoryHeaps[mem_props_.memoryTypes[tensor_type_].heapIndex].size < info_.largest_device_local_heap)
      tensor_type_ = UINT32_MAX;
  }
  if (tensor_type_ == UINT32_MAX)
    tensor_type_ = pick_memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
  if (tensor_type_ == UINT32_MAX) tensor_type_ = pick_memory_type(req.memoryTypeBits, 0, 0);
  if (tensor_type_ == UINT32_MAX)
    check(VK_ERROR_FEATURE_NOT_PRESENT, "choosing a memory type for storage buffers", this);
  tensor_mapped_ = (mem_props_.memoryTypes[tensor_type_].propertyFlags & kUnified) == kUnified;
  // Idle pooled buffers may hold at most a quarter of the heap.
  pool_cap_ = mem_props_.memoryHeaps[mem_props_.memoryTypes[tensor_type_].heapIndex].size / 4;

  load_pipeline_cache();
}

// --------------------------------------------------------------- status --

Context::Stats Context::stats() const {
  Stats s;
  s.allocations = allocations_;
  s.pool_hits = pool_hits_;
  s.bytes_allocated = bytes_allocated_;
  s.bytes_cached = bytes_cached_;
  s.bytes_live = bytes_live_;
  s.deferred_frees = deferred_frees_;
  s.host_chunk_bytes = chunk_bytes_;
  s.submissions = submissions_;
  s.dispatches = dispatches_;
  s.copies = copies_;
  s.waits = waits_;
  s.pipelines_created = pipelines_created_;
  s.pipeline_memory_hits = pipeline_hits_;
  s.pipeline_cache_bytes_loaded = cache_loaded_;
  s.pipeline_cache_bytes_saved = cache_saved_;
  return s;
}

void Context::set_staging_for_testing(bool on) {
  std::lock_guard<std::mutex> lock(mu_);
  force_staging_ = on;
}

void Context::simulate_device_lost_for_testing() { (void)mark_lost("simulate_device_lost_for_testing"); }

void Context::drain() noexcept {
  try {
    std::unique_lock<std::mutex> lock(mu_);
    if (closed_ || lost_ || !device_) return;
    finish_locked(lock);
  } catch (...) {
    // At thread exit there is no one to report to; the next call reports.
  }
}

void Context::shutdown() noexcept {
  std::unique_lock<std::mutex> lock(mu_);
  if (closed_) return;
  closed_ = true;
  if (!device_) return;
  if (!lost_) {
    try {
      submit_locked();
    } catch (...) {
    }
  }
  vkDeviceWaitIdle(device_);  // also fine (an error) on a lost device
  lock.unlock();
  if (cache_dirty_ && !lost_) write_pipeline_cache();
  destroy_pipelines();
  lock.lock();
  // Every Buffer, including those callers still hold: their release() is a
  // no-op from now on.
  for (Buffer* b : buffers_) {
    vkDestroyBuffer(device_, b->buffer, nullptr);
    vkFreeMemory(device_, b->memory, nullptr);
    delete b;
  }
  buffers_.clear();
  pool_.clear();
  zombies_.clear();
  bytes_cached_ = 0;
  bytes_live_ = 0;
  for (HostChunk* c : chunks_) destroy_chunk_locked(c);
  chunks_.clear();
  current_chunk_[0] = current_chunk_[1] = nullptr;
  current_ = Batch{};
  in_flight_.clear();
  free_cbs_.clear();
  if (cmd_pool_) vkDestroyCommandPool(device_, cmd_pool_, nullptr);  // frees its command buffers
  if (timeline_) vkDestroySemaphore(device_, timeline_, nullptr);
  vkDestroyDevice(device_, nullptr);
  cmd_pool_ = VK_NULL_HANDLE;
  timeline_ = VK_NULL_HANDLE;
  device_ = VK_NULL_HANDLE;
}

}  // namespace concord::detail::vk
