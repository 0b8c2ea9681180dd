// broadcast, all_gather, reduce_scatter, send/recv, the exact reductions of
// integers and the order-free ones of floats, staging of device tensors, and
// the agreement checks (DistError on every rank). Run under mpirun -np 1..4.
#include "dist_checks.h"

#include <limits>

namespace {

using namespace dist_test;
namespace dist = concord::dist;
using concord::Dtype;
using concord::Tensor;

int P() { return dist::world_size(); }
int R() { return dist::rank(); }

// Runs f, which must throw DistError containing every piece of `parts`.
template <class F> std::string dist_error(F f, std::vector<std::string> parts) {
  try {
    f();
  } catch (const dist::DistError& e) {
    const std::string m = e.what();
    for (const auto& p : parts)
      if (m.find(p) == std::string::npos) return "message lacks '" + p + "': " + m;
    return "";
  } catch (const std::exception& e) {
    return std::string("another exception: ") + e.what();
  }
  return "no DistError";
}

TEST(DistCollectives, BroadcastGivesTheRootsTensorFromEveryRoot) {
  for (int root = 0; root < P(); ++root) {
    const Tensor x = make({1.5 * R(), -2.0 * R(), 3.0}, Dtype::float32);
    EXPECT_EQ(same_bits(dist::broadcast(x, root), {1.5 * root, -2.0 * root, 3.0}, Dtype::float32), "");
  }
}

TEST(DistCollectives, AllGatherConcatenatesUnevenFirstDims) {
  // Rank r holds r + 1 rows of 2 values 10r + k.
  std::vector<int32_t> mine;
  for (int k = 0; k < 2 * (R() + 1); ++k) mine.push_back(10 * R() + k);
  const Tensor got = dist::all_gather(concord::from_vector(mine, {R() + 1, 2}));
  std::vector<int32_t> want;
  for (int r = 0; r < P(); ++r)
    for (int k = 0; k < 2 * (r + 1); ++k) want.push_back(10 * r + k);
  EXPECT_EQ(got.shape(), (concord::Shape{static_cast<int64_t>(want.size() / 2), 2}));
  EXPECT_EQ(got.to_vector<int32_t>(), want);
}

TEST(DistCollectives, ReduceScatterGivesEachRankItsShareOfTheExactSum) {
  const int64_t rows = 7;   // uneven for 2, 3 and 4 ranks
  std::vector<double> x(static_cast<size_t>(rows));
  for (int64_t i = 0; i < rows; ++i) x[static_cast<size_t>(i)] = (i + 1) * 0.1 * (R() + 1);
  const Tensor got = dist::reduce_scatter(make(x, Dtype::float64));
  std::vector<std::vector<double>> per_rank;
  for (int r = 0; r < P(); ++r) {
    std::vector<double> v;
    for (int64_t i = 0; i < rows; ++i) v.push_back((i + 1) * 0.1 * (r + 1));
    per_rank.push_back(v);
  }
  const auto full = reference(per_rank, 1, kF64);
  const int64_t each = rows / P(), extra = rows % P(), start = R() * each + std::min<int64_t>(R(), extra);
  const std::vector<double> want(full.begin() + start, full.begin() + start + each + (R() < extra ? 1 : 0));
  EXPECT_EQ(same_bits(got, want, Dtype::float64), "");
}

// Rows of 3 float32 values, fewer rows than ranks at np 4 and uneven at 2, 3:
// each rank reduces only its own rows (no all-gather), with the same bits.
TEST(DistCollectives, ReduceScatterOfMatricesSumsAndFoldsOnlyTheOwnRows) {
  for (int64_t rows : {int64_t{3}, int64_t{5}}) {
    std::vector<std::vector<double>> per_rank;
    for (int r = 0; r < P(); ++r) {
      std::vector<double> v;
      for (int64_t i = 0; i < rows * 3; ++i) v.push_back(static_cast<float>((i % 2 ? 1e8 : 0.375) * (r % 2 ? -1 : 1) + i + r * 0.125));
      per_rank.push_back(v);
    }
    const Tensor x = make(per_rank[static_cast<size_t>(R())], Dtype::float32).reshape({rows, 3});
    const auto full = reference(per_rank, 1, kF32);
    const int64_t each = rows / P(), extra = rows % P(), start = R() * each + std::min<int64_t>(R(), extra);
    const int64_t mine = each + (R() < extra ? 1 : 0);
    const Tensor got = dist::reduce_scatter(x);
    EXPECT_EQ(got.shape(), (concord::Shape{mine, 3}));
    EXPECT_EQ(same_bits(got, std::vector<double>(full.begin() + start * 3, full.begin() + (start + mine) * 3), Dtype::float32), "")
        << rows << " rows";
    std::vector<double> most(static_cast<size_t>(mine * 3), -std::numeric_limits<double>::infinity());
    for (const auto& v : per_rank)
      for (int64_t i = 0; i < mine * 3; ++i)
        most[static_cast<size_t>(i)] = std::max(most[static_cast<size_t>(i)], v[static_cast<size_t>(start * 3 + i)]);
    EXPECT_EQ(same_bits(dist::reduce_scatter(x, dist::ReduceOp::max), most, Dtype::float32), "") << rows << " rows";
  }
}

TEST(DistCollectives, SendRecvAroundTheRing) {
  if (P() == 1) {
    EXPECT_EQ(dist_error([] { dist::send(make({1.0}, Dtype::float32), 0); }, {"[dist.send]", "peer 0"}), "");
    return;
  }
  const Tensor x = concord::from_vector(std::vector<int16_t>{static_cast<int16_t>(R()), -7}, {1, 2});
  const int next = (R() + 1) % P(), prev = (R() + P() - 1) % P();
  if (R() % 2 == 0) { dist::send(x, next, 3); }
  const Tensor got = dist::recv(prev, 3);
  if (R() % 2 == 1) { dist::send(x, next, 3); }
  EXPECT_EQ(got.shape(), (concord::Shape{1, 2}));
  EXPECT_EQ(got.dtype(), Dtype::int16);
  EXPECT_EQ(got.to_vector<int16_t>(), (std::vector<int16_t>{static_cast<int16_t>(prev), -7}));
}

TEST(DistCollectives, IntegersWrapAsTheCpuDoesAndBoolsAreAnyAll) {
  // int8: 100 per rank wraps modulo 256; int64 near its max wraps too.
  const Tensor s8 = dist::all_reduce(concord::full({2}, 100, Dtype::int8));
  EXPECT_EQ(s8.to_vector<int64_t>()[0], static_cast<int8_t>(static_cast<uint8_t>((100 * P()) & 0xff)));
  const int64_t big = std::numeric_limits<int64_t>::max();
  const Tensor s64 = dist::all_reduce(concord::tensor(std::vector<int64_t>{big, R() - 1}));
  EXPECT_EQ(s64.to_vector<int64_t>()[0], static_cast<int64_t>(static_cast<uint64_t>(big) * static_cast<uint64_t>(P())));
  EXPECT_EQ(s64.to_vector<int64_t>()[1], static_cast<int64_t>(P() * (P() - 1) / 2 - P()));
  const Tensor mx = dist::all_reduce(concord::tensor(std::vector<uint8_t>{static_cast<uint8_t>(200 + R())}), dist::ReduceOp::max);
  EXPECT_EQ(mx.to_vector<int64_t>()[0], 200 + P() - 1);
  const Tensor pr = dist::all_reduce(concord::tensor(std::vector<int32_t>{R() + 1}), dist::ReduceOp::prod);
  int32_t fact = 1;
  for (int r = 1; r <= P(); ++r) fact *= r;
  EXPECT_EQ(pr.to_vector<int32_t>()[0], fact);
  const Tensor any = dist::all_reduce(concord::tensor(std::vector<bool>{R() == P() - 1, true}));
  const Tensor all = dist::all_reduce(concord::tensor(std::vector<bool>{R() == 0, true}), dist::ReduceOp::min);
  EXPECT_EQ(any.to_vector<bool>(), (std::vector<bool>{true, true}));
  EXPECT_EQ(all.to_vector<bool>(), (std::vector<bool>{P() == 1, true}));
}

TEST(DistCollectives, FloatMaxMinProdFollowTheStatedRules) {
  // max/min: NaN wins, +0 above -0; prod: the (rank) order's float64 product rounded once.
  const double r = R();
  const Tensor x = make({r - 1, R() == P() - 1 ? NAN : 1.0, R() == 0 ? -0.0 : 0.0, 1.5 + r}, Dtype::float32);
  const auto mx = values(dist::all_reduce(x, dist::ReduceOp::max));
  const auto mn = values(dist::all_reduce(x, dist::ReduceOp::min));
  EXPECT_EQ(mx[0], P() - 2.0);
  EXPECT_EQ(mn[0], -1.0);
  EXPECT_TRUE(std::isnan(mx[1]) && std::isnan(mn[1]));
  EXPECT_TRUE(mx[2] == 0 && (P() == 1 ? std::signbit(mx[2]) : !std::signbit(mx[2])));
  EXPECT_TRUE(mn[2] == 0 && std::signbit(mn[2]));
  double prod = 1;
  for (int k = 0; k < P(); ++k) prod *= 1.5 + k;
  EXPECT_EQ(same_bits(dist::all_reduce(x, dist::ReduceOp::prod).narrow(0, 3, 1), {prod}, Dtype::float32), "");
}

TEST(DistCollectives, DeviceTensorsAreStagedThroughTheHostAndCounted) {
  const concord::Device emu("emu:0");
  concord::reset_report();
  const Tensor got = dist::all_reduce(make({0.1, 0.2}, Dtype::float32).to(emu));
  EXPECT_EQ(got.device(), emu);
  EXPECT_GT(concord::report().bytes("emu:0", "cpu"), 0u);
  EXPECT_GT(concord::report().bytes("cpu", "emu:0"), 0u);
  std::vector<std::vector<double>> per_rank(static_cast<size_t>(P()), values(make({0.1, 0.2}, Dtype::float32)));
  EXPECT_EQ(same_bits(got.to(concord::kCPU), reference(per_rank, 1, kF32), Dtype::float32), "");
}

TEST(DistCollectives, DisagreeingDtypesOrShapesRaiseOnEveryRank) {
  const Dtype dt = R() == P() - 1 && P() > 1 ? Dtype::float64 : Dtype::float32;
  if (P() > 1)
    EXPECT_EQ(dist_error([&] { dist::all_reduce(concord::zeros({3}, dt)); },
                         {"[dist.all_reduce]", "dtypes disagree", "rank " + std::to_string(P() - 1) + " has float64"}), "");
  const int64_t n = R() == P() - 1 && P() > 1 ? 4 : 3;
  if (P() > 1)
    EXPECT_EQ(dist_error([&] { dist::all_reduce(concord::zeros({n})); }, {"shapes disagree", "[4]", "[3]"}), "");
  EXPECT_EQ(dist_error([] { dist::all_reduce(concord::zeros({2}, Dtype::int32), dist::ReduceOp::mean); },
                       {"[dist.all_reduce]", "rank 0 cannot take part", "mean of int32"}), "");
  EXPECT_EQ(dist_error([] { dist::broadcast(concord::zeros({2}), P()); }, {"[dist.broadcast]", "is not a rank"}), "");
  // A rank in another collective: both sides raise (all_gather's shapes are checked beyond dim 0 only).
  if (P() > 1)
    EXPECT_EQ(dist_error([] { R() == 0 ? (void)dist::broadcast(concord::zeros({2}), 0) : (void)dist::all_gather(concord::zeros({2})); },
                         {"called dist::"}), "");
  // After errors the ranks are still in step.
  EXPECT_EQ(dist::all_reduce(concord::ones({1})).item<float>(), static_cast<float>(P()));
}

}  // namespace
