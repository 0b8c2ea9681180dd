// `concord bench`: concord and PyTorch on the same workloads, interleaved in
// one run with the same thread count, plus the machine's own limits (sgemm
// through OpenBLAS directly, a stream copy) to say how close concord gets.
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "bench_workloads.h"
#include "commands.h"
#include "concord/concord.h"
#include "torch_peer.h"

namespace concord::cli {

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::vector<double> time_it(const std::function<void()>& fn, int repeats, int inner) {
  fn();  // warm-up (allocator caches, program builds)
  std::vector<double> secs;
  for (int r = 0; r < repeats; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < inner; ++i) fn();
    secs.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / inner);
  }
  return secs;
}

// The machine's limits are the best of several runs (a limit is what the
// machine can reach; a median would let one noisy neighbour lower it).
double best(const std::vector<double>& s) { return *std::min_element(s.begin(), s.end()); }

// Peak compute: OpenBLAS sgemm at 2048^2, called directly.
double machine_sgemm_gflops() {
  const int n = 2048;
  std::vector<float> a(size_t(n) * n, 1.0f), b(size_t(n) * n, 0.5f), c(size_t(n) * n);
  auto s = time_it([&] { cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n); }, 5, 1);
  return 2.0 * n * n * double(n) / best(s) / 1e9;
}

// Bandwidth: a parallel copy of 256 MiB (bytes read + written per second),
// as a plain loop: libc's memcpy switches to non-temporal stores at this size,
// which measured 30-40 GB/s here where ordinary stores (what kernels do) reach 55-60.
double machine_copy_gbs() {
  const int64_t n = int64_t{64} << 20;  // floats
  std::vector<float> a(static_cast<size_t>(n), 1.0f), b(static_cast<size_t>(n));
  float* __restrict pb = b.data();
  const float* __restrict pa = a.data();
  auto s = time_it([&] {
#pragma omp parallel for simd schedule(static)
    for (int64_t i = 0; i < n; ++i) pb[i] = pa[i];
  }, 9, 1);
  return 2.0 * double(n) * 4 / best(s) / 1e9;
}

std::string fmt_time(double s) {
  char buf[32];
  if (s <= 0) return "-";
  if (s < 1e-3) std::snprintf(buf, sizeof buf, "%.2f us", s * 1e6);
  else if (s < 1) std::snprintf(buf, sizeof buf, "%.2f ms", s * 1e3);
  else std::snprintf(buf, sizeof buf, "%.2f s", s);
  return buf;
}

}  // namespace

int cmd_bench(const BenchOptions& o) {
  if (!o.isa.empty()) {
    // Before anything reads the level (it is fixed at its first read), and
    // before PyTorch's process starts, which inherits the environment.
    setenv("CONCORD_ISA", o.isa.c_str(), 1);
    // PyTorch's own kernels read ATEN_CPU_CAPABILITY; its oneDNN (bfloat16
    // matmul on AVX512-BF16) reads ONEDNN_MAX_CPU_ISA.
    // At avx512 both sides keep the AVX-512 extensions they use (AVX512-BF16).
    if (o.isa == "native") unsetenv("ATEN_CPU_CAPABILITY");
    else setenv("ATEN_CPU_CAPABILITY", o.isa == "baseline" ? "default" : o.isa.c_str(), 1);
    if (o.isa == "baseline" || o.isa == "avx2") setenv("ONEDNN_MAX_CPU_ISA", o.isa == "baseline" ? "SSE41" : "AVX2", 1);
    else unsetenv("ONEDNN_MAX_CPU_ISA");
    if (cpu_isa() != o.isa && o.isa != "native")
      throw ValueError("[bench] --isa " + o.isa + ": this CPU runs concord's kernels at " + std::string(cpu_isa()) +
                       " at most; choose a level it has");
  }
  {
    // Refuse a bad device or a filter that matches nothing before the (slow) machine measurements.
    const Device dev(o.device);
    if (!is_available(dev)) throw DeviceError("[bench] --device " + o.device + " is not available here; run `concord devices`");
    std::vector<std::string> names;
    bool any = false;
    for (const auto& w : workloads(dev)) {
      names.push_back(w.name);
      any |= w.name.find(o.filter) != std::string::npos;
    }
    if (!any) {
      std::string m = "[bench] --filter '" + o.filter + "' matches no workload; the workloads: ";
      for (size_t i = 0; i < names.size(); ++i) m += (i ? ", " : "") + names[i];
      throw ValueError(m);
    }
  }
  const int threads = omp_get_max_threads();
  std::printf("concord bench: %d threads, %d repeats (medians), device %s, CPU kernels %s%s\n", threads, o.repeats,
              o.device.c_str(), std::string(cpu_isa()).c_str(),
              o.isa.empty() || o.isa == "native" ? "" : " (PyTorch capped too: ATEN_CPU_CAPABILITY, ONEDNN_MAX_CPU_ISA)");
  const double peak = machine_sgemm_gflops();
  const double bw = machine_copy_gbs();
  std::printf("machine limits: sgemm (OpenBLAS direct, 2048^2) %.1f GFLOP/s, stream copy %.1f GB/s\n", peak, bw);
  TorchPeer torch(o.no_torch ? "" : o.python, threads);
  std::printf("PyTorch: %s\n\n", torch.version().c_str());

  nlohmann::json out;
  out["threads"] = threads;
  out["cpu_isa"] = std::string(cpu_isa());
  out["machine"] = {{"sgemm_gflops", peak}, {"copy_gbs", bw}};
  out["torch"] = torch.version();
  std::printf("%-22s %11s %11s %8s %14s %8s\n", "workload", "concord", "PyTorch", "speedup", "achieved", "of limit");
  std::map<std::string, std::pair<double, double>> times;  // name -> (concord, PyTorch) medians
  const Device dev(o.device);
  for (const auto& w : workloads(dev)) {
    if (!o.filter.empty() && w.name.find(o.filter) == std::string::npos) continue;
    std::fprintf(stderr, "bench: %s ...\n", w.name.c_str());  // progress; the table stays on stdout
    // Each run waits for the device: OpenCL kernels are asynchronous, and a
    // clock read after the enqueue alone would time nothing.
    const std::function<void()> run = [&] {
      w.run();
      synchronize(dev);
    };
    std::vector<double> mine, theirs, repro;
    std::string error, torch_error, repro_error;
    try {
      w.setup();
      run();  // warm-up
      if (o.reproducible) {
        const ReproducibleGuard mode(true);
        run();
      }
    } catch (const std::exception& e) {
      error = e.what();
    }
    // Interleave: one concord round, one PyTorch round, so both see the same machine state.
    for (int r = 0; r < o.repeats && error.empty(); ++r) {
      try {
        auto s = time_it(run, 1, w.inner);
        mine.push_back(s[0]);
      } catch (const std::exception& e) {
        error = e.what();
      }
      if (o.reproducible && repro_error.empty() && error.empty()) {
        try {
          const ReproducibleGuard mode(true);  // --reproducible: the same workload in the mode, same round
          repro.push_back(time_it(run, 1, w.inner)[0]);
        } catch (const std::exception& e) {
          repro_error = e.what();
        }
      }
      if (torch.ok() && torch_error.empty()) {
        auto t = torch.time(w.torch_name, 1, w.inner);
        if (t.error.empty()) theirs.push_back(t.seconds.empty() ? 0 : t.seconds[0]);
        else torch_error = t.error;
      }
    }
    w.teardown();
    const double mc = median(mine), tc = median(theirs);
    std::string achieved = "-", pct = "-";
    if (mc > 0 && w.flops > 0) {
      char b[32];
      std::snprintf(b, sizeof b, "%.1f GFLOP/s", w.flops / mc / 1e9);
      achieved = b;
      std::snprintf(b, sizeof b, "%.0f%%", 100.0 * w.flops / mc / 1e9 / peak);
      pct = b;
    } else if (mc > 0 && w.bytes > 0) {
      char b[32];
      std::snprintf(b, sizeof b, "%.1f GB/s", w.bytes / mc / 1e9);
      achieved = b;
      std::snprintf(b, sizeof b, "%.0f%%", 100.0 * w.bytes / mc / 1e9 / bw);
      pct = b;
    }
    times[w.name] = {mc, tc};
    char ratio[32] = "-";
    if (mc > 0 && tc > 0) std::snprintf(ratio, sizeof ratio, "%.2fx", tc / mc);
    std::printf("%-22s %11s %11s %8s %14s %8s\n", w.name.c_str(), error.empty() ? fmt_time(mc).c_str() : "error",
                torch_error.empty() ? fmt_time(tc).c_str() : "error", ratio, achieved.c_str(), pct.c_str());
    const double rc = median(repro);
    if (o.reproducible && error.empty()) {
      if (!repro_error.empty()) std::printf("  reproducible mode: %s\n", repro_error.c_str());
      else if (rc > 0 && mc > 0)
        std::printf("  reproducible mode: %s, %.2fx the default mode's rate\n", fmt_time(rc).c_str(), mc / rc);
    }
    if (!error.empty()) std::printf("  concord: %s\n", error.c_str());
    if (!torch_error.empty()) std::printf("  PyTorch: %s\n", torch_error.c_str());
    std::fflush(stdout);  // each row as it finishes, also into a pipe or a file
    out["workloads"].push_back({{"name", w.name}, {"concord_s", mc}, {"torch_s", tc}, {"speedup", tc > 0 && mc > 0 ? tc / mc : 0},
                                {"concord_error", error}, {"torch_error", torch_error}, {"flops", w.flops}, {"bytes", w.bytes},
                                {"reproducible_s", rc}, {"reproducible_error", repro_error}});
  }
  // The MLP variants against their own float32 time (the perf target is on
  // concord's autocast bfloat16 / float32).
  if (auto base = times.find("mlp b256 f32"); base != times.end()) {
    for (const char* v : {"mlp b256 autocast bf16", "mlp b256 bf16"}) {
      auto it = times.find(v);
      if (it == times.end()) continue;
      const auto [c, t] = it->second;
      const double rc = base->second.first > 0 && c > 0 ? c / base->second.first : 0;
      const double rt = base->second.second > 0 && t > 0 ? t / base->second.second : 0;
      auto ratio = [](double r) {
        char b[32];
        if (r > 0) std::snprintf(b, sizeof b, "%.2fx", r);
        else std::snprintf(b, sizeof b, "-");
        return std::string(b);
      };
      std::printf("%s / f32 time: concord %s, PyTorch %s\n", v, ratio(rc).c_str(), ratio(rt).c_str());
      out["mlp_ratios"][v] = {{"concord", rc}, {"torch", rt}};
    }
  }
  if (!o.json.empty()) std::ofstream(o.json) << out.dump(1) << "\n";
  return 0;
}

}  // namespace concord::cli
