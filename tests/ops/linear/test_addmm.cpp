// addmm, baddbmm and linear against a float64 reference computed here with
// plain loops, on every device configuration and dtype.
//
// Floats: |C - ref| <= (2k + 4)·u·(|alpha|·|A||B| + |beta|·|input|) with u of the
// accumulation (float32 for float16/bfloat16/float32, float64 for float64), plus
// one final rounding to the output dtype for float16/bfloat16. Integers: exact.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "concord/concord.h"
#include "support/devices.h"

namespace concord {
inline void PrintTo(Dtype t, std::ostream* os) { *os << name(t); }

namespace {

using test::DeviceConfig;

double round_to(Dtype t, double x) {
  switch (t) {
    case Dtype::float16: return static_cast<float>(float16_t(static_cast<float>(x)));
    case Dtype::bfloat16: return static_cast<float>(bfloat16_t(static_cast<float>(x)));
    case Dtype::float32: return static_cast<float>(x);
    default: return x;
  }
}

double unit_roundoff(Dtype t) {
  switch (t) {
    case Dtype::float16: return std::ldexp(1.0, -11);
    case Dtype::bfloat16: return std::ldexp(1.0, -8);
    case Dtype::float32: return std::ldexp(1.0, -24);
    default: return std::ldexp(1.0, -53);
  }
}

// Values exact in t: uniform in [-1, 1] for floats, integers in [-8, 8] otherwise.
std::vector<double> values(int64_t n, Dtype t, uint32_t seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> uf(-1.0, 1.0);
  std::uniform_int_distribution<int> ui(-8, 8);
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) x = is_floating(t) ? round_to(t, uf(g)) : ui(g);
  return v;
}

// Element (b, i, j) of a host tensor broadcast to [B, M, N] (shape right-aligned).
double at3(const std::vector<double>& v, const Shape& s, int64_t b, int64_t i, int64_t j) {
  const int64_t idx[3] = {b, i, j};
  const size_t nd = s.size();
  int64_t off = 0, stride = 1;
  for (size_t d = 0; d < nd; ++d) {
    const size_t k = nd - 1 - d;
    const int64_t id = s[k] == 1 ? 0 : idx[2 - d];
    off += id * stride;
    stride *= s[k];
  }
  return v[static_cast<size_t>(off)];
}

struct Ref {
  std::vector<double> val, mag;  // beta·input + alpha·a·b and its magnitude bound
  int64_t k = 0;
};

// a [B, M, K] (or [M, K] when B is absent), b likewise, input any shape broadcasting to [B, M, N].
Ref reference(const Tensor& input, const Tensor& a, const Tensor& b, double beta, double alpha) {
  const bool batched = a.ndim() == 3;
  const int64_t B = batched ? a.size(0) : 1, M = a.size(-2), K = a.size(-1), N = b.size(-1);
  const std::vector<double> va = a.to_vector<double>(), vb = b.to_vector<double>();
  std::vector<double> vi;
  if (input.defined()) vi = input.to_vector<double>();
  Ref r;
  r.k = K;
  for (int64_t bi = 0; bi < B; ++bi)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double s = 0, m = 0;
        for (int64_t k = 0; k < K; ++k) {
          const double p = va[static_cast<size_t>((bi * M + i) * K + k)] * vb[static_cast<size_t>((bi * K + k) * N + j)];
          s += p;
          m += std::fabs(p);
        }
        const double c = input.defined() && beta != 0 ? at3(vi, input.shape(), bi, i, j) : 0.0;
        r.val.push_back(alpha * s + (beta != 0 ? beta * c : 0.0));
        r.mag.push_back(std::fabs(alpha) * m + std::fabs(beta * c));
      }
  return r;
}

void expect_matches(const Tensor& got, const Ref& r, Dtype t) {
  EXPECT_EQ(got.dtype(), t);
  const std::vector<double> g = got.to_vector<double>();
  ASSERT_EQ(g.size(), r.val.size());
  int failures = 0;
  for (size_t i = 0; i < g.size() && failures < 5; ++i) {
    if (!is_floating(t)) {
      if (g[i] != r.val[i]) { ++failures; ADD_FAILURE() << "element " << i << ": got " << g[i] << ", want " << r.val[i]; }
      continue;
    }
    const double ua = t == Dtype::float64 ? unit_roundoff(float64) : unit_roundoff(float32);
    const double acc = (2.0 * static_cast<double>(r.k) + 4.0) * ua * r.mag[i];
    const double bound = is_half(t) ? acc + unit_roundoff(t) * (std::fabs(r.val[i]) + acc) : acc;
    if (!(std::fabs(g[i] - r.val[i]) <= bound)) {
      ++failures;
      ADD_FAILURE() << "element " << i << ": got " << g[i] << ", want " << r.val[i] << " within " << bound;
    }
  }
}

// ---- fixture over (device config, dtype) ----
using Param = std::tuple<DeviceConfig, Dtype>;

class AddmmTest : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override {
    scope_ = std::make_unique<test::ConfigScope>(std::get<0>(GetParam()));
    if (!capabilities(device()).can_store(dtype()))
      GTEST_SKIP() << name(dtype()) << " cannot be stored on " << std::get<0>(GetParam()).label;
  }
  void TearDown() override { scope_.reset(); }
  const Device& device() const { return std::get<0>(GetParam()).device; }
  Dtype dtype() const { return std::get<1>(GetParam()); }
  Tensor make(Shape shape, uint32_t seed) const {
    std::vector<double> v = values(numel(shape), dtype(), seed);
    return from_host(v.data(), shape, float64, kCPU).to(dtype()).to(device());
  }
  // (beta, alpha) pairs to try: fractional ones only for floats.
  std::vector<std::pair<Scalar, Scalar>> scales() const {
    if (is_floating(dtype())) return {{1, 1}, {0.5, -2.0}, {0, 1}, {-1, 0.25}};
    return {{1, 1}, {3, -2}, {0, 1}};
  }
  std::unique_ptr<test::ConfigScope> scope_;
};

TEST_P(AddmmTest, AddmmBroadcastsInput) {
  const int64_t shapes[][3] = {{1, 1, 1}, {3, 4, 5}, {37, 53, 29}, {1, 7, 9}, {9, 7, 1}, {70, 130, 90}};
  uint32_t seed = 1;
  for (const auto& s : shapes) {
    const int64_t M = s[0], K = s[1], N = s[2];
    Tensor a = make({M, K}, seed++), b = make({K, N}, seed++);
    for (const Shape& is : {Shape{M, N}, Shape{N}, Shape{M, 1}, Shape{}, Shape{1, N}}) {
      Tensor in = make(is, seed++);
      for (const auto& [beta, alpha] : scales()) {
        SCOPED_TRACE(shape_str(in.shape()) + " + " + shape_str(a.shape()) + " x " + shape_str(b.shape()) +
                     " beta " + beta.str() + " alpha " + alpha.str());
        Tensor c = addmm(in, a, b, beta, alpha);
        ASSERT_EQ(c.shape(), (Shape{M, N}));
        EXPECT_EQ(c.device(), device());
        expect_matches(c, reference(in, a, b, beta.to_double(), alpha.to_double()), dtype());
      }
    }
  }
}

TEST_P(AddmmTest, AddmmTransposedAndStridedOperands) {
  const int64_t M = 23, K = 31, N = 17;
  Tensor at = make({K, M}, 11).t(), bt = make({N, K}, 12).t();
  Tensor as = make({M, 2 * K}, 13).slice(1, 0, std::nullopt, 2);
  Tensor in = make({N, M}, 14).t();  // a non-contiguous input
  expect_matches(addmm(in, at, bt), reference(in, at, bt, 1, 1), dtype());
  expect_matches(addmm(in, as, bt, 2, 1), reference(in, as, bt, 2, 1), dtype());
  // A matrix-vector shaped product (gemv path): N = 1 and M = 1.
  Tensor v = make({K, 1}, 15), r = make({1, K}, 16);
  Tensor i1 = make({M, 1}, 17), i2 = make({1, N}, 18);
  expect_matches(addmm(i1, at, v), reference(i1, at, v, 1, 1), dtype());
  expect_matches(addmm(i2, r, bt), reference(i2, r, bt, 1, 1), dtype());
}

TEST_P(AddmmTest, BaddbmmBroadcastsInput) {
  const int64_t B = 4, M = 5, K = 6, N = 3;
  Tensor a = make({B, M, K}, 21), b = make({B, K, N}, 22);
  uint32_t seed = 30;
  for (const Shape& is : {Shape{B, M, N}, Shape{M, N}, Shape{N}, Shape{B, 1, N}, Shape{1}}) {
    Tensor in = make(is, seed++);
    for (const auto& [beta, alpha] : scales()) {
      SCOPED_TRACE(shape_str(is) + " beta " + beta.str() + " alpha " + alpha.str());
      Tensor c = baddbmm(in, a, b, beta, alpha);
      ASSERT_EQ(c.shape(), (Shape{B, M, N}));
      expect_matches(c, reference(in, a, b, beta.to_double(), alpha.to_double()), dtype());
    }
  }
  // Transposed batches and a larger product.
  Tensor at = make({3, 40, 33}, 41).transpose(1, 2), bt = make({3, 50, 40}, 42).transpose(1, 2);
  Tensor in = make({33, 50}, 43);
  expect_matches(baddbmm(in, at, bt), reference(in, at, bt, 1, 1), dtype());
}

TEST_P(AddmmTest, LinearAnyLeadingDims) {
  if (!is_floating(dtype()) && dtype() != int32 && dtype() != int64) GTEST_SKIP();
  const int64_t in_f = 19, out_f = 7;
  Tensor w = make({out_f, in_f}, 51), bias = make({out_f}, 52);
  // x [M, in]: one product; x [in]: a vector; x [2, 3, in]: leading dims flattened.
  for (const Shape& xs : {Shape{11, in_f}, Shape{in_f}, Shape{2, 3, in_f}, Shape{1, in_f}}) {
    SCOPED_TRACE(shape_str(xs));
    Tensor x = make(xs, 53);
    Tensor x2 = x.reshape({x.numel() / in_f, in_f});
    Shape want(xs.begin(), xs.end() - 1);
    want.push_back(out_f);
    for (const Tensor& b : {bias, Tensor()}) {
      Tensor y = linear(x, w, b);
      ASSERT_EQ(y.shape(), want);
      expect_matches(y, reference(b, x2, w.t(), 1, 1), dtype());
    }
  }
  // A non-contiguous x (a transposed view).
  Tensor xt = make({in_f, 6}, 54).t();
  expect_matches(linear(xt, w, bias), reference(bias, xt, w.t(), 1, 1), dtype());
}

TEST_P(AddmmTest, EmptySumGivesBetaTimesInput) {
  Tensor a = make({3, 0}, 61), b = make({0, 4}, 62), in = make({3, 4}, 63);
  const Scalar beta = is_floating(dtype()) ? Scalar(0.5) : Scalar(3);
  expect_matches(addmm(in, a, b, beta, 2), reference(in, a, b, beta.to_double(), 2), dtype());
  expect_matches(addmm(in, a, b, 0, 2), reference(in, a, b, 0, 2), dtype());
  if (dtype() == float32 || dtype() == float16 || dtype() == bfloat16) {
    // beta not exact in the dtype: a float32 product rounded once, the CPU's bits on every device.
    const Tensor got = addmm(in, a, b, 0.1, 2);
    const Tensor cpu = addmm(in.to(kCPU), a.to(kCPU), b.to(kCPU), 0.1, 2);
    EXPECT_EQ(got.to_vector<double>(), cpu.to_vector<double>());
  }
  Tensor e = addmm(make({0, 4}, 64), make({0, 5}, 65), make({5, 4}, 66));
  EXPECT_EQ(e.shape(), (Shape{0, 4}));
  Tensor w = make({4, 0}, 67);
  expect_matches(linear(make({2, 0}, 68), w, in.select(0, 0)), reference(in.select(0, 0), a.narrow(0, 0, 2), w.t(), 1, 1),
                 dtype());
}

std::string param_name(const ::testing::TestParamInfo<Param>& info) {
  std::string s = std::get<0>(info.param).label + "_" + std::string(name(std::get<1>(info.param)));
  for (char& c : s)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(DevicesDtypes, AddmmTest,
                         ::testing::Combine(::testing::ValuesIn(test::test_devices()),
                                            ::testing::Values(float16, bfloat16, float32, float64, int32, int64)),
                         param_name);

// ---- device-only tests ----
class AddmmDeviceTest : public test::DeviceTest {};

Tensor on(const std::vector<double>& v, Shape s, Dtype t, const Device& d) {
  return from_host(v.data(), s, float64, kCPU).to(t).to(d);
}

TEST_P(AddmmDeviceTest, BetaZeroIgnoresNanAndInfInInput) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  for (Dtype t : {float32, bfloat16, float16}) {
    SCOPED_TRACE(std::string(name(t)));
    Tensor a = on({1, 2, 3, 4}, {2, 2}, t, device()), b = on({1, 0, 0, 1}, {2, 2}, t, device());
    Tensor in = on({nan, inf, -inf, nan}, {2, 2}, t, device());
    EXPECT_EQ(addmm(in, a, b, 0).to_vector<double>(), (std::vector<double>{1, 2, 3, 4}));
    EXPECT_EQ(baddbmm(in, a.unsqueeze(0), b.unsqueeze(0), 0, 2).to_vector<double>(), (std::vector<double>{2, 4, 6, 8}));
    // beta != 0 propagates them, as IEEE arithmetic does.
    const std::vector<double> r = addmm(in, a, b, 1).to_vector<double>();
    EXPECT_TRUE(std::isnan(r[0]));
    EXPECT_EQ(r[1], inf);
  }
}

TEST_P(AddmmDeviceTest, HalfDtypesRoundOnce) {
  // 1 + (2^-8 + 2^-16) in bfloat16: rounding the product first gives 2^-8, and
  // 1 + 2^-8 is a tie that rounds to 1; one rounding of the whole sum gives 1 + 2^-7.
  Tensor a = on({std::ldexp(1.0, -8), std::ldexp(1.0, -16)}, {1, 2}, bfloat16, device());
  Tensor b = on({1, 1}, {2, 1}, bfloat16, device());
  Tensor in = on({1}, {1}, bfloat16, device());
  EXPECT_EQ(addmm(in, a, b).item<double>(), 1.0 + std::ldexp(1.0, -7));
  EXPECT_EQ(linear(a, b.t(), in).item<double>(), 1.0 + std::ldexp(1.0, -7));
}

TEST_P(AddmmDeviceTest, ErrorsNameTheOpShapesAndFix) {
  const Device d = device();
  Tensor a = zeros({2, 3}, float32, d), b = zeros({3, 4}, float32, d), in = zeros({2, 4}, float32, d);
  auto expect_msg = [](auto f, const char* what) {
    try {
      f();
      ADD_FAILURE() << "no error for " << what;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  EXPECT_THROW(addmm(in, a, a), ShapeError);
  expect_msg([&] { addmm(in, a, a); }, "[addmm] shapes [2, 3] and [2, 3] cannot be multiplied");
  EXPECT_THROW(addmm(zeros({3, 4}, float32, d), a, b), ShapeError);
  expect_msg([&] { addmm(zeros({3, 4}, float32, d), a, b); }, "[addmm] input float32[3, 4] on");
  EXPECT_THROW(addmm(in, a.unsqueeze(0), b), ShapeError);
  EXPECT_THROW(addmm(zeros({2, 4}, float16, d), a, b), DtypeError);
  expect_msg([&] { addmm(zeros({2, 4}, float16, d), a, b); }, ".to(concord::float32)");
  EXPECT_THROW(addmm(in, a, zeros({3, 4}, int32, d)), DtypeError);
  EXPECT_THROW(addmm(zeros({2, 4}, int32, d), zeros({2, 3}, int32, d), zeros({3, 4}, int32, d), 0.5), ValueError);
  EXPECT_THROW(addmm(Tensor(), a, b), ValueError);
  EXPECT_THROW(addmm(zeros({2, 4}, bool_, d), zeros({2, 3}, bool_, d), zeros({3, 4}, bool_, d)), DtypeError);
  EXPECT_THROW(baddbmm(in, a, b), ShapeError);
  expect_msg([&] { baddbmm(zeros({2, 2, 4}, float32, d), zeros({2, 2, 3}, float32, d), zeros({3, 3, 4}, float32, d)); },
             "[baddbmm] batch sizes differ");
  EXPECT_THROW(linear(a, zeros({4, 2}, float32, d)), ShapeError);
  expect_msg([&] { linear(a, zeros({4, 2}, float32, d)); }, "[linear] input float32[2, 3]");
  EXPECT_THROW(linear(a, zeros({4, 3}, float32, d), zeros({3}, float32, d)), ShapeError);
  EXPECT_THROW(linear(a, zeros({4, 3}, float64, kCPU)), Error);
  if (!d.is_cpu()) EXPECT_THROW(addmm(zeros({2, 4}, float32, kCPU), a, b), DeviceError);
  // Inputs are untouched by a failed op.
  Tensor x = ones({2, 3}, float32, d);
  EXPECT_THROW(addmm(x, x, x), ShapeError);
  for (double v : x.to_vector<double>()) EXPECT_EQ(v, 1.0);
}

TEST_P(AddmmDeviceTest, NoOpProfileFallsBackToTheCpu) {
  if (device().is_cpu()) GTEST_SKIP() << "the cpu is the fallback target itself";
  ProfileGuard g(device(), "no-op:addmm,no-op:baddbmm,no-op:linear");
  reset_report();
  Tensor a = on(values(12, float32, 91), {3, 4}, float32, device());
  Tensor b = on(values(20, float32, 92), {4, 5}, float32, device());
  Tensor in = on(values(5, float32, 93), {5}, float32, device());
  Tensor c = addmm(in, a, b);
  EXPECT_EQ(c.device(), device());
  expect_matches(c, reference(in, a, b, 1, 1), float32);
  Tensor y = linear(a, b.t(), in);
  expect_matches(y, reference(in, a, b, 1, 1), float32);
  Tensor z = baddbmm(in, a.unsqueeze(0), b.unsqueeze(0));
  expect_matches(z, reference(in, a.unsqueeze(0), b.unsqueeze(0), 1, 1), float32);
  const Report r = report();
  EXPECT_EQ(r.count("addmm", device().str(), float32, Path::fallback), 1u) << r;
  EXPECT_EQ(r.count("linear", device().str(), float32, Path::fallback), 1u) << r;
  EXPECT_EQ(r.count("baddbmm", device().str(), float32, Path::fallback), 1u) << r;
  FallbackPolicyGuard strict(FallbackPolicy::strict);
  EXPECT_THROW(addmm(in, a, b), NotImplementedError);
}

TEST_P(AddmmDeviceTest, CountedUnderTheirOwnNames) {
  reset_report();
  Tensor a = on(values(6, float32, 95), {2, 3}, float32, device());
  linear(a, a, on({1, 2}, {2}, float32, device()));
  const Report r = report();
  // One entry, on the path the device announces (a device without a native
  // GEMM runs the whole fused op through the counted CPU fallback).
  const Path path = capabilities(device()).has_kernel(OpId::linear, float32) ? Path::native : Path::fallback;
  EXPECT_EQ(r.count("linear", path), 1u) << r;
  for (Path p : {Path::native, Path::fallback}) {
    EXPECT_EQ(r.count("matmul", p), 0u) << r;
    EXPECT_EQ(r.count("add", p), 0u) << r;
  }
}

CONCORD_INSTANTIATE_DEVICES(AddmmDeviceTest);

}  // namespace
}  // namespace concord
