// src/dist/agree.h — what every collective does around moving data:
// - the descriptor it exchanges first: the one place where ranks are checked
//   to agree (op, dtype, shape, reduction, root) and where a rank that cannot
//   take part says why, so that every rank raises the same DistError instead
//   of waiting;
// - host staging: a tensor on another device is copied to the CPU (Tensor::to,
//   so the copy is counted in the report's transfers) and the result is
//   copied back to that device.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "concord/creation.h"
#include "concord/tensor.h"
#include "dist/exact_sum.h"

namespace concord::dist::detail {

constexpr int kMaxDims = 12;

struct Desc {
  int32_t op = 0;           // the collective (Coll)
  int32_t dtype = -1;       // -1: this rank has no contribution (all_reduce of an empty list)
  int32_t ndim = 0;
  int32_t reduce = -1;      // ReduceOp, or -1
  int32_t algo = -1;
  int32_t root = -1;
  int32_t lsb = INT32_MAX;  // the exact-sum window of this rank's values
  int32_t top = INT32_MIN;
  int32_t special = 0;
  int32_t nonfinite = 0;
  int64_t contributions = 0;
  int64_t dims[kMaxDims] = {};
  char device[24] = {};
  char error[120] = {};     // non-empty: this rank cannot take part, and why
};

enum class Coll : int32_t { all_reduce = 1, broadcast, all_gather, reduce_scatter, sum, mean };
const char* coll_name(Coll c);

// Which dims must agree: all, or all but the first (all_gather).
enum class ShapeRule { all, all_but_first };

// A descriptor of t (shape, dtype, device); error set if t has too many dims.
Desc describe(Coll op, const Tensor& t);
void set_error(Desc& d, const std::string& why);

// Exchanges the descriptors (bounded by timeout_seconds()) and raises the
// same DistError on every rank if they disagree; returns them in rank order.
std::vector<Desc> agree(Coll op, Desc mine, ShapeRule rule);

// The combined exact-sum window and the number of contributions.
Window global_window(const std::vector<Desc>& all, uint64_t* contributions);

[[noreturn]] void fail(Coll op, const std::string& what);   // DistError "[dist.<op>] rank r: what"


inline Tensor on_host(const Tensor& t) { return t.device().is_cpu() ? t : t.to(kCPU); }

// All elements of t, row-major, converted to T (float64 holds every floating dtype exactly).
template <class T> std::vector<T> host_values(const Tensor& t, Dtype as) {
  std::vector<T> v(static_cast<size_t>(t.numel()));
  if (!v.empty()) concord::detail::to_host_as(on_host(t), as, v.data());
  return v;
}

// A tensor of `shape` from host data of dtype `from`, converted to `dtype` on `device`.
inline Tensor finish(const void* data, size_t count, const Shape& shape, Dtype from, Dtype dtype, const Device& device) {
  Tensor r = from_host(data, count, shape, from, kCPU).to(dtype);
  return device.is_cpu() ? r : r.to(device, dtype);
}

}  // namespace concord::dist::detail
