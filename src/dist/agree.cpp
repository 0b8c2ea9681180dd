// src/dist/agree.cpp — descriptors and the agreement check (agree.h).
#include "dist/agree.h"

#include <algorithm>
#include <cstring>

#include "concord/dist.h"
#include "concord/shape.h"
#include "dist/comm.h"

namespace concord::dist::detail {
namespace {

void copy_str(char* dst, size_t cap, const std::string& s) {
  const size_t n = std::min(cap - 1, s.size());
  std::memcpy(dst, s.data(), n);
  dst[n] = 0;
}

std::string shape_of(const Desc& d) {
  std::string s = "[";
  for (int i = 0; i < d.ndim && i < kMaxDims; ++i) s += (i ? ", " : "") + std::to_string(d.dims[i]);
  return s + "]";
}

std::string what_of(const Desc& d) {
  if (d.dtype < 0) return "no tensor";
  return std::string(name(static_cast<Dtype>(d.dtype))) + " " + shape_of(d) + " on " + d.device;
}

bool dims_agree(const Desc& a, const Desc& b, ShapeRule rule) {
  if (a.ndim != b.ndim) return false;
  for (int i = rule == ShapeRule::all ? 0 : 1; i < a.ndim && i < kMaxDims; ++i)
    if (a.dims[i] != b.dims[i]) return false;
  return true;
}

}  // namespace

const char* coll_name(Coll c) {
  switch (c) {
    case Coll::all_reduce: return "all_reduce";
    case Coll::broadcast: return "broadcast";
    case Coll::all_gather: return "all_gather";
    case Coll::sum: return "sum";
    case Coll::mean: return "mean";
    default: return "reduce_scatter";
  }
}

void fail(Coll op, const std::string& what) {
  throw DistError(std::string("[dist.") + coll_name(op) + "] rank " + std::to_string(comm_rank()) + " of " +
                  std::to_string(comm_size()) + ": " + what);
}

Desc describe(Coll op, const Tensor& t) {
  Desc d;
  d.op = static_cast<int32_t>(op);
  d.dtype = static_cast<int32_t>(t.dtype());
  d.ndim = static_cast<int32_t>(t.ndim());
  for (int i = 0; i < d.ndim && i < kMaxDims; ++i) d.dims[i] = t.shape()[static_cast<size_t>(i)];
  copy_str(d.device, sizeof d.device, t.device().str());
  if (d.ndim > kMaxDims)
    set_error(d, "a tensor of " + std::to_string(d.ndim) + " dims (at most " + std::to_string(kMaxDims) +
                     "); reshape it first");
  return d;
}

void set_error(Desc& d, const std::string& why) {
  if (!d.error[0]) copy_str(d.error, sizeof d.error, why);
}

std::vector<Desc> agree(Coll op, Desc mine, ShapeRule rule) {
  const char* opn = coll_name(op);
  mine.op = static_cast<int32_t>(op);
  std::vector<Desc> all(static_cast<size_t>(comm_size()));
  comm_allgather_timed(&mine, sizeof(Desc), all.data(), timeout_seconds(), opn);
  // Every rank runs the same checks on the same descriptors: the same message everywhere.
  for (size_t r = 0; r < all.size(); ++r)
    if (all[r].error[0])
      fail(op, "rank " + std::to_string(r) + " cannot take part: " + all[r].error + ". Every rank raises this error.");
  for (size_t r = 0; r < all.size(); ++r)
    if (all[r].op != mine.op)
      fail(op, "rank " + std::to_string(r) + " called dist::" + coll_name(static_cast<Coll>(all[r].op)) +
                   " while this rank called dist::" + opn + ": every rank must call the same collectives in the same order.");
  // The reference is the first rank that has a tensor (all_reduce of lists may leave some without).
  size_t ref = 0;
  while (ref < all.size() && all[ref].dtype < 0) ++ref;
  if (ref == all.size()) fail(op, "no rank passed a tensor; pass at least one on some rank.");
  const Desc& a = all[ref];
  for (size_t r = ref + 1; r < all.size(); ++r) {
    const Desc& b = all[r];
    if (b.dtype < 0) continue;
    const std::string pair = "rank " + std::to_string(r) + " has " + what_of(b) + ", rank " + std::to_string(ref) +
                             " has " + what_of(a);
    if (b.dtype != a.dtype)
      fail(op, "dtypes disagree: " + pair + ". Convert with .to(dtype) so that every rank passes one dtype.");
    if (!dims_agree(a, b, rule))
      fail(op, std::string("shapes disagree") + (rule == ShapeRule::all ? "" : " beyond the first dim") + ": " + pair +
                   ". Every rank must pass the same shape" + (rule == ShapeRule::all ? "." : " apart from dim 0."));
  }
  for (size_t r = 1; r < all.size(); ++r) {
    if (all[r].reduce != all[0].reduce || all[r].algo != all[0].algo)
      fail(op, "rank " + std::to_string(r) + " asked for reduction " + std::to_string(all[r].reduce) + " algorithm " +
                   std::to_string(all[r].algo) + ", rank 0 for " + std::to_string(all[0].reduce) + " algorithm " +
                   std::to_string(all[0].algo) + ": pass the same ReduceOp and Algorithm on every rank.");
    if (all[r].root != all[0].root)
      fail(op, "rank " + std::to_string(r) + " names root " + std::to_string(all[r].root) + ", rank 0 root " +
                   std::to_string(all[0].root) + ": pass the same root on every rank.");
  }
  return all;
}

Window global_window(const std::vector<Desc>& all, uint64_t* contributions) {
  Window w;
  uint64_t n = 0;
  for (const Desc& d : all) {
    w.lsb = std::min(w.lsb, d.lsb);
    w.top = std::max(w.top, d.top);
    w.special = w.special || d.special;
    w.nonfinite = w.nonfinite || d.nonfinite;
    n += static_cast<uint64_t>(d.contributions);
  }
  *contributions = n;
  return w;
}

}  // namespace concord::dist::detail
