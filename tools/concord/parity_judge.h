// Running one parity case on one device and dtype, and judging it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "parity_cases.h"

namespace concord::cli {

enum class Verdict { pass, fail, fallback, downcast, unsupported };
std::string_view verdict_name(Verdict v);  // "PASS", "FAIL", ...

struct Result {
  bool applicable = true;  // false: the op is not defined for the dtype
  std::string op, variant, config;
  Dtype dtype = float32;
  Verdict verdict = Verdict::pass;
  double ratio = 0;        // error / bound of the worst element (0 when exact)
  std::string detail;      // what failed, with numbers
};

// inject: perturb the device's result (a test hook proving that failures fail).
Result judge(const ParityCase& c, const Device& device, Dtype t, uint64_t seed, bool inject);

// Composites computed two ways on the same device: prints the findings and
// returns 1 if a pair that must agree bitwise does not.
int compare_paths(const std::vector<Device>& devices, uint64_t seed);

}  // namespace concord::cli
