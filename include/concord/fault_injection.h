// concord/fault_injection.h — make allocations, kernel builds and transfers
// fail on purpose. FOR TESTS ONLY.
//
// Every device allocation (host memory of cpu and emu tensors, OpenCL and
// Vulkan buffers), every kernel build (OpenCL program, Vulkan pipeline) and
// every host<->device transfer passes a check here. When a fault is armed, the chosen call fails through the same code path
// as a real failure:
//   allocation  OutOfMemoryError "[alloc] out of memory allocating N bytes on emu:0 ..."
//               (OpenCL: "[opencl] out of memory allocating N bytes on opencl:0 ...")
//   build       DeviceError "[opencl] building program 'x' failed on opencl:0 ... build log: ..."
//               (the source is compiled with an #error line, so the log is a real compiler log)
//   transfer    DeviceError "[opencl] clEnqueueWriteBuffer(N bytes at offset O, host -> opencl:0) failed ..."
// Transfers between host devices (cpu <-> emu) are plain memcpy and cannot fail.
//
//   concord::testing::FaultInjection guard;                 // clears every fault at scope exit
//   concord::testing::fail_allocation_after(2, "emu");
//   EXPECT_THROW(concord::add(a, b), concord::OutOfMemoryError);  // its 2nd emu allocation failed
//
// Thread safety: all state is atomic; faults are process-wide (an armed fault
// fires in whichever thread reaches the k-th call). Cost when nothing is armed:
// one relaxed atomic load per allocation, build or transfer.
#pragma once

#include <atomic>
#include <cstdint>
#include <string_view>

namespace concord::testing {

// From now on, the k-th allocation (k >= 1) on a device of `kind` fails once;
// earlier and later ones succeed. kind is a device kind name ("cpu" for host
// tensors, "emu", "opencl", "vulkan"), or "" for any. Replaces any armed
// allocation fault. k <= 0 disarms it. An unknown kind throws DeviceError.
void fail_allocation_after(int64_t k, std::string_view kind = "");
// The next kernel build from source fails: an OpenCL program or a Vulkan
// pipeline (the disk cache is bypassed for that build; one already in the
// memory cache is not rebuilt, and the fault stays pending until a build happens).
void fail_next_kernel_build();
// The next host<->device read or write fails (OpenCL, Vulkan).
void fail_next_transfer();
// Disarms every fault (counters are kept).
void clear_faults();

struct FaultCounters {
  uint64_t allocations = 0;         // allocations seen while an allocation fault was armed
  uint64_t allocations_failed = 0;  // injected allocation failures
  uint64_t builds_failed = 0;       // injected build failures
  uint64_t transfers_failed = 0;    // injected transfer failures
  bool allocation_armed = false, build_armed = false, transfer_armed = false;  // still pending
};
FaultCounters fault_counters();

// RAII: clears every fault when constructed and when destroyed, so a test that
// throws half way leaves no armed fault behind.
class FaultInjection {
 public:
  FaultInjection() { clear_faults(); }
  ~FaultInjection() { clear_faults(); }
  FaultInjection(const FaultInjection&) = delete;
  FaultInjection& operator=(const FaultInjection&) = delete;
};

}  // namespace concord::testing

namespace concord::detail::fault {

// Bit set of armed faults; zero in production. Read with one relaxed load.
inline constexpr uint32_t kAlloc = 1, kBuild = 2, kTransfer = 4;
extern std::atomic<uint32_t> g_armed;

bool alloc_slow(uint8_t kind_id);
bool build_slow();
bool transfer_slow();

// True if this allocation / build / transfer must fail (and counts it).
// kind_id: DeviceKind::id() of the allocating device.
inline bool should_fail_alloc(uint8_t kind_id) {
  return (g_armed.load(std::memory_order_relaxed) & kAlloc) && alloc_slow(kind_id);
}
inline bool should_fail_build() { return (g_armed.load(std::memory_order_relaxed) & kBuild) && build_slow(); }
inline bool should_fail_transfer() {
  return (g_armed.load(std::memory_order_relaxed) & kTransfer) && transfer_slow();
}

}  // namespace concord::detail::fault
