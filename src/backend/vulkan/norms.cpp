// Vulkan vector norms of rows, matrix abs-sum norms and det from an LU
// (shaders/norms.comp): the CPU's float64 loops on bits (xf64.glsl), in both
// modes, so the CPU's bits whatever the device's float controls, NaNs
// canonical. The norms take every floating dtype: halves read widened exactly
// and their result rounded as convert.h does (round-to-odd to float32, then
// to the half). The front end sends general p and the SVD orders to the CPU
// fallback (plan's host_only). det's LU is float32 or float64 (the front end
// factors the halves in float32); slogdet's too, its log the CPU's
// reproducible float64 log on bits (xmath64_log.glsl) in both modes, in
// variants of their own ("slogdet_f32", "slogdet_f64").
//
// Every loop runs in chunks of kChunk terms per dispatch, its running values
// in a float64 state buffer: llvmpipe ends an invocation after 65535 loop
// iterations (a float64 division on bits alone loops some 60 times).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "backend/vulkan/vulkan_backend.h"
#include "concord/policy.h"
#include "core/nan_rule.h"

namespace concord::detail::vk {

namespace {

// norms.comp's OP_* and PH_* codes.
enum NormOp : int32_t { kOrd0 = 0, kOrd1 = 1, kOrd2 = 2, kMaxAbs = 3, kMinAbs = 4, kMat = 5, kDet = 6, kSlogdet = 7 };
enum Phase : int32_t { kAcc = 0, kScale = 1, kPick = 2, kStore = 3 };

// Mirrors the Args block of shaders/norms.comp.
struct NormArgs {
  uint64_t x = 0, out = 0, st = 0, res = 0;
  int64_t x_off = 0, out_off = 0;
  int64_t items = 0, len = 0;
  int64_t j0 = 0, j1 = 0, b0 = 0;
  int64_t cols = 0, count = 0;
  int32_t op = 0, phase = 0, columns = 0, pick_max = 0;
};
static_assert(sizeof(NormArgs) == 120);

constexpr int64_t kChunk = 256;  // terms per invocation per dispatch
// slogdet's terms each take a float64 log on bits (a division, two Horner
// loops: a few hundred loop iterations), so fewer of them per dispatch.
constexpr int64_t kLogChunk = 32;
constexpr int64_t kGroup = 64;   // norms.comp's local_size_x

void check(const char* op, const Tensor& x, const Tensor& out, const Device& dev) {
  if (!is_floating(x.dtype()) || out.dtype() != x.dtype() || !x.is_contiguous() || !out.is_contiguous())
    throw NotImplementedError(std::string("[linalg.") + op + "] the vulkan kernel takes contiguous floating " +
                              "tensors of one dtype, got " + std::string(name(x.dtype())) + " into " +
                              std::string(name(out.dtype())) + " on " + dev.str() + "; run it on cpu");
}

// Runs the phases of one norm: `items` invocations per dispatch, each
// walking `len` terms of its loop in chunks.
class NormRun {
 public:
  NormRun(Context& ctx, const Device& dev, Dtype t, const char* family = "norms_", int64_t chunk = kChunk)
      : ctx_(ctx), chunk_(chunk) {
    const std::string variant = family + std::string(suffix(t));
    const auto it = embedded_spirv().find(variant);
    if (it == embedded_spirv().end())
      throw DeviceError("[linalg] shader variant '" + variant + "' is not in this build (" + dev.str() +
                        "); rebuild concord");
    p_ = &ctx.pipeline(variant, it->second, sizeof(uint64_t), {});
  }
  // One phase over `items` invocations and loops of `len` terms (0: one dispatch).
  void phase(NormArgs a, Phase ph, int64_t items, int64_t len) {
    a.phase = ph, a.items = items;
    const int64_t per = std::max<int64_t>(1, ctx_.info().max_workgroup_count[0]) * kGroup;
    const int64_t end = ph == kStore ? 1 : std::max<int64_t>(len, 1);
    for (int64_t j0 = 0; j0 < end; j0 += chunk_) {
      a.j0 = j0, a.j1 = std::min(len, j0 + chunk_);
      for (int64_t b0 = 0; b0 < items; b0 += per) {
        a.b0 = b0;
        ArgBlock block = ctx_.args(sizeof a);
        std::memcpy(block.host, &a, sizeof a);
        const uint64_t push = block.addr;
        const int64_t groups = (std::min(per, items - b0) + kGroup - 1) / kGroup;
        ctx_.dispatch(*p_, static_cast<uint32_t>(groups), 1, 1, &push, sizeof push);
      }
    }
  }

 private:
  Context& ctx_;
  int64_t chunk_;
  Pipeline* p_ = nullptr;
};

}  // namespace

void VulkanBackend::vector_norm_rows(const Tensor& x, double ord, const Tensor& out) {
  const int64_t rows = x.size(0), cols = x.size(1);
  if (rows == 0) return;
  if (!(ord == 0 || ord == 1 || ord == 2 || std::isinf(ord)))
    throw NotImplementedError("[linalg.vector_norm] the vulkan kernel takes ord 0, 1, 2, inf and -inf, got " +
                              std::to_string(ord) + "; run it on cpu");
  check("vector_norm", x, out, device_);
  std::shared_ptr<Storage> st = allocate(static_cast<size_t>(rows) * 16, device_);
  NormArgs a;
  a.x = address(x), a.x_off = x.offset();
  a.out = address(out), a.out_off = out.offset();
  a.st = static_cast<Buffer*>(st->ptr)->addr;
  a.len = cols;
  a.op = ord == 0 ? kOrd0 : ord == 1 ? kOrd1 : ord == 2 ? kOrd2 : ord > 0 ? kMaxAbs : kMinAbs;
  NormRun run(ctx_, device_, x.dtype());
  run.phase(a, kAcc, rows, cols);
  // ord 2 of doubles: the CPU's second pass, scaled by the largest |x|.
  if (a.op == kOrd2 && x.dtype() == float64) run.phase(a, kScale, rows, cols);
  run.phase(a, kStore, rows, 0);
  if (reproducible()) nan_rule_fused(out);  // every NaN the shader writes is canonical
}

void VulkanBackend::matrix_abs_sum_norm(const Tensor& x, double ord, const Tensor& out) {
  const int64_t batch = x.size(0), r = x.size(1), c = x.size(2);
  if (batch == 0) return;
  check("matrix_norm", x, out, device_);
  const bool columns = std::fabs(ord) == 1;
  const int64_t count = columns ? c : r, len = columns ? r : c;
  std::shared_ptr<Storage> sums = allocate(static_cast<size_t>(std::max<int64_t>(batch * count, 1)) * 8, device_);
  std::shared_ptr<Storage> res = allocate(static_cast<size_t>(batch) * 8, device_);
  NormArgs a;
  a.x = address(x), a.x_off = x.offset();
  a.out = address(out), a.out_off = out.offset();
  a.st = static_cast<Buffer*>(sums->ptr)->addr;
  a.res = static_cast<Buffer*>(res->ptr)->addr;
  a.cols = c, a.count = count, a.len = len;
  a.op = kMat, a.columns = columns, a.pick_max = ord > 0;
  NormRun run(ctx_, device_, x.dtype());
  // The sums (each over ascending indices from +0), then max / min of each matrix's sums.
  if (count > 0) run.phase(a, kAcc, batch * count, len);
  run.phase(a, kPick, batch, count);
  run.phase(a, kStore, batch, 0);
  if (reproducible()) nan_rule_fused(out);
}

void VulkanBackend::lu_det(const Tensor& lu, const Tensor& pivots, const Tensor& det) {
  const int64_t count = lu.size(0), n = lu.size(1);
  if (count == 0) return;
  if (lu.dtype() != float32 && lu.dtype() != float64)
    throw NotImplementedError("[linalg.det] the vulkan kernel takes a float32 or float64 LU, got " +
                              std::string(name(lu.dtype())) + " on " + device_.str() +
                              "; the front end factors other dtypes in float32");
  check("det", lu, det, device_);
  NormArgs a;
  a.x = address(lu), a.x_off = lu.offset();
  a.out = address(det), a.out_off = det.offset();
  a.st = address(pivots) + static_cast<uint64_t>(pivots.offset()) * sizeof(int32_t);
  a.len = n, a.op = kDet;
  NormRun(ctx_, device_, lu.dtype()).phase(a, kStore, count, 0);  // n <= 128 (linalg_max_n): one dispatch
  if (reproducible()) nan_rule_fused(det);
}

void VulkanBackend::lu_slogdet(const Tensor& lu, const Tensor& pivots, const Tensor& sign, const Tensor& logabsdet) {
  const int64_t count = lu.size(0), n = lu.size(1);
  if (count == 0) return;
  if (lu.dtype() != float32 && lu.dtype() != float64)
    throw NotImplementedError("[linalg.slogdet] the vulkan kernel takes a float32 or float64 LU, got " +
                              std::string(name(lu.dtype())) + " on " + device_.str() +
                              "; the front end factors other dtypes in float32");
  check("slogdet", lu, logabsdet, device_);
  check("slogdet", lu, sign, device_);
  std::shared_ptr<Storage> st = allocate(static_cast<size_t>(count) * 16, device_);  // (sign, log) per matrix
  NormArgs a;
  a.x = address(lu), a.x_off = lu.offset();
  a.out = address(logabsdet), a.out_off = logabsdet.offset();
  a.st = address(pivots) + static_cast<uint64_t>(pivots.offset()) * sizeof(int32_t);
  a.res = static_cast<Buffer*>(st->ptr)->addr;
  a.count = static_cast<int64_t>(address(sign)), a.cols = sign.offset();
  a.len = n, a.op = kSlogdet;
  NormRun run(ctx_, device_, lu.dtype(), "slogdet_", kLogChunk);
  run.phase(a, kAcc, count, n);
  run.phase(a, kStore, count, 0);
  if (reproducible()) nan_rule_fused(sign), nan_rule_fused(logabsdet);
}

}  // namespace concord::detail::vk
