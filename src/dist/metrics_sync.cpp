// src/dist/metrics_sync.cpp — metrics' sync() across ranks (concord/metrics.h).
// The state is int64 counts, and their all_reduce is exact: the synced metric
// equals the single-process metric on the union of the shards. Counts are
// only comparable between metrics of one configuration, so the ranks first
// compare theirs: a difference raises DistError on every rank, before any
// count moves.
#include <cstring>

#include "concord/dist.h"
#include "concord/metrics.h"
#include "concord/ops.h"

namespace concord::metrics::detail {
namespace {

constexpr int64_t kFields = 8;

// The configuration as integers (doubles by their bits; the name by a 64-bit FNV-1a hash).
std::vector<int64_t> encode(const Config& c) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : c.metric) h = (h ^ ch) * 1099511628211ull;
  int64_t thr = 0, beta = 0;
  std::memcpy(&thr, &c.threshold, 8);
  std::memcpy(&beta, &c.beta, 8);
  return {static_cast<int64_t>(h), static_cast<int64_t>(c.task), c.classes, static_cast<int64_t>(c.average), thr, beta,
          static_cast<int64_t>(c.normalize), c.confusion ? 1 : 0};
}

std::string describe(const int64_t* f, const std::string& metric) {
  double thr = 0, beta = 0;
  std::memcpy(&thr, &f[4], 8);
  std::memcpy(&beta, &f[5], 8);
  return metric + "(" + std::string(name(static_cast<Task>(f[1]))) + ", classes=" + std::to_string(f[2]) +
         ", average=" + std::string(name(static_cast<Average>(f[3]))) + ", threshold=" + std::to_string(thr) +
         ", beta=" + std::to_string(beta) + ", normalize=" + std::string(name(static_cast<Normalize>(f[6]))) +
         (f[7] ? ", confusion" : "") + ")";
}

// Every rank gathers every rank's configuration and runs the same comparison,
// so every rank raises the same DistError.
void check_same_config(const Config& cfg) {
  const std::vector<int64_t> mine = encode(cfg);
  const std::vector<int64_t> all =
      dist::all_gather(concord::tensor(mine).reshape({1, kFields})).to_vector<int64_t>();
  for (size_t r = 1; r * kFields < all.size(); ++r) {
    const int64_t* a = all.data();
    const int64_t* b = all.data() + r * kFields;
    if (std::equal(a, a + kFields, b)) continue;
    const std::string diff =
        a[0] != b[0] ? "rank " + std::to_string(r) + " syncs another kind of metric than rank 0 (this rank: " + cfg.metric + ")"
                     : "rank " + std::to_string(r) + " has " + describe(b, cfg.metric) + ", rank 0 has " + describe(a, cfg.metric);
    throw dist::DistError("[dist.metric.sync] rank " + std::to_string(dist::rank()) + " of " +
                          std::to_string(dist::world_size()) + ": " + diff +
                          ". Their counts cannot be added: create the metric with the same arguments on every rank "
                          "and call sync() in the same order. Every rank raises this error.");
  }
}

}  // namespace

void CountState::sync() {
  check_same_config(cfg_);
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
