// src/dist/metrics_sync.cpp — metrics' sync() across ranks (concord/metrics.h).
// The state is int64 counts, and their all_reduce is exact: the synced metric
// equals the single-process metric on the union of the shards.
#include "concord/dist.h"
#include "concord/metrics.h"
#include "concord/ops.h"

namespace concord::metrics::detail {

void CountState::sync() {
  const int64_t total = dist::all_reduce(concord::tensor(std::vector<int64_t>{samples_})).to_vector<int64_t>()[0];
  if (total == 0) return;   // no rank has counted a sample
  // Ranks that counted nothing take part without a contribution.
  std::vector<Tensor> mine;
  if (counts_.defined()) mine.push_back(counts_);
  Tensor all = dist::all_reduce(mine);
  if (counts_.defined()) all = all.to(counts_.device());
  counts_ = std::move(all);
  samples_ = total;
}

}  // namespace concord::metrics::detail
