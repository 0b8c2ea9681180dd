// var/std of values near the ends of the float range: the squared deviations
// of [1e30, 1e30, -1e30] pass float32's range and those of 1e-30 fall below
// it, although the standard deviation is representable (issue 23, item 3).
// Checked against a long double reference, against the exact power-of-two
// scaling law, and for the CPU's bits on every device.
#include <limits>

#include "reduce_reference.h"

namespace concord::test {
namespace {

using namespace reduce;

class ReduceStatsRangeTest : public DeviceTest {
 protected:
  bool skip(Dtype t) { return !usable(GetParam(), t); }
};

// Bessel-corrected variance in long double (x86: 15 exponent bits, so neither
// 1e300^2 nor 1e-300^2 leaves its range).
long double ref_var_ld(const std::vector<double>& g, int64_t correction) {
  long double m = 0;
  for (double x : g) m += x;
  m /= static_cast<long double>(g.size());
  long double s = 0;
  for (double x : g) s += (x - m) * (x - m);
  return s / static_cast<long double>(static_cast<int64_t>(g.size()) - correction);
}

std::vector<double> scaled(std::vector<double> v, double f) {
  for (double& x : v) x *= f;
  return v;
}

// Rows of one tensor: ordinary values, the issue's case, huge, tiny, a row of
// zeros, and values that reach the dtype's largest exponent.
std::vector<std::vector<double>> rows(Dtype t, int64_t n) {
  const std::vector<double> base = random_values(n, float32, -1, 3, 5);
  const double big = t == float64 ? 1e300 : 1e30, tiny = t == float64 ? 1e-300 : 1e-30;
  const double top = t == float64 ? 0x1p1020 : 0x1p124;
  std::vector<double> issue(n);
  for (int64_t i = 0; i < n; ++i) issue[i] = (i % 3 == 2 ? -1 : 1) * big;
  return {base, issue, scaled(base, big), scaled(base, tiny), std::vector<double>(n, 0.0), scaled(base, top)};
}

TEST_P(ReduceStatsRangeTest, TheIssueCase) {
  for (Dtype t : {float32, bfloat16, float64}) {
    if (skip(t)) continue;
    SCOPED_TRACE(std::string(name(t)));
    Tensor x = make({1e30, 1e30, -1e30}, {3}, t, device());
    const double s = std(x).item<double>();
    EXPECT_NEAR(s, 1.1547005383792515e30, 1.1547e30 * 4 * unit(t)) << "std";
    // var is 1.33e60: beyond float32 (and bfloat16), representable in float64.
    const double v = var(x).item<double>();
    if (t == float64) EXPECT_NEAR(v, 4e60 / 3, 4e60 / 3 * 1e-15);
    else EXPECT_EQ(v, INFINITY);
    // The tiny counterpart: the squares (1e-60) underflow float32.
    Tensor y = make({1e-30, 1e-30, -1e-30}, {3}, t, device());
    EXPECT_NEAR(std(y).item<double>(), 1.1547005383792515e-30, 1.1547e-30 * 4 * unit(t)) << "tiny std";
  }
}

TEST_P(ReduceStatsRangeTest, RowsAgainstTheReference) {
  const int64_t n = 37;
  for (Dtype t : {float32, bfloat16, float64}) {
    if (skip(t)) continue;
    SCOPED_TRACE(std::string(name(t)));
    const auto rs = rows(t, n);
    std::vector<double> flat;
    for (const auto& r : rs) flat.insert(flat.end(), r.begin(), r.end());
    Tensor x = make(flat, {static_cast<int64_t>(rs.size()), n}, t, device());
    const auto xv = x.to(kCPU).to_vector<double>();  // the values as stored in t
    for (int64_t corr : {0, 1}) {
      const auto gv = var(x, {1}, corr).to_vector<double>();
      const auto gs = std(x, {1}, corr).to_vector<double>();
      for (size_t i = 0; i < rs.size(); ++i) {
        SCOPED_TRACE("row " + std::to_string(i) + " correction " + std::to_string(corr));
        const std::vector<double> g(xv.begin() + i * n, xv.begin() + (i + 1) * n);
        const long double ref = ref_var_ld(g, corr);
        long double m = 0, mx = 0;
        for (double e : g) m += e, mx = std::max<long double>(mx, std::fabs(e));
        m /= n;
        const long double sd = std::sqrt(ref);
        // The bound of the plain test (ReduceStatsTest.VarAndStd), relative to the row's scale.
        const long double tol_s = (64 * acc_unit(t) * (ref + m * m) / (2 * sd) + 2 * unit(t) * sd);
        if (ref == 0) {
          EXPECT_EQ(gs[i], 0.0);
          EXPECT_EQ(gv[i], 0.0);
          continue;
        }
        EXPECT_NEAR(static_cast<long double>(gs[i]), sd, tol_s) << "std, max|x| " << static_cast<double>(mx);
        const long double vmax = t == float64 ? std::numeric_limits<double>::max() : std::numeric_limits<float>::max();
        if (ref > vmax * (1 + 4 * unit(t))) EXPECT_EQ(gv[i], INFINITY);
        else if (ref < vmax * (1 - 4 * unit(t)) && ref > 1e-30L * (t == float64 ? 1e-270L : 1))
          EXPECT_NEAR(static_cast<long double>(gv[i]), ref, 2 * sd * tol_s + 64 * acc_unit(t) * ref);
      }
    }
  }
}

// Scaling by a power of two is exact: std(x * 2^k) is std(x) * 2^k bit for
// bit, whether or not the computation scales internally.
TEST_P(ReduceStatsRangeTest, PowerOfTwoScalingIsExact) {
  for (Dtype t : {float32, float64}) {
    if (skip(t)) continue;
    SCOPED_TRACE(std::string(name(t)));
    const auto v = random_values(3 * 50, t, -1, 3, 9);
    const double s0 = std(make(v, {150}, t, device())).item<double>();
    const double v0 = var(make(v, {150}, t, device())).item<double>();
    for (int k : {-100, -40, 40, 100}) {
      const double f = std::ldexp(1.0, k);
      Tensor xk = make(scaled(v, f), {150}, t, device());
      EXPECT_EQ(std(xk).item<double>(), s0 * f) << "k " << k;
      // var scales by 2^2k: float32 holds it for |k| = 40 only.
      if (t == float64 || std::abs(k) <= 40) EXPECT_EQ(var(xk).item<double>(), v0 * f * f) << "k " << k;
    }
  }
}

// The CPU's bits on every device: one block and several (5000 > 4096), rows
// and columns, float32 and bfloat16, for ordinary, huge and tiny rows.
TEST_P(ReduceStatsRangeTest, CpuBits) {
  for (Dtype t : {float32, bfloat16, float64}) {
    if (skip(t)) continue;
    SCOPED_TRACE(std::string(name(t)));
    for (int64_t n : {37, 5000}) {
      const auto rs = rows(t, n);
      std::vector<double> flat;
      for (const auto& r : rs) flat.insert(flat.end(), r.begin(), r.end());
      Tensor x = make(flat, {static_cast<int64_t>(rs.size()), n}, t, device());
      const Tensor h = x.to(kCPU);
      EXPECT_TRUE(bits(std(x, {1})) == bits(std(h, {1}))) << "std rows, n " << n;
      EXPECT_TRUE(bits(var(x, {1}, 0)) == bits(var(h, {1}, 0))) << "var rows, n " << n;
      const Tensor xt = x.transpose(0, 1).contiguous();
      const Tensor ht = xt.to(kCPU);
      EXPECT_TRUE(bits(std(xt, {0})) == bits(std(ht, {0}))) << "std columns, n " << n;
      // The CPU's own layouts agree: columns and rows give the same bits.
      EXPECT_TRUE(bits(std(ht, {0})) == bits(std(h, {1}))) << "cpu columns vs rows, n " << n;
    }
  }
  // One long output: more than 16 block results (the devices' subtree rounds).
  Tensor x = make(scaled(random_values(70000, float32, -1, 3, 13), 1e30), {70000}, float32, device());
  const Tensor h = x.to(kCPU);
  EXPECT_TRUE(bits(std(x)) == bits(std(h)));
  EXPECT_TRUE(bits(var(x, {}, 0)) == bits(var(h, {}, 0)));
  EXPECT_TRUE(std::isfinite(std(x).item<float>()));
}

CONCORD_INSTANTIATE_DEVICES(ReduceStatsRangeTest);

}  // namespace
}  // namespace concord::test
