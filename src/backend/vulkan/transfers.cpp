// backend/vulkan/transfers.cpp — host <-> device transfers and enqueued
// device copies and fills.
//
// Mapped (unified) memory: a transfer is a memcpy once no recorded work can
// touch the buffer. Other memory, or small writes while work is queued, go
// through pieces of host-visible chunks and vkCmdCopyBuffer.
#include <algorithm>
#include <cstring>
#include <vector>

#include "backend/vulkan/internal.h"
#include "concord/error.h"
#include "concord/fault_injection.h"

namespace concord::detail::vk {

namespace {
constexpr size_t kPiece = size_t{4} << 20;       // one staging piece (a host chunk's size)
constexpr size_t kSmallWrite = size_t{1} << 20;  // staged, rather than waiting for the queue
constexpr size_t kPiecesPerWait = 8;             // staged read: pieces copied per wait
}  // namespace

std::string Context::transfer_what(const char* what, size_t nbytes, size_t offset, bool to_device) const {
  return "[vulkan] " + std::string(what) + " of " + std::to_string(nbytes) + " bytes at offset " +
         std::to_string(offset) + " (" + (to_device ? "host -> " + device_string() : device_string() + " -> host") +
         ")";
}

void Context::check_range(const Buffer* b, size_t offset, size_t nbytes, const char* what) const {
  if (!b)
    throw DeviceError("[vulkan] " + std::string(what) + " on " + device_string() +
                      " with a null buffer; this is a concord bug");
  if (offset > b->size || nbytes > b->size - offset)
    throw DeviceError("[vulkan] " + std::string(what) + " of " + std::to_string(nbytes) + " bytes at offset " +
                      std::to_string(offset) + " is outside a buffer of " + std::to_string(b->size) + " bytes on " +
                      device_string() + "; this is a concord bug");
}

void Context::record_copy_locked(VkBuffer src, VkDeviceSize src_off, VkBuffer dst, VkDeviceSize dst_off,
                                 VkDeviceSize n) {
  Batch& b = batch_locked();
  barrier_locked(b);
  const VkBufferCopy region{src_off, dst_off, n};
  vkCmdCopyBuffer(b.cb, src, dst, 1, &region);
  ++copies_;
  command_done_locked();
}

void Context::write(Buffer* dst, size_t offset, size_t nbytes, const void* src) {
  if (nbytes == 0) return;
  // An injected failure reports what a driver does when a transfer cannot complete.
  if (fault::should_fail_transfer())
    throw DeviceError(transfer_what("write", nbytes, offset, true) +
                      " failed: injected transfer failure "
                      "(concord::testing::fail_next_transfer); nothing was written");
  drain_on_thread_exit();
  std::unique_lock<std::mutex> lock(mu_);
  ensure_open_locked();
  check_range(dst, offset, nbytes, "write");
  if (dst->mapped && !force_staging_) {
    if (idle_locked() || nbytes > kSmallWrite) {
      // Big writes wait for the queue rather than copy everything twice.
      finish_locked(lock);
      ensure_open_locked();
      std::memcpy(static_cast<char*>(dst->mapped) + offset, src, nbytes);
      return;
    }
  }
  // Enqueued through staging pieces: ordered after recorded work, and the
  // caller's memory is free to reuse on return.
  const auto* from = static_cast<const char*>(src);
  for (size_t done = 0; done < nbytes;) {
    const size_t piece = std::min(nbytes - done, kPiece);
    const Block blk = take_block_locked(false, piece, 16);
    std::memcpy(blk.host, from + done, piece);
    try {
      record_copy_locked(blk.buffer, blk.offset, dst->buffer, dst->offset + offset + done, piece);
    } catch (...) {
      give_back_locked(blk.chunk);
      throw;
    }
    give_back_locked(blk.chunk);
    done += piece;
  }
}

void Context::read(const Buffer* src, size_t offset, size_t nbytes, void* dst) {
  if (nbytes == 0) return;
  if (fault::should_fail_transfer())
    throw DeviceError(transfer_what("read", nbytes, offset, false) +
                      " failed: injected transfer failure "
                      "(concord::testing::fail_next_transfer); nothing was read");
  drain_on_thread_exit();
  std::unique_lock<std::mutex> lock(mu_);
  ensure_open_locked();
  check_range(src, offset, nbytes, "read");
  if (src->mapped && !force_staging_) {
    finish_locked(lock);
    ensure_open_locked();
    const void* from = static_cast<const char*>(src->mapped) + offset;
    lock.unlock();  // a long memcpy must not stall other threads' recording
    std::memcpy(dst, from, nbytes);
    return;
  }
  auto* to = static_cast<char*>(dst);
  struct Piece {
    Block blk;
    size_t at, n;
  };
  std::vector<Piece> pieces;
  auto give_back_all = [&] {
    for (const Piece& p : pieces) give_back_locked(p.blk.chunk);
    pieces.clear();
  };
  try {
    for (size_t done = 0; done < nbytes;) {
      // A round: copy up to kPiecesPerWait pieces, wait once, memcpy them out.
      while (done < nbytes && pieces.size() < kPiecesPerWait) {
        const size_t piece = std::min(nbytes - done, kPiece);
        pieces.push_back({take_block_locked(true, piece, 16), done, piece});
        record_copy_locked(src->buffer, src->offset + offset + done, pieces.back().blk.buffer,
                           pieces.back().blk.offset, piece);
        done += piece;
      }
      finish_locked(lock);
      ensure_open_locked();
      lock.unlock();
      for (const Piece& p : pieces) std::memcpy(to + p.at, p.blk.host, p.n);
      lock.lock();
      give_back_all();
    }
  } catch (...) {
    if (!lock.owns_lock()) lock.lock();
    if (!closed_) give_back_all();
    throw;
  }
}

void Context::copy(const Buffer* src, size_t src_off, Buffer* dst, size_t dst_off, size_t nbytes) {
  if (nbytes == 0) return;
  drain_on_thread_exit();
  std::lock_guard<std::mutex> lock(mu_);
  ensure_open_locked();
  check_range(src, src_off, nbytes, "copy source");
  check_range(dst, dst_off, nbytes, "copy destination");
  if (src == dst && src_off < dst_off + nbytes && dst_off < src_off + nbytes)
    throw DeviceError("[vulkan] copy of " + std::to_string(nbytes) + " bytes within one buffer on " +
                      device_string() + " with overlapping ranges; this is a concord bug");
  record_copy_locked(src->buffer, src->offset + src_off, dst->buffer, dst->offset + dst_off, nbytes);
}

void Context::fill(Buffer* dst, size_t offset, size_t nbytes, uint32_t word) {
  if (nbytes == 0) return;
  drain_on_thread_exit();
  std::lock_guard<std::mutex> lock(mu_);
  ensure_open_locked();
  check_range(dst, offset, nbytes, "fill");
  if (offset % 4 || nbytes % 4)
    throw DeviceError("[vulkan] fill of " + std::to_string(nbytes) + " bytes at offset " + std::to_string(offset) +
                      " on " + device_string() + ": both must be multiples of 4; this is a concord bug");
  Batch& b = batch_locked();
  barrier_locked(b);
  vkCmdFillBuffer(b.cb, dst->buffer, dst->offset + offset, nbytes, word);
  ++copies_;
  command_done_locked();
}

}  // namespace concord::detail::vk
