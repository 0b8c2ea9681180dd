// The counting state of the metrics: int64 tensors on the inputs' device.
//
// Counts are built from one-hot comparisons (eq against arange) and int64 sums,
// so they are exact and need no float64 on the device. Large batches are
// counted in blocks of samples to bound the one-hot temporaries.
#include <algorithm>

#include "concord/ops.h"
#include "metrics/metrics_internal.h"

namespace concord::metrics::detail {

namespace {

// Elements of a one-hot temporary per block (bool; the int64 sums widen it 8x).
// block_samples(k): samples per block when each sample has k one-hot entries.
constexpr int64_t kBlockElems = int64_t{1} << 22;

int64_t block_samples(int64_t k) { return std::max<int64_t>(1, kBlockElems / std::max<int64_t>(1, k)); }

void accumulate(Tensor& acc, const Tensor& part) { acc = acc.defined() ? acc + part : part; }

// Per-class sums of tp (pred and target), pp (pred), tt (target) over `dims`.
struct Sums {
  Tensor tp, pp, tt;
  void add(const Tensor& p, const Tensor& t, const Dims& dims) {
    accumulate(tp, sum(logical_and(p, t), dims, false, int64));
    accumulate(pp, sum(p, dims, false, int64));
    accumulate(tt, sum(t, dims, false, int64));
  }
  // Rows tp, fp = pp - tp, fn = tt - tp, tn = n - tp - fp - fn, each sample seen once per class.
  Tensor table(int64_t n) const { return stack({tp, pp - tp, tt - tp, tp - pp - tt + n}); }
};

}  // namespace

Tensor count_stats(const Config& cfg, const Prepared& in) {
  Sums s;
  if (cfg.task == Task::multiclass) {
    // One-vs-rest one-hots laid out [C, m]: the sums then run along contiguous rows.
    const Tensor classes = arange(0, cfg.classes, 1, int64, in.device).unsqueeze(1);
    const int64_t m = in.target.numel();
    const int64_t cols = block_samples(cfg.classes);
    for (int64_t start = 0; start < m; start += cols) {
      const int64_t len = std::min(cols, m - start);
      const Tensor p = eq(classes, in.pred.narrow(0, start, len).unsqueeze(0));
      const Tensor t = eq(classes, in.target.narrow(0, start, len).unsqueeze(0));
      s.add(p, t, Dims{1});
    }
  } else {
    // Already bool [N, K, R]; sum over samples and extra positions.
    const int64_t n = in.target.shape()[0];
    const int64_t rows = block_samples(in.target.numel() / n);
    for (int64_t start = 0; start < n; start += rows) {
      const int64_t len = std::min(rows, n - start);
      s.add(in.pred.narrow(0, start, len), in.target.narrow(0, start, len), Dims{0, 2});
    }
  }
  return s.table(in.samples);
}

Tensor count_confusion(const Config& cfg, const Prepared& in) {
  // Cell index target * C + pred, one-hot over the C * C cells.
  const int64_t c = cfg.classes;
  const Tensor cells = arange(0, c * c, 1, int64, in.device).unsqueeze(1);
  const Tensor index = in.target.to(int64) * c + in.pred;
  const int64_t m = index.numel();
  const int64_t cols = block_samples(c * c);
  Tensor acc;
  for (int64_t start = 0; start < m; start += cols) {
    const int64_t len = std::min(cols, m - start);
    accumulate(acc, sum(eq(cells, index.narrow(0, start, len).unsqueeze(0)), Dims{1}, false, int64));
  }
  return acc;
}

CountState::CountState(Config cfg) : cfg_(std::move(cfg)) {}

std::optional<Device> CountState::device() const {
  if (!counts_.defined()) return std::nullopt;
  return counts_.device();
}

void CountState::update(const Tensor& pred, const Tensor& target) {
  const Prepared in = prepare(cfg_, device(), pred, target);
  if (in.samples == 0) return;
  const Tensor delta = cfg_.confusion ? count_confusion(cfg_, in) : count_stats(cfg_, in);
  Tensor next = counts_.defined() ? counts_ + delta : delta;
  // Nothing below throws: the state changes all at once.
  counts_ = std::move(next);
  samples_ += in.samples;
}

void CountState::reset() {
  counts_ = Tensor();
  samples_ = 0;
}

void CountState::merge(const CountState& other) {
  const Config& a = cfg_;
  const Config& b = other.cfg_;
  const bool same = a.task == b.task && a.classes == b.classes && a.average == b.average &&
                    a.threshold == b.threshold && a.beta == b.beta && a.normalize == b.normalize &&
                    a.confusion == b.confusion;
  if (!same) {
    auto describe = [](const Config& c) {
      return c.metric + "(" + std::string(name(c.task)) + ", classes=" + std::to_string(c.classes) +
             ", average=" + std::string(name(c.average)) + ", threshold=" + std::to_string(c.threshold) +
             ", beta=" + std::to_string(c.beta) + ", normalize=" + std::string(name(c.normalize)) + ")";
    };
    throw ValueError(prefix(cfg_) + "merge() needs two metrics with the same configuration; got " + describe(a) +
                     " and " + describe(b) + ". Merge shards made by the same factory call");
  }
  if (!other.counts_.defined()) return;
  // Counts are int64 on every device, so moving them here is exact.
  Tensor next = counts_.defined() ? counts_ + other.counts_.to(counts_.device()) : other.counts_;
  counts_ = std::move(next);
  samples_ += other.samples_;
}

std::vector<int64_t> CountState::host_counts() const {
  if (samples_ == 0)
    throw NotComputableError(prefix(cfg_) + "compute() needs at least one sample, but no update() with samples "
                             "has been made (since construction or reset()). Call update(pred, target) first");
  return counts_.to(kCPU).to_vector<int64_t>();
}

Counts CountState::counts(bool require_samples) const {
  const size_t k = static_cast<size_t>(cfg_.task == Task::binary ? 1 : cfg_.classes);
  Counts c;
  if (samples_ == 0 && !require_samples) {
    c.tp.assign(k, 0), c.fp.assign(k, 0), c.fn.assign(k, 0), c.tn.assign(k, 0);
    return c;
  }
  const std::vector<int64_t> h = host_counts();
  if (!cfg_.confusion) {
    c.tp.assign(h.begin(), h.begin() + k);
    c.fp.assign(h.begin() + k, h.begin() + 2 * k);
    c.fn.assign(h.begin() + 2 * k, h.begin() + 3 * k);
    c.tn.assign(h.begin() + 3 * k, h.end());
    return c;
  }
  // From the [C, C] matrix: diagonal, column and row sums.
  int64_t total = 0;
  for (int64_t v : h) total += v;
  for (size_t i = 0; i < k; ++i) {
    int64_t row = 0, col = 0;
    for (size_t j = 0; j < k; ++j) row += h[i * k + j], col += h[j * k + i];
    const int64_t tp = h[i * k + i];
    c.tp.push_back(tp);
    c.fp.push_back(col - tp);
    c.fn.push_back(row - tp);
    c.tn.push_back(total - row - col + tp);
  }
  return c;
}

}  // namespace concord::metrics::detail
