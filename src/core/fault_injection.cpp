// Test-only fault injection (see concord/fault_injection.h). The hot paths
// only read g_armed; everything else happens once a fault is armed.
#include "concord/fault_injection.h"

#include "concord/device.h"

namespace concord::detail::fault {

std::atomic<uint32_t> g_armed{0};

namespace {
std::atomic<int64_t> g_alloc_left{0};  // allocations until the failing one (1 = the next)
std::atomic<int> g_alloc_kind{-1};  // DeviceKind id, -1 for any
std::atomic<bool> g_build_pending{false}, g_transfer_pending{false};
std::atomic<uint64_t> g_allocations{0}, g_allocations_failed{0}, g_builds_failed{0}, g_transfers_failed{0};
}  // namespace

bool alloc_slow(uint8_t kind_id) {
  const int want = g_alloc_kind.load();
  if (want >= 0 && want != kind_id) return false;
  g_allocations.fetch_add(1);
  // Exactly one caller sees the count reach zero, even when threads race.
  if (g_alloc_left.fetch_sub(1) != 1) return false;
  g_armed.fetch_and(~kAlloc);
  g_allocations_failed.fetch_add(1);
  return true;
}

bool build_slow() {
  if (!g_build_pending.exchange(false)) return false;
  g_armed.fetch_and(~kBuild);
  g_builds_failed.fetch_add(1);
  return true;
}

bool transfer_slow() {
  if (!g_transfer_pending.exchange(false)) return false;
  g_armed.fetch_and(~kTransfer);
  g_transfers_failed.fetch_add(1);
  return true;
}

}  // namespace concord::detail::fault

namespace concord::testing {

using namespace concord::detail::fault;

void fail_allocation_after(int64_t k, std::string_view kind) {
  g_armed.fetch_and(~kAlloc);
  if (k <= 0) return;
  g_alloc_kind.store(kind.empty() ? -1 : DeviceKind(kind).id());
  g_alloc_left.store(k);
  g_allocations.store(0);
  g_armed.fetch_or(kAlloc);
}

void fail_next_kernel_build() {
  g_build_pending.store(true);
  g_armed.fetch_or(kBuild);
}

void fail_next_transfer() {
  g_transfer_pending.store(true);
  g_armed.fetch_or(kTransfer);
}

void clear_faults() {
  g_armed.store(0);
  g_alloc_left.store(0);
  g_build_pending.store(false);
  g_transfer_pending.store(false);
}

FaultCounters fault_counters() {
  const uint32_t armed = g_armed.load();
  FaultCounters c;
  c.allocations = g_allocations.load();
  c.allocations_failed = g_allocations_failed.load();
  c.builds_failed = g_builds_failed.load();
  c.transfers_failed = g_transfers_failed.load();
  c.allocation_armed = (armed & kAlloc) != 0;
  c.build_armed = (armed & kBuild) != 0;
  c.transfer_armed = (armed & kTransfer) != 0;
  return c;
}

}  // namespace concord::testing
