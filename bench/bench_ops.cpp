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

static void BM_Sum(benchmark::State& s, Dtype t, int64_t n) {
  auto a = randn({n}, t, kCPU, 1);
  for (auto _ : s) benchmark::DoNotOptimize(sum(a));
  s.SetBytesProcessed(s.iterations() * n * static_cast<int64_t>(itemsize(t)));
}
BENCHMARK_CAPTURE(BM_Sum, f32, float32, 1 << 24)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Sum, f16, float16, 1 << 24)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Sum, bf16, bfloat16, 1 << 24)->Unit(benchmark::kMillisecond);
// Cache-resident: the kernel's own speed, not the memory bus's.
BENCHMARK_CAPTURE(BM_Sum, f32_256K, float32, 1 << 18)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Sum, f16_256K, float16, 1 << 18)->Unit(benchmark::kMicrosecond);

static void BM_Softmax(benchmark::State& s, Dtype t, int64_t rows, int64_t cols, int64_t dim, bool log) {
  auto a = randn({rows, cols}, t, kCPU, 1);
  for (auto _ : s) benchmark::DoNotOptimize(log ? log_softmax(a, dim) : softmax(a, dim));
  s.SetBytesProcessed(s.iterations() * 2 * rows * cols * static_cast<int64_t>(itemsize(t)));
}
BENCHMARK_CAPTURE(BM_Softmax, f32_4096x1024, float32, 4096, 1024, -1, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Softmax, log_f32_4096x1024, float32, 4096, 1024, -1, true)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Softmax, f16_4096x1024, float16, 4096, 1024, -1, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Softmax, f32_4096x1024_dim0, float32, 4096, 1024, 0, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Softmax, f32_64x64, float32, 64, 64, -1, false)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Softmax, f32_64x1024, float32, 64, 1024, -1, false)->Unit(benchmark::kMicrosecond);

static void BM_Solve(benchmark::State& s, Dtype t) {
  auto a = add(randn({64, 64, 64}, t, kCPU, 1), mul(eye(64, {}, t), 8.0)), b = randn({64, 64, 1}, t, kCPU, 2);
  for (auto _ : s) benchmark::DoNotOptimize(linalg::solve(a, b));
}
BENCHMARK_CAPTURE(BM_Solve, batched64_f32, float32)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Solve, batched64_f64, float64)->Unit(benchmark::kMillisecond);

// One larger solve (LAPACK + OpenBLAS threads) right after an OpenMP region
// (a 1M-element add): shows OpenMP workers spinning against OpenBLAS's threads.
static void BM_SolveAfterOmp(benchmark::State& s, int64_t n) {
  auto a = add(randn({n, n}, float64, kCPU, 1), mul(eye(n, {}, float64), double(n))), b = randn({n, 1}, float64, kCPU, 2);
  auto x = randn({1 << 20}, float32, kCPU, 3);
  for (auto _ : s) {
    benchmark::DoNotOptimize(add(x, x));
    benchmark::DoNotOptimize(linalg::solve(a, b));
  }
}
BENCHMARK_CAPTURE(BM_SolveAfterOmp, n200, 200)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SolveAfterOmp, n512, 512)->Unit(benchmark::kMillisecond);

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

static void BM_ExpCached(benchmark::State& s) {  // 64K elements: the kernel, not the memory bus
  auto a = randn({1 << 16}, float32, kCPU, 1);
  for (auto _ : s) benchmark::DoNotOptimize(exp(a));
  s.SetItemsProcessed(s.iterations() * (1 << 16));
}
BENCHMARK(BM_ExpCached)->Unit(benchmark::kMicrosecond);

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
