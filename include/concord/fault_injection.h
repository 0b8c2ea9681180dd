// concord/fault_injection.h — make allocations, kernel builds and transfers
// fail on purpose. FOR TESTS ONLY.
//
// Every device allocation (host memory of cpu and emu tensors, OpenCL buffers),
// every OpenCL program build and every host<->OpenCL transfer passes a check
// here. When a fault is armed, the chosen call fails through the same code path
// as a real failure:
//   allocation  OutOfMemoryError "[alloc] out of memory allocating N bytes on emu:0 ..."
//               (OpenCL: "[opencl] out of memory allocating N bytes on opencl:0 ...")
//   build       DeviceError "[opencl] building program 'x' failed on opencl:0 ... build log: ..."
//               (the source is compiled with an #error line, so the log is a real compiler log)
//   transfer    DeviceError "[opencl] clEnqueueWriteBuffer(N bytes at offset O, host -> opencl:0) failed ..."
// Transfers between host devices (cpu <-> emu) are plain memcpy and cannot fail.
//
//   concord::testing::FaultInjection guard;                 // clears every fault at scope exit
//   concord::testing::fail_allocation_after(2, concord::testing::AllocKind::emu);
//   EXPECT_THROW(concord::add(a, b), concord::OutOfMemoryError);  // its 2nd emu allocation failed
//
// Thread safety: all state is atomic; faults are process-wide (an armed fault
// fires in whichever thread reaches the k-th call). Cost when nothing is armed:
// one relaxed atomic load per allocation, build or transfer.
#pragma once

#include <atomic>
#include <cstdint>

namespace concord::testing {

// Which allocations count towards fail_allocation_after.
enum class AllocKind : uint8_t { any, host, emu, opencl };  // host = the cpu device

// From now on, the k-th allocation (k >= 1) of `kind` fails once; earlier and
// later ones succeed. Replaces any armed allocation fault. k <= 0 disarms it.
void fail_allocation_after(int64_t k, AllocKind kind = AllocKind::any);
// The next OpenCL program build from source fails (the disk cache is bypassed
// for that build; a program already in the memory cache is not rebuilt, and
// the fault stays pending until a build happens).
void fail_next_kernel_build();
// The next host<->OpenCL read or write fails.
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

bool alloc_slow(testing::AllocKind kind);
bool build_slow();
bool transfer_slow();

// True if this allocation / build / transfer must fail (and counts it).
inline bool should_fail_alloc(testing::AllocKind kind) {
  return (g_armed.load(std::memory_order_relaxed) & kAlloc) && alloc_slow(kind);
}
inline bool should_fail_build() { return (g_armed.load(std::memory_order_relaxed) & kBuild) && build_slow(); }
inline bool should_fail_transfer() {
  return (g_armed.load(std::memory_order_relaxed) & kTransfer) && transfer_slow();
}

}  // namespace concord::detail::fault
