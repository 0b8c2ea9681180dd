// Streaming classification metrics: errors that leave the state unchanged,
// device work without float64 or per-update transfers, and identical bits
// on every device and profile (metrics_checks.h).
#include "metrics_checks.h"

namespace concord::test {
namespace {

// ---------------------------------------------------------------- errors

template <class F>
void expect_error_keeps_state(metrics::Precision& m, F&& bad, const char* type, const std::string& what) {
  const Counts before = m.counts();
  const int64_t samples = m.samples();
  try {
    bad();
    ADD_FAILURE() << what << ": no " << type << " thrown";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("[metrics.Precision]", 0), 0u) << what << ": " << msg;
    const bool right_type = (std::string(type) == "ShapeError" && dynamic_cast<const ShapeError*>(&e)) ||
                            (std::string(type) == "DtypeError" && dynamic_cast<const DtypeError*>(&e)) ||
                            (std::string(type) == "ValueError" && dynamic_cast<const ValueError*>(&e)) ||
                            (std::string(type) == "DeviceError" && dynamic_cast<const DeviceError*>(&e));
    EXPECT_TRUE(right_type) << what << ": expected " << type << ", got: " << msg;
  }
  const Counts after = m.counts();
  EXPECT_EQ(after.tp, before.tp) << what;
  EXPECT_EQ(after.fp, before.fp) << what;
  EXPECT_EQ(after.fn, before.fn) << what;
  EXPECT_EQ(after.tn, before.tn) << what;
  EXPECT_EQ(m.samples(), samples) << what;
}

TEST_P(MetricsTest, BadUpdatesRaiseTypedErrorsAndLeaveStateUnchanged) {
  const Device d = device();
  const Device other = d == kCPU ? Device("emu:0") : kCPU;
  auto lab = [&](std::vector<int64_t> v, const Device& dev) { return tensor(v, dev); };
  auto m = metrics::Precision::multiclass(3, Average::none);
  m.update(lab({0, 1, 2, 2}, d), lab({0, 2, 2, 1}, d));
  auto bad = [&](const char* type, const std::string& what, std::function<void()> f) {
    expect_error_keeps_state(m, f, type, what);
  };
  bad("ShapeError", "label shapes differ", [&] { m.update(lab({0, 1, 2}, d), lab({0, 1}, d)); });
  bad("ShapeError", "scores with the wrong class count", [&] { m.update(rand({2, 4}, float32, d), lab({0, 1}, d)); });
  bad("ShapeError", "scores without a class dim", [&] { m.update(rand({2}, float32, d), lab({0, 1}, d)); });
  bad("ValueError", "target label == num_classes", [&] { m.update(lab({0, 1}, d), lab({0, 3}, d)); });
  bad("ValueError", "negative pred label", [&] { m.update(lab({-1, 1}, d), lab({0, 1}, d)); });
  bad("ValueError", "target out of range with scores", [&] { m.update(rand({2, 3}, float32, d), lab({5, 1}, d)); });
  bad("DtypeError", "bool target", [&] { m.update(lab({0, 1}, d), lab({0, 1}, d).to(bool_)); });
  bad("DtypeError", "float target", [&] { m.update(lab({0, 1}, d), lab({0, 1}, d).to(float32)); });
  bad("DtypeError", "bool pred", [&] { m.update(lab({0, 1}, d).to(bool_), lab({0, 1}, d)); });
  bad("DeviceError", "pred and target on two devices", [&] { m.update(lab({0, 1}, d), lab({0, 1}, other)); });
  bad("DeviceError", "a second update on another device", [&] { m.update(lab({0, 1}, other), lab({0, 1}, other)); });
  bad("ValueError", "undefined pred", [&] { m.update(Tensor(), lab({0, 1}, d)); });
  // A valid update still works after the errors.
  m.update(lab({1}, d), lab({1}, d));
  EXPECT_EQ(m.samples(), 5);
  EXPECT_EQ(m.counts().tp, (std::vector<int64_t>{1, 1, 1}));

  auto b = metrics::Precision::binary();
  b.update(lab({0, 1}, d), lab({1, 1}, d));
  auto bin = [&](const char* type, const std::string& what, std::function<void()> f) {
    expect_error_keeps_state(b, f, type, what);
  };
  bin("ValueError", "binary label 2", [&] { b.update(lab({0, 2}, d), lab({1, 1}, d)); });
  bin("ValueError", "binary target -1", [&] { b.update(lab({0, 1}, d), lab({-1, 1}, d)); });
  bin("DtypeError", "binary float target", [&] { b.update(rand({2}, float32, d), rand({2}, float32, d)); });
  bin("ShapeError", "binary shapes differ", [&] { b.update(rand({2, 1}, float32, d), lab({1, 1}, d)); });
  auto ml = metrics::Precision::multilabel(3);
  ml.update(lab({0, 1, 1}, d).reshape({1, 3}), lab({1, 1, 0}, d).reshape({1, 3}));
  expect_error_keeps_state(ml, [&] { ml.update(rand({2, 4}, float32, d), lab({0, 1, 1, 0, 0, 1, 1, 0}, d).reshape({2, 4})); },
                           "ShapeError", "multilabel with 4 labels for num_labels=3");
}

TEST_P(MetricsTest, ComputeBeforeUpdateRaisesNotComputable) {
  auto m = metrics::Precision::multiclass(3);
  try {
    (void)m.compute();
    ADD_FAILURE() << "compute() before update() did not throw";
  } catch (const metrics::NotComputableError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("[metrics.Precision]", 0), 0u) << msg;
    EXPECT_NE(msg.find("update"), std::string::npos) << msg;
  }
  static_assert(std::is_base_of_v<Error, metrics::NotComputableError>);
  EXPECT_EQ(m.device(), std::nullopt);
  // An update with no samples only validates; the metric is still empty.
  m.update(zeros({0}, int64, device()), zeros({0}, int64, device()));
  EXPECT_THROW((void)m.compute(), metrics::NotComputableError);
  EXPECT_THROW((void)metrics::ConfusionMatrix::binary().compute(), metrics::NotComputableError);
  EXPECT_EQ(m.counts().tp, (std::vector<int64_t>{0, 0, 0}));
  m.update(tensor(std::vector<int64_t>{2}, device()), tensor(std::vector<int64_t>{2}, device()));
  EXPECT_EQ(m.compute().item<double>(), 1.0);
  EXPECT_EQ(m.device(), std::optional<Device>(device()));
  // reset() forgets the counts and the device: another device is fine afterwards.
  m.reset();
  EXPECT_THROW((void)m.compute(), metrics::NotComputableError);
  m.update(tensor(std::vector<int64_t>{1}), tensor(std::vector<int64_t>{0}));
  EXPECT_EQ(m.compute().item<double>(), 0.0);  // class 1 predicted wrongly, class 0 missed: both 0
}

TEST(MetricsConfig, FactoriesRejectBadArguments) {
  EXPECT_THROW(metrics::Precision::multiclass(1), ValueError);
  EXPECT_THROW(metrics::Recall::multilabel(0), ValueError);
  EXPECT_THROW(metrics::FBeta::binary(0.0), ValueError);
  EXPECT_THROW(metrics::FBeta::multiclass(-1.0, 3), ValueError);
  EXPECT_THROW(metrics::Accuracy::binary(std::nan("")), ValueError);
  EXPECT_THROW(metrics::ConfusionMatrix::multiclass(100000), ValueError);
  EXPECT_EQ(metrics::F1::multiclass(4).beta(), 1.0);
  EXPECT_EQ(metrics::Precision::multiclass(4).average(), Average::macro);
  EXPECT_EQ(metrics::Accuracy::multiclass(4).average(), Average::micro);
}

// ---------------------------------------------------------------- no float64 and no per-update transfers

TEST_P(MetricsTest, DeviceWorkUsesNoFloat64AndOnlyTinyTransfers) {
  constexpr int64_t C = 4, N = 5000;
  const Tensor scores = rand({N, C}, float32, device(), 71), target = randint(0, C, {N}, int64, device(), 72);
  const Tensor labels = randint(0, C, {N}, int32, device(), 73);
  reset_report();
  auto m = metrics::FBeta::multiclass(2.0, C, Average::macro);
  m.update(scores, target);
  m.update(labels, target);
  auto b = metrics::Recall::binary(0.25);
  b.update(scores.select(1, 0), eq(target, 0));  // a strided view of the scores
  // This test measures the device path: a device without a native kernel for
  // an op the metrics use (a backend still growing) is skipped, naming it.
  auto require_native = [&](const Report& r) {
    for (const auto& e : r.entries) {
      OpId op;
      if (e.device == device().str() && e.path == Path::fallback && parse_op(e.op, &op) &&
          !capabilities(device()).has_kernel(op, e.dtype))
        GTEST_SKIP() << device().str() << " has no native " << e.op << " in " << name(e.dtype)
                     << " yet: the metrics run through the counted CPU fallback there";
    }
  };
  require_native(report());
  if (IsSkipped()) return;
  auto check = [&](const Report& r, bool host_float64_ok) {
    for (const auto& e : r.entries) {
      if (e.device != device().str()) continue;
      if (!host_float64_ok) EXPECT_NE(e.dtype, float64) << e.op << " ran in float64 on " << e.device;
      EXPECT_NE(e.path, Path::downcast) << e.op << " was downcast on " << e.device;
      EXPECT_NE(e.path, Path::fallback) << e.op << " " << name(e.dtype) << " fell back to the cpu on " << e.device
                                        << " (a missing kernel on the device)";
    }
  };
  check(report(), false);  // updates: int64 counting only, on every device
  (void)m.compute();
  (void)b.compute();
  const Report r = report();
  require_native(r);
  if (IsSkipped()) return;
  check(r, device() == kCPU);  // compute() divides in float64 on the host only
  if (device() != kCPU) {
    // Per update only the label range (at most 4 int64) comes back; compute() copies the counts.
    EXPECT_LE(r.bytes(device().str(), "cpu"), uint64_t{3 * 32 + 2 * 4 * C * 8}) << r;
    EXPECT_EQ(r.bytes("cpu", device().str()), 0u) << r;
  }
}

// ---------------------------------------------------------------- identical bits on every device

TEST(MetricsDevices, IdenticalResultsOnEveryDeviceAndProfile) {
  constexpr int64_t C = 8, N = 20000;
  std::vector<std::vector<double>> first;
  std::string first_label;
  for (const DeviceConfig& cfg : test_devices()) {
    ConfigScope scope(cfg);
    const Device d = cfg.device;
    std::vector<std::vector<double>> got;
    const Tensor scores = rand({N, C}, float32, d, 81), target = randint(0, C, {N}, int64, d, 82);
    const Tensor half_scores = rand({N, C}, float16, d, 83);
    for (Average avg : kAverages) {
      got.push_back(evaluate(Kind::precision, Task::multiclass, C, avg, 1, 0.5, {{scores, target}}).values);
      got.push_back(evaluate(Kind::recall, Task::multiclass, C, avg, 1, 0.5, {{half_scores, target}}).values);
      got.push_back(evaluate(Kind::fbeta, Task::multilabel, C, avg, 0.5, 0.3,
                             {{scores, gt(half_scores, 0.5)}}).values);
      got.push_back(evaluate(Kind::accuracy, Task::multilabel, C, avg, 1, 0.7, {{half_scores, lt(scores, 0.4)}}).values);
    }
    got.push_back(evaluate(Kind::fbeta, Task::binary, 1, Average::micro, 3, 0.3, {{half_scores, gt(scores, 0.6)}}).values);
    if (first.empty()) {
      first = got, first_label = cfg.label;
      continue;
    }
    ASSERT_EQ(got.size(), first.size());
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_TRUE(same_bits(got[i], first[i])) << "result " << i << " on " << cfg.label << " differs from " << first_label;
  }
}

CONCORD_INSTANTIATE_DEVICES(MetricsTest);

}  // namespace
}  // namespace concord::test
