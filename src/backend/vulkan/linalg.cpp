// Vulkan linear algebra (shaders/linalg.comp): batched LU with partial
// pivoting, LU solve, triangular solve and Cholesky in float32 and float64,
// one workgroup per matrix, and the ops built on them (solve, lu_factor,
// lu_solve, inv, cholesky, solve_triangular; float16/bfloat16 run in float32
// working copies made by the front ends).
//
// Matrices up to linalg_max_n() (128) run here; larger ones never arrive: the
// dispatcher sends them to the counted CPU fallback. 128 (OpenCL takes 256)
// keeps every invocation well below 65535 loop iterations, after which
// llvmpipe silently ends it (the LU of n = 200 stopped at step 121); for the
// same reason right-hand sides are split into slices of 64 per workgroup. It
// is also the CPU's small-matrix regime, whose operation order the shader
// follows (float results equal the CPU's bits on lavapipe). A matrix is worked on in
// shared memory when it fits (the device's shared memory, capped at 64 KiB as
// OpenCL's local memory is), otherwise in place in device memory by the same
// shader. det's diagonal product, slogdet's sum of logs and the norms run in
// norms.cpp.
//
// The reproducible mode runs the "_x" variants (linalg_x_f32 / linalg_x_f64):
// the same loops with every float operation an integer function on bits, so
// the CPU's bits whatever the device does with subnormals or how it rounds a
// division or square root; their floating stores are NaN-canonical.
#include <algorithm>
#include <cstring>
#include <vector>

#include "backend/kernel_errors.h"
#include "core/nan_rule.h"
#include "backend/vulkan/vulkan_backend.h"
#include "concord/op_table.h"
#include "concord/policy.h"

namespace concord::detail::vk {

namespace {

// linalg.comp's OP_* codes.
enum LinalgOp : int32_t { kLuFactor = 1, kLuSolve = 2, kCholesky = 3, kSolveTriangular = 4 };

// Mirrors the Args block of shaders/linalg.comp.
struct LinalgArgs {
  uint64_t mat = 0, piv = 0, info = 0, rhs = 0;
  int64_t mat_off = 0, piv_off = 0, info_off = 0, rhs_off = 0;
  int64_t b0 = 0;
  int32_t op = 0, n = 0, k = 0, upper = 0, left = 0, unit = 0, local_copy = 0;
  int32_t s0 = 0;
};
static_assert(sizeof(LinalgArgs) == 104);

constexpr size_t kSharedCap = size_t{64} << 10;
constexpr size_t kSharedReserve = 64;             // the shader's own shared words (pivots, flag, diagonal)
constexpr int64_t kMaxIndex = int64_t{1} << 31;  // the shader indexes a matrix with int
constexpr int64_t kSlice = 64;                    // linalg.comp's SLICE: right-hand sides per workgroup

void check_dtype(const char* op, Dtype t) {
  if (t != float32 && t != float64)
    throw NotImplementedError(std::string("[linalg.") + op + "] the vulkan kernel takes float32 or float64, got " +
                              std::string(name(t)) + "; the front end converts other dtypes first");
}

void check_extent(const char* op, int64_t n, int64_t k, const Device& d) {
  if (n * n < kMaxIndex && n * k < kMaxIndex) return;
  throw NotImplementedError(std::string("[linalg.") + op + "] matrices of n = " + std::to_string(n) + " with " +
                            std::to_string(k) + " columns exceed the 2^31 elements the " + d.str() +
                            " kernel indexes; move the tensors to cpu with .to(\"cpu\")");
}

// Runs the linalg shader (the dtype's variant, the matrix in shared memory
// when its n·n elements fit) over `count` matrices, each with `rhs`
// right-hand-side columns (rows for right solves; 0: none) in slices of kSlice.
void run_linalg(Context& ctx, const Device& dev, LinalgArgs a, Dtype t, int64_t count, int64_t n, int64_t rhs = 0) {
  // The mode's one choice of shader; the default mode keeps the float instructions.
  const std::string variant = std::string(reproducible() ? "linalg_x_" : "linalg_") + suffix(t);
  const auto& spirv = embedded_spirv();
  const auto it = spirv.find(variant);
  if (it == spirv.end())
    throw DeviceError("[linalg] shader variant '" + variant + "' is not in this build (" + dev.str() +
                      "); rebuild concord");
  const size_t shared = std::min<size_t>(kSharedCap, ctx.info().max_compute_shared_memory);
  const size_t cap = shared > kSharedReserve ? (shared - kSharedReserve) / itemsize(t) : 0;
  a.local_copy = static_cast<size_t>(n * n) <= cap ? 1 : 0;
  const uint32_t spec = a.local_copy ? static_cast<uint32_t>(cap) : 1u;
  Pipeline& p = ctx.pipeline(variant, it->second, sizeof(uint64_t), {SpecConstant{0, spec}});
  // Groups beyond the device's count limits: further dispatches, each told
  // its first matrix and first slice.
  const int64_t slices = std::max<int64_t>(1, (rhs + kSlice - 1) / kSlice);
  const int64_t mx = std::max<int64_t>(1, ctx.info().max_workgroup_count[0]);
  const int64_t my = std::max<int64_t>(1, ctx.info().max_workgroup_count[1]);
  for (int64_t s0 = 0; s0 < slices; s0 += my)
    for (int64_t b0 = 0; b0 < count; b0 += mx) {
      a.b0 = b0, a.s0 = static_cast<int32_t>(s0);
      ArgBlock block = ctx.args(sizeof a);
      std::memcpy(block.host, &a, sizeof a);
      const uint64_t push = block.addr;
      ctx.dispatch(p, static_cast<uint32_t>(std::min(mx, count - b0)), static_cast<uint32_t>(std::min(my, slices - s0)),
                   1, &push, sizeof push);
    }
}

}  // namespace

void claims_linalg(Claims& c) {
  const DtypeSet floats = c.caps.storable & kFloatingDtypes;
  for (OpId op : {OpId::solve, OpId::lu_factor, OpId::lu_solve, OpId::inv, OpId::solve_triangular}) c.claim(op, floats);
  // cholesky keeps the factor's triangle with tril/triu (Backend::tri): only
  // where this device has that kernel too (claimed by a family listed before).
  DtypeSet chol;
  for (Dtype t : kAllDtypes)
    if (floats.has(t) && c.caps.has_kernel(OpId::tril, is_half(t) ? float32 : t) &&
        c.caps.has_kernel(OpId::triu, is_half(t) ? float32 : t))
      chol.add(t);
  c.claim(OpId::cholesky, chol);
  // det (the LU, then the diagonal product), slogdet (the LU, then the sum of
  // logs) and the norms on bits (norms.cpp), both modes.
  c.claim(OpId::det, floats);
  c.claim(OpId::slogdet, floats);
  for (OpId op : {OpId::vector_norm, OpId::matrix_norm}) c.claim(op, floats);
  c.need("norms_f32"), c.need("norms_f16"), c.need("norms_bf16");
  c.need("linalg_f32");
  c.need("linalg_x_f32");
  c.need("slogdet_f32");
  if (floats.has(float64)) c.need("linalg_f64"), c.need("linalg_x_f64"), c.need("norms_f64"), c.need("slogdet_f64");
}

// The reproducible mode: every floating dtype this family runs natively takes
// the "_x" variants (float16 and bfloat16 in the front ends' float32 working
// copies, as on the CPU), so it is claimed whatever the float controls.
void claims_linalg_exact(Capabilities& c) {
  for (OpId op : {OpId::solve, OpId::lu_factor, OpId::lu_solve, OpId::inv, OpId::solve_triangular, OpId::cholesky,
                  OpId::det, OpId::slogdet, OpId::vector_norm, OpId::matrix_norm}) {
    const int i = static_cast<int>(op);
    c.reproducible[i] = c.reproducible[i] | (c.native[i] & kFloatingDtypes);
  }
}

void VulkanBackend::lu_factor(const Tensor& lu, const Tensor& pivots, const Tensor& info) {
  const int64_t count = lu.size(0), n = lu.size(1);
  if (count == 0 || n == 0) return;
  check_dtype("lu_factor", lu.dtype());
  check_extent("lu_factor", n, n, device_);
  LinalgArgs a;
  a.op = kLuFactor;
  a.mat = address(lu), a.mat_off = lu.offset();
  a.piv = address(pivots), a.piv_off = pivots.offset();
  a.info = address(info), a.info_off = info.offset();
  a.n = static_cast<int32_t>(n);
  run_linalg(ctx_, device_, a, lu.dtype(), count, n);
  if (reproducible()) nan_rule_fused(lu);  // every element stored through F_CANON or an xf_ result
}

void VulkanBackend::lu_solve(const Tensor& lu, const Tensor& pivots, const Tensor& b) {
  const int64_t count = lu.size(0), n = lu.size(1), k = b.size(2);
  if (count == 0 || n == 0 || k == 0) return;
  check_dtype("lu_solve", lu.dtype());
  check_extent("lu_solve", n, k, device_);
  // Pivots come from the caller: the shader flags any outside [1, n] instead
  // of swapping rows outside the matrix, and the CPU's error is raised here.
  std::shared_ptr<Storage> flag = allocate(sizeof(int32_t), device_);
  Buffer* fb = static_cast<Buffer*>(flag->ptr);
  ctx_.fill(fb, 0, sizeof(int32_t), 0u);
  LinalgArgs a;
  a.op = kLuSolve;
  a.mat = address(lu), a.mat_off = lu.offset();
  a.piv = address(pivots), a.piv_off = pivots.offset();
  a.rhs = address(b), a.rhs_off = b.offset();
  a.info = fb->addr;
  a.n = static_cast<int32_t>(n), a.k = static_cast<int32_t>(k);
  run_linalg(ctx_, device_, a, lu.dtype(), count, n, k);
  int32_t bad = 0;
  ctx_.read(fb, 0, sizeof bad, &bad);
  if (!bad) {
    if (reproducible()) nan_rule_fused(b);  // the U step stores every element
    return;
  }
  std::vector<int32_t> piv(static_cast<size_t>(pivots.numel()));
  ctx_.read(buffer(pivots), static_cast<size_t>(pivots.offset()) * sizeof(int32_t), piv.size() * sizeof(int32_t),
            piv.data());
  check_pivots(piv.data(), static_cast<int64_t>(piv.size()), n);
}

void VulkanBackend::cholesky(const Tensor& x, const Tensor& info) {
  const int64_t count = x.size(0), n = x.size(1);
  if (count == 0 || n == 0) return;
  check_dtype("cholesky", x.dtype());
  check_extent("cholesky", n, n, device_);
  LinalgArgs a;
  a.op = kCholesky;
  a.mat = address(x), a.mat_off = x.offset();
  a.info = address(info), a.info_off = info.offset();
  a.n = static_cast<int32_t>(n);
  run_linalg(ctx_, device_, a, x.dtype(), count, n);
  if (reproducible()) nan_rule_fused(x);  // the matrix went through F_CANON whole
}

void VulkanBackend::solve_triangular(const Tensor& tri, const Tensor& b, bool upper, bool left, bool unitriangular) {
  const int64_t count = tri.size(0), n = tri.size(1), k = left ? b.size(2) : b.size(1);
  if (count == 0 || n == 0 || k == 0) return;
  check_dtype("solve_triangular", tri.dtype());
  check_extent("solve_triangular", n, k, device_);
  LinalgArgs a;
  a.op = kSolveTriangular;
  a.mat = address(tri), a.mat_off = tri.offset();
  a.rhs = address(b), a.rhs_off = b.offset();
  a.n = static_cast<int32_t>(n), a.k = static_cast<int32_t>(k);
  a.upper = upper, a.left = left, a.unit = unitriangular;
  run_linalg(ctx_, device_, a, tri.dtype(), count, n, k);
  if (reproducible()) nan_rule_fused(b);  // the slices are made canonical first
}

}  // namespace concord::detail::vk
