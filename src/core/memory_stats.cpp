// Per-device memory accounting: every backend reports allocations and frees.
#include <array>
#include <atomic>

#include "core/backend.h"

namespace concord {

namespace {
struct Counters {
  std::atomic<uint64_t> live{0}, peak{0}, allocations{0};
};
constexpr int kSlots = 64;
// Slot per device: cpu 0, emu:N 1+N (N < 31), opencl:N 32+N (N < 32).
Counters& slot(const Device& d) {
  static std::array<Counters, kSlots> all;
  int i = 0;
  if (d.kind() == DeviceKind::emu) i = 1 + (d.index() % 31);
  else if (d.kind() == DeviceKind::opencl) i = 32 + (d.index() % 32);
  return all[i];
}
}  // namespace

namespace detail {
void note_alloc(const Device& d, size_t nbytes) {
  Counters& c = slot(d);
  const uint64_t now = c.live.fetch_add(nbytes, std::memory_order_relaxed) + nbytes;
  c.allocations.fetch_add(1, std::memory_order_relaxed);
  uint64_t peak = c.peak.load(std::memory_order_relaxed);
  while (now > peak && !c.peak.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}
void note_free(const Device& d, size_t nbytes) { slot(d).live.fetch_sub(nbytes, std::memory_order_relaxed); }
}  // namespace detail

MemoryStats memory_stats(const Device& d) {
  Counters& c = slot(d);
  return {c.live.load(), c.peak.load(), c.allocations.load()};
}

void reset_peak_memory(const Device& d) {
  Counters& c = slot(d);
  c.peak.store(c.live.load());
}

}  // namespace concord
