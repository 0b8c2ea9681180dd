// concord/policy.h — what happens when a device cannot do what was asked.
//
// Dtype policy, when a device cannot hold or compute a dtype (float64 on a
// float64-less device):
//   downcast (default)  compute and store in float32; warn once per (op, device, dtype)
//   strict              throw UnsupportedDtypeError naming both remedies
// Fallback policy, when a device has no kernel for an op:
//   cpu (default)       copy inputs to the CPU, run there, copy results back; warn once
//   strict              throw NotImplementedError
// Float16 policy, for float16 arithmetic on a device that has it (Vulkan's
// shaderFloat16):
//   exact (default)     compute in float32 and round once: the CPU's bits
//                       (Path::widened)
//   native              ops with a float16 kernel compute in float16 itself
//                       (Path::native_f16; faster on GPUs, judged by float16
//                       accumulation: a dot of 4096 ones gives 2048); the
//                       others stay exact. `concord ops` shows them as H.
// Reproducible mode: every op gives the same bits on every device that runs
// it. A device runs an op natively in the mode only where its kernel gives
// the CPU's bits (Capabilities::reproducible: exact ops everywhere, correctly
// rounded ones on devices that promise rounding and subnormals, and what the
// backend's kernels are built to match); every other op takes the counted CPU
// fallback (or, under FallbackPolicy::strict, NotImplementedError). Never
// silently weaker: `concord ops --reproducible` shows where each op runs, and
// the report counts the runs made in the mode. Every NaN an op returns in
// the mode is the canonical quiet NaN (0x7fc00000 in float32: positive, no
// payload), on the CPU too: which NaN 0/0 gives, and whether a payload
// survives, differ by device (x86 gives -NaN, NVIDIA 0x7fffffff). Ops that
// write in place (copy_, fill_) keep the bits they are given.
//
//   { concord::ReproducibleGuard g(true);
//     auto y = concord::exp(x_on_opencl);   // the CPU's bits, wherever they were computed
//   }
//
// Global (set_*), scoped per thread (the guards), or from the environment:
// CONCORD_DTYPE_POLICY=downcast|strict, CONCORD_FALLBACK=cpu|strict,
// CONCORD_FLOAT16=exact|native, CONCORD_REPRODUCIBLE=0|1.
//
//   { concord::DtypePolicyGuard g(concord::DtypePolicy::strict);
//     x.to("emu:0");   // throws UnsupportedDtypeError for a float64 x
//   }
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "concord/device.h"
#include "concord/report.h"

namespace concord {

enum class DtypePolicy { downcast, strict };
enum class FallbackPolicy { cpu, strict };
enum class Float16Policy { exact, native };

DtypePolicy dtype_policy();          // the scoped value if a guard is active on this thread, else global
FallbackPolicy fallback_policy();
Float16Policy float16_policy();
bool reproducible();
void set_dtype_policy(DtypePolicy p);        // global
void set_fallback_policy(FallbackPolicy p);  // global
void set_float16_policy(Float16Policy p);    // global
void set_reproducible(bool on);              // global
DtypePolicy parse_dtype_policy(std::string_view s);        // throws ValueError listing valid values
FallbackPolicy parse_fallback_policy(std::string_view s);
Float16Policy parse_float16_policy(std::string_view s);
std::string_view name(DtypePolicy p);
std::string_view name(FallbackPolicy p);
std::string_view name(Float16Policy p);

class DtypePolicyGuard {
 public:
  explicit DtypePolicyGuard(DtypePolicy p);
  ~DtypePolicyGuard();
  DtypePolicyGuard(const DtypePolicyGuard&) = delete;
  DtypePolicyGuard& operator=(const DtypePolicyGuard&) = delete;
 private:
  int saved_;
};

class FallbackPolicyGuard {
 public:
  explicit FallbackPolicyGuard(FallbackPolicy p);
  ~FallbackPolicyGuard();
  FallbackPolicyGuard(const FallbackPolicyGuard&) = delete;
  FallbackPolicyGuard& operator=(const FallbackPolicyGuard&) = delete;
 private:
  int saved_;
};

class Float16PolicyGuard {
 public:
  explicit Float16PolicyGuard(Float16Policy p);
  ~Float16PolicyGuard();
  Float16PolicyGuard(const Float16PolicyGuard&) = delete;
  Float16PolicyGuard& operator=(const Float16PolicyGuard&) = delete;
 private:
  int saved_;
};

class ReproducibleGuard {
 public:
  explicit ReproducibleGuard(bool on);
  ~ReproducibleGuard();
  ReproducibleGuard(const ReproducibleGuard&) = delete;
  ReproducibleGuard& operator=(const ReproducibleGuard&) = delete;
 private:
  int saved_;
};

// How device d would run op on dtype t under the current policies — the same
// answer the dispatcher acts on (it asks this function). `path` is meaningful
// when `runs`; otherwise `reason` says why not (op undefined for the dtype, or
// a strict policy forbids the needed adaptation).
struct Support {
  bool runs = false;
  bool defined = true;   // false: the op is not defined for t on any device
  Path path = Path::native;
  Dtype compute = Dtype::float32;  // the dtype the kernel computes in
  Device exec;                     // where the kernel runs (cpu on fallback)
  std::string reason;
};
Support support(OpId op, const Device& d, Dtype t);

// Warnings about adaptations (downcast, fallback) go to this handler, once per
// (op, device, dtype). The default writes "concord: warning: ..." to stderr.
// Returns the previous handler. Thread-safe.
using WarningHandler = std::function<void(const std::string&)>;
WarningHandler set_warning_handler(WarningHandler h);
// Forget which warnings were already given (so they are given again).
void reset_warnings();

}  // namespace concord
