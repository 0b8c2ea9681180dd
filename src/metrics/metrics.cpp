// Accuracy, Precision, Recall, FBeta, F1: factories and the host-side formulas.
//
// compute() turns exact int64 counts into float64 on the host, in a fixed
// order (class 0, 1, ...), so every device gives the same bits.
#include <cmath>
#include <string>

#include "concord/creation.h"
#include "metrics/metrics_internal.h"

namespace concord::metrics {

std::string_view name(Task t) {
  switch (t) {
    case Task::binary: return "binary";
    case Task::multiclass: return "multiclass";
    default: return "multilabel";
  }
}

std::string_view name(Average a) {
  switch (a) {
    case Average::none: return "none";
    case Average::micro: return "micro";
    case Average::macro: return "macro";
    default: return "weighted";
  }
}

std::string_view name(Normalize n) {
  switch (n) {
    case Normalize::none: return "none";
    case Normalize::target: return "target";
    case Normalize::pred: return "pred";
    default: return "all";
  }
}

namespace detail {

Config make_config(const char* metric, Task task, int64_t classes, Average average, double threshold, double beta,
                   Normalize normalize) {
  Config c;
  c.metric = metric;
  c.task = task;
  c.classes = task == Task::binary ? 1 : classes;
  c.average = task == Task::binary ? Average::micro : average;
  c.threshold = threshold;
  c.beta = beta;
  c.normalize = normalize;
  const std::string pre = prefix(c);
  if (task == Task::multiclass && (classes < 2 || classes > (int64_t{1} << 31)))
    throw ValueError(pre + "multiclass needs num_classes in [2, 2^31]; got " + std::to_string(classes) +
                     ". Use binary() for two classes given as 0/1 with one score");
  if (task == Task::multilabel && (classes < 1 || classes > (int64_t{1} << 31)))
    throw ValueError(pre + "multilabel needs num_labels in [1, 2^31]; got " + std::to_string(classes));
  if (!std::isfinite(threshold))
    throw ValueError(pre + "threshold must be a finite number; got " + std::to_string(threshold));
  if (!(beta > 0) || !std::isfinite(beta))
    throw ValueError(pre + "beta must be a finite number > 0; got " + std::to_string(beta) +
                     " (beta = 1 is F1; beta < 1 favours precision, beta > 1 recall)");
  return c;
}

}  // namespace detail

namespace {

using detail::Config;

double safe_div(double num, double den) { return den == 0 ? 0.0 : num / den; }

// One class's value from its counts (as float64).
using Formula = double (*)(const Config& cfg, double tp, double fp, double fn, double tn);

double precision_of(const Config&, double tp, double fp, double, double) { return safe_div(tp, tp + fp); }
double recall_of(const Config&, double tp, double, double fn, double) { return safe_div(tp, tp + fn); }

double fbeta_of(const Config& cfg, double tp, double fp, double fn, double) {
  const double b2 = cfg.beta * cfg.beta;
  return safe_div((1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp);
}

double accuracy_of(const Config& cfg, double tp, double fp, double fn, double tn) {
  // Multiclass: the class's share of its samples predicted right (torchmetrics);
  // binary and per label: right answers among all samples.
  if (cfg.task == Task::multiclass) return safe_div(tp, tp + fn);
  return safe_div(tp + tn, tp + fp + fn + tn);
}

Tensor host_scalar(double v) { return scalar_tensor(v, float64, kCPU); }

Tensor score(const detail::CountState& state, Formula f) {
  const Config& cfg = state.config();
  const Counts c = state.counts(/*require_samples=*/true);
  const size_t k = c.tp.size();
  auto d = [](int64_t v) { return static_cast<double>(v); };
  std::vector<double> per(k);
  for (size_t i = 0; i < k; ++i) per[i] = f(cfg, d(c.tp[i]), d(c.fp[i]), d(c.fn[i]), d(c.tn[i]));
  if (cfg.task == Task::binary) return host_scalar(per[0]);
  switch (cfg.average) {
    case Average::none:
      return from_vector(per, Shape{static_cast<int64_t>(k)});
    case Average::micro: {
      int64_t tp = 0, fp = 0, fn = 0, tn = 0;
      for (size_t i = 0; i < k; ++i) tp += c.tp[i], fp += c.fp[i], fn += c.fn[i], tn += c.tn[i];
      return host_scalar(f(cfg, d(tp), d(fp), d(fn), d(tn)));
    }
    case Average::macro: {
      // Multiclass skips classes absent from both pred and target (torchmetrics).
      double total = 0;
      int64_t n = 0;
      for (size_t i = 0; i < k; ++i) {
        if (cfg.task == Task::multiclass && c.tp[i] + c.fp[i] + c.fn[i] == 0) continue;
        total += per[i];
        ++n;
      }
      return host_scalar(safe_div(total, d(n)));
    }
    default: {
      double num = 0, den = 0;
      for (size_t i = 0; i < k; ++i) {
        const double w = d(c.tp[i] + c.fn[i]);
        num += w * per[i];
        den += w;
      }
      return host_scalar(safe_div(num, den));
    }
  }
}

constexpr Average kMicro = Average::micro;

}  // namespace

Accuracy Accuracy::binary(double threshold) {
  return Accuracy(detail::make_config("metrics.Accuracy", Task::binary, 1, kMicro, threshold));
}
Accuracy Accuracy::multiclass(int64_t num_classes, Average average) {
  return Accuracy(detail::make_config("metrics.Accuracy", Task::multiclass, num_classes, average, 0.5));
}
Accuracy Accuracy::multilabel(int64_t num_labels, Average average, double threshold) {
  return Accuracy(detail::make_config("metrics.Accuracy", Task::multilabel, num_labels, average, threshold));
}
Tensor Accuracy::compute() const { return score(state_, accuracy_of); }

Precision Precision::binary(double threshold) {
  return Precision(detail::make_config("metrics.Precision", Task::binary, 1, kMicro, threshold));
}
Precision Precision::multiclass(int64_t num_classes, Average average) {
  return Precision(detail::make_config("metrics.Precision", Task::multiclass, num_classes, average, 0.5));
}
Precision Precision::multilabel(int64_t num_labels, Average average, double threshold) {
  return Precision(detail::make_config("metrics.Precision", Task::multilabel, num_labels, average, threshold));
}
Tensor Precision::compute() const { return score(state_, precision_of); }

Recall Recall::binary(double threshold) {
  return Recall(detail::make_config("metrics.Recall", Task::binary, 1, kMicro, threshold));
}
Recall Recall::multiclass(int64_t num_classes, Average average) {
  return Recall(detail::make_config("metrics.Recall", Task::multiclass, num_classes, average, 0.5));
}
Recall Recall::multilabel(int64_t num_labels, Average average, double threshold) {
  return Recall(detail::make_config("metrics.Recall", Task::multilabel, num_labels, average, threshold));
}
Tensor Recall::compute() const { return score(state_, recall_of); }

FBeta FBeta::binary(double beta, double threshold) {
  return FBeta(detail::make_config("metrics.FBeta", Task::binary, 1, kMicro, threshold, beta));
}
FBeta FBeta::multiclass(double beta, int64_t num_classes, Average average) {
  return FBeta(detail::make_config("metrics.FBeta", Task::multiclass, num_classes, average, 0.5, beta));
}
FBeta FBeta::multilabel(double beta, int64_t num_labels, Average average, double threshold) {
  return FBeta(detail::make_config("metrics.FBeta", Task::multilabel, num_labels, average, threshold, beta));
}
Tensor FBeta::compute() const { return score(state_, fbeta_of); }

F1 F1::binary(double threshold) {
  return F1(detail::make_config("metrics.F1", Task::binary, 1, kMicro, threshold));
}
F1 F1::multiclass(int64_t num_classes, Average average) {
  return F1(detail::make_config("metrics.F1", Task::multiclass, num_classes, average, 0.5));
}
F1 F1::multilabel(int64_t num_labels, Average average, double threshold) {
  return F1(detail::make_config("metrics.F1", Task::multilabel, num_labels, average, threshold));
}

}  // namespace concord::metrics
