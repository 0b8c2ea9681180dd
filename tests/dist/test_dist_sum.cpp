// dist::sum / dist::mean over a sharded dim: the bits of the single-process
// concord::sum / mean of the whole tensor, for every number of ranks and uneven shards.
#include "dist_checks.h"

namespace {

using namespace dist_test;
namespace dist = concord::dist;
using concord::Dtype;
using concord::Tensor;

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

}  // namespace
