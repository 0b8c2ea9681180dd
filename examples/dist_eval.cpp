// dist_eval — a model evaluated over a data set sharded across ranks; the
// loss and the metrics printed on rank 0 are bitwise those of the
// single-process run, which rank 0 also makes to show it.
//
//   mpirun -np 4 build/examples/dist_eval      # or without mpirun: one rank
//
// The data set is cut into batches of 8 rows and every rank evaluates a
// contiguous range of batches (a batch is computed the same way in both runs);
// per-sample losses are averaged with dist::mean over the sharded dim (the
// bits of concord::mean over all samples) and the metrics' exact counts are
// merged with sync().
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <vector>

#include "concord/concord.h"
#include "concord/dist.h"
#include "concord/metrics.h"

namespace dist = concord::dist;
namespace metrics = concord::metrics;
using concord::Tensor;

namespace {

constexpr int64_t kRows = 1000, kFeatures = 16, kClasses = 5, kBatch = 8;

struct Eval {
  std::vector<Tensor> losses;   // per-sample losses, batch after batch
  metrics::Accuracy accuracy = metrics::Accuracy::multiclass(kClasses);
  metrics::F1 f1 = metrics::F1::multiclass(kClasses, metrics::Average::macro);
};

// Batches [first, last) of the data set through a linear classifier.
Eval evaluate(const Tensor& x, const Tensor& y, const Tensor& w, int64_t first, int64_t last) {
  Eval e;
  const Tensor classes = concord::arange(kClasses, concord::int64);
  for (int64_t b = first; b < last; ++b) {
    const int64_t start = b * kBatch, len = std::min(kBatch, kRows - start);
    const Tensor xb = x.narrow(0, start, len), yb = y.narrow(0, start, len);
    const Tensor logits = concord::matmul(xb, w);
    const Tensor onehot = concord::eq(classes.unsqueeze(0), yb.unsqueeze(1)).to(concord::float32);
    e.losses.push_back(concord::neg(concord::sum(concord::log_softmax(logits, 1) * onehot, {1})));
    e.accuracy.update(logits, yb);
    e.f1.update(logits, yb);
  }
  return e;
}

uint32_t bits(float v) { uint32_t u; std::memcpy(&u, &v, 4); return u; }
uint64_t bits(double v) { uint64_t u; std::memcpy(&u, &v, 8); return u; }

}  // namespace

int main() {
  dist::Session session;
  // The same data set on every rank (seeded), as if read from shared storage.
  const Tensor x = concord::randn({kRows, kFeatures}, concord::float32, concord::kCPU, 1);
  // A "trained" classifier: the label is mostly the largest of the first features.
  const Tensor w = concord::eye(kFeatures, kClasses) +
                   concord::randn({kFeatures, kClasses}, concord::float32, concord::kCPU, 2) * 0.3;
  const Tensor noise = concord::randn({kRows, kClasses}, concord::float32, concord::kCPU, 3);
  const Tensor y = concord::argmax(x.narrow(1, 0, kClasses) + noise, 1);
  const int64_t batches = (kRows + kBatch - 1) / kBatch, p = dist::world_size(), r = dist::rank();
  Eval mine = evaluate(x, y, w, batches * r / p, batches * (r + 1) / p);
  const Tensor local = mine.losses.empty() ? concord::empty({0}) : concord::cat(mine.losses);
  const float loss = dist::mean(local, 0).item<float>();
  mine.accuracy.sync();
  mine.f1.sync();
  const double acc = mine.accuracy.compute().item<double>(), f1 = mine.f1.compute().item<double>();
  if (r != 0) return 0;
  std::printf("ranks %" PRId64 ": loss %.9g  accuracy %.17g  f1 %.17g\n", p, loss, acc, f1);
  // The single-process run on rank 0 alone.
  Eval all = evaluate(x, y, w, 0, batches);
  const float loss1 = concord::mean(concord::cat(all.losses), {0}).item<float>();
  const double acc1 = all.accuracy.compute().item<double>(), f11 = all.f1.compute().item<double>();
  const bool same = bits(loss) == bits(loss1) && bits(acc) == bits(acc1) && bits(f1) == bits(f11);
  std::printf("single process: loss %.9g  accuracy %.17g  f1 %.17g\n%s\n", loss1, acc1, f11,
              same ? "bitwise equal to the single-process run" : "DIFFERENT from the single-process run");
  return same ? 0 : 1;
}
