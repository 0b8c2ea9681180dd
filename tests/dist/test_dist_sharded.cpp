// Sharded data gives the single-process values on every rank:
// - dist::sum / dist::mean over a sharded dim: the bits of concord::sum / mean
//   of the whole tensor, for every number of ranks and uneven shards;
// - metrics' sync(): each rank updates on its shard of one data set (uneven;
//   with 2+ ranks rank 0's shard is empty), syncs, and must compute the values
//   of a single-process metric updated on the whole data set.
#include "dist_checks.h"

namespace {

using namespace dist_test;
namespace dist = concord::dist;
using concord::Dtype;
using concord::Tensor;
namespace metrics = concord::metrics;

// This rank's slice of `whole` along dim: rank r gets r + 1 parts of a split
// into 1 + 2 + ... + P parts (uneven; rank 0's slice may be empty).
Tensor my_shard(const Tensor& whole, int64_t dim) {
  const int64_t p = dist::world_size(), r = dist::rank(), n = whole.size(dim);
  const int64_t parts = p * (p + 1) / 2, before = r * (r + 1) / 2;
  const int64_t start = n * before / parts, end = n * (before + r + 1) / parts;
  return whole.narrow(dim, start, end - start);
}

TEST(DistSum, ShardedSumAndMeanGiveTheSingleProcessBits) {
  for (Dtype dt : kFloats) {
    // 3 x 37 x 5 values over many scales: sums whose rounding depends on order.
    const Tensor whole = make(mixed(5 + static_cast<uint64_t>(dt), 3 * 37 * 5, dt), dt).reshape({3, 37, 5});
    for (int64_t dim : {0, 1, -1}) {
      const Tensor shard = my_shard(whole, dim);
      EXPECT_EQ(same_bits(dist::sum(shard, dim), values(concord::sum(whole, {dim})), dt), "")
          << concord::name(dt) << " dim " << dim;
      EXPECT_EQ(same_bits(dist::mean(shard, dim, true), values(concord::mean(whole, {dim}, true)), dt), "")
          << concord::name(dt) << " dim " << dim;
    }
  }
}

TEST(DistSum, BadDimRaisesOnEveryRank) {
  try {
    dist::sum(concord::zeros({2, 3}), 2);
    ADD_FAILURE() << "no DistError";
  } catch (const dist::DistError& e) {
    EXPECT_NE(std::string(e.what()).find("[dist.sum]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("dim 2 is out of range"), std::string::npos) << e.what();
  }
}


constexpr int64_t kRows = 53, kClasses = 4;

// Rows [start, end) of this rank: rank r gets a share proportional to r.
std::pair<int64_t, int64_t> my_rows() {
  const int64_t p = dist::world_size(), r = dist::rank();
  if (p == 1) return {0, kRows};
  const int64_t parts = p * (p - 1) / 2, before = r * (r - 1) / 2;
  return {kRows * before / parts, kRows * (before + r) / parts};
}

template <class M> void check(M single, M sharded, const Tensor& pred, const Tensor& target, const char* what) {
  single.update(pred, target);
  const auto [start, end] = my_rows();
  sharded.update(pred.narrow(0, start, end - start), target.narrow(0, start, end - start));
  sharded.sync();
  EXPECT_EQ(sharded.samples(), single.samples()) << what;
  const auto got = sharded.compute().template to_vector<double>(), want = single.compute().template to_vector<double>();
  EXPECT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size() && i < want.size(); ++i) EXPECT_EQ(bits(got[i]), bits(want[i])) << what << " " << i;
}

TEST(DistMetrics, SyncedMetricsEqualTheSingleProcessValues) {
  std::mt19937_64 g(17);
  std::vector<float> scores(static_cast<size_t>(kRows * kClasses));
  for (auto& s : scores) s = std::uniform_real_distribution<float>(0, 1)(g);
  std::vector<int64_t> labels(static_cast<size_t>(kRows));
  for (auto& l : labels) l = std::uniform_int_distribution<int64_t>(0, kClasses - 1)(g);
  const Tensor pred = concord::from_vector(scores, {kRows, kClasses});
  const Tensor target = concord::tensor(labels);
  for (auto avg : {metrics::Average::micro, metrics::Average::macro, metrics::Average::weighted}) {
    check(metrics::Precision::multiclass(kClasses, avg), metrics::Precision::multiclass(kClasses, avg), pred, target, "precision");
    check(metrics::Recall::multiclass(kClasses, avg), metrics::Recall::multiclass(kClasses, avg), pred, target, "recall");
    check(metrics::FBeta::multiclass(0.5, kClasses, avg), metrics::FBeta::multiclass(0.5, kClasses, avg), pred, target, "fbeta");
    check(metrics::Accuracy::multiclass(kClasses, avg), metrics::Accuracy::multiclass(kClasses, avg), pred, target, "accuracy");
  }
  check(metrics::ConfusionMatrix::multiclass(kClasses), metrics::ConfusionMatrix::multiclass(kClasses), pred, target,
        "confusion");
  const Tensor bin_pred = pred.select(1, 0), bin_target = concord::lt(pred.select(1, 1), 0.5).to(concord::int64);
  check(metrics::F1::binary(), metrics::F1::binary(), bin_pred, bin_target, "f1 binary");
}

// Metrics made with different arguments on different ranks: their counts
// cannot be added, and every rank raises DistError naming the difference.
TEST(DistMetrics, SyncOfDisagreeingMetricsRaisesOnEveryRank) {
  if (concord::dist::world_size() == 1) GTEST_SKIP() << "needs two ranks";
  const bool last = concord::dist::rank() == concord::dist::world_size() - 1;
  auto expect_raise = [](auto metric, const char* field) {
    try {
      metric.sync();
      ADD_FAILURE() << "sync() returned; expected DistError about " << field;
    } catch (const concord::dist::DistError& e) {
      EXPECT_NE(std::string(e.what()).find("[dist.metric.sync]"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  };
  expect_raise(metrics::Precision::binary(last ? 0.6 : 0.5), "threshold=0.6");
  expect_raise(metrics::Recall::multiclass(3, last ? metrics::Average::micro : metrics::Average::macro), "average=micro");
  expect_raise(metrics::Accuracy::multiclass(last ? 4 : 3), "classes=4");
  if (last) expect_raise(metrics::Recall::multiclass(3), "another kind of metric");
  else expect_raise(metrics::Precision::multiclass(3), "another kind of metric");
  // The world is still in step: a matching sync afterwards works.
  auto ok = metrics::Accuracy::multiclass(3);
  ok.sync();
  EXPECT_EQ(ok.samples(), 0);
}

}  // namespace
