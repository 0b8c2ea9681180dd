// backend/opencl/program_cache.cpp — program build with an in-memory and an
// on-disk cache, the kernel cache, and kernel launch.
//
// A program's cache key is the device name, vendor, device and driver
// versions, the full build options and a hash + length of the source. The
// disk file repeats the key in its header, so a filename-hash collision or a
// stale file is detected and rebuilt, never run.
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>
#include <thread>

#include "backend/opencl/runtime.h"
#include "concord/error.h"
#include "concord/fault_injection.h"

namespace concord::detail::ocl {

namespace fs = std::filesystem;

struct Context::ProgramEntry {
  std::mutex mu;  // held while building, so concurrent callers wait for one build
  cl_program prog = nullptr;
  ~ProgramEntry() {
    if (prog) clReleaseProgram(prog);
  }
};

namespace {

constexpr const char* kMagic = "CONCORD-OCL-BIN1\n";

std::mutex g_suffix_mu;
std::string g_source_suffix;  // set_source_suffix_for_testing

uint64_t fnv1a64(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

bool env_set(const char* name) {
  const char* v = std::getenv(name);
  return v && *v;
}

// Directory for cached binaries, or "" when the disk cache is off.
// Read on every build so tests and tools may change it at run time.
// Where the driver caches programs itself, only an explicit
// CONCORD_CACHE_DIR turns ours on: reading a program's binary makes PoCL
// compile every kernel in it (233 in copy.cl; about 2 minutes of LLVM per
// device config on a cold machine), where it otherwise compiles only the
// kernels that run.
fs::path cache_dir(bool driver_caches) {
  const char* off = std::getenv("CONCORD_NO_DISK_CACHE");
  if (off && *off && std::strcmp(off, "0") != 0) return {};
  fs::path base;
  if (env_set("CONCORD_CACHE_DIR")) base = std::getenv("CONCORD_CACHE_DIR");
  else if (driver_caches) return {};
  else if (env_set("XDG_CACHE_HOME")) base = fs::path(std::getenv("XDG_CACHE_HOME")) / "concord";
  else if (env_set("HOME")) base = fs::path(std::getenv("HOME")) / ".cache" / "concord";
  else return {};
  return base / "opencl";
}

std::string build_log(cl_program p, cl_device_id d) {
  size_t size = 0;
  if (clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) != CL_SUCCESS)
    return "(no build log available)";
  std::string log(size, '\0');
  clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log.empty() ? "(empty build log)" : log;
}

std::string kernel_name(cl_kernel k) {
  char name[256] = "?";
  clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof name, name, nullptr);
  name[sizeof name - 1] = '\0';
  return name;
}

}  // namespace

void set_source_suffix_for_testing(std::string s) {
  std::lock_guard<std::mutex> lock(g_suffix_mu);
  g_source_suffix = std::move(s);
}

std::string Context::build_options(const std::string& extra_options) const {
  std::string o;
  if (info_.fp32_correctly_rounded_divide_sqrt) o += "-cl-fp32-correctly-rounded-divide-sqrt ";
  // The caller's own definition wins (a profile may remove float64);
  // defining the macro twice would only draw a redefinition warning.
  if (extra_options.find("CONCORD_HAS_FP64") == std::string::npos)
    o += std::string("-DCONCORD_HAS_FP64=") + (info_.fp64 ? "1 " : "0 ");
  if (extra_options.find("CONCORD_HAS_FP16") == std::string::npos)
    o += std::string("-DCONCORD_HAS_FP16=") + (info_.fp16 ? "1 " : "0 ");
  o += extra_options;
  while (!o.empty() && o.back() == ' ') o.pop_back();
  return o;
}

cl_program Context::program(const std::string& name, const std::string& source,
                            const std::string& extra_options) {
  std::string src = source;
  {
    std::lock_guard<std::mutex> lock(g_suffix_mu);
    src += g_source_suffix;
  }
  const std::string options = build_options(extra_options);
  const std::string key = std::string(kMagic) + info_.name + '\n' + info_.vendor + '\n' +
                          info_.device_version + '\n' + info_.driver_version + '\n' + options +
                          '\n' + hex64(fnv1a64(src)) + ':' + std::to_string(src.size()) + '\n';
  std::shared_ptr<ProgramEntry> entry;
  {
    std::lock_guard<std::mutex> lock(prog_mu_);
    auto& slot = programs_[key];
    if (!slot) slot = std::make_shared<ProgramEntry>();
    entry = slot;
  }
  // Per-entry lock: threads wanting the same program wait for one build,
  // while builds of different programs proceed in parallel.
  std::lock_guard<std::mutex> lock(entry->mu);
  if (entry->prog) {
    ++mem_hits_;
    return entry->prog;
  }
  entry->prog = build(name, src, options, key);  // on throw, the next caller retries
  std::lock_guard<std::mutex> names(prog_mu_);
  program_names_[entry->prog] = name;
  return entry->prog;
}

cl_program Context::build(const std::string& name, const std::string& source,
                          const std::string& options, const std::string& key) {
  // Test hook: an injected failure compiles the source with an #error line, so
  // the error below carries a real build log from the compiler.
  if (fault::should_fail_build()) {
    const std::string bad = source + "\n#error concord fault injection: injected build failure\n";
    const char* text = bad.c_str();
    const size_t len = bad.size();
    cl_int err = CL_SUCCESS;
    cl_program p = clCreateProgramWithSource(ctx_, 1, &text, &len, &err);
    check(err, "clCreateProgramWithSource", this);
    err = clBuildProgram(p, 1, &device_, options.c_str(), nullptr, nullptr);
    if (err == CL_SUCCESS) err = CL_BUILD_PROGRAM_FAILURE;  // a compiler that ignores #error
    throw_build_error(name, options, err, p);
  }
  std::string file;
  if (fs::path dir = cache_dir(info_.driver_caches_binaries); !dir.empty()) {
    std::string stem;
    for (char c : name) stem += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    file = (dir / (stem.substr(0, 48) + "-" + hex64(fnv1a64(key)) + ".clbin")).string();
    if (cl_program p = load_binary(file, key, options)) {
      ++loaded_;
      return p;
    }
  }

  const char* text = source.c_str();
  const size_t len = source.size();
  cl_int err = CL_SUCCESS;
  cl_program p = clCreateProgramWithSource(ctx_, 1, &text, &len, &err);
  check(err, "clCreateProgramWithSource", this);
  err = clBuildProgram(p, 1, &device_, options.c_str(), nullptr, nullptr);
  if (err != CL_SUCCESS) throw_build_error(name, options, err, p);
  ++builds_;
  if (!file.empty()) store_binary(file, key, p);
  return p;
}

void Context::throw_build_error(const std::string& name, const std::string& options, cl_int err,
                                cl_program p) const {
  std::string log = build_log(p, device_);
  clReleaseProgram(p);
  throw DeviceError("[opencl] building program '" + name + "' failed on " + device_string() + " (" + info_.name +
                    ", driver " + info_.driver_version + ") with options '" + options + "': " + error_name(err) +
                    "; this is a kernel bug or a device limitation, please report it with "
                    "this log.\nbuild log:\n" + log);
}

// Returns nullptr on any problem: a missing, truncated, stale or foreign
// file, or a driver that rejects the binary. The caller then builds from
// source and rewrites the file.
cl_program Context::load_binary(const std::string& file, const std::string& key,
                                const std::string& options) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return nullptr;
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Layout: "<key length> <binary length> <binary hash>\n" <key> <binary>.
  // The hash matters: PoCL aborts the process (an assert) on a truncated
  // binary instead of returning CL_INVALID_BINARY, so we never pass it one.
  const size_t nl = data.find('\n');
  if (nl == std::string::npos || nl > 64) return nullptr;
  unsigned long long key_len = 0, bin_len = 0, bin_hash = 0;
  if (std::sscanf(data.c_str(), "%llu %llu %llx", &key_len, &bin_len, &bin_hash) != 3)
    return nullptr;
  if (key_len != key.size() || bin_len == 0 || data.size() != nl + 1 + key_len + bin_len ||
      data.compare(nl + 1, key_len, key) != 0)
    return nullptr;
  const std::string_view bin_view(data.data() + nl + 1 + key_len, bin_len);
  if (fnv1a64(bin_view) != bin_hash) return nullptr;
  const auto* bin = reinterpret_cast<const unsigned char*>(bin_view.data());
  const size_t bin_size = bin_len;

  cl_int status = CL_SUCCESS, err = CL_SUCCESS;
  cl_program p = clCreateProgramWithBinary(ctx_, 1, &device_, &bin_size, &bin, &status, &err);
  if (err != CL_SUCCESS || status != CL_SUCCESS || !p) {
    if (p) clReleaseProgram(p);
    return nullptr;
  }
  if (clBuildProgram(p, 1, &device_, options.c_str(), nullptr, nullptr) != CL_SUCCESS) {
    clReleaseProgram(p);
    return nullptr;
  }
  return p;
}

// Best effort: a cache that cannot be written only costs a rebuild later.
void Context::store_binary(const std::string& file, const std::string& key, cl_program p) {
  size_t size = 0;
  if (clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, nullptr) != CL_SUCCESS ||
      size == 0)
    return;
  std::string bin(size, '\0');
  auto* ptr = reinterpret_cast<unsigned char*>(bin.data());
  if (clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(ptr), &ptr, nullptr) != CL_SUCCESS) return;

  std::error_code ec;
  fs::create_directories(fs::path(file).parent_path(), ec);
  if (ec) return;
  // Write a private temp file, then rename: readers (other threads or
  // processes) see either no file or a complete one.
  const std::string tmp = file + ".tmp." + std::to_string(::getpid()) + "." +
                          hex64(std::hash<std::thread::id>{}(std::this_thread::get_id()));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << key.size() << ' ' << bin.size() << ' ' << hex64(fnv1a64(bin)) << '\n' << key;
    out.write(bin.data(), static_cast<std::streamsize>(bin.size()));
    out.close();
    if (!out) {
      fs::remove(tmp, ec);
      return;
    }
  }
  fs::rename(tmp, file, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return;
  }
  ++written_;
}

cl_kernel Context::kernel(cl_program p, const char* kernel_name) {
  drain_on_thread_exit();  // the caller is about to launch it
  std::lock_guard<std::mutex> lock(prog_mu_);
  auto key = std::make_pair(p, std::string(kernel_name));
  if (auto it = kernels_.find(key); it != kernels_.end()) return it->second;
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(p, kernel_name, &err);
  if (err != CL_SUCCESS) {
    auto it = program_names_.find(p);
    std::string prog = it == program_names_.end() ? "?" : it->second;
    std::string what = "clCreateKernel('" + std::string(kernel_name) + "' in program '" + prog + "')";
    check(err, what.c_str(), this);
  }
  kernels_.emplace(std::move(key), k);
  // Its default 1-D group (OpenClBackend::run): 256 items, or the largest power of
  // two below the kernel's own limit (register-heavy kernels on a GPU).
  size_t limit = 0;
  if (clGetKernelWorkGroupInfo(k, device_, CL_KERNEL_WORK_GROUP_SIZE, sizeof limit, &limit, nullptr) != CL_SUCCESS ||
      limit == 0)
    limit = 1;
  size_t group = kDefaultGroup;
  while (group > limit) group /= 2;
  kernel_group_.emplace(k, group);
  return k;
}

size_t Context::default_group(cl_kernel k) const {
  std::lock_guard<std::mutex> lock(prog_mu_);
  auto it = kernel_group_.find(k);
  return it == kernel_group_.end() ? kDefaultGroup : it->second;
}

// ---------------------------------------------------------------- launch --

void Context::set_arg_raw(cl_kernel k, cl_uint i, size_t size, const void* value) {
  cl_int err = clSetKernelArg(k, i, size, value);
  if (err != CL_SUCCESS) {
    std::string what = "clSetKernelArg('" + kernel_name(k) + "', arg " + std::to_string(i) + ", " +
                       std::to_string(size) + " bytes)";
    check(err, what.c_str(), this);
  }
}

void Context::enqueue(cl_kernel k, const std::array<size_t, 3>& global,
                      const std::array<size_t, 3>& local, int work_dim) {
  if (work_dim < 1 || work_dim > 3)
    throw DeviceError("[opencl] launch on " + device_string() + ": work_dim " +
                      std::to_string(work_dim) + " is not 1, 2 or 3");
  for (int d = 0; d < work_dim; ++d)
    if (global[d] == 0) return;  // empty launch: nothing to do (OpenCL 1.2 rejects it)
  const bool has_local = local[0] != 0;
  cl_int err = clEnqueueNDRangeKernel(queue_, k, static_cast<cl_uint>(work_dim), nullptr,
                                      global.data(), has_local ? local.data() : nullptr, 0,
                                      nullptr, nullptr);
  if (err == CL_SUCCESS) return;
  // Name the kernel and the sizes: most launch errors are a bad local size.
  std::string what = "clEnqueueNDRangeKernel('" + kernel_name(k) + "', global";
  for (int d = 0; d < work_dim; ++d) what += (d ? "x" : " ") + std::to_string(global[d]);
  what += ", local";
  for (int d = 0; d < work_dim; ++d) what += (d ? "x" : " ") + std::to_string(local[d]);
  check(err, (what + ")").c_str(), this);
}

}  // namespace concord::detail::ocl
