// Streaming classification metrics: exact counts and the float64 formulas
// against plain host loops, identical bits on every device, streaming, merge,
// and errors that leave the state unchanged.
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

// ---------------------------------------------------------------- multiclass

TEST_P(MetricsTest, MulticlassLabelsEveryMetricAndAverage) {
  constexpr int64_t C = 7;
  // Class 6 never occurs (macro skips it), class 3 is never predicted (precision 0).
  std::vector<int64_t> t = random_labels(1500, 6, 11), p = random_labels(1500, 6, 12);
  std::mt19937 g(13);
  for (size_t i = 0; i < p.size(); ++i) {
    if (g() % 10 < 6) p[i] = t[i];
    if (p[i] == 3) p[i] = 4;
  }
  const Ref ref = ref_multiclass(p, t, C);
  for (Dtype pd : {uint8, int8, int16, int32, int64})
    for (Dtype td : {pd, int64}) {
      SCOPED_TRACE(std::string(name(pd)) + " pred, " + std::string(name(td)) + " target");
      check_all(Task::multiclass, C, 0.5, ref, [&](const Device& d) {
        return batches_of(tensor(p, d).to(pd), tensor(t, d).to(td), 3);
      }, device());
    }
}

TEST_P(MetricsTest, MulticlassScoresArgmaxOverClassDim) {
  constexpr int64_t C = 5, N = 600, D = 3;
  for (Dtype sd : {float16, bfloat16, float32, float64}) {
    if (!can_store(GetParam(), sd)) {
      std::cout << "[ skipped  ] " << name(sd) << " scores: " << GetParam().label << " cannot store it\n";
      continue;
    }
    for (bool extra_dim : {false, true}) {
      SCOPED_TRACE(std::string(name(sd)) + (extra_dim ? " scores [N, C, D]" : " scores [N, C]"));
      const Shape sshape = extra_dim ? Shape{N, C, D} : Shape{N, C};
      const Shape tshape = extra_dim ? Shape{N, D} : Shape{N};
      // Philox: the same bits on every device. Low-precision dtypes give ties: the first maximum wins.
      const std::vector<double> s = rand(sshape, sd, kCPU, 21).to_vector<double>();
      const std::vector<int64_t> t = randint(0, C, tshape, int64, kCPU, 22).to_vector<int64_t>();
      std::vector<int64_t> p;
      const int64_t inner = extra_dim ? D : 1;
      for (int64_t n = 0; n < N; ++n)
        for (int64_t j = 0; j < inner; ++j) {
          int64_t best = 0;
          for (int64_t c = 1; c < C; ++c)
            if (s[(n * C + c) * inner + j] > s[(n * C + best) * inner + j]) best = c;
          p.push_back(best);
        }
      const Ref ref = ref_multiclass(p, t, C);
      check_all(Task::multiclass, C, 0.5, ref, [&](const Device& d) {
        return batches_of(rand(sshape, sd, d, 21), randint(0, C, tshape, int64, d, 22), 2);
      }, device());
    }
  }
}

// ---------------------------------------------------------------- binary and multilabel

// 0/1 labels and scores including values exactly at (and next to) the threshold.
std::vector<float> scores_with_ties(size_t n, double threshold, uint32_t seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  std::vector<float> v(n);
  const float at = static_cast<float>(threshold);
  for (size_t i = 0; i < n; ++i) {
    switch (g() % 8) {
      case 0: v[i] = at; break;
      case 1: v[i] = std::nextafter(at, 2.f); break;
      case 2: v[i] = std::nextafter(at, -1.f); break;
      default: v[i] = u(g);
    }
  }
  return v;
}

TEST_P(MetricsTest, BinaryLabelsAndScores) {
  constexpr int64_t N = 900;
  const std::vector<int64_t> t64 = random_labels(N, 2, 31);
  std::vector<int> t(t64.begin(), t64.end());
  // Labels of every integer dtype and bool, shaped [N] and [N/3, 3].
  std::vector<int64_t> p64 = random_labels(N, 2, 32);
  std::vector<int> p(p64.begin(), p64.end());
  const Ref ref = ref_binary_like(p, t, 1, 1);
  for (Dtype pd : {bool_, uint8, int32, int64})
    for (Dtype td : {bool_, int64})
      for (bool two_d : {false, true}) {
        SCOPED_TRACE(std::string(name(pd)) + " labels, " + std::string(name(td)) + " target" + (two_d ? " [N/3, 3]" : ""));
        check_all(Task::binary, 1, 0.5, ref, [&](const Device& d) {
          Tensor pt = tensor(p64, d).to(pd), tt = tensor(t64, d).to(td);
          if (two_d) pt = pt.reshape({N / 3, 3}), tt = tt.reshape({N / 3, 3});
          return batches_of(pt, tt, 3);
        }, device());
      }
  // Scores: positive when score > threshold, exactly, in every floating dtype.
  for (Dtype sd : {float16, bfloat16, float32})
    for (double thr : {0.5, 0.3, 0.0}) {
      SCOPED_TRACE(std::string(name(sd)) + " scores, threshold " + std::to_string(thr));
      const std::vector<float> raw = scores_with_ties(N, thr, 33);
      const std::vector<double> s = tensor(raw).to(sd).to_vector<double>();  // values as stored
      std::vector<int> ps(N);
      for (size_t i = 0; i < s.size(); ++i) ps[i] = s[i] > thr;
      check_all(Task::binary, 1, thr, ref_binary_like(ps, t, 1, 1), [&](const Device& d) {
        return batches_of(tensor(raw, d).to(sd), tensor(t64, d), 2);
      }, device());
    }
}

TEST_P(MetricsTest, MultilabelLabelsAndScores) {
  constexpr int64_t N = 400, L = 5, R = 3;
  for (bool extra_dim : {false, true}) {
    const int64_t r = extra_dim ? R : 1;
    const Shape shape = extra_dim ? Shape{N, L, R} : Shape{N, L};
    std::vector<int64_t> t64 = random_labels(static_cast<size_t>(N * L * r), 2, 41);
    std::vector<int64_t> p64 = random_labels(static_cast<size_t>(N * L * r), 2, 42);
    // Label 2 is never positive, in pred or target: it still counts in macro (value 0 or 1).
    for (size_t i = 0; i < t64.size(); ++i)
      if ((i / static_cast<size_t>(r)) % L == 2) t64[i] = p64[i] = 0;
    const std::vector<int> t(t64.begin(), t64.end()), p(p64.begin(), p64.end());
    for (Dtype pd : {bool_, int32}) {
      SCOPED_TRACE(std::string(name(pd)) + " labels" + (extra_dim ? " [N, L, R]" : " [N, L]"));
      check_all(Task::multilabel, L, 0.5, ref_binary_like(p, t, L, r), [&](const Device& d) {
        return batches_of(tensor(p64, d).to(pd).reshape(shape), tensor(t64, d).to(bool_).reshape(shape), 4);
      }, device());
    }
    SCOPED_TRACE(extra_dim ? "float32 scores [N, L, R]" : "float32 scores [N, L]");
    const std::vector<float> raw = scores_with_ties(static_cast<size_t>(N * L * r), 0.5, 43);
    std::vector<int> ps(raw.size());
    for (size_t i = 0; i < raw.size(); ++i) ps[i] = raw[i] > 0.5;
    check_all(Task::multilabel, L, 0.5, ref_binary_like(ps, t, L, r), [&](const Device& d) {
      return batches_of(tensor(raw, d).reshape(shape), tensor(t64, d).reshape(shape), 2);
    }, device());
  }
}

// ---------------------------------------------------------------- confusion matrix

std::vector<double> normalized_ref(const std::vector<int64_t>& m, int64_t n, Normalize how) {
  std::vector<double> out(m.size());
  const int64_t count = static_cast<int64_t>(m.size()) / (n * n);
  for (int64_t b = 0; b < count; ++b)
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        int64_t den = 0;
        for (int64_t k = 0; k < n; ++k) {
          if (how == Normalize::target) den += m[b * n * n + i * n + k];
          if (how == Normalize::pred) den += m[b * n * n + k * n + j];
        }
        if (how == Normalize::all)
          for (int64_t k = 0; k < n * n; ++k) den += m[b * n * n + k];
        out[b * n * n + i * n + j] = den == 0 ? 0.0 : double(m[b * n * n + i * n + j]) / double(den);
      }
  return out;
}

void check_confusion(metrics::ConfusionMatrix m, const Batches& batches, const std::vector<int64_t>& want,
                     const Shape& shape, int64_t n) {
  for (const auto& [p, t] : batches) m.update(p, t);
  const Tensor got = m.compute();
  EXPECT_EQ(got.device(), kCPU);
  EXPECT_EQ(got.shape(), shape);
  if (m.normalize() == Normalize::none) {
    EXPECT_EQ(got.dtype(), int64);
    EXPECT_EQ(got.to_vector<int64_t>(), want);
  } else {
    EXPECT_EQ(got.dtype(), float64);
    const std::vector<double> g = got.to_vector<double>(), w = normalized_ref(want, n, m.normalize());
    for (size_t i = 0; i < w.size(); ++i) EXPECT_DOUBLE_EQ(g[i], w[i]) << name(m.normalize()) << " [" << i << "]";
  }
}

TEST_P(MetricsTest, ConfusionMatrixEveryTask) {
  constexpr int64_t C = 5, N = 700, L = 3;
  const std::vector<int64_t> t = random_labels(N, C - 1, 51), p = random_labels(N, C, 52);  // class 4 never true
  std::vector<int64_t> cm(C * C, 0);
  for (size_t i = 0; i < t.size(); ++i) ++cm[t[i] * C + p[i]];
  const std::vector<int64_t> tb = random_labels(N * L, 2, 53), pb = random_labels(N * L, 2, 54);
  std::vector<int64_t> bin(4, 0), ml(L * 4, 0);
  for (size_t i = 0; i < tb.size(); ++i) ++ml[(i % L) * 4 + tb[i] * 2 + pb[i]];
  for (size_t i = 0; i < N; ++i) ++bin[tb[i] * 2 + pb[i]];
  for (Normalize how : {Normalize::none, Normalize::target, Normalize::pred, Normalize::all}) {
    SCOPED_TRACE(name(how));
    const Device d = device();
    check_confusion(metrics::ConfusionMatrix::multiclass(C, how), batches_of(tensor(p, d).to(int16), tensor(t, d), 3),
                    cm, Shape{C, C}, C);
    check_confusion(metrics::ConfusionMatrix::binary(0.5, how),
                    batches_of(tensor(pb, d).slice(0, 0, N), tensor(tb, d).slice(0, 0, N).to(bool_), 2), bin,
                    Shape{2, 2}, 2);
    check_confusion(metrics::ConfusionMatrix::multilabel(L, 0.5, how),
                    batches_of(tensor(pb, d).reshape({N, L}).to(float32), tensor(tb, d).reshape({N, L}), 2), ml,
                    Shape{L, 2, 2}, 2);
  }
  // counts() of the multiclass matrix: the one-vs-rest counts.
  auto m = metrics::ConfusionMatrix::multiclass(C);
  m.update(tensor(p, device()), tensor(t, device()));
  expect_counts(m.counts(), ref_multiclass(p, t, C), "confusion counts");
}

// ---------------------------------------------------------------- streaming, merge

TEST_P(MetricsTest, TenMillionSampleStreamCountsExactly) {
  constexpr int64_t C = 10, kChunk = 1'000'000, kChunks = 10;
  auto precision = metrics::Precision::multiclass(C, Average::none);
  Ref ref = zeros_ref(C);
  int64_t correct = 0;
  for (int64_t i = 0; i < kChunks; ++i) {
    const Tensor p = randint(0, C, {kChunk}, int64, device(), 1000 + static_cast<uint64_t>(i));
    const Tensor t = randint(0, C, {kChunk}, int64, device(), 2000 + static_cast<uint64_t>(i));
    precision.update(p, t);
    const std::vector<int64_t> hp = p.to_vector<int64_t>(), ht = t.to_vector<int64_t>();
    for (size_t j = 0; j < hp.size(); ++j) {
      ++(hp[j] == ht[j] ? ref.tp[hp[j]] : ref.fp[hp[j]]);
      if (hp[j] != ht[j]) ++ref.fn[ht[j]];
      correct += hp[j] == ht[j];
    }
  }
  for (int64_t c = 0; c < C; ++c) ref.tn[c] = kChunk * kChunks - ref.tp[c] - ref.fp[c] - ref.fn[c];
  EXPECT_EQ(precision.samples(), kChunk * kChunks);
  expect_counts(precision.counts(), ref, "10M stream");
  int64_t tp = 0;
  for (int64_t v : precision.counts().tp) tp += v;
  EXPECT_EQ(tp, correct);
  const std::vector<double> per = precision.compute().to_vector<double>();
  for (int64_t c = 0; c < C; ++c) EXPECT_EQ(per[c], double(ref.tp[c]) / double(ref.tp[c] + ref.fp[c]));
}

TEST_P(MetricsTest, MergedShardsEqualOnePass) {
  constexpr int64_t C = 6, N = 3000;
  const Tensor scores = rand({N, C}, float32, device(), 61);
  const Tensor target = randint(0, C, {N}, int64, device(), 62);
  auto one_pass = metrics::F1::multiclass(C, Average::weighted);
  one_pass.update(scores, target);
  // Three shards: two on this device, one on the cpu; merged into a fresh metric.
  auto a = metrics::F1::multiclass(C, Average::weighted), b = a, c = a, merged = a;
  a.update(scores.slice(0, 0, 1000), target.slice(0, 0, 1000));
  b.update(scores.slice(0, 1000, 2500), target.slice(0, 1000, 2500));
  c.update(scores.slice(0, 2500, N).to(kCPU), target.slice(0, 2500, N).to(kCPU));
  merged.merge(a);
  merged.merge(b);
  merged.merge(c);
  EXPECT_EQ(merged.device(), std::optional<Device>(device()));
  EXPECT_EQ(merged.samples(), N);
  const Counts x = merged.counts(), y = one_pass.counts();
  EXPECT_EQ(x.tp, y.tp);
  EXPECT_EQ(x.fp, y.fp);
  EXPECT_EQ(x.fn, y.fn);
  EXPECT_EQ(x.tn, y.tn);
  EXPECT_TRUE(same_bits(merged.compute().to_vector<double>(), one_pass.compute().to_vector<double>()));
  // Shards merged in another order give the same bits.
  c.merge(b);
  c.merge(a);
  EXPECT_TRUE(same_bits(c.compute().to_vector<double>(), one_pass.compute().to_vector<double>()));
  EXPECT_EQ(c.device(), std::optional<Device>(kCPU));
  // An FBeta with beta 1 is the same configuration as F1.
  auto fb = metrics::FBeta::multiclass(1.0, C, Average::weighted);
  fb.merge(one_pass);
  EXPECT_TRUE(same_bits(fb.compute().to_vector<double>(), one_pass.compute().to_vector<double>()));
  // Merging an empty metric changes nothing.
  merged.merge(metrics::F1::multiclass(C, Average::weighted));
  EXPECT_EQ(merged.samples(), N);
}

TEST_P(MetricsTest, MergeOfDifferentConfigurationsRaisesAndKeepsState) {
  auto m = metrics::Recall::multiclass(4, Average::macro);
  m.update(tensor(std::vector<int64_t>{0, 1, 2, 3}, device()), tensor(std::vector<int64_t>{0, 1, 1, 3}, device()));
  const Counts before = m.counts();
  auto other_avg = metrics::Recall::multiclass(4, Average::micro);
  auto other_classes = metrics::Recall::multiclass(5, Average::macro);
  other_avg.update(tensor(std::vector<int64_t>{0}, device()), tensor(std::vector<int64_t>{0}, device()));
  for (const auto* o : {&other_avg, &other_classes}) {
    try {
      m.merge(*o);
      ADD_FAILURE() << "merge of a different configuration did not throw";
    } catch (const ValueError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("[metrics.Recall]", 0), 0u) << e.what();
    }
  }
  auto f2 = metrics::FBeta::multiclass(2.0, 4);
  auto f1 = metrics::F1::multiclass(4);
  EXPECT_THROW(f2.merge(f1), ValueError);
  auto b1 = metrics::Precision::binary(0.5), b2 = metrics::Precision::binary(0.7);
  EXPECT_THROW(b1.merge(b2), ValueError);
  EXPECT_EQ(m.counts().tp, before.tp);
  EXPECT_EQ(m.counts().fn, before.fn);
  EXPECT_EQ(m.samples(), 4);
}


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
