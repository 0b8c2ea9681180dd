// concord/report.h — what ran where.
//
// Every op the dispatcher runs is counted per (op, device, dtype, path):
//   native    a kernel of the device ran it in the dtype
//   widened   the device stores the dtype but computes it in float32 (float16 on most)
//   downcast  the dtype policy replaced float64 by float32
//   fallback  the device had no kernel; it ran on the CPU
//   autocast  an autocast scope changed the dtype
// and every copy between devices is counted in bytes.
//
//   concord::reset_report();
//   auto y = concord::linalg::solve(a, b);     // on a device without solve
//   std::cout << concord::report();            // shows "solve opencl:0 float32 fallback 1"
// CONCORD_REPORT=1 prints the report to stderr at exit.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "concord/device.h"
#include "concord/dtype.h"
#include "concord/ops_list.h"

namespace concord {

// How a run was carried out. native: the device's own kernel in the dtype
// (float16/bfloat16 computed in float32 and rounded once where the device has
// no half arithmetic: widened); native_f16: a float16 kernel that computes in
// float16 itself, chosen only under Float16Policy::native (policy.h), judged
// by float16 accumulation; autocast: counted once per run an autocast scope changed.
enum class Path : uint8_t { native, widened, downcast, fallback, autocast, native_f16 };
std::string_view name(Path p);

struct Report {
  struct Entry { std::string op; std::string device; Dtype dtype; Path path; uint64_t count; };
  struct Transfer { std::string from, to; uint64_t bytes, count; };
  std::vector<Entry> entries;        // sorted by op, device, dtype, path
  std::vector<Transfer> transfers;
  std::vector<std::string> warnings; // each warning given, in order
  uint64_t reproducible_runs = 0;    // op runs made in the reproducible mode (policy.h)
  // Of their results, those whose NaNs a separate pass over the result made
  // canonical; a kernel that applies the NaN rule in its own stores needs none.
  uint64_t nan_passes = 0;
  // Count for one key (0 if absent); device as a string, e.g. "emu:0".
  uint64_t count(std::string_view op, std::string_view device, Dtype dtype, Path path) const;
  uint64_t count(std::string_view op, Path path) const;     // over devices and dtypes
  uint64_t bytes(std::string_view from, std::string_view to) const;
  std::string str() const;   // a table
  std::string json() const;
};
std::ostream& operator<<(std::ostream& os, const Report& r);

Report report();
void reset_report();

}  // namespace concord
