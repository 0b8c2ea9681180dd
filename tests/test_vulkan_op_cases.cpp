// Vulkan's registration check of its elementwise claims: every claimed unary
// or binary op has its `case OP_<name>:` in the shaders/elementwise_<class>.glsl
// its dtype's variant includes (natively, and in the reproducible mode's "_x"
// files), read from the shader sources at configure time. A claim without
// its case would write NaN or 0; the check names the op, the dtype and the
// file instead. Needs no device.
#include <gtest/gtest.h>

#if !CONCORD_HAVE_VULKAN

TEST(VulkanOpCases, NotBuilt) { GTEST_SKIP() << "built without the Vulkan backend (CONCORD_VULKAN is OFF)"; }

#else

#include <string>

#include "backend/vulkan/runtime.h"
#include "backend/vulkan/vulkan_backend.h"
#include "concord/error.h"

namespace concord {
namespace {

using detail::vk::check_elementwise_cases;
using detail::vk::embedded_op_cases;

TEST(VulkanOpCases, EveryElementwiseFileIsRead) {
  const auto& cases = embedded_op_cases();
  for (const char* f : {"elementwise_float.glsl", "elementwise_int.glsl", "elementwise_bool.glsl",
                        "elementwise_xf.glsl"}) {
    ASSERT_TRUE(cases.count(f)) << f;
    EXPECT_GE(cases.at(f).size(), 10u) << f << ": fewer cases than ops it serves";
  }
  // floor_divide has its case in every numeric file, atan2 only in the float ones.
  for (const char* f : {"elementwise_float.glsl", "elementwise_int.glsl", "elementwise_xf.glsl"})
    EXPECT_TRUE(cases.at(f).count("floor_divide")) << f;
  EXPECT_TRUE(cases.at("elementwise_float.glsl").count("atan2"));
  EXPECT_FALSE(cases.at("elementwise_int.glsl").count("atan2"));
}

TEST(VulkanOpCases, AClaimWithoutItsCaseIsRefused) {
  Capabilities c;
  c.native[static_cast<int>(OpId::add)] = DtypeSet{int32, float32, bool_};
  EXPECT_NO_THROW(check_elementwise_cases(c));
  // atan2 of int32 would run elementwise_int.glsl's switch, which has no case for it.
  c.native[static_cast<int>(OpId::atan2)] = DtypeSet{int32};
  try {
    check_elementwise_cases(c);
    ADD_FAILURE() << "the claim was accepted";
  } catch (const DeviceError& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("[vulkan] atan2", 0), 0u) << m;
    EXPECT_NE(m.find("int32"), std::string::npos) << m;
    EXPECT_NE(m.find("elementwise_int.glsl"), std::string::npos) << m;
  }
}

TEST(VulkanOpCases, TheModesClaimsAreCheckedAgainstTheBitsFiles) {
  Capabilities c;
  // logical_not of bool: elementwise_bool.glsl has it.
  c.native[static_cast<int>(OpId::logical_not)] = DtypeSet{bool_};
  EXPECT_NO_THROW(check_elementwise_cases(c));
  // float64 floor_divide in the mode runs elementwise_xf.glsl's case (XD).
  c.reproducible[static_cast<int>(OpId::floor_divide)] = DtypeSet{float64};
  EXPECT_NO_THROW(check_elementwise_cases(c));
}

}  // namespace
}  // namespace concord

#endif
