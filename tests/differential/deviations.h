// Where concord differs from PyTorch 1.13 on purpose (docs/PYTORCH_DIFFERENCES.md),
// and the cases that wait for fixes on other branches.
//
// Each known deviation is a named, expected exception of the differential
// suite: a case whose discrepancies it explains counts under its name in the
// suite's summary; an entry that no case exercises on the cpu config fails the
// suite (the table and the doc must stay true).
#pragma once

#include <string>
#include <vector>

#include "cases.h"

namespace concord::differential {

struct Deviation {
  const char* name;   // the key in docs/PYTORCH_DIFFERENCES.md's table
  // The whole case may differ (errors raised, result dtype, every value).
  bool (*whole_case)(const Case& c);
  // Only these elements may differ: PyTorch's value tv, concord's cv (may be null).
  bool (*element)(const Case& c, double tv, double cv);
};
const std::vector<Deviation>& known_deviations();


// Case keys (the id without its trailing ".N") of open defects: concord is
// wrong there and the fix is not built yet (see the list). Their cases
// are reported as such on every device, not counted as failures; on cpu a
// listed key that agrees with PyTorch fails the suite, so the list cannot go stale.
const std::vector<std::string>& open_defects();

// "std.overflow" for "std.overflow.1931".
std::string case_key(const Case& c);

}  // namespace concord::differential
