// The reproducible all_reduce: for every floating dtype the result is the
// correctly rounded exact sum (or mean) of all contributions, computed here
// independently (exact_reference.h), so it is the same for any number of
// ranks, any assignment of contributions to ranks and any chunking.
// Run under mpirun -np 1..4 (tests/dist/CMakeLists.txt).
#include "dist_checks.h"

namespace {

using namespace dist_test;
namespace dist = concord::dist;
using concord::Dtype;
using concord::Tensor;

constexpr size_t kContribs = 12, kElems = 40;

struct Data {
  std::vector<Tensor> tensors;
  std::vector<std::vector<double>> vals;
};
Data global_data(Dtype dt, uint64_t seed) {
  Data d;
  for (size_t j = 0; j < kContribs; ++j) {
    d.vals.push_back(mixed(seed * 1000 + j, kElems, dt));
    d.tensors.push_back(make(d.vals.back(), dt));
  }
  return d;
}

TEST(DistReduce, SumAndMeanAreTheExactResultForAnyAssignmentToRanks) {
  for (Dtype dt : kFloats) {
    const Data d = global_data(dt, 7 + static_cast<uint64_t>(dt));
    const auto want_sum = reference(d.vals, 1, fmt_of(dt));
    const auto want_mean = reference(d.vals, kContribs, fmt_of(dt));
    for (int shift = 0; shift < dist::world_size(); ++shift) {
      const auto mine = share(d.tensors, shift);
      EXPECT_EQ(same_bits(dist::all_reduce(mine), want_sum, dt), "") << concord::name(dt) << " shift " << shift;
      EXPECT_EQ(same_bits(dist::all_reduce(mine, dist::ReduceOp::mean), want_mean, dt), "") << concord::name(dt);
    }
  }
}

TEST(DistReduce, OneTensorPerRankIsTheExactSumOfTheRanksTensors) {
  const int p = dist::world_size();
  for (Dtype dt : kFloats) {
    std::vector<std::vector<double>> per_rank;
    for (int r = 0; r < p; ++r) per_rank.push_back(mixed(99 + static_cast<uint64_t>(r), kElems, dt));
    const Tensor mine = make(per_rank[static_cast<size_t>(dist::rank())], dt);
    EXPECT_EQ(same_bits(dist::all_reduce(mine), reference(per_rank, 1, fmt_of(dt)), dt), "") << concord::name(dt);
  }
}

// 1e8, 1, -1e8, 1 in each of the 24 orders (one order per element) over 4
// contributions: the exact sum is 2, which no left-to-right float sum gives for all orders.
TEST(DistReduce, CancellingValuesInEveryPermutationSumToTwo) {
  std::vector<int> idx = {0, 1, 2, 3};
  const double v[4] = {1e8, 1, -1e8, 1};
  std::vector<std::vector<double>> cols(4);
  do {
    for (int j = 0; j < 4; ++j) cols[static_cast<size_t>(j)].push_back(v[idx[static_cast<size_t>(j)]]);
  } while (std::next_permutation(idx.begin(), idx.end()));
  for (Dtype dt : {Dtype::float32, Dtype::float64}) {
    std::vector<Tensor> global;
    for (const auto& c : cols) global.push_back(make(c, dt));
    for (int shift = 0; shift < dist::world_size(); ++shift) {
      const Tensor got = dist::all_reduce(share(global, shift));
      EXPECT_EQ(same_bits(got, std::vector<double>(24, 2.0), dt), "") << concord::name(dt);
    }
  }
}

TEST(DistReduce, SpecialValuesFollowTheStatedRules) {
  const double inf = INFINITY, nan = NAN, tiny = std::ldexp(1.0, -1074);
  // Columns: NaN; +inf; -inf; +inf and -inf; all -0; -0 and +0; subnormals; inf and a finite.
  const std::vector<std::vector<double>> cols = {
      {nan, inf, -inf, inf, -0.0, -0.0, tiny, inf, 1e300},
      {1.0, 1.0, 1.0, -inf, -0.0, 0.0, 3 * tiny, 2.0, 1e300},
      {2.0, inf, -1.0, 1.0, -0.0, -0.0, -tiny, 3.0, -1e300},
      {3.0, 5.0, -inf, 2.0, -0.0, -0.0, tiny, 4.0, 1e300}};
  for (Dtype dt : kFloats) {
    std::vector<Tensor> global;
    std::vector<std::vector<double>> vals;
    for (const auto& c : cols) {
      global.push_back(make(c, dt));
      vals.push_back(values(global.back()));
    }
    const auto want = reference(vals, 1, fmt_of(dt));
    EXPECT_TRUE(std::isnan(want[0]) && want[1] == INFINITY && want[2] == -INFINITY && std::isnan(want[3]));
    EXPECT_TRUE(want[4] == 0 && std::signbit(want[4]) && !std::signbit(want[5]));
    for (int shift = 0; shift < dist::world_size(); ++shift) {
      EXPECT_EQ(same_bits(dist::all_reduce(share(global, shift)), want, dt), "") << concord::name(dt);
      EXPECT_EQ(same_bits(dist::all_reduce(share(global, shift), dist::ReduceOp::mean), reference(vals, 4, fmt_of(dt)), dt),
                "") << concord::name(dt);
    }
  }
}

// Exact sums half way between two neighbours round to the even one.
TEST(DistReduce, TiesRoundToEven) {
  for (Dtype dt : {Dtype::float32, Dtype::float64}) {
    const int p = fmt_of(dt).p;
    const double u = std::ldexp(1.0, 1 - p), h = u / 2, q = u / 4;   // ulp of 1, half, quarter
    // Per element over 4 contributions: 1 + h (to 1), 1 + u + h (to 1 + 2u), -(1 + h) (to -1), 1 + h + tiny (to 1 + u).
    const std::vector<std::vector<double>> cols = {
        {1, 1 + u, -1, 1}, {q, h, -q, h}, {q, 0, -q, std::ldexp(1.0, -60)}, {0, 0, 0, 0}};
    std::vector<Tensor> global;
    for (const auto& c : cols) global.push_back(make(c, dt));
    const std::vector<double> want = {1, 1 + 2 * u, -1, 1 + u};
    for (int shift = 0; shift < dist::world_size(); ++shift)
      EXPECT_EQ(same_bits(dist::all_reduce(share(global, shift)), want, dt), "") << concord::name(dt);
  }
}

// The window of the accumulator depends on the values present; the result must not.
TEST(DistReduce, ChunkingDoesNotChangeTheBits) {
  for (Dtype dt : kFloats) {
    const Data d = global_data(dt, 31);
    const auto mine = share(d.tensors, 0);
    const Tensor whole = dist::all_reduce(mine);
    std::vector<Tensor> lo, hi;
    for (const Tensor& t : mine) {
      lo.push_back(t.narrow(0, 0, 7));
      hi.push_back(t.narrow(0, 7, static_cast<int64_t>(kElems) - 7));
    }
    const Tensor parts = concord::cat({dist::all_reduce(lo), dist::all_reduce(hi)});
    EXPECT_EQ(same_bits(parts, values(whole), dt), "") << concord::name(dt);
  }
}

TEST(DistReduce, EmptyTensorsKeepTheirShape) {
  for (Dtype dt : {Dtype::float32, Dtype::int32}) {
    const Tensor got = dist::all_reduce(concord::zeros({0, 3}, dt));
    EXPECT_EQ(got.shape(), (concord::Shape{0, 3}));
    EXPECT_EQ(got.dtype(), dt);
  }
}

TEST(DistReduce, NativeAlgorithmIsThePlainSum) {
  // Small integers: every order of float additions is exact, so the plain sum must agree.
  const int p = dist::world_size();
  std::vector<double> x(16);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>(i) * (dist::rank() + 1);
  for (Dtype dt : kFloats) {
    const Tensor got = dist::all_reduce(make(x, dt), dist::ReduceOp::sum, dist::Algorithm::native);
    std::vector<double> want(16);
    for (size_t i = 0; i < want.size(); ++i) want[i] = static_cast<double>(i) * p * (p + 1) / 2;
    EXPECT_EQ(same_bits(got, want, dt), "") << concord::name(dt);
  }
}

}  // namespace
