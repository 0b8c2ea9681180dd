// backend/opencl/runtime.cpp — device enumeration, errors, contexts and
// memory. Programs, kernels and launch live in program_cache.cpp.
#include "backend/opencl/runtime.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <utility>

#include "concord/device.h"
#include "concord/error.h"
#include "concord/fault_injection.h"

namespace concord::detail::ocl {

namespace {
uint8_t opencl_kind_id() {
  static const uint8_t id = DeviceKind("opencl").id();
  return id;
}
}  // namespace

// ---------------------------------------------------------------- errors --

std::string error_name(cl_int err) {
#define CLERR(code) {code, #code}
  static const std::pair<cl_int, const char*> kNames[] = {
      CLERR(CL_SUCCESS), CLERR(CL_DEVICE_NOT_FOUND), CLERR(CL_DEVICE_NOT_AVAILABLE),
      CLERR(CL_COMPILER_NOT_AVAILABLE), CLERR(CL_MEM_OBJECT_ALLOCATION_FAILURE),
      CLERR(CL_OUT_OF_RESOURCES), CLERR(CL_OUT_OF_HOST_MEMORY),
      CLERR(CL_PROFILING_INFO_NOT_AVAILABLE), CLERR(CL_MEM_COPY_OVERLAP),
      CLERR(CL_IMAGE_FORMAT_MISMATCH), CLERR(CL_IMAGE_FORMAT_NOT_SUPPORTED),
      CLERR(CL_BUILD_PROGRAM_FAILURE), CLERR(CL_MAP_FAILURE),
      CLERR(CL_MISALIGNED_SUB_BUFFER_OFFSET), CLERR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST),
      CLERR(CL_COMPILE_PROGRAM_FAILURE), CLERR(CL_LINKER_NOT_AVAILABLE),
      CLERR(CL_LINK_PROGRAM_FAILURE), CLERR(CL_DEVICE_PARTITION_FAILED),
      CLERR(CL_KERNEL_ARG_INFO_NOT_AVAILABLE), CLERR(CL_INVALID_VALUE),
      CLERR(CL_INVALID_DEVICE_TYPE), CLERR(CL_INVALID_PLATFORM), CLERR(CL_INVALID_DEVICE),
      CLERR(CL_INVALID_CONTEXT), CLERR(CL_INVALID_QUEUE_PROPERTIES),
      CLERR(CL_INVALID_COMMAND_QUEUE), CLERR(CL_INVALID_HOST_PTR), CLERR(CL_INVALID_MEM_OBJECT),
      CLERR(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR), CLERR(CL_INVALID_IMAGE_SIZE),
      CLERR(CL_INVALID_SAMPLER), CLERR(CL_INVALID_BINARY), CLERR(CL_INVALID_BUILD_OPTIONS),
      CLERR(CL_INVALID_PROGRAM), CLERR(CL_INVALID_PROGRAM_EXECUTABLE),
      CLERR(CL_INVALID_KERNEL_NAME), CLERR(CL_INVALID_KERNEL_DEFINITION), CLERR(CL_INVALID_KERNEL),
      CLERR(CL_INVALID_ARG_INDEX), CLERR(CL_INVALID_ARG_VALUE), CLERR(CL_INVALID_ARG_SIZE),
      CLERR(CL_INVALID_KERNEL_ARGS), CLERR(CL_INVALID_WORK_DIMENSION),
      CLERR(CL_INVALID_WORK_GROUP_SIZE), CLERR(CL_INVALID_WORK_ITEM_SIZE),
      CLERR(CL_INVALID_GLOBAL_OFFSET), CLERR(CL_INVALID_EVENT_WAIT_LIST), CLERR(CL_INVALID_EVENT),
      CLERR(CL_INVALID_OPERATION), CLERR(CL_INVALID_GL_OBJECT), CLERR(CL_INVALID_BUFFER_SIZE),
      CLERR(CL_INVALID_MIP_LEVEL), CLERR(CL_INVALID_GLOBAL_WORK_SIZE), CLERR(CL_INVALID_PROPERTY),
      CLERR(CL_INVALID_IMAGE_DESCRIPTOR), CLERR(CL_INVALID_COMPILER_OPTIONS),
      CLERR(CL_INVALID_LINKER_OPTIONS), CLERR(CL_INVALID_DEVICE_PARTITION_COUNT),
      {-1001, "CL_PLATFORM_NOT_FOUND_KHR"},
  };
#undef CLERR
  for (const auto& [code, name] : kNames)
    if (code == err) return name;
  return "CL_ERROR(" + std::to_string(err) + ")";
}

namespace {

// What the user can do about an error, appended to the message.
const char* hint(cl_int err) {
  switch (err) {
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    case CL_OUT_OF_HOST_MEMORY:
    case CL_OUT_OF_RESOURCES:
      return "free tensors or use a smaller batch";
    case CL_INVALID_WORK_GROUP_SIZE:
    case CL_INVALID_WORK_ITEM_SIZE:
      return "the local size must divide the global size and fit the device's max work-group size";
    case CL_DEVICE_NOT_AVAILABLE:
      return "the device is busy or disabled; check it with `clinfo`";
    default:
      return "this is a concord or driver bug; please report it with the output of `concord devices`";
  }
}

}  // namespace

void check(cl_int err, const char* what, const Context* ctx, bool allocation) {
  if (err == CL_SUCCESS) return;
  std::ostringstream msg;
  msg << "[opencl] " << what << " failed";
  if (ctx) msg << " on " << ctx->device_string() << " (" << ctx->info().name << ")";
  msg << ": " << error_name(err) << " (" << err << "); " << hint(err);
  const bool oom = err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_HOST_MEMORY ||
                   (allocation && err == CL_OUT_OF_RESOURCES);
  if (oom) throw OutOfMemoryError(msg.str());
  throw DeviceError(msg.str());
}

// ----------------------------------------------------------- enumeration --

bool DeviceInfo::has_extension(std::string_view ext) const {
  return std::find(extensions.begin(), extensions.end(), ext) != extensions.end();
}

namespace {

std::string device_string_param(cl_device_id d, cl_device_info param) {
  size_t size = 0;
  if (clGetDeviceInfo(d, param, 0, nullptr, &size) != CL_SUCCESS || size == 0) return {};
  std::string s(size, '\0');
  if (clGetDeviceInfo(d, param, size, s.data(), nullptr) != CL_SUCCESS) return {};
  s.resize(s.find('\0') == std::string::npos ? s.size() : s.find('\0'));
  return s;
}

template <class T>
T device_param(cl_device_id d, cl_device_info param) {
  T v{};
  if (clGetDeviceInfo(d, param, sizeof(T), &v, nullptr) != CL_SUCCESS) return T{};
  return v;
}

DeviceInfo query_info(cl_platform_id p, cl_device_id d) {
  DeviceInfo info;
  info.name = device_string_param(d, CL_DEVICE_NAME);
  info.vendor = device_string_param(d, CL_DEVICE_VENDOR);
  info.driver_version = device_string_param(d, CL_DRIVER_VERSION);
  info.device_version = device_string_param(d, CL_DEVICE_VERSION);
  info.opencl_c_version = device_string_param(d, CL_DEVICE_OPENCL_C_VERSION);
  size_t size = 0;
  if (clGetPlatformInfo(p, CL_PLATFORM_NAME, 0, nullptr, &size) == CL_SUCCESS && size > 0) {
    info.platform_name.resize(size);
    clGetPlatformInfo(p, CL_PLATFORM_NAME, size, info.platform_name.data(), nullptr);
    info.platform_name.resize(info.platform_name.find('\0') == std::string::npos
                                  ? size : info.platform_name.find('\0'));
  }
  if (info.platform_name == "Portable Computing Language") {
    const char* kc = std::getenv("POCL_KERNEL_CACHE");
    info.driver_caches_binaries = !(kc && std::strcmp(kc, "0") == 0);
  }
  std::istringstream exts(device_string_param(d, CL_DEVICE_EXTENSIONS));
  for (std::string e; exts >> e;) info.extensions.push_back(e);
  info.fp64 = info.has_extension("cl_khr_fp64");
  info.fp16 = info.has_extension("cl_khr_fp16");
  auto fp = device_param<cl_device_fp_config>(d, CL_DEVICE_SINGLE_FP_CONFIG);
  info.fp32_correctly_rounded_divide_sqrt = (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
  info.denorms = (fp & CL_FP_DENORM) != 0;
  info.round_to_nearest = (fp & CL_FP_ROUND_TO_NEAREST) != 0;
  if (info.fp64) {
    auto fp64 = device_param<cl_device_fp_config>(d, CL_DEVICE_DOUBLE_FP_CONFIG);
    info.denorms = info.denorms && (fp64 & CL_FP_DENORM) != 0;
    info.round_to_nearest = info.round_to_nearest && (fp64 & CL_FP_ROUND_TO_NEAREST) != 0;
  }
  auto type = device_param<cl_device_type>(d, CL_DEVICE_TYPE);
  info.type = (type & CL_DEVICE_TYPE_GPU)           ? "gpu"
              : (type & CL_DEVICE_TYPE_CPU)         ? "cpu"
              : (type & CL_DEVICE_TYPE_ACCELERATOR) ? "accelerator"
                                                    : "other";
  info.global_mem = device_param<cl_ulong>(d, CL_DEVICE_GLOBAL_MEM_SIZE);
  info.max_alloc = device_param<cl_ulong>(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  info.max_work_group = device_param<size_t>(d, CL_DEVICE_MAX_WORK_GROUP_SIZE);
  info.compute_units = device_param<cl_uint>(d, CL_DEVICE_MAX_COMPUTE_UNITS);
  return info;
}

struct Device {
  cl_platform_id platform;
  cl_device_id id;
  DeviceInfo info;
};

// Process-wide state. Held through a never-deleted pointer so that code
// running during static destruction (a global tensor freeing its buffer) still
// finds valid Context objects; the OpenCL objects themselves are released by
// Shutdown below, which runs before the driver library unloads.
struct Runtime {
  std::once_flag enumerated;
  std::vector<Device> devices;
  std::mutex mu;  // guards contexts
  std::vector<std::unique_ptr<Context>> contexts;
};
Runtime& runtime() {
  static Runtime* rt = new Runtime;  // intentionally never deleted, see above
  return *rt;
}

// Calls f on every context created so far, under the runtime's lock.
template <class F>
void each_context(F f) {
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> lock(rt.mu);
  for (auto& c : rt.contexts)
    if (c) f(*c);
}

struct Shutdown {
  ~Shutdown() { each_context([](Context& c) { c.shutdown(); }); }
};

const std::vector<Device>& devices() {
  Runtime& rt = runtime();
  std::call_once(rt.enumerated, [&] {
    // Any failure here (no ICD loader config, CL_PLATFORM_NOT_FOUND_KHR, a
    // broken platform) means "no devices", never an exception.
    cl_uint np = 0;
    if (clGetPlatformIDs(0, nullptr, &np) != CL_SUCCESS || np == 0) return;
    std::vector<cl_platform_id> platforms(np);
    if (clGetPlatformIDs(np, platforms.data(), nullptr) != CL_SUCCESS) return;
    for (cl_platform_id p : platforms) {
      cl_uint nd = 0;
      if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS || nd == 0) continue;
      std::vector<cl_device_id> ids(nd);
      if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd, ids.data(), nullptr) != CL_SUCCESS) continue;
      for (cl_device_id d : ids) rt.devices.push_back({p, d, query_info(p, d)});
    }
    rt.contexts.resize(rt.devices.size());
  });
  return rt.devices;
}

[[noreturn]] void throw_no_device(size_t index) {
  size_t n = devices().size();
  throw DeviceError("[opencl] device opencl:" + std::to_string(index) + " does not exist; " +
                    std::to_string(n) + " OpenCL device" + (n == 1 ? "" : "s") +
                    " found (see `concord devices`)");
}

}  // namespace

size_t device_count() { return devices().size(); }

const DeviceInfo& device_info(size_t index) {
  if (index >= devices().size()) throw_no_device(index);
  return devices()[index].info;
}

void drain_on_thread_exit() {
  struct Drain {
    ~Drain() { each_context([](Context& c) { c.drain(); }); }
  };
  thread_local Drain drain;  // constructed on the thread's first call
  (void)drain;
}

Context& context(size_t index) {
  const auto& devs = devices();
  if (index >= devs.size()) throw_no_device(index);
  static Shutdown shutdown;  // constructed after the driver loaded => destroyed before it unloads
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> lock(rt.mu);
  auto& slot = rt.contexts[index];
  if (!slot) slot = std::make_unique<Context>(index, devs[index].platform, devs[index].id,
                                              devs[index].info);
  return *slot;
}

// --------------------------------------------------------------- context --

Context::Context(size_t index, cl_platform_id platform, cl_device_id device,
                 const DeviceInfo& info)
    : index_(index), platform_(platform), device_(device), info_(info) {
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                   reinterpret_cast<cl_context_properties>(platform_), 0};
  cl_int err = CL_SUCCESS;
  ctx_ = clCreateContext(props, 1, &device_, nullptr, nullptr, &err);
  check(err, "clCreateContext", this);
  queue_ = clCreateCommandQueue(ctx_, device_, 0, &err);
  if (err != CL_SUCCESS) {
    clReleaseContext(ctx_);
    check(err, "clCreateCommandQueue", this);
  }
  // Idle buffers may hold at most a quarter of the device memory.
  pool_cap_ = info_.global_mem / 4;
}

Context::~Context() { shutdown(); }

void Context::shutdown() {
  {
    std::lock_guard<std::mutex> lock(pool_mu_);
    if (closed_) return;
    closed_ = true;
  }
  if (queue_) clFinish(queue_);
  empty_cache();
  {
    std::lock_guard<std::mutex> lock(prog_mu_);
    for (auto& [key, k] : kernels_) clReleaseKernel(k);
    kernels_.clear();
    kernel_group_.clear();
    program_names_.clear();
    programs_.clear();  // ProgramEntry's destructor releases the cl_program
  }
  if (queue_) clReleaseCommandQueue(queue_);
  if (ctx_) clReleaseContext(ctx_);  // buffers still held elsewhere keep it alive
  queue_ = nullptr;
  ctx_ = nullptr;
}

void Context::drain() noexcept {
  {
    std::lock_guard<std::mutex> lock(pool_mu_);
    if (closed_) return;
  }
  if (queue_) clFinish(queue_);
}

Context::Stats Context::stats() const {
  Stats s;
  s.builds_from_source = builds_;
  s.binaries_loaded = loaded_;
  s.binaries_written = written_;
  s.memory_hits = mem_hits_;
  s.allocations = allocations_;
  s.pool_hits = pool_hits_;
  s.bytes_allocated = bytes_allocated_;
  s.bytes_cached = bytes_cached_;
  s.bytes_live = bytes_live_;
  return s;
}

// ---------------------------------------------------------------- memory --

size_t Context::bucket_size(size_t nbytes) const {
  // Small: multiples of 512 B. Large: powers of two, so a tensor of a
  // slightly different size still reuses a buffer (at most 2x waste).
  constexpr size_t kSmall = 4096, kStep = 512;
  if (nbytes <= kSmall) return std::max<size_t>(kStep, (nbytes + kStep - 1) / kStep * kStep);
  size_t b = kSmall;
  while (b < nbytes) b <<= 1;
  if (b > info_.max_alloc) b = (nbytes + kSmall - 1) / kSmall * kSmall;  // don't round past the limit
  return b;
}

void Context::throw_oom(size_t nbytes, const std::string& why) const {
  throw OutOfMemoryError("[opencl] out of memory allocating " + std::to_string(nbytes) +
                         " bytes on " + device_string() + " (" + info_.name + ", " + why +
                         "); free tensors or use a smaller batch");
}

cl_mem Context::alloc(size_t nbytes) {
  // Test hook (one relaxed load when off): fails the way a refused allocation does.
  if (fault::should_fail_alloc(opencl_kind_id()))
    throw_oom(nbytes, "injected allocation failure (concord::testing::fail_allocation_after)");
  if (nbytes > info_.max_alloc)
    throw_oom(nbytes, "max single allocation " + std::to_string(info_.max_alloc) + " bytes");
  const size_t bucket = bucket_size(nbytes);
  {
    std::lock_guard<std::mutex> lock(pool_mu_);
    if (closed_)
      throw DeviceError("[opencl] alloc on " + device_string() +
                        " after the runtime shut down; do not allocate during static destruction");
    auto it = pool_.find(bucket);
    if (it != pool_.end() && !it->second.empty()) {
      cl_mem m = it->second.back();
      it->second.pop_back();
      bytes_cached_ -= bucket;
      ++pool_hits_;
      return m;
    }
  }
  // Budget: live buffers may not exceed the device's global memory. Drivers
  // like PoCL overcommit (and fail, or get the process killed, only when the
  // pages are touched), so we enforce the limit ourselves. On failure, idle
  // pooled buffers are freed and the allocation retried once.
  auto oom = [](cl_int e) {
    return e == CL_MEM_OBJECT_ALLOCATION_FAILURE || e == CL_OUT_OF_RESOURCES ||
           e == CL_OUT_OF_HOST_MEMORY;
  };
  cl_int err = CL_SUCCESS;
  cl_mem m = nullptr;
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (attempt == 1) empty_cache();
    if (bytes_live_.fetch_add(bucket) + bucket > info_.global_mem) {
      bytes_live_ -= bucket;
      err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
      continue;
    }
    m = clCreateBuffer(ctx_, CL_MEM_READ_WRITE, bucket, nullptr, &err);
    if (err == CL_SUCCESS) break;
    bytes_live_ -= bucket;
    if (!oom(err)) break;
  }
  if (oom(err))
    throw_oom(nbytes, std::to_string(bytes_live_.load()) + " of " +
                          std::to_string(info_.global_mem) + " bytes in use");
  check(err, "clCreateBuffer", this, true);
  ++allocations_;
  bytes_allocated_ += bucket;
  return m;
}

void Context::free_buffer(cl_mem m, size_t bytes) {
  clReleaseMemObject(m);
  bytes_live_ -= bytes;
}

void Context::release(cl_mem m, size_t nbytes) {
  if (!m) return;
  // Bucket by the buffer's real size (always a bucket size, see alloc()).
  size_t bucket = 0;
  if (clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof(bucket), &bucket, nullptr) != CL_SUCCESS)
    bucket = bucket_size(nbytes);
  std::lock_guard<std::mutex> lock(pool_mu_);
  if (closed_ || bytes_cached_ + bucket > pool_cap_) {
    free_buffer(m, bucket);
    return;
  }
  pool_[bucket].push_back(m);
  bytes_cached_ += bucket;
}

void Context::empty_cache() {
  std::lock_guard<std::mutex> lock(pool_mu_);
  for (auto& [bucket, list] : pool_)
    for (cl_mem m : list) free_buffer(m, bucket);
  pool_.clear();
  bytes_cached_ = 0;
}

namespace {
// "clEnqueueWriteBuffer(4096 bytes at offset 0, host -> opencl:0)": a failed
// transfer says which one, built only on failure.
std::string transfer_what(const char* call, size_t nbytes, size_t offset, bool to_device, const Context& c) {
  return std::string(call) + "(" + std::to_string(nbytes) + " bytes at offset " + std::to_string(offset) + ", " +
         (to_device ? "host -> " + c.device_string() : c.device_string() + " -> host") + ")";
}
}  // namespace

void Context::write(cl_mem dst, size_t offset, size_t nbytes, const void* src) {
  if (nbytes == 0) return;  // OpenCL rejects zero-size transfers
  // An injected failure reports what a driver does when a transfer cannot complete.
  const cl_int err = fault::should_fail_transfer()
                         ? CL_OUT_OF_RESOURCES
                         : clEnqueueWriteBuffer(queue_, dst, CL_TRUE, offset, nbytes, src, 0, nullptr, nullptr);
  if (err != CL_SUCCESS) check(err, transfer_what("clEnqueueWriteBuffer", nbytes, offset, true, *this).c_str(), this);
}

void Context::read(cl_mem src, size_t offset, size_t nbytes, void* dst) {
  if (nbytes == 0) return;
  const cl_int err = fault::should_fail_transfer()
                         ? CL_OUT_OF_RESOURCES
                         : clEnqueueReadBuffer(queue_, src, CL_TRUE, offset, nbytes, dst, 0, nullptr, nullptr);
  if (err != CL_SUCCESS) check(err, transfer_what("clEnqueueReadBuffer", nbytes, offset, false, *this).c_str(), this);
}

void Context::copy(cl_mem src, size_t src_off, cl_mem dst, size_t dst_off, size_t nbytes) {
  if (nbytes == 0) return;
  drain_on_thread_exit();
  check(clEnqueueCopyBuffer(queue_, src, dst, src_off, dst_off, nbytes, 0, nullptr, nullptr),
        "clEnqueueCopyBuffer", this);
}

void Context::finish() { check(clFinish(queue_), "clFinish", this); }

}  // namespace concord::detail::ocl
