// concord/device.h — devices, their capabilities, and profiles.
//
// A Device names where a tensor lives: "cpu", or "<kind>:N" for a device of a
// registered backend kind. The kinds compiled into a build are listed by
// device_kinds(); today "emu" (an emulated accelerator: its own memory, host
// kernels, default profile no-fp64), "opencl" (OpenCL devices through the ICD
// loader) and "vulkan" (Vulkan devices through the loader, when built with it).
// A kind with no device on this machine simply lists none.
//
// Capabilities are read from the device (OpenCL extension strings, Vulkan
// features), then a profile may restrict them — never extend them:
//   no-fp64      float64 can be neither stored nor computed
//   no-fp16      float16/bfloat16 are storage only; arithmetic in float32
//   no-op:NAME   the op NAME has no native kernel (it falls back to the CPU)
// Profiles come from set_profile() or CONCORD_DEVICE_PROFILE, e.g.
//   CONCORD_DEVICE_PROFILE="emu:0=no-fp64,no-op:solve;opencl:0=no-fp64"
//
//   for (auto& d : concord::devices()) std::cout << d << "\n";
//   concord::Device e("emu:0");
//   bool f64 = concord::capabilities(e).can_compute(concord::float64);  // false
//   bool host = concord::memory_space(e) == concord::MemorySpace::host;  // true
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "concord/dtype.h"
#include "concord/ops_list.h"

namespace concord {

// A registered kind of device: an index into the backend registry, in
// registration order. cpu is always the first kind. Constructed from a kind
// name ("opencl"); an unknown name throws DeviceError listing the kinds of
// this build.
class DeviceKind {
 public:
  constexpr DeviceKind() = default;  // cpu
  DeviceKind(std::string_view name);                             // NOLINT: implicit from "emu", "vulkan"
  DeviceKind(const char* name) : DeviceKind(std::string_view(name)) {}  // NOLINT
  static constexpr DeviceKind from_id(uint8_t id) { return DeviceKind(id, 0); }
  uint8_t id() const { return id_; }
  std::string_view name() const;
  bool operator==(const DeviceKind&) const = default;
  static const DeviceKind cpu;

 private:
  constexpr DeviceKind(uint8_t id, int) : id_(id) {}
  uint8_t id_ = 0;
};
inline constexpr DeviceKind DeviceKind::cpu{};

// Every kind compiled into this build, cpu first (whether or not it has devices here).
std::vector<DeviceKind> device_kinds();

// Where a device's tensors live. host: storage pointers are host pointers the
// CPU can read and write (cpu, emu); device: memory reached only through the
// backend's transfers (OpenCL, Vulkan).
enum class MemorySpace : uint8_t { host, device };

class Device {
 public:
  Device() = default;                                  // cpu
  Device(DeviceKind kind, int index) : kind_(kind), index_(kind == DeviceKind::cpu ? 0 : index) {}
  Device(std::string_view s);                          // NOLINT: "cpu", "emu:0", "opencl:1"; throws DeviceError
  Device(const char* s) : Device(std::string_view(s)) {}  // NOLINT
  DeviceKind kind() const { return kind_; }
  int index() const { return index_; }
  bool is_cpu() const { return kind_ == DeviceKind::cpu; }
  std::string str() const;
  bool operator==(const Device&) const = default;

 private:
  DeviceKind kind_ = DeviceKind::cpu;
  int index_ = 0;
};
std::ostream& operator<<(std::ostream& os, const Device& d);
inline const Device kCPU{};

// The profile applied to a device (restrictions only).
struct Profile {
  bool no_fp64 = false;
  bool no_fp16 = false;
  std::vector<std::string> no_ops;  // op names without a native kernel
  bool empty() const { return !no_fp64 && !no_fp16 && no_ops.empty(); }
  std::string str() const;  // "no-fp64,no-op:solve" or "none"
};
// Parses "no-fp64,no-fp16,no-op:solve"; throws ValueError naming the bad item and the valid ones.
Profile parse_profile(std::string_view s);

struct Capabilities {
  DtypeSet storable;                  // dtypes a tensor on the device may have
  DtypeSet computable;                // dtypes its arithmetic runs in natively
  DtypeSet native[kNumOps];           // per op: dtypes with a native kernel
  // Per op: the dtypes whose native kernels compute in float64 internally
  // (floating arange and linspace on OpenCL and Vulkan): a no-fp64 profile
  // removes them along with float64 itself.
  DtypeSet needs_fp64[kNumOps];
  // Per op: a float16 kernel that computes in float16 itself (the device has
  // float16 arithmetic). Used only under Float16Policy::native (policy.h),
  // as Path::native_f16; a no-fp16 profile removes them.
  bool f16_kernel[kNumOps] = {};
  // Per op: dtypes whose native kernel gives the CPU's bits, which the
  // reproducible mode (policy.h) requires; a subset of native. The registry
  // adds the ops whose error model is exact (or the same random bits) on
  // every device, and the correctly rounded ones where the device promises
  // round-to-nearest and kept subnormals; a backend adds what its kernels
  // are built to match (the CPU's blocked summation order, say).
  DtypeSet reproducible[kNumOps];
  // Per op: the reproducible dtypes whose kernel gives the CPU's bits only by
  // computing in float64 (OpenCL's float32 log, tanh, sigmoid: the CPU's
  // float64-inside algorithms); a no-fp64 profile removes them from
  // `reproducible` (the kernel then computes in float32 on its own terms).
  DtypeSet reproducible_needs_fp64[kNumOps];
  // What the device promises about float arithmetic (float32, and float64
  // where it computes it): + - * / sqrt and conversions round to nearest
  // even, and subnormal inputs and results are kept rather than flushed to
  // zero. The parity sweep judges a device that does not promise them accordingly.
  bool rounds_to_nearest = true;
  bool keeps_subnormals = true;
  // NaN results keep the sign and payload of a NaN operand, and a NaN made
  // from numbers (0/0) has the CPU's sign: true on cpu and emu. OpenCL and
  // SPIR-V leave NaN bits free (NVIDIA returns 0x7fffffff for every float32
  // NaN): only NaN-ness is promised there. The reproducible mode makes every
  // NaN canonical on every device (policy.h), so this does not limit it.
  bool keeps_nan_payloads = true;
  std::string description;            // e.g. the OpenCL device name and driver
  // Further facts about the device, one line each, printed by `concord
  // devices` (Vulkan: float controls, subgroups, limits, cooperative matrix).
  std::vector<std::string> details;
  bool can_store(Dtype t) const { return storable.has(t); }
  bool can_compute(Dtype t) const { return computable.has(t); }
  bool has_kernel(OpId op, Dtype t) const { return native[static_cast<int>(op)].has(t); }
  bool has_reproducible_kernel(OpId op, Dtype t) const {
    return reproducible[static_cast<int>(op)].has(t) && has_kernel(op, t);
  }
  bool has_f16_kernel(OpId op) const { return f16_kernel[static_cast<int>(op)] && has_kernel(op, Dtype::float16); }
};

// Every available device, by kind in registration order: cpu, emu:0 (CONCORD_EMU_DEVICES=N
// for more), opencl:0.., vulkan:0..
std::vector<Device> devices();
bool is_available(const Device& d);
// The instruction-set level of the CPU kernels: "baseline" (x86-64), "avx2"
// or "avx512", the widest the CPU has unless CONCORD_ISA=baseline|avx2|avx512
// caps it. Every level gives the same bits.
std::string_view cpu_isa();
// What the backends have to say about devices they found but cannot use, or
// why a kind has none ("vulkan: CONCORD_VULKAN=0 switched the backend off").
std::vector<std::string> device_notes();
// The memory space of the device's kind (throws DeviceError for an unknown kind).
MemorySpace memory_space(const Device& d);
// Capabilities after the device's profile is applied. Throws DeviceError for unknown devices.
const Capabilities& capabilities(const Device& d);
// Capabilities as read from the hardware, before any profile.
const Capabilities& raw_capabilities(const Device& d);
const Profile& profile(const Device& d);
// Sets the device's profile (replacing the one from the environment). Not for cpu:
// cpu is the reference and the fallback target (throws DeviceError).
void set_profile(const Device& d, const Profile& p);
void set_profile(const Device& d, std::string_view p);

// Memory held by tensors on a device (bytes of live storages, the peak since
// the last reset, and the number of allocations).
struct MemoryStats { uint64_t live_bytes = 0, peak_bytes = 0, allocations = 0; };
MemoryStats memory_stats(const Device& d);
void reset_peak_memory(const Device& d);

// Waits until every operation queued on the device has finished. OpenCL
// kernels run asynchronously (reading a result waits for it anyway); time a
// device's work with synchronize() before reading the clock. No-op on cpu/emu.
//   auto t0 = clock(); c = matmul(a, b); synchronize(c.device()); auto t = clock() - t0;
void synchronize(const Device& d);

// RAII: applies a profile for the guard's lifetime, then restores the previous one.
class ProfileGuard {
 public:
  ProfileGuard(const Device& d, std::string_view p);
  ~ProfileGuard();
  ProfileGuard(const ProfileGuard&) = delete;
  ProfileGuard& operator=(const ProfileGuard&) = delete;
 private:
  Device device_;
  Profile saved_;
};

}  // namespace concord
