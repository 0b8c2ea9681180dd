// OpenCL reductions, argmax/argmin, softmax/log_softmax and cumsum
// (kernels/reduce.cl). Float results are the CPU backend's bits for sums,
// means, products, max/min and norms: the kernels evaluate the CPU engine's
// blocked order (reduce_impl.h), and never use atomics, so every run gives the
// same bits. softmax of float32 and the halves is the CPU's too (its exp_f32
// and product by the reciprocal, common.cl), and so are logsumexp and
// log_softmax of those dtypes where the device has float64 (the CPU's log,
// log_acc in reduce.cl); otherwise, and for float64, log and exp come from
// the OpenCL library and may differ from the CPU in the last bits. In the
// reproducible mode the kernels that write a floating result store its NaNs
// as the canonical NaN (reduce.cl's OUT_PUT), so Dispatch skips its pass.
#include <algorithm>
#include <cmath>
#include <vector>

#include "backend/opencl/opencl_backend.h"
#include "core/nan_rule.h"

namespace concord::detail::ocl {
namespace {

// x split into kept dims (the outputs, row-major) and reduced dims, each group
// coalesced and without size-1 dims, as the CPU engine does.
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
  g.kept = kernel_geom_of(ks, kst, x.offset(), "opencl", x.device());
  g.red = kernel_geom_of(rs, rst, 0, "opencl", x.device());
  return g;
}

// Reducer ids and post-processing steps of reduce.cl.
enum Red { kSum = 1, kProd, kMax, kMin, kAbsMax, kAbsSum, kSqSum, kSqDev, kExpSum, kAll, kAny, kScSum };
enum Post { kNone = 0, kDiv, kDivSqrt, kSqrt, kAddLog, kLog, kFinite, kScale, kVar, kStd };

// One output per work-item when there are enough outputs to fill the device
// or each is short; otherwise one work-group per block of each output.
constexpr int64_t kRowsMinOutputs = 1024;
constexpr int64_t kRowsMaxLength = 256;
constexpr int64_t kBlock = 4096;  // RED_BLOCK
constexpr size_t kLanes = 16;      // RED_LANES
constexpr size_t kArgGroup = 64;   // ARG_GROUP
constexpr int64_t kArgChunk = 16384;  // elements per work-group of arg_chunks
constexpr int64_t kTreeLeaves = 16;   // block results per red_subtrees / red_combine work-item
constexpr size_t kLocal = 64;

const char* acc_type(Dtype t) { return t == float64 ? "double" : "float"; }
Dtype acc_dtype(Dtype t) { return t == float64 ? float64 : float32; }

std::string shape_msg(OpId op, const Tensor& x) {
  return "[" + std::string(op_name(op)) + "] " + std::string(name(x.dtype())) + shape_str(x.shape());
}

// The kernels' options for the reproducible mode's NaN rule in their stores
// to a result of dtype out (reduce.cl, OUT_PUT): only floating results of a
// floating accumulator, and only in the mode, so the default mode's programs
// stay as they are.
bool nan_rule_for(Dtype out, bool float_acc) { return float_acc && is_floating(out) && nan_rule_in_stores(); }
const char* nan_rule_opt(bool on) { return on ? " -DCONCORD_NAN_RULE=1" : ""; }

// Runs reducer r over x into out_buf (out_dtype), with optional per-output
// params (accumulator type) and a post step. result: out_buf is the op's
// result (not a scratch buffer), so it takes the NaN rule in the mode.
// Returns whether the stores applied it.
bool run_reduce(OpenClBackend& be, OpId op, Red r, const Tensor& x, const Split& g, cl_mem params, Post post,
                int64_t div, cl_mem out_buf, Dtype out_dtype, int64_t out_off = 0, bool result = false) {
  const Dtype xt = x.dtype();
  std::string acc, as;
  bool is_float = is_floating(xt), is_ulong = false;
  std::string extra;
  bool rule = false;
  if (r == kAll || r == kAny) {
    acc = "uchar", as = "b", is_float = false;
  } else if (is_float) {
    acc = acc_type(xt), as = suffix(acc_dtype(xt));
  } else if (r == kSum || r == kProd) {
    acc = "ulong", as = "i64", is_ulong = true;
  } else if (r == kMax || r == kMin) {
    acc = cl_type(xt), as = suffix(xt);
    extra = std::string(" -DRED_LOWEST=LIM_MIN_") + suffix(xt) + " -DRED_HIGHEST=LIM_MAX_" + suffix(xt);
  } else {
    throw NotImplementedError(shape_msg(op, x) + " has no opencl kernel for this dtype; use a floating dtype");
  }
  rule = result && nan_rule_for(out_dtype, is_float);
  const std::string opts = std::string("-DXS=") + suffix(xt) + " -DOS=" + suffix(out_dtype) + " -DRED=" +
                           std::to_string(static_cast<int>(r)) + " -DACC=" + acc + " -DAS=" + as +
                           " -DRED_FLOAT=" + (is_float ? "1" : "0") + " -DRED_ULONG=" + (is_ulong ? "1" : "0") +
                           " -DRED_F64=" + (acc == "double" ? "1" : "0") + extra +
                           (acc == "double" && r == kExpSum && nan_rule_in_stores() ? " -DRED_F64_SHARED=1" : "") +
                           nan_rule_opt(rule);
  const int64_t nout = g.nout, n = g.n;
  const int post_i = static_cast<int>(post);
  if (nout >= kRowsMinOutputs || n <= kRowsMaxLength) {
    be.run(be.kernel("reduce.cl", "red_rows", opts), static_cast<size_t>(nout), kLocal, buffer(x), g.kept, g.red,
        nout, n, params, post_i, div, out_buf, out_off);
    return rule;
  }
  const int64_t nb = (n + kBlock - 1) / kBlock;
  const size_t acc_size = acc == "double" || acc == "ulong" || acc == "long" ? 8 : acc == "uchar" ? 1 : 4;
  const size_t pbytes = static_cast<size_t>(nout * nb) * acc_size;
  auto partial = be.allocate(pbytes, be.device());
  cl_mem pbuf = static_cast<cl_mem>(partial->ptr);
  be.run(be.kernel("reduce.cl", "red_blocks", opts), static_cast<size_t>(nout * nb) * kLanes, kLanes, buffer(x),
      g.kept, g.red, n, nb, params, pbuf);
  // One work-item walking a tree of 4096 block results took 2 ms on an H200:
  // rounds of subtrees of at most kTreeLeaves leaves first, each in parallel.
  std::vector<std::shared_ptr<Storage>> nodes;
  int64_t leaves = nb;
  while (leaves > kTreeLeaves) {
    int depth = 0;
    while ((leaves + (int64_t{1} << depth) - 1) >> depth > kTreeLeaves) ++depth;
    nodes.push_back(be.allocate(static_cast<size_t>(nout << depth) * acc_size, be.device()));
    const cl_mem nbuf = static_cast<cl_mem>(nodes.back()->ptr);
    be.run(be.kernel("reduce.cl", "red_subtrees", opts), static_cast<size_t>(nout << depth), kLocal, pbuf, nout,
           leaves, static_cast<cl_int>(depth), nbuf);
    pbuf = nbuf, leaves = int64_t{1} << depth;
  }
  be.run(be.kernel("reduce.cl", "red_combine", opts), static_cast<size_t>(nout), kLocal, pbuf, nout, leaves, params,
      post_i, div, out_buf, out_off);
  return rule;
}

// A scratch buffer of n accumulators (float32 or float64) on the device.
std::shared_ptr<Storage> scratch(OpenClBackend& be, int64_t n, Dtype acc) {
  return be.allocate(static_cast<size_t>(std::max<int64_t>(n, 1)) * itemsize(acc), be.device());
}
cl_mem mem(const std::shared_ptr<Storage>& s) { return static_cast<cl_mem>(s->ptr); }

}  // namespace

void OpenClBackend::reduce(OpId op, const Tensor& x, const Dims& dims, const Tensor& out, const ReduceArgs& args) {
  const Split g = split(x, dims);
  if (g.nout == 0) return;
  const cl_mem ob = buffer(out);
  const int64_t oo = out.offset();
  const Dtype od = out.dtype();
  const Dtype xt = x.dtype();
  auto need_float = [&] {
    if (!is_floating(xt))
      throw NotImplementedError(shape_msg(op, x) + " has no opencl kernel for a non-floating input; the front end "
                                "converts it to a floating dtype first");
  };
  // The result's stores apply the mode's NaN rule where run_reduce says so
  // (the last kernel to write out); then Dispatch makes no second pass.
  bool fused = false;
  auto last = [&](Red r, cl_mem params, Post post, int64_t div) {
    fused = run_reduce(*this, op, r, x, g, params, post, div, ob, od, oo, true);
  };
  switch (op) {
    case OpId::sum: last(kSum, nullptr, kNone, 0); break;
    case OpId::prod: last(kProd, nullptr, kNone, 0); break;
    case OpId::max: case OpId::amax: last(kMax, nullptr, kNone, 0); break;
    case OpId::min: case OpId::amin: last(kMin, nullptr, kNone, 0); break;
    case OpId::all: last(kAll, nullptr, kNone, 0); break;
    case OpId::any: last(kAny, nullptr, kNone, 0); break;
    case OpId::mean:
      need_float();
      last(kSum, nullptr, kDiv, g.n);
      break;
    case OpId::norm:
      need_float();
      if (std::isinf(args.p)) last(kAbsMax, nullptr, kNone, 0);
      else if (args.p == 1.0) last(kAbsSum, nullptr, kNone, 0);
      else last(kSqSum, nullptr, kSqrt, 0);
      break;
    case OpId::var: case OpId::std: {
      // Three passes in the accumulation dtype, as the CPU (StatScale in
      // cpu/stat_scale.h): the scale s from max|x| into p[0, nout), the mean
      // of x * s into p[nout, 2 nout), then the squared deviations.
      need_float();
      const Dtype ad = acc_dtype(xt);
      auto p = scratch(*this, 2 * g.nout, ad);
      run_reduce(*this, op, kAbsMax, x, g, nullptr, kScale, 0, mem(p), ad);
      run_reduce(*this, op, kScSum, x, g, mem(p), kDiv, g.n, mem(p), ad, g.nout);
      const int64_t dof = std::max<int64_t>(g.n - args.correction, 0);
      last(kSqDev, mem(p), op == OpId::std ? kStd : kVar, dof);
      break;
    }
    case OpId::logsumexp: {
      // Shifted by the max (0 when infinite, so that all -inf gives -inf, not NaN).
      need_float();
      const Dtype ad = acc_dtype(xt);
      auto shift = scratch(*this, g.nout, ad);
      run_reduce(*this, op, kMax, x, g, nullptr, kFinite, 0, mem(shift), ad);
      last(kExpSum, mem(shift), kAddLog, 0);
      break;
    }
    default:
      throw NotImplementedError("[" + std::string(op_name(op)) + "] is not a reduction of the opencl backend");
  }
  if (fused) nan_rule_fused(out);
}

void OpenClBackend::arg_reduce(OpId op, const Tensor& x, int64_t dim, const Tensor& out) {
  if (x.dtype() == bool_)
    throw NotImplementedError(shape_msg(op, x) + " has no opencl kernel for bool; the front end converts to uint8");
  const Split g = split(x, Dims{dim});
  if (g.nout == 0 || g.n == 0) return;
  const int64_t rs = g.red.ndim ? g.red.strides[kMaxDims - 1] : 0;
  const std::string opts = std::string("-DXS=") + suffix(x.dtype()) + " -DARG_MAX=" + (op == OpId::argmax ? "1" : "0") +
                           " -DARG_FLOAT=" + (is_floating(x.dtype()) ? "1" : "0");
  if (g.nout >= 256 || g.n <= static_cast<int64_t>(kArgGroup)) {
    run(kernel("argreduce.cl", "arg_rows", opts), static_cast<size_t>(g.nout), kLocal, buffer(x), g.kept, rs,
        g.nout, g.n, buffer(out), out.offset());
  } else if (g.n > kArgChunk) {
    // Few long outputs: chunk winners first, so the whole device scans
    // (one work-group over 16M elements took 97 ms on an H200).
    const int64_t nchunks = (g.n + kArgChunk - 1) / kArgChunk;
    auto win = allocate(static_cast<size_t>(g.nout * nchunks) * sizeof(int64_t), device());
    const cl_mem wbuf = static_cast<cl_mem>(win->ptr);
    run(kernel("argreduce.cl", "arg_chunks", opts), static_cast<size_t>(g.nout * nchunks) * kArgGroup, kArgGroup,
        buffer(x), g.kept, rs, g.n, kArgChunk, wbuf, int64_t{0});
    run(kernel("argreduce.cl", "arg_merge", opts), static_cast<size_t>(g.nout) * kArgGroup, kArgGroup, buffer(x),
        g.kept, rs, nchunks, wbuf, buffer(out), out.offset());
  } else {
    // One chunk per output: the group's winner is the answer.
    run(kernel("argreduce.cl", "arg_chunks", opts), static_cast<size_t>(g.nout) * kArgGroup, kArgGroup, buffer(x),
        g.kept, rs, g.n, g.n, buffer(out), static_cast<int64_t>(out.offset()));
  }
}

void OpenClBackend::scan_op(OpId op, const Tensor& x, int64_t dim, const Tensor& out) {
  if (x.numel() == 0) return;
  const Dtype xt = x.dtype();
  const std::string_view opn = op_name(op);
  const Split g = split(x, Dims{dim});
  const Split og = split(out, Dims{dim});
  if (op == OpId::cumsum) {
    if (xt == bool_) throw NotImplementedError(shape_msg(op, x) + " has no opencl kernel for bool");
    const bool fl = is_floating(xt);
    const std::string opts = std::string("-DSCAN=1 -DXS=") + suffix(xt) + " -DOS=" + suffix(out.dtype()) +
                             " -DACC=" + (fl ? acc_type(xt) : "ulong") + " -DAS=" + (fl ? suffix(acc_dtype(xt)) : "i64") +
                             " -DSCAN_ULONG=" + (fl ? "0" : "1") + nan_rule_opt(nan_rule_for(out.dtype(), fl));
    const int64_t xs = g.red.ndim ? g.red.strides[kMaxDims - 1] : 0;
    const int64_t os = og.red.ndim ? og.red.strides[kMaxDims - 1] : 0;
    run(kernel("reduce.cl", "cumsum_rows", opts), static_cast<size_t>(g.nout), kLocal, buffer(x), g.kept, xs,
        og.kept, os, g.nout, g.n, buffer(out));
    if (nan_rule_for(out.dtype(), fl)) nan_rule_fused(out);  // every element stored through OUT_PUT
    return;
  }
  if (op != OpId::softmax && op != OpId::log_softmax)
    throw NotImplementedError("[" + std::string(opn) + "] is not a scan op of the opencl backend");
  if (!is_floating(xt))
    throw NotImplementedError(shape_msg(op, x) + " has no opencl kernel for a non-floating input");
  // Three passes as on the CPU: the max, the sum of exp(x - max) in the
  // blocked order (its log for log_softmax), then the elementwise result.
  const bool is_log = op == OpId::log_softmax;
  const Dtype ad = acc_dtype(xt);
  auto m = scratch(*this, g.nout, ad), s = scratch(*this, g.nout, ad);
  run_reduce(*this, op, kMax, x, g, nullptr, kNone, 0, mem(m), ad);
  run_reduce(*this, op, kExpSum, x, g, mem(m), is_log ? kLog : kNone, 0, mem(s), ad);
  const std::string opts = std::string("-DSCAN=1 -DXS=") + suffix(xt) + " -DOS=" + suffix(out.dtype()) + " -DACC=" +
                           acc_type(xt) + " -DAS=" + suffix(ad) + " -DSCAN_ULONG=0" +
                           (ad == float64 && nan_rule_in_stores() ? " -DRED_F64_SHARED=1" : "") +
                           nan_rule_opt(nan_rule_for(out.dtype(), true));
  const int64_t total = g.nout * g.n;
  run(kernel("reduce.cl", "softmax_out", opts), static_cast<size_t>(total), kLocal, buffer(x), g.kept, g.red,
      og.kept, og.red, g.n, total, mem(m), mem(s), static_cast<cl_int>(is_log), buffer(out));
  if (nan_rule_for(out.dtype(), true)) nan_rule_fused(out);
}

}  // namespace concord::detail::ocl
