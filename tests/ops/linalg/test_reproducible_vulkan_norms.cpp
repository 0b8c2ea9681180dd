// det, vector norms (ord 0, 1, 2, ±inf) and matrix norms (fro, ±1, ±inf) on
// every device, the Vulkan devices above all (shaders/norms.comp:
// the CPU's float64 loops on bits, in both modes). det: bits equal to the
// CPU's for batches of random matrices with subnormal, huge, ±0, ±inf and NaN
// entries, for triangular matrices (their own LU) whose diagonal products
// land in the subnormals, overflow or make NaN from 0 · inf, and for the
// halves (factored in float32 by the front end). Where the device claims det
// in the mode, each case also checks that it ran there (no fallback in the
// report) and, on Vulkan, that no separate NaN pass followed the kernel. The
// norms likewise, over rows rich in specials, rows longer than a chunk of
// the shader (256 terms), odd sizes and strided views; general p still
// falls back (host only).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "concord/concord.h"
#include "concord/linalg.h"
#include "concord/op_table.h"
#include "support/bits.h"
#include "support/devices.h"
#include "support/native_run.h"

using namespace concord;
using concord::test::first_difference;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

using concord::test::Lcg;

// [count, n, n] in float64, cast to t: each row scaled by 1, a tiny, a huge
// or an edge-of-normal factor; with `specials`, about 1 entry in 30 an edge
// value (±0, subnormals, the largest finite, ±inf, NaN).
Tensor matrix(int64_t count, int64_t n, Dtype t, uint64_t seed, bool specials) {
  Lcg g{seed * 0x9e3779b97f4a7c15ull + 5};
  const bool f64 = t == float64;
  const double tiny = f64 ? 1e-160 : 1e-20, huge = f64 ? 1e150 : 1e18, edge = f64 ? 4e-307 : 5e-37;
  using F = std::numeric_limits<float>;
  using D = std::numeric_limits<double>;
  const double edges[] = {0.0, -0.0, f64 ? D::denorm_min() : double(F::denorm_min()), f64 ? -3e-310 : -2.9e-42,
                          f64 ? D::max() : double(F::max()), D::infinity(), -D::infinity(), D::quiet_NaN()};
  std::vector<double> v(static_cast<size_t>(count * n * n));
  for (int64_t r = 0; r < count * n; ++r) {
    const uint32_t k = g.next() % 8;
    const double scale = k == 0 ? tiny : k == 1 ? huge : k == 2 ? edge : 1.0;
    for (int64_t j = 0; j < n; ++j) {
      double& x = v[static_cast<size_t>(r * n + j)];
      x = g.uniform() * scale;
      if (specials && g.next() % 30 == 0) x = edges[g.next() % 8];
    }
  }
  return from_vector(v, Shape{count, n, n}).to(t);
}

// Upper triangular [count, n, n] (the LU is the matrix itself, no swaps)
// with the given diagonals, ones above it.
Tensor upper(const std::vector<std::vector<double>>& diags, Dtype t) {
  const int64_t count = static_cast<int64_t>(diags.size()), n = static_cast<int64_t>(diags[0].size());
  std::vector<double> v(static_cast<size_t>(count * n * n), 0.0);
  for (int64_t b = 0; b < count; ++b)
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = i; j < n; ++j)
        v[static_cast<size_t>((b * n + i) * n + j)] = i == j ? diags[static_cast<size_t>(b)][static_cast<size_t>(i)] : 1.0;
  return from_vector(v, Shape{count, n, n}).to(t);
}

// Outside the mode a NaN's payload is not specified: every NaN made the
// canonical one (on the CPU) before the bits are compared.
Tensor nan_canonical(const Tensor& x) {
  const Tensor c = x.to("cpu");
  return where(isnan(c), full_like(c, Scalar(std::nan(""))), c);
}
std::string nan_blind_difference(const Tensor& a, const Tensor& b) {
  return first_difference(nan_canonical(a), nan_canonical(b));
}

class ReproducibleVulkanNorms : public concord::test::DeviceTest {
 protected:
  bool is_vulkan() const { return device().str().rfind("vulkan", 0) == 0; }
  bool is_opencl() const { return device().str().rfind("opencl", 0) == 0; }
  bool claims(Dtype t, OpId op = OpId::det) const {
    return capabilities(device()).has_reproducible_kernel(op, t);
  }
  bool stores(Dtype t) const { return capabilities(device()).can_store(t); }
  // det on the device; in the mode, where claimed, checks it ran there.
  Tensor det_on_device(const Tensor& a, Dtype t) const {
    reset_report();
    Tensor out = linalg::det(a.to(device()));
    if (reproducible() && claims(t))
      concord::test::expect_ran_on_device("det", device(), t, "det", is_vulkan() && (t == float32 || t == float64));
    return out;
  }
  // f on the device; in the mode, where `op` is claimed for t, checks it ran there.
  template <class F>
  Tensor native(OpId op, Dtype t, F&& f) const {
    reset_report();
    Tensor out = f();
    if (reproducible() && claims(t, op))
      concord::test::expect_ran_on_device(op_name(op), device(), t, op_name(op), is_vulkan());
    return out;
  }
  // Every device order of vector_norm and matrix_norm on x [.., r, c], against
  // the CPU (outside the mode NaN payloads aside).
  void check_norms(const Tensor& x, Dtype t) const {
    auto first_difference = [](const Tensor& a, const Tensor& b) {
      return reproducible() ? concord::test::first_difference(a, b) : nan_blind_difference(a, b);
    };
    const Tensor dx = x.to(device());
    for (double ord : {0.0, 1.0, 2.0, kInf, -kInf}) {
      SCOPED_TRACE("vector ord " + std::to_string(ord));
      EXPECT_EQ(first_difference(native(OpId::vector_norm, t, [&] { return linalg::vector_norm(dx, ord, {-1}); }),
                                 linalg::vector_norm(x, ord, {-1})),
                "");
      EXPECT_EQ(first_difference(native(OpId::vector_norm, t, [&] { return linalg::vector_norm(dx, ord); }),
                                 linalg::vector_norm(x, ord)),
                "")
          << "all dims";
    }
    for (double ord : {1.0, -1.0, kInf, -kInf}) {
      SCOPED_TRACE("matrix ord " + std::to_string(ord));
      EXPECT_EQ(first_difference(native(OpId::matrix_norm, t, [&] { return linalg::matrix_norm(dx, ord); }),
                                 linalg::matrix_norm(x, ord)),
                "");
    }
    EXPECT_EQ(first_difference(native(OpId::matrix_norm, t, [&] { return linalg::matrix_norm(dx, "fro"); }),
                               linalg::matrix_norm(x, "fro")),
              "")
        << "fro";
  }
};

// Diagonals whose products cross into the subnormals (rounded once from
// float64), overflow, underflow to ±0, or meet 0 · inf (NaN) and NaN.
std::vector<std::vector<double>> diagonals(Dtype t) {
  const double inf = std::numeric_limits<double>::infinity();
  if (t == float64)
    return {{1e-160, 1e-160, 3.7}, {-1e-200, 1e-110, 1.0000000000000002}, {1e200, 1e200, -1.0},
            {1e-300, 1e-300, 1e-300}, {0.0, inf, 2.0}, {-0.0, 5.0, 1.0}, {std::nan(""), 1.0, 1.0}};
  return {{1e-20, 1e-20, 3.7}, {-1e-25, 1e-15, 1.0000001}, {1e20, 1e20, -1.0}, {1e-30, 1e-30, 1e-30},
          {0.0, inf, 2.0}, {-0.0, 5.0, 1.0}, {std::nan(""), 1.0, 1.0}};
}

// The claim: on a Vulkan or OpenCL device det and slogdet for every floating
// dtype it stores, whatever its float controls, with or without float64
// (norms.comp, norms.cl / norms_xd.cl).
TEST_P(ReproducibleVulkanNorms, VulkanAndOpenClClaimDet) {
  if (!is_vulkan() && !is_opencl()) GTEST_SKIP() << "the claim is Vulkan's and OpenCL's";
  for (OpId op : {OpId::det, OpId::slogdet})
    for (Dtype t : {float32, float16, bfloat16, float64})
      if (stores(t)) {
        EXPECT_TRUE(capabilities(device()).has_kernel(op, t)) << op_name(op) << " " << name(t);
        EXPECT_TRUE(claims(t, op)) << op_name(op) << " " << name(t);
      }
}

TEST_P(ReproducibleVulkanNorms, DetBitsInTheMode) {
  ReproducibleGuard on(true);
  for (Dtype t : {float32, float64}) {
    if (!stores(t)) continue;
    uint64_t seed = 40;
    for (int64_t n : {1, 2, 5, 17, 33}) {
      SCOPED_TRACE(std::string(name(t)) + " n = " + std::to_string(n));
      const Tensor a = matrix(n <= 5 ? 3 : 1, n, t, ++seed, n != 17);
      EXPECT_EQ(first_difference(det_on_device(a, t), linalg::det(a)), "");
    }
    const Tensor tri = upper(diagonals(t), t);
    EXPECT_EQ(first_difference(det_on_device(tri, t), linalg::det(tri)), "") << name(t) << " triangular";
  }
}

// slogdet: the sign and the sum of the CPU's reproducible float64 log over
// the diagonal (the shader walks it in chunks of 32 terms: n = 70 takes three).
// Triangular matrices give the loop's every exit: a zero pivot after an
// infinite one, -0, NaN, subnormals, negative pivots, a zero in the last chunk.
TEST_P(ReproducibleVulkanNorms, SlogdetBitsInTheMode) {
  ReproducibleGuard on(true);
  const double inf = std::numeric_limits<double>::infinity();
  for (Dtype t : {float32, float64}) {
    if (!stores(t)) continue;
    auto check = [&](const Tensor& a, const std::string& what) {
      const Tensor da = a.to(device());
      reset_report();
      const linalg::SlogDet s = linalg::slogdet(da);
      if (claims(t, OpId::slogdet)) concord::test::expect_ran_on_device("slogdet", device(), t, what, is_vulkan());
      const linalg::SlogDet c = linalg::slogdet(a);
      EXPECT_EQ(first_difference(s.sign, c.sign), "") << name(t) << " " << what << " sign";
      EXPECT_EQ(first_difference(s.logabsdet, c.logabsdet), "") << name(t) << " " << what << " log|det|";
    };
    uint64_t seed = 70;
    for (int64_t n : {1, 5, 33, 70}) check(matrix(n <= 5 ? 3 : 1, n, t, ++seed, n == 5), "n = " + std::to_string(n));
    std::vector<std::vector<double>> d = diagonals(t);
    d.push_back({inf, 0.0, 2.0});
    check(upper(d, t), "triangular");
    std::vector<double> long_diag(70);
    for (size_t i = 0; i < long_diag.size(); ++i) long_diag[i] = (i % 3 == 0 ? -1.0 : 1.0) * (0.5 + 0.01 * double(i));
    std::vector<double> zero_late = long_diag, tiny = long_diag;
    zero_late[66] = 0.0;
    tiny[40] = t == float64 ? 3e-310 : 2e-40;  // a subnormal pivot
    check(upper({long_diag, zero_late, tiny}, t), "n = 70 triangular");
  }
}

// The default mode: the same loop, so the same bits wherever the LU is the
// CPU's (triangular matrices of normal entries: their LU is exact anywhere).
TEST_P(ReproducibleVulkanNorms, DetBitsInTheDefaultMode) {
  ReproducibleGuard off(false);
  for (Dtype t : {float32, float64}) {
    if (!stores(t)) continue;
    std::vector<std::vector<double>> d = diagonals(t);
    d.resize(4);  // normal entries only: no subnormal or inf in the factorization
    const Tensor tri = upper(d, t);
    EXPECT_EQ(first_difference(linalg::det(tri.to(device())), linalg::det(tri)), "") << name(t);
  }
}

// The halves: factored in float32 by the front end, the float32 det rounded to the half.
TEST_P(ReproducibleVulkanNorms, DetOfHalves) {
  ReproducibleGuard on(true);
  for (Dtype t : {float16, bfloat16}) {
    if (!stores(t)) continue;
    const Tensor a = (matrix(2, 4, float32, 9, false) * Scalar(0.5)).to(t);
    EXPECT_EQ(first_difference(det_on_device(a, t), linalg::det(a)), "") << name(t);
  }
}

// The claim: vector_norm and matrix_norm for every floating dtype stored.
TEST_P(ReproducibleVulkanNorms, VulkanAndOpenClClaimNorms) {
  if (!is_vulkan() && !is_opencl()) GTEST_SKIP() << "the claim is Vulkan's and OpenCL's";
  for (OpId op : {OpId::vector_norm, OpId::matrix_norm})
    for (Dtype t : {float32, float64, float16, bfloat16})
      if (stores(t)) EXPECT_TRUE(claims(t, op)) << op_name(op) << " " << name(t);
}

// Specials, odd sizes, rows longer than a chunk, a strided view; both modes.
TEST_P(ReproducibleVulkanNorms, NormBitsInBothModes) {
  for (bool mode : {true, false}) {
    ReproducibleGuard g(mode);
    for (Dtype t : {float32, float64}) {
      if (!stores(t)) continue;
      SCOPED_TRACE(std::string(name(t)) + (mode ? " reproducible" : " default"));
      check_norms(matrix(3, 5, t, 61, true), t);
      check_norms(matrix(1, 7, t, 62, false), t);
      // Rows of 400 terms (two chunks; 1600 over all dims), one with a NaN late.
      Tensor wide = (matrix(1, 40, t, 63, false).reshape({2, 800}) * Scalar(t == float64 ? 1e-300 : 1e-35));
      wide.select(0, 1).select(0, 700).fill_(Scalar(std::nan("")));
      check_norms(wide.reshape({2, 2, 400}), t);
      check_norms(matrix(2, 9, t, 64, true).transpose(-2, -1), t);  // strided: the front end copies
      // Zero rows and an all-zero matrix (ord 2 of doubles: max 0).
      check_norms(zeros({2, 3, 4}, t), t);
    }
  }
}

// The halves: read widened, the float64 result rounded to odd in float32,
// then to the half (no double rounding). Values near the halves' overflow and
// subnormal ranges; sums of many terms whose float64 results sit between halves.
TEST_P(ReproducibleVulkanNorms, NormBitsOfHalves) {
  ReproducibleGuard on(true);
  for (Dtype t : {float16, bfloat16}) {
    if (!stores(t)) continue;
    SCOPED_TRACE(std::string(name(t)));
    const double big = t == float16 ? 3e4 : 1e38, small = t == float16 ? 3e-6 : 1e-39;
    Lcg g{77};
    std::vector<float> v(3 * 5 * 37);
    for (size_t i = 0; i < v.size(); ++i) {
      const double s = i % 3 == 0 ? big : i % 3 == 1 ? small : 1.0;
      v[i] = static_cast<float>(g.uniform() * s);
    }
    v[5] = std::nanf(""), v[80] = INFINITY, v[81] = -0.0f;
    const Tensor x = from_vector(v, Shape{3, 5, 37}).to(t);
    check_norms(x, t);
    check_norms(x.select(0, 1).select(0, 2).unsqueeze(0).unsqueeze(0).to(t) * Scalar(1), t);
    // 1 + half an ULP of the half + 2^-24: float64's sum rounded to nearest in
    // float32 ties back to the midpoint (then to even: 1); rounded to odd it
    // stays above it (1 + one ULP), the CPU's result.
    const float half_ulp = t == float16 ? 0x1p-11f : 0x1p-8f;
    const Tensor tie = from_vector(std::vector<float>{1.0f, half_ulp, 0x1p-24f}, Shape{1, 1, 3}).to(t);
    check_norms(tie, t);
  }
}

// General p runs on the CPU fallback on every device (host only), with the CPU's bits.
TEST_P(ReproducibleVulkanNorms, GeneralPFallsBack) {
  ReproducibleGuard on(true);
  const Tensor x = matrix(1, 6, float32, 65, false);
  EXPECT_EQ(first_difference(linalg::vector_norm(x.to(device()), 3.0), linalg::vector_norm(x, 3.0)), "");
}

}  // namespace

CONCORD_INSTANTIATE_DEVICES(ReproducibleVulkanNorms);
