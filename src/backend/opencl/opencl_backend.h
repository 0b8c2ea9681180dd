// The OpenCL backend: tensors in cl_mem buffers, kernels from kernels/*.cl.
//
// One OpenClBackend per device. Kernel families live in separate .cpp files
// (elementwise.cpp, reduce.cpp, linear.cpp, index.cpp, random.cpp, linalg.cpp); this
// header is their shared contract.
#pragma once

#include <map>
#include <mutex>
#include <string>

#include "backend/kernel_args.h"
#include "backend/opencl/runtime.h"
#include "core/backend.h"

namespace concord::detail::ocl {

// The embedded sources (kernels/*.cl and common/*.h), generated at build time.
const std::map<std::string, std::string>& embedded_sources();

// Tensor geometry handed to kernels by value (backend/kernel_args.h); mirrors
// `Geom` in kernels/common.cl.
using Geom = KernelGeom;
inline constexpr int kMaxDims = kMaxKernelDims;

class OpenClBackend final : public Backend {
 public:
  explicit OpenClBackend(int index);
  std::string_view kind_name() const override { return "opencl"; }
  Context& ctx() const { return ctx_; }
  const Device& device() const { return device_; }

  std::shared_ptr<Storage> allocate(size_t nbytes, const Device& d) override;
  void write(Storage& dst, size_t off, const void* src, size_t n) override;
  void read(const Storage& src, size_t off, void* dst, size_t n) override;

  void copy(const Tensor& src, const Tensor& dst) override;                              // elementwise.cpp
  void fill(const Tensor& dst, Scalar v) override;                                       // elementwise.cpp
  void canonicalize_nan(const Tensor& t) override;                                       // elementwise.cpp
  void iota(const Tensor& dst, double start, double step) override;                      // elementwise.cpp
  void iota_int(const Tensor& dst, int64_t start, int64_t step) override;                // elementwise.cpp
  void random(OpId op, const Tensor& dst, uint64_t seed, uint64_t offset, int64_t a, int64_t b) override;  // random.cpp
  void unary(OpId op, const Tensor& x, const Tensor& out) override;                      // elementwise.cpp
  void pow_scalar(const Tensor& x, const ScalarExponent& e, const Tensor& out) override;  // elementwise.cpp
  void binary(OpId op, const Tensor& a, const Tensor& b, const Tensor& out) override;    // elementwise.cpp
  void where(const Tensor& c, const Tensor& a, const Tensor& b, const Tensor& out) override;  // elementwise.cpp
  void clamp(const Tensor& x, std::optional<Scalar> lo, std::optional<Scalar> hi, const Tensor& out) override;  // elementwise.cpp
  void reduce(OpId op, const Tensor& x, const Dims& dims, const Tensor& out, const ReduceArgs& args) override;  // reduce.cpp
  void arg_reduce(OpId op, const Tensor& x, int64_t dim, const Tensor& out) override;    // reduce.cpp
  void scan_op(OpId op, const Tensor& x, int64_t dim, const Tensor& out) override;       // reduce.cpp
  void matmul(const Tensor& a, const Tensor& b, const Tensor& out, Scalar alpha = 1, Scalar beta = 0) override;  // linear.cpp
  void index_select(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& out) override;  // index.cpp
  void gather(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& out) override;        // index.cpp
  void tri(OpId op, const Tensor& x, int64_t diagonal, const Tensor& out) override;      // index.cpp
  // Linear algebra (linalg.cpp): float32/float64, contiguous [B, n, n] operands.
  void lu_factor(const Tensor& lu, const Tensor& pivots, const Tensor& info) override;
  void lu_solve(const Tensor& lu, const Tensor& pivots, const Tensor& b) override;
  void cholesky(const Tensor& a, const Tensor& info) override;
  void solve_triangular(const Tensor& a, const Tensor& b, bool upper, bool left, bool unitriangular) override;
  // Determinants from an LU and norms (norms.cpp): float64 inside, cl_khr_fp64 only.
  void lu_det(const Tensor& lu, const Tensor& pivots, const Tensor& det) override;
  void lu_slogdet(const Tensor& lu, const Tensor& pivots, const Tensor& sign, const Tensor& logabsdet) override;
  void vector_norm_rows(const Tensor& x, double ord, const Tensor& out) override;
  void matrix_abs_sum_norm(const Tensor& x, double ord, const Tensor& out) override;
  // One work-group per matrix is the right shape for many small systems; above
  // this n a blocked LAPACK on the host wins, so the dispatcher falls back.
  int64_t linalg_max_n(const Device&) const override { return 256; }
  void synchronize(const Device&) override { ctx_.finish(); }

  // Builds (once; cached in memory and on disk) the program made of common.cl,
  // the shared headers, and kernels/<file>, with -D options for the device's
  // real extensions and the current profile (no-fp64 removes CONCORD_HAS_FP64).
  cl_program program(const std::string& file, const std::string& extra_options = "");
  // Whether programs are built with float64 (the device has it and the
  // current profile keeps it): the one decision, for kernels that exist only
  // in one of the two builds.
  bool fp64_programs() const;
  cl_kernel kernel(const std::string& file, const char* name, const std::string& extra_options = "");

  // The one 1-D launch of the backend's kernels: `items` work-items (rounded
  // up to whole groups; kernels test their index against n), in groups of
  // `local` (0: the kernel's Context::default_group). Asynchronous.
  template <class... Args>
  void run(cl_kernel k, int64_t items, size_t local, const Args&... args) {
    if (items <= 0) return;
    if (local == 0) local = ctx_.default_group(k);
    const size_t global = (static_cast<size_t>(items) + local - 1) / local * local;
    ctx_.launch(k, {global, 1, 1}, {local, 1, 1}, 1, args...);
  }

 private:
  int index_;
  Device device_;
  Context& ctx_;
  std::mutex mu_;
  std::map<std::string, cl_program> programs_;  // (file, options) -> program: no re-hashing per launch
};

// The buffer of a tensor on an OpenCL device.
inline cl_mem buffer(const Tensor& t) { return static_cast<cl_mem>(t.storage()->ptr); }
// Geometry of a tensor, and of t viewed with `shape` (stride 0 on broadcast dims).
inline Geom geom(const Tensor& t) { return kernel_geom(t, "opencl"); }
inline Geom geom_as(const Tensor& t, const Shape& shape) { return kernel_geom_as(t, shape, "opencl"); }
// The backend's dtype names: the suffix of kernel names ("f16", backend/kernel_args.h),
// and the OpenCL C storage type ("float"; halves are raw "ushort" bits, bool "uchar").
inline const char* suffix(Dtype t) { return dtype_suffix(t); }
const char* cl_type(Dtype t);
// The unsigned word type of a dtype's size ("uchar" .. "ulong"), for kernels that move raw items.
const char* item_type(Dtype t);

// Test hook for linalg.cpp: how the LU update is split over work-items
// (-1: by the device type, the default; 0: by columns, as on GPUs; 1: by rows).
void set_linalg_split_for_testing(int mode);

// Capabilities read from device `index` (extensions), before profiles.
Capabilities capabilities(int index);
Backend& backend(int index);

}  // namespace concord::detail::ocl
