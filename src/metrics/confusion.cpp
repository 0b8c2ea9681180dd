// ConfusionMatrix: factories and the host-side assembly / normalisation.
#include <vector>

#include "concord/creation.h"
#include "metrics/metrics_internal.h"

namespace concord::metrics {

namespace {

// Normalises each n x n matrix of `m` (row-major, `count` of them) in float64.
std::vector<double> normalized(const std::vector<int64_t>& m, int64_t count, int64_t n, Normalize how) {
  std::vector<double> out(m.size());
  for (int64_t b = 0; b < count; ++b) {
    const int64_t* x = m.data() + b * n * n;
    double* y = out.data() + b * n * n;
    std::vector<int64_t> rows(static_cast<size_t>(n), 0), cols(static_cast<size_t>(n), 0);
    int64_t total = 0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) rows[i] += x[i * n + j], cols[j] += x[i * n + j], total += x[i * n + j];
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        const int64_t den = how == Normalize::target ? rows[i] : how == Normalize::pred ? cols[j] : total;
        // An empty row/column/matrix stays 0 rather than NaN.
        y[i * n + j] = den == 0 ? 0.0 : static_cast<double>(x[i * n + j]) / static_cast<double>(den);
      }
  }
  return out;
}

}  // namespace

ConfusionMatrix ConfusionMatrix::binary(double threshold, Normalize normalize) {
  return ConfusionMatrix(detail::make_config("metrics.ConfusionMatrix", Task::binary, 1, Average::none, threshold,
                                             1.0, normalize));
}

ConfusionMatrix ConfusionMatrix::multiclass(int64_t num_classes, Normalize normalize) {
  detail::Config c = detail::make_config("metrics.ConfusionMatrix", Task::multiclass, num_classes, Average::none,
                                         0.5, 1.0, normalize);
  if (num_classes > (int64_t{1} << 16))
    throw ValueError(detail::prefix(c) + "a multiclass confusion matrix of " + std::to_string(num_classes) +
                     " classes would hold " + std::to_string(num_classes * num_classes) +
                     " counts; use at most 65536 classes, or Precision/Recall with average none for per-class counts");
  c.confusion = true;
  return ConfusionMatrix(std::move(c));
}

ConfusionMatrix ConfusionMatrix::multilabel(int64_t num_labels, double threshold, Normalize normalize) {
  return ConfusionMatrix(detail::make_config("metrics.ConfusionMatrix", Task::multilabel, num_labels, Average::none,
                                             threshold, 1.0, normalize));
}

Tensor ConfusionMatrix::compute() const {
  const detail::Config& cfg = state_.config();
  std::vector<int64_t> m;
  int64_t count = 1, n = 2;
  Shape shape;
  if (cfg.confusion) {
    m = state_.host_counts();
    n = cfg.classes;
    shape = Shape{n, n};
  } else {
    // One [[tn, fp], [fn, tp]] per label (a single one for binary).
    const Counts c = state_.counts(/*require_samples=*/true);
    count = static_cast<int64_t>(c.tp.size());
    for (size_t i = 0; i < c.tp.size(); ++i) m.insert(m.end(), {c.tn[i], c.fp[i], c.fn[i], c.tp[i]});
    shape = cfg.task == Task::binary ? Shape{2, 2} : Shape{count, 2, 2};
  }
  if (cfg.normalize == Normalize::none) return from_vector(m, shape);
  return from_vector(normalized(m, count, n, cfg.normalize), shape);
}

}  // namespace concord::metrics
