// Test support: the device configurations every test is parametrised over.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "concord/concord.h"

namespace concord::test {

// One device with one profile. profile == std::nullopt keeps the device's own
// (emu:0's default is no-fp64); "none" removes every restriction.
struct DeviceConfig {
  std::string label;   // "cpu", "emu:0", "emu:0=none", "opencl:0", "opencl:0=no-fp64"
  Device device;
  std::optional<std::string> profile;
};

// concord::testing::device_configs(): cpu, emu:0 (default profile), emu:0=none,
// every opencl:N and vulkan:N, opencl:0=no-fp64, vulkan:0=no-fp64.
// CONCORD_TEST_DEVICES="cpu,emu:0" restricts the list (labels, comma separated).
std::vector<DeviceConfig> test_devices();

// Applies a config's profile for its lifetime.
class ConfigScope {
 public:
  explicit ConfigScope(const DeviceConfig& c);
 private:
  std::unique_ptr<ProfileGuard> guard_;
};

// gtest parameter name: "emu_0_none".
std::string config_name(const ::testing::TestParamInfo<DeviceConfig>& info);

// True if the device (with the config's profile) can store dtype t.
bool can_store(const DeviceConfig& c, Dtype t);

// Fixture base: applies the profile in SetUp.
class DeviceTest : public ::testing::TestWithParam<DeviceConfig> {
 protected:
  void SetUp() override { scope_ = std::make_unique<ConfigScope>(GetParam()); }
  void TearDown() override { scope_.reset(); }
  const Device& device() const { return GetParam().device; }
  std::unique_ptr<ConfigScope> scope_;
};

inline void PrintTo(const DeviceConfig& c, std::ostream* os) { *os << c.label; }

}  // namespace concord::test

#define CONCORD_INSTANTIATE_DEVICES(Fixture) \
  INSTANTIATE_TEST_SUITE_P(Devices, Fixture, ::testing::ValuesIn(::concord::test::test_devices()), \
                           ::concord::test::config_name)
