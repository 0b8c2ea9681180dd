#include "support/devices.h"

#include <cstdlib>
#include <sstream>

namespace concord::test {

std::vector<DeviceConfig> test_devices() {
  std::vector<DeviceConfig> all;
  all.push_back({"cpu", kCPU, std::nullopt});
  all.push_back({"emu:0", Device("emu:0"), std::nullopt});
  all.push_back({"emu:0=none", Device("emu:0"), std::string("none")});
  bool first_ocl = true;
  for (const auto& d : devices()) {
    if (d.kind() != DeviceKind::opencl) continue;
    all.push_back({d.str(), d, std::nullopt});
    if (first_ocl) all.push_back({d.str() + "=no-fp64", d, std::string("no-fp64")});
    first_ocl = false;
  }
  const char* only = std::getenv("CONCORD_TEST_DEVICES");
  if (!only || !*only) return all;
  std::vector<DeviceConfig> out;
  std::stringstream ss(only);
  std::string item;
  while (std::getline(ss, item, ','))
    for (const auto& c : all)
      if (c.label == item) out.push_back(c);
  return out;
}

ConfigScope::ConfigScope(const DeviceConfig& c) {
  if (c.profile) guard_ = std::make_unique<ProfileGuard>(c.device, *c.profile);
}

std::string config_name(const ::testing::TestParamInfo<DeviceConfig>& info) {
  std::string s = info.param.label;
  for (char& ch : s)
    if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
}

bool can_store(const DeviceConfig& c, Dtype t) {
  ConfigScope scope(c);
  return capabilities(c.device).can_store(t);
}

}  // namespace concord::test
