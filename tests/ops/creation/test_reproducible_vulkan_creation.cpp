// The reproducible mode's floating arange and linspace, cat, stack and flip
// on every device: the CPU's bits. On Vulkan, arange and linspace run
// iota.comp's XD variant (start + i * step on the doubles' bits, xf64.glsl)
// and cat/stack/flip are copies, so vulkan:0 claims them whatever its float
// controls promise (and the halves and float32 without float64 too; OpenCL
// without float64 runs iota_xd.cl, the same header); the test checks they ran natively there, including
// float64 subnormal starts and steps, which a device flushing float64
// subnormals would turn into zeros.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "concord/concord.h"
#include "support/bits.h"
#include "support/devices.h"
#include "support/native_run.h"

using namespace concord;

namespace {

using concord::test::first_difference;

class ReproducibleVulkanCreation : public concord::test::DeviceTest {
 protected:
  bool on_vulkan() const { return device().kind() == DeviceKind("vulkan"); }
  bool on_opencl() const { return device().kind() == DeviceKind("opencl"); }
  // On Vulkan and OpenCL: `op` ran on the device in dtype t since reset_report(), with no fallback.
  void expect_native(const char* op, Dtype t, const std::string& what) const {
    if (on_vulkan() || on_opencl()) concord::test::expect_ran_on_device(op, device(), t, what, false);
  }
};

struct Range {
  double start, end, step;
};

// In both modes: float16, bfloat16 and float32 run the variant on bits in the
// default mode too, and float64 is the same computation in hardware.
TEST_P(ReproducibleVulkanCreation, ArangeAndLinspaceSameBitsAsTheCpu) {
  for (bool on : {true, false}) {
    ReproducibleGuard mode(on);
    const std::vector<Range> ranges = {
        {0.0, 1.0, 0.1},           {-3.25, 7.5, 0.37},     {1e-310, 3e-309, 7e-311},  // float64 subnormals
        {-2e-308, 2e-308, 3e-309}, {1e30, 1.3e31, 3.3e29},  {0.0, 1e-38, 1.7e-40},     // float32 subnormals
        {5.0, -5.0, -0.3},         {1.0 / 3, 100.0, 1.0 / 7},
        // Just above a tie of float16 (bfloat16): rounding through float32 to
        // nearest would make it a tie and round down; the CPU rounds once.
        {1 + 0x1p-11 + 0x1p-40, 1.1, 0x1p-9}, {-1 - 0x1p-8 - 0x1p-40, -1.1, -0x1p-6}};
    for (Dtype t : {float16, bfloat16, float32, float64}) {
      if (!concord::test::can_store(GetParam(), t)) continue;
      // Vulkan and OpenCL run the halves and float32 on bits without float64
      // (iota.comp's XD_NARROW variants, iota_xd.cl), so natively in every config.
      for (const Range& r : ranges) {
        const std::string what = std::string(name(t)) + " arange(" + std::to_string(r.start) + ", " +
                                 std::to_string(r.end) + ", " + std::to_string(r.step) + ")";
        const Tensor want = arange(r.start, r.end, r.step, t, kCPU);
        reset_report();
        const Tensor got = arange(r.start, r.end, r.step, t, device());
        EXPECT_EQ(first_difference(got, want), "") << what << " on " << device().str();
        expect_native("arange", t, what);
        for (int64_t steps : {1, 2, 7, 33}) {
          const Tensor lw = linspace(r.start, r.end, steps, t, kCPU);
          reset_report();
          const Tensor lg = linspace(r.start, r.end, steps, t, device());
          EXPECT_EQ(first_difference(lg, lw), "") << what << " linspace steps " << steps;
          expect_native("linspace", t, what);
        }
      }
    }
  }
}

TEST_P(ReproducibleVulkanCreation, CatStackFlipSameBitsAsTheCpu) {
  ReproducibleGuard mode(true);
  // Subnormals, ±0, inf and NaN payloads must come through as bits.
  const std::vector<float> v = {1e-45f, -3e-39f, -0.0f, 0.0f, 1e30f, -INFINITY, 2.5f, -1.25e-40f, 7.0f};
  for (Dtype t : {float16, bfloat16, float32, float64}) {
    if (!concord::test::can_store(GetParam(), t)) continue;
    const Tensor a = from_vector(v, {3, 3}).to(t), b = from_vector(v, {3, 3}).to(t).transpose(0, 1);
    const Tensor ad = a.to(device()), bd = b.to(device());
    const std::string what = std::string(name(t));
    reset_report();
    EXPECT_EQ(first_difference(cat({ad, bd}, 1), cat({a, b}, 1)), "") << what << " cat";
    expect_native("cat", t, what);
    reset_report();
    EXPECT_EQ(first_difference(stack({ad, bd}, 0), stack({a, b}, 0)), "") << what << " stack";
    expect_native("stack", t, what);
    reset_report();
    EXPECT_EQ(first_difference(flip(bd, {0, 1}), flip(b, {0, 1})), "") << what << " flip";
    expect_native("flip", t, what);
  }
}

CONCORD_INSTANTIATE_DEVICES(ReproducibleVulkanCreation);

}  // namespace
