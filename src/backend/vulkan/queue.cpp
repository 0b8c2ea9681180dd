// backend/vulkan/queue.cpp — command recording, asynchronous submission,
// completion tracking and dispatch.
//
// Completion is one timeline semaphore per context: submission k signals
// value k. Unlike a fence per submission, any number of threads may wait on
// it without the context lock, and nothing needs resetting (a fence reset
// while another thread waits on it is a race).
#include <algorithm>
#include <chrono>
#include <thread>

#include "backend/vulkan/internal.h"
#include "concord/error.h"

namespace concord::detail::vk {

namespace {
// A batch is submitted when it holds this many commands (or on read/finish):
// enough to amortise vkQueueSubmit, few enough that the device starts early.
constexpr uint32_t kBatchCommands = 32;
// Submissions in flight before the recorder waits for the oldest; bounds
// the command buffers and argument memory held by a runaway producer.
constexpr size_t kMaxInFlight = 16;
constexpr VkPipelineStageFlags kWorkStages =
    VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
}  // namespace

// -------------------------------------------------------------- batches --

void Context::ensure_open_locked() const {
  if (closed_)
    throw DeviceError("[vulkan] " + device_string() +
                      " used after the runtime shut down; do not use Vulkan tensors during static destruction");
  if (lost_)
    throw DeviceError("[vulkan] " + device_string() + " (" + info_.name +
                      ") was lost earlier (VK_ERROR_DEVICE_LOST); results of queued work are gone; "
                      "restart the process");
}

Context::Batch& Context::batch_locked() {
  if (current_.cb) return current_;
  VkCommandBuffer cb = VK_NULL_HANDLE;
  if (!free_cbs_.empty()) {
    cb = free_cbs_.back();
    free_cbs_.pop_back();
  } else {
    auto ai = make<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
    ai.commandPool = cmd_pool_;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    check(vkAllocateCommandBuffers(device_, &ai, &cb), "vkAllocateCommandBuffers", this);
  }
  auto bi = make<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  if (VkResult r = vkBeginCommandBuffer(cb, &bi); r != VK_SUCCESS) {
    free_cbs_.push_back(cb);
    check(r, "vkBeginCommandBuffer", this);
  }
  current_ = Batch{cb, submitted_ + 1, 0, VK_NULL_HANDLE};
  return current_;
}

void Context::barrier_locked(Batch& b) {
  // Nothing recorded or in flight that this command could race with.
  if (b.commands == 0 && completed_ == submitted_) return;
  // Correct first: every command waits for every earlier one and sees its
  // writes. A smarter scheme would skip the barrier between commands whose
  // buffers do not overlap; only the backend knows the read/write sets.
  auto mb = make<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                     VK_ACCESS_TRANSFER_WRITE_BIT;
  vkCmdPipelineBarrier(b.cb, kWorkStages, kWorkStages, 0, 1, &mb, 0, nullptr, 0, nullptr);
}

void Context::command_done_locked() {
  if (++current_.commands >= kBatchCommands) submit_locked();
}

uint64_t Context::recording_serial_locked() const {
  return current_.cb && current_.commands > 0 ? current_.serial : submitted_;
}

void Context::submit_locked() {
  if (!current_.cb || current_.commands == 0) return;  // an empty batch stays open
  Batch b = current_;
  current_ = Batch{};
  // Device writes become visible to the host once the semaphore signals.
  auto mb = make<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(b.cb, kWorkStages, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, nullptr, 0, nullptr);
  VkResult r = vkEndCommandBuffer(b.cb);
  if (r == VK_SUCCESS) {
    auto ts = make<VkTimelineSemaphoreSubmitInfo>(VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO);
    ts.signalSemaphoreValueCount = 1;
    ts.pSignalSemaphoreValues = &b.serial;
    auto si = make<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
    si.pNext = &ts;
    si.commandBufferCount = 1;
    si.pCommandBuffers = &b.cb;
    si.signalSemaphoreCount = 1;
    si.pSignalSemaphores = &timeline_;
    r = vkQueueSubmit(queue_, 1, &si, VK_NULL_HANDLE);
  }
  if (r != VK_SUCCESS) {
    free_cbs_.push_back(b.cb);  // re-begun later (the pool resets it)
    check(r, "vkQueueSubmit", this);
  }
  submitted_ = b.serial;
  in_flight_.push_back(b);
  ++submissions_;
  if (in_flight_.size() > kMaxInFlight) {
    // Waiting with the lock held is safe: the device progresses without it.
    const uint64_t oldest = in_flight_.front().serial;
    auto wi = make<VkSemaphoreWaitInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO);
    wi.semaphoreCount = 1;
    wi.pSemaphores = &timeline_;
    wi.pValues = &oldest;
    check(wait_semaphores_(device_, &wi, UINT64_MAX), "vkWaitSemaphores", this);
    poll_locked();
  }
}

void Context::poll_locked() {
  if (completed_ == submitted_) return;
  uint64_t value = 0;
  check(semaphore_value_(device_, timeline_, &value), "vkGetSemaphoreCounterValue", this);
  completed_ = std::min(value, submitted_);
  while (!in_flight_.empty() && in_flight_.front().serial <= completed_) {
    free_cbs_.push_back(in_flight_.front().cb);
    in_flight_.pop_front();
  }
  // Buffers freed while work could still use them.
  auto done = std::partition(zombies_.begin(), zombies_.end(),
                             [&](Buffer* b) { return b->release_serial > completed_; });
  for (auto it = done; it != zombies_.end(); ++it) destroy_buffer_locked(*it);
  zombies_.erase(done, zombies_.end());
}

// A blocking vkWaitSemaphores wakes the thread through the kernel: on an
// H200 an 8-element add and its wait took 60 µs (13 µs through OpenCL, whose
// driver spins). So on GPUs the waiter first reads the counter for up to
// kSpinMicros; short ops then return at once and long ones still block.
// Devices on the CPU (lavapipe) never spin: the spinning thread would take a
// core from the device's own threads. Called without the lock (reading the
// counter needs none); true when serial has completed.
bool Context::spin_wait(uint64_t serial) const {
  constexpr auto kSpinMicros = std::chrono::microseconds(200);
  if (info_.type == DeviceType::cpu) return false;
  const auto until = std::chrono::steady_clock::now() + kSpinMicros;
  uint64_t value = 0;
  do {
    if (semaphore_value_(device_, timeline_, &value) != VK_SUCCESS) return false;  // the blocking wait reports it
    if (value >= serial) return true;
    std::this_thread::yield();
  } while (std::chrono::steady_clock::now() < until);
  return false;
}

void Context::wait_locked(std::unique_lock<std::mutex>& lock, uint64_t serial) {
  if (serial <= completed_) return;
  if (serial > submitted_) submit_locked();
  ++waits_;
  lock.unlock();  // other threads keep recording while this one waits
  VkResult r = VK_SUCCESS;
  if (!spin_wait(serial)) {
    auto wi = make<VkSemaphoreWaitInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO);
    wi.semaphoreCount = 1;
    wi.pSemaphores = &timeline_;
    wi.pValues = &serial;
    r = wait_semaphores_(device_, &wi, UINT64_MAX);
  }
  lock.lock();
  check(r, "vkWaitSemaphores", this);
  poll_locked();
}

void Context::finish_locked(std::unique_lock<std::mutex>& lock) { wait_locked(lock, recording_serial_locked()); }

bool Context::idle_locked() {
  if (current_.commands > 0) return false;
  poll_locked();
  return completed_ == submitted_;
}

// ------------------------------------------------------------- dispatch --

void Context::dispatch(const Pipeline& p, uint32_t gx, uint32_t gy, uint32_t gz, const void* push,
                       size_t push_bytes) {
  drain_on_thread_exit();
  std::lock_guard<std::mutex> lock(mu_);
  ensure_open_locked();
  if (push_bytes != p.push_bytes)
    throw DeviceError("[vulkan] dispatch of '" + p.name + "' on " + device_string() + " with " +
                      std::to_string(push_bytes) + " bytes of push constants; the pipeline was created for " +
                      std::to_string(p.push_bytes) + "; this is a concord bug");
  if (gx == 0 || gy == 0 || gz == 0) return;
  const auto& max = info_.max_workgroup_count;
  if (gx > max[0] || gy > max[1] || gz > max[2])
    throw DeviceError("[vulkan] dispatch of '" + p.name + "' on " + device_string() + ": " + std::to_string(gx) +
                      "x" + std::to_string(gy) + "x" + std::to_string(gz) + " workgroups exceed the device's " +
                      std::to_string(max[0]) + "x" + std::to_string(max[1]) + "x" + std::to_string(max[2]) +
                      "; this is a concord bug (use dispatch_1d or split the launch)");
  Batch& b = batch_locked();
  barrier_locked(b);
  if (b.bound != p.pipeline) {
    vkCmdBindPipeline(b.cb, VK_PIPELINE_BIND_POINT_COMPUTE, p.pipeline);
    b.bound = p.pipeline;
  }
  if (push_bytes) vkCmdPushConstants(b.cb, layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                                     static_cast<uint32_t>(push_bytes), push);
  vkCmdDispatch(b.cb, gx, gy, gz);
  ++dispatches_;
  command_done_locked();
}

std::array<uint32_t, 3> Context::grid_1d(uint64_t n, uint32_t local, const std::array<uint32_t, 3>& max) {
  if (n == 0) return {0, 0, 0};
  if (local == 0) local = 1;
  const uint64_t groups = n / local + (n % local != 0);
  // gl_GlobalInvocationID.x is 32 bits: a row of more than 2^32 invocations
  // wraps (possible where maxComputeWorkGroupCount[0] is 2^31 - 1, as on
  // NVIDIA and AMD), so a row holds at most 2^32 / local groups.
  const uint64_t max_x = std::min<uint64_t>(max[0], (uint64_t{1} << 32) / local);
  if (groups <= max_x) return {static_cast<uint32_t>(groups), 1, 1};
  // Fewest rows, then the narrowest rows that cover all groups: at most
  // gy - 1 idle groups.
  const uint64_t gy = (groups + max_x - 1) / max_x;
  if (gy > max[1])
    throw DeviceError("[vulkan] a 1-D launch of " + std::to_string(n) + " items in groups of " +
                      std::to_string(local) + " needs more than " + std::to_string(max_x) + "x" +
                      std::to_string(max[1]) + " workgroups; split the work");
  const uint64_t gx = (groups + gy - 1) / gy;
  return {static_cast<uint32_t>(gx), static_cast<uint32_t>(gy), 1};
}

void Context::dispatch_1d(const Pipeline& p, uint64_t n, const void* push, size_t push_bytes) {
  if (p.local_size[1] != 1 || p.local_size[2] != 1)
    throw DeviceError("[vulkan] dispatch_1d of '" + p.name + "' on " + device_string() +
                      ": its local size is not (x, 1, 1); this is a concord bug");
  const auto g = grid_1d(n, p.local_size[0], info_.max_workgroup_count);
  dispatch(p, g[0], g[1], g[2], push, push_bytes);
}

void Context::flush() {
  std::lock_guard<std::mutex> lock(mu_);
  ensure_open_locked();
  submit_locked();
}

void Context::finish() {
  std::unique_lock<std::mutex> lock(mu_);
  ensure_open_locked();
  finish_locked(lock);
}

}  // namespace concord::detail::vk
