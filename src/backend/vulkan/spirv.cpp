// backend/vulkan/spirv.cpp — the little SPIR-V reflection the runtime needs:
// a compute shader's workgroup size, so that dispatch_1d can size its grid
// from the pipeline alone.
//
// Sources of the size, strongest first (SPIR-V spec, 2.4 and 3.x):
//   a constant decorated BuiltIn WorkgroupSize (GLSL local_size_x_id = k
//   makes it an OpSpecConstantComposite of spec constants), then
//   OpExecutionModeId LocalSizeId, then OpExecutionMode LocalSize literals.
#include <unordered_map>

#include "backend/vulkan/runtime.h"

namespace concord::detail::vk {

namespace {
enum : uint32_t {
  kOpExecutionMode = 16,
  kOpConstant = 43,
  kOpConstantComposite = 44,
  kOpSpecConstant = 50,
  kOpSpecConstantComposite = 51,
  kOpDecorate = 71,
  kOpExecutionModeId = 331,
  kModeLocalSize = 17,
  kModeLocalSizeId = 38,
  kDecorationSpecId = 1,
  kDecorationBuiltIn = 11,
  kBuiltInWorkgroupSize = 25,
};
}  // namespace

std::array<uint32_t, 3> reflect_local_size(const std::vector<uint32_t>& spirv, const std::vector<SpecConstant>& spec) {
  std::array<uint32_t, 3> literal{1, 1, 1};
  std::array<uint32_t, 3> size_ids{0, 0, 0};  // LocalSizeId operands
  uint32_t builtin_id = 0;                    // the WorkgroupSize constant
  std::unordered_map<uint32_t, uint32_t> spec_id;               // result id -> SpecId
  std::unordered_map<uint32_t, uint32_t> scalar;                // result id -> literal value
  std::unordered_map<uint32_t, std::array<uint32_t, 3>> composite;  // result id -> constituents
  for (size_t i = 5; i < spirv.size();) {
    const uint32_t words = spirv[i] >> 16, op = spirv[i] & 0xffff;
    if (words == 0 || i + words > spirv.size()) break;  // malformed: keep what we have
    const uint32_t* w = &spirv[i];
    switch (op) {
      case kOpExecutionMode:
        if (words >= 6 && w[2] == kModeLocalSize) literal = {w[3], w[4], w[5]};
        break;
      case kOpExecutionModeId:
        if (words >= 6 && w[2] == kModeLocalSizeId) size_ids = {w[3], w[4], w[5]};
        break;
      case kOpDecorate:
        if (words >= 4 && w[2] == kDecorationSpecId) spec_id[w[1]] = w[3];
        if (words >= 4 && w[2] == kDecorationBuiltIn && w[3] == kBuiltInWorkgroupSize) builtin_id = w[1];
        break;
      case kOpConstant:
      case kOpSpecConstant:
        if (words >= 4) scalar[w[2]] = w[3];
        break;
      case kOpConstantComposite:
      case kOpSpecConstantComposite:
        if (words >= 6) composite[w[2]] = {w[3], w[4], w[5]};
        break;
      default:
        break;
    }
    i += words;
  }
  // A constant's value: the caller's specialization if it has a SpecId, else its default.
  auto value = [&](uint32_t id, uint32_t fallback) {
    if (auto s = spec_id.find(id); s != spec_id.end())
      for (const SpecConstant& c : spec)
        if (c.id == s->second) return c.value;
    auto v = scalar.find(id);
    return v == scalar.end() ? fallback : v->second;
  };
  std::array<uint32_t, 3> ids = size_ids;
  if (auto c = composite.find(builtin_id); builtin_id && c != composite.end()) ids = c->second;
  if (ids[0] == 0) return literal;
  return {value(ids[0], literal[0]), value(ids[1], literal[1]), value(ids[2], literal[2])};
}

}  // namespace concord::detail::vk
