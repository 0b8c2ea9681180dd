// concord/metrics.h — streaming classification metrics that agree on every device.
//
// Accuracy, Precision, Recall, FBeta / F1 and ConfusionMatrix accumulate exact
// int64 counts (true/false positives/negatives per class, or the confusion
// matrix) as concord tensors ON THE INPUTS' DEVICE, updated with concord ops:
// no float64 on the device (it works on float64-less GPUs) and no host round
// trip per update beyond the label-range check. compute() copies the small
// count tensors to the host and divides there in float64, so a metric gives
// the same bits on cpu, emu and opencl devices with any profile.
//
//   auto p = concord::metrics::Precision::multiclass(10, concord::metrics::Average::macro);
//   for (auto& [scores, labels] : batches)   // scores [N, 10] float, labels [N] int64, on "opencl:0"
//     p.update(scores, labels);
//   double macro = p.compute().item<double>();
//
// Tasks (chosen with the factory functions):
//   binary      pred and target have the same shape (any); target holds 0/1 as bool or
//               integers. pred: bool / integer 0/1 labels, or floating scores, positive
//               when score > threshold (default 0.5; pass threshold 0 for logits).
//   multiclass  target [N, ...] integer labels in [0, num_classes). pred: integer labels
//               of target's shape, or floating scores [N, num_classes, ...] (class dim 1),
//               turned into labels with argmax over the class dim (first maximum wins).
//   multilabel  target [N, num_labels, ...] of 0/1 (bool or integers). pred: same shape,
//               0/1 labels or floating scores thresholded as in binary.
//   Every element of target (with its extra dims) is one sample.
//
// The threshold rule: score > threshold is decided exactly, between the score's
// value in its own dtype and the threshold as the double given, on every device
// (the threshold is never rounded to the scores' dtype). torchmetrics rounds the
// threshold to the scores' dtype first, so the two can differ for a float16,
// bfloat16 or float32 score within one rounding of the threshold: a float16
// score of 0.50048828125 at threshold 0.5003 is positive here, negative there.
// Floating scores may live on the CPU while target lives on a device: they are
// thresholded (binary, multilabel) or argmax'ed (multiclass) on the CPU in their
// own dtype and only the labels move to the target's device, where the counts
// stay. That is how float64 scores keep the CPU's answer with a device without
// float64: a score of 0.50000000001 at 0.5 is positive on cpu and, passed on the
// CPU, with counts on emu:0 (scores moved there first become float32 0.5, a
// downcast that is warned and counted, and are negative).
//   auto acc = concord::metrics::Accuracy::binary();
//   acc.update(scores_f64_on_cpu, labels_on_emu0);   // counts on emu:0
//
// Averages (multiclass and multilabel; binary always scores the positive class),
// as torchmetrics / PyTorch-Ignite define them:
//   none      one value per class / label ([C] tensor)
//   micro     counts summed over classes, then the formula (multiclass: equals accuracy)
//   macro     unweighted mean of the per-class values. Multiclass skips classes that
//             occur neither in target nor in pred (tp + fp + fn == 0), as torchmetrics;
//             multilabel averages every label.
//   weighted  mean weighted by support (tp + fn); 0 when no class has support.
// Formulas per class (tp, fp, fn, tn as float64 on the host):
//   precision = tp / (tp + fp)        recall = tp / (tp + fn)
//   fbeta     = (1 + b^2) tp / ((1 + b^2) tp + b^2 fn + fp)
//   accuracy  = tp / (tp + fn) per multiclass class (micro: correct / samples);
//               (tp + tn) / (tp + fp + fn + tn) for binary and per label
// Zero division gives 0, as torchmetrics' default: a class with no predicted
// positives has precision 0; no actual positives, recall 0.
//
// State and lifetime:
//   update(pred, target)  validates everything (devices, dtypes, shapes, label range via
//                         amin/amax on the device) before touching the state: on error it
//                         throws (DeviceError, DtypeError, ShapeError, ValueError) and the
//                         state is unchanged. The first update binds the state to the
//                         inputs' device (target's, for scores on the CPU; see the
//                         threshold rule); a later update on another device is a DeviceError.
//                         An update with zero samples only validates.
//   compute()             a cpu float64 tensor: 0-dim, or [C] for average none.
//                         NotComputableError before any sample was seen.
//   reset()               forgets the counts and the device.
//   merge(other)          adds other's counts (same task, classes, average, threshold, beta,
//                         else ValueError); other's counts may live on another device and are
//                         copied here exactly, so shards of an evaluation combine to one pass.
//   counts()              the exact counts, on the host.
// Copies of a metric are independent (state tensors are never written in place).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "concord/device.h"
#include "concord/error.h"
#include "concord/tensor.h"

namespace concord::metrics {

// compute() before the metric saw any sample.
class NotComputableError : public Error { public: using Error::Error; };

enum class Task : uint8_t { binary, multiclass, multilabel };
enum class Average : uint8_t { none, micro, macro, weighted };
// ConfusionMatrix normalisation: none (int64 counts), target (each row, i.e. each true
// class, sums to 1), pred (each column sums to 1), all (the whole matrix sums to 1).
// A row/column/matrix with no samples stays 0.
enum class Normalize : uint8_t { none, target, pred, all };

std::string_view name(Task t);
std::string_view name(Average a);
std::string_view name(Normalize n);

// Exact counts on the host, one entry per class (multiclass: one-vs-rest), per label
// (multilabel) or a single entry (binary).
struct Counts {
  std::vector<int64_t> tp, fp, fn, tn;
};

namespace detail {

struct Config {
  std::string metric;            // "metrics.Precision", for messages
  Task task = Task::binary;
  int64_t classes = 1;           // num_classes / num_labels / 1 for binary
  Average average = Average::micro;
  double threshold = 0.5;
  double beta = 1.0;             // FBeta only
  Normalize normalize = Normalize::none;  // ConfusionMatrix only
  bool confusion = false;        // multiclass ConfusionMatrix: counts a [C, C] matrix
};

// The state every metric shares: int64 counts on the inputs' device.
// counts_ is [4, K] (rows tp, fp, fn, tn) or, when cfg.confusion, [C * C].
class CountState {
 public:
  explicit CountState(Config cfg);
  void update(const Tensor& pred, const Tensor& target);
  void reset();
  void merge(const CountState& other);
  void sync();   // src/dist/metrics_sync.cpp (concord/dist.h)
  // The counts on the host; NotComputableError before any sample.
  std::vector<int64_t> host_counts() const;
  // Per-class counts (zeros before any sample, or NotComputableError if require_samples).
  Counts counts(bool require_samples = false) const;
  const Config& config() const { return cfg_; }
  std::optional<Device> device() const;
  int64_t samples() const { return samples_; }

 private:
  Config cfg_;
  Tensor counts_;        // undefined until the first non-empty update
  int64_t samples_ = 0;  // samples seen (elements of target, per class or label)
};

// What every metric class offers on top of the state.
template <class Derived>
class MetricBase {
 public:
  void update(const Tensor& pred, const Tensor& target) { state_.update(pred, target); }
  void reset() { state_.reset(); }
  void merge(const Derived& other) { state_.merge(static_cast<const MetricBase&>(other).state_); }
  // Across the ranks of a distributed job (concord/dist.h): every rank's state
  // becomes the sum of all ranks' exact integer counts, so compute() gives the
  // single-process value of the whole data set on every rank. A collective:
  // call it on every rank, once per evaluation (a second call would add the
  // other ranks' counts again). Ranks whose metrics differ (kind, classes,
  // average, threshold, beta, normalize) raise DistError on every rank.
  //   auto acc = metrics::Accuracy::multiclass(10);
  //   for (auto& [x, y] : my_shard) acc.update(model(x), y);
  //   acc.sync();  double a = acc.compute().item<double>();   // same on every rank
  void sync() { state_.sync(); }
  Counts counts() const { return state_.counts(); }
  Task task() const { return state_.config().task; }
  int64_t num_classes() const { return state_.config().classes; }
  Average average() const { return state_.config().average; }
  double threshold() const { return state_.config().threshold; }
  // Where the counts live; nullopt before the first update (and after reset).
  std::optional<Device> device() const { return state_.device(); }
  // Samples counted so far (elements of target; per label for multilabel).
  int64_t samples() const { return state_.samples(); }

 protected:
  explicit MetricBase(Config cfg) : state_(std::move(cfg)) {}
  CountState state_;
};

}  // namespace detail

// Fraction of correct predictions. Default average for multiclass/multilabel: micro
// (multiclass micro = correct / samples; multiclass per-class = recall of the class).
class Accuracy : public detail::MetricBase<Accuracy> {
 public:
  static Accuracy binary(double threshold = 0.5);
  static Accuracy multiclass(int64_t num_classes, Average average = Average::micro);
  static Accuracy multilabel(int64_t num_labels, Average average = Average::micro, double threshold = 0.5);
  Tensor compute() const;
 private:
  explicit Accuracy(detail::Config c) : MetricBase(std::move(c)) {}
};

// tp / (tp + fp). Default average: macro.
class Precision : public detail::MetricBase<Precision> {
 public:
  static Precision binary(double threshold = 0.5);
  static Precision multiclass(int64_t num_classes, Average average = Average::macro);
  static Precision multilabel(int64_t num_labels, Average average = Average::macro, double threshold = 0.5);
  Tensor compute() const;
 private:
  explicit Precision(detail::Config c) : MetricBase(std::move(c)) {}
};

// tp / (tp + fn). Default average: macro.
class Recall : public detail::MetricBase<Recall> {
 public:
  static Recall binary(double threshold = 0.5);
  static Recall multiclass(int64_t num_classes, Average average = Average::macro);
  static Recall multilabel(int64_t num_labels, Average average = Average::macro, double threshold = 0.5);
  Tensor compute() const;
 private:
  explicit Recall(detail::Config c) : MetricBase(std::move(c)) {}
};

// F-beta: beta > 0 weighs recall beta times as much as precision. Default average: macro.
class FBeta : public detail::MetricBase<FBeta> {
 public:
  static FBeta binary(double beta, double threshold = 0.5);
  static FBeta multiclass(double beta, int64_t num_classes, Average average = Average::macro);
  static FBeta multilabel(double beta, int64_t num_labels, Average average = Average::macro, double threshold = 0.5);
  Tensor compute() const;
  double beta() const { return state_.config().beta; }
 protected:
  explicit FBeta(detail::Config c) : MetricBase(std::move(c)) {}
};

// FBeta with beta = 1 (merges with an FBeta of beta 1).
class F1 : public FBeta {
 public:
  static F1 binary(double threshold = 0.5);
  static F1 multiclass(int64_t num_classes, Average average = Average::macro);
  static F1 multilabel(int64_t num_labels, Average average = Average::macro, double threshold = 0.5);
 private:
  explicit F1(detail::Config c) : FBeta(std::move(c)) {}
};

// Counts of (true class, predicted class) pairs, rows = target, columns = pred:
//   binary [2, 2] = [[tn, fp], [fn, tp]]; multiclass [C, C]; multilabel [L, 2, 2]
// (one binary matrix per label). compute() gives a cpu int64 tensor, or float64
// when normalised. Multiclass updates cost O(C^2) work per sample on the device.
class ConfusionMatrix : public detail::MetricBase<ConfusionMatrix> {
 public:
  static ConfusionMatrix binary(double threshold = 0.5, Normalize normalize = Normalize::none);
  static ConfusionMatrix multiclass(int64_t num_classes, Normalize normalize = Normalize::none);
  static ConfusionMatrix multilabel(int64_t num_labels, double threshold = 0.5,
                                    Normalize normalize = Normalize::none);
  Tensor compute() const;
  Normalize normalize() const { return state_.config().normalize; }
 private:
  explicit ConfusionMatrix(detail::Config c) : MetricBase(std::move(c)) {}
};

}  // namespace concord::metrics
