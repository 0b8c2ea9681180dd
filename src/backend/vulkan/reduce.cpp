// Vulkan reductions, argmax/argmin, cumsum, softmax/log_softmax
// (shaders/reduce.comp, one variant per input dtype). Sums, means, products,
// max/min, norms and var/std are the CPU backend's bits: the shader evaluates
// the CPU engine's blocked order (src/backend/cpu/reduce_impl.h) with a fixed
// lane tree in shared memory, never atomics. Division and sqrt are correctly
// rounded; exp and log come from shaders/math*.glsl, so logsumexp and softmax
// may differ from the CPU in the last bits (within the op table's bounds).
// argmax/argmin: each block's first extreme (NaN first) by a lane tree, then
// the block winners in parallel rounds of groups, then the last few in order. cumsum: one invocation per line, sequential, as the CPU.
// Strided and broadcast inputs are read in place through their geometry.
// The reproducible mode runs the "reduce_x_*" variants for float16, bfloat16
// and float32 (shaders/reduce_xops.glsl: float32 on bits, and the CPU's log's
// float64 steps on float64 bits, integer instructions only), so every op
// here gives the CPU's bits whatever the device does with subnormals; and
// reduce_x_f64 (reduce_xops.glsl with XD: float64 on bits), with float64's
// softmax, log_softmax and logsumexp in reduce_xs_f64 (the same plus the
// CPU's float64 exp and log on bits, xmath64*.glsl: large, so kept out of the
// other reductions' pipeline).
#include <algorithm>
#include <cmath>
#include <vector>

#include "backend/vulkan/vulkan_backend.h"
#include "concord/op_table.h"
#include "concord/policy.h"
#include "core/nan_rule.h"

namespace concord::detail::vk {

namespace {

// Mirrors Args in shaders/reduce.comp (std430).
struct RedArgs {
  uint64_t src, dst, params, part;
  int64_t nout, n, nb, div, oo, xs, os, i0;
  int32_t red, post, stage, omode;
  Geom kg, rg, okg, org;
};
static_assert(sizeof(RedArgs) == 112 + 4 * sizeof(Geom));

enum Stage { kBlocks = 0, kCombine, kArgBlocks, kArgCombine, kCumsum, kSoftmax, kSubtrees, kArgMerge };
enum Red { kSum = 1, kProd, kMax, kMin, kAbsMax, kAbsSum, kSqSum, kSqDev, kExpSum, kAll, kAny, kScSum };
enum Post { kNone = 0, kDiv, kDivSqrt, kSqrt, kAddLog, kLog, kFinite, kRecip, kScale, kVar, kStd };
enum OutMode { kOutX = 0, kOutBool, kOutAcc };

constexpr int64_t kBlock = 4096;  // BLOCK
constexpr int64_t kLanes = 16;    // LANES
// cumsum elements per line and launch: lavapipe ends an invocation after
// 65535 loop iterations.
constexpr int64_t kScanChunk = 16384;
// Block results one invocation combines (about 3 loop iterations each, with
// a stack in local memory); more go through rounds of subtrees first, each
// round in parallel. Small: one invocation walking a tree of 1024 leaves took
// about a millisecond on an H200 (sum of 16M float32: 1.1 ms).
constexpr int64_t kTreeLeaves = 16;
// Block winners of argmax/argmin one invocation scans: more are merged in
// parallel rounds of groups this size first (one invocation scanning 4096
// winners, a 16M argmax, took 767 µs on an H200).
constexpr int64_t kArgGroup = 32;

// x split into kept dims (the outputs, row-major) and reduced dims, each group
// coalesced, as the CPU engine does.
struct Split {
  Geom kept{}, red{};
  int64_t nout = 1, n = 1;
};

Split split(const Tensor& x, const Dims& dims) {
  Shape ks, rs;
  Strides kst, rst;
  Split g;
  size_t j = 0;
  for (int64_t d = 0; d < x.ndim(); ++d) {
    const bool red = j < dims.size() && dims[j] == d;
    (red ? rs : ks).push_back(x.shape()[d]);
    (red ? rst : kst).push_back(x.strides()[d]);
    (red ? g.n : g.nout) *= x.shape()[d];
    j += red;
  }
  g.kept = kernel_geom_of(ks, kst, x.offset(), "vulkan", x.device());
  g.red = kernel_geom_of(rs, rst, 0, "vulkan", x.device());
  return g;
}

// The accumulator: float32 for the float32 family, float64, int64 for integers and bool.
Dtype acc_dtype(Dtype t) { return t == float64 ? float64 : is_floating(t) ? float32 : int64; }

std::string shape_msg(OpId op, const Tensor& x) {
  return "[" + std::string(op_name(op)) + "] " + std::string(name(x.dtype())) + shape_str(x.shape()) + " on " +
         x.device().str();
}

std::string variant(Dtype t, bool exact = false) { return std::string(exact ? "reduce_x_" : "reduce_") + suffix(t); }
// float64's exact variant with exp and log (softmax, log_softmax, logsumexp).
constexpr const char* kExactF64Math = "reduce_xs_f64";

// The ops the exact variants run, for the dtypes they serve.
bool reduce_exact_op(OpId op) {
  switch (op) {
    case OpId::sum: case OpId::mean: case OpId::prod: case OpId::max: case OpId::min: case OpId::amax:
    case OpId::amin: case OpId::argmax: case OpId::argmin: case OpId::var: case OpId::std: case OpId::norm:
    case OpId::all: case OpId::any: case OpId::cumsum: case OpId::softmax: case OpId::logsumexp:
    case OpId::log_softmax:
      return true;
    default:
      return false;
  }
}
const DtypeSet kReduceExactDtypes{float16, bfloat16, float32, float64};
DtypeSet reduce_exact_dtypes(OpId op) { return reduce_exact_op(op) ? kReduceExactDtypes : DtypeSet{}; }
// The ops that need exp or log.
bool reduce_needs_exp(OpId op) { return op == OpId::softmax || op == OpId::log_softmax || op == OpId::logsumexp; }

// The variant of op on x: the exact one in the reproducible mode (one
// chokepoint for the choice; the claims in backend.cpp match it), float64's
// with exp and log for the ops that need them.
bool use_exact(OpId op, Dtype t) { return reproducible() && reduce_exact_dtypes(op).has(t); }
std::string variant_for(OpId op, Dtype t) {
  if (use_exact(op, t) && t == float64 && reduce_needs_exp(op)) return kExactF64Math;
  return variant(t, use_exact(op, t));
}

// An exact variant stores every NaN canonical: no separate NaN pass for out.
void note_canonical(OpId op, const Tensor& x, const Tensor& out) {
  if (use_exact(op, x.dtype()) && is_floating(out.dtype())) nan_rule_fused(out);
}

RedArgs base_args(const Tensor& x, const Split& g) {
  RedArgs a{};
  a.src = address(x);
  a.nout = g.nout;
  a.n = g.n;
  a.kg = g.kept;
  a.rg = g.red;
  return a;
}

// Reducer r over x into dst (element offset oo, mode om), with optional
// per-output params (accumulators) and a post step.
void run_reduce(VulkanBackend& be, const std::string& v, Red r, const Tensor& x, const Split& g, uint64_t params,
                Post post, int64_t div, uint64_t dst, int64_t oo, OutMode om) {
  RedArgs a = base_args(x, g);
  a.dst = dst, a.oo = oo, a.params = params, a.div = div;
  a.red = r, a.post = post, a.omode = om;
  a.nb = (g.n + kBlock - 1) / kBlock;
  a.stage = kBlocks;
  if (a.nb == 1) {
    be.launch(v, static_cast<uint64_t>(g.nout * kLanes), a);
    return;
  }
  // Block results, then one invocation per output over them.
  const size_t asz = itemsize(acc_dtype(x.dtype()));
  auto part = be.allocate(static_cast<size_t>(g.nout * a.nb) * asz, be.device());
  a.part = static_cast<Buffer*>(part->ptr)->addr;
  be.launch(v, static_cast<uint64_t>(g.nout * a.nb * kLanes), a);
  std::vector<std::shared_ptr<Storage>> nodes;
  while (a.nb > kTreeLeaves) {
    // The tree's nodes at a depth where each spans at most kTreeLeaves
    // blocks; above them the tree is complete (2^depth leaves), and a
    // complete tree's subtrees at a depth are the same halving trees of
    // their leaves, so the next round treats the nodes as its blocks.
    int depth = 0;
    while ((a.nb + (int64_t{1} << depth) - 1) >> depth > kTreeLeaves) ++depth;
    nodes.push_back(be.allocate(static_cast<size_t>(g.nout << depth) * asz, be.device()));
    RedArgs s = a;
    s.stage = kSubtrees, s.i0 = depth, s.params = static_cast<Buffer*>(nodes.back()->ptr)->addr;
    be.launch(v, static_cast<uint64_t>(g.nout << depth), s);
    a.part = s.params, a.nb = int64_t{1} << depth;
  }
  a.stage = kCombine;
  be.launch(v, static_cast<uint64_t>(g.nout), a);
}

// A device scratch buffer of n accumulators.
std::shared_ptr<Storage> scratch(VulkanBackend& be, int64_t n, Dtype acc) {
  return be.allocate(static_cast<size_t>(std::max<int64_t>(n, 1)) * itemsize(acc), be.device());
}
uint64_t addr(const std::shared_ptr<Storage>& s) { return static_cast<Buffer*>(s->ptr)->addr; }

}  // namespace

void claims_reduce(Claims& c) {
  const DtypeSet all = c.caps.storable;
  const DtypeSet floats = all & kFloatingDtypes;
  for (OpId op : {OpId::sum, OpId::prod, OpId::max, OpId::min, OpId::amax, OpId::amin, OpId::all, OpId::any})
    c.claim(op, all);
  c.claim(OpId::argmax, all);  // the op table's numeric dtypes (bool goes as uint8)
  c.claim(OpId::argmin, all);
  c.claim(OpId::cumsum, all);
  for (OpId op : {OpId::mean, OpId::var, OpId::std, OpId::norm, OpId::logsumexp, OpId::softmax, OpId::log_softmax})
    c.claim(op, floats);
  for (Dtype d : kAllDtypes) {
    if (all.has(d)) c.need(variant(d));
    if (all.has(d) && kReduceExactDtypes.has(d)) c.need(variant(d, true));
  }
  if (all.has(float64)) c.need(kExactF64Math);
}

// The reproducible mode's claims of the exact variants (backend.cpp calls
// this after the rule): the CPU's bits for float16, bfloat16, float32 and
// float64 wherever the op is native, whatever the device's float controls.
void claims_reduce_exact(Capabilities& c) {
  for (int i = 0; i < kNumOps; ++i)
    if (reduce_exact_op(static_cast<OpId>(i)))
      c.reproducible[i] = c.reproducible[i] | (c.native[i] & reduce_exact_dtypes(static_cast<OpId>(i)));
}

void VulkanBackend::reduce(OpId op, const Tensor& x, const Dims& dims, const Tensor& out, const ReduceArgs& args) {
  const Split g = split(x, dims);
  if (g.nout == 0) return;
  const uint64_t ob = address(out);
  const int64_t oo = out.offset();
  const Dtype xt = x.dtype();
  const OutMode om = out.dtype() == bool_ ? kOutBool : kOutX;
  if (out.dtype() != xt && om != kOutBool)
    throw NotImplementedError(shape_msg(op, x) + ": the vulkan kernel writes the input's dtype, not " +
                              std::string(name(out.dtype())) + "; convert the input first");
  auto need_float = [&] {
    if (!is_floating(xt))
      throw NotImplementedError(shape_msg(op, x) + " has no vulkan kernel for a non-floating input; the front end "
                                "converts it to a floating dtype first");
  };
  const std::string v = variant_for(op, xt);
  switch (op) {
    case OpId::sum: run_reduce(*this, v, kSum, x, g, 0, kNone, 0, ob, oo, om); break;
    case OpId::prod: run_reduce(*this, v, kProd, x, g, 0, kNone, 0, ob, oo, om); break;
    case OpId::max: case OpId::amax: run_reduce(*this, v, kMax, x, g, 0, kNone, 0, ob, oo, om); break;
    case OpId::min: case OpId::amin: run_reduce(*this, v, kMin, x, g, 0, kNone, 0, ob, oo, om); break;
    case OpId::all: run_reduce(*this, v, kAll, x, g, 0, kNone, 0, ob, oo, kOutBool); break;
    case OpId::any: run_reduce(*this, v, kAny, x, g, 0, kNone, 0, ob, oo, kOutBool); break;
    case OpId::mean:
      need_float();
      run_reduce(*this, v, kSum, x, g, 0, kDiv, g.n, ob, oo, om);
      break;
    case OpId::norm:
      need_float();
      if (std::isinf(args.p)) run_reduce(*this, v, kAbsMax, x, g, 0, kNone, 0, ob, oo, om);
      else if (args.p == 1.0) run_reduce(*this, v, kAbsSum, x, g, 0, kNone, 0, ob, oo, om);
      else run_reduce(*this, v, kSqSum, x, g, 0, kSqrt, 0, ob, oo, om);
      break;
    case OpId::var: case OpId::std: {
      // Three passes in the accumulator dtype, as the CPU (StatScale in
      // cpu/stat_scale.h): the scale s from max|x| into p[0, nout), the mean
      // of x * s into p[nout, 2 nout), then the squared deviations.
      need_float();
      auto p = scratch(*this, 2 * g.nout, acc_dtype(xt));
      run_reduce(*this, v, kAbsMax, x, g, 0, kScale, 0, addr(p), 0, kOutAcc);
      run_reduce(*this, v, kScSum, x, g, addr(p), kDiv, g.n, addr(p), g.nout, kOutAcc);
      const int64_t dof = std::max<int64_t>(g.n - args.correction, 0);
      run_reduce(*this, v, kSqDev, x, g, addr(p), op == OpId::std ? kStd : kVar, dof, ob, oo, om);
      break;
    }
    case OpId::logsumexp: {
      // Shifted by the max (0 when infinite, so that all -inf gives -inf, not NaN).
      need_float();
      auto shift = scratch(*this, g.nout, acc_dtype(xt));
      run_reduce(*this, v, kMax, x, g, 0, kFinite, 0, addr(shift), 0, kOutAcc);
      run_reduce(*this, v, kExpSum, x, g, addr(shift), kAddLog, 0, ob, oo, om);
      break;
    }
    default:
      throw NotImplementedError("[" + std::string(op_name(op)) + "] is not a reduction of the vulkan backend");
  }
  note_canonical(op, x, out);
}

void VulkanBackend::arg_reduce(OpId op, const Tensor& x, int64_t dim, const Tensor& out) {
  if (x.dtype() == bool_)
    throw NotImplementedError(shape_msg(op, x) + " has no vulkan kernel for bool; the front end converts to uint8");
  const Split g = split(x, Dims{dim});
  if (g.nout == 0 || g.n == 0) return;
  RedArgs a = base_args(x, g);
  a.dst = address(out), a.oo = out.offset();
  a.red = op == OpId::argmax ? kMax : kMin;
  a.nb = (g.n + kBlock - 1) / kBlock;
  a.stage = kArgBlocks;
  const std::string v = variant_for(op, x.dtype());
  if (a.nb == 1) {
    launch(v, static_cast<uint64_t>(g.nout * kLanes), a);
    return;
  }
  // Each block's winner (nbk values, then nbk indices from byte 8 * nbk),
  // then the blocks in order.
  const size_t nbk = static_cast<size_t>(g.nout * a.nb);
  auto part = allocate(nbk * 16, device_);
  a.part = addr(part);
  launch(v, static_cast<uint64_t>(g.nout * a.nb * kLanes), a);
  // Rounds of group winners (the same winner as one scan: the rule is
  // associative), until one invocation per output has few left.
  while (a.nb > kArgGroup) {
    const int64_t ng = (a.nb + kArgGroup - 1) / kArgGroup;
    auto next = allocate(static_cast<size_t>(g.nout * ng) * 16, device_);
    a.params = addr(next), a.i0 = kArgGroup, a.stage = kArgMerge;
    launch(v, static_cast<uint64_t>(g.nout * ng), a);
    part = next;  // the pool keeps the old block until the queued work is done
    a.part = a.params, a.params = 0, a.nb = ng;
  }
  a.stage = kArgCombine;
  launch(v, static_cast<uint64_t>(g.nout), a);
}

void VulkanBackend::scan_op(OpId op, const Tensor& x, int64_t dim, const Tensor& out) {
  if (x.numel() == 0) return;
  const Dtype xt = x.dtype();
  if (out.dtype() != xt)
    throw NotImplementedError(shape_msg(op, x) + ": the vulkan kernel writes the input's dtype, not " +
                              std::string(name(out.dtype())) + "; convert the input first");
  const Split g = split(x, Dims{dim});
  const Split og = split(out, Dims{dim});
  const std::string v = variant_for(op, xt);
  if (op == OpId::cumsum) {
    if (xt == bool_) throw NotImplementedError(shape_msg(op, x) + " has no vulkan kernel for bool");
    // One invocation per line, sequential, in chunks of kScanChunk elements
    // per launch; the running sum carries in `carry`.
    RedArgs a = base_args(x, g);
    a.okg = og.kept;
    a.dst = address(out);
    a.xs = g.red.ndim ? g.red.strides[kMaxKernelDims - 1] : 0;
    a.os = og.red.ndim ? og.red.strides[kMaxKernelDims - 1] : 0;
    a.stage = kCumsum;
    auto carry = scratch(*this, g.nout, acc_dtype(xt));
    a.part = addr(carry);
    for (int64_t i0 = 0; i0 < g.n; i0 += kScanChunk) {
      a.i0 = i0;
      a.n = std::min(kScanChunk, g.n - i0);
      launch(v, static_cast<uint64_t>(g.nout), a);
    }
    note_canonical(op, x, out);
    return;
  }
  if (op != OpId::softmax && op != OpId::log_softmax)
    throw NotImplementedError("[" + std::string(op_name(op)) + "] is not a scan op of the vulkan backend");
  if (!is_floating(xt)) throw NotImplementedError(shape_msg(op, x) + " has no vulkan kernel for a non-floating input");
  // Three passes as on the CPU: the max, the sum of exp(x - max) in the
  // blocked order (1 / sum, or its log for log_softmax), then the elements.
  const bool is_log = op == OpId::log_softmax;
  const Dtype ad = acc_dtype(xt);
  auto m = scratch(*this, g.nout, ad), s = scratch(*this, g.nout, ad);
  run_reduce(*this, v, kMax, x, g, 0, kNone, 0, addr(m), 0, kOutAcc);
  run_reduce(*this, v, kExpSum, x, g, addr(m), is_log ? kLog : kRecip, 0, addr(s), 0, kOutAcc);
  RedArgs a = base_args(x, g);
  a.okg = og.kept, a.org = og.red;
  a.dst = address(out);
  a.params = addr(m), a.part = addr(s);
  a.red = is_log ? 1 : 0;
  a.stage = kSoftmax;
  launch(v, static_cast<uint64_t>(g.nout * g.n), a);
  note_canonical(op, x, out);
}

}  // namespace concord::detail::vk
