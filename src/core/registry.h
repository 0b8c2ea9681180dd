// The backend registry: every device kind compiled into this build, how it
// finds its devices, and where their memory lives.
//
// A backend is one folder under src/backend/ that defines a BackendDef and one
// line in src/backend/registry.cpp that lists it. Nothing in core/, ops/ or
// testing/ names a backend: code that needs to know whether it can touch a
// tensor's bytes asks memory_space(device), and tables sized per device or per
// kind size themselves from the registry (device_ordinal, device_total).
#pragma once

#include <atomic>
#include <cstddef>
#include <string>
#include <vector>

#include <initializer_list>
#include <utility>

#include "concord/device.h"

namespace concord::detail {

class Backend;

struct BackendDef {
  const char* name;     // the device kind: "cpu", "emu", "opencl", "vulkan"
  MemorySpace memory;   // host: storage pointers are host pointers (CPU kernels may read them)
  // Devices of this kind on this machine. Called once; 0 without a driver (a
  // malformed setting such as CONCORD_EMU_DEVICES=x raises ValueError).
  size_t (*count)();
  // The backend object that serves device `index` (0 <= index < count()).
  Backend& (*backend)(int index);
  // What device `index` claims before any profile (read from the hardware).
  Capabilities (*capabilities)(int index);
  // The profile a device of this kind starts with ("no-fp64" for emu), "" for none.
  const char* default_profile = "";
  // Appended to "not available" errors, e.g. how to get more emu devices.
  const char* availability_hint = "";
  // Lines for `concord devices`: devices found but not usable, or why there are none.
  std::vector<std::string> (*notes)() = nullptr;
};

// The reproducible mode's rule (Capabilities::reproducible), which a device
// backend applies at the end of capabilities(); the CPU's own kernels define
// the bits. An op whose result is fully determined (error model exact, or
// the CPU's random bits) gives the CPU's bits wherever its kernel passes
// conformance; so does a correctly rounded one (one right answer) and one the
// backend computes as the CPU does (`as_cpu`, per op the dtypes: reductions in
// the CPU's blocked order, the CPU's float32 exp). Floating dtypes only on a device that promises
// round-to-nearest and kept subnormals (one that may flush a subnormal input
// changes even a comparison). Which NaN an op makes is free (IEEE 754 leaves
// it so): the mode makes every NaN canonical (Dispatch::canonical_nans), so
// NaN bits never bar a claim. `except`: ops whose kernels the backend knows
// to differ anyway. A backend may claim more after the rule, for kernels whose
// results do not depend on the float unit at all (Vulkan's "_x" variants
// compute on the float bits with integer operations, so they claim floating
// dtypes without kept subnormals).
struct ReproducibleRule {
  std::initializer_list<std::pair<OpId, DtypeSet>> as_cpu;
  std::initializer_list<OpId> except;
};
void claim_reproducible_by_rule(Capabilities& c, const ReproducibleRule& rule);

// At most this many kinds (per-thread autocast state is a fixed array of them).
inline constexpr int kMaxDeviceKinds = 8;

// The registered backends, in registration order (cpu first). Building the
// list enumerates no device.
const std::vector<const BackendDef*>& backend_defs();
// The definition of a kind (throws DeviceError for an id outside the registry).
const BackendDef& backend_def(DeviceKind k);

// Where each kind's devices start in the device list; published once the
// registry is built (every op reads it: it must be a few loads).
struct DeviceTable {
  int kinds = 0;
  int base[kMaxDeviceKinds] = {};
  int count[kMaxDeviceKinds] = {};
};
extern std::atomic<const DeviceTable*> g_device_table;
int device_ordinal_slow(const Device& d);  // builds the registry first

// Position of d in devices(), or -1 when d is not available. O(1); stable for
// the life of the process (the device list is fixed once built).
inline int device_ordinal(const Device& d) {
  const DeviceTable* t = g_device_table.load(std::memory_order_acquire);
  if (!t) return device_ordinal_slow(d);
  const int k = d.kind().id();
  if (k >= t->kinds || d.index() < 0 || d.index() >= t->count[k]) return -1;
  return t->base[k] + d.index();
}
// Number of devices, i.e. one past the largest ordinal.
int device_total();
// The device at an ordinal (0 <= ordinal < device_total()).
Device device_at(int ordinal);

}  // namespace concord::detail
