// Device kernels of reductions, argmax/argmin, softmax and cumsum, through
// the public ops, on every device whose memory is device memory: the CPU's
// bits where the two promise the same summation order, and float64
// references computed here with plain loops. Shapes reach every kernel
// layout (one invocation per output; blocks of lanes and a tree over one or
// more blocks), on transposed, strided, broadcast and permuted views.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "backend/kernel_checks.h"

namespace concord::test {
namespace {

class KernelsReduce : public DeviceKernels {};

// Reduction inputs: shapes chosen to reach every kernel layout (one work-item
// per output; 16-lane groups per block and a tree over 1 or more blocks), and
// views that are transposed, strided, broadcast (stride 0) and permuted.
struct RedCase {
  std::function<Tensor(Dtype, uint32_t)> make;
  std::vector<int64_t> dims;
};

std::vector<RedCase> reduction_cases(double lo, double hi) {
  auto plain = [lo, hi](Shape s) {
    return [s, lo, hi](Dtype t, uint32_t seed) { return make(values(numel(s), lo, hi, seed), s, t); };
  };
  std::vector<RedCase> cs = {
      {plain({7, 5}), {1}},          {plain({3, 1000}), {1}},    {plain({2, 9000}), {1}},
      {plain({5000, 3}), {0}},       {plain({1500, 40}), {0}},   {plain({2000, 4}), {1}},
      {plain({64, 33, 17}), {0, 2}}, {plain({20000}), {0}},      {plain({6, 7, 8}), {0, 1, 2}},
      {plain({1, 300}), {0}},
  };
  cs.push_back({[lo, hi](Dtype t, uint32_t seed) { return make(values(12000, lo, hi, seed), {40, 300}, t).t(); }, {0}});
  cs.push_back({[lo, hi](Dtype t, uint32_t seed) { return make(values(12000, lo, hi, seed), {40, 300}, t).t(); }, {1}});
  cs.push_back({[lo, hi](Dtype t, uint32_t seed) {
                  return make(values(50 * 601, lo, hi, seed), {50, 601}, t).slice(1, 0, std::nullopt, 2);
                }, {1}});
  cs.push_back({[lo, hi](Dtype t, uint32_t seed) {
                  return make(values(5000, lo, hi, seed), {1, 5000}, t).expand({3, 5000});
                }, {0}});
  cs.push_back({[lo, hi](Dtype t, uint32_t seed) {
                  return make(values(5000, lo, hi, seed), {1, 5000}, t).expand({3, 5000});
                }, {1}});
  cs.push_back({[lo, hi](Dtype t, uint32_t seed) {
                  return make(values(720, lo, hi, seed), {8, 9, 10}, t).permute({2, 0, 1});
                }, {0, 2}});
  return cs;
}

TEST_P(KernelsReduce, FloatSumsMeansNormsAreCpuBitsReproducibleAndWithinBound) {
  for (Dtype t : stored(kFloats)) {
    uint32_t seed = 1;
    for (const RedCase& c : reduction_cases(-2.0, 3.0)) {
      const Tensor x = c.make(t, seed++);
      const Tensor xd = x.to(device());
      SCOPED_TRACE(label(x, c.dims));
      const Dims dims(c.dims);
      EXPECT_EQ(raw_bits(sum(xd, dims)), raw_bits(sum(x, dims)));
      EXPECT_EQ(raw_bits(sum(xd, dims)), raw_bits(sum(xd, dims)));  // same bits on every run
      EXPECT_EQ(raw_bits(mean(xd, dims)), raw_bits(mean(x, dims)));
      EXPECT_EQ(raw_bits(norm(xd, 1.0, dims)), raw_bits(norm(x, 1.0, dims)));
      EXPECT_EQ(raw_bits(norm(xd, 2.0, dims)), raw_bits(norm(x, 2.0, dims)));
      EXPECT_EQ(raw_bits(norm(xd, kInf, dims)), raw_bits(norm(x, kInf, dims)));
      // The error model: |s - sum| <= gamma_n * sum |x| (+ the final rounding to t).
      const auto g = groups(x, c.dims);
      const std::vector<double> got = sum(xd, dims).to_vector<double>();
      ASSERT_EQ(got.size(), g.size());
      for (size_t o = 0; o < g.size(); ++o) {
        double s = 0, a = 0;
        for (double v : g[o]) s += v, a += std::fabs(v);
        const double bound = gamma(static_cast<int64_t>(g[o].size()), acc_unit(t)) * a + unit(t) * std::fabs(s);
        EXPECT_LE(std::fabs(got[o] - s), bound) << "output " << o;
      }
    }
  }
}

TEST_P(KernelsReduce, ProdMaxMinVarStdAreCpuBits) {
  for (Dtype t : stored(kFloats)) {
    uint32_t seed = 100;
    for (const RedCase& c : reduction_cases(0.8, 1.25)) {
      const Tensor x = c.make(t, seed++);
      const Tensor xd = x.to(device());
      SCOPED_TRACE(label(x, c.dims));
      const Dims dims(c.dims);
      // var/std of one element with correction 1 is 0/0: NaN bits are the device's own.
      const Device& d = device();
      EXPECT_EQ(raw_bits(prod(xd, dims), d), raw_bits(prod(x, dims), d));
      EXPECT_EQ(raw_bits(amax(xd, dims), d), raw_bits(amax(x, dims), d));
      EXPECT_EQ(raw_bits(amin(xd, dims), d), raw_bits(amin(x, dims), d));
      EXPECT_EQ(raw_bits(var(xd, dims), d), raw_bits(var(x, dims), d));
      EXPECT_EQ(raw_bits(var(xd, dims, 0), d), raw_bits(var(x, dims, 0), d));
      EXPECT_EQ(raw_bits(concord::std(xd, dims), d), raw_bits(concord::std(x, dims), d));
    }
  }
}

TEST_P(KernelsReduce, MaxMinPropagateNaNAndKeepSignedZerosLikeCpu) {
  for (Dtype t : stored(kFloats)) {
    std::vector<double> v = values(6 * 700, -1.0, 1.0, 7);
    for (size_t i = 0; i < v.size(); i += 37) v[i] = (i / 37) % 2 ? 0.0 : -0.0;
    v[5] = kNaN;            // row 0
    v[700 + 699] = kInf;    // row 1
    v[1400 + 3] = -kInf;    // row 2
    v[2100 + 650] = kNaN;   // row 3
    const Tensor x = make(v, {6, 700}, t);
    const Tensor xd = x.to(device());
    SCOPED_TRACE(name(t));
    for (int64_t d : {0, 1}) {
      EXPECT_EQ(raw_bits(amax(xd, {d})), raw_bits(amax(x, {d})));
      EXPECT_EQ(raw_bits(amin(xd, {d})), raw_bits(amin(x, {d})));
    }
    const std::vector<double> mx = amax(xd, {1}).to_vector<double>();
    EXPECT_TRUE(std::isnan(mx[0]));
    EXPECT_EQ(mx[1], kInf);
    EXPECT_TRUE(std::isnan(mx[3]));
    // Signed zeros: an all-zero row gives the CPU's zero.
    const Tensor z = make({0.0, -0.0, 0.0, -0.0, -0.0}, {5}, t);
    EXPECT_EQ(raw_bits(amax(z.to(device()), {0})), raw_bits(amax(z, {0})));
    EXPECT_EQ(raw_bits(sum(z.to(device()), {0})), raw_bits(sum(z, {0})));
  }
}

TEST_P(KernelsReduce, IntegerReductionsAreExact) {
  for (Dtype t : kInts) {
    uint32_t seed = 200;
    const double lo = t == uint8 ? 0 : -100, hi = 100;
    for (Shape s : {Shape{7, 5}, Shape{3, 1000}, Shape{2, 9000}, Shape{2000, 4}}) {
      const Tensor x = make(values(numel(s), lo, hi, seed++, true), s, t);
      for (const Tensor& xv : {x, x.t()}) {
        const Tensor xd = xv.to(device());
        SCOPED_TRACE(label(xv, {1}));
        EXPECT_EQ(raw_bits(sum(xd, {1})), raw_bits(sum(xv, {1})));
        EXPECT_EQ(raw_bits(prod(xd, {1})), raw_bits(prod(xv, {1})));
        EXPECT_EQ(raw_bits(amax(xd, {1})), raw_bits(amax(xv, {1})));
        EXPECT_EQ(raw_bits(amin(xd, {1})), raw_bits(amin(xv, {1})));
        const auto g = groups(xv, {1});
        const std::vector<int64_t> s_got = sum(xd, {1}).to_vector<int64_t>();
        const std::vector<int64_t> p_got = prod(xd, {1}).to_vector<int64_t>();
        for (size_t o = 0; o < g.size(); ++o) {
          int64_t ref = 0;
          uint64_t pr = 1;
          for (double v : g[o]) ref += static_cast<int64_t>(v), pr *= static_cast<uint64_t>(static_cast<int64_t>(v));
          EXPECT_EQ(s_got[o], ref);
          EXPECT_EQ(p_got[o], static_cast<int64_t>(pr));  // wraps modulo 2^64
        }
      }
    }
  }
}

// Many outputs, each longer than one block: the one-work-item-per-output
// layout evaluates the tree over blocks itself.
TEST_P(KernelsReduce, ManyLongRowsUseTheSameBlockTree) {
  const Shape s{1100, 4200};
  for (Dtype t : {float32, int32}) {
    const Tensor x = make(values(numel(s), -50, 50, 77, t == int32), s, t);
    const Tensor xd = x.to(device());
    SCOPED_TRACE(name(t));
    EXPECT_EQ(raw_bits(sum(xd, {1})), raw_bits(sum(x, {1})));
    EXPECT_EQ(raw_bits(amax(xd, {1})), raw_bits(amax(x, {1})));
    EXPECT_EQ(raw_bits(argmin(xd, 1)), raw_bits(argmin(x, 1)));
    if (t == float32) EXPECT_EQ(raw_bits(var(xd, {1})), raw_bits(var(x, {1})));
  }
}

TEST_P(KernelsReduce, AllAnyEveryDtype) {
  std::vector<Dtype> ts = stored(kFloats);
  ts.push_back(bool_);
  for (Dtype t : kInts) ts.push_back(t);
  for (Dtype t : ts) {
    // Rows: all nonzero; one zero; all zero; a NaN among zeros (NaN counts as true).
    std::vector<double> v(4 * 600, 1.0);
    v[600 + 311] = 0.0;
    for (int i = 0; i < 600; ++i) v[1200 + i] = 0.0, v[1800 + i] = 0.0;
    if (is_floating(t)) v[1800 + 17] = kNaN, v[5] = -0.5;
    const Tensor x = make(v, {4, 600}, t);
    const Tensor xd = x.to(device());
    SCOPED_TRACE(name(t));
    EXPECT_EQ(all(xd, {1}).to_vector<bool>(), (std::vector<bool>{true, false, false, false}));
    EXPECT_EQ(any(xd, {1}).to_vector<bool>(), (std::vector<bool>{true, true, false, is_floating(t)}));
    EXPECT_EQ(raw_bits(all(xd, {0})), raw_bits(all(x, {0})));
    EXPECT_EQ(raw_bits(any(xd.t(), {0})), raw_bits(any(x.t(), {0})));
    EXPECT_EQ(raw_bits(all(xd)), raw_bits(all(x)));
  }
}

TEST_P(KernelsReduce, LogsumexpSoftmaxLogSoftmaxAgainstFloat64) {
  for (Dtype t : stored(kFloats)) {
    for (Shape s : {Shape{5, 300}, Shape{3000, 3}, Shape{2, 9000}}) {
      const Tensor x = make(values(numel(s), -8.0, 8.0, 300), s, t);
      for (int64_t d : {0, 1}) {
        const Tensor xd = x.to(device());
        SCOPED_TRACE(label(x, {d}));
        const double u = acc_unit(t);
        const auto g = groups(x, {d});
        // logsumexp: a few ulps of exp/log in the accumulation dtype, then the rounding to t.
        const std::vector<double> lse = logsumexp(xd, {d}).to_vector<double>();
        for (size_t o = 0; o < g.size(); ++o) {
          double m = -kInf, acc = 0;
          for (double v : g[o]) m = std::max(m, v);
          for (double v : g[o]) acc += std::exp(v - m);
          const double ref = m + std::log(acc);
          EXPECT_NEAR(lse[o], ref, unit(t) * std::fabs(ref) + 64 * u * (std::fabs(m) + 1)) << o;
        }
        // softmax / log_softmax element by element (x's layout).
        const std::vector<double> xv = x.to_vector<double>();
        const std::vector<double> sm = softmax(xd, d).to_vector<double>();
        const std::vector<double> lsm = log_softmax(xd, d).to_vector<double>();
        const int64_t R = s[0], C = s[1];
        for (int64_t i = 0; i < R; ++i)
          for (int64_t j = 0; j < C; ++j) {
            const auto& row = g[static_cast<size_t>(d == 1 ? i : j)];
            double m = -kInf, acc = 0;
            for (double v : row) m = std::max(m, v);
            for (double v : row) acc += std::exp(v - m);
            const double e = xv[static_cast<size_t>(i * C + j)] - m;
            const double ref_sm = std::exp(e) / acc, ref_lsm = e - std::log(acc);
            const size_t k = static_cast<size_t>(i * C + j);
            const double tiny = t == float16 ? std::ldexp(1.0, -25) : 0.0;  // float16 subnormal spacing / 2
            ASSERT_NEAR(sm[k], ref_sm, 2 * unit(t) * ref_sm + 256 * u * ref_sm + tiny) << i << "," << j;
            ASSERT_NEAR(lsm[k], ref_lsm, 2 * unit(t) * std::fabs(ref_lsm) + 64 * u * (std::fabs(e) + 1)) << i << "," << j;
          }
      }
    }
  }
}

// argmax/argmin of x along d against a plain scan: the first NaN, else the
// first extreme element.
void expect_first_extremes(const Tensor& x, int64_t d, const Tensor& amx, const Tensor& amn) {
  const auto g = groups(x, {d});
  const std::vector<int64_t> gx = amx.to_vector<int64_t>(), gn = amn.to_vector<int64_t>();
  for (size_t o = 0; o < g.size(); ++o) {
    size_t bx = 0, bn = 0;
    for (size_t i = 1; i < g[o].size(); ++i) {
      const double c = g[o][i], cx = g[o][bx], cn = g[o][bn];
      if (!std::isnan(cx) && (std::isnan(c) || c > cx)) bx = i;
      if (!std::isnan(cn) && (std::isnan(c) || c < cn)) bn = i;
    }
    EXPECT_EQ(gx[o], static_cast<int64_t>(bx)) << "argmax, output " << o;
    EXPECT_EQ(gn[o], static_cast<int64_t>(bn)) << "argmin, output " << o;
  }
}

TEST_P(KernelsReduce, ArgmaxArgminFirstOccurrenceNaNWinsEveryLayout) {
  std::vector<Dtype> ts = stored(kFloats);
  for (Dtype t : kInts) ts.push_back(t);
  for (Dtype t : ts) {
    const bool fl = is_floating(t);
    const double lo = t == uint8 ? 0 : -20, hi = 20;  // few distinct values: many ties
    for (Shape s : {Shape{300, 7}, Shape{3, 1000}, Shape{1000, 3}, Shape{40, 50}}) {
      std::vector<double> v = values(numel(s), lo, hi, 400, true);
      if (fl) v[static_cast<size_t>(numel(s) / 2)] = kNaN, v[static_cast<size_t>(numel(s) / 2 + 3)] = kNaN;
      const Tensor x = make(v, s, t);
      for (const Tensor& xv : {x, x.t()}) {
        const Tensor xd = xv.to(device());
        for (int64_t d : {0, 1}) {
          SCOPED_TRACE(label(xv, {d}));
          const Tensor amx = argmax(xd, d), amn = argmin(xd, d);
          EXPECT_EQ(raw_bits(amx), raw_bits(argmax(xv, d)));
          EXPECT_EQ(raw_bits(amn), raw_bits(argmin(xv, d)));
          expect_first_extremes(xv, d, amx, amn);
        }
        EXPECT_EQ(raw_bits(argmax(xd)), raw_bits(argmax(xv)));  // flat index
      }
    }
  }
}

// Few outputs of many elements (the OpenCL kernels split them into chunks
// of 16384 and merge the chunk winners): ties across chunk borders, a NaN
// in a late chunk, strided and transposed layouts; against a plain scan.
TEST_P(KernelsReduce, ArgmaxArgminOfLongRowsAcrossChunks) {
  for (Dtype t : {float32, int32}) {
    const int64_t R = 3, C = 50001;
    std::vector<double> v = values(R * C, -3, 3, 410, true);  // seven values: ties everywhere
    for (int64_t j = 0; j < C; j += 9999) v[static_cast<size_t>(j)] = 3;      // the max, first at column 0 of row 0
    v[static_cast<size_t>(C + 40000)] = 7;                                   // row 1: a unique max in chunk 3
    if (t == float32) v[static_cast<size_t>(2 * C + 33000)] = kNaN;          // row 2: a NaN in chunk 3
    const Tensor x = make(v, {R, C}, t);
    for (const Tensor& xv : {x, x.t().contiguous().t(), x.slice(1, 1, std::nullopt, 2)}) {
      const Tensor xd = xv.to(device());
      SCOPED_TRACE(label(xv, {1}));
      expect_first_extremes(xv, 1, argmax(xd, 1), argmin(xd, 1));
      EXPECT_EQ(raw_bits(argmax(xd)), raw_bits(argmax(xv)));  // flat: one output of 150003 elements
      EXPECT_EQ(raw_bits(argmin(xd)), raw_bits(argmin(xv)));
    }
  }
}

TEST_P(KernelsReduce, CumsumIsCpuBits) {
  std::vector<Dtype> ts = stored(kFloats);
  for (Dtype t : kInts) ts.push_back(t);
  for (Dtype t : ts) {
    const bool fl = is_floating(t);
    const Tensor x = make(values(37 * 53, fl ? -3 : (t == uint8 ? 0 : -50), fl ? 3 : 50, 500, !fl), {37, 53}, t);
    for (const Tensor& xv : {x, x.t(), x.slice(1, 1, std::nullopt, 3)}) {
      const Tensor xd = xv.to(device());
      for (int64_t d : {0, 1}) {
        SCOPED_TRACE(label(xv, {d}));
        const Tensor got = cumsum(xd, d);
        EXPECT_EQ(raw_bits(got), raw_bits(cumsum(xv, d)));
        if (!fl) {  // exact: the running sum in int64 (the result dtype is int64)
          const std::vector<double> v = xv.to_vector<double>();
          const std::vector<int64_t> g = got.to_vector<int64_t>();
          const int64_t R = xv.size(0), C = xv.size(1);
          for (int64_t i = 0; i < R; ++i)
            for (int64_t j = 0; j < C; ++j) {
              int64_t s = 0;
              for (int64_t k = 0; k <= (d == 0 ? i : j); ++k)
                s += static_cast<int64_t>(v[static_cast<size_t>(d == 0 ? k * C + j : i * C + k)]);
              ASSERT_EQ(g[static_cast<size_t>(i * C + j)], s) << i << "," << j;
            }
        }
      }
    }
  }
}

CONCORD_INSTANTIATE_DEVICE_KERNELS(KernelsReduce);

}  // namespace
}  // namespace concord::test
