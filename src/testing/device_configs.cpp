// The device configurations suites run over (concord/testing.h).
#include "concord/testing.h"

namespace concord::testing {

std::vector<DeviceConfig> device_configs() {
  std::vector<DeviceConfig> out;
  std::vector<DeviceKind> contrasted;
  for (const Device& d : devices()) {
    out.push_back({d.str(), d, std::nullopt});
    if (d.is_cpu()) continue;
    bool seen = false;
    for (const DeviceKind& k : contrasted) seen = seen || k == d.kind();
    if (seen) continue;
    // The first device of each kind, under the profile it does not start with.
    if (!profile(d).empty()) {
      out.push_back({d.str() + "=none", d, std::string("none")});
      contrasted.push_back(d.kind());
    } else if (raw_capabilities(d).can_store(float64)) {
      out.push_back({d.str() + "=no-fp64", d, std::string("no-fp64")});
      contrasted.push_back(d.kind());
    }
  }
  return out;
}

}  // namespace concord::testing
