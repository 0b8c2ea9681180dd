// Per-device memory accounting: every backend reports allocations and frees.
#include <atomic>
#include <memory>

#include "core/backend.h"
#include "core/registry.h"

namespace concord {

namespace {
struct Counters {
  std::atomic<uint64_t> live{0}, peak{0}, allocations{0};
};
// One slot per device ordinal, sized from the registry on first use; leaked
// so that storages released during static destruction can still count.
Counters g_stray;  // a device outside the registry (never in practice)
std::atomic<Counters*> g_slots{nullptr};
[[gnu::noinline]] Counters* make_slots() {
  static Counters* all = [] {
    auto* c = new Counters[static_cast<size_t>(detail::device_total())];
    g_slots.store(c, std::memory_order_release);
    return c;
  }();
  return all;
}
inline Counters& slot(const Device& d) {
  Counters* all = g_slots.load(std::memory_order_acquire);
  if (!all) [[unlikely]] all = make_slots();
  const int i = detail::device_ordinal(d);
  return i < 0 ? g_stray : all[i];
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
  if (!is_available(d)) capabilities(d);  // the "not available" DeviceError
  Counters& c = slot(d);
  return {c.live.load(), c.peak.load(), c.allocations.load()};
}

void reset_peak_memory(const Device& d) {
  if (!is_available(d)) capabilities(d);
  Counters& c = slot(d);
  c.peak.store(c.live.load());
}

}  // namespace concord
