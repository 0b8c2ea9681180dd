#include "support/devices.h"

#include <cstdlib>
#include <sstream>

#include "concord/testing.h"

namespace concord::test {

std::vector<DeviceConfig> test_devices() {
  std::vector<DeviceConfig> all;
  for (auto& c : testing::device_configs()) all.push_back({c.label, c.device, c.profile});
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
