// backend/vulkan/pipelines.cpp — compute pipelines: the in-memory cache by
// name, SPIR-V workgroup-size reflection, and the VkPipelineCache kept on
// disk between processes.
//
// Disk file: "CONCORD-VKPC1 <blob length> <blob fnv1a64>\n" then the blob
// vkGetPipelineCacheData returned. The blob is only given back to the driver
// when length and hash match and its own header names this device's vendor,
// device and pipelineCacheUUID: drivers are not all robust to foreign or
// truncated data.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <thread>

#include "backend/vulkan/internal.h"
#include "concord/error.h"
#include "concord/fault_injection.h"

namespace concord::detail::vk {

namespace fs = std::filesystem;

namespace {

constexpr const char* kMagic = "CONCORD-VKPC1";

uint64_t fnv1a64(const char* data, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; ++i) {
    h ^= static_cast<unsigned char>(data[i]);
    h *= 0x100000001b3ull;
  }
  return h;
}

bool env_set(const char* name) {
  const char* v = std::getenv(name);
  return v && *v;
}

uint32_t le32(const char* p) {  // the cache header is little-endian on every host
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return u[0] | (u[1] << 8) | (u[2] << 16) | (uint32_t(u[3]) << 24);
}

}  // namespace

fs::path vulkan_cache_dir() {
  const char* off = std::getenv("CONCORD_NO_DISK_CACHE");
  if (off && *off && std::strcmp(off, "0") != 0) return {};
  fs::path base;
  if (env_set("CONCORD_CACHE_DIR")) base = std::getenv("CONCORD_CACHE_DIR");
  else if (env_set("XDG_CACHE_HOME")) base = fs::path(std::getenv("XDG_CACHE_HOME")) / "concord";
  else if (env_set("HOME")) base = fs::path(std::getenv("HOME")) / ".cache" / "concord";
  else return {};
  return base / "vulkan";
}

std::string Context::pipeline_cache_path() const {
  const fs::path dir = vulkan_cache_dir();
  if (dir.empty()) return {};
  char name[96];
  int n = std::snprintf(name, sizeof name, "%04x-%04x-", info_.vendor_id, info_.device_id);
  for (uint8_t byte : info_.pipeline_cache_uuid) n += std::snprintf(name + n, sizeof name - n, "%02x", byte);
  return (dir / (std::string(name) + ".bin")).string();
}

void Context::load_pipeline_cache() {
  std::string blob;
  if (const std::string file = pipeline_cache_path(); !file.empty()) {
    std::ifstream in(file, std::ios::binary);
    std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t nl = data.find('\n');
    char magic[16] = {};
    unsigned long long len = 0, hash = 0;
    if (nl != std::string::npos && nl < 80 &&
        std::sscanf(data.c_str(), "%15s %llu %llx", magic, &len, &hash) == 3 && std::strcmp(magic, kMagic) == 0 &&
        data.size() == nl + 1 + len && len >= 16 + VK_UUID_SIZE &&
        fnv1a64(data.data() + nl + 1, len) == hash) {
      const char* h = data.data() + nl + 1;
      if (le32(h) >= 16 + VK_UUID_SIZE && le32(h + 4) == VK_PIPELINE_CACHE_HEADER_VERSION_ONE &&
          le32(h + 8) == info_.vendor_id && le32(h + 12) == info_.device_id &&
          std::memcmp(h + 16, info_.pipeline_cache_uuid.data(), VK_UUID_SIZE) == 0)
        blob.assign(h, len);
    }
  }
  auto ci = make<VkPipelineCacheCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO);
  ci.initialDataSize = blob.size();
  ci.pInitialData = blob.empty() ? nullptr : blob.data();
  if (vkCreatePipelineCache(device_, &ci, nullptr, &pipeline_cache_) == VK_SUCCESS) {
    cache_loaded_ = blob.size();
    return;
  }
  // A driver that rejects the data still gets an empty cache; failing that,
  // pipelines are built without one.
  ci.initialDataSize = 0;
  ci.pInitialData = nullptr;
  if (vkCreatePipelineCache(device_, &ci, nullptr, &pipeline_cache_) != VK_SUCCESS)
    pipeline_cache_ = VK_NULL_HANDLE;
}

bool Context::save_pipeline_cache() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_ || lost_) return false;
  }
  return write_pipeline_cache();
}

// Best effort: a cache that cannot be written only costs compile time later.
bool Context::write_pipeline_cache() {
  const std::string file = pipeline_cache_path();
  if (file.empty() || !pipeline_cache_) return false;
  size_t size = 0;
  if (vkGetPipelineCacheData(device_, pipeline_cache_, &size, nullptr) != VK_SUCCESS || size == 0) return false;
  std::string blob(size, '\0');
  if (vkGetPipelineCacheData(device_, pipeline_cache_, &size, blob.data()) != VK_SUCCESS) return false;
  blob.resize(size);
  cache_dirty_ = false;
  std::error_code ec;
  fs::create_directories(fs::path(file).parent_path(), ec);
  if (ec) return false;
  // A private temp file, then rename: readers (other threads or processes)
  // see either the old file or a complete new one.
  const std::string tmp = file + ".tmp." + std::to_string(::getpid()) + "." +
                          std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    char header[80];
    std::snprintf(header, sizeof header, "%s %zu %016llx\n", kMagic, blob.size(),
                  static_cast<unsigned long long>(fnv1a64(blob.data(), blob.size())));
    out << header;
    out.write(blob.data(), static_cast<std::streamsize>(blob.size()));
    out.close();
    if (!out) {
      fs::remove(tmp, ec);
      return false;
    }
  }
  fs::rename(tmp, file, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return false;
  }
  cache_saved_ += blob.size();
  return true;
}

// ------------------------------------------------------------ pipelines --

Pipeline& Context::pipeline(const std::string& name, const std::vector<uint32_t>& spirv, uint32_t push_bytes,
                            const std::vector<SpecConstant>& spec, uint32_t subgroup_size) {
  std::string key = name;
  for (const SpecConstant& s : spec) key += "|" + std::to_string(s.id) + "=" + std::to_string(s.value);
  if (subgroup_size) key += "|sg" + std::to_string(subgroup_size);
  PipelineEntry* entry;
  {
    std::lock_guard<std::mutex> lock(pipe_mu_);
    auto& slot = pipelines_[key];
    if (!slot) slot = std::make_unique<PipelineEntry>();
    entry = slot.get();
  }
  // Per-entry lock: threads wanting the same pipeline wait for one build,
  // builds of different pipelines proceed in parallel.
  std::lock_guard<std::mutex> lock(entry->mu);
  if (entry->p && entry->p->pipeline) {
    ++pipeline_hits_;
    if (entry->p->push_bytes != push_bytes)
      throw DeviceError("[vulkan] pipeline '" + name + "' on " + device_string() + " was created with " +
                        std::to_string(entry->p->push_bytes) + " bytes of push constants, now asked for " +
                        std::to_string(push_bytes) + "; this is a concord bug");
    return *entry->p;
  }
  entry->p.reset(build_pipeline(name, spirv, push_bytes, spec, subgroup_size));  // on throw, the next caller retries
  return *entry->p;
}

Pipeline* Context::build_pipeline(const std::string& name, const std::vector<uint32_t>& spirv, uint32_t push_bytes,
                                  const std::vector<SpecConstant>& spec, uint32_t subgroup_size) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ensure_open_locked();
  }
  const std::string where = "building pipeline '" + name + "' failed on " + device_string() + " (" + info_.name +
                            ", " + info_.driver_name + " " + info_.driver_info + ")";
  auto fail = [&](const std::string& why) -> DeviceError {
    return DeviceError("[vulkan] " + where + ": " + why);
  };
  if (fault::should_fail_build())
    throw fail("injected build failure (concord::testing::fail_next_kernel_build); this is a shader bug or a "
               "device limitation, please report it with the output of `concord devices`");
  if (push_bytes % 4 || push_bytes > std::min<uint32_t>(128, info_.max_push_constants))
    throw fail(std::to_string(push_bytes) + " bytes of push constants; at most 128 and a multiple of 4");
  if (spirv.size() < 5 || spirv[0] != 0x07230203u) throw fail("the code is not SPIR-V (bad magic number)");
  if (subgroup_size) {
    const bool ok = info_.subgroup_size_control &&
                    (info_.required_subgroup_size_stages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                    subgroup_size >= info_.min_subgroup_size && subgroup_size <= info_.max_subgroup_size &&
                    (subgroup_size & (subgroup_size - 1)) == 0;
    if (!ok)
      throw fail("subgroup size " + std::to_string(subgroup_size) + " cannot be required (the device allows " +
                 (info_.subgroup_size_control ? std::to_string(info_.min_subgroup_size) + ".." +
                                                    std::to_string(info_.max_subgroup_size)
                                              : std::string("no subgroup size control")) + ")");
  }
  const std::vector<uint32_t> code = apply_float_controls(spirv, info_);
  auto mi = make<VkShaderModuleCreateInfo>(VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
  mi.codeSize = code.size() * sizeof(uint32_t);
  mi.pCode = code.data();
  VkShaderModule module = VK_NULL_HANDLE;
  if (VkResult r = vkCreateShaderModule(device_, &mi, nullptr, &module); r != VK_SUCCESS) {
    if (r == VK_ERROR_DEVICE_LOST || r == VK_ERROR_OUT_OF_HOST_MEMORY || r == VK_ERROR_OUT_OF_DEVICE_MEMORY)
      check(r, ("vkCreateShaderModule('" + name + "')").c_str(), this);
    throw fail("vkCreateShaderModule returned " + result_name(r));
  }
  std::vector<VkSpecializationMapEntry> entries;
  std::vector<uint32_t> values;
  for (const SpecConstant& s : spec) {
    entries.push_back({s.id, static_cast<uint32_t>(values.size() * 4), 4});
    values.push_back(s.value);
  }
  VkSpecializationInfo si{static_cast<uint32_t>(entries.size()), entries.data(), values.size() * 4, values.data()};
  auto rs = make<VkPipelineShaderStageRequiredSubgroupSizeCreateInfo>(
      VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO);
  rs.requiredSubgroupSize = subgroup_size;
  auto ci = make<VkComputePipelineCreateInfo>(VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO);
  ci.stage = make<VkPipelineShaderStageCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO);
  ci.stage.pNext = subgroup_size ? &rs : nullptr;
  ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  ci.stage.module = module;
  ci.stage.pName = "main";
  ci.stage.pSpecializationInfo = spec.empty() ? nullptr : &si;
  ci.layout = layout_;
  VkPipeline pipe = VK_NULL_HANDLE;
  const VkResult r = vkCreateComputePipelines(device_, pipeline_cache_, 1, &ci, nullptr, &pipe);
  vkDestroyShaderModule(device_, module, nullptr);
  if (r != VK_SUCCESS) {
    if (r == VK_ERROR_DEVICE_LOST || r == VK_ERROR_OUT_OF_HOST_MEMORY || r == VK_ERROR_OUT_OF_DEVICE_MEMORY)
      check(r, ("vkCreateComputePipelines('" + name + "')").c_str(), this);
    throw fail("vkCreateComputePipelines returned " + result_name(r) +
               "; this is a shader bug or a device limitation, please report it with the output of `concord devices`");
  }
  ++pipelines_created_;
  cache_dirty_ = true;
  return new Pipeline{name, pipe, layout_, push_bytes, reflect_local_size(spirv, spec), subgroup_size};
}

void Context::destroy_pipelines() {
  std::lock_guard<std::mutex> lock(pipe_mu_);
  // Entries stay (callers may hold Pipeline&); only the Vulkan objects go.
  for (auto& [key, entry] : pipelines_) {
    std::lock_guard<std::mutex> el(entry->mu);
    if (entry->p && entry->p->pipeline) vkDestroyPipeline(device_, entry->p->pipeline, nullptr);
    if (entry->p) entry->p->pipeline = VK_NULL_HANDLE;
  }
  if (pipeline_cache_) vkDestroyPipelineCache(device_, pipeline_cache_, nullptr);
  if (layout_) vkDestroyPipelineLayout(device_, layout_, nullptr);
  pipeline_cache_ = VK_NULL_HANDLE;
  layout_ = VK_NULL_HANDLE;
}

}  // namespace concord::detail::vk
