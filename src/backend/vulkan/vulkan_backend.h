// The Vulkan backend: tensors in pooled device buffers addressed by device
// address, kernels from shaders/*.comp (SPIR-V embedded at build time).
//
// One VulkanBackend per device. Kernel families live in separate .cpp files
// (copy.cpp: copy, fill, iota; the others by family); this header is their
// shared contract:
//   - every dispatch gets one argument block (vk::ArgBlock) holding the
//     addresses of its tensors, their geometry (Geom, mirrored by
//     shaders/geom.glsl) and its scalars; the push constants are the block's
//     address (launch());
//   - shader variants are named by family and dtype suffix ("copy_f16_i64",
//     "fill_4"); suffix() is the one dtype-name table;
//   - a tensor's elements are addressed from its buffer's start: address(t)
//     plus the element offset carried in its Geom.
#pragma once

#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "backend/kernel_args.h"
#include "backend/vulkan/runtime.h"
#include "core/backend.h"

namespace concord::detail::vk {

// Tensor geometry for shaders (backend/kernel_args.h); mirrored by `Geom` in
// shaders/geom.glsl (std430: 144 bytes).
using Geom = KernelGeom;
static_assert(sizeof(Geom) == 144);
inline Geom geom(const Tensor& t) { return kernel_geom(t, "vulkan"); }
inline Geom geom_as(const Tensor& t, const Shape& shape) { return kernel_geom_as(t, shape, "vulkan"); }

inline const char* suffix(Dtype t) { return dtype_suffix(t); }
// The device buffer of a tensor, and the device address of its byte 0.
inline Buffer* buffer(const Tensor& t) { return static_cast<Buffer*>(t.storage()->ptr); }
inline uint64_t address(const Tensor& t) { return buffer(t)->addr; }

class VulkanBackend final : public Backend {
 public:
  explicit VulkanBackend(int index);
  std::string_view kind_name() const override { return "vulkan"; }
  Context& ctx() const { return ctx_; }
  const Device& device() const { return device_; }

  std::shared_ptr<Storage> allocate(size_t nbytes, const Device& d) override;
  void write(Storage& dst, size_t off, const void* src, size_t n) override;
  void read(const Storage& src, size_t off, void* dst, size_t n) override;
  void synchronize(const Device&) override { ctx_.finish(); }

  // Kernel families; each file also says what it claims (claims_* below).
  void copy(const Tensor& src, const Tensor& dst) override;                              // copy.cpp
  void fill(const Tensor& dst, Scalar v) override;                                       // copy.cpp
  void canonicalize_nan(const Tensor& t) override;                                       // copy.cpp
  void iota(const Tensor& dst, double start, double step) override;                      // copy.cpp
  void iota_int(const Tensor& dst, int64_t start, int64_t step) override;                // copy.cpp
  void unary(OpId op, const Tensor& x, const Tensor& out) override;                      // elementwise.cpp
  void pow_scalar(const Tensor& x, const ScalarExponent& e, const Tensor& out) override;  // elementwise.cpp
  void binary(OpId op, const Tensor& a, const Tensor& b, const Tensor& out) override;    // elementwise.cpp
  void where(const Tensor& cond, const Tensor& a, const Tensor& b, const Tensor& out) override;  // elementwise.cpp
  void clamp(const Tensor& x, std::optional<Scalar> lo, std::optional<Scalar> hi, const Tensor& out) override;  // elementwise.cpp
  void matmul(const Tensor& a, const Tensor& b, const Tensor& out, Scalar alpha, Scalar beta) override;  // linear.cpp
  void lu_factor(const Tensor& lu, const Tensor& pivots, const Tensor& info) override;                 // linalg.cpp
  void lu_solve(const Tensor& lu, const Tensor& pivots, const Tensor& b) override;                     // linalg.cpp
  void cholesky(const Tensor& a, const Tensor& info) override;                                         // linalg.cpp
  void solve_triangular(const Tensor& a, const Tensor& b, bool upper, bool left, bool unit) override;  // linalg.cpp
  void lu_det(const Tensor& lu, const Tensor& pivots, const Tensor& det) override;                    // norms.cpp
  void lu_slogdet(const Tensor& lu, const Tensor& pivots, const Tensor& sign,
                  const Tensor& logabsdet) override;  // norms.cpp
  void vector_norm_rows(const Tensor& x, double ord, const Tensor& out) override;                     // norms.cpp
  void matrix_abs_sum_norm(const Tensor& x, double ord, const Tensor& out) override;                  // norms.cpp
  int64_t linalg_max_n(const Device&) const override { return 128; }                                   // linalg.cpp
  void index_select(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& out) override;   // index.cpp
  void gather(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& out) override;         // index.cpp
  void tri(OpId op, const Tensor& x, int64_t diagonal, const Tensor& out) override;                  // index.cpp
  void random(OpId op, const Tensor& dst, uint64_t seed, uint64_t offset, int64_t a, int64_t b) override;  // random.cpp
  void reduce(OpId op, const Tensor& x, const Dims& dims, const Tensor& out, const ReduceArgs& args) override;  // reduce.cpp
  void arg_reduce(OpId op, const Tensor& x, int64_t dim, const Tensor& out) override;                  // reduce.cpp
  void scan_op(OpId op, const Tensor& x, int64_t dim, const Tensor& out) override;                     // reduce.cpp

  // The pipeline of a shader variant (created on first use, cached by the
  // context). DeviceError naming the variant when this build lacks it.
  Pipeline& pipeline(const std::string& variant);

  // Runs `variant` over n items with one argument block holding `args` (a
  // trivially copyable struct laid out as the shader's Args block).
  // Asynchronous; n == 0 does nothing.
  template <class A>
  void launch(const std::string& variant, uint64_t n, const A& args) {
    static_assert(std::is_trivially_copyable_v<A>);
    if (n == 0) return;
    Pipeline& p = pipeline(variant);
    ArgBlock block = ctx_.args(sizeof(A));
    std::memcpy(block.host, &args, sizeof(A));
    const uint64_t push = block.addr;
    ctx_.dispatch_1d(p, n, &push, sizeof push);
  }

 private:
  int index_;
  Device device_;
  Context& ctx_;
};

// Capabilities of device `index` (backend.cpp), before profiles: storage and
// arithmetic from the device's features, native kernels from the families'
// claims. Every claim is checked against the embedded shader variants when
// the capabilities are built: a claimed kernel whose SPIR-V is missing from
// this build is a DeviceError naming it, never a silent fallback.
Capabilities capabilities(int index);
Backend& backend(int index);

// What a kernel family implements on a device: the ops and dtypes it adds to
// caps.native, and the shader variants those kernels run (each must be in
// this build's embedded_spirv(); capabilities() checks).
struct Claims {
  Capabilities& caps;
  const DeviceInfo& info;
  std::vector<std::string> variants;
  // Claims op for the dtypes in `dtypes` that it is defined for and the device stores.
  void claim(OpId op, DtypeSet dtypes);
  void need(std::string variant) { variants.push_back(std::move(variant)); }
};
// One line per family in backend.cpp's capabilities().
void claims_copy(Claims& c);  // copy.cpp: copy, fill, arange, linspace, eye
void claims_elementwise(Claims& c);  // elementwise.cpp: unary, binary, where, clamp
void claim_reproducible_elementwise(Capabilities& c);  // elementwise.cpp: the "_x" variants' ops
void check_elementwise_cases(const Capabilities& c);  // elementwise.cpp: each claim has its shader case
void claims_linear(Claims& c);  // linear.cpp: matmul, mm, bmm, mv, dot, outer, addmm, baddbmm, linear
void claims_linalg(Claims& c);  // linalg.cpp: solve, lu_factor, lu_solve, inv, solve_triangular, cholesky
void claims_index(Claims& c);  // index.cpp: index_select, gather, tril, triu
void claims_random(Claims& c);  // random.cpp: rand, randn, randint
void claims_reduce(Claims& c);  // reduce.cpp: reductions, argmax/argmin, cumsum, softmax/log_softmax

}  // namespace concord::detail::vk
