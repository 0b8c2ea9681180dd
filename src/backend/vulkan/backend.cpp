// Vulkan backend: registration, capabilities from the device's features and
// float controls, memory.
#include <cstdlib>
#include <deque>
#include <mutex>

#include "backend/vulkan/vulkan_backend.h"
#include "concord/op_table.h"
#include "core/registry.h"

namespace concord::detail {

namespace vk {

void claims_reduce_exact(Capabilities& c);  // reduce.cpp
void claims_linalg_exact(Capabilities& c);  // linalg.cpp

void Claims::claim(OpId op, DtypeSet dtypes) {
  caps.native[static_cast<int>(op)] = caps.native[static_cast<int>(op)] | (dtypes & op_def(op).dtypes & caps.storable);
}

Capabilities capabilities(int index) {
  const DeviceInfo& info = device_info(static_cast<size_t>(index));
  Capabilities c;
  // Storage: every dtype (8- and 16-bit storage and int64 are required of a
  // usable device); float64 only with shaderFloat64.
  c.storable = DtypeSet::all();
  if (!info.fp64) c.storable.remove(float64);
  // Arithmetic: float16 and bfloat16 are computed in float32 and rounded once
  // (the CPU's bits), so they are storage formats here.
  c.computable = c.storable;
  c.computable.remove(float16).remove(bfloat16);
  // What the device promises (float controls): RTE rounding and kept
  // subnormals are requested in every shader where the device supports them.
  const FloatControls& f32 = info.float_controls[1];
  const FloatControls& f64 = info.float_controls[2];
  c.rounds_to_nearest = f32.rounding_rte && (!info.fp64 || f64.rounding_rte);
  c.keeps_subnormals = f32.denorm_preserve && (!info.fp64 || f64.denorm_preserve);
  c.keeps_nan_payloads = false;  // SPIR-V leaves NaN results' bits free (NVIDIA's are 0x7fffffff)
  Claims claims{c, info, {}};
  claims_copy(claims);
  claims_elementwise(claims);
  claims_linear(claims);
  claims_index(claims);
  claims_random(claims);
  claims_linalg(claims);  // after the family claiming tril/triu (cholesky needs them)
  claims_reduce(claims);
  // Every claim must have its shaders in this build.
  const auto& spirv = embedded_spirv();
  for (const std::string& v : claims.variants)
    if (!spirv.count(v))
      throw DeviceError("[vulkan] the backend claims a kernel whose shader variant '" + v +
                        "' is not in this build; rebuild concord (glslc compiles src/backend/vulkan/shaders)");
  c.description = info.summary();
  c.details = info.details();
  // The reproducible mode: reductions and cumsum run the CPU's blocked order
  // (float dtypes only where the device promises round-to-nearest and kept
  // subnormals; NaNs are made canonical by the mode itself). Moves,
  // selections and conversions do no float arithmetic here (conversions are
  // integer work, dtypes.glsl): the CPU's bits whatever the float unit does
  // with subnormals.
  const DtypeSet kAll = DtypeSet::all();
  claim_reproducible_by_rule(c, {.as_cpu = {{OpId::sum, kAll}, {OpId::mean, kAll}, {OpId::prod, kAll}, {OpId::var, kAll},
                                            {OpId::std, kAll}, {OpId::norm, kAll}, {OpId::cumsum, kAll},
                                            // ipow (elementwise_int.glsl): the CPU's loop, wrapping
                                            {OpId::pow, DtypeSet{uint8, int8, int16, int32, int64}}},
                                 .except = {}});
  // cat, stack and flip are copies; floating arange and linspace compute on
  // the doubles' bits in the mode (iota.comp's XD variant, xf64.glsl).
  for (OpId op : {OpId::copy, OpId::fill, OpId::eye, OpId::index_select, OpId::gather, OpId::tril, OpId::triu, OpId::where,
                  OpId::cat, OpId::stack, OpId::flip, OpId::arange, OpId::linspace})
    c.reproducible[static_cast<int>(op)] = c.native[static_cast<int>(op)];
  for (OpId op : {OpId::arange, OpId::linspace}) c.reproducible_needs_fp64[static_cast<int>(op)] = c.needs_fp64[static_cast<int>(op)];
  // Elementwise ops of float32, the halves and float64 on bits with integer
  // operations (shaders/elementwise_xf.glsl): the
  // CPU's bits whatever keeps_subnormals says. This includes float32 / half
  // pow, pow(x, number) and atan2 (xmath32_pow.glsl, canon_pow.h on bits):
  // claimed through kXOps, the list that also picks their variants.
  claim_reproducible_elementwise(c);
  // The matmul family: every floating dtype runs the CPU's fma chain on bits
  // in integer arithmetic (gemm_canon.comp on xf32.glsl / xf64.glsl), so
  // whatever the float controls; integers wrap exactly like the CPU's loop.
  for (OpId op : {OpId::matmul, OpId::mm, OpId::bmm, OpId::mv, OpId::dot, OpId::outer, OpId::addmm, OpId::baddbmm,
                  OpId::linear}) {
    const int i = static_cast<int>(op);
    c.reproducible[i] = c.reproducible[i] | c.native[i];
  }
  // Reductions, cumsum, softmax, log_softmax and logsumexp of float16,
  // bfloat16 and float32 have exact variants (reduce_xops.glsl: float32 on
  // bits, integer instructions only), so they are claimed whatever the rule
  // says; so do float64's (reduce_xops.glsl on xf64.glsl; exp and log from
  // xmath64*.glsl).
  claims_reduce_exact(c);
  // LU, solves, inv and Cholesky run the CPU's small-matrix loops on bits
  // (linalg.comp's "_x" variants): the CPU's bits whatever the float controls.
  claims_linalg_exact(c);
  check_elementwise_cases(c);
  return c;
}

Backend& backend(int index) {
  static std::mutex mu;
  static std::deque<VulkanBackend> backends;  // deque: stable addresses
  std::lock_guard lock(mu);
  while (static_cast<int>(backends.size()) <= index) backends.emplace_back(static_cast<int>(backends.size()));
  return backends[static_cast<size_t>(index)];
}

VulkanBackend::VulkanBackend(int index)
    : index_(index), device_(DeviceKind("vulkan"), index), ctx_(context(static_cast<size_t>(index))) {}

std::shared_ptr<Storage> VulkanBackend::allocate(size_t nbytes, const Device& d) {
  auto st = std::make_shared<Storage>();
  st->ptr = ctx_.alloc(nbytes);
  st->nbytes = nbytes;
  st->device = d;
  note_alloc(d, nbytes);
  st->release = [](Storage& s) {
    context(static_cast<size_t>(s.device.index())).release(static_cast<Buffer*>(s.ptr));
    note_free(s.device, s.nbytes);
  };
  return st;
}

void VulkanBackend::write(Storage& dst, size_t off, const void* src, size_t n) {
  ctx_.write(static_cast<Buffer*>(dst.ptr), off, n, src);
}

void VulkanBackend::read(const Storage& src, size_t off, void* dst, size_t n) {
  ctx_.read(static_cast<const Buffer*>(src.ptr), off, n, dst);
}

Pipeline& VulkanBackend::pipeline(const std::string& variant) {
  const auto& spirv = embedded_spirv();
  auto it = spirv.find(variant);
  if (it == spirv.end())
    throw DeviceError("[vulkan] shader variant '" + variant + "' is not in this build (" + device_.str() +
                      "); rebuild concord");
  return ctx_.pipeline(variant, it->second, sizeof(uint64_t));
}

std::vector<std::string> notes() {
  std::vector<std::string> out;
  if (const char* e = std::getenv("CONCORD_VULKAN"); e && std::string(e) == "0")
    out.push_back("switched off by CONCORD_VULKAN=0");
  for (const DeviceInfo& d : skipped_devices()) out.push_back("skipped " + d.summary());
  return out;
}

}  // namespace vk

const BackendDef& vulkan_backend_def() {
  static const BackendDef def{
      .name = "vulkan",
      .memory = MemorySpace::device,
      .count = vk::device_count,
      .backend = vk::backend,
      .capabilities = vk::capabilities,
      .notes = vk::notes,
  };
  return def;
}

}  // namespace concord::detail
