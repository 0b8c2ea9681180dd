// Google Benchmark microbenchmarks of concord's own workloads (concord only;
// `concord bench` puts them side by side with PyTorch).
//   build/bench/concord_bench_ops --benchmark_filter=Add
#include <benchmark/benchmark.h>

#include "concord/concord.h"

using namespace concord;

static void BM_Add(benchmark::State& s, Dtype t, int64_t n) {
  auto a = randn({n}, t, kCPU, 1), b = randn({n}, t, kCPU, 2);
  for (auto _ : s) benchmark::DoNotOptimize(add(a, b));
  s.SetBytesProcessed(s.iterations() * 3 * n * static_cast<int64_t>(itemsize(t)));
}
BENCHMARK_CAPTURE(BM_Add, f32_8, float32, 8);
BENCHMARK_CAPTURE(BM_Add, f32_16M, float32, 1 << 24)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Add, f16_16M, float16, 1 << 24)->Unit(benchmark::kMillisecond);

static void BM_Sum(benchmark::State& s, Dtype t) {
  auto a = randn({1 << 24}, t, kCPU, 1);
  for (auto _ : s) benchmark::DoNotOptimize(sum(a));
  s.SetBytesProcessed(s.iterations() * (int64_t{1} << 24) * static_cast<int64_t>(itemsize(t)));
}
BENCHMARK_CAPTURE(BM_Sum, f32, float32)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Sum, f16, float16)->Unit(benchmark::kMillisecond);

static void BM_Matmul(benchmark::State& s, Dtype t) {
  auto a = randn({1024, 1024}, t, kCPU, 1), b = randn({1024, 1024}, t, kCPU, 2);
  for (auto _ : s) benchmark::DoNotOptimize(matmul(a, b));
  s.counters["GFLOP/s"] = benchmark::Counter(2.0 * 1024 * 1024 * 1024, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK_CAPTURE(BM_Matmul, f32, float32)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Matmul, bf16, bfloat16)->Unit(benchmark::kMillisecond);

static void BM_Exp(benchmark::State& s) {
  auto a = randn({1 << 24}, float32, kCPU, 1);
  for (auto _ : s) benchmark::DoNotOptimize(exp(a));
}
BENCHMARK(BM_Exp)->Unit(benchmark::kMillisecond);

static void BM_AddOpenCL(benchmark::State& s) {
  Device d("opencl:0");
  if (!is_available(d)) {
    s.SkipWithError("no OpenCL device");
    return;
  }
  auto a = randn({1 << 24}, float32, d, 1), b = randn({1 << 24}, float32, d, 2);
  for (auto _ : s) benchmark::DoNotOptimize(add(a, b));
}
BENCHMARK(BM_AddOpenCL)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
