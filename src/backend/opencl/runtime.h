// backend/opencl/runtime.h — the OpenCL runtime layer: devices, contexts,
// program cache, kernel launch, buffer pool. Knows nothing about tensors.
//
//   auto& c = ocl::context(0);                       // "opencl:0"
//   cl_program p = c.program("add", kAddSource);     // built once, cached
//   cl_kernel  k = c.kernel(p, "add");
//   cl_mem a = c.alloc(n * 4);  c.write(a, 0, n * 4, host);
//   c.launch(k, {n, 1, 1}, {0, 0, 0}, 1, a, b, out, static_cast<cl_int>(n));
//   c.read(out, 0, n * 4, host_out);  c.release(a, n * 4);
//
// Every function here is thread-safe. Errors are concord::DeviceError (or
// concord::OutOfMemoryError) whose message starts with "[opencl]", names the
// device as "opencl:N" and says what to do.
#pragma once

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#ifndef CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#endif
#include <CL/cl.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace concord::detail::ocl {

// What a device reports about itself, read once at enumeration.
struct DeviceInfo {
  std::string name, vendor, driver_version, device_version, platform_name;
  std::string opencl_c_version;  // CL_DEVICE_OPENCL_C_VERSION
  std::string type;              // "cpu", "gpu", "accelerator", "other"
  std::vector<std::string> extensions;
  bool fp64 = false;  // cl_khr_fp64: double arithmetic
  bool fp16 = false;  // cl_khr_fp16: half arithmetic (half *storage* via vload_half is core 1.2)
  // CL_DEVICE_SINGLE_FP_CONFIG has CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT, i.e.
  // programs may be built with -cl-fp32-correctly-rounded-divide-sqrt.
  bool fp32_correctly_rounded_divide_sqrt = false;
  // CL_FP_DENORM and CL_FP_ROUND_TO_NEAREST in the single (and, with
  // cl_khr_fp64, double) FP config: subnormals kept, round to nearest even.
  bool denorms = true, round_to_nearest = true;
  uint64_t global_mem = 0, max_alloc = 0;
  size_t max_work_group = 0;
  unsigned compute_units = 0;
  // The driver keeps compiled programs between processes itself (PoCL's
  // kernel cache, unless POCL_KERNEL_CACHE=0): concord's own disk cache is
  // then used only where CONCORD_CACHE_DIR asks for it (program_cache.cpp).
  bool driver_caches_binaries = false;
  bool has_extension(std::string_view ext) const;
};

// Number of OpenCL devices over all platforms and device types. Enumerated
// once, lazily; returns 0 (never throws) when there is no ICD or platform.
size_t device_count();
// Info for device `index` without creating a context (for `concord devices`).
// Throws DeviceError if the index is out of range.
const DeviceInfo& device_info(size_t index);

// "CL_OUT_OF_RESOURCES", ..., or "CL_ERROR(-1234)" for unknown codes.
std::string error_name(cl_int err);

class Context;

// Makes the calling thread, when it ends, wait for every context's queue.
// Called wherever work is submitted (Context::queue(), kernel(), copy()).
// Work left in a queue at exit() would otherwise run during static
// destruction: PoCL compiles a kernel lazily at its first run, in its worker
// thread, with LLVM code whose function-local statics exit() has already
// destroyed (a SIGSEGV on a cold kernel cache). A thread's thread_local
// objects are destroyed before any static object ([basic.start.term]), so
// this wait comes before all of them.
void drain_on_thread_exit();

// Throws unless err == CL_SUCCESS. `what` names the failed call
// ("clEnqueueReadBuffer"). CL_MEM_OBJECT_ALLOCATION_FAILURE and
// CL_OUT_OF_HOST_MEMORY raise OutOfMemoryError; so does CL_OUT_OF_RESOURCES
// when `allocation` is true (elsewhere it usually means a launch too large).
void check(cl_int err, const char* what, const Context* ctx = nullptr,
           bool allocation = false);

// Marker for a __local kernel argument of `bytes` bytes.
struct LocalMem {
  size_t bytes;
};

// One per device: a cl_context and one in-order command queue, so commands
// on one context run in submission order. Obtain with context(index).
class Context {
 public:
  struct Stats {
    uint64_t builds_from_source = 0;  // clBuildProgram from source
    uint64_t binaries_loaded = 0;     // programs taken from the disk cache
    uint64_t binaries_written = 0;    // programs written to the disk cache
    uint64_t memory_hits = 0;         // program() answered from memory
    uint64_t allocations = 0;         // clCreateBuffer calls
    uint64_t pool_hits = 0;           // alloc() answered from the pool
    uint64_t bytes_allocated = 0;     // total bytes ever requested from the driver
    uint64_t bytes_cached = 0;        // bytes currently idle in the pool
    uint64_t bytes_live = 0;          // bytes held from the driver (in use + pooled)
  };

  Context(size_t index, cl_platform_id platform, cl_device_id device, const DeviceInfo& info);
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  ~Context();

  size_t index() const { return index_; }
  std::string device_string() const { return "opencl:" + std::to_string(index_); }
  const DeviceInfo& info() const { return info_; }
  cl_context ctx() const { return ctx_; }
  // Callers enqueue on it directly: the calling thread's exit (and so the
  // process's exit) then first waits for the queue, see drain_on_thread_exit().
  cl_command_queue queue() const {
    drain_on_thread_exit();
    return queue_;
  }
  cl_device_id id() const { return device_; }

  // --- programs ---------------------------------------------------------
  // Builds `source` (once per process; also cached on disk) and returns a
  // program owned by the context. Options always include
  // -DCONCORD_HAS_FP64=0|1 and -DCONCORD_HAS_FP16=0|1 from the extensions
  // (unless `extra_options` defines them itself, e.g. a no-fp64 profile)
  // and -cl-fp32-correctly-rounded-divide-sqrt where supported.
  // Disk cache dir: $CONCORD_CACHE_DIR, else $XDG_CACHE_HOME/concord, else
  // $HOME/.cache/concord (files go under <dir>/opencl/);
  // CONCORD_NO_DISK_CACHE=1 disables it. A build failure throws DeviceError
  // with the program name, device, options and full build log. Sources using
  // double must still `#pragma OPENCL EXTENSION cl_khr_fp64 : enable` under
  // `#if CONCORD_HAS_FP64`.
  cl_program program(const std::string& name, const std::string& source,
                     const std::string& extra_options = "");
  // Kernel `kernel_name` of `p`, cached per (program, name); owned by the context.
  cl_kernel kernel(cl_program p, const char* kernel_name);
  // A fixed group size for 1-D launches of `k`: kDefaultGroup, or the largest
  // power of two below the kernel's CL_KERNEL_WORK_GROUP_SIZE. Fixed rather
  // than the driver's choice: PoCL picks a divisor of each global size and
  // compiles the kernel again for every new one (a second or more of LLVM per
  // tensor size), and 256 also ran elementwise ops 1.0-1.5x faster there.
  static constexpr size_t kDefaultGroup = 256;
  size_t default_group(cl_kernel k) const;
  // The options program() uses for `extra_options` on this device.
  std::string build_options(const std::string& extra_options) const;

  // --- launch -----------------------------------------------------------
  // Sets the arguments and enqueues `k` (asynchronous; use read() or
  // finish() to wait). Args: cl_mem, arithmetic scalars (their C++ size must
  // match the kernel's type: int32_t for int, int64_t for long, float,
  // double), structs passed by value (same layout as the kernel's), or
  // LocalMem{bytes}. local_or_zero = {0,0,0} lets the driver
  // choose; otherwise each global size must be a multiple of the local size.
  // A zero global size is a no-op. Errors name the kernel, argument or sizes.
  template <class... Args>
  void launch(cl_kernel k, std::array<size_t, 3> global, std::array<size_t, 3> local_or_zero,
              int work_dim, const Args&... args) {
    // cl_kernel argument state is shared: set + enqueue must be atomic.
    std::lock_guard<std::mutex> lock(launch_mu_);
    cl_uint i = 0;
    (set_arg(k, i++, args), ...);
    enqueue(k, global, local_or_zero, work_dim);
  }

  // --- memory -----------------------------------------------------------
  // A read-write buffer of at least nbytes (0 is allowed). Reuses pooled
  // buffers of the same size bucket. Throws OutOfMemoryError when nbytes
  // exceeds the device's max allocation, when live buffers would exceed its
  // global memory (enforced here: some drivers overcommit), or when the
  // driver refuses.
  cl_mem alloc(size_t nbytes);
  // Gives a buffer from alloc() back to the pool (or frees it when the pool
  // is full). nbytes is the size passed to alloc(); the buffer's real size
  // decides its bucket, so a wrong nbytes cannot corrupt the pool.
  void release(cl_mem m, size_t nbytes);
  // Frees every pooled buffer.
  void empty_cache();
  void write(cl_mem dst, size_t offset, size_t nbytes, const void* src);  // blocking
  void read(cl_mem src, size_t offset, size_t nbytes, void* dst);         // blocking
  void copy(cl_mem src, size_t src_off, cl_mem dst, size_t dst_off, size_t nbytes);  // enqueued
  void finish();

  Stats stats() const;

  // Waits for the queue (clFinish, errors ignored); no-op after shutdown().
  void drain() noexcept;

  // Releases every OpenCL object the context owns; called at process exit.
  // Buffers still held by callers stay valid (OpenCL reference counting) and
  // release() then frees them directly.
  void shutdown();

 private:
  struct ProgramEntry;  // one per cache key; its mutex serialises the build

  template <class T>
  void set_arg(cl_kernel k, cl_uint i, const T& v) {
    if constexpr (std::is_same_v<T, LocalMem>) {
      set_arg_raw(k, i, v.bytes, nullptr);
    } else if constexpr (std::is_same_v<T, cl_mem>) {
      set_arg_raw(k, i, sizeof(cl_mem), &v);
    } else {
      // Scalars and structs passed by value (a kernel's Geom): their bytes.
      static_assert(std::is_trivially_copyable_v<T> && !std::is_same_v<T, bool> && !std::is_pointer_v<T>,
                    "kernel args: cl_mem, LocalMem, a non-bool scalar or a trivially copyable struct");
      set_arg_raw(k, i, sizeof(T), &v);
    }
  }
  void set_arg_raw(cl_kernel k, cl_uint i, size_t size, const void* value);
  void enqueue(cl_kernel k, const std::array<size_t, 3>& global,
               const std::array<size_t, 3>& local, int work_dim);
  cl_program build(const std::string& name, const std::string& source,
                   const std::string& options, const std::string& key);
  cl_program load_binary(const std::string& file, const std::string& key,
                         const std::string& options);
  void store_binary(const std::string& file, const std::string& key, cl_program p);
  // Releases p and throws DeviceError with the build log.
  [[noreturn]] void throw_build_error(const std::string& name, const std::string& options, cl_int err,
                                      cl_program p) const;
  size_t bucket_size(size_t nbytes) const;
  [[noreturn]] void throw_oom(size_t nbytes, const std::string& why) const;
  void free_buffer(cl_mem m, size_t bytes);  // clReleaseMemObject + accounting

  size_t index_;
  cl_platform_id platform_;
  cl_device_id device_;
  DeviceInfo info_;
  cl_context ctx_ = nullptr;
  cl_command_queue queue_ = nullptr;

  std::mutex launch_mu_;

  mutable std::mutex prog_mu_;  // guards programs_ and kernels_ maps
  std::unordered_map<std::string, std::shared_ptr<ProgramEntry>> programs_;
  std::map<std::pair<cl_program, std::string>, cl_kernel> kernels_;
  std::unordered_map<cl_kernel, size_t> kernel_group_;  // default_group()
  std::unordered_map<cl_program, std::string> program_names_;  // for error messages

  mutable std::mutex pool_mu_;
  std::unordered_map<size_t, std::vector<cl_mem>> pool_;  // bucket size -> idle buffers
  uint64_t pool_cap_ = 0;
  bool closed_ = false;

  std::atomic<uint64_t> builds_{0}, loaded_{0}, written_{0}, mem_hits_{0};
  std::atomic<uint64_t> allocations_{0}, pool_hits_{0}, bytes_allocated_{0}, bytes_cached_{0};
  std::atomic<uint64_t> bytes_live_{0};
};

// The context of device `index`, created on first use. Throws DeviceError
// when the index does not exist or the driver cannot create a context.
Context& context(size_t index);

// Test hook: when non-empty, program() appends `s` to every source before
// hashing and building (lets a test force a build failure).
void set_source_suffix_for_testing(std::string s);

}  // namespace concord::detail::ocl
