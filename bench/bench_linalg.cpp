// Batched linalg::solve on cpu, on opencl:0 with its native kernels, and on
// opencl:0 with solve profiled away (the dispatcher's CPU fallback: the batch
// copied to the CPU and back once). linalg::solve reads info back to decide
// whether to throw, so every iteration waits for the device.
//   build/bench/concord_bench_linalg --benchmark_filter=Solve/64x64
#include <benchmark/benchmark.h>

#include <cmath>
#include <memory>
#include <string>

#include "concord/concord.h"

using namespace concord;

namespace {

enum class Where { cpu, opencl_native, opencl_fallback };

void BM_Solve(benchmark::State& s, Where where, Dtype t, int64_t count, int64_t n) {
  const Device d = where == Where::cpu ? kCPU : Device("opencl:0");
  if (!is_available(d)) {
    s.SkipWithError("no OpenCL device");
    return;
  }
  if (!capabilities(d).can_store(t)) {
    s.SkipWithError("float64 is not supported on opencl:0");
    return;
  }
  std::unique_ptr<ProfileGuard> g;
  if (where == Where::opencl_fallback) g = std::make_unique<ProfileGuard>(d, "no-op:solve");
  // Well conditioned: randn + 2 sqrt(n) I.
  Tensor a = add(randn({count, n, n}, t, kCPU, 1), mul(eye(n, {}, t), 2.0 * std::sqrt(static_cast<double>(n)))).to(d);
  Tensor b = randn({count, n, 1}, t, kCPU, 2).to(d);
  benchmark::DoNotOptimize(linalg::solve(a, b));  // builds the programs outside the timing
  for (auto _ : s) {
    benchmark::DoNotOptimize(linalg::solve(a, b));
    synchronize(d);  // OpenCL kernels are asynchronous: time their completion
  }
  // LU (2/3 n^3) + two triangular solves (2 n^2) per matrix.
  const double flops = static_cast<double>(count) * (2.0 / 3.0 * n * n * n + 2.0 * n * n);
  s.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void register_all() {
  struct Shape3 { int64_t count, n; };
  // 2 x 512: where the single work-group per matrix falls behind the CPU (README).
  const Shape3 shapes[] = {{64, 64}, {256, 16}, {8, 256}, {2, 512}};
  const std::pair<Where, const char*> wheres[] = {
      {Where::cpu, "cpu"}, {Where::opencl_native, "opencl_native"}, {Where::opencl_fallback, "opencl_fallback"}};
  for (const auto& sh : shapes)
    for (Dtype t : {float32, float64})
      for (const auto& [w, label] : wheres) {
        const std::string nm = "Solve/" + std::to_string(sh.count) + "x" + std::to_string(sh.n) + "x" +
                               std::to_string(sh.n) + "/" + std::string(name(t)) + "/" + label;
        benchmark::RegisterBenchmark(nm.c_str(), BM_Solve, w, t, sh.count, sh.n)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
      }
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
