// Reductions: sum, mean, prod, amax/amin, max/min, argmax/argmin, all/any,
// plus the determinism contract (same bits on 1 and 2 threads).
#include <omp.h>

#include <functional>
#include <limits>

#include "reduce_reference.h"
#include "support/threads.h"

namespace concord::test {
namespace {

using namespace reduce;

class ReduceTest : public DeviceTest {
 protected:
  bool skip(Dtype t) { return !usable(GetParam(), t); }
};

const std::vector<Dtype> kSumDtypes = {bool_, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64};
const std::vector<Dtype> kNumeric = {uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64};
const std::vector<Dtype> kFloats = {float16, bfloat16, float32, float64};
const std::vector<std::vector<int64_t>> kDimSets = {{}, {0}, {1}, {2}, {-1}, {0, 2}, {-3, -1}, {2, 0}, {0, 1, 2}};

Dims to_dims(const std::vector<int64_t>& d) { return Dims(d.begin(), d.end()); }

Shape out_shape(const Shape& s, std::vector<int64_t> dims, bool keepdim) {
  const int64_t nd = static_cast<int64_t>(s.size());
  if (dims.empty()) for (int64_t i = 0; i < nd; ++i) dims.push_back(i);
  Shape o;
  for (int64_t i = 0; i < nd; ++i) {
    bool r = false;
    for (auto d : dims) r |= (d < 0 ? d + nd : d) == i;
    if (!r) o.push_back(s[i]);
    else if (keepdim) o.push_back(1);
  }
  return o;
}

TEST_P(ReduceTest, SumEveryDtypeDimsAndKeepdim) {
  const Shape shape{3, 4, 5};
  for (Dtype t : kSumDtypes) {
    if (skip(t)) continue;  // float64 on a no-fp64 profile
    SCOPED_TRACE(std::string(name(t)));
    auto v = random_values(60, t, t == uint8 ? 0 : -20, 20, 1);
    Tensor x = make(v, shape, t, device());
    for (const auto& dims : kDimSets) {
      for (bool keep : {false, true}) {
        Tensor s = sum(x, to_dims(dims), keep);
        EXPECT_EQ(s.dtype(), is_floating(t) ? t : int64);
        EXPECT_EQ(s.shape(), out_shape(shape, dims, keep));
        EXPECT_EQ(s.device(), device());
        auto got = s.to_vector<double>();
        auto g = groups(v, shape, dims);
        ASSERT_EQ(got.size(), g.size());
        for (size_t i = 0; i < g.size(); ++i) {
          const double ref = ref_sum(g[i]);
          const double tol = sum_depth(20) * acc_unit(t) * ref_abs_sum(g[i]) + unit(t) * std::fabs(ref);
          EXPECT_NEAR(got[i], ref, tol) << "dims " << shape_str(to_dims(dims)) << " output " << i;
        }
      }
    }
  }
}

TEST_P(ReduceTest, ResultDtypes) {
  Tensor b = make({1, 0, 1}, {3}, bool_, device());
  EXPECT_EQ(sum(b).dtype(), int64);
  EXPECT_EQ(sum(b).item<int64_t>(), 2);
  EXPECT_EQ(prod(make({2, 3}, {2}, int8, device())).dtype(), int64);
  EXPECT_EQ(sum(make({1, 2}, {2}, int32, device()), {}, false, int32).dtype(), int32);
  EXPECT_EQ(sum(make({1.5, 2}, {2}, float16, device())).dtype(), float16);
  EXPECT_EQ(sum(make({1.5, 2.5}, {2}, float32, device()), {}, false, int64).item<int64_t>(), 3);  // cast, then sum
  EXPECT_EQ(cumsum(make({1, 2}, {2}, int16, device()), 0).dtype(), int64);
  EXPECT_EQ(logsumexp(make({1, 2}, {2}, int32, device()), {}).dtype(), float32);
  EXPECT_EQ(all(make({1, 2}, {2}, float32, device())).dtype(), bool_);
  EXPECT_EQ(amax(b).dtype(), bool_);
  EXPECT_EQ(amax(b).item<bool>(), true);
  EXPECT_EQ(amin(b).item<bool>(), false);
  EXPECT_EQ(mean(make({1, 2}, {2}, int32, device()), {}, false, float32).item<float>(), 1.5f);
  if (!skip(float64)) EXPECT_EQ(sum(make({1, 2}, {2}, float32, device()), {}, false, float64).dtype(), float64);
}

TEST_P(ReduceTest, IntegerSumsAreExactAndWrap) {
  const int64_t big = std::numeric_limits<int64_t>::max();
  Tensor x = from_host(std::vector<int64_t>{big, 1}.data(), {2}, int64, device());
  EXPECT_EQ(sum(x).item<int64_t>(), std::numeric_limits<int64_t>::min());
  // int32 inputs sum in int64: no int32 overflow.
  Tensor y = full({3}, 2000000000, int32, device());
  EXPECT_EQ(sum(y).item<int64_t>(), 6000000000LL);
  EXPECT_EQ(prod(make({-2, 3, 4}, {3}, int8, device())).item<int64_t>(), -24);
}

TEST_P(ReduceTest, MeanProdAmaxAmin) {
  const Shape shape{3, 4, 5};
  for (Dtype t : kNumeric) {
    if (skip(t)) continue;
    SCOPED_TRACE(std::string(name(t)));
    const bool fl = is_floating(t);
    auto v = random_values(60, t, fl ? 0.8 : 1, fl ? 1.25 : 2, 2);
    if (fl) for (size_t i = 0; i < v.size(); i += 7) v[i] = -v[i];
    Tensor x = make(v, shape, t, device());
    for (const auto& dims : kDimSets) {
      auto g = groups(v, shape, dims);
      auto pr = prod(x, to_dims(dims)).to_vector<double>();
      auto mx = amax(x, to_dims(dims)).to_vector<double>();
      auto mn = amin(x, to_dims(dims), true).to_vector<double>();
      for (size_t i = 0; i < g.size(); ++i) {
        double p = 1;
        for (double e : g[i]) p *= e;
        EXPECT_NEAR(pr[i], p, (64 * acc_unit(t) + unit(t)) * std::fabs(p));
        EXPECT_EQ(mx[i], ref_max(g[i]));
        EXPECT_EQ(mn[i], ref_min(g[i]));
      }
      if (!fl) continue;
      auto me = mean(x, to_dims(dims)).to_vector<double>();
      for (size_t i = 0; i < g.size(); ++i) {
        const double ref = ref_mean(g[i]), n = static_cast<double>(g[i].size());
        EXPECT_NEAR(me[i], ref, sum_depth(60) * acc_unit(t) * ref_abs_sum(g[i]) / n + 2 * unit(t) * std::fabs(ref));
      }
    }
  }
}

TEST_P(ReduceTest, NonContiguousInputs) {
  for (Dtype t : {float32, float16, int32}) {
    SCOPED_TRACE(std::string(name(t)));
    auto v = random_values(6 * 10, t, -5, 5, 3);
    Tensor base = make(v, {6, 10}, t, device());
    // Views and the row-major host values they show.
    std::vector<std::pair<Tensor, std::vector<double>>> cases;
    cases.emplace_back(base.transpose(0, 1), base.transpose(0, 1).contiguous().to_vector<double>());
    cases.emplace_back(base.slice(1, 1, 9, 3), base.slice(1, 1, 9, 3).contiguous().to_vector<double>());
    cases.emplace_back(base.slice(0, 0, 6, 2).unsqueeze(1).expand({3, 4, 10}),
                       base.slice(0, 0, 6, 2).unsqueeze(1).expand({3, 4, 10}).contiguous().to_vector<double>());
    for (auto& [x, hv] : cases) {
      for (int64_t d = -1; d < x.ndim(); ++d) {
        const std::vector<int64_t> dims = d < 0 ? std::vector<int64_t>{} : std::vector<int64_t>{d};
        auto g = groups(hv, x.shape(), dims);
        auto s = sum(x, to_dims(dims)).to_vector<double>();
        auto mx = amax(x, to_dims(dims)).to_vector<double>();
        for (size_t i = 0; i < g.size(); ++i) {
          const double ref = ref_sum(g[i]);
          EXPECT_NEAR(s[i], ref, sum_depth(60) * acc_unit(t) * ref_abs_sum(g[i]) + unit(t) * std::fabs(ref));
          EXPECT_EQ(mx[i], ref_max(g[i]));
        }
      }
    }
  }
}

TEST_P(ReduceTest, EmptyReductions) {
  Tensor e = zeros({0, 3}, float32, device());
  EXPECT_EQ(sum(e).item<float>(), 0.0f);
  EXPECT_EQ(sum(e, {0}).to_vector<float>(), std::vector<float>(3, 0.0f));
  EXPECT_EQ(sum(e, {1}).shape(), Shape{0});
  EXPECT_EQ(prod(e).item<float>(), 1.0f);
  EXPECT_TRUE(std::isnan(mean(e).item<float>()));
  EXPECT_TRUE(std::isnan(var(e).item<float>()));
  EXPECT_EQ(logsumexp(e, {0}).to_vector<float>(), std::vector<float>(3, -INFINITY));
  EXPECT_EQ(norm(e).item<float>(), 0.0f);
  EXPECT_TRUE(all(e).item<bool>());
  EXPECT_FALSE(any(e).item<bool>());
  EXPECT_EQ(sum(zeros({0}, int8, device())).dtype(), int64);
  EXPECT_EQ(amax(e, {1}).shape(), Shape{0});  // nothing to reduce per output, but no output either
  EXPECT_EQ(argmax(e, 1).shape(), Shape{0});
  for (auto f : std::vector<std::function<Tensor()>>{
           [&] { return amax(e); }, [&] { return amin(e, {0}); }, [&] { return max(e); },
           [&] { return argmax(e); }, [&] { return argmin(e, 0); }, [&] { return max(e, 0).values; },
           [&] { return norm(e, INFINITY); }}) {
    try {
      f();
      ADD_FAILURE() << "expected ShapeError";
    } catch (const ShapeError& err) {
      const std::string m = err.what();
      EXPECT_NE(m.find("no identity"), std::string::npos) << m;
      EXPECT_NE(m.find("[0, 3]"), std::string::npos) << m;
    }
  }
  try { amax(e); } catch (const ShapeError& err) { EXPECT_EQ(std::string(err.what()).rfind("[amax]", 0), 0u); }
  EXPECT_EQ(softmax(e, 0).shape(), (Shape{0, 3}));
  EXPECT_EQ(cumsum(e, 0).shape(), (Shape{0, 3}));
}

TEST_P(ReduceTest, ZeroDimTensors) {
  Tensor s = full({}, 2.5, float32, device());
  EXPECT_EQ(sum(s).shape(), Shape{});
  EXPECT_EQ(sum(s, {0}).item<float>(), 2.5f);
  EXPECT_EQ(sum(s, {-1}, true).shape(), Shape{});
  EXPECT_EQ(amax(s).item<float>(), 2.5f);
  EXPECT_EQ(argmax(s).item<int64_t>(), 0);
  EXPECT_EQ(argmax(s, 0, true).shape(), Shape{});
  EXPECT_EQ(softmax(s, 0).item<float>(), 1.0f);
  EXPECT_EQ(cumsum(s, -1).item<float>(), 2.5f);
  EXPECT_EQ(max(s, 0).indices.item<int64_t>(), 0);
  EXPECT_THROW(sum(s, {1}), ShapeError);
}

TEST_P(ReduceTest, NaNPropagates) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (Dtype t : kFloats) {
    if (skip(t)) continue;
    SCOPED_TRACE(std::string(name(t)));
    Tensor x = make({1, nan, 3, 7, nan, -2}, {2, 3}, t, device());
    EXPECT_TRUE(std::isnan(sum(x).item<double>()));
    EXPECT_TRUE(std::isnan(amax(x).item<double>()));
    EXPECT_TRUE(std::isnan(amin(x).item<double>()));
    EXPECT_TRUE(std::isnan(max(x).item<double>()));
    auto rows = amax(x, {1}).to_vector<double>();
    EXPECT_TRUE(std::isnan(rows[0]) && std::isnan(rows[1]));
    auto cols = amax(x, {0}).to_vector<double>();
    EXPECT_EQ(cols[0], 7);
    EXPECT_TRUE(std::isnan(cols[1]));
    EXPECT_EQ(cols[2], 3);
    EXPECT_EQ(argmax(x).item<int64_t>(), 1);  // the first NaN wins
    EXPECT_EQ(argmin(x).item<int64_t>(), 1);
    EXPECT_EQ(argmax(x, 0).to_vector<int64_t>(), (std::vector<int64_t>{1, 0, 0}));
    EXPECT_TRUE(all(x).item<bool>());  // NaN is non-zero
  }
}

TEST_P(ReduceTest, ArgmaxFirstOccurrenceAndMaxDim) {
  for (Dtype t : kNumeric) {
    if (skip(t)) continue;
    SCOPED_TRACE(std::string(name(t)));
    Tensor x = make({1, 3, 3, 2, 0, 5, 5, 0}, {2, 4}, t, device());
    EXPECT_EQ(argmax(x).item<int64_t>(), 5);
    EXPECT_EQ(argmin(x).item<int64_t>(), 4);
    EXPECT_EQ(argmax(x, 1).to_vector<int64_t>(), (std::vector<int64_t>{1, 1}));
    EXPECT_EQ(argmin(x, -1).to_vector<int64_t>(), (std::vector<int64_t>{0, 0}));
    EXPECT_EQ(argmax(x, 0).to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 1, 0}));
    EXPECT_EQ(argmax(x, 1, true).shape(), (Shape{2, 1}));
    EXPECT_EQ(argmax(x, std::nullopt, true).shape(), (Shape{1, 1}));
    EXPECT_EQ(argmax(x.transpose(0, 1)).item<int64_t>(), 3);  // flat index of the transposed view
    auto [vals, idx] = max(x, 1);
    EXPECT_EQ(vals.to_vector<double>(), (std::vector<double>{3, 5}));
    EXPECT_EQ(vals.dtype(), t);
    EXPECT_EQ(idx.to_vector<int64_t>(), (std::vector<int64_t>{1, 1}));
    auto mn = min(x, 0, true);
    EXPECT_EQ(mn.values.shape(), (Shape{1, 4}));
    EXPECT_EQ(mn.indices.to_vector<int64_t>(), (std::vector<int64_t>{1, 0, 0, 1}));
  }
  // A long row: the parallel scan still returns the first of equal maxima.
  std::vector<double> v(300000, 1.0);
  v[123456] = v[250000] = 4.0;
  EXPECT_EQ(argmax(make(v, {300000}, float32, device())).item<int64_t>(), 123456);
}

// The first extreme element wins, bits and all (PyTorch 1.13's dim reductions):
// the sign of a zero result and of a NaN result is the first such element's.
TEST_P(ReduceTest, FirstExtremeZeroAndNaNAgreeWithIndex) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto sign_of = [](const Tensor& t) {
    std::vector<int> r;
    for (double v : t.to_vector<double>()) r.push_back(std::signbit(v) ? -1 : 1);
    return r;
  };
  for (Dtype t : kFloats) {
    if (skip(t)) continue;
    SCOPED_TRACE(std::string(name(t)));
    const Tensor a = make({0.0, -0.0, 0.0, -0.0, 0.0}, {5}, t, device());
    const Tensor b = make({-0.0, 0.0, -0.0}, {3}, t, device());
    for (const Tensor* x : {&a, &b}) {
      const int want = std::signbit(x->to_vector<double>()[0]) ? -1 : 1;
      for (auto vi : {max(*x, 0), min(*x, 0)}) {
        EXPECT_EQ(vi.indices.item<int64_t>(), 0);
        EXPECT_EQ(sign_of(vi.values), (std::vector<int>{want}));
      }
      EXPECT_EQ(sign_of(amax(*x)), (std::vector<int>{want}));
      EXPECT_EQ(sign_of(amin(*x)), (std::vector<int>{want}));
      EXPECT_EQ(sign_of(max(*x)), (std::vector<int>{want}));
      EXPECT_EQ(sign_of(min(*x, 0, true).values), (std::vector<int>{want}));
    }
    // Rows and columns of [[-0, 0, 0], [0, -0, -1]]; multi-dim in row-major order.
    const Tensor m = make({-0.0, 0.0, 0.0, 0.0, -0.0, -1.0}, {2, 3}, t, device());
    EXPECT_EQ(sign_of(amax(m, {1})), (std::vector<int>{-1, 1}));
    EXPECT_EQ(sign_of(amax(m, {0})), (std::vector<int>{-1, 1, 1}));
    EXPECT_EQ(sign_of(amin(m, {0})), (std::vector<int>{-1, 1, -1}));
    EXPECT_EQ(sign_of(amax(m.transpose(0, 1), {0, 1})), (std::vector<int>{-1}));
    EXPECT_EQ(sign_of(amax(m.view({1, 2, 3}), {0, 2})), (std::vector<int>{-1, 1}));
    // The first NaN wins, its sign kept; value and index agree.
    const Tensor n = make({1.0, -nan, 2.0, nan}, {4}, t, device());
    auto mx = max(n, 0);
    EXPECT_EQ(mx.indices.item<int64_t>(), 1);
    EXPECT_TRUE(std::isnan(mx.values.item<double>()));
    EXPECT_EQ(sign_of(mx.values), (std::vector<int>{-1}));
    EXPECT_EQ(sign_of(amin(n)), (std::vector<int>{-1}));
    // A long row split across threads/work groups: the first zero is deep inside.
    std::vector<double> v(200000, -1.0);
    v[70001] = -0.0;
    v[150000] = 0.0;
    const Tensor l = make(v, {200000}, t, device());
    EXPECT_EQ(sign_of(amax(l)), (std::vector<int>{-1}));
    EXPECT_EQ(sign_of(max(l, 0).values), (std::vector<int>{-1}));
    EXPECT_EQ(max(l, 0).indices.item<int64_t>(), 70001);
  }
}

TEST_P(ReduceTest, AllAnyEveryDtype) {
  for (Dtype t : kSumDtypes) {
    if (skip(t)) continue;
    SCOPED_TRACE(std::string(name(t)));
    Tensor x = make({1, 0, 1, 1, 1, 1, 0, 0, 0}, {3, 3}, t, device());
    EXPECT_FALSE(all(x).item<bool>());
    EXPECT_TRUE(any(x).item<bool>());
    EXPECT_EQ(all(x, {1}).to_vector<bool>(), (std::vector<bool>{false, true, false}));
    EXPECT_EQ(any(x, {-1}, true).to_vector<bool>(), (std::vector<bool>{true, true, false}));
    EXPECT_EQ(any(x, {0}).to_vector<bool>(), (std::vector<bool>{true, true, true}));
  }
}

TEST_P(ReduceTest, HalfSumsAccumulateInFloat32) {
  for (Dtype t : {float16, bfloat16}) {
    SCOPED_TRACE(std::string(name(t)));
    Tensor x = full({4096}, 0.1, t, device());
    const double h = x.to_vector<double>()[0];
    // Sequential accumulation in the half type stalls far below the true sum.
    float naive = 0;
    for (int i = 0; i < 4096; ++i) {
      const float a = naive + static_cast<float>(h);
      naive = t == float16 ? static_cast<float>(float16_t(a)) : static_cast<float>(bfloat16_t(a));
    }
    const double got = sum(x).item<double>(), ref = 4096 * h;
    EXPECT_NEAR(got, ref, unit(t) * ref);
    EXPECT_GT(std::fabs(naive - ref), 20 * unit(t) * ref);
    EXPECT_NEAR(mean(x).item<double>(), h, unit(t) * h);
  }
}

TEST_P(ReduceTest, LargeFloat32SumIsAccurate) {
  const int64_t n = 3000000;
  auto v = random_values(n, float32, -1, 1, 4);
  Tensor x = make(v, {n}, float32, device());
  const double ref = ref_sum(v);
  EXPECT_NEAR(sum(x).item<double>(), ref, sum_depth(n) * unit(float32) * ref_abs_sum(v) + unit(float32) * std::fabs(ref));
}

// ---- determinism: the bits do not depend on the thread count ----

template <class F>
void expect_same_bits_1_vs_2_threads(F&& f, const std::string& what) {
  std::vector<uint8_t> one, two;
  { ThreadCount tc(1); one = bits(f()); }
  { ThreadCount tc(2); two = bits(f()); }
  EXPECT_TRUE(one == two) << what << ": results differ between 1 and 2 threads";
}

TEST_P(ReduceTest, SameBitsOnOneAndTwoThreads) {
  // The thread count is the host's OpenMP one: it splits the work of the cpu
  // and emu kernels. A Vulkan device's kernels never see it, so there this is
  // a run-to-run check, for which a tenth of the sizes do (lavapipe took ~50 s
  // per configuration for the full ones, most of it in softmax).
  const bool host_threads = device().kind().name() != "vulkan";
  const int64_t n = host_threads ? 10000000 : 1000000, rows = host_threads ? 1000 : 100;
  for (Dtype t : {float32, float16}) {
    SCOPED_TRACE(std::string(name(t)));
    Tensor big = make(random_values(n, t, -1, 1, 5), {n}, t, device());
    expect_same_bits_1_vs_2_threads([&] { return sum(big); }, "sum of n");
    expect_same_bits_1_vs_2_threads([&] { return mean(big); }, "mean of n");
    expect_same_bits_1_vs_2_threads([&] { return softmax(big.view({10, n / 10}), 1); }, "softmax of n");
    Tensor m = make(random_values(rows * 1003, t, -1, 1, 6), {rows, 1003}, t, device());
    const std::string ms = shape_str(m.shape());
    for (auto dims : std::vector<Dims>{{0}, {1}, {}}) {
      expect_same_bits_1_vs_2_threads([&] { return sum(m, dims); }, "sum " + ms + " dims " + shape_str(dims));
      expect_same_bits_1_vs_2_threads([&] { return mean(m, dims); }, "mean " + ms + " dims " + shape_str(dims));
    }
    for (int64_t d : {0, 1})
      expect_same_bits_1_vs_2_threads([&] { return softmax(m, d); }, "softmax " + ms + " dim " + std::to_string(d));
  }
}

TEST_P(ReduceTest, SameBitsWhateverTheLayout) {
  // The order is defined on the logical sequence, so a column reduction of a
  // row-major matrix equals the row reduction of its transposed copy.
  for (Dtype t : {float32, float16}) {
    SCOPED_TRACE(std::string(name(t)));
    Tensor m = make(random_values(5000 * 37, t, -1, 1, 7), {5000, 37}, t, device());
    Tensor mt = m.transpose(0, 1).contiguous();
    EXPECT_TRUE(bits(sum(m, {0})) == bits(sum(mt, {1})));                   // columns vs rows
    EXPECT_TRUE(bits(sum(m.transpose(0, 1), {1})) == bits(sum(mt, {1})));   // strided columns
    EXPECT_TRUE(bits(sum(m.transpose(0, 1))) == bits(sum(mt)));             // gathered vs contiguous
    EXPECT_TRUE(bits(var(m, {0})) == bits(var(mt, {1})));
  }
}

TEST_P(ReduceTest, Errors) {
  Tensor x = zeros({2, 3}, float32, device());
  try {
    sum(x, {1, -1});
    ADD_FAILURE() << "expected ShapeError";
  } catch (const ShapeError& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("[sum]", 0), 0u) << m;
    EXPECT_NE(m.find("more than once"), std::string::npos) << m;
  }
  EXPECT_THROW(sum(x, {2}), ShapeError);
  EXPECT_THROW(argmax(x, -3), ShapeError);
  try {
    mean(zeros({2}, int32, device()));
    ADD_FAILURE() << "expected DtypeError";
  } catch (const DtypeError& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("[mean]", 0), 0u) << m;
    EXPECT_NE(m.find("dtype=float32"), std::string::npos) << m;
    EXPECT_NE(m.find("int32[2]"), std::string::npos) << m;
  }
  EXPECT_THROW(mean(x, {}, false, int64), DtypeError);
  EXPECT_THROW(sum(zeros({2}, bool_, device()), {}, false, bool_), DtypeError);
}

CONCORD_INSTANTIATE_DEVICES(ReduceTest);

}  // namespace
}  // namespace concord::test
