// Shared by the nn suites (test_nn_linear, test_spectral_norm, test_nn_scan):
// every device configuration crossed with every floating dtype (NnTest),
// float64 host helpers and a bitwise matcher.
#pragma once


#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "concord/concord.h"
#include "concord/testing.h"
#include "support/devices.h"

namespace concord {
inline void PrintTo(Dtype t, std::ostream* os) { *os << name(t); }

namespace {

using test::DeviceConfig;
using testing::accumulation_roundoff;
using testing::round_to;
using testing::ulp;
using testing::unit_roundoff;

using Vec = std::vector<double>;

const Dtype kFloats[] = {float16, bfloat16, float32, float64};

// Uniform [-1, 1] values exact in t.
std::vector<double> values(int64_t n, Dtype t, uint32_t seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) x = round_to(t, u(g));
  return v;
}

Tensor make(const std::vector<double>& v, Shape shape, Dtype t, const Device& d) {
  return from_host(v.data(), shape, float64, kCPU).to(t).to(d);
}

std::vector<double> host(const Tensor& t) { return t.contiguous().to_vector<double>(); }

// The bytes of t (contiguous, on the CPU) for bitwise comparisons.
std::vector<unsigned char> bytes(const Tensor& t) {
  const Tensor c = t.to(kCPU).contiguous();
  std::vector<unsigned char> b(c.nbytes());
  if (!b.empty()) std::memcpy(b.data(), c.raw_data(), b.size());
  return b;
}
struct Bits {
  Tensor t;
  bool operator==(const Bits& o) const {
    return t.dtype() == o.t.dtype() && t.shape() == o.t.shape() && bytes(t) == bytes(o.t);
  }
};
Bits bits(const Tensor& t) { return Bits{t}; }
void PrintTo(const Bits& b, std::ostream* os) { *os << b.t.to(kCPU).str(); }

class NnTest : public ::testing::TestWithParam<std::tuple<DeviceConfig, Dtype>> {
 protected:
  void SetUp() override {
    scope_ = std::make_unique<test::ConfigScope>(config());
    if (!capabilities(device()).can_store(dtype()))
      GTEST_SKIP() << config().label << " cannot store " << name(dtype()) << " (profile " << profile(device()).str()
                   << ")";
  }
  void TearDown() override { scope_.reset(); }
  const DeviceConfig& config() const { return std::get<0>(GetParam()); }
  const Device& device() const { return config().device; }
  Dtype dtype() const { return std::get<1>(GetParam()); }
  std::unique_ptr<test::ConfigScope> scope_;
};

std::string nn_name(const ::testing::TestParamInfo<std::tuple<DeviceConfig, Dtype>>& info) {
  std::string s = std::get<0>(info.param).label + "_" + std::string(name(std::get<1>(info.param)));
  for (char& c : s)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

#define CONCORD_INSTANTIATE_NN(Fixture)                                                                 \
  INSTANTIATE_TEST_SUITE_P(Devices, Fixture,                                                           \
                           ::testing::Combine(::testing::ValuesIn(::concord::test::test_devices()),    \
                                              ::testing::ValuesIn(kFloats)),                           \
                           nn_name)
}  // namespace
}  // namespace concord
