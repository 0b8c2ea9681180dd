// The paths behind the floating all_reduce sum/mean: the reproducible sum
// picks an int64, an __int128 or a multi-limb accumulator from the global
// window of exponents, and cuts the elements into one slice per rank, in
// blocks; the native sum runs on the dtype's own buffer. Whatever the path,
// the reproducible result is the correctly rounded exact sum computed here
// independently (exact_reference.h). Run under mpirun -np 1..4.
#include "dist_checks.h"

namespace {

using namespace dist_test;
namespace dist = concord::dist;
using concord::Dtype;
using concord::Tensor;

// More elements than one accumulator block (2048) with one rank.
constexpr size_t kElems = 2200, kContribs = 6;

// n values +-[1, 2) * 2^e, e uniform in [-spread, spread]: the window, hence
// the accumulator's width, grows with spread.
std::vector<double> spread_values(uint64_t seed, size_t n, int spread, Dtype dt) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(1.0, 2.0);
  std::uniform_int_distribution<int> e(-spread, spread), sign(0, 1);
  std::vector<double> v(n);
  for (auto& x : v) x = (sign(g) ? -1 : 1) * std::ldexp(u(g), e(g));
  return make(v, dt).to_vector<double>();   // exactly the dtype's values
}

// Expected accumulator per (dtype, spread), from the window plus growth and sign:
//   spread 0:  float32 32 bits, float64 61 -> int64 (float64 sums above 2^53 round through round_exact)
//   spread 8:  float32 48 -> int64, float64 77 -> __int128
//   spread 40: float32 112 -> __int128, float64 141 -> limbs
//   float16 (always int64) and bfloat16 (spread 40: limbs) run spreads 0 and 40 only.
TEST(DistSumPaths, EveryAccumulatorWidthGivesTheExactSumAndMean) {
  for (Dtype dt : kFloats) {
    for (int spread : {0, 8, 40}) {
      if (spread && (dt == Dtype::float16 || dt == Dtype::bfloat16) && spread != 40) continue;
      std::vector<std::vector<double>> vals;
      std::vector<Tensor> global;
      for (size_t j = 0; j < kContribs; ++j) {
        vals.push_back(spread_values(1000 * static_cast<uint64_t>(spread) + j, kElems, spread, dt));
        global.push_back(make(vals.back(), dt));
      }
      const auto want_sum = reference(vals, 1, fmt_of(dt)), want_mean = reference(vals, kContribs, fmt_of(dt));
      for (int shift = 0; shift < dist::world_size(); ++shift) {
        const auto mine = share(global, shift);
        EXPECT_EQ(same_bits(dist::all_reduce(mine), want_sum, dt), "") << concord::name(dt) << " spread " << spread;
        EXPECT_EQ(same_bits(dist::all_reduce(mine, dist::ReduceOp::mean), want_mean, dt), "")
            << concord::name(dt) << " spread " << spread;
      }
    }
  }
}

// Two contributions over up to 4 ranks: some ranks send nothing, and the
// slices of an odd element count are uneven.
TEST(DistSumPaths, RanksWithoutContributionsAndUnevenSlices) {
  for (Dtype dt : {Dtype::float32, Dtype::bfloat16}) {
    std::vector<std::vector<double>> vals = {spread_values(5, 4099, 8, dt), spread_values(6, 4099, 8, dt)};
    std::vector<Tensor> global = {make(vals[0], dt), make(vals[1], dt)};
    const auto want = reference(vals, 1, fmt_of(dt));
    for (int shift = 0; shift < dist::world_size(); ++shift)
      EXPECT_EQ(same_bits(dist::all_reduce(share(global, shift)), want, dt), "") << concord::name(dt);
  }
}

// A strided view is read through a host copy: same bits as its contiguous copy.
TEST(DistSumPaths, NonContiguousViewsGiveTheExactSum) {
  const int p = dist::world_size();
  std::vector<std::vector<double>> per_rank;
  for (int r = 0; r < p; ++r) per_rank.push_back(spread_values(70 + static_cast<uint64_t>(r), 2 * 3001, 40, Dtype::float32));
  const Tensor pairs = make(per_rank[static_cast<size_t>(dist::rank())], Dtype::float32).reshape({3001, 2});
  const Tensor column = pairs.narrow(1, 1, 1).reshape({3001});   // every second value: a strided view
  ASSERT_FALSE(pairs.narrow(1, 1, 1).is_contiguous());
  std::vector<std::vector<double>> cols;
  for (const auto& v : per_rank) {
    cols.emplace_back();
    for (size_t i = 1; i < v.size(); i += 2) cols.back().push_back(v[i]);
  }
  EXPECT_EQ(same_bits(dist::all_reduce(pairs.narrow(1, 1, 1)).reshape({3001}), reference(cols, 1, kF32), Dtype::float32), "");
  EXPECT_EQ(same_bits(dist::all_reduce(column), reference(cols, 1, kF32), Dtype::float32), "");
}

// Native: small integers add exactly in any order, so the plain sum is known;
// the mean of float32/float64 is that sum divided once in the dtype.
TEST(DistSumPaths, NativeSumsListsOfContributionsInTheDtype) {
  std::vector<std::vector<double>> vals;
  std::vector<Tensor> global;
  for (size_t j = 0; j < 5; ++j) {
    vals.emplace_back();
    for (size_t i = 0; i < 1000; ++i) vals.back().push_back(static_cast<double>((i * (j + 3)) % 200) - 100);
  }
  for (Dtype dt : kFloats) {
    global.clear();
    for (const auto& v : vals) global.push_back(make(v, dt));
    const auto want_sum = reference(vals, 1, fmt_of(dt)), want_mean = reference(vals, 5, fmt_of(dt));
    for (int shift = 0; shift < dist::world_size(); ++shift) {
      const auto mine = share(global, shift);
      EXPECT_EQ(same_bits(dist::all_reduce(mine, dist::ReduceOp::sum, dist::Algorithm::native), want_sum, dt), "")
          << concord::name(dt);
      if (dt == Dtype::float32 || dt == Dtype::float64)
        EXPECT_EQ(same_bits(dist::all_reduce(mine, dist::ReduceOp::mean, dist::Algorithm::native), want_mean, dt), "")
            << concord::name(dt);
    }
  }
}

// prod, max and min run on the same slices: the product follows the (rank,
// local index) order of the contributions in float64 and is rounded once.
TEST(DistSumPaths, ProdMaxMinOverSlicesFollowTheRankOrder) {
  const int p = dist::world_size();
  for (Dtype dt : kFloats) {
    std::vector<std::vector<double>> vals;
    std::vector<Tensor> global;
    for (size_t j = 0; j < kContribs; ++j) {
      vals.push_back(spread_values(300 + j, kElems, 0, dt));
      global.push_back(make(vals.back(), dt));
    }
    for (int shift = 0; shift < p; ++shift) {
      std::vector<size_t> order;   // contribution j lives on rank (j + shift) % p
      for (int r = 0; r < p; ++r)
        for (size_t j = 0; j < kContribs; ++j)
          if (static_cast<int>((j + static_cast<size_t>(shift)) % static_cast<size_t>(p)) == r) order.push_back(j);
      std::vector<double> prod(kElems, 1.0), mx(kElems, -INFINITY), mn(kElems, INFINITY);
      for (size_t i = 0; i < kElems; ++i)
        for (size_t j : order) prod[i] *= vals[j][i], mx[i] = std::max(mx[i], vals[j][i]), mn[i] = std::min(mn[i], vals[j][i]);
      const auto mine = share(global, shift);
      EXPECT_EQ(same_bits(dist::all_reduce(mine, dist::ReduceOp::max), mx, dt), "") << concord::name(dt);
      EXPECT_EQ(same_bits(dist::all_reduce(mine, dist::ReduceOp::min), mn, dt), "") << concord::name(dt);
      // float16/bfloat16 products are rounded once here; the reference's cast may round twice: compare the wide ones.
      if (dt == Dtype::float32 || dt == Dtype::float64)
        EXPECT_EQ(same_bits(dist::all_reduce(mine, dist::ReduceOp::prod), prod, dt), "") << concord::name(dt);
    }
  }
}

// A -0 without any NaN or inf: only the sign of a zero sum depends on it,
// with the narrow (int64) and the wide (limbs) accumulator.
TEST(DistSumPaths, NegativeZerosWithoutInfOrNaN) {
  for (double wide : {2.0, 0x1p100}) {
    // Columns: all -0; -0 and +0; x and -x; -0 and a value; the window's width (wide or narrow).
    const std::vector<std::vector<double>> cols = {{-0.0, -0.0, 1.5, -0.0, wide},
                                                   {-0.0, 0.0, -1.5, 3.0, 1.0 / wide},
                                                   {-0.0, -0.0, 0.0, -0.0, 1.0}};
    for (Dtype dt : {Dtype::float32, Dtype::float64, Dtype::bfloat16}) {
      std::vector<Tensor> global;
      std::vector<std::vector<double>> vals;
      for (const auto& c : cols) global.push_back(make(c, dt)), vals.push_back(values(global.back()));
      const auto want = reference(vals, 1, fmt_of(dt));
      ASSERT_TRUE(std::signbit(want[0]) && !std::signbit(want[1]) && !std::signbit(want[2]));
      for (int shift = 0; shift < dist::world_size(); ++shift) {
        const Tensor got = dist::all_reduce(share(global, shift));
        EXPECT_EQ(same_bits(got, want, dt), "") << concord::name(dt) << " wide " << wide;
        EXPECT_TRUE(std::signbit(values(got)[0])) << concord::name(dt);
      }
    }
  }
}

}  // namespace
