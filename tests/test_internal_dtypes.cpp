// No internal step creates a dtype the device lacks when the caller asked for
// one it has: the public API, run with float32 inputs under the strict dtype
// policy, raises nothing and counts no downcast, on every device config. And
// copy_ into an existing tensor converts the source to the destination's
// dtype (the caller's choice) without a downcast.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "support/devices.h"

namespace concord {
namespace {

using test::DeviceTest;

uint64_t downcasts(const Report& r) {
  uint64_t n = 0;
  for (const auto& e : r.entries)
    if (e.path == Path::downcast) n += e.count;
  return n;
}

std::string downcast_list(const Report& r) {
  std::string s;
  for (const auto& e : r.entries)
    if (e.path == Path::downcast) s += e.op + " " + e.device + " " + std::string(name(e.dtype)) + "; ";
  return s;
}

Tensor f32(std::vector<float> v, Shape s, const Device& d) { return from_host(v.data(), s, float32, d); }

class InternalDtypes : public DeviceTest {
 protected:
  // Runs fn under the strict dtype policy; then under the default policy, where
  // it must count no downcast either.
  template <class F>
  void no_downcast(const char* what, F fn) {
    {
      DtypePolicyGuard g(DtypePolicy::strict);
      EXPECT_NO_THROW(fn()) << what << " on " << GetParam().label;
    }
    reset_report();
    DtypePolicyGuard g(DtypePolicy::downcast);
    EXPECT_NO_THROW(fn()) << what;
    const Report r = report();
    EXPECT_EQ(downcasts(r), 0u) << what << " on " << GetParam().label << ": " << downcast_list(r);
  }
};

TEST_P(InternalDtypes, NnLinearAndSpectralNorm) {
  const Device d = device();
  no_downcast("nn::Linear", [&] {
    nn::Linear lin(4, 3, true, float32, d, 5);
    EXPECT_EQ(lin.weight().dtype(), float32);
    EXPECT_EQ(lin.bias().device(), d);
    lin(ones({2, 4}, float32, d)).to_vector<float>();
  });
  no_downcast("nn::SpectralNorm", [&] {
    nn::SpectralNorm sn(f32({1, 2, 3, 4, 5, 6}, {2, 3}, d), 1, 0, 1e-12, 3);
    EXPECT_EQ(sn.u().dtype(), float32);
    sn().to_vector<float>();
  });
}

TEST_P(InternalDtypes, NnLinearSameValuesEverywhere) {
  // Rounded once on the host: the same bits as on the CPU.
  DtypePolicyGuard g(DtypePolicy::strict);
  nn::Linear here(5, 2, true, float32, device(), 11), cpu(5, 2, true, float32, kCPU, 11);
  EXPECT_EQ(here.weight().to_vector<float>(), cpu.weight().to_vector<float>());
  EXPECT_EQ(here.bias().to_vector<float>(), cpu.bias().to_vector<float>());
}

TEST_P(InternalDtypes, CreationAndRandom) {
  const Device d = device();
  no_downcast("creation", [&] {
    zeros({3}, float32, d);
    full({2}, 0.25, float32, d);
    eye(3, std::nullopt, float32, d);
    linspace(0, 1, 5, float32, d);
    arange(0, 5, 1, float32, d);
    // Fractional arguments with an integer dtype: truncated doubles, never float64 on the device.
    EXPECT_EQ(arange(0.5, 4.0, 1.5, int32, d).to_vector<int32_t>(), (std::vector<int32_t>{0, 2, 3}));
    std::vector<float> v{1, 2};
    from_host(v.data(), {2}, float32, d);
  });
  no_downcast("random", [&] {
    rand({4}, float32, d, 1);
    randn({4}, float32, d, 1);
    randint(0, 10, {4}, int32, d, 1);
  });
}

TEST_P(InternalDtypes, Metrics) {
  const Device d = device();
  no_downcast("metrics", [&] {
    auto acc = metrics::Accuracy::binary();
    acc.update(f32({0.2f, 0.7f, 0.9f}, {3}, d), ones({3}, int64, d));
    acc.compute();
    auto cm = metrics::ConfusionMatrix::multiclass(2, metrics::Normalize::target);
    cm.update(f32({0.2f, 0.8f, 0.6f, 0.4f}, {2, 2}, d), zeros({2}, int64, d));
    cm.compute();
    auto f1 = metrics::F1::multilabel(2);
    f1.update(f32({0.2f, 0.8f, 0.6f, 0.4f}, {2, 2}, d), ones({2, 2}, int32, d));
    f1.compute();
  });
}

TEST_P(InternalDtypes, Linalg) {
  const Device d = device();
  const Tensor a = f32({4, 1, 0, 1, 3, 1, 0, 1, 2}, {3, 3}, d);
  const Tensor b = f32({1, 2, 3}, {3}, d);
  no_downcast("linalg", [&] {
    linalg::solve(a, b);
    linalg::solve_ex(a, b);
    linalg::inv(a);
    linalg::det(a);
    linalg::slogdet(a);
    linalg::cholesky(a);
    auto [lu, piv] = linalg::lu_factor(a);
    linalg::lu_solve(lu, piv, b.reshape({3, 1}));
    linalg::solve_triangular(a, b.reshape({3, 1}), true);
    linalg::vector_norm(b, 3.0);
    linalg::matrix_norm(a);
    linalg::matrix_norm(a, 2.0);
    linalg::matrix_norm(a, "nuc");
  });
}

TEST_P(InternalDtypes, ReductionsAmpAndTesting) {
  const Device d = device();
  const Tensor x = f32({1, 2, 3, 4, 5, 6}, {2, 3}, d);
  no_downcast("reductions", [&] {
    sum(x);
    mean(x);
    std(x);
    var(x, {1});
    norm(x);
    softmax(x, -1);
    matmul(x, x.t());
  });
  no_downcast("autocast", [&] {
    autocast ac(d.kind());
    matmul(x, x.t());
    softmax(matmul(x, x.t()), -1);
    nn::Linear(3, 2, true, float32, d, 1)(x);
  });
  no_downcast("testing", [&] {
    testing::assert_close(x, x);
    EXPECT_FALSE(testing::compare(x, add(x, 1.0)).ok);
    testing::assert_close(x, x.to(kCPU));
  });
}

CONCORD_INSTANTIATE_DEVICES(InternalDtypes);

// ---- copy_ into an existing tensor (the destination's dtype is the caller's) ----

class CopyIntoDevice : public DeviceTest {};

TEST_P(CopyIntoDevice, Float64HostSourceIsConvertedOnTheHost) {
  const std::vector<double> v{0.1, 1e40, -3.0};
  const Tensor host = from_host(v.data(), {3}, float64, kCPU);
  std::vector<std::string> warnings;
  auto prev = set_warning_handler([&](const std::string& m) { warnings.push_back(m); });
  reset_warnings();
  reset_report();
  Tensor dst = zeros({3}, float32, device());
  {
    DtypePolicyGuard g(DtypePolicy::strict);
    EXPECT_NO_THROW(dst.copy_(host));
  }
  dst.copy_(host);
  set_warning_handler(prev);
  EXPECT_TRUE(warnings.empty()) << warnings.front();
  EXPECT_EQ(downcasts(report()), 0u) << downcast_list(report());
  EXPECT_EQ(dst.dtype(), float32);
  // One rounding float64 -> float32 (1e40 overflows to inf), the CPU's bits.
  const std::vector<float> expect{static_cast<float>(0.1), INFINITY, -3.0f};
  EXPECT_EQ(dst.to_vector<float>(), expect);
  // Broadcast source, converted then expanded on the destination.
  const double one = 2.5;
  Tensor dst2 = zeros({2, 3}, float32, device());
  DtypePolicyGuard g(DtypePolicy::strict);
  dst2.copy_(from_host(&one, {}, float64, kCPU));
  EXPECT_EQ(dst2.to_vector<float>(), std::vector<float>(6, 2.5f));
}

CONCORD_INSTANTIATE_DEVICES(CopyIntoDevice);

}  // namespace
}  // namespace concord
