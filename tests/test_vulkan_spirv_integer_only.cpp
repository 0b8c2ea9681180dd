// The reproducible mode's Vulkan variants that claim integer-only arithmetic
// ("_x" variants: ew_*_x, iota_x_*, reduce_x_*, reduce_xs_*, linalg_x_*; and
// gemm_canon_*, the matmul family's fma chain on bits) contain no
// floating-point instruction: their bits must not depend on what the device's
// float unit does with subnormals, rounding or NaNs. Each embedded SPIR-V
// module is decoded word by word (the instruction stream is a fixed format:
// word count << 16 | opcode) and every float instruction is named: OpF*
// arithmetic and compares, float conversions, OpIsNan/OpIsInf, vector and
// matrix products, and GLSL.std.450 extended instructions other than the
// integer ones (SAbs, SSign, U/SMin, U/SMax, U/SClamp, FindILsb, FindS/UMsb).
// Bit casts are allowed: they move bits, not values. Needs no device.
#include <gtest/gtest.h>

#if !CONCORD_HAVE_VULKAN

TEST(VulkanSpirvIntegerOnly, NotBuilt) { GTEST_SKIP() << "built without the Vulkan backend (CONCORD_VULKAN is OFF)"; }

#else

#include <cstdint>
#include <cstring>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "backend/vulkan/runtime.h"

namespace {

// Core opcodes that compute on floating-point values (SPIR-V 1.6, section 3.52).
const std::map<uint32_t, const char*>& float_opcodes() {
  static const std::map<uint32_t, const char*> m = {
      {109, "OpConvertFToU"},       {110, "OpConvertFToS"},        {111, "OpConvertSToF"},
      {112, "OpConvertUToF"},       {115, "OpFConvert"},           {116, "OpQuantizeToF16"},
      {127, "OpFNegate"},           {129, "OpFAdd"},               {131, "OpFSub"},
      {133, "OpFMul"},              {136, "OpFDiv"},               {140, "OpFRem"},
      {141, "OpFMod"},              {142, "OpVectorTimesScalar"},  {143, "OpMatrixTimesScalar"},
      {144, "OpVectorTimesMatrix"}, {145, "OpMatrixTimesVector"},  {146, "OpMatrixTimesMatrix"},
      {147, "OpOuterProduct"},      {148, "OpDot"},                {156, "OpIsNan"},
      {157, "OpIsInf"},             {158, "OpIsFinite"},           {159, "OpIsNormal"},
      {162, "OpOrdered"},           {163, "OpUnordered"},          {180, "OpFOrdEqual"},
      {181, "OpFUnordEqual"},       {182, "OpFOrdNotEqual"},       {183, "OpFUnordNotEqual"},
      {184, "OpFOrdLessThan"},      {185, "OpFUnordLessThan"},     {186, "OpFOrdGreaterThan"},
      {187, "OpFUnordGreaterThan"}, {188, "OpFOrdLessThanEqual"},  {189, "OpFUnordLessThanEqual"},
      {190, "OpFOrdGreaterThanEqual"}, {191, "OpFUnordGreaterThanEqual"}, 
     
      {5361, "OpCooperativeMatrixMulAddNV"}, {4459, "OpCooperativeMatrixMulAddKHR"}};
  return m;
}

// GLSL.std.450 instructions that touch no float value.
const std::set<uint32_t> kIntegerExtInst = {5 /*SAbs*/,     7 /*SSign*/,    38 /*UMin*/,     39 /*SMin*/,
                                            41 /*UMax*/,    42 /*SMax*/,    44 /*UClamp*/,   45 /*SClamp*/,
                                            73 /*FindILsb*/, 74 /*FindSMsb*/, 75 /*FindUMsb*/};

constexpr uint32_t kOpExtInstImport = 11, kOpExtInst = 12;

// "OpFAdd x3, GLSL.std.450 #31 x1" for the float instructions of one module.
std::string float_instructions(const std::vector<uint32_t>& words) {
  std::map<std::string, int> found;
  std::set<uint32_t> glsl_sets;  // result ids of OpExtInstImport "GLSL.std.450"
  for (size_t i = 5; i < words.size();) {
    const uint32_t count = words[i] >> 16, op = words[i] & 0xffffu;
    if (count == 0 || i + count > words.size()) return "malformed module (instruction at word " + std::to_string(i) + ")";
    if (op == kOpExtInstImport) {
      const char* name = reinterpret_cast<const char*>(&words[i + 2]);
      if (std::string(name, strnlen(name, (count - 2) * 4)) == "GLSL.std.450") glsl_sets.insert(words[i + 1]);
    } else if (op == kOpExtInst) {
      // OpExtInst <type> <result> <set> <instruction> <operands...>
      if (glsl_sets.count(words[i + 3]) && !kIntegerExtInst.count(words[i + 4]))
        ++found["GLSL.std.450 #" + std::to_string(words[i + 4])];
    } else if (const auto it = float_opcodes().find(op); it != float_opcodes().end()) {
      ++found[it->second];
    }
    i += count;
  }
  std::string s;
  for (const auto& [name, n] : found) s += (s.empty() ? "" : ", ") + name + " x" + std::to_string(n);
  return s;
}

bool claims_integer_only(const std::string& variant) {
  static const std::regex re("(^|_)xs?(_|$)|^gemm_canon_");
  return std::regex_search(variant, re);
}

TEST(VulkanSpirvIntegerOnly, ReproducibleVariantsHaveNoFloatInstruction) {
  int checked = 0;
  for (const auto& [variant, words] : concord::detail::vk::embedded_spirv()) {
    if (!claims_integer_only(variant)) continue;
    ++checked;
    ASSERT_GE(words.size(), 5u) << variant;
    EXPECT_EQ(words[0], 0x07230203u) << variant << ": not a SPIR-V module";
    const std::string f = float_instructions(words);
    EXPECT_TRUE(f.empty()) << variant << " claims integer-only arithmetic but has " << f;
  }
  // Every family of such variants is in the build: a rename must not empty the check.
  EXPECT_GE(checked, 50) << "expected the ew_*_x, iota_x_*, reduce_x*_*, linalg_x_* and gemm_canon_* variants";
}

// The decoder sees float instructions where there are some: the default
// variants of float32 compute with the device's float unit.
TEST(VulkanSpirvIntegerOnly, TheDecoderFindsFloatArithmetic) {
  const auto& spirv = concord::detail::vk::embedded_spirv();
  for (const char* v : {"ew_binary_f32", "gemm_f32", "reduce_f32"}) {
    ASSERT_TRUE(spirv.count(v)) << v;
    EXPECT_NE(float_instructions(spirv.at(v)).find("OpF"), std::string::npos) << v;
  }
}

}  // namespace

#endif
