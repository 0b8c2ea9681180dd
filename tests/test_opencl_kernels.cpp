// The OpenCL kernels of reductions, scans, matmul, indexing and random numbers
// on opencl:0, against the CPU backend (bitwise where the two promise the same
// bits) and against float64 references computed here with plain loops.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "concord/concord.h"
#include "backend/opencl/runtime.h"
#include "core/backend.h"

namespace concord {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

class OpenClKernels : public ::testing::Test {
 protected:
  void SetUp() override {
    if (detail::ocl::device_count() == 0)
      GTEST_SKIP() << "no OpenCL device: install an OpenCL driver (e.g. pocl-opencl-icd) to run these tests";
  }
  static Device cl() { return Device("opencl:0"); }
  // Dtypes opencl:0 holds under the current profile.
  static std::vector<Dtype> stored(std::initializer_list<Dtype> ts) {
    std::vector<Dtype> out;
    for (Dtype t : ts)
      if (capabilities(cl()).can_store(t)) out.push_back(t);
    return out;
  }
};

const std::initializer_list<Dtype> kFloats = {float16, bfloat16, float32, float64};
const std::initializer_list<Dtype> kInts = {uint8, int8, int16, int32, int64};

double unit(Dtype t) {
  switch (t) {
    case float16: return std::ldexp(1.0, -11);
    case bfloat16: return std::ldexp(1.0, -8);
    case float32: return std::ldexp(1.0, -24);
    default: return std::ldexp(1.0, -53);
  }
}
double acc_unit(Dtype t) { return t == float64 ? unit(float64) : unit(float32); }
double gamma(int64_t n, double u) { return static_cast<double>(n) * u / (1.0 - static_cast<double>(n) * u); }

std::vector<double> values(int64_t n, double lo, double hi, uint32_t seed, bool integers = false) {
  std::mt19937 gen(seed);
  std::vector<double> v(static_cast<size_t>(n));
  if (integers) {
    std::uniform_int_distribution<int64_t> d(static_cast<int64_t>(lo), static_cast<int64_t>(hi));
    for (auto& x : v) x = static_cast<double>(d(gen));
  } else {
    std::uniform_real_distribution<double> d(lo, hi);
    for (auto& x : v) x = d(gen);
  }
  return v;
}

// A CPU tensor of dtype t holding v (rounded to t by the CPU's conversion).
Tensor make(const std::vector<double>& v, Shape shape, Dtype t) { return from_host(v.data(), shape, float64).to(t); }

// The raw bits of every element (row-major), whatever the dtype.
std::vector<uint64_t> raw(const Tensor& t) {
  const Tensor c = t.to(kCPU).contiguous();
  const size_t sz = itemsize(c.dtype());
  std::vector<uint64_t> out(static_cast<size_t>(c.numel()), 0);
  const char* p = static_cast<const char*>(c.raw_data());
  for (size_t i = 0; i < out.size(); ++i) std::memcpy(&out[i], p + i * sz, sz);
  return out;
}

// For each output (row-major over kept dims) the reduced elements, in row-major order.
std::vector<std::vector<double>> groups(const Tensor& x, const std::vector<int64_t>& dims) {
  const std::vector<double> v = x.to_vector<double>();
  const Shape& shape = x.shape();
  const size_t nd = shape.size();
  std::vector<bool> red(nd, dims.empty());
  for (int64_t d : dims) red[static_cast<size_t>(d)] = true;
  int64_t nout = 1;
  for (size_t i = 0; i < nd; ++i)
    if (!red[i]) nout *= shape[i];
  std::vector<std::vector<double>> g(static_cast<size_t>(nout));
  std::vector<int64_t> idx(nd, 0);
  for (size_t lin = 0; lin < v.size(); ++lin) {
    int64_t o = 0;
    for (size_t i = 0; i < nd; ++i)
      if (!red[i]) o = o * shape[i] + idx[i];
    g[static_cast<size_t>(o)].push_back(v[lin]);
    for (size_t i = nd; i-- > 0;) {
      if (++idx[i] < shape[i]) break;
      idx[i] = 0;
    }
  }
  return g;
}

std::string label(const Tensor& x, const std::vector<int64_t>& dims) {
  std::string s = std::string(name(x.dtype())) + shape_str(x.shape()) + " strides " + shape_str(x.strides()) + " dims [";
  for (int64_t d : dims) s += std::to_string(d) + " ";
  return s + "]";
}

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

TEST_F(OpenClKernels, FloatSumsMeansNormsAreCpuBitsReproducibleAndWithinBound) {
  for (Dtype t : stored(kFloats)) {
    uint32_t seed = 1;
    for (const RedCase& c : reduction_cases(-2.0, 3.0)) {
      const Tensor x = c.make(t, seed++);
      const Tensor xd = x.to(cl());
      SCOPED_TRACE(label(x, c.dims));
      const Dims dims(c.dims);
      EXPECT_EQ(raw(sum(xd, dims)), raw(sum(x, dims)));
      EXPECT_EQ(raw(sum(xd, dims)), raw(sum(xd, dims)));  // same bits on every run
      EXPECT_EQ(raw(mean(xd, dims)), raw(mean(x, dims)));
      EXPECT_EQ(raw(norm(xd, 1.0, dims)), raw(norm(x, 1.0, dims)));
      EXPECT_EQ(raw(norm(xd, 2.0, dims)), raw(norm(x, 2.0, dims)));
      EXPECT_EQ(raw(norm(xd, kInf, dims)), raw(norm(x, kInf, dims)));
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

TEST_F(OpenClKernels, ProdMaxMinVarStdAreCpuBits) {
  for (Dtype t : stored(kFloats)) {
    uint32_t seed = 100;
    for (const RedCase& c : reduction_cases(0.8, 1.25)) {
      const Tensor x = c.make(t, seed++);
      const Tensor xd = x.to(cl());
      SCOPED_TRACE(label(x, c.dims));
      const Dims dims(c.dims);
      EXPECT_EQ(raw(prod(xd, dims)), raw(prod(x, dims)));
      EXPECT_EQ(raw(amax(xd, dims)), raw(amax(x, dims)));
      EXPECT_EQ(raw(amin(xd, dims)), raw(amin(x, dims)));
      EXPECT_EQ(raw(var(xd, dims)), raw(var(x, dims)));
      EXPECT_EQ(raw(var(xd, dims, 0)), raw(var(x, dims, 0)));
      EXPECT_EQ(raw(concord::std(xd, dims)), raw(concord::std(x, dims)));
    }
  }
}

TEST_F(OpenClKernels, MaxMinPropagateNaNAndKeepSignedZerosLikeCpu) {
  for (Dtype t : stored(kFloats)) {
    std::vector<double> v = values(6 * 700, -1.0, 1.0, 7);
    for (size_t i = 0; i < v.size(); i += 37) v[i] = (i / 37) % 2 ? 0.0 : -0.0;
    v[5] = kNaN;            // row 0
    v[700 + 699] = kInf;    // row 1
    v[1400 + 3] = -kInf;    // row 2
    v[2100 + 650] = kNaN;   // row 3
    const Tensor x = make(v, {6, 700}, t);
    const Tensor xd = x.to(cl());
    SCOPED_TRACE(name(t));
    for (int64_t d : {0, 1}) {
      EXPECT_EQ(raw(amax(xd, {d})), raw(amax(x, {d})));
      EXPECT_EQ(raw(amin(xd, {d})), raw(amin(x, {d})));
    }
    const std::vector<double> mx = amax(xd, {1}).to_vector<double>();
    EXPECT_TRUE(std::isnan(mx[0]));
    EXPECT_EQ(mx[1], kInf);
    EXPECT_TRUE(std::isnan(mx[3]));
    // Signed zeros: an all-zero row gives the CPU's zero.
    const Tensor z = make({0.0, -0.0, 0.0, -0.0, -0.0}, {5}, t);
    EXPECT_EQ(raw(amax(z.to(cl()), {0})), raw(amax(z, {0})));
    EXPECT_EQ(raw(sum(z.to(cl()), {0})), raw(sum(z, {0})));
  }
}

TEST_F(OpenClKernels, IntegerReductionsAreExact) {
  for (Dtype t : kInts) {
    uint32_t seed = 200;
    const double lo = t == uint8 ? 0 : -100, hi = 100;
    for (Shape s : {Shape{7, 5}, Shape{3, 1000}, Shape{2, 9000}, Shape{2000, 4}}) {
      const Tensor x = make(values(numel(s), lo, hi, seed++, true), s, t);
      for (const Tensor& xv : {x, x.t()}) {
        const Tensor xd = xv.to(cl());
        SCOPED_TRACE(label(xv, {1}));
        EXPECT_EQ(raw(sum(xd, {1})), raw(sum(xv, {1})));
        EXPECT_EQ(raw(prod(xd, {1})), raw(prod(xv, {1})));
        EXPECT_EQ(raw(amax(xd, {1})), raw(amax(xv, {1})));
        EXPECT_EQ(raw(amin(xd, {1})), raw(amin(xv, {1})));
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
TEST_F(OpenClKernels, ManyLongRowsUseTheSameBlockTree) {
  const Shape s{1100, 4200};
  for (Dtype t : {float32, int32}) {
    const Tensor x = make(values(numel(s), -50, 50, 77, t == int32), s, t);
    const Tensor xd = x.to(cl());
    SCOPED_TRACE(name(t));
    EXPECT_EQ(raw(sum(xd, {1})), raw(sum(x, {1})));
    EXPECT_EQ(raw(amax(xd, {1})), raw(amax(x, {1})));
    EXPECT_EQ(raw(argmin(xd, 1)), raw(argmin(x, 1)));
    if (t == float32) EXPECT_EQ(raw(var(xd, {1})), raw(var(x, {1})));
  }
}

TEST_F(OpenClKernels, AllAnyEveryDtype) {
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
    const Tensor xd = x.to(cl());
    SCOPED_TRACE(name(t));
    EXPECT_EQ(all(xd, {1}).to_vector<bool>(), (std::vector<bool>{true, false, false, false}));
    EXPECT_EQ(any(xd, {1}).to_vector<bool>(), (std::vector<bool>{true, true, false, is_floating(t)}));
    EXPECT_EQ(raw(all(xd, {0})), raw(all(x, {0})));
    EXPECT_EQ(raw(any(xd.t(), {0})), raw(any(x.t(), {0})));
    EXPECT_EQ(raw(all(xd)), raw(all(x)));
  }
}

TEST_F(OpenClKernels, LogsumexpSoftmaxLogSoftmaxAgainstFloat64) {
  for (Dtype t : stored(kFloats)) {
    for (Shape s : {Shape{5, 300}, Shape{3000, 3}, Shape{2, 9000}}) {
      const Tensor x = make(values(numel(s), -8.0, 8.0, 300), s, t);
      for (int64_t d : {0, 1}) {
        const Tensor xd = x.to(cl());
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

TEST_F(OpenClKernels, ArgmaxArgminFirstOccurrenceNaNWinsEveryLayout) {
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
        const Tensor xd = xv.to(cl());
        for (int64_t d : {0, 1}) {
          SCOPED_TRACE(label(xv, {d}));
          const Tensor amx = argmax(xd, d), amn = argmin(xd, d);
          EXPECT_EQ(raw(amx), raw(argmax(xv, d)));
          EXPECT_EQ(raw(amn), raw(argmin(xv, d)));
          const auto g = groups(xv, {d});
          const std::vector<int64_t> gx = amx.to_vector<int64_t>(), gn = amn.to_vector<int64_t>();
          for (size_t o = 0; o < g.size(); ++o) {
            size_t bx = 0, bn = 0;
            for (size_t i = 1; i < g[o].size(); ++i) {
              const double c = g[o][i], cx = g[o][bx], cn = g[o][bn];
              if (!std::isnan(cx) && (std::isnan(c) || c > cx)) bx = i;
              if (!std::isnan(cn) && (std::isnan(c) || c < cn)) bn = i;
            }
            EXPECT_EQ(gx[o], static_cast<int64_t>(bx)) << o;
            EXPECT_EQ(gn[o], static_cast<int64_t>(bn)) << o;
          }
        }
        EXPECT_EQ(raw(argmax(xd)), raw(argmax(xv)));  // flat index
      }
    }
  }
}

TEST_F(OpenClKernels, CumsumIsCpuBits) {
  std::vector<Dtype> ts = stored(kFloats);
  for (Dtype t : kInts) ts.push_back(t);
  for (Dtype t : ts) {
    const bool fl = is_floating(t);
    const Tensor x = make(values(37 * 53, fl ? -3 : (t == uint8 ? 0 : -50), fl ? 3 : 50, 500, !fl), {37, 53}, t);
    for (const Tensor& xv : {x, x.t(), x.slice(1, 1, std::nullopt, 3)}) {
      const Tensor xd = xv.to(cl());
      for (int64_t d : {0, 1}) {
        SCOPED_TRACE(label(xv, {d}));
        const Tensor got = cumsum(xd, d);
        EXPECT_EQ(raw(got), raw(cumsum(xv, d)));
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

// ---------------------------------------------------------------- matmul

// out[b] = a[b] @ b[b] in float64 over already-broadcast [B, M, K] and [B, K, N]
// host values, and sum |a||b| for the error bound.
struct MatRef {
  std::vector<double> c, abs;
};
MatRef matmul_ref(const Tensor& a3, const Tensor& b3) {
  const std::vector<double> a = a3.to_vector<double>(), b = b3.to_vector<double>();
  const int64_t B = a3.size(0), M = a3.size(1), K = a3.size(2), N = b3.size(2);
  MatRef r{std::vector<double>(static_cast<size_t>(B * M * N)), std::vector<double>(static_cast<size_t>(B * M * N))};
  for (int64_t q = 0; q < B; ++q)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double s = 0, sa = 0;
        for (int64_t k = 0; k < K; ++k) {
          const double p = a[static_cast<size_t>((q * M + i) * K + k)] * b[static_cast<size_t>((q * K + k) * N + j)];
          s += p, sa += std::fabs(p);
        }
        r.c[static_cast<size_t>((q * M + i) * N + j)] = s;
        r.abs[static_cast<size_t>((q * M + i) * N + j)] = sa;
      }
  return r;
}

struct MmCase {
  std::string what;
  std::function<std::pair<Tensor, Tensor>(Dtype)> make;
};

std::vector<MmCase> matmul_cases(double lo, double hi, bool ints) {
  auto m = [=](Shape s, uint32_t seed) { return [=](Dtype t) { return make(values(numel(s), lo, hi, seed, ints), s, t); }; };
  return {
      {"2-D", [=](Dtype t) { return std::pair{m({5, 7}, 1)(t), m({7, 3}, 2)(t)}; }},
      {"tile edges", [=](Dtype t) { return std::pair{m({67, 129}, 3)(t), m({129, 33}, 4)(t)}; }},
      {"batched", [=](Dtype t) { return std::pair{m({4, 9, 6}, 5)(t), m({4, 6, 5}, 6)(t)}; }},
      {"broadcast batch", [=](Dtype t) { return std::pair{m({3, 1, 8, 5}, 7)(t), m({2, 5, 4}, 8)(t)}; }},
      {"transposed views", [=](Dtype t) { return std::pair{m({7, 5}, 9)(t).t(), m({3, 7}, 10)(t).t()}; }},
      {"strided views", [=](Dtype t) {
         return std::pair{m({10, 14}, 11)(t).slice(1, 0, std::nullopt, 2), m({7, 12}, 12)(t).slice(1, 1, 10)};
       }},
      {"transposed batch", [=](Dtype t) {
         return std::pair{m({3, 6, 9}, 13)(t).transpose(1, 2), m({3, 4, 6}, 14)(t).transpose(1, 2)};
       }},
      {"matrix-vector", [=](Dtype t) { return std::pair{m({6, 9}, 15)(t), m({9}, 16)(t)}; }},
      {"vector-matrix", [=](Dtype t) { return std::pair{m({9}, 17)(t), m({9, 4}, 18)(t)}; }},
      {"empty K", [=](Dtype t) { return std::pair{m({3, 0}, 19)(t), m({0, 4}, 20)(t)}; }},
  };
}

// a, b broadcast to [B, M, K] and [B, K, N] on the CPU (for the reference).
std::pair<Tensor, Tensor> as_batches(const Tensor& a, const Tensor& b) {
  Tensor x = a.ndim() == 1 ? a.unsqueeze(0) : a, y = b.ndim() == 1 ? b.unsqueeze(1) : b;
  Shape ba(x.shape().begin(), x.shape().end() - 2), bb(y.shape().begin(), y.shape().end() - 2);
  const Shape batch = broadcast_shapes(ba, bb);
  Shape sx = batch, sy = batch;
  sx.push_back(x.size(-2)), sx.push_back(x.size(-1));
  sy.push_back(y.size(-2)), sy.push_back(y.size(-1));
  x = x.expand(sx).contiguous(), y = y.expand(sy).contiguous();
  const int64_t nb = numel(batch);
  return {x.reshape({nb, x.size(-2), x.size(-1)}), y.reshape({nb, y.size(-2), y.size(-1)})};
}

void check_float_matmul(Dtype t, const Device& dev) {
  for (const MmCase& c : matmul_cases(-1.0, 1.0, false)) {
    SCOPED_TRACE(std::string(name(t)) + " " + c.what + " on " + dev.str());
    const auto [a, b] = c.make(t);
    const Tensor got = matmul(a.to(dev), b.to(dev));
    ASSERT_EQ(got.dtype(), t);
    const auto [a3, b3] = as_batches(a, b);
    const MatRef r = matmul_ref(a3, b3);
    const std::vector<double> g = got.to_vector<double>();
    ASSERT_EQ(g.size(), r.c.size());
    const int64_t k = a3.size(2);
    for (size_t i = 0; i < g.size(); ++i)
      ASSERT_LE(std::fabs(g[i] - r.c[i]), 2.0 * static_cast<double>(k) * acc_unit(t) * r.abs[i] + unit(t) * std::fabs(r.c[i]))
          << "element " << i << ": " << g[i] << " vs " << r.c[i];
  }
}

TEST_F(OpenClKernels, FloatMatmulWithinErrorBound) {
  for (Dtype t : stored(kFloats)) check_float_matmul(t, cl());
}

TEST_F(OpenClKernels, FloatMatmulWithoutFloat64) {
  ProfileGuard guard(cl(), "no-fp64");
  ASSERT_FALSE(capabilities(cl()).can_store(float64));
  for (Dtype t : {float16, bfloat16, float32}) check_float_matmul(t, cl());
  // The reductions and random numbers compile without float64 too.
  const Tensor x = make(values(3000, -1, 1, 9), {3, 1000}, float32);
  EXPECT_EQ(raw(sum(x.to(cl()), {1})), raw(sum(x, {1})));
  EXPECT_EQ(raw(softmax(x.to(cl()), 1)), raw(softmax(x.to(cl()), 1)));
  EXPECT_EQ(raw(rand({100}, float32, cl(), 5)), raw(rand({100}, float32, kCPU, 5)));
}

TEST_F(OpenClKernels, LargeMatmulWithinErrorBound) {
  const Tensor a = make(values(300 * 257, -1, 1, 30), {300, 257}, float32);
  const Tensor b = make(values(257 * 310, -1, 1, 31), {257, 310}, float32);
  const Tensor got = matmul(a.to(cl()), b.to(cl()));
  const MatRef r = matmul_ref(a.unsqueeze(0), b.unsqueeze(0));
  const std::vector<double> g = got.to_vector<double>();
  for (size_t i = 0; i < g.size(); ++i)
    ASSERT_LE(std::fabs(g[i] - r.c[i]), 2.0 * 257 * unit(float32) * r.abs[i] + unit(float32) * std::fabs(r.c[i])) << i;
}

TEST_F(OpenClKernels, IntegerMatmulIsExactWithWrapAround) {
  for (Dtype t : kInts) {
    for (const MmCase& c : matmul_cases(t == uint8 ? 0 : -60, 60, true)) {
      SCOPED_TRACE(std::string(name(t)) + " " + c.what);
      const auto [a, b] = c.make(t);
      const Tensor got = matmul(a.to(cl()), b.to(cl()));
      EXPECT_EQ(raw(got), raw(matmul(a, b)));
      // Reference: the exact sum, wrapped to t's width.
      const auto [a3, b3] = as_batches(a, b);
      const MatRef r = matmul_ref(a3, b3);
      const std::vector<uint64_t> g = raw(got);
      const size_t bytes = itemsize(t);
      for (size_t i = 0; i < g.size(); ++i) {
        const uint64_t want = static_cast<uint64_t>(static_cast<int64_t>(r.c[i]));
        const uint64_t mask = bytes == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * bytes)) - 1;
        ASSERT_EQ(g[i], want & mask) << i;
      }
    }
  }
}

// ---------------------------------------------------------------- indexing

std::vector<Dtype> every_dtype() {
  std::vector<Dtype> ts = {bool_};
  for (Dtype t : kInts) ts.push_back(t);
  for (Dtype t : kFloats) ts.push_back(t);
  return ts;
}

TEST_F(OpenClKernels, IndexSelectGatherTriEveryDtypeAndLayout) {
  for (Dtype t : every_dtype()) {
    if (!capabilities(cl()).can_store(t)) continue;
    SCOPED_TRACE(name(t));
    const Tensor x = make(values(6 * 7 * 8, -50, 50, 600, true), {6, 7, 8}, t);
    const Tensor xs[] = {x, x.permute({2, 0, 1}), x.slice(2, 1, std::nullopt, 2), x.select(1, 2).unsqueeze(1).expand({6, 4, 8})};
    const Tensor idx64 = from_vector<int64_t>({3, 0, 3, 1, 2}, {5});
    const Tensor idx32 = from_vector<int32_t>({1, 0, 2, 2, 0, 1, 3, 0}, {8}).slice(0, 0, std::nullopt, 2);  // strided
    for (const Tensor& xv : xs) {
      const Tensor xd = xv.to(cl());
      for (int64_t d = 0; d < xv.ndim(); ++d) {
        SCOPED_TRACE(label(xv, {d}));
        for (const Tensor& idx : {idx64, idx32}) {
          EXPECT_EQ(raw(index_select(xd, d, idx.to(cl()))), raw(index_select(xv, d, idx)));
        }
        // gather: an index of x's shape with size 3 along d (values in range of d).
        Shape is = xv.shape();
        is[static_cast<size_t>(d)] = 3;
        const Tensor gi = make(values(numel(is), 0, 3, 700 + static_cast<uint32_t>(d), true), is, int64);
        const Tensor got = gather(xd, d, gi.to(cl()));
        EXPECT_EQ(raw(got), raw(gather(xv, d, gi)));
        // gather with a transposed index of a smaller shape.
        Shape ts = xv.shape();
        for (auto& s : ts) s = std::min<int64_t>(s, 3);
        std::swap(ts[0], ts[1]);
        const Tensor gt = make(values(numel(ts), 0, 2, 800, true), ts, int64).transpose(0, 1);
        EXPECT_EQ(raw(gather(xd, d, gt.to(cl()))), raw(gather(xv, d, gt)));
      }
      for (int64_t diag : {-100, -2, 0, 3, 100}) {
        EXPECT_EQ(raw(tril(xd, diag)), raw(tril(xv, diag)));
        EXPECT_EQ(raw(triu(xd, diag)), raw(triu(xv, diag)));
      }
    }
  }
}

TEST_F(OpenClKernels, TriAgainstReference) {
  const Tensor x = make(values(2 * 5 * 7, 1, 9, 900, true), {2, 5, 7}, float32);
  for (int64_t diag : {-2, 0, 1}) {
    const std::vector<double> v = x.to_vector<double>();
    const std::vector<double> lo = tril(x.to(cl()), diag).to_vector<double>();
    const std::vector<double> up = triu(x.to(cl()).transpose(1, 2), diag).to_vector<double>();
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t i = 0; i < 5; ++i)
        for (int64_t j = 0; j < 7; ++j) {
          const double e = v[static_cast<size_t>((b * 5 + i) * 7 + j)];
          EXPECT_EQ(lo[static_cast<size_t>((b * 5 + i) * 7 + j)], j - i <= diag ? e : 0.0);
          // up is [2, 7, 5]: element (j, i) of the transpose is e.
          EXPECT_EQ(up[static_cast<size_t>((b * 7 + j) * 5 + i)], i - j >= diag ? e : 0.0);
        }
  }
}

TEST_F(OpenClKernels, OutOfRangeIndicesRaiseShapeErrorAndLeaveInputs) {
  const Tensor x = make(values(12, 0, 9, 1, true), {3, 4}, float32).to(cl());
  const std::vector<double> before = x.to_vector<double>();
  for (const std::vector<int64_t>& bad : {std::vector<int64_t>{0, 4, 1}, std::vector<int64_t>{-1}}) {
    const Tensor idx = from_vector<int64_t>(bad, {static_cast<int64_t>(bad.size())}).to(cl());
    try {
      index_select(x, 1, idx);
      FAIL() << "expected ShapeError";
    } catch (const ShapeError& e) {
      const std::string msg = e.what();
      EXPECT_EQ(msg.rfind("[index_select]", 0), 0u) << msg;
      EXPECT_NE(msg.find("index " + std::to_string(bad.size() == 3 ? 4 : -1)), std::string::npos) << msg;
    }
  }
  const Tensor gi = from_vector<int64_t>({0, 1, 5, 2, 0, 0}, {3, 2}).to(cl());
  try {
    gather(x, 1, gi);
    FAIL() << "expected ShapeError";
  } catch (const ShapeError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("[gather]", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("index 5"), std::string::npos) << e.what();
  }
  // Nothing to write, but the index is still checked.
  const Tensor empty_rows = make({}, {0, 4}, float32).to(cl());
  EXPECT_THROW(index_select(empty_rows, 1, from_vector<int64_t>({7}, {1}).to(cl())), ShapeError);
  EXPECT_EQ(x.to_vector<double>(), before);
}

// ---------------------------------------------------------------- random

TEST_F(OpenClKernels, RandomNumbersAreCpuBits) {
  for (uint64_t seed : {uint64_t{0}, uint64_t{42}, (uint64_t{1} << 40) + 7}) {
    for (Dtype t : stored(kFloats)) {
      SCOPED_TRACE(std::string(name(t)) + " seed " + std::to_string(seed));
      EXPECT_EQ(raw(rand({1001}, t, cl(), seed)), raw(rand({1001}, t, kCPU, seed)));
      EXPECT_EQ(raw(randn({1001}, t, cl(), seed)), raw(randn({1001}, t, kCPU, seed)));
      EXPECT_EQ(raw(randint(-5, 100, {257}, t, cl(), seed)), raw(randint(-5, 100, {257}, t, kCPU, seed)));
    }
    for (Dtype t : kInts) {
      SCOPED_TRACE(std::string(name(t)) + " seed " + std::to_string(seed));
      const int64_t lo = t == uint8 ? 3 : -100;
      EXPECT_EQ(raw(randint(lo, 120, {1001}, t, cl(), seed)), raw(randint(lo, 120, {1001}, t, kCPU, seed)));
    }
    EXPECT_EQ(raw(randint(0, 2, {300}, bool_, cl(), seed)), raw(randint(0, 2, {300}, bool_, kCPU, seed)));
    const int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
    EXPECT_EQ(raw(randint(lo, hi, {500}, int64, cl(), seed)), raw(randint(lo, hi, {500}, int64, kCPU, seed)));
  }
}

TEST_F(OpenClKernels, RandomValuesLieInTheirRanges) {
  const std::vector<double> u = rand({4096}, float16, cl(), 3).to_vector<double>();
  for (double v : u) ASSERT_TRUE(v >= 0.0 && v < 1.0) << v;
  const std::vector<double> r = randint(-3, 4, {4096}, int8, cl(), 3).to_vector<double>();
  for (double v : r) ASSERT_TRUE(v >= -3 && v < 4) << v;
  const std::vector<double> n = randn({20000}, float32, cl(), 3).to_vector<double>();
  double m = 0, s2 = 0;
  for (double v : n) m += v, s2 += v * v;
  m /= static_cast<double>(n.size());
  EXPECT_NEAR(m, 0.0, 0.05);
  EXPECT_NEAR(s2 / static_cast<double>(n.size()) - m * m, 1.0, 0.05);
}

}  // namespace
}  // namespace concord
