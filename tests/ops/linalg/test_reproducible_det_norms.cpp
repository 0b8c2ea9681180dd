// det, slogdet, vector_norm and matrix_norm on every device give the CPU's
// bits: the CPU's float64 loops run natively on OpenCL (kernels/norms.cl) in
// both modes, so the reproducible mode claims them there, and a device that
// claims them runs them without a fallback. Odd sizes, batches, views
// (transposed, broadcast), singular matrices, NaN, inf, signed zeros,
// subnormals, huge values (the scaled float64 2-norm). The values themselves
// are checked against float64 references in test_linalg.cpp and
// test_linalg_norms.cpp. Also: the orders the device kernels lack (general p,
// the SVD orders) take the counted CPU fallback per call, strict raises.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "concord/concord.h"
#include "concord/linalg.h"
#include "concord/op_table.h"
#include "linalg_reference.h"
#include "support/devices.h"

using namespace concord;
using namespace concord::test::la;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Elements whose bits differ; any_nan: two NaNs count as equal whatever their
// bits (the default mode does not canonicalise NaNs).
int64_t differing(const Tensor& x, const Tensor& y, bool any_nan) {
  const Tensor a = x.to(kCPU).contiguous(), b = y.to(kCPU).contiguous();
  if (a.nbytes() != b.nbytes() || a.dtype() != b.dtype()) return -1;
  const auto* p = static_cast<const unsigned char*>(a.raw_data());
  const auto* q = static_cast<const unsigned char*>(b.raw_data());
  const size_t n = itemsize(a.dtype());
  const Vec av = values(a), bv = values(b);
  int64_t d = 0;
  for (size_t i = 0, e = 0; i < a.nbytes(); i += n, ++e)
    d += std::memcmp(p + i, q + i, n) != 0 && !(any_nan && std::isnan(av[e]) && std::isnan(bv[e]));
  return d;
}

// Matrices [batch, n, n] with a singular one (a zero row: an exact zero
// pivot), a NaN one and an inf one where batch >= 4.
Vec det_inputs(int64_t batch, int64_t n, uint64_t seed) {
  Vec v = uniform(static_cast<size_t>(batch * n * n), seed, -2, 2);
  if (batch >= 4 && n >= 2) {
    for (int64_t j = 0; j < n; ++j) v[static_cast<size_t>(1 * n * n + (n - 1) * n + j)] = 0;
    v[static_cast<size_t>(2 * n * n + n + 1)] = kNaN;
    v[static_cast<size_t>(3 * n * n)] = kInf;
  }
  return v;
}

// Values with every kind of special in them (for the norms).
Vec norm_inputs(size_t count, uint64_t seed, bool specials) {
  Vec v = uniform(count, seed, -3, 3);
  if (!specials) return v;
  const double sp[] = {0.0, -0.0, kInf, -kInf, 1e300, -1e-310, 4.9e-324, 65504.0, 1e-30};
  for (size_t i = 0; i < count; i += 5) v[i] = sp[(i / 5) % 9];
  v[count / 2] = kNaN;
  return v;
}

class DetNormsBits : public concord::test::DeviceTest {
 protected:
  // The device claims op for t in the current mode (so no fallback may be counted).
  bool claimed(OpId op, Dtype t) const {
    const Capabilities& c = capabilities(device());
    return reproducible() ? c.has_reproducible_kernel(op, t) : c.has_kernel(op, t);
  }
  // opencl:0 with cl_khr_fp64 must claim them (the regression: they used to fall back).
  void expect_opencl_claims(OpId op, Dtype t) const {
    if (device().kind().name() == "opencl" && capabilities(device()).can_store(float64))
      EXPECT_TRUE(claimed(op, t)) << op_name(op) << " " << name(t) << (reproducible() ? " (reproducible)" : "");
  }
  void expect_no_fallback(const char* op, Dtype t) const {
    OpId id;
    ASSERT_TRUE(parse_op(op, &id));
    if (claimed(id, t)) EXPECT_EQ(report().count(op, device().str(), t, Path::fallback), 0u) << op << report().str();
  }
};

TEST_P(DetNormsBits, DetAndSlogdetGiveTheCpuBits) {
  for (bool mode : {false, true}) {
    const ReproducibleGuard g(mode);
    for (Dtype t : {float16, bfloat16, float32, float64}) {
      if (!capabilities(device()).can_store(t)) continue;
      // Outside the mode float32 LU bits need correctly rounded division; float64 always has it.
      const bool bits = mode || t == float64;
      expect_opencl_claims(OpId::det, t);
      expect_opencl_claims(OpId::slogdet, t);
      for (int64_t n : {0, 1, 3, 7, 17}) {
        SCOPED_TRACE(std::string(name(t)) + " n=" + std::to_string(n) + (mode ? " reproducible" : ""));
        const int64_t batch = 5;
        const Vec v = det_inputs(batch, n, 40 + static_cast<uint64_t>(n));
        const Tensor a = make(v, {batch, n, n}, t, kCPU), da = a.to(device());
        reset_report();
        const Tensor d = linalg::det(da), dt = linalg::det(da.transpose(-2, -1));
        const auto s = linalg::slogdet(da);
        expect_no_fallback("det", t);
        expect_no_fallback("slogdet", t);
        if (!bits) continue;
        EXPECT_EQ(differing(d, linalg::det(a), !mode), 0) << "det";
        EXPECT_EQ(differing(dt, linalg::det(a.transpose(-2, -1)), !mode), 0) << "det of a transposed view";
        const auto sc = linalg::slogdet(a);
        EXPECT_EQ(differing(s.sign, sc.sign, !mode), 0) << "slogdet sign";
        // Outside the mode the CPU's log is the C library's: within an ULP of the shared one.
        if (mode) EXPECT_EQ(differing(s.logabsdet, sc.logabsdet, false), 0) << "slogdet logabsdet";
        const Vec la = values(s.logabsdet), lc = values(sc.logabsdet);
        for (size_t e = 0; e < la.size(); ++e)
          if (la[e] != lc[e] && !(std::isnan(la[e]) && std::isnan(lc[e])))
            EXPECT_NEAR(la[e], lc[e], 4 * unit_roundoff(t) * (1 + std::fabs(lc[e]))) << "logabsdet " << e;
        if (n >= 2) {  // the singular one: det 0, sign 0, log|det| -inf on every device
          EXPECT_EQ(values(d)[1], 0.0);
          EXPECT_EQ(values(s.sign)[1], 0.0);
          EXPECT_EQ(values(s.logabsdet)[1], -kInf);
          EXPECT_TRUE(std::isnan(values(s.logabsdet)[2]));
        }
      }
    }
  }
}

TEST_P(DetNormsBits, VectorNormsGiveTheCpuBits) {
  const Shape shape{5, 7, 9};
  for (bool mode : {false, true}) {
    const ReproducibleGuard g(mode);
    for (Dtype t : {float16, bfloat16, float32, float64}) {
      if (!capabilities(device()).can_store(t)) continue;
      expect_opencl_claims(OpId::vector_norm, t);
      for (bool specials : {false, true}) {
        const Tensor x = make(norm_inputs(315, 7, specials), shape, t, kCPU), dx = x.to(device());
        // Views: the tensor, a transposed view, a broadcast one.
        const std::vector<std::function<Tensor(const Tensor&)>> views = {
            [](const Tensor& y) { return y; }, [](const Tensor& y) { return y.transpose(0, 2); },
            [](const Tensor& y) { return y.select(1, 3).unsqueeze(1).expand({5, 4, 9}); }};
        for (size_t vi = 0; vi < views.size(); ++vi)
          for (const Dims& dims : {Dims{}, Dims{1}, Dims{0, 2}, Dims{-1}})
            for (double ord : {2.0, 1.0, kInf, -kInf, 0.0, 3.0, -1.5}) {
              SCOPED_TRACE(std::string(name(t)) + " view " + std::to_string(vi) + " dims " + shape_str(dims) +
                           " ord " + std::to_string(ord) + (specials ? " specials" : "") + (mode ? " repro" : ""));
              reset_report();
              const Tensor got = linalg::vector_norm(views[vi](dx), ord, dims, dims.size() == 1);
              if (ord == 0 || ord == 1 || ord == 2 || std::isinf(ord)) expect_no_fallback("vector_norm", t);
              EXPECT_EQ(differing(got, linalg::vector_norm(views[vi](x), ord, dims, dims.size() == 1), !mode), 0);
            }
      }
    }
  }
}

TEST_P(DetNormsBits, MatrixNormsGiveTheCpuBits) {
  for (bool mode : {false, true}) {
    const ReproducibleGuard g(mode);
    for (Dtype t : {float16, bfloat16, float32, float64}) {
      if (!capabilities(device()).can_store(t)) continue;
      expect_opencl_claims(OpId::matrix_norm, t);
      for (bool specials : {false, true}) {
        const Tensor x = make(norm_inputs(105, 9, specials), {3, 7, 5}, t, kCPU), dx = x.to(device());
        for (const Dims& dims : {Dims{-2, -1}, Dims{2, 0}})
          for (bool tr : {false, true}) {
            const Tensor xv = tr ? x.transpose(1, 2) : x, dv = tr ? dx.transpose(1, 2) : dx;
            SCOPED_TRACE(std::string(name(t)) + " dims " + shape_str(dims) + (tr ? " transposed" : "") +
                         (specials ? " specials" : "") + (mode ? " repro" : ""));
            reset_report();
            EXPECT_EQ(differing(linalg::matrix_norm(dv, "fro", dims), linalg::matrix_norm(xv, "fro", dims), !mode), 0);
            for (double ord : {1.0, -1.0, kInf, -kInf})
              EXPECT_EQ(differing(linalg::matrix_norm(dv, ord, dims), linalg::matrix_norm(xv, ord, dims), !mode), 0)
                  << "ord " << ord;
            expect_no_fallback("matrix_norm", t);
          }
      }
    }
  }
}

CONCORD_INSTANTIATE_DEVICES(DetNormsBits);

// On opencl:0: general p and the SVD orders are what the device kernels lack:
// one counted fallback per call (native for the others), strict raises naming the order.
TEST(DetNormsOpencl, HostOnlyOrdersFallBackPerCall) {
  bool found = false;
  for (const auto& d : devices()) found = found || d.kind().name() == "opencl";
  if (!found) GTEST_SKIP() << "no OpenCL device";
  const Device ocl("opencl:0");
  if (!capabilities(ocl).can_store(float64)) GTEST_SKIP() << "opencl:0 has no float64";
  const Tensor x = make(uniform(24, 3), {4, 6}, float32, ocl);
  reset_report();
  (void)linalg::vector_norm(x, 2.0, {1});
  (void)linalg::matrix_norm(x, 1.0);
  EXPECT_EQ(report().count("vector_norm", ocl.str(), float32, Path::native), 1u) << report().str();
  EXPECT_EQ(report().count("matrix_norm", ocl.str(), float32, Path::native), 1u) << report().str();
  reset_report();
  const Tensor p3 = linalg::vector_norm(x, 3.0, {1});
  const Tensor nuc = linalg::matrix_norm(x, "nuc");
  EXPECT_EQ(report().count("vector_norm", ocl.str(), float32, Path::fallback), 1u) << report().str();
  EXPECT_EQ(report().count("matrix_norm", ocl.str(), float32, Path::fallback), 1u) << report().str();
  EXPECT_EQ(p3.device(), ocl);
  EXPECT_EQ(differing(p3, linalg::vector_norm(x.to(kCPU), 3.0, {1}), false), 0);
  EXPECT_EQ(differing(nuc, linalg::matrix_norm(x.to(kCPU), "nuc"), false), 0);
  FallbackPolicyGuard strict(FallbackPolicy::strict);
  try {
    (void)linalg::vector_norm(x, 3.0, {1});
    ADD_FAILURE() << "expected NotImplementedError";
  } catch (const NotImplementedError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("[linalg.vector_norm] ord = 3", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("opencl:0"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)linalg::matrix_norm(x, -2.0), NotImplementedError);
  EXPECT_NO_THROW((void)linalg::vector_norm(x, kInf));  // native: strict has nothing to refuse
}

}  // namespace
