// OpenCL linear algebra (kernels/linalg.cl): batched LU, LU solve, triangular
// solve and Cholesky in float32 and float64, one work-group per matrix.
//
// Matrices up to linalg_max_n() (256) run here; larger ones never arrive: the
// dispatcher's plan_sized sends them to the counted CPU fallback. A matrix
// sits in __local memory when it fits (the device's local memory, capped at
// kLocalCap so that the choice is the same on CPU devices, whose "local"
// memory is ordinary RAM, as on GPUs), otherwise the same kernel works on it
// in __global memory.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "backend/kernel_errors.h"
#include "backend/opencl/opencl_backend.h"

namespace concord::detail::ocl {
namespace {

// 64 KiB: the local memory of most GPUs (float32 up to n ~ 126, float64 up to
// n ~ 89 after the kernels' own __local words).
constexpr size_t kLocalCap = size_t{64} << 10;
constexpr size_t kMaxGroup = 256;
constexpr int64_t kMaxIndex = int64_t{1} << 31;  // the kernels index a matrix with int

std::atomic<int> g_split{-1};  // set_linalg_split_for_testing

size_t local_mem_size(Context& c) {
  static std::mutex mu;
  static std::unordered_map<cl_device_id, size_t> sizes;
  std::lock_guard lock(mu);
  auto it = sizes.find(c.id());
  if (it != sizes.end()) return it->second;
  cl_ulong bytes = 0;
  check(clGetDeviceInfo(c.id(), CL_DEVICE_LOCAL_MEM_SIZE, sizeof bytes, &bytes, nullptr),
        "clGetDeviceInfo(CL_DEVICE_LOCAL_MEM_SIZE)", &c);
  return sizes[c.id()] = static_cast<size_t>(bytes);
}

size_t kernel_group_limit(Context& c, cl_kernel k) {
  size_t limit = 0;
  check(clGetKernelWorkGroupInfo(k, c.id(), CL_KERNEL_WORK_GROUP_SIZE, sizeof limit, &limit, nullptr),
        "clGetKernelWorkGroupInfo(CL_KERNEL_WORK_GROUP_SIZE)", &c);
  return std::max<size_t>(limit, 1);
}

// A kernel of linalg.cl ready to launch over `count` matrices.
struct Launch {
  cl_kernel kernel;
  size_t group;  // work-items per matrix
  LocalMem scratch;
};

// `width`: how many independent updates a step has at most (n, or the rhs columns).
Launch prepare(OpenClBackend& be, const char* op, const char* kname, Dtype t, int64_t n, int64_t width) {
  if (t != float32 && t != float64)
    throw NotImplementedError(std::string("[linalg.") + op + "] the opencl kernel takes float32 or float64, got " +
                              std::string(name(t)) + "; the front end converts other dtypes first");
  Context& c = be.ctx();
  const size_t bytes = static_cast<size_t>(n * n) * itemsize(t);
  const size_t local_avail = local_mem_size(c);
  // Leave room for the kernels' own __local variables (a few words).
  const bool local = local_avail > 1024 && bytes <= std::min(kLocalCap, local_avail - 1024);
  // CPU devices vectorise loops inside a work-item, GPUs across work-items:
  // the LU update is split by rows on the first and by columns on the second
  // (the same operations per element either way).
  const int split = g_split.load();
  const bool rowwise = split < 0 ? c.info().type == "cpu" : split == 1;
  const std::string opts = std::string("-DT=") + (t == float64 ? "double" : "float") +
                           " -DUSE_LOCAL=" + (local ? "1" : "0") + " -DROWWISE=" + (rowwise ? "1" : "0");
  cl_kernel k = be.kernel("linalg.cl", kname, opts);
  size_t group = 16;  // at least a SIMD width (the parts not split by rows vectorise across items)
  while (group < kMaxGroup && group < static_cast<size_t>(width)) group *= 2;
  group = std::min({group, kernel_group_limit(c, k), c.info().max_work_group > 0 ? c.info().max_work_group : group});
  return Launch{k, group, LocalMem{local ? bytes : itemsize(t)}};
}

void check_extent(const char* op, int64_t n, int64_t k, const Device& d) {
  if (n * n < kMaxIndex && n * k < kMaxIndex) return;
  throw NotImplementedError(std::string("[linalg.") + op + "] matrices of n = " + std::to_string(n) + " with " +
                            std::to_string(k) + " columns exceed the 2^31 elements the " + d.str() +
                            " kernel indexes; move the tensors to cpu with .to(\"cpu\")");
}

std::array<size_t, 3> groups(int64_t count, size_t group) { return {static_cast<size_t>(count) * group, 1, 1}; }

}  // namespace

void set_linalg_split_for_testing(int mode) { g_split = mode; }

void OpenClBackend::lu_factor(const Tensor& lu, const Tensor& pivots, const Tensor& info) {
  const int64_t count = lu.size(0), n = lu.size(1);
  if (count == 0 || n == 0) return;
  check_extent("lu_factor", n, n, device());
  const Launch l = prepare(*this, "lu_factor", "lu_factor", lu.dtype(), n, n);
  ctx_.launch(l.kernel, groups(count, l.group), {l.group, 1, 1}, 1, buffer(lu), int64_t{lu.offset()},
              buffer(pivots), int64_t{pivots.offset()}, buffer(info), int64_t{info.offset()},
              static_cast<int32_t>(n), l.scratch);
}

void OpenClBackend::lu_solve(const Tensor& lu, const Tensor& pivots, const Tensor& b) {
  const int64_t count = lu.size(0), n = lu.size(1), k = b.size(2);
  if (count == 0 || n == 0 || k == 0) return;
  check_extent("lu_solve", n, k, device());
  const Launch l = prepare(*this, "lu_solve", "lu_solve", lu.dtype(), n, std::max(n, k));
  // Pivots come from the caller: the kernel flags any outside [1, n] instead of
  // swapping rows outside the matrix, and the host raises the CPU's error.
  auto flag = allocate(sizeof(cl_int), device());
  const cl_int zero = 0;
  ctx_.write(static_cast<cl_mem>(flag->ptr), 0, sizeof zero, &zero);
  ctx_.launch(l.kernel, groups(count, l.group), {l.group, 1, 1}, 1, buffer(lu), int64_t{lu.offset()},
              buffer(pivots), int64_t{pivots.offset()}, buffer(b), int64_t{b.offset()}, static_cast<int32_t>(n),
              static_cast<int32_t>(k), static_cast<cl_mem>(flag->ptr), l.scratch);
  cl_int bad = 0;
  ctx_.read(static_cast<cl_mem>(flag->ptr), 0, sizeof bad, &bad);
  if (!bad) return;
  std::vector<int32_t> piv(static_cast<size_t>(pivots.numel()));
  ctx_.read(buffer(pivots), static_cast<size_t>(pivots.offset()) * sizeof(int32_t), piv.size() * sizeof(int32_t),
            piv.data());
  check_pivots(piv.data(), static_cast<int64_t>(piv.size()), n);
}

void OpenClBackend::cholesky(const Tensor& a, const Tensor& info) {
  const int64_t count = a.size(0), n = a.size(1);
  if (count == 0 || n == 0) return;
  check_extent("cholesky", n, n, device());
  const Launch l = prepare(*this, "cholesky", "cholesky", a.dtype(), n, n);
  ctx_.launch(l.kernel, groups(count, l.group), {l.group, 1, 1}, 1, buffer(a), int64_t{a.offset()}, buffer(info),
              int64_t{info.offset()}, static_cast<int32_t>(n), l.scratch);
}

void OpenClBackend::solve_triangular(const Tensor& a, const Tensor& b, bool upper, bool left, bool unitriangular) {
  const int64_t count = a.size(0), n = a.size(1), k = left ? b.size(2) : b.size(1);
  if (count == 0 || n == 0 || k == 0) return;
  check_extent("solve_triangular", n, k, device());
  // Left-upper steps are per column of B; the others are per element of a row or column.
  const int64_t width = left && upper ? k : std::max(n, k);
  const Launch l = prepare(*this, "solve_triangular", "solve_triangular", a.dtype(), n, width);
  ctx_.launch(l.kernel, groups(count, l.group), {l.group, 1, 1}, 1, buffer(a), int64_t{a.offset()}, buffer(b),
              int64_t{b.offset()}, static_cast<int32_t>(n), static_cast<int32_t>(k), static_cast<int32_t>(upper),
              static_cast<int32_t>(left), static_cast<int32_t>(unitriangular), l.scratch);
}

}  // namespace concord::detail::ocl
