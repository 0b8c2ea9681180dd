// backend/vulkan/memory.cpp — buffers and their pool, host-visible chunks
// for argument blocks and staging, and host <-> device transfers.
//
// Reuse rule: a released buffer goes back to the pool at once, even while
// recorded work still reads it. That is safe because every later command is
// ordered after it by a full barrier, and every host access (read, write)
// waits for or is enqueued after all recorded work. Only giving memory back
// to the driver must wait, until the work recorded before the release has
// completed (release_serial).
#include <algorithm>
#include <cstring>

#include "backend/vulkan/internal.h"
#include "concord/device.h"
#include "concord/error.h"
#include "concord/fault_injection.h"

namespace concord::detail::vk {

namespace {
uint8_t vulkan_kind_id() {
  static const uint8_t id = DeviceKind("vulkan").id();
  return id;
}
constexpr size_t kChunkBytes = size_t{4} << 20;  // host chunk; also the staging piece
constexpr size_t kChunkCap = size_t{64} << 20;   // per kind, before waiting for reuse
constexpr VkBufferUsageFlags kUsage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                      VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
size_t align_up(size_t v, size_t a) { return (v + a - 1) / a * a; }
}  // namespace

// ---------------------------------------------------------------- buffers --

size_t Context::bucket_size(size_t nbytes) const {
  // Up to 4 KiB: multiples of 256 B. Above: 4 steps per power of two, so a
  // slightly different size still reuses a buffer and waste stays <= 25%.
  constexpr size_t kSmall = 4096, kStep = 256;
  if (nbytes <= kSmall) return std::max(kStep, align_up(nbytes, kStep));
  size_t pow = kSmall;
  while (pow * 2 < nbytes) pow *= 2;
  const size_t b = align_up(nbytes, pow / 4);
  return b > info_.max_memory_allocation ? align_up(nbytes, kStep) : b;
}

uint32_t Context::pick_memory_type(uint32_t bits, VkMemoryPropertyFlags required,
                                   VkMemoryPropertyFlags preferred) const {
  for (const VkMemoryPropertyFlags want : {required | preferred, required})
    for (uint32_t t = 0; t < mem_props_.memoryTypeCount; ++t)
      if ((bits & (1u << t)) && (mem_props_.memoryTypes[t].propertyFlags & want) == want) return t;
  return UINT32_MAX;
}

void Context::throw_oom(size_t nbytes, const std::string& why) const {
  throw OutOfMemoryError("[vulkan] out of memory allocating " + std::to_string(nbytes) + " bytes on " +
                         device_string() + " (" + info_.name + ", " + why +
                         "); free tensors, use a smaller batch or move the work to the cpu");
}

Buffer* Context::create_buffer_locked(size_t bucket) {
  auto bi = make<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
  bi.size = bucket;
  bi.usage = kUsage;
  VkBuffer buf = VK_NULL_HANDLE;
  check(vkCreateBuffer(device_, &bi, nullptr, &buf), "vkCreateBuffer", this);
  auto ded = make<VkMemoryDedicatedRequirements>(VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS);
  auto req = make<VkMemoryRequirements2>(VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2, &ded);
  auto ri = make<VkBufferMemoryRequirementsInfo2>(VK_STRUCTURE_TYPE_BUFFER_MEMORY_REQUIREMENTS_INFO_2);
  ri.buffer = buf;
  vkGetBufferMemoryRequirements2(device_, &ri, &req);
  const uint32_t bits = req.memoryRequirements.memoryTypeBits;
  uint32_t type = (bits & (1u << tensor_type_)) ? tensor_type_
                                                 : pick_memory_type(bits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
  if (type == UINT32_MAX) type = pick_memory_type(bits, 0, 0);
  auto dai = make<VkMemoryDedicatedAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO);
  dai.buffer = buf;
  auto fi = make<VkMemoryAllocateFlagsInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO);
  fi.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  if (ded.prefersDedicatedAllocation || ded.requiresDedicatedAllocation) fi.pNext = &dai;
  auto ai = make<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &fi);
  ai.allocationSize = req.memoryRequirements.size;
  ai.memoryTypeIndex = type;
  VkDeviceMemory mem = VK_NULL_HANDLE;
  VkResult r = vkAllocateMemory(device_, &ai, nullptr, &mem);
  if (r == VK_SUCCESS) r = vkBindBufferMemory(device_, buf, mem, 0);
  void* mapped = nullptr;
  const auto flags = mem_props_.memoryTypes[type].propertyFlags;
  constexpr VkMemoryPropertyFlags kMappable =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  if (r == VK_SUCCESS && tensor_mapped_ && (flags & kMappable) == kMappable)
    r = vkMapMemory(device_, mem, 0, VK_WHOLE_SIZE, 0, &mapped);
  if (r != VK_SUCCESS) {
    vkDestroyBuffer(device_, buf, nullptr);
    if (mem) vkFreeMemory(device_, mem, nullptr);
    check(r, "vkAllocateMemory", this);
  }
  auto di = make<VkBufferDeviceAddressInfo>(VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO);
  di.buffer = buf;
  auto* b = new Buffer{buf, mem, 0, bucket, buffer_address_(device_, &di), mapped, 0,
                       mem_props_.memoryTypes[type].heapIndex, false, 0};
  buffers_.insert(b);
  heap_live_[b->heap] += bucket;
  bytes_live_ += bucket;
  ++allocations_;
  bytes_allocated_ += bucket;
  return b;
}

void Context::destroy_buffer_locked(Buffer* b) {
  vkDestroyBuffer(device_, b->buffer, nullptr);
  vkFreeMemory(device_, b->memory, nullptr);  // also unmaps
  heap_live_[b->heap] -= b->size;
  bytes_live_ -= b->size;
  buffers_.erase(b);
  delete b;
}

void Context::retire_locked(Buffer* b) {
  if (b->release_serial > completed_) poll_locked();
  if (b->release_serial <= completed_) {
    destroy_buffer_locked(b);
  } else {
    zombies_.push_back(b);
    ++deferred_frees_;
  }
}

Buffer* Context::alloc(size_t nbytes) {
  // Test hook (one relaxed load when off): fails the way a refused allocation does.
  if (fault::should_fail_alloc(vulkan_kind_id()))
    throw_oom(nbytes, "injected allocation failure (concord::testing::fail_allocation_after)");
  if (nbytes > info_.max_memory_allocation)
    throw_oom(nbytes, "max single allocation " + std::to_string(info_.max_memory_allocation) + " bytes");
  const size_t bucket = bucket_size(nbytes);
  std::unique_lock<std::mutex> lock(mu_);
  ensure_open_locked();
  if (auto it = pool_.find(bucket); it != pool_.end() && !it->second.empty()) {
    Buffer* b = it->second.back();
    it->second.pop_back();
    bytes_cached_ -= bucket;
    ++pool_hits_;
    b->requested = nbytes;
    b->idle = false;
    return b;
  }
  const uint32_t heap = mem_props_.memoryTypes[tensor_type_].heapIndex;
  const uint64_t heap_size = mem_props_.memoryHeaps[heap].size;
  // Live buffers may not exceed the heap (drivers that overcommit fail late
  // or get the process killed). On failure, the pool is emptied, queued work
  // drained so deferred frees happen, and the allocation retried once.
  for (int attempt = 0;; ++attempt) {
    if (heap_live_[heap] + bucket <= heap_size) {
      try {
        Buffer* b = create_buffer_locked(bucket);
        b->requested = nbytes;
        return b;
      } catch (const OutOfMemoryError&) {
        if (attempt > 0) throw_oom(nbytes, "the driver refused; " + std::to_string(bytes_live_.load()) + " bytes live");
      }
    } else if (attempt > 0) {
      throw_oom(nbytes, std::to_string(heap_live_[heap]) + " of " + std::to_string(heap_size) +
                            " bytes of its memory heap in use");
    }
    for (auto& [size, list] : pool_)
      for (Buffer* b : list) retire_locked(b);
    pool_.clear();
    bytes_cached_ = 0;
    finish_locked(lock);
    ensure_open_locked();
  }
}

void Context::release(Buffer* b) noexcept {
  if (!b) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_ || b->idle) return;  // b was destroyed with the device / released twice
  b->idle = true;
  b->release_serial = recording_serial_locked();
  try {
    if (lost_) {
      destroy_buffer_locked(b);  // nothing runs on a lost device any more
    } else if (bytes_cached_ + b->size > pool_cap_) {
      retire_locked(b);  // may poll the device, which may report it lost
    } else {
      pool_[b->size].push_back(b);
      bytes_cached_ += b->size;
    }
  } catch (...) {
    zombies_.push_back(b);  // freed later, at the latest at shutdown
  }
}

void Context::empty_cache() {
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_) return;
  for (auto& [size, list] : pool_)
    for (Buffer* b : list) retire_locked(b);
  pool_.clear();
  bytes_cached_ = 0;
  // Idle host chunks too (the current ones are kept).
  poll_locked();
  std::erase_if(chunks_, [&](HostChunk* c) {
    if (c == current_chunk_[0] || c == current_chunk_[1] || c->pending || c->retire > completed_) return false;
    destroy_chunk_locked(c);
    return true;
  });
}

// ---------------------------------------------------------- host chunks --

HostChunk* Context::create_chunk_locked(bool readback, size_t nbytes) {
  auto* c = new HostChunk;
  c->size = nbytes;
  c->readback = readback;
  auto bi = make<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
  bi.size = nbytes;
  bi.usage = kUsage;
  VkResult r = vkCreateBuffer(device_, &bi, nullptr, &c->buffer);
  VkMemoryRequirements req{};
  uint32_t type = UINT32_MAX;
  if (r == VK_SUCCESS) {
    vkGetBufferMemoryRequirements(device_, c->buffer, &req);
    // Readback wants cached memory (CPU reads of write-combined memory crawl).
    const VkMemoryPropertyFlags need = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    type = pick_memory_type(req.memoryTypeBits, need, readback ? VK_MEMORY_PROPERTY_HOST_CACHED_BIT : 0);
    if (type == UINT32_MAX) r = VK_ERROR_FEATURE_NOT_PRESENT;
  }
  if (r == VK_SUCCESS) {
    auto fi = make<VkMemoryAllocateFlagsInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO);
    fi.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
    auto ai = make<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &fi);
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = type;
    r = vkAllocateMemory(device_, &ai, nullptr, &c->memory);
  }
  if (r == VK_SUCCESS) r = vkBindBufferMemory(device_, c->buffer, c->memory, 0);
  void* host = nullptr;
  if (r == VK_SUCCESS) r = vkMapMemory(device_, c->memory, 0, VK_WHOLE_SIZE, 0, &host);
  if (r != VK_SUCCESS) {
    destroy_chunk_locked(c);
    check(r, readback ? "allocating a readback staging buffer" : "allocating an argument/staging buffer", this);
  }
  c->host = static_cast<char*>(host);
  auto di = make<VkBufferDeviceAddressInfo>(VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO);
  di.buffer = c->buffer;
  c->addr = buffer_address_(device_, &di);
  chunks_.push_back(c);
  chunk_bytes_ += nbytes;
  return c;
}

void Context::destroy_chunk_locked(HostChunk* c) {
  if (c->buffer) vkDestroyBuffer(device_, c->buffer, nullptr);
  if (c->memory) vkFreeMemory(device_, c->memory, nullptr);
  if (c->host) chunk_bytes_ -= c->size;
  delete c;
}

Context::Block Context::take_block_locked(bool readback, size_t nbytes, size_t align) {
  HostChunk*& cur = current_chunk_[readback];
  auto ready = [&](HostChunk* c) { return c->pending == 0 && c->retire <= completed_; };
  if (cur && ready(cur)) cur->used = 0;  // everything carved from it is done
  if (!cur || align_up(cur->used, align) + nbytes > cur->size) {
    cur = nullptr;
    for (int attempt = 0; !cur; ++attempt) {
      poll_locked();
      size_t held = 0;
      for (HostChunk* c : chunks_) {
        if (c->readback != readback) continue;
        held += c->size;
        if (!cur && ready(c) && c->size >= nbytes) cur = c;
      }
      if (cur) break;
      if (attempt == 0 && held + std::max(nbytes, kChunkBytes) > kChunkCap && recording_serial_locked() > completed_) {
        // Over the cap: wait (lock held; the device needs no lock) for the
        // recorded work so that its chunks come back, then look again.
        submit_locked();
        auto wi = make<VkSemaphoreWaitInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO);
        wi.semaphoreCount = 1;
        wi.pSemaphores = &timeline_;
        wi.pValues = &submitted_;
        ++waits_;
        check(wait_semaphores_(device_, &wi, UINT64_MAX), "vkWaitSemaphores", this);
        continue;
      }
      cur = create_chunk_locked(readback, std::max(nbytes, kChunkBytes));
    }
    cur->used = 0;
  }
  const size_t off = align_up(cur->used, align);
  cur->used = off + nbytes;
  ++cur->pending;
  return Block{cur, cur->host + off, cur->buffer, off, cur->addr + off};
}

void Context::give_back_locked(HostChunk* c) {
  --c->pending;
  c->retire = std::max(c->retire, recording_serial_locked());
}

ArgBlock Context::args(size_t nbytes) {
  std::lock_guard<std::mutex> lock(mu_);
  ensure_open_locked();
  const Block b = take_block_locked(false, std::max<size_t>(nbytes, 16), 16);
  ArgBlock a;
  a.host = b.host;
  a.addr = b.addr;
  a.size = nbytes;
  a.ctx_ = this;
  a.chunk_ = b.chunk;
  return a;
}

void Context::release_args(void* chunk) noexcept {
  std::lock_guard<std::mutex> lock(mu_);
  if (!closed_) give_back_locked(static_cast<HostChunk*>(chunk));
}

ArgBlock::ArgBlock(ArgBlock&& o) noexcept { *this = std::move(o); }

ArgBlock& ArgBlock::operator=(ArgBlock&& o) noexcept {
  if (this != &o) {
    if (ctx_) ctx_->release_args(chunk_);
    host = o.host;
    addr = o.addr;
    size = o.size;
    ctx_ = o.ctx_;
    chunk_ = o.chunk_;
    o.ctx_ = nullptr;
    o.chunk_ = nullptr;
  }
  return *this;
}

ArgBlock::~ArgBlock() {
  if (ctx_) ctx_->release_args(chunk_);
}

}  // namespace concord::detail::vk
