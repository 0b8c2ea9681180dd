// var, std, norm, logsumexp, softmax, log_softmax, cumsum, and the fallback path.
#include <limits>

#include "reduce_reference.h"

namespace concord::test {
namespace {

using namespace reduce;

class ReduceStatsTest : public DeviceTest {
 protected:
  bool skip(Dtype t) { return !usable(GetParam(), t); }
};

const std::vector<Dtype> kFloats = {float16, bfloat16, float32, float64};
const std::vector<std::vector<int64_t>> kDimSets = {{}, {0}, {1}, {-1}, {0, 2}, {2, 0, 1}};
const Shape kShape{3, 4, 5};

Dims to_dims(const std::vector<int64_t>& d) { return Dims(d.begin(), d.end()); }

TEST_P(ReduceStatsTest, VarAndStd) {
  for (Dtype t : kFloats) {
    if (skip(t)) continue;  // float64 on a no-fp64 profile
    SCOPED_TRACE(std::string(name(t)));
    auto v = random_values(60, t, -1, 3, 11);
    Tensor x = make(v, kShape, t, device());
    for (const auto& dims : kDimSets) {
      auto g = groups(v, kShape, dims);
      for (int64_t corr : {0, 1, 2}) {
        Tensor va = var(x, to_dims(dims), corr, true);
        EXPECT_EQ(va.dtype(), t);
        EXPECT_EQ(va.ndim(), 3);
        auto gv = va.to_vector<double>();
        auto gs = std(x, to_dims(dims), corr).to_vector<double>();
        for (size_t i = 0; i < g.size(); ++i) {
          const double ref = ref_var(g[i], corr), m = ref_mean(g[i]);
          const double tol = 64 * acc_unit(t) * (ref + m * m) + 2 * unit(t) * ref;
          EXPECT_NEAR(gv[i], ref, tol) << "dims " << shape_str(to_dims(dims)) << " correction " << corr;
          EXPECT_NEAR(gs[i], std::sqrt(ref), tol / (2 * std::sqrt(ref)) + 2 * unit(t) * std::sqrt(ref));
        }
      }
    }
  }
  Tensor one = full({1}, 3.0, float32, device());
  EXPECT_TRUE(std::isnan(var(one).item<float>()));  // 0 / 0
  EXPECT_EQ(var(one, {}, 0).item<float>(), 0.0f);
  EXPECT_EQ(var(make({1, 3}, {2}, float32, device()), {}, 3).item<float>(), INFINITY);  // 2 / max(2 - 3, 0)
}

TEST_P(ReduceStatsTest, Norm) {
  for (Dtype t : kFloats) {
    if (skip(t)) continue;
    SCOPED_TRACE(std::string(name(t)));
    auto v = random_values(60, t, -2, 2, 12);
    Tensor x = make(v, kShape, t, device());
    for (const auto& dims : kDimSets) {
      auto g = groups(v, kShape, dims);
      auto n1 = norm(x, 1, to_dims(dims)).to_vector<double>();
      auto n2 = norm(x, 2, to_dims(dims), true).to_vector<double>();
      auto ni = norm(x, std::numeric_limits<double>::infinity(), to_dims(dims)).to_vector<double>();
      for (size_t i = 0; i < g.size(); ++i) {
        const double r1 = ref_abs_sum(g[i]);
        double sq = 0, mx = 0;
        for (double e : g[i]) { sq += e * e; mx = std::max(mx, std::fabs(e)); }
        const double r2 = std::sqrt(sq);
        EXPECT_NEAR(n1[i], r1, sum_depth(60) * acc_unit(t) * r1 + unit(t) * r1);
        EXPECT_NEAR(n2[i], r2, sum_depth(60) * acc_unit(t) * r2 + unit(t) * r2);
        EXPECT_EQ(ni[i], mx);
      }
    }
  }
}

TEST_P(ReduceStatsTest, LogSumExpIsStable) {
  for (Dtype t : kFloats) {
    if (skip(t)) continue;
    SCOPED_TRACE(std::string(name(t)));
    auto v = random_values(60, t, -4, 4, 13);
    Tensor x = make(v, kShape, t, device());
    for (const auto& dims : kDimSets) {
      auto g = groups(v, kShape, dims);
      auto got = logsumexp(x, to_dims(dims)).to_vector<double>();
      for (size_t i = 0; i < g.size(); ++i) {
        const double ref = ref_logsumexp(g[i]);
        EXPECT_NEAR(got[i], ref, 64 * acc_unit(t) * (std::fabs(ref) + 4) + unit(t) * std::fabs(ref));
      }
    }
  }
  const double inf = std::numeric_limits<double>::infinity();
  Tensor big = make({1000, 1000}, {2}, float32, device());
  EXPECT_NEAR(logsumexp(big, {0}).item<double>(), 1000 + std::log(2.0), 1e-3);
  EXPECT_EQ(logsumexp(make({-inf, -inf}, {2}, float32, device()), {}).item<double>(), -inf);
  EXPECT_EQ(logsumexp(make({inf, 1}, {2}, float32, device()), {}).item<double>(), inf);
  EXPECT_TRUE(std::isnan(logsumexp(make({1, NAN}, {2}, float32, device()), {}).item<double>()));
}

TEST_P(ReduceStatsTest, SoftmaxAndLogSoftmax) {
  for (Dtype t : kFloats) {
    if (skip(t)) continue;
    SCOPED_TRACE(std::string(name(t)));
    auto v = random_values(60, t, -3, 3, 14);
    Tensor x = make(v, kShape, t, device());
    for (int64_t dim : {0, 1, 2, -1, -3}) {
      Tensor sm = softmax(x, dim), ls = log_softmax(x, dim);
      EXPECT_EQ(sm.dtype(), t);
      EXPECT_EQ(sm.shape(), kShape);
      auto gs = sm.to_vector<double>(), gl = ls.to_vector<double>();
      // Reference per element: the row through it along dim.
      const int64_t d = dim < 0 ? dim + 3 : dim;
      const int64_t stride = d == 0 ? 20 : d == 1 ? 5 : 1, len = kShape[d];
      for (int64_t i = 0; i < 60; ++i) {
        const int64_t start = i - ((i / stride) % len) * stride;
        std::vector<double> row;
        for (int64_t k = 0; k < len; ++k) row.push_back(v[start + k * stride]);
        const double lse = ref_logsumexp(row), lref = v[i] - lse, sref = std::exp(lref);
        EXPECT_NEAR(gs[i], sref, 64 * acc_unit(t) * sref + unit(t) * sref) << "dim " << dim << " i " << i;
        EXPECT_NEAR(gl[i], lref, 64 * acc_unit(t) * (std::fabs(v[i]) + std::fabs(lse) + 1) + unit(t) * std::fabs(lref));
      }
    }
  }
  // Large logits: exp would overflow without the max shift.
  auto p = softmax(make({1000, 1001}, {2}, float32, device()), 0).to_vector<double>();
  EXPECT_NEAR(p[0], 1 / (1 + std::exp(1.0)), 1e-6);
  EXPECT_NEAR(p[1], 1 / (1 + std::exp(-1.0)), 1e-6);
  // Non-contiguous input, dtype argument, integer inputs.
  Tensor m = make(random_values(12, float32, -1, 1, 15), {3, 4}, float32, device());
  EXPECT_TRUE(bits(softmax(m.transpose(0, 1), 1)) == bits(softmax(m.transpose(0, 1).contiguous(), 1)));
  Tensor h = make({1, 2, 3}, {3}, float16, device());
  EXPECT_EQ(softmax(h, 0, float32).dtype(), float32);
  Tensor i = make({1, 2, 3}, {3}, int64, device());
  try {
    softmax(i, 0);
    ADD_FAILURE() << "expected DtypeError";
  } catch (const DtypeError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("[softmax]", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("dtype=concord::float32"), std::string::npos) << e.what();
  }
  auto li = log_softmax(i, 0, float32).to_vector<double>();
  EXPECT_NEAR(li[2], 3 - ref_logsumexp({1, 2, 3}), 1e-6);
}

// Many long contiguous rows run on the vector kernels (CPU), a transposed
// input on the general element-by-element path: both must give the same bits.
TEST_P(ReduceStatsTest, LargeSoftmaxSameBitsForEveryLayout) {
  for (Dtype t : {float32, float16}) {
    if (skip(t)) continue;
    SCOPED_TRACE(std::string(name(t)));
    const int64_t rows = 1031, n = 1027;
    Tensor x = make(random_values(rows * n, t, -8, 8, 21), {rows, n}, t, device());
    Tensor xt = x.transpose(0, 1).contiguous().transpose(0, 1);  // same values, columns contiguous
    EXPECT_TRUE(bits(softmax(x, 1)) == bits(softmax(xt, 1).contiguous())) << "softmax";
    EXPECT_TRUE(bits(log_softmax(x, 1)) == bits(log_softmax(xt, 1).contiguous())) << "log_softmax";
  }
}

TEST_P(ReduceStatsTest, Cumsum) {
  for (Dtype t : {uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64}) {
    if (skip(t)) continue;
    SCOPED_TRACE(std::string(name(t)));
    auto v = random_values(60, t, t == uint8 ? 0 : -3, 3, 16);
    Tensor x = make(v, kShape, t, device());
    for (int64_t dim : {0, 1, 2, -1}) {
      const int64_t d = dim < 0 ? dim + 3 : dim;
      for (bool transposed : {false, true}) {
        // The transposed case reads a non-contiguous view of the same values.
        Tensor in = transposed ? x.transpose(0, 2).contiguous().transpose(0, 2) : x;
        Tensor c = cumsum(in, dim);
        EXPECT_EQ(c.dtype(), is_floating(t) ? t : int64);
        auto got = c.to_vector<double>();
        const int64_t stride = d == 0 ? 20 : d == 1 ? 5 : 1;
        for (int64_t i = 0; i < 60; ++i) {
          const int64_t k = (i / stride) % kShape[d];
          double ref = 0, mag = 0;
          for (int64_t j = 0; j <= k; ++j) { ref += v[i - (k - j) * stride]; mag += std::fabs(v[i - (k - j) * stride]); }
          EXPECT_NEAR(got[i], ref, 8 * acc_unit(t) * mag + unit(t) * std::fabs(ref)) << "dim " << dim << " i " << i;
        }
      }
    }
  }
  // int8 inputs accumulate in int64: no int8 overflow.
  EXPECT_EQ(cumsum(make({100, 100, 100}, {3}, int8, device()), 0).to_vector<int64_t>(),
            (std::vector<int64_t>{100, 200, 300}));
  // float16 accumulates in float32: 4096 x 0.1 reaches 409.5, not a stalled half sum.
  auto c = cumsum(full({4096}, 0.1, float16, device()), 0).to_vector<double>();
  EXPECT_EQ(c.back(), 409.5);
  EXPECT_EQ(cumsum(make({1, 2}, {2}, float32, device()), 0, float64).dtype(), skip(float64) ? float32 : float64);
}

TEST_P(ReduceStatsTest, FallbackGivesTheCpuBits) {
  if (device().is_cpu()) GTEST_SKIP() << "cpu is the fallback target; it has no profile";
  Tensor x = make(random_values(64 * 50, float32, -1, 1, 17), {64, 50}, float32, device());
  const Tensor h = x.to(kCPU);
  auto cpu_sum = bits(sum(h, {0})), cpu_sm = bits(softmax(h, 1)), cpu_var = bits(var(h, {1}));
  auto cpu_arg = argmax(h, 0).to_vector<int64_t>();
  ProfileGuard g(device(), "no-op:sum,no-op:softmax,no-op:var,no-op:argmax");
  Tensor s = sum(x, {0});
  EXPECT_EQ(s.device(), device());
  EXPECT_TRUE(bits(s) == cpu_sum);
  EXPECT_TRUE(bits(softmax(x, 1)) == cpu_sm);
  EXPECT_TRUE(bits(var(x, {1})) == cpu_var);
  EXPECT_EQ(argmax(x, 0).to_vector<int64_t>(), cpu_arg);
}

TEST_P(ReduceStatsTest, Errors) {
  Tensor x = zeros({2, 3}, float32, device());
  EXPECT_THROW(var(zeros({3}, int32, device())), DtypeError);
  EXPECT_THROW(std(x, {0, 0}), ShapeError);
  try {
    norm(x, 3.0);
    ADD_FAILURE() << "expected ValueError";
  } catch (const ValueError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("[norm]", 0), 0u) << e.what();
  }
  EXPECT_THROW(softmax(x, 2), ShapeError);
  EXPECT_THROW(cumsum(x, -3), ShapeError);
  EXPECT_THROW(logsumexp(x, {5}), ShapeError);
}

CONCORD_INSTANTIATE_DEVICES(ReduceStatsTest);

}  // namespace
}  // namespace concord::test
