// Shared by the metrics suites (test_metrics, test_metrics_devices): the
// host reference (plain loops over labels) and helpers that run a metric
// over a stream of batches.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <random>

#include "concord/concord.h"
#include "concord/metrics.h"
#include "support/devices.h"

namespace concord::test {
namespace {

using metrics::Average;
using metrics::Counts;
using metrics::Normalize;
using metrics::Task;

constexpr Average kAverages[] = {Average::none, Average::micro, Average::macro, Average::weighted};

// ---------------------------------------------------------------- host reference

struct Ref { std::vector<int64_t> tp, fp, fn, tn; };

Ref zeros_ref(size_t k) { return {std::vector<int64_t>(k), std::vector<int64_t>(k), std::vector<int64_t>(k), std::vector<int64_t>(k)}; }

// One-vs-rest counts of label vectors.
Ref ref_multiclass(const std::vector<int64_t>& p, const std::vector<int64_t>& t, int64_t classes) {
  Ref r = zeros_ref(static_cast<size_t>(classes));
  for (size_t i = 0; i < p.size(); ++i)
    for (int64_t c = 0; c < classes; ++c) {
      const bool pp = p[i] == c, tt = t[i] == c;
      r.tp[c] += pp && tt, r.fp[c] += pp && !tt, r.fn[c] += !pp && tt, r.tn[c] += !pp && !tt;
    }
  return r;
}

// Counts of 0/1 vectors laid out [N, K, R].
Ref ref_binary_like(const std::vector<int>& p, const std::vector<int>& t, int64_t k, int64_t r) {
  Ref out = zeros_ref(static_cast<size_t>(k));
  for (size_t i = 0; i < p.size(); ++i) {
    const size_t c = (i / static_cast<size_t>(r)) % static_cast<size_t>(k);
    const bool pp = p[i] != 0, tt = t[i] != 0;
    out.tp[c] += pp && tt, out.fp[c] += pp && !tt, out.fn[c] += !pp && tt, out.tn[c] += !pp && !tt;
  }
  return out;
}

enum class Kind { accuracy, precision, recall, fbeta };
const char* kind_name(Kind k) {
  switch (k) {
    case Kind::accuracy: return "accuracy";
    case Kind::precision: return "precision";
    case Kind::recall: return "recall";
    default: return "fbeta";
  }
}

double ratio(double a, double b) { return b == 0 ? 0.0 : a / b; }

double ref_one(Kind kind, Task task, double beta, double tp, double fp, double fn, double tn) {
  switch (kind) {
    case Kind::accuracy: return task == Task::multiclass ? ratio(tp, tp + fn) : ratio(tp + tn, tp + fp + fn + tn);
    case Kind::precision: return ratio(tp, tp + fp);
    case Kind::recall: return ratio(tp, tp + fn);
    default: return ratio((1 + beta * beta) * tp, (1 + beta * beta) * tp + beta * beta * fn + fp);
  }
}

std::vector<double> ref_values(Kind kind, Task task, Average avg, double beta, const Ref& r) {
  const size_t k = r.tp.size();
  std::vector<double> per;
  for (size_t c = 0; c < k; ++c)
    per.push_back(ref_one(kind, task, beta, double(r.tp[c]), double(r.fp[c]), double(r.fn[c]), double(r.tn[c])));
  if (task == Task::binary || avg == Average::none) return per;
  if (avg == Average::micro) {
    double tp = 0, fp = 0, fn = 0, tn = 0;
    for (size_t c = 0; c < k; ++c) tp += double(r.tp[c]), fp += double(r.fp[c]), fn += double(r.fn[c]), tn += double(r.tn[c]);
    return {ref_one(kind, task, beta, tp, fp, fn, tn)};
  }
  double num = 0, den = 0;
  for (size_t c = 0; c < k; ++c) {
    if (avg == Average::macro) {
      const bool absent = r.tp[c] == 0 && r.fp[c] == 0 && r.fn[c] == 0;
      if (task == Task::multiclass && absent) continue;
      num += per[c], den += 1;
    } else {
      num += double(r.tp[c] + r.fn[c]) * per[c], den += double(r.tp[c] + r.fn[c]);
    }
  }
  return {ratio(num, den)};
}

// ---------------------------------------------------------------- running the metrics

using Batches = std::vector<std::pair<Tensor, Tensor>>;

struct Outcome {
  std::vector<double> values;
  Counts counts;
};

template <class M>
Outcome feed(M m, const Batches& batches) {
  for (const auto& [p, t] : batches) m.update(p, t);
  return {m.compute().template to_vector<double>(), m.counts()};
}

// One metric of `kind` for `task`, fed with `batches`.
Outcome evaluate(Kind kind, Task task, int64_t classes, Average avg, double beta, double threshold,
                 const Batches& batches) {
  using namespace metrics;
  switch (kind) {
    case Kind::accuracy:
      if (task == Task::binary) return feed(Accuracy::binary(threshold), batches);
      if (task == Task::multiclass) return feed(Accuracy::multiclass(classes, avg), batches);
      return feed(Accuracy::multilabel(classes, avg, threshold), batches);
    case Kind::precision:
      if (task == Task::binary) return feed(Precision::binary(threshold), batches);
      if (task == Task::multiclass) return feed(Precision::multiclass(classes, avg), batches);
      return feed(Precision::multilabel(classes, avg, threshold), batches);
    case Kind::recall:
      if (task == Task::binary) return feed(Recall::binary(threshold), batches);
      if (task == Task::multiclass) return feed(Recall::multiclass(classes, avg), batches);
      return feed(Recall::multilabel(classes, avg, threshold), batches);
    default:
      if (beta == 1.0) {
        if (task == Task::binary) return feed(F1::binary(threshold), batches);
        if (task == Task::multiclass) return feed(F1::multiclass(classes, avg), batches);
        return feed(F1::multilabel(classes, avg, threshold), batches);
      }
      if (task == Task::binary) return feed(FBeta::binary(beta, threshold), batches);
      if (task == Task::multiclass) return feed(FBeta::multiclass(beta, classes, avg), batches);
      return feed(FBeta::multilabel(beta, classes, avg, threshold), batches);
  }
}

void expect_counts(const Counts& c, const Ref& r, const std::string& what) {
  EXPECT_EQ(c.tp, r.tp) << what;
  EXPECT_EQ(c.fp, r.fp) << what;
  EXPECT_EQ(c.fn, r.fn) << what;
  EXPECT_EQ(c.tn, r.tn) << what;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

// Every metric and average on `make(device)`'s batches: against the reference,
// and bit for bit against the same data on the cpu.
void check_all(Task task, int64_t classes, double threshold, const Ref& ref,
               const std::function<Batches(const Device&)>& make, const Device& device) {
  const Batches on_device = make(device), on_cpu = make(kCPU);
  const std::vector<Average> avgs = task == Task::binary ? std::vector<Average>{Average::micro}
                                                         : std::vector<Average>(std::begin(kAverages), std::end(kAverages));
  for (Kind kind : {Kind::accuracy, Kind::precision, Kind::recall, Kind::fbeta})
    for (double beta : kind == Kind::fbeta ? std::vector<double>{0.5, 1.0, 2.0} : std::vector<double>{1.0})
      for (Average avg : avgs) {
        const std::string what = std::string(kind_name(kind)) + " beta=" + std::to_string(beta) + " average=" +
                                 std::string(metrics::name(avg));
        const Outcome got = evaluate(kind, task, classes, avg, beta, threshold, on_device);
        const std::vector<double> want = ref_values(kind, task, avg, beta, ref);
        ASSERT_EQ(got.values.size(), want.size()) << what;
        for (size_t i = 0; i < want.size(); ++i) EXPECT_DOUBLE_EQ(got.values[i], want[i]) << what << " [" << i << "]";
        expect_counts(got.counts, ref, what);
        const Outcome cpu = evaluate(kind, task, classes, avg, beta, threshold, on_cpu);
        EXPECT_TRUE(same_bits(got.values, cpu.values)) << what << ": differs from the cpu";
      }
}

std::vector<int64_t> random_labels(size_t n, int64_t classes, uint32_t seed) {
  std::mt19937 g(seed);
  std::uniform_int_distribution<int64_t> d(0, classes - 1);
  std::vector<int64_t> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

// Splits [N, ...] tensors into batches along dim 0.
Batches batches_of(const Tensor& p, const Tensor& t, int64_t parts) {
  Batches b;
  const int64_t n = t.shape()[0];
  for (int64_t i = 0; i < parts; ++i) {
    const int64_t s = n * i / parts, e = n * (i + 1) / parts;
    b.emplace_back(p.slice(0, s, e), t.slice(0, s, e));
  }
  return b;
}

class MetricsTest : public DeviceTest {};
}  // namespace
}  // namespace concord::test
