// Test helpers for "this op ran on the device, not through the CPU
// fallback" checks (the reproducible-mode tests of the Vulkan variants on
// bits use them), and the small deterministic generator those tests share.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "concord/concord.h"

namespace concord::test {

// The report since reset_report(): `op` ran on device d in dtype t, natively
// or widened from a half, and never through the CPU fallback; with
// no_nan_pass, no separate NaN pass ran either (the kernel writes canonical
// NaNs itself). `what` names the case in failure messages.
inline void expect_ran_on_device(std::string_view op, const Device& d, Dtype t, std::string_view what,
                                 bool no_nan_pass) {
  const Report r = report();
  const std::string name(op);
  EXPECT_EQ(r.count(name, Path::fallback), 0u) << what << ": " << name << " fell back\n" << r;
  EXPECT_GT(r.count(name, d.str(), t, Path::native) + r.count(name, d.str(), t, Path::widened), 0u)
      << what << ": " << name << " did not run on " << d.str() << "\n" << r;
  if (no_nan_pass) {
    EXPECT_EQ(r.nan_passes, 0u) << what << ": " << name << " needed a separate NaN pass\n" << r;
  }
}

// A 64-bit linear congruential generator: the same numbers on every platform.
struct Lcg {
  uint64_t s;
  uint32_t next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(s >> 33);
  }
  double uniform() { return (next() * 0x1p-31 + next() * 0x1p-62) * 2 - 1; }  // [-1, 1)
};

}  // namespace concord::test
