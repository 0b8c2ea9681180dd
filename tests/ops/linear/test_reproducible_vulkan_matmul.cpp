// The reproducible mode's matmul family on every device that claims it, the
// Vulkan devices above all (gemm_canon.comp: the CPU's fma chain on float32
// or float64 bits in integer arithmetic, whatever the device does with
// subnormals, double division or fma):
// bits equal to the CPU's for inputs rich in subnormals, ±0, ±inf, NaN and
// values near overflow and the subnormal boundary; odd sizes, transposed,
// broadcast and offset views, alpha/beta, K = 0, sums long enough to be
// split into several dispatches; the integer dtypes; the scan over four
// Linear(128, 128) layers. Every case also checks that the op ran natively
// (no fallback in the report) where the device claims the mode's op, and
// that no separate NaN pass ran after a claimed float product.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "concord/concord.h"
#include "concord/op_table.h"
#include "support/bits.h"
#include "support/devices.h"
#include "support/native_run.h"

using namespace concord;
using concord::test::first_difference;

namespace {

const Dtype kFloats[] = {float32, float16, bfloat16, float64};
const OpId kFamily[] = {OpId::matmul, OpId::mm,    OpId::bmm,     OpId::mv,    OpId::dot,
                        OpId::outer,  OpId::addmm, OpId::baddbmm, OpId::linear};

// A deterministic generator (the same inputs on every run and device).
struct Lcg {
  uint64_t s;
  uint32_t next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(s >> 33);
  }
  float uniform() { return static_cast<float>(next() % 2000001) / 1e6f - 1.0f; }  // [-1, 1]
  // [-1, 1) with 62 random bits (a full float64 significand).
  double uniform64() { return (next() * 0x1p-31 + next() * 0x1p-62) * 2 - 1; }
};

// special()'s float64 twin: scales whose products reach the float64
// subnormals, cross the smallest normal or near overflow (1e154² = 1e308),
// edges at float64's own limits, ±inf and NaN (one with a payload).
Tensor special64(Shape shape, uint64_t seed) {
  Lcg g{seed * 0x9e3779b97f4a7c15ull + 7};
  using L = std::numeric_limits<double>;
  const double scales[] = {1e-160, 1e-155, 3e-165, 1.0, 1e153, 1e154};
  const double edges[] = {0.0, -0.0, L::denorm_min(), -2.2e-310, L::min(), -L::min(), std::nextafter(L::min(), 0.0),
                          L::max(), -L::max()};
  const double nans[] = {L::infinity(), -L::infinity(), L::quiet_NaN(), std::bit_cast<double>(0xfff8000000000123ull)};
  std::vector<double> v(static_cast<size_t>(numel(shape)));
  for (double& x : v) {
    const uint32_t r = g.next() % 600;
    if (r < 4) x = nans[r];
    else if (r < 34) x = edges[g.next() % std::size(edges)];
    else x = g.uniform64() * scales[g.next() % std::size(scales)];
  }
  return from_vector(v, std::move(shape));
}

// Values in `t`'s range at a few scales whose products reach the float32
// subnormals, cross the smallest normal, or near overflow (half: the float16
// subnormals and 65504), with about 1 in 20 an edge value: ±0, subnormals,
// ±smallest normal, ±largest finite, and (about 1 in 150) ±inf or NaN, some
// with a payload and a sign.
Tensor special(Shape shape, Dtype t, uint64_t seed) {
  if (t == float64) return special64(std::move(shape), seed);
  Lcg g{seed * 0x9e3779b97f4a7c15ull + 7};
  const bool f16 = t == float16;
  const float lo = std::numeric_limits<float>::min(), big = std::numeric_limits<float>::max();
  const std::vector<float> scales = f16 ? std::vector<float>{1e-4f, 3e-3f, 1.0f, 180.0f}
                                        : std::vector<float>{1e-20f, 1e-19f, 4e-23f, 1.0f, 1e18f, 1e19f};
  const std::vector<float> edges = f16 ? std::vector<float>{0.0f, -0.0f, 6e-8f, -3e-6f, 6.1e-5f, -65504.0f, 65504.0f}
                                       : std::vector<float>{0.0f, -0.0f, 1.4e-45f, -2.9e-42f, lo, -lo,
                                                            std::nextafter(lo, 0.0f), big, -big};
  const float nans[] = {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                        std::numeric_limits<float>::quiet_NaN(), std::bit_cast<float>(0xffc00123u)};
  std::vector<float> v(static_cast<size_t>(numel(shape)));
  for (float& x : v) {
    const uint32_t r = g.next() % 600;
    if (r < 4) x = nans[r];
    else if (r < 34) x = edges[g.next() % edges.size()];
    else x = g.uniform() * scales[g.next() % scales.size()];
  }
  return from_vector(v, std::move(shape)).to(t);
}

class ReproducibleVulkanMatmul : public concord::test::DeviceTest {
 protected:
  bool is_vulkan() const { return device().str().rfind("vulkan", 0) == 0; }
  bool claims(OpId op, Dtype t) const { return capabilities(device()).reproducible[static_cast<int>(op)].has(t); }
  // Runs f (one op of the family on the device) and returns its result;
  // where the device claims the op in the mode, checks that it ran there and,
  // on Vulkan, that a float result needed no separate NaN pass (the kernel's
  // NaNs are canonical already).
  template <class F>
  Tensor run(OpId id, Dtype t, F&& f) const {
    reset_report();
    Tensor out = f();
    if (claims(id, t))
      concord::test::expect_ran_on_device(op_name(id), device(), t, op_name(id), is_vulkan() && is_floating(t));
    return out;
  }
};

// The claim itself: on a Vulkan device the whole family, float32, the halves,
// float64 where the device stores it, and the integers, whatever its float
// controls (lavapipe keeps no subnormals, float32 or float64).
TEST_P(ReproducibleVulkanMatmul, VulkanClaimsTheFamily) {
  if (!is_vulkan()) GTEST_SKIP() << "the claim is Vulkan's";
  for (OpId op : kFamily)
    for (Dtype t : {float32, float16, bfloat16, float64, uint8, int8, int16, int32, int64})
      if (capabilities(device()).can_store(t)) EXPECT_TRUE(claims(op, t)) << op_def(op).name << " " << name(t);
}

// mm at odd sizes (1, 7, 33, 65 in M, N and K), alpha and beta.
TEST_P(ReproducibleVulkanMatmul, OddSizesWithEdgeValues) {
  ReproducibleGuard on(true);
  // The last two cross Vulkan's 64- and 32-wide register-blocked tiles.
  const int64_t sizes[][3] = {{1, 1, 1}, {7, 33, 65}, {65, 7, 33}, {33, 65, 7},
                              {1, 65, 33}, {65, 1, 7}, {65, 65, 33}, {33, 65, 65}};
  for (Dtype t : kFloats) {
    if (!capabilities(device()).can_store(t)) continue;
    uint64_t seed = 10;
    for (const auto& s : sizes) {
      SCOPED_TRACE(std::string(name(t)) + " M,N,K = " + std::to_string(s[0]) + "," + std::to_string(s[1]) + "," +
                   std::to_string(s[2]));
      const Tensor a = special({s[0], s[2]}, t, ++seed), b = special({s[2], s[1]}, t, ++seed);
      const Tensor c = special({s[0], s[1]}, t, ++seed);
      const Tensor da = a.to(device()), db = b.to(device()), dc = c.to(device());
      EXPECT_EQ(first_difference(run(OpId::mm, t, [&] { return mm(da, db); }), mm(a, b)), "") << "mm";
      EXPECT_EQ(first_difference(run(OpId::addmm, t, [&] { return addmm(dc, da, db, Scalar(-0.75), Scalar(3)); }),
                                 addmm(c, a, b, Scalar(-0.75), Scalar(3))),
                "")
          << "addmm";
    }
  }
}

// Transposed, broadcast and offset operands, and the vector products.
TEST_P(ReproducibleVulkanMatmul, ViewsAndVectorProducts) {
  ReproducibleGuard on(true);
  for (Dtype t : kFloats) {
    if (!capabilities(device()).can_store(t)) continue;
    SCOPED_TRACE(std::string(name(t)));
    const Tensor at = special({33, 7}, t, 1), b = special({33, 65}, t, 2), bt = special({65, 33}, t, 3);
    const Tensor a3 = special({2, 7, 33}, t, 4), big = special({9, 70}, t, 5), in = special({65}, t, 6);
    const Tensor v = special({33}, t, 7), w = special({65}, t, 8), c3 = special({2, 7, 65}, t, 9);
    const Tensor dat = at.to(device()), db = b.to(device()), dbt = bt.to(device()), da3 = a3.to(device());
    const Tensor dbig = big.to(device()), din = in.to(device()), dv = v.to(device()), dw = w.to(device());
    const Tensor dc3 = c3.to(device());
    EXPECT_EQ(first_difference(run(OpId::mm, t, [&] { return mm(dat.t(), dbt.t()); }), mm(at.t(), bt.t())), "")
        << "both transposed";
    EXPECT_EQ(first_difference(run(OpId::matmul, t, [&] { return matmul(da3, db); }), matmul(a3, b)), "")
        << "b broadcast over the batch";
    EXPECT_EQ(first_difference(run(OpId::matmul, t, [&] { return matmul(dat.t().expand({3, 7, 33}), db); }),
                               matmul(at.t().expand({3, 7, 33}), b)),
              "")
        << "a expanded (batch stride 0)";
    // Batch dims whose strides do not merge: one kernel call per outer batch.
    const Tensor a4 = special({3, 2, 7, 33}, t, 10), da4 = a4.to(device());
    EXPECT_EQ(first_difference(run(OpId::matmul, t, [&] { return matmul(da4.transpose(0, 1), db); }),
                               matmul(a4.transpose(0, 1), b)),
              "")
        << "unmergeable batch dims";
    EXPECT_EQ(first_difference(run(OpId::mm, t, [&] { return mm(dbig.narrow(0, 1, 7).narrow(1, 4, 33), dbt.t()); }),
                               mm(big.narrow(0, 1, 7).narrow(1, 4, 33), bt.t())),
              "")
        << "offset views";
    EXPECT_EQ(first_difference(run(OpId::bmm, t, [&] { return bmm(da3, db.expand({2, 33, 65})); }),
                               bmm(a3, b.expand({2, 33, 65}))),
              "")
        << "bmm";
    EXPECT_EQ(first_difference(
                  run(OpId::baddbmm, t,
                      [&] { return baddbmm(dc3, da3, db.expand({2, 33, 65}), Scalar(0.5), Scalar(-2)); }),
                  baddbmm(c3, a3, b.expand({2, 33, 65}), Scalar(0.5), Scalar(-2))),
              "")
        << "baddbmm";
    EXPECT_EQ(first_difference(run(OpId::addmm, t, [&] { return addmm(din, dat.t(), db); }), addmm(in, at.t(), b)), "")
        << "addmm, row input";
    EXPECT_EQ(first_difference(run(OpId::mv, t, [&] { return mv(dbt, dv); }), mv(bt, v)), "") << "mv";
    EXPECT_EQ(first_difference(run(OpId::dot, t, [&] { return dot(dv, db.select(1, 3)); }), dot(v, b.select(1, 3))), "")
        << "dot, strided";
    EXPECT_EQ(first_difference(run(OpId::outer, t, [&] { return outer(dv, dw); }), outer(v, w)), "") << "outer";
  }
}

// K = 0: an empty sum, beta·input (NaN, inf and subnormals in it) or zeros.
TEST_P(ReproducibleVulkanMatmul, EmptySum) {
  ReproducibleGuard on(true);
  for (Dtype t : kFloats) {
    if (!capabilities(device()).can_store(t)) continue;
    SCOPED_TRACE(std::string(name(t)));
    const Tensor a = zeros({7, 0}, t), b = zeros({0, 33}, t), c = special({7, 33}, t, 21), e = zeros({0}, t);
    const Tensor da = a.to(device()), db = b.to(device()), dc = c.to(device()), de = e.to(device());
    EXPECT_EQ(first_difference(run(OpId::mm, t, [&] { return mm(da, db); }), mm(a, b)), "") << "mm";
    for (double beta : {0.3, -1.0, 1e-50, 0.0}) {
      EXPECT_EQ(first_difference(run(OpId::addmm, t, [&] { return addmm(dc, da, db, Scalar(beta), Scalar(2)); }),
                                 addmm(c, a, b, Scalar(beta), Scalar(2))),
                "")
          << "addmm, beta " << beta;
    }
    EXPECT_EQ(first_difference(run(OpId::dot, t, [&] { return dot(de, de); }), dot(e, e)), "") << "dot";
  }
}

// -0 sums stay -0 (the chain starts from -0), beta too small for float32 is
// 0 (out not read), and every NaN is the canonical one.
TEST_P(ReproducibleVulkanMatmul, SignedZeroTinyBetaAndCanonicalNan) {
  ReproducibleGuard on(true);
  for (Dtype t : kFloats) {
    if (!capabilities(device()).can_store(t)) continue;
    SCOPED_TRACE(std::string(name(t)));
    const Tensor z = full({3, 5}, Scalar(-0.0), t), o = ones({5, 2}, t), dz = z.to(device()), dob = o.to(device());
    const Tensor nz = run(OpId::mm, t, [&] { return mm(dz, dob); });
    EXPECT_EQ(first_difference(nz, mm(z, o)), "");
    for (double x : nz.to(kCPU).to(float64).to_vector<double>()) EXPECT_TRUE(x == 0 && std::signbit(x));
    const Tensor inf = full({3, 2}, Scalar(std::numeric_limits<double>::infinity()), t), dinf = inf.to(device());
    EXPECT_EQ(first_difference(run(OpId::addmm, t, [&] { return addmm(dinf, dz, dob, Scalar(1e-50)); }),
                               addmm(inf, z, o, Scalar(1e-50))),
              "")
        << "beta 1e-50";
    const float payload = std::bit_cast<float>(0xffc00123u);
    const Tensor n = from_vector(std::vector<float>{payload, 1, 2, 3}, {2, 2}).to(t), dn = n.to(device());
    EXPECT_EQ(first_difference(run(OpId::mm, t, [&] { return mm(dn, dn); }), mm(n, n)), "") << "NaN";
  }
}

// Sums longer than one dispatch takes (4096 / RB² on Vulkan): the chain carries over.
TEST_P(ReproducibleVulkanMatmul, LongSums) {
  ReproducibleGuard on(true);
  for (Dtype t : kFloats) {
    if (!capabilities(device()).can_store(t)) continue;
    SCOPED_TRACE(std::string(name(t)));
    const Tensor x = randn({8225}, t, kCPU, 31), y = randn({8225}, t, kCPU, 32);
    const Tensor dx = x.to(device()), dy = y.to(device());
    EXPECT_EQ(first_difference(run(OpId::dot, t, [&] { return dot(dx, dy); }), dot(x, y)), "") << "dot";
    const Tensor a = randn({3, 4129}, t, kCPU, 33), b = randn({4129, 2}, t, kCPU, 34), c = randn({3, 2}, t, kCPU, 35);
    const Tensor da = a.to(device()), db = b.to(device()), dc = c.to(device());
    EXPECT_EQ(first_difference(run(OpId::addmm, t, [&] { return addmm(dc, da, db, Scalar(1), Scalar(0.5)); }),
                               addmm(c, a, b, Scalar(1), Scalar(0.5))),
              "")
        << "addmm";
    // Register-blocked tiles take shorter chunks (256 at the 64-wide tile).
    const Tensor a2 = randn({65, 1100}, t, kCPU, 36), b2 = randn({1100, 66}, t, kCPU, 37);
    const Tensor da2 = a2.to(device()), db2 = b2.to(device());
    EXPECT_EQ(first_difference(run(OpId::mm, t, [&] { return mm(da2, db2); }), mm(a2, b2)), "") << "mm";
  }
}

// float64 sums that stay among the subnormals (products near 1e-309 and
// 1e-320, alpha and beta rounding them again) and sums that overflow
// (products up to 1.5e308): lavapipe keeps no float64 subnormals and fuses
// nothing, so only the integer xd_fma chain gives these bits.
TEST_P(ReproducibleVulkanMatmul, Float64SubnormalAndOverflowSums) {
  if (!capabilities(device()).can_store(float64)) GTEST_SKIP() << "no float64 on " << device().str();
  ReproducibleGuard on(true);
  Lcg g{77};
  auto fill = [&](Shape shape, double scale) {
    std::vector<double> v(static_cast<size_t>(numel(shape)));
    for (double& x : v) x = g.uniform64() * scale;
    return from_vector(v, std::move(shape));
  };
  const std::pair<double, double> scales[] = {{1e-160, 3e-149}, {1e-160, 1e-160}, {1e154, 1.5e154}};
  for (const auto& [sa, sb] : scales) {
    SCOPED_TRACE(sa < 1 ? (sb > 1e-150 ? "products near 1e-309" : "products near 1e-320") : "products up to 1.5e308");
    const Tensor a = fill({7, 9}, sa), b = fill({9, 33}, sb), c = fill({7, 33}, sa * sb);
    const Tensor da = a.to(device()), db = b.to(device()), dc = c.to(device());
    const Tensor want = mm(a, b);
    // The data does what it says: most results subnormal, or some overflowed.
    int64_t tiny = 0, inf = 0;
    for (double x : want.to_vector<double>()) {
      tiny += x != 0 && std::abs(x) < std::numeric_limits<double>::min();
      inf += std::isinf(x);
    }
    EXPECT_TRUE(sa < 1 ? tiny > want.numel() / 2 : inf > 0) << tiny << " subnormal, " << inf << " inf";
    EXPECT_EQ(first_difference(run(OpId::mm, float64, [&] { return mm(da, db); }), want), "") << "mm";
    EXPECT_EQ(first_difference(run(OpId::addmm, float64, [&] { return addmm(dc, da, db, Scalar(-1.5), Scalar(0.75)); }),
                               addmm(c, a, b, Scalar(-1.5), Scalar(0.75))),
              "")
        << "addmm";
  }
}

// Integers wrap exactly like the CPU's loop.
TEST_P(ReproducibleVulkanMatmul, Integers) {
  ReproducibleGuard on(true);
  for (Dtype t : {uint8, int8, int16, int32, int64}) {
    if (!capabilities(device()).can_store(t)) continue;
    SCOPED_TRACE(std::string(name(t)));
    const Tensor a = randint(-3000000, 3000000, {7, 33}, int64, kCPU, 41).to(t);
    const Tensor b = randint(-3000000, 3000000, {33, 65}, int64, kCPU, 42).to(t);
    const Tensor c = randint(-100, 100, {65}, int64, kCPU, 43).to(t);
    const Tensor da = a.to(device()), db = b.to(device()), dc = c.to(device());
    EXPECT_EQ(first_difference(run(OpId::mm, t, [&] { return mm(da, db); }), mm(a, b)), "") << "mm";
    EXPECT_EQ(first_difference(run(OpId::addmm, t, [&] { return addmm(dc, da, db, Scalar(3), Scalar(-7)); }),
                               addmm(c, a, b, Scalar(3), Scalar(-7))),
              "")
        << "addmm";
  }
}

// The scan over a linear layer: four Linear(128, 128) over a [3, 4, 5, 128]
// input, each layer's output the next one's input, without and with bias
// (the bias is the product's addend, copied into out: no elementwise add).
TEST_P(ReproducibleVulkanMatmul, ScanOverFourLinearLayers) {
  ReproducibleGuard on(true);
  for (Dtype t : kFloats) {
    if (!capabilities(device()).can_store(t)) continue;
    for (bool with_bias : {false, true}) {
      SCOPED_TRACE(std::string(name(t)) + (with_bias ? " with bias" : " without bias"));
      Tensor h = randn({3, 4, 5, 128}, t, kCPU, 51), dh = h.to(device());
      for (int layer = 0; layer < 4; ++layer) {
        const uint64_t s = 60 + 2 * static_cast<uint64_t>(layer);
        const Tensor w = mul(randn({128, 128}, t, kCPU, s), Scalar(0.09));
        const Tensor bias = with_bias ? randn({128}, t, kCPU, s + 1) : Tensor();
        const Tensor dw = w.to(device()), dbias = with_bias ? bias.to(device()) : Tensor();
        h = linear(h, w, bias);
        dh = run(OpId::linear, t, [&] { return linear(dh, dw, dbias); });
      }
      EXPECT_EQ(first_difference(dh, h), "");
    }
  }
}

CONCORD_INSTANTIATE_DEVICES(ReproducibleVulkanMatmul);

}  // namespace
