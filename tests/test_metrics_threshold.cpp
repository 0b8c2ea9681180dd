// The metrics' threshold rule (metrics.h): score > threshold decided exactly
// in the score's own dtype, on every device; floating scores on the CPU with
// a target on a device are thresholded (or argmax'ed) on the CPU and only the
// labels move, so float64 scores give the CPU's counts on a device without
// float64. Expected counts are worked out by hand from double comparisons.
#include <gtest/gtest.h>

#include <vector>

#include "support/devices.h"

namespace concord {
namespace {

uint64_t downcasts(const Report& r) {
  uint64_t n = 0;
  for (const auto& e : r.entries)
    if (e.path == Path::downcast) n += e.count;
  return n;
}

class MetricThreshold : public test::DeviceTest {};

TEST_P(MetricThreshold, Float64HostScoresKeepTheirPrecision) {
  const Device d = device();
  const std::vector<double> sv{0.50000000001, 0.5, 0.49999999999, 0.7};
  const std::vector<int64_t> tv{1, 1, 0, 0};
  const Tensor scores = from_host(sv.data(), {4}, float64, kCPU);
  const Tensor target = from_host(tv.data(), {4}, int64, d);
  // By hand: positives are sv[i] > 0.5 in double: {1, 0, 0, 1}.
  reset_report();
  auto acc = metrics::Accuracy::binary(0.5);
  {
    DtypePolicyGuard g(DtypePolicy::strict);  // nothing float64 goes to the device
    acc.update(scores, target);
  }
  EXPECT_EQ(downcasts(report()), 0u);
  ASSERT_TRUE(acc.device().has_value());
  EXPECT_EQ(*acc.device(), d);  // counts live with the target
  const metrics::Counts c = acc.counts();
  EXPECT_EQ(c.tp, std::vector<int64_t>{1});
  EXPECT_EQ(c.fn, std::vector<int64_t>{1});
  EXPECT_EQ(c.fp, std::vector<int64_t>{1});
  EXPECT_EQ(c.tn, std::vector<int64_t>{1});
  EXPECT_EQ(acc.compute().item<double>(), 0.5);
  // A later update with scores on the device itself (float32 there) adds to the same counts.
  const std::vector<float> fv{0.9f, 0.1f, 0.2f, 0.8f};
  acc.update(from_host(fv.data(), {4}, float32, d), target);
  EXPECT_EQ(acc.counts().tp, std::vector<int64_t>{2});
  EXPECT_EQ(acc.counts().tn, std::vector<int64_t>{2});
}

TEST_P(MetricThreshold, MulticlassHostScoresArgmaxOnTheHost) {
  const Device d = device();
  // Row 0: class 1 wins by 1e-11 (a tie in float32, where the first max, 0, would win).
  const std::vector<double> sv{0.5, 0.50000000001, 0.2, 0.1, 0.3, 0.6};
  const std::vector<int64_t> tv{1, 2};
  auto p = metrics::Precision::multiclass(3, metrics::Average::none);
  DtypePolicyGuard g(DtypePolicy::strict);
  p.update(from_host(sv.data(), {2, 3}, float64, kCPU), from_host(tv.data(), {2}, int64, d));
  EXPECT_EQ(*p.device(), d);
  EXPECT_EQ(p.counts().tp, (std::vector<int64_t>{0, 1, 1}));
  EXPECT_EQ(p.counts().fp, (std::vector<int64_t>{0, 0, 0}));
}

TEST_P(MetricThreshold, ExactComparisonInTheScoresDtype) {
  // float16 0.50048828125 at threshold 0.5003: positive here (0.50048828125 > 0.5003);
  // torchmetrics rounds 0.5003 to float16 0.50048828125 first and says negative.
  const Device d = device();
  const std::vector<double> sv{0.50048828125, 0.5};
  const std::vector<int64_t> tv{1, 1};
  auto rec = metrics::Recall::binary(0.5003);
  rec.update(from_host(sv.data(), {2}, float64, kCPU).to(d, float16), from_host(tv.data(), {2}, int64, d));
  EXPECT_EQ(rec.counts().tp, std::vector<int64_t>{1});
  EXPECT_EQ(rec.counts().fn, std::vector<int64_t>{1});
}

TEST_P(MetricThreshold, ScoresMovedToAFloat64LessDeviceWereDowncast) {
  const Device d = device();
  if (capabilities(d).can_store(float64)) GTEST_SKIP() << d.str() << " stores float64";
  // The documented other side: moved first, the score becomes float32 0.5 (a
  // counted downcast) and is not above 0.5.
  const double s = 0.50000000001;
  reset_report();
  const Tensor on_dev = from_host(&s, {1}, float64, d);
  EXPECT_GE(downcasts(report()), 1u);
  auto acc = metrics::Accuracy::binary(0.5);
  acc.update(on_dev, ones({1}, int64, d));
  EXPECT_EQ(acc.counts().fn, std::vector<int64_t>{1});
}

TEST(MetricThresholdErrors, DeviceScoresWithAHostTargetStillMismatch) {
  // Only scores may stay on the CPU: a device pred with a host target is a DeviceError.
  const Device d("emu:0");
  auto acc = metrics::Accuracy::binary();
  EXPECT_THROW(acc.update(ones({2}, float32, d), ones({2}, int64, kCPU)), DeviceError);
  EXPECT_THROW(acc.update(ones({2}, int64, kCPU), ones({2}, int64, d)), DeviceError);  // labels, not scores
  EXPECT_FALSE(acc.device().has_value());
}

CONCORD_INSTANTIATE_DEVICES(MetricThreshold);

}  // namespace
}  // namespace concord
