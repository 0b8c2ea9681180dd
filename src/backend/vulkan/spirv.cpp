// backend/vulkan/spirv.cpp — the little SPIR-V handling the runtime needs:
// a compute shader's workgroup size, so that dispatch_1d can size its grid
// from the pipeline alone, and the removal of float-control execution modes
// a device cannot honour.
//
// Sources of the size, strongest first (SPIR-V spec, 2.4 and 3.x):
//   a constant decorated BuiltIn WorkgroupSize (GLSL local_size_x_id = k
//   makes it an OpSpecConstantComposite of spec constants), then
//   OpExecutionModeId LocalSizeId, then OpExecutionMode LocalSize literals.
#include <algorithm>
#include <unordered_map>

#include "backend/vulkan/runtime.h"

namespace concord::detail::vk {

namespace {
enum : uint32_t {
  kOpExecutionMode = 16,
  kOpCapability = 17,
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

namespace {
enum : uint32_t {
  kOpEntryPoint = 15,
  kCapFloat16 = 9,
  kCapFloat64 = 10,
};
// The IEEE float controls a shader gets where the device supports them, and
// the capability each needs (SPIR-V 1.4 / SPV_KHR_float_controls).
struct FloatMode {
  uint32_t mode, capability;
  bool FloatControls::*supported;
};
constexpr FloatMode kWanted[] = {
    {4459, 4464, &FloatControls::denorm_preserve},               // DenormPreserve
    {4461, 4466, &FloatControls::signed_zero_inf_nan_preserve},  // SignedZeroInfNanPreserve
    {4462, 4467, &FloatControls::rounding_rte},                  // RoundingModeRTE
};
bool is_float_control_mode(uint32_t mode) { return mode >= 4459 && mode <= 4463; }
bool is_float_control_cap(uint32_t cap) { return cap >= 4464 && cap <= 4468; }
}  // namespace

std::vector<uint32_t> apply_float_controls(const std::vector<uint32_t>& spirv, const DeviceInfo& info) {
  if (spirv.size() < 5) return spirv;
  // The widths the module computes in (float32 always; 16 and 64 with their capabilities).
  bool width16 = false, width64 = false;
  uint32_t entry = 0;
  size_t caps_end = 5, modes_at = 0;
  for (size_t i = 5; i < spirv.size();) {
    const uint32_t words = spirv[i] >> 16, op = spirv[i] & 0xffff;
    if (words == 0 || i + words > spirv.size()) return spirv;  // malformed: leave it to the driver
    if (op == kOpCapability && words == 2) {
      width16 |= spirv[i + 1] == kCapFloat16;
      width64 |= spirv[i + 1] == kCapFloat64;
      caps_end = i + words;
    }
    if (op == kOpEntryPoint && words >= 3 && !entry) {
      entry = spirv[i + 2];
      modes_at = i + words;
    }
    if (op == kOpExecutionMode) modes_at = i + words;
    i += words;
  }
  if (!entry) return spirv;
  std::vector<uint32_t> caps, modes;
  auto want = [&](uint32_t width, int slot) {
    for (const FloatMode& m : kWanted) {
      if (!(info.float_controls[static_cast<size_t>(slot)].*m.supported)) continue;
      if (std::find(caps.begin(), caps.end(), m.capability) == caps.end()) caps.push_back(m.capability);
      modes.insert(modes.end(), {(4u << 16) | kOpExecutionMode, entry, m.mode, width});
    }
  };
  want(32, 1);
  if (width16) want(16, 0);
  if (width64 && info.fp64) want(64, 2);
  // Rebuild: the module's own float controls are replaced by these.
  std::vector<uint32_t> out(spirv.begin(), spirv.begin() + 5);
  for (size_t i = 5; i < spirv.size();) {
    const uint32_t words = spirv[i] >> 16, op = spirv[i] & 0xffff;
    const bool drop = (op == kOpCapability && words == 2 && is_float_control_cap(spirv[i + 1])) ||
                      (op == kOpExecutionMode && words >= 4 && is_float_control_mode(spirv[i + 2]));
    if (!drop) out.insert(out.end(), spirv.begin() + static_cast<ptrdiff_t>(i),
                          spirv.begin() + static_cast<ptrdiff_t>(i + words));
    if (i + words == caps_end)
      for (uint32_t c : caps) out.insert(out.end(), {(2u << 16) | kOpCapability, c});
    if (i + words == modes_at) out.insert(out.end(), modes.begin(), modes.end());
    i += words;
  }
  return out;
}

}  // namespace concord::detail::vk
