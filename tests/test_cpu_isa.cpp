// The CPU's instruction-set level (core/cpu_isa.h): CONCORD_ISA caps it, and
// every level the machine can run gives the same bits for the ops whose CPU
// kernels have per-level code (the vectorised elementwise math, reductions,
// softmax, half conversions, the small LU (blocked on AVX2 and AVX-512) and
// triangular solves, the bfloat16 GEMM, the reproducible mode's GEMM). Each
// level runs in a child process of this test binary (the level is read once
// per process), which prints a digest of the results' bytes.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <limits>
#include <string>

#include "concord/concord.h"

namespace fs = std::filesystem;
using namespace concord;

namespace {

uint64_t fnv(uint64_t h, const Tensor& t) {
  const Tensor c = t.to(kCPU).contiguous();
  const auto* p = static_cast<const unsigned char*>(c.raw_data());
  for (size_t i = 0; i < c.nbytes(); ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

std::string run_child(const std::string& isa) {
  const std::string exe = fs::read_symlink("/proc/self/exe").string();
  const std::string cmd = "env CONCORD_ISA=" + isa + " CONCORD_ISA_CHILD=1 '" + exe +
                          "' --gtest_also_run_disabled_tests --gtest_filter=CpuIsa.DISABLED_Digest 2>&1";
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return "popen failed";
  std::string out;
  char buf[4096];
  while (fgets(buf, sizeof buf, f)) out += buf;
  pclose(f);
  return out;
}

std::string field(const std::string& out, const std::string& key) {
  const size_t at = out.find(key + "=");
  if (at == std::string::npos) return "";
  const size_t end = out.find('\n', at);
  return out.substr(at + key.size() + 1, end - at - key.size() - 1);
}

}  // namespace

// Run only as the child of SameBitsOnEveryLevel.
TEST(CpuIsa, DISABLED_Digest) {
  if (!std::getenv("CONCORD_ISA_CHILD")) GTEST_SKIP() << "helper for SameBitsOnEveryLevel";
  uint64_t h = 1469598103934665603ull;
  for (Dtype t : {float32, float16, bfloat16, float64}) {
    const Tensor x = randn({37, 300}, t, kCPU, 5);
    h = fnv(h, exp(x));
    h = fnv(h, sigmoid(x));
    h = fnv(h, tanh(x));
    h = fnv(h, log(abs(x)));
    h = fnv(h, add(x, flip(x, {1})));
    h = fnv(h, sum(x, {1}));
    h = fnv(h, sum(x));
    h = fnv(h, amax(x, {0}));
    h = fnv(h, softmax(x, 1));
    h = fnv(h, log_softmax(x, 1));
    h = fnv(h, logsumexp(x, {1}));
  }
  // softmax's own exp step (exp_sum_max): rows spanning the subnormal results,
  // -inf entries, a NaN row, and float16 rows too long to keep exp (recomputed).
  {
    Tensor w = mul(randn({4, 5000}, float32, kCPU, 11), 40.0f);
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    auto* p = static_cast<float*>(w.raw_data());
    for (int i = 0; i < 5000; i += 7) p[i] = -inf;
    p[5000 + 123] = nan;
    h = fnv(h, softmax(w, 1));
    h = fnv(h, softmax(mul(randn({2, 70001}, float32, kCPU, 12), 30.0f).to(float16), 1));
    // A NaN row through that recomputing pass: NaNs of two payloads, where
    // each level must keep the same one (exp's, not 1/sum's).
    {
      Tensor v = mul(randn({2, 70001}, float32, kCPU, 21), 30.0f);
      auto* q = static_cast<float*>(v.raw_data());
      q[40] = nan;
      q[60] = std::bit_cast<float>(0xffc12345u);
      for (Dtype t : {float16, bfloat16}) h = fnv(h, softmax(v.to(t), 1));
    }
    // softmax's first max in any order (Kernels::max_any; SSE2 takes the
    // engine's), redone with the engine's when the sum is NaN: a row with
    // +inf, a row of -inf, a row whose max is zero of both signs.
    {
      Tensor z = randn({4, 300}, float32, kCPU, 22);
      auto* q = static_cast<float*>(z.raw_data());
      q[7] = inf;
      for (int i = 300; i < 600; ++i) q[i] = -inf;
      for (int i = 600; i < 900; ++i) q[i] = i % 3 ? -std::abs(q[i]) : (i % 2 ? 0.0f : -0.0f);
      for (Dtype t : {float32, float16, bfloat16}) h = fnv(fnv(h, softmax(z.to(t), 1)), log_softmax(z.to(t), 1));
    }
    h = fnv(h, sum(randn({3, 3 * 4096 + 77}, bfloat16, kCPU, 13), {1}));
    h = fnv(h, sum(randn({1 << 18}, bfloat16, kCPU, 14)));
  }
  const Tensor a = add(randn({6, 64, 64}, float64, kCPU, 7), mul(eye(64, {}, float64), 8.0));
  for (Dtype t : {float32, float64}) {
    const Tensor at = a.to(t), b = randn({6, 64, 3}, t, kCPU, 8);
    h = fnv(h, linalg::solve(at, b));
    h = fnv(h, linalg::solve_triangular(at, b, /*upper=*/true));
    h = fnv(h, linalg::lu_factor(at).LU);
    // One right-hand side: the one-column substitutions (16 rows per block on AVX-512 float32).
    const Tensor b1 = randn({6, 64, 1}, t, kCPU, 18);
    h = fnv(h, linalg::solve(at, b1));
    const Tensor a100 = add(randn({100, 100}, t, kCPU, 19), mul(eye(100, {}, t), 8.0)), b100 = randn({100, 1}, t, kCPU, 20);
    for (bool upper : {false, true})
      for (bool unit : {false, true}) h = fnv(h, linalg::solve_triangular(a100, b100, upper, /*left=*/true, unit));
  }
  // The small LU with row swaps (not diagonally dominant) across its paths:
  // ragged panels and edges (37: blocked from 24 on AVX2, unblocked on
  // AVX-512; 100: blocked on both), and the reproducible mode past the small
  // regime (130: every level's unblocked loop, which that mode must keep).
  for (Dtype t : {float32, float64}) {
    for (int64_t n : {37, 100}) {
      const auto f = linalg::lu_factor(randn({2, n, n}, t, kCPU, 15));
      h = fnv(fnv(h, f.LU), f.pivots);
    }
    const ReproducibleGuard on(true);
    h = fnv(h, linalg::solve(randn({130, 130}, t, kCPU, 16), randn({130, 2}, t, kCPU, 17)));
  }
  const Tensor m = randn({48, 96}, bfloat16, kCPU, 9);
  h = fnv(h, matmul(m, m.t()));
  {
    // The reproducible mode's GEMM: AVX-512, AVX2+FMA and scalar fma tiles run one chain.
    const ReproducibleGuard on(true);
    for (Dtype t : {float32, float64, float16}) {
      const Tensor x = randn({2, 53, 300}, t, kCPU, 10), y = randn({300, 37}, t, kCPU, 11);
      h = fnv(h, matmul(x, y));
    }
  }
  std::cout << "ISA=" << cpu_isa() << "\nDIGEST=" << h << std::endl;
}

TEST(CpuIsa, SameBitsOnEveryLevel) {
  const std::string native = run_child("native");
  const std::string top = field(native, "ISA"), want = field(native, "DIGEST");
  ASSERT_FALSE(want.empty()) << native;
  EXPECT_EQ(top, std::string(cpu_isa())) << "the child's level differs from this process's";
  int compared = 0;
  for (const char* isa : {"baseline", "avx2", "avx512"}) {
    const std::string out = run_child(isa);
    const std::string got = field(out, "ISA");
    // A level above what the CPU has is capped to it: compare only the levels that really ran.
    if (got != isa) {
      std::cout << "[ SKIPPED ] level " << isa << ": this CPU runs at most " << top << "\n";
      continue;
    }
    EXPECT_EQ(field(out, "DIGEST"), want) << "level " << isa << " gives different bits than " << top << "\n" << out;
    ++compared;
  }
  EXPECT_GE(compared, 1);
}

TEST(CpuIsa, UnknownLevelIsAClearError) {
  const std::string out = run_child("avx9000");
  EXPECT_NE(out.find("[cpu] CONCORD_ISA='avx9000' is not an instruction-set level"), std::string::npos) << out;
}
