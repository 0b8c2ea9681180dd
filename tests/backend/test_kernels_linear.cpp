// Device kernels of matmul, indexing (index_select, gather, tril/triu) and
// random numbers, through the public ops, on every device whose memory is
// device memory: within the matmul error bound of a float64 reference (exact
// with wrap-around for integers), the CPU's bits for indexing and random
// numbers.
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

class KernelsLinear : public DeviceKernels {};

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

TEST_P(KernelsLinear, FloatMatmulWithinErrorBound) {
  for (Dtype t : stored(kFloats)) check_float_matmul(t, device());
}

TEST_P(KernelsLinear, FloatMatmulWithoutFloat64) {
  ProfileGuard guard(device(), "no-fp64");
  ASSERT_FALSE(capabilities(device()).can_store(float64));
  for (Dtype t : {float16, bfloat16, float32}) check_float_matmul(t, device());
  // The reductions and random numbers compile without float64 too.
  const Tensor x = make(values(3000, -1, 1, 9), {3, 1000}, float32);
  EXPECT_EQ(raw_bits(sum(x.to(device()), {1})), raw_bits(sum(x, {1})));
  EXPECT_EQ(raw_bits(softmax(x.to(device()), 1)), raw_bits(softmax(x.to(device()), 1)));
  EXPECT_EQ(raw_bits(rand({100}, float32, device(), 5)), raw_bits(rand({100}, float32, kCPU, 5)));
}

TEST_P(KernelsLinear, LargeMatmulWithinErrorBound) {
  const Tensor a = make(values(300 * 257, -1, 1, 30), {300, 257}, float32);
  const Tensor b = make(values(257 * 310, -1, 1, 31), {257, 310}, float32);
  const Tensor got = matmul(a.to(device()), b.to(device()));
  const MatRef r = matmul_ref(a.unsqueeze(0), b.unsqueeze(0));
  const std::vector<double> g = got.to_vector<double>();
  for (size_t i = 0; i < g.size(); ++i)
    ASSERT_LE(std::fabs(g[i] - r.c[i]), 2.0 * 257 * unit(float32) * r.abs[i] + unit(float32) * std::fabs(r.c[i])) << i;
}

TEST_P(KernelsLinear, IntegerMatmulIsExactWithWrapAround) {
  for (Dtype t : kInts) {
    for (const MmCase& c : matmul_cases(t == uint8 ? 0 : -60, 60, true)) {
      SCOPED_TRACE(std::string(name(t)) + " " + c.what);
      const auto [a, b] = c.make(t);
      const Tensor got = matmul(a.to(device()), b.to(device()));
      EXPECT_EQ(raw_bits(got), raw_bits(matmul(a, b)));
      // Reference: the exact sum, wrapped to t's width.
      const auto [a3, b3] = as_batches(a, b);
      const MatRef r = matmul_ref(a3, b3);
      const std::vector<uint64_t> g = raw_bits(got);
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

TEST_P(KernelsLinear, IndexSelectGatherTriEveryDtypeAndLayout) {
  for (Dtype t : every_dtype()) {
    if (!capabilities(device()).can_store(t)) continue;
    SCOPED_TRACE(name(t));
    const Tensor x = make(values(6 * 7 * 8, -50, 50, 600, true), {6, 7, 8}, t);
    const Tensor xs[] = {x, x.permute({2, 0, 1}), x.slice(2, 1, std::nullopt, 2), x.select(1, 2).unsqueeze(1).expand({6, 4, 8})};
    const Tensor idx64 = from_vector<int64_t>({3, 0, 3, 1, 2}, {5});
    const Tensor idx32 = from_vector<int32_t>({1, 0, 2, 2, 0, 1, 3, 0}, {8}).slice(0, 0, std::nullopt, 2);  // strided
    for (const Tensor& xv : xs) {
      const Tensor xd = xv.to(device());
      for (int64_t d = 0; d < xv.ndim(); ++d) {
        SCOPED_TRACE(label(xv, {d}));
        for (const Tensor& idx : {idx64, idx32}) {
          EXPECT_EQ(raw_bits(index_select(xd, d, idx.to(device()))), raw_bits(index_select(xv, d, idx)));
        }
        // gather: an index of x's shape with size 3 along d (values in range of d).
        Shape is = xv.shape();
        is[static_cast<size_t>(d)] = 3;
        const Tensor gi = make(values(numel(is), 0, 3, 700 + static_cast<uint32_t>(d), true), is, int64);
        const Tensor got = gather(xd, d, gi.to(device()));
        EXPECT_EQ(raw_bits(got), raw_bits(gather(xv, d, gi)));
        // gather with a transposed index of a smaller shape.
        Shape ts = xv.shape();
        for (auto& s : ts) s = std::min<int64_t>(s, 3);
        std::swap(ts[0], ts[1]);
        const Tensor gt = make(values(numel(ts), 0, 2, 800, true), ts, int64).transpose(0, 1);
        EXPECT_EQ(raw_bits(gather(xd, d, gt.to(device()))), raw_bits(gather(xv, d, gt)));
      }
      for (int64_t diag : {-100, -2, 0, 3, 100}) {
        EXPECT_EQ(raw_bits(tril(xd, diag)), raw_bits(tril(xv, diag)));
        EXPECT_EQ(raw_bits(triu(xd, diag)), raw_bits(triu(xv, diag)));
      }
    }
  }
}

TEST_P(KernelsLinear, TriAgainstReference) {
  const Tensor x = make(values(2 * 5 * 7, 1, 9, 900, true), {2, 5, 7}, float32);
  for (int64_t diag : {-2, 0, 1}) {
    const std::vector<double> v = x.to_vector<double>();
    const std::vector<double> lo = tril(x.to(device()), diag).to_vector<double>();
    const std::vector<double> up = triu(x.to(device()).transpose(1, 2), diag).to_vector<double>();
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

TEST_P(KernelsLinear, OutOfRangeIndicesRaiseShapeErrorAndLeaveInputs) {
  const Tensor x = make(values(12, 0, 9, 1, true), {3, 4}, float32).to(device());
  const std::vector<double> before = x.to_vector<double>();
  for (const std::vector<int64_t>& bad : {std::vector<int64_t>{0, 4, 1}, std::vector<int64_t>{-1}}) {
    const Tensor idx = from_vector<int64_t>(bad, {static_cast<int64_t>(bad.size())}).to(device());
    try {
      index_select(x, 1, idx);
      FAIL() << "expected ShapeError";
    } catch (const ShapeError& e) {
      const std::string msg = e.what();
      EXPECT_EQ(msg.rfind("[index_select]", 0), 0u) << msg;
      EXPECT_NE(msg.find("index " + std::to_string(bad.size() == 3 ? 4 : -1)), std::string::npos) << msg;
    }
  }
  const Tensor gi = from_vector<int64_t>({0, 1, 5, 2, 0, 0}, {3, 2}).to(device());
  try {
    gather(x, 1, gi);
    FAIL() << "expected ShapeError";
  } catch (const ShapeError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("[gather]", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("index 5"), std::string::npos) << e.what();
  }
  // Nothing to write, but the index is still checked.
  const Tensor empty_rows = make({}, {0, 4}, float32).to(device());
  EXPECT_THROW(index_select(empty_rows, 1, from_vector<int64_t>({7}, {1}).to(device())), ShapeError);
  EXPECT_EQ(x.to_vector<double>(), before);
}

// ---------------------------------------------------------------- random

TEST_P(KernelsLinear, RandomNumbersAreCpuBits) {
  for (uint64_t seed : {uint64_t{0}, uint64_t{42}, (uint64_t{1} << 40) + 7}) {
    for (Dtype t : stored(kFloats)) {
      SCOPED_TRACE(std::string(name(t)) + " seed " + std::to_string(seed));
      EXPECT_EQ(raw_bits(rand({1001}, t, device(), seed)), raw_bits(rand({1001}, t, kCPU, seed)));
      EXPECT_EQ(raw_bits(randn({1001}, t, device(), seed)), raw_bits(randn({1001}, t, kCPU, seed)));
      EXPECT_EQ(raw_bits(randint(-5, 100, {257}, t, device(), seed)), raw_bits(randint(-5, 100, {257}, t, kCPU, seed)));
    }
    for (Dtype t : kInts) {
      SCOPED_TRACE(std::string(name(t)) + " seed " + std::to_string(seed));
      const int64_t lo = t == uint8 ? 3 : -100;
      EXPECT_EQ(raw_bits(randint(lo, 120, {1001}, t, device(), seed)), raw_bits(randint(lo, 120, {1001}, t, kCPU, seed)));
    }
    EXPECT_EQ(raw_bits(randint(0, 2, {300}, bool_, device(), seed)), raw_bits(randint(0, 2, {300}, bool_, kCPU, seed)));
    const int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
    EXPECT_EQ(raw_bits(randint(lo, hi, {500}, int64, device(), seed)), raw_bits(randint(lo, hi, {500}, int64, kCPU, seed)));
  }
}

TEST_P(KernelsLinear, RandomValuesLieInTheirRanges) {
  const std::vector<double> u = rand({4096}, float16, device(), 3).to_vector<double>();
  for (double v : u) ASSERT_TRUE(v >= 0.0 && v < 1.0) << v;
  const std::vector<double> r = randint(-3, 4, {4096}, int8, device(), 3).to_vector<double>();
  for (double v : r) ASSERT_TRUE(v >= -3 && v < 4) << v;
  const std::vector<double> n = randn({20000}, float32, device(), 3).to_vector<double>();
  double m = 0, s2 = 0;
  for (double v : n) m += v, s2 += v * v;
  m /= static_cast<double>(n.size());
  EXPECT_NEAR(m, 0.0, 0.05);
  EXPECT_NEAR(s2 / static_cast<double>(n.size()) - m * m, 1.0, 0.05);
}

CONCORD_INSTANTIATE_DEVICE_KERNELS(KernelsLinear);

}  // namespace
}  // namespace concord::test
