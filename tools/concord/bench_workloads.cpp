// Workloads for `concord bench`, built on the public API only.
#include "bench_workloads.h"

#include <memory>
#include <optional>

#include "concord/concord.h"

namespace concord::cli {

namespace {
struct State {
  Tensor a, b, c;
  std::vector<nn::Linear> layers;
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
  // Row sums: one output per row (reduce.cl's red_rows), the softmax's shape.
  out.push_back({"sum rows 4096x1024 f32", "sumrows:float32", 0, 4096 * 1024 * 4.0, 1,
                 [st, dev] { st->a = randn({4096, 1024}, float32, dev, 1); }, [st] { st->c = sum(st->a, {-1}); }, clear});
  // Batched solve: 64 systems of 64x64 (diagonally dominant), one right-hand side each.
  for (Dtype t : {float32, float64}) {
    const std::string dn(name(t));
    out.push_back({"solve 64x64x64 " + dn, "solve64:" + dn, 64 * (2.0 / 3 * 64 * 64 * 64 + 2.0 * 64 * 64), 0, 1,
                   [st, t, dev] {
                     st->a = add(randn({64, 64, 64}, t, dev, 1), mul(eye(64, std::nullopt, t, dev), 64.0));
                     st->b = randn({64, 64, 1}, t, dev, 2);
                   },
                   [st] { st->c = linalg::solve(st->a, st->b); }, clear});
  }
  out.push_back({"add 8 float32", "add8:float32", 0, 0, 2000,
                 [st, dev] { st->a = randn({8}, float32, dev, 1); st->b = randn({8}, float32, dev, 2); },
                 [st] { st->c = add(st->a, st->b); }, clear});
  // A 4-layer MLP forward, batch 256, width 1024: h = relu(linear(h)) four times
  // with nn::Linear (1024 -> 1024, bias). Three variants, each with a PyTorch twin:
  //   float32        float32 layers and input
  //   autocast bf16  the same float32 layers inside a cpu autocast(bfloat16) scope
  //                  (torch.autocast("cpu", dtype=torch.bfloat16))
  //   bfloat16       layers and input stored in bfloat16 (module.to(torch.bfloat16))
  struct Mlp { const char* label; const char* twin; Dtype t; bool autocast; };
  for (const Mlp& m : {Mlp{"f32", "mlp:float32", float32, false}, Mlp{"autocast bf16", "mlp:autocast_bfloat16", float32, true},
                       Mlp{"bf16", "mlp:bfloat16", bfloat16, false}}) {
    out.push_back({std::string("mlp b256 ") + m.label, m.twin, 4 * 2.0 * 256 * 1024 * 1024, 0, 1,
                   [st, m, dev] {
                     st->a = randn({256, 1024}, m.t, dev, 1);
                     for (uint64_t l = 0; l < 4; ++l) st->layers.emplace_back(1024, 1024, true, m.t, dev, 10 + 2 * l);
                   },
                   [st, m, dev] {
                     std::optional<autocast> ac;
                     if (m.autocast) ac.emplace(dev.kind(), bfloat16);
                     Tensor h = st->a;
                     for (const auto& layer : st->layers) h = relu(layer(h));
                     st->c = h;
                   },
                   clear});
  }
  return out;
}

}  // namespace concord::cli
