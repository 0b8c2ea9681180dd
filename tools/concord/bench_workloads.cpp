// Workloads for `concord bench`, built on the public API only.
#include "bench_workloads.h"

#include <memory>

#include "concord/concord.h"

namespace concord::cli {

namespace {
struct State {
  Tensor a, b, c;
  std::vector<Tensor> ws, bs;
};
}  // namespace

std::vector<Workload> workloads(const Device& dev) {
  auto st = std::make_shared<State>();
  std::vector<Workload> out;
  auto clear = [st] { *st = State{}; };
  const double n16 = double(1 << 24);
  for (Dtype t : {float32, float64, bfloat16, float16}) {
    const std::string dn(name(t));
    out.push_back({"matmul 1024^2 " + dn, "matmul:" + dn, 2.0 * 1024 * 1024 * 1024, 0, 1,
                   [st, t, dev] { st->a = randn({1024, 1024}, t, dev, 1); st->b = randn({1024, 1024}, t, dev, 2); },
                   [st] { st->c = matmul(st->a, st->b); }, clear});
  }
  for (Dtype t : {float32, float16, bfloat16}) {
    const std::string dn(name(t));
    out.push_back({"add 16M " + dn, "add16M:" + dn, 0, 3 * n16 * double(itemsize(t)), 1,
                   [st, t, dev] { st->a = randn({1 << 24}, t, dev, 1); st->b = randn({1 << 24}, t, dev, 2); },
                   [st] { st->c = add(st->a, st->b); }, clear});
  }
  for (Dtype t : {float32, float16, bfloat16}) {
    const std::string dn(name(t));
    out.push_back({"sum 16M " + dn, "sum16M:" + dn, 0, n16 * double(itemsize(t)), 1,
                   [st, t, dev] { st->a = randn({1 << 24}, t, dev, 1); }, [st] { st->c = sum(st->a); }, clear});
  }
  out.push_back({"exp 16M float32", "exp16M:float32", 0, 2 * n16 * 4, 1,
                 [st, dev] { st->a = randn({1 << 24}, float32, dev, 1); }, [st] { st->c = exp(st->a); }, clear});
  out.push_back({"softmax 4096x1024 f32", "softmax:float32", 0, 2.0 * 4096 * 1024 * 4, 1,
                 [st, dev] { st->a = randn({4096, 1024}, float32, dev, 1); }, [st] { st->c = softmax(st->a, -1); }, clear});
  out.push_back({"add 8 float32", "add8:float32", 0, 0, 2000,
                 [st, dev] { st->a = randn({8}, float32, dev, 1); st->b = randn({8}, float32, dev, 2); },
                 [st] { st->c = add(st->a, st->b); }, clear});
  // A 4-layer MLP forward, batch 256, width 1024: relu(x W^T + b) four times.
  for (Dtype t : {float32, bfloat16}) {
    const std::string dn(name(t));
    out.push_back({"mlp 4x1024 b256 " + dn, "mlp:" + dn, 4 * 2.0 * 256 * 1024 * 1024, 0, 1,
                   [st, t, dev] {
                     st->a = randn({256, 1024}, t, dev, 1);
                     for (int l = 0; l < 4; ++l) {
                       st->ws.push_back(mul(randn({1024, 1024}, t, dev, 10 + l), 0.03));
                       st->bs.push_back(zeros({1024}, t, dev));
                     }
                   },
                   [st] {
                     Tensor h = st->a;
                     for (size_t l = 0; l < st->ws.size(); ++l) h = relu(add(matmul(h, st->ws[l].t()), st->bs[l]));
                     st->c = h;
                   },
                   clear});
  }
  return out;
}

}  // namespace concord::cli
