// backend/vulkan/internal.h — declarations shared by the runtime's .cpp
// files; not part of the runtime's contract (that is runtime.h).
#pragma once

#include <filesystem>
#include <string>

#include "backend/vulkan/runtime.h"

namespace concord::detail::vk {

// A Vulkan struct with its sType (and pNext) set, every other member zero.
template <class T>
T make(VkStructureType type, void* next = nullptr) {
  T s{};
  s.sType = type;
  s.pNext = next;
  return s;
}

// Reads everything DeviceInfo holds and decides `usable` (device_info.cpp).
DeviceInfo query_device_info(VkInstance instance, VkPhysicalDevice pd, uint32_t instance_api);

// <cache dir>/vulkan, or "" when the disk cache is off (pipelines.cpp).
// Read on every call so tests may change the environment at run time.
std::filesystem::path vulkan_cache_dir();

// A host-visible buffer handed out in pieces: ArgBlocks and staging. A piece
// counts in `pending` until given back; the chunk is reused once nothing is
// pending and the work recorded up to `retire` has completed.
struct HostChunk {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  char* host = nullptr;
  VkDeviceAddress addr = 0;
  size_t size = 0, used = 0;
  uint32_t pending = 0;
  uint64_t retire = 0;
  bool readback = false;
};

// One per pipeline cache key (name, spec constants, subgroup size).
struct Context::PipelineEntry {
  std::mutex mu;  // held while building, so concurrent callers wait for one build
  std::unique_ptr<Pipeline> p;
};

}  // namespace concord::detail::vk
