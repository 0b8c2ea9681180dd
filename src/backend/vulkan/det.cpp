// Vulkan det from an LU (shaders/det.comp): one invocation per matrix runs
// the CPU's float64 loop on bits (xf64.glsl), in both modes, so the result is
// the CPU's bits whatever the device's float controls; float16 and bfloat16
// arrive as the front end's float32 LU. Its NaNs are canonical. slogdet (the
// mode's log) and the norms keep the CPU fallback.
#include <algorithm>
#include <cstring>

#include "backend/vulkan/vulkan_backend.h"
#include "concord/policy.h"
#include "core/nan_rule.h"

namespace concord::detail::vk {

namespace {

// Mirrors the Args block of shaders/det.comp.
struct DetArgs {
  uint64_t lu = 0, piv = 0, det = 0;
  int64_t lu_off = 0, piv_off = 0, det_off = 0;
  int64_t count = 0, n = 0, b0 = 0;
};
static_assert(sizeof(DetArgs) == 72);

constexpr uint32_t kGroup = 64;  // det.comp's local_size_x

}  // namespace

void VulkanBackend::lu_det(const Tensor& lu, const Tensor& pivots, const Tensor& det) {
  const int64_t count = lu.size(0), n = lu.size(1);
  if (count == 0) return;
  if (lu.dtype() != float32 && lu.dtype() != float64)
    throw NotImplementedError("[linalg.det] the vulkan kernel takes a float32 or float64 LU, got " +
                              std::string(name(lu.dtype())) + " on " + device_.str() +
                              "; the front end factors other dtypes in float32");
  if (det.dtype() != lu.dtype() || !det.is_contiguous())
    throw NotImplementedError("[linalg.det] the vulkan kernel writes a contiguous det of the LU's dtype (" +
                              std::string(name(lu.dtype())) + "), got " + std::string(name(det.dtype())) + " on " +
                              device_.str() + "; pass an empty contiguous tensor");
  const std::string variant = std::string("det_") + suffix(lu.dtype());
  const auto& spirv = embedded_spirv();
  const auto it = spirv.find(variant);
  if (it == spirv.end())
    throw DeviceError("[linalg.det] shader variant '" + variant + "' is not in this build (" + device_.str() +
                      "); rebuild concord");
  Pipeline& p = ctx_.pipeline(variant, it->second, sizeof(uint64_t), {});
  DetArgs a;
  a.lu = address(lu), a.lu_off = lu.offset();
  a.piv = address(pivots), a.piv_off = pivots.offset();
  a.det = address(det), a.det_off = det.offset();
  a.count = count, a.n = n;
  // Groups beyond the device's count limit: further dispatches, each told its first matrix.
  const int64_t per = std::max<int64_t>(1, ctx_.info().max_workgroup_count[0]) * kGroup;
  for (int64_t b0 = 0; b0 < count; b0 += per) {
    a.b0 = b0;
    ArgBlock block = ctx_.args(sizeof a);
    std::memcpy(block.host, &a, sizeof a);
    const uint64_t push = block.addr;
    const int64_t groups = (std::min(per, count - b0) + kGroup - 1) / kGroup;
    ctx_.dispatch(p, static_cast<uint32_t>(groups), 1, 1, &push, sizeof push);
  }
  if (reproducible()) nan_rule_fused(det);  // every NaN the shader writes is canonical
}

}  // namespace concord::detail::vk
