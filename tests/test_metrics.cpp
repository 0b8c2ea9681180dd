// Streaming classification metrics: exact counts and the float64 formulas
// against plain host loops (metrics_checks.h) for every task and average,
// the confusion matrix, ten-million-sample streams and merged shards.
#include "metrics_checks.h"

namespace concord::test {
namespace {

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
      std::vector<float> raw = scores_with_ties(N, thr, 33);
      // A device that may flush subnormals compares them as zero (NVIDIA's
      // float32): the ties next to a threshold of 0 become the smallest normals.
      if (!capabilities(device()).keeps_subnormals)
        for (float& v : raw)
          if (std::fpclassify(v) == FP_SUBNORMAL) v = std::copysign(std::numeric_limits<float>::min(), v);
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

// Ten chunks of a million samples (of 100,000 on Vulkan: lavapipe, a software
// device, took 46-220 s per configuration for ten million, and the exactness
// of the streamed counts does not depend on the chunk size).
TEST_P(MetricsTest, LongSampleStreamCountsExactly) {
  constexpr int64_t C = 10, kChunks = 10;
  const int64_t kChunk = device().kind().name() == "vulkan" ? 100'000 : 1'000'000;
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
  expect_counts(precision.counts(), ref, "the stream");
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

CONCORD_INSTANTIATE_DEVICES(MetricsTest);

}  // namespace
}  // namespace concord::test
