// Vulkan rand / randn / randint (shaders/random.comp on backend/common/philox.h): the
// transforms of backend/common/philox.h per element, bit-identical to the
// CPU for every dtype and any (seed, offset). Division and sqrt in randn are
// computed in integer arithmetic in the shader (Vulkan's own may be 2.5 ulp
// off), and float64 only where the device has it.
#include <string>

#include "backend/vulkan/vulkan_backend.h"
#include "concord/op_table.h"

namespace concord::detail::vk {

namespace {

// Mirrors Args in random.comp.
struct RandomArgs {
  uint64_t dst;
  int64_t off, n;
  uint64_t seed, offset, low, range;
  int32_t op, pad;
};

// random.comp's op codes.
int32_t op_code(OpId op) {
  switch (op) {
    case OpId::rand: return 1;
    case OpId::randn: return 2;
    case OpId::randint: return 3;
    default:
      throw NotImplementedError("[" + std::string(op_name(op)) + "] is not a random op (vulkan random kernel)");
  }
}

}  // namespace

void claims_random(Claims& c) {
  const DtypeSet all = c.caps.storable;  // float64 only with shaderFloat64
  c.claim(OpId::rand, all);
  c.claim(OpId::randn, all);
  c.claim(OpId::randint, all);
  for (Dtype d : kAllDtypes)
    if (all.has(d)) c.need(std::string("random_") + suffix(d));
}

void VulkanBackend::random(OpId op, const Tensor& dst, uint64_t seed, uint64_t offset, int64_t a, int64_t b) {
  const int64_t n = dst.numel();
  if (n == 0) return;
  const Dtype t = dst.dtype();
  if (op != OpId::randint && !is_floating(t))
    throw DtypeError("[" + std::string(op_name(op)) + "] vulkan kernel got " + std::string(name(t)) + " on " +
                     device_.str() + "; the front end allows floating dtypes only");
  // randint: low + an offset in [0, high - low), the range taken modulo 2^64.
  const uint64_t low = static_cast<uint64_t>(a), range = static_cast<uint64_t>(b) - low;
  // dst is contiguous: element i is at its offset + i.
  launch(std::string("random_") + suffix(t), static_cast<uint64_t>(n),
         RandomArgs{address(dst), dst.offset(), n, seed, offset, low, range, op_code(op), 0});
}

}  // namespace concord::detail::vk
