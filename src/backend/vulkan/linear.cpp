// Vulkan matmul (out = alpha·(a @ b) + beta·out) with the tiled GEMM of
// shaders/gemm.comp, and the ops made of it: matmul, mm, bmm, mv, dot, outer,
// addmm, baddbmm, linear (the front ends reduce each to one matmul call, the
// addend copied into out first).
//
// Operands are read in place through their strides (transposed, broadcast and
// flipped views included), so nothing is copied here (except float32 copies
// of half operands for sums longer than one dispatch takes, see kKChunk). float32 accumulates in
// float32, float64 in float64; float16/bfloat16 accumulate in float32 and round
// once on store; integers wrap like the CPU's loop. Under Float16Policy::native
// on a device with shaderFloat16, float16 runs gemm_f16n, which accumulates in
// float16 (Path::native_f16). Otherwise, on a device with
// VK_NV_cooperative_matrix (DeviceInfo::coop_gemm_f16), float16 runs
// gemm_coop.comp on the matrix units: still float32 accumulation, the same
// error model, only the order of the sums within a 16-deep step differs.
// In the reproducible mode every floating dtype runs gemm_canon.comp: the
// CPU's fma chain (backend/cpu/gemm_canon.h) on float bits in integer
// arithmetic (float32 bits for float32 and the halves, float64 bits for
// float64), so the CPU's bits on any device.
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "backend/vulkan/vulkan_backend.h"
#include "concord/op_table.h"
#include "concord/policy.h"
#include "core/nan_rule.h"

namespace concord::detail::vk {

namespace {

// Mirrors the Args block of shaders/gemm.comp.
struct GemmArgs {
  uint64_t a, b, c;
  int64_t a_off, sab, sam, sak;
  int64_t b_off, sbb, sbk, sbn;
  int64_t c_off, M, N, K;
  uint64_t alpha, beta;
  int64_t gx0, gy0, gb0;
  int32_t use_beta, pad;
};
static_assert(sizeof(GemmArgs) == 168);

// gemm.comp's register block (RB, specialization constant 0): a workgroup of
// 16x16 invocations covers 16·RB rows and columns of out. Larger blocks do
// more multiply-adds per shared-memory read (lavapipe, 512^3 float32: RB = 1,
// 4, 8 took 620, 290, 90 ms) but leave fewer workgroups to spread over the
// device and waste more on ragged edges. The block is the cheapest by a cost
// per workgroup-step among those giving at least `min_groups` workgroups (a
// few for CPU devices, enough to fill a GPU otherwise); RB = 8 needs 32 KiB of
// shared memory for 8-byte types (16 KiB, every device's minimum, otherwise).
int register_block(const DeviceInfo& info, Dtype dt, int64_t B, int64_t M, int64_t N) {
  const int64_t min_groups = info.type == DeviceType::cpu ? 4 : 256;
  const uint32_t acc_bytes = dt == float64 || dt == int64 ? 8 : 4;
  auto groups = [&](int64_t rb) { return ((M + 16 * rb - 1) / (16 * rb)) * ((N + 16 * rb - 1) / (16 * rb)); };
  // Per 16-deep K step and invocation: RB² fma, 2·RB shared reads per k (weighed 8: gathers on CPU
  // devices, bank traffic on GPUs), 2·RB global loads (weighed 16).
  auto cost = [&](int64_t rb) { return groups(rb) * (16 * (rb * rb + 16 * rb) + 32 * rb); };
  int best = 1;
  for (int rb : {4, 8}) {
    if (rb == 8 && 2u * 16u * 128u * acc_bytes > info.max_compute_shared_memory) continue;
    // On an H200, RB = 8 ran 5x slower than RB = 4 (2.2 against 11-14 TFLOP/s
    // float32, with or without the panel padding): 64 accumulators per
    // invocation do not stay in a GPU's registers. CPU devices keep it.
    if (rb == 8 && info.type != DeviceType::cpu) continue;
    if (B * groups(rb) >= min_groups && cost(rb) <= cost(best)) best = rb;
  }
  return best;
}

// A scalar as the bits the shader variant of dtype t reads: float bits for
// float32 and the halves (which combine in float32), double bits for float64,
// the two's complement int64 for integers. alpha and beta are exact in these
// types (backend.h's contract).
uint64_t scalar_bits_for(Dtype t, Scalar s) {
  if (t == float64) {
    const double d = s.to_double();
    uint64_t u;
    std::memcpy(&u, &d, sizeof u);
    return u;
  }
  if (is_floating(t)) {
    const float f = static_cast<float>(s.to_double());
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
  }
  return static_cast<uint64_t>(s.to_int());
}

// K steps per dispatch: gemm.comp loops K/16 times, and llvmpipe silently
// ends an invocation after 65535 loop iterations in all (a dot product of
// 2^21 ones gave 1048560), so longer sums take several dispatches.
constexpr int64_t kKChunk = int64_t{16} << 14;

// gemm_coop.comp's Args.flags: bit 0 (a) / bit 1 (b) where every 8-element
// run the shader stages along the operand's faster index starts 16-byte
// aligned. The runs start at multiples of 8 of that index, so this holds when
// the faster stride is 1 and the other strides, the offset and the buffer's
// address are multiples of 8 elements (16 bytes).
int coop_run_flags(const GemmArgs& g) {
  auto aligned = [](uint64_t addr, int64_t off, int64_t sb, int64_t s_fast, int64_t s_slow) {
    return s_fast == 1 && addr % 16 == 0 && off % 8 == 0 && sb % 8 == 0 && s_slow % 8 == 0;
  };
  // The same choice of faster index as the shader's (k for a on a tie, n for b).
  const bool a_kfast = std::abs(g.sak) <= std::abs(g.sam), b_kfast = std::abs(g.sbk) < std::abs(g.sbn);
  const bool a = aligned(g.a, g.a_off, g.sab, a_kfast ? g.sak : g.sam, a_kfast ? g.sam : g.sak);
  const bool b = aligned(g.b, g.b_off, g.sbb, b_kfast ? g.sbk : g.sbn, b_kfast ? g.sbn : g.sbk);
  return (a ? 1 : 0) | (b ? 2 : 0);
}

bool nonzero(const Scalar& s) { return s.to_double() != 0.0 || s.to_int() != 0; }

// Mirrors the Args block of shaders/gemm_canon.comp.
struct CanonArgs {
  uint64_t a, b, c, acc;
  int64_t a_off, sab, sam, sak;
  int64_t b_off, sbb, sbk, sbn;
  int64_t c_off, M, N, K;
  int64_t gx0, gy0, gb0;
  uint64_t alpha, beta;  // float32 bits (float32 and the halves) or float64 bits
  int32_t use_beta, flags;
};
static_assert(sizeof(CanonArgs) == 176);

// gemm_canon.comp's register block (RB, specialization constant 0): the
// largest of 4, 2, 1 whose TILE = 16·RB fits M and N and still gives
// `min_groups` workgroups. Every chain costs the same xf_fma steps, so the
// gain is in shared-memory reads per fma (lavapipe, 512^3 float32: RB = 1, 4
// took 3.4, 1.4 s); padded rows and columns of a ragged tile cost full steps,
// hence the fit. float64's two padded panels at RB = 4 take 16.25 KiB of
// shared memory, more than the 16 KiB minimum Vulkan guarantees (RB = 2 then).
int canon_block(const DeviceInfo& info, Dtype dt, int64_t B, int64_t M, int64_t N) {
  const int64_t min_groups = info.type == DeviceType::cpu ? 4 : 256;
  const int64_t bytes = dt == float64 ? 8 : 4;
  for (int64_t rb : {4, 2}) {
    const int64_t tile = 16 * rb;
    if (2 * 16 * (tile + 1) * bytes > static_cast<int64_t>(info.max_compute_shared_memory)) continue;
    if (M >= tile && N >= tile && B * ((M + tile - 1) / tile) * ((N + tile - 1) / tile) >= min_groups)
      return static_cast<int>(rb);
  }
  return 1;
}

// The K extent of one gemm_canon dispatch: 4096 / RB². llvmpipe ends an invocation
// after 65535 loop iterations in all, and a 16-deep step with its register
// block loops up to 1 + RB + 16·(1 + 3·RB + RB²) times where the loops are not
// unrolled around xf_fma's size (82, 179, 469). Longer sums pause their chains
// in a scratch of the compute type between dispatches (exact).
int64_t canon_k_chunk(int rb) { return 4096 / (rb * rb); }

// The reproducible mode's floating GEMM (gemm_canon.comp):
// the CPU's order of operations, so the CPU's bits, and every NaN it writes is
// canonical already (the dispatcher's NaN pass is skipped for out).
void matmul_canon(VulkanBackend& be, const Tensor& a, const Tensor& b, const Tensor& out, Scalar alpha, Scalar beta) {
  const int64_t B = out.size(0), M = out.size(1), N = out.size(2), K = a.size(2);
  const Dtype dt = out.dtype();
  CanonArgs g{};
  g.a = address(a), g.b = address(b), g.c = address(out);
  g.a_off = a.offset(), g.sab = a.size(0) == 1 ? 0 : a.stride(0), g.sam = a.stride(1), g.sak = a.stride(2);
  g.b_off = b.offset(), g.sbb = b.size(0) == 1 ? 0 : b.stride(0), g.sbk = b.stride(1), g.sbn = b.stride(2);
  g.c_off = out.offset(), g.M = M, g.N = N;
  // The compute type: float64 for float64, float32 otherwise (halves widen).
  const Dtype ct = dt == float64 ? float64 : float32;
  g.alpha = scalar_bits_for(ct, alpha);
  g.beta = scalar_bits_for(ct, beta);
  // As the CPU: a product reads out when beta, rounded to the compute type,
  // is not zero; the empty sum (K == 0) whenever beta is (beta·out then).
  const uint64_t abs_mask = ct == float64 ? ~(uint64_t{1} << 63) : 0x7fffffffu;
  g.use_beta = K == 0 ? nonzero(beta) : (g.beta & abs_mask) != 0;
  const int rb = canon_block(be.ctx().info(), dt, B, M, N);
  const int64_t chunk = canon_k_chunk(rb), tile = 16 * rb;
  std::shared_ptr<Storage> scratch;
  if (K > chunk) {
    scratch = be.allocate(static_cast<size_t>(out.numel()) * (ct == float64 ? 8 : 4), be.device());
    g.acc = static_cast<Buffer*>(scratch->ptr)->addr;
  }
  const std::string variant = std::string("gemm_canon_") + suffix(dt);
  const auto& spirv = embedded_spirv();
  const auto it = spirv.find(variant);
  if (it == spirv.end())
    throw DeviceError("[matmul] shader variant '" + variant + "' is not in this build (" + be.device().str() +
                      "); rebuild concord");
  Context& ctx = be.ctx();
  Pipeline& p = ctx.pipeline(variant, it->second, sizeof(uint64_t), {SpecConstant{0, static_cast<uint32_t>(rb)}});
  const auto& lim = ctx.info().max_workgroup_count;
  const int64_t gx = (N + tile - 1) / tile, gy = (M + tile - 1) / tile;
  const int64_t mx = std::max<int64_t>(1, lim[0]), my = std::max<int64_t>(1, lim[1]), mz = std::max<int64_t>(1, lim[2]);
  for (int64_t k0 = 0; k0 == 0 || k0 < K; k0 += chunk) {
    g.a_off = a.offset() + k0 * a.stride(2), g.b_off = b.offset() + k0 * b.stride(1);
    g.K = std::min(K - k0, chunk);
    g.flags = (k0 > 0 ? 1 : 0) | (k0 + chunk < K ? 2 : 0);
    for (int64_t z = 0; z < B; z += mz)
      for (int64_t y = 0; y < gy; y += my)
        for (int64_t x = 0; x < gx; x += mx) {
          g.gx0 = x, g.gy0 = y, g.gb0 = z;
          ArgBlock block = ctx.args(sizeof g);
          std::memcpy(block.host, &g, sizeof g);
          const uint64_t push = block.addr;
          ctx.dispatch(p, static_cast<uint32_t>(std::min(mx, gx - x)), static_cast<uint32_t>(std::min(my, gy - y)),
                       static_cast<uint32_t>(std::min(mz, B - z)), &push, sizeof push);
        }
  }
  if (nan_rule_in_stores()) nan_rule_fused(out);
}

}  // namespace

void claims_linear(Claims& c) {
  const DtypeSet dts = c.caps.storable & op_def(OpId::matmul).dtypes;
  for (OpId op : {OpId::matmul, OpId::mm, OpId::bmm, OpId::mv, OpId::dot, OpId::outer, OpId::addmm, OpId::baddbmm,
                  OpId::linear})
    c.claim(op, dts);
  for (Dtype d : kAllDtypes)
    if (dts.has(d)) c.need(std::string("gemm_") + suffix(d));
  // float16 computed in float16, for Float16Policy::native.
  if (c.info.fp16 && dts.has(float16)) {
    for (OpId op : {OpId::matmul, OpId::mm, OpId::bmm, OpId::mv, OpId::dot, OpId::outer, OpId::addmm, OpId::baddbmm,
                    OpId::linear})
      c.caps.f16_kernel[static_cast<int>(op)] = true;
    c.need("gemm_f16n");
  }
  if (c.info.coop_gemm_f16 && dts.has(float16)) c.need("gemm_coop_f16");
  for (Dtype d : {float16, bfloat16, float32, float64})
    if (dts.has(d)) c.need(std::string("gemm_canon_") + suffix(d));
}

void VulkanBackend::matmul(const Tensor& a, const Tensor& b, const Tensor& out, Scalar alpha, Scalar beta) {
  const int64_t B = out.size(0), M = out.size(1), N = out.size(2), K = a.size(2);
  if (B == 0 || M == 0 || N == 0) return;
  const Dtype dt = out.dtype();
  if (dt == Dtype::bool_)
    throw DtypeError("[matmul] is not defined for bool on " + device_.str() + "; convert the operands to a numeric dtype");
  // The dispatcher planned Path::native_f16: the float16 kernel, partial sums in float16 too.
  const bool f16n = dt == float16 && native_f16_kernel();
  if (reproducible() && is_floating(dt)) return matmul_canon(*this, a, b, out, alpha, beta);
  if (K > kKChunk && is_half(dt) && !f16n) {
    // Partial sums of the K chunks meet in float32, so the half result is
    // still rounded once: float32 copies of the operands (and the addend).
    auto f32 = [&](const Tensor& t) {
      Tensor w(allocate(static_cast<size_t>(t.numel()) * 4, device_), t.shape(), contiguous_strides(t.shape()), 0, float32);
      copy(t, w);  // exact widening
      return w;
    };
    Tensor c32(allocate(static_cast<size_t>(out.numel()) * 4, device_), out.shape(), contiguous_strides(out.shape()), 0,
               float32);
    if (nonzero(beta)) copy(out, c32);
    matmul(f32(a), f32(b), c32, alpha, beta);
    copy(c32, out);  // one rounding
    return;
  }
  // A batch of one has no batch stride to follow (whatever stride(0) says).
  GemmArgs g{};
  g.a = address(a), g.b = address(b), g.c = address(out);
  g.a_off = a.offset(), g.sab = a.size(0) == 1 ? 0 : a.stride(0), g.sam = a.stride(1), g.sak = a.stride(2);
  g.b_off = b.offset(), g.sbb = b.size(0) == 1 ? 0 : b.stride(0), g.sbk = b.stride(1), g.sbn = b.stride(2);
  g.c_off = out.offset(), g.M = M, g.N = N, g.K = K;
  g.alpha = scalar_bits_for(dt, alpha);
  // beta == 0: out is only written (NaN in it must not show).
  g.use_beta = nonzero(beta) ? 1 : 0;
  g.beta = g.use_beta ? scalar_bits_for(dt, beta) : 0;

  // float16 on the matrix units: 128x128 blocks, no register-block constant.
  const bool coop = dt == float16 && !f16n && ctx_.info().coop_gemm_f16;
  const int rb = coop ? 8 : register_block(ctx_.info(), dt, B, M, N);
  const int64_t tile = 16 * rb;
  if (coop) g.pad = coop_run_flags(g);
  const std::string variant = coop ? std::string("gemm_coop_f16") : std::string("gemm_") + suffix(dt) + (f16n ? "n" : "");
  const auto& spirv = embedded_spirv();
  const auto it = spirv.find(variant);
  if (it == spirv.end())
    throw DeviceError("[matmul] shader variant '" + variant + "' is not in this build (" + device_.str() +
                      "); rebuild concord");
  // gemm.comp's panel padding (PAD, constant 1) where two padded panels fit the shared memory.
  const uint32_t acc_bytes = dt == float64 || dt == int64 ? 8 : 4;
  const uint32_t pad = 2u * 16u * (static_cast<uint32_t>(tile) + 1u) * acc_bytes <= ctx_.info().max_compute_shared_memory;
  Pipeline& p = coop ? ctx_.pipeline(variant, it->second, sizeof(uint64_t), {})
                     : ctx_.pipeline(variant, it->second, sizeof(uint64_t),
                                     {SpecConstant{0, static_cast<uint32_t>(rb)}, SpecConstant{1, pad}});
  // One workgroup per tile x tile block of each matrix; grids beyond the
  // device's group-count limits are split, each piece told its group offset.
  // K beyond kKChunk is summed by successive dispatches over K chunks (each
  // adds alpha times its partial product to out; integers stay exact mod 2^w).
  const auto& lim = ctx_.info().max_workgroup_count;
  const int64_t gx = (N + tile - 1) / tile, gy = (M + tile - 1) / tile;
  const int64_t mx = std::max<int64_t>(1, lim[0]), my = std::max<int64_t>(1, lim[1]), mz = std::max<int64_t>(1, lim[2]);
  const GemmArgs first = g;
  for (int64_t k0 = 0; k0 == 0 || k0 < K; k0 += kKChunk) {
    if (k0 > 0) {
      g.a_off = first.a_off + k0 * first.sak, g.b_off = first.b_off + k0 * first.sbk;
      g.use_beta = 1, g.beta = scalar_bits_for(dt, Scalar(1));
    }
    g.K = std::min(K - k0, kKChunk);
    for (int64_t z = 0; z < B; z += mz)
      for (int64_t y = 0; y < gy; y += my)
        for (int64_t x = 0; x < gx; x += mx) {
          g.gx0 = x, g.gy0 = y, g.gb0 = z;
          ArgBlock block = ctx_.args(sizeof g);
          std::memcpy(block.host, &g, sizeof g);
          const uint64_t push = block.addr;
          ctx_.dispatch(p, static_cast<uint32_t>(std::min(mx, gx - x)), static_cast<uint32_t>(std::min(my, gy - y)),
                        static_cast<uint32_t>(std::min(mz, B - z)), &push, sizeof push);
        }
  }
}

}  // namespace concord::detail::vk
