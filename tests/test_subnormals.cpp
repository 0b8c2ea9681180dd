// Subnormal operands and subnormal results on every device config, for the
// kernels that could lose them (docs/ARCHITECTURE.md, "Subnormals"): the
// bfloat16 GEMM on the AVX512-BF16 dot product (which flushes its inputs and
// partial sums), the float16 conversions (F16C), the float32/float64 GEMMs,
// elementwise arithmetic and sums. Every expected value is exact and written
// out here. A device that declares it does not keep subnormals
// (Capabilities::keeps_subnormals: lavapipe says so, and keeps them) may
// return the flushed value instead, except in the reproducible mode, where
// every device must keep them; conversions must keep them everywhere.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <string>
#include <vector>
#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

#include "concord/concord.h"
#include "concord/testing.h"
#include "support/devices.h"

using namespace concord;
using concord::test::DeviceTest;

namespace {

// The smallest normal power of two of a dtype's exponent range.
int min_normal_exp(Dtype t) {
  switch (t) {
    case Dtype::float16: return -14;
    case Dtype::float64: return -1022;
    default: return -126;  // float32, bfloat16
  }
}

constexpr Dtype kFloats[] = {float16, bfloat16, float32, float64};

// The compute dtype's smallest normal: the halves compute in float32.
double compute_min_normal(Dtype t) { return t == float64 ? 0x1p-1022 : 0x1p-126; }

class Subnormals : public DeviceTest {
 protected:
  bool stores(Dtype t) const { return test::can_store(GetParam(), t); }
  Tensor filled(Shape s, double v, Dtype t) const { return full(s, v, t, kCPU).to(device()); }
  // A device may flush only where it says so, and never in the reproducible
  // mode (its kernels there work on the bits, or the op falls back).
  bool may_flush() const { return !capabilities(device()).keeps_subnormals && !reproducible(); }
  // v as a device that flushes computes it in t: subnormals of the compute dtype read as zero.
  static double flushed(Dtype t, double v) { return std::fabs(v) < compute_min_normal(t) ? 0.0 : v; }
  // Every element of r is `exact`, or `flushed` on a device that declares it flushes.
  void expect_all(const Tensor& r, double exact, double flush, const std::string& what) const {
    for (double got : r.to(kCPU).to_vector<double>())
      if (!(got == exact || (may_flush() && got == flush))) {
        ADD_FAILURE() << what << " on " << GetParam().label << ": " << got << ", expected " << exact
                      << (may_flush() ? " (or " + std::to_string(flush) + " flushed)" : std::string());
        return;
      }
  }

  // The case: A filled with a subnormal, B ones, a normal result.
  void matmul_subnormal_inputs() {
    for (Dtype t : kFloats) {
      if (!stores(t)) continue;
      const double tiny = std::ldexp(1.0, min_normal_exp(t) - 3);  // a subnormal of t
      for (int64_t K : {2, 64, 300}) {
        Tensor a = filled({2, K}, tiny, t), b = filled({K, 2}, 1.0, t);
        const double want = concord::testing::round_to(t, static_cast<double>(K) * tiny);
        expect_all(mm(a, b), want, flushed(t, tiny) == 0 ? 0.0 : want,
                   "mm " + std::string(name(t)) + " K=" + std::to_string(K));
      }
    }
  }
  // Normal operands whose products are subnormal (in the compute dtype: float32
  // for the halves) while their sum is normal again; one row of ones beside them.
  void matmul_subnormal_products() {
    for (Dtype t : {bfloat16, float32, float64}) {  // float16's products (>= 2^-48) are normal in float32
      if (!stores(t)) continue;
      const int e = (t == float64 ? -1022 : -126) - 2;  // products of 2^(e/2) are 2^e: subnormal
      const double v = std::ldexp(1.0, e / 2);
      Tensor a = cat({filled({2, 64}, v, t), filled({1, 64}, 1.0, t)}, 0), b = filled({64, 5}, v, t);
      Tensor c = mm(a, b);
      expect_all(c.narrow(0, 0, 2), std::ldexp(64.0, e), 0.0, "mm of subnormal products " + std::string(name(t)));
      expect_all(c.narrow(0, 2, 1), concord::testing::round_to(t, 64 * v), 64 * v, "mm row of ones " + std::string(name(t)));
    }
    // 2^-70 · 2^-64 · 2 = 2^-133, bfloat16's smallest subnormal, as the result.
    if (stores(bfloat16))
      expect_all(mm(filled({4, 2}, std::ldexp(1.0, -70), bfloat16), filled({2, 4}, std::ldexp(1.0, -64), bfloat16)),
                 std::ldexp(1.0, -133), 0.0, "bfloat16 mm with a subnormal result");
  }
  // Elementwise results that are subnormal, and subnormal operands.
  void arithmetic() {
    for (Dtype t : kFloats) {
      if (!stores(t)) continue;
      const std::string n(name(t));
      const int emin = min_normal_exp(t);
      const double x = std::ldexp(1.0, emin / 2), y = std::ldexp(1.0, emin - emin / 2 - 2);  // x·y = 2^(emin-2)
      const double want = std::ldexp(1.0, emin - 2);
      expect_all(mul(filled({8}, x, t), filled({8}, y, t)), want, flushed(t, want), "mul " + n);
      expect_all(mul(filled({8}, x, t), y), want, flushed(t, want), "mul by a number " + n);
      // 1.25·2^emin - 2^emin = 2^(emin-2), a subnormal difference of normal operands.
      expect_all(sub(filled({8}, std::ldexp(1.25, emin), t), filled({8}, std::ldexp(1.0, emin), t)), want,
                 flushed(t, want), "sub " + n);
      // Subnormal operands: add, div by 2, a sum, a comparison.
      const double s = std::ldexp(1.0, emin - 3);
      expect_all(add(filled({8}, s, t), filled({8}, s, t)), 2 * s, flushed(t, s) * 2, "add " + n);
      expect_all(div(filled({8}, 2 * s, t), 2.0), s, flushed(t, 2 * s) / 2, "div " + n);
      expect_all(sum(filled({1000}, s, t)), concord::testing::round_to(t, 1000 * s), flushed(t, s) * 1000, "sum " + n);
      expect_all(gt(filled({4}, s, t), 0.0), 1.0, flushed(t, s) > 0 ? 1.0 : 0.0, "gt " + n);
    }
  }
};

TEST_P(Subnormals, MatmulKeepsSubnormalInputs) { matmul_subnormal_inputs(); }
TEST_P(Subnormals, MatmulKeepsSubnormalProducts) { matmul_subnormal_products(); }
TEST_P(Subnormals, ArithmeticMakesAndKeepsSubnormals) { arithmetic(); }

// In the reproducible mode every device keeps them, whatever it declares.
TEST_P(Subnormals, EveryDeviceKeepsThemInTheReproducibleMode) {
  ReproducibleGuard mode(true);
  matmul_subnormal_inputs();
  matmul_subnormal_products();
  arithmetic();
}

// Conversions between the floating dtypes keep subnormals (F16C on the CPU:
// VCVTPH2PS / VCVTPS2PH, in bulk copies of 16 or more elements).
TEST_P(Subnormals, ConversionsKeepSubnormals) {
  const std::vector<double> halves = {std::ldexp(1.0, -24), std::ldexp(3.0, -20), -std::ldexp(1023.0, -24),
                                      std::ldexp(1.0, -15)};
  std::vector<double> v;
  for (int r = 0; r < 8; ++r) v.insert(v.end(), halves.begin(), halves.end());  // 32 values: the vector loops
  Tensor h = from_vector(v, {static_cast<int64_t>(v.size())}).to(float16).to(device());
  EXPECT_EQ(h.to_vector<double>(), v) << "float64 -> float16 on " << device().str();
  EXPECT_EQ(h.to(float32).to_vector<double>(), v) << "float16 -> float32 on " << device().str();
  EXPECT_EQ(h.to(float32).to(float16).to_vector<double>(), v) << "float32 -> float16 on " << device().str();
  if (stores(bfloat16)) {
    std::vector<double> b(32, std::ldexp(5.0, -133));
    Tensor x = from_vector(b, {32}).to(float32).to(device());
    EXPECT_EQ(x.to(bfloat16).to_vector<double>(), b) << "float32 -> bfloat16";
    EXPECT_EQ(x.to(bfloat16).to(float32).to_vector<double>(), b) << "bfloat16 -> float32";
  }
  if (stores(float64)) {
    std::vector<double> d(32, std::ldexp(3.0, -1074 + 1));
    EXPECT_EQ(from_vector(d, {32}).to(device()).to_vector<double>(), d) << "float64 on " << device().str();
    std::vector<double> f(32, std::ldexp(1.0, -149));
    EXPECT_EQ(from_vector(f, {32}).to(device()).to(float32).to_vector<double>(), f) << "float64 -> float32";
  }
}

CONCORD_INSTANTIATE_DEVICES(Subnormals);

#if defined(__x86_64__)
// concord never turns on flush-to-zero (MXCSR bit 15) or denormals-are-zero
// (bit 6): not on the calling thread, not on the OpenMP workers its kernels
// run on (which inherit the MXCSR of the thread that created them).
TEST(Subnormals, MxcsrIsLeftAsFound) {
  constexpr unsigned kFtzDaz = 0x8040;
  ASSERT_EQ(_mm_getcsr() & kFtzDaz, 0u) << "the test process itself starts with FTZ/DAZ set";
  Tensor a = randn({96, 200}, float32, kCPU, 1), b = randn({200, 80}, float32, kCPU, 2);
  mm(a.to(bfloat16), b.to(bfloat16));
  mm(a, b);
  mm(a.to(float64), b.to(float64));
  exp(a.to(float16)).to(float32);
  sum(a);
  softmax(a, 1);
  EXPECT_EQ(_mm_getcsr() & kFtzDaz, 0u) << "the calling thread";
  int dirty = 0;
#pragma omp parallel reduction(+ : dirty)
  dirty += (_mm_getcsr() & kFtzDaz) != 0;
  EXPECT_EQ(dirty, 0) << "OpenMP worker threads with FTZ/DAZ set";
}

// A host program that sets them (a -ffast-math link does, at start-up) makes
// the CPU's kernels flush: concord says so, once, instead of flushing silently.
TEST(Subnormals, AHostThreadThatFlushesIsWarned) {
  constexpr unsigned kFtzDaz = 0x8040;
  const Tensor a = full({4}, 0x1p-130, float32, kCPU);
  std::vector<std::string> said;
  auto saved = set_warning_handler([&said](const std::string& m) { said.push_back(m); });
  const unsigned csr = _mm_getcsr();
  _mm_setcsr(csr | kFtzDaz);
  const Tensor r = add(a, a);
  _mm_setcsr(csr);
  set_warning_handler(saved);
  ASSERT_EQ(said.size(), 1u);
  EXPECT_EQ(said[0].rfind("[add] the calling thread flushes subnormals to zero", 0), 0u) << said[0];
  EXPECT_NE(said[0].find("-ffast-math"), std::string::npos) << said[0];
  EXPECT_NE(said[0].find("on cpu every float kernel (float32 here)"), std::string::npos) << said[0];
  EXPECT_EQ(r.to_vector<float>()[0], 0.0f) << "the flush the warning is about";
  EXPECT_EQ(add(a, a).to_vector<float>()[0], 0x1p-129f) << "kept again once the bits are clear";
}
#endif

}  // namespace
