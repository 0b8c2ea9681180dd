// src/dist/all_reduce.cpp — all_reduce and reduce_scatter (concord/dist.h).
// Floating sum and mean take one of the two paths of sum_paths.h, on the
// dtype's own bytes; the rest is exact or order-independent by construction,
// except floating prod, whose order is fixed (rank, then local index).
#include <algorithm>
#include <cmath>
#include <limits>

#include "concord/dist.h"
#include "dist/agree.h"
#include "dist/comm.h"
#include "dist/exact_sum.h"
#include "dist/sum_paths.h"

namespace concord::dist {
using namespace detail;
namespace {

// Integers (wrapping modulo 2^64, then cut to the dtype, as the CPU's arithmetic
// does) and bool (sum/max: any, prod/min: all); all exact, so order-free.
std::vector<int64_t> integer_reduce(const std::vector<std::vector<int64_t>>& vals, size_t n, ReduceOp op, Dtype dt) {
  if (dt == Dtype::bool_) op = (op == ReduceOp::sum || op == ReduceOp::max) ? ReduceOp::max : ReduceOp::min;
  const int64_t id = op == ReduceOp::sum ? 0 : op == ReduceOp::prod ? 1
                     : op == ReduceOp::max ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
  std::vector<int64_t> out(n, id);
  for (const auto& v : vals)
    for (size_t i = 0; i < n; ++i) {
      const auto a = static_cast<uint64_t>(out[i]), b = static_cast<uint64_t>(v[i]);
      out[i] = op == ReduceOp::sum ? static_cast<int64_t>(a + b) : op == ReduceOp::prod ? static_cast<int64_t>(a * b)
               : op == ReduceOp::max ? std::max(out[i], v[i]) : std::min(out[i], v[i]);
    }
  const IntOp iop = op == ReduceOp::sum ? IntOp::sum_u64 : op == ReduceOp::prod ? IntOp::prod_u64
                    : op == ReduceOp::max ? IntOp::max_i64 : IntOp::min_i64;
  comm_allreduce_int(out.data(), n, iop);
  return out;
}

Tensor reduce_impl(Coll c, const std::vector<Tensor>& local, ReduceOp op, Algorithm algo) {
  Desc mine;
  std::vector<std::vector<int64_t>> ivals;
  // Floating dtypes are read in their own bytes (copies only for other devices or views).
  const bool summing = op == ReduceOp::sum || op == ReduceOp::mean;
  std::vector<const void*> raw;
  std::vector<std::vector<uint8_t>> keep(local.size());
  // Anything that fails here is reported through the descriptors: every rank raises.
  try {
    if (!local.empty()) mine = describe(c, local[0]);
    mine.contributions = static_cast<int64_t>(local.size());
    for (const Tensor& t : local)
      if (t.dtype() != local[0].dtype() || t.shape() != local[0].shape())
        set_error(mine, "its tensors disagree (" + std::string(name(t.dtype())) + " " + shape_str(t.shape()) + " vs " +
                            std::string(name(local[0].dtype())) + " " + shape_str(local[0].shape()) + ")");
    if (c == Coll::reduce_scatter && !local.empty() && local[0].ndim() == 0)
      set_error(mine, "a 0-dim tensor has no dim 0 to scatter; pass a tensor of at least 1 dim");
    if (!local.empty() && op == ReduceOp::mean && !is_floating(local[0].dtype()))
      set_error(mine, "mean of " + std::string(name(local[0].dtype())) + " is not defined; use sum, or convert to a floating dtype");
    if (!mine.error[0]) {
      Window w;
      for (size_t j = 0; j < local.size(); ++j) {
        const Tensor& t = local[j];
        if (is_floating(t.dtype())) {
          raw.push_back(raw_view(t, keep[j]));
          if (summing && algo == Algorithm::reproducible) scan_raw(raw.back(), static_cast<size_t>(t.numel()), t.dtype(), w);
        } else {
          ivals.push_back(host_values<int64_t>(t, Dtype::int64));
        }
      }
      mine.lsb = w.lsb, mine.top = w.top, mine.special = w.special, mine.nonfinite = w.nonfinite;
    }
  } catch (const std::exception& e) {
    set_error(mine, e.what());
  }
  mine.reduce = static_cast<int32_t>(op);
  mine.algo = static_cast<int32_t>(algo);
  const std::vector<Desc> all = agree(c, mine, ShapeRule::all);
  const Desc& ref = *std::find_if(all.begin(), all.end(), [](const Desc& d) { return d.dtype >= 0; });
  const auto dt = static_cast<Dtype>(ref.dtype);
  Shape shape(ref.dims, ref.dims + ref.ndim);
  size_t n = 1;
  for (int64_t s : shape) n *= static_cast<size_t>(s);
  const Device dev = local.empty() ? kCPU : local[0].device();
  uint64_t total = 0;
  for (const Desc& d : all) total += static_cast<uint64_t>(d.contributions);
  if (!is_floating(dt)) {
    const auto out = n ? integer_reduce(ivals, n, op, dt) : std::vector<int64_t>{};
    return finish(out.data(), n, shape, Dtype::int64, dt, dev);
  }
  Tensor out = empty(shape, dt, kCPU);   // the paths write straight into the result
  if (n && !summing) fold_sliced(raw, n, all, dt, op, out.raw_data());
  else if (n && algo == Algorithm::reproducible) exact_sum_sliced(raw, n, all, dt, op == ReduceOp::mean, out.raw_data());
  else if (n) native_sum(raw, n, dt, total, op == ReduceOp::mean, out.raw_data());
  return dev.is_cpu() ? out : out.to(dev);
}

}  // namespace

Tensor all_reduce(const std::vector<Tensor>& local, ReduceOp op, Algorithm algo) {
  return reduce_impl(Coll::all_reduce, local, op, algo);
}

Tensor all_reduce(const Tensor& x, ReduceOp op, Algorithm algo) {
  return reduce_impl(Coll::all_reduce, std::vector<Tensor>{x}, op, algo);
}

Tensor reduce_scatter(const Tensor& x, ReduceOp op, Algorithm algo) {
  const Tensor full = reduce_impl(Coll::reduce_scatter, std::vector<Tensor>{x}, op, algo);
  const int64_t rows = full.size(0), p = world_size(), r = rank();
  const int64_t each = rows / p, extra = rows % p;
  return full.narrow(0, r * each + std::min(r, extra), each + (r < extra ? 1 : 0)).contiguous();
}

}  // namespace concord::dist
