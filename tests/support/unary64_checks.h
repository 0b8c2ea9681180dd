// The checks shared by the tests of the reproducible mode's float64 unary
// ops on bits (test_reproducible_vulkan_math64.cpp, _erf64.cpp,
// _trig64.cpp): each shader header compiled as C++ is compared with the CPU
// backend's op over about a million values (breadth is cheap there), then the
// device with the CPU on a few thousand (lavapipe is slow with
// integer-emulated doubles).
//
//   const std::vector<UnaryOp64> ops = {{OpId::exp, [](const Tensor& x) { return exp(x); }, glsl::xe_exp}};
//   expect_cpp_same_bits(ops, values);                      // TEST
//   expect_device_same_bits(ops, values, GetParam(), device());  // TEST_P
#pragma once

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "concord/concord.h"
#include "support/bits.h"
#include "support/devices.h"
#include "support/native_run.h"

namespace concord::test {

// A float64 op: how the library runs it, and the shader's function on bits.
struct UnaryOp64 {
  OpId id;
  Tensor (*run)(const Tensor&);
  uint64_t (*on_bits)(uint64_t);
};

// 64 pseudo-random bits from three of the Lcg's 31-bit draws.
inline uint64_t next64(Lcg& g) {
  const uint64_t a = g.next(), b = g.next(), c = g.next();
  return (a << 33) ^ (b << 2) ^ c;
}

inline Tensor host64(const std::vector<double>& v) {
  return from_host(v.data(), {static_cast<int64_t>(v.size())}, float64, kCPU);
}

inline bool is_vulkan_device(const Device& dev) { return dev.kind().name() == "vulkan"; }

// Each op's shader function (compiled as C++) against the CPU's op in the
// mode, on every value of v; the first difference is reported.
inline void expect_cpp_same_bits(const std::vector<UnaryOp64>& ops, const std::vector<double>& v) {
  const Tensor x = host64(v);
  ReproducibleGuard guard(true);
  for (const UnaryOp64& op : ops) {
    const Tensor want = op.run(x).contiguous();
    const auto* w = static_cast<const uint64_t*>(want.raw_data());
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < v.size(); ++i)
      if (op.on_bits(std::bit_cast<uint64_t>(v[i])) != w[i] && bad++ == 0) first = i;
    EXPECT_EQ(bad, 0u) << op_name(op.id) << ": first at x = " << v[first] << " (0x" << std::hex
                       << std::bit_cast<uint64_t>(v[first]) << "): 0x" << op.on_bits(std::bit_cast<uint64_t>(v[first]))
                       << " vs the CPU's 0x" << w[first];
  }
}

// On a Vulkan device that stores float64: every op is claimed for float64 in
// the mode, whatever the device's float controls.
inline void expect_claims_float64(const std::vector<UnaryOp64>& ops, const Device& dev) {
  const Capabilities& caps = capabilities(dev);
  for (const UnaryOp64& op : ops) EXPECT_TRUE(caps.has_reproducible_kernel(op.id, float64)) << op_name(op.id);
}

// v (an even count is used) on the device against the CPU in the mode,
// contiguous and as a strided view (every other element of a transpose); on
// Vulkan, natively with no fallback and no separate NaN pass.
inline void expect_device_same_bits(const std::vector<UnaryOp64>& ops, const std::vector<double>& v,
                                    const DeviceConfig& config, const Device& dev) {
  const int64_t n = static_cast<int64_t>(v.size()) / 2 * 2;
  const Tensor x = host64(v).narrow(0, 0, n), xd = x.to(dev);
  const Tensor vc = x.reshape({n / 2, 2}).t(), vd = xd.reshape({n / 2, 2}).t();
  ReproducibleGuard guard(true);
  for (const UnaryOp64& op : ops) {
    const std::string what = std::string(op_name(op.id)) + " float64 on " + config.label;
    const Tensor want = op.run(x), want_v = op.run(vc);
    reset_report();
    const Tensor got = op.run(xd), got_v = op.run(vd);
    if (is_vulkan_device(dev)) expect_ran_on_device(op_name(op.id), dev, float64, what, true);
    EXPECT_EQ(first_difference(got, want), "") << what;
    EXPECT_EQ(first_difference(got_v, want_v), "") << what << " strided view";
  }
}

}  // namespace concord::test
