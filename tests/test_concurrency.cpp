// Concurrency: 8 threads run ops at once on shared read-only inputs. Results
// must equal the single-threaded ones bitwise, report counters must be exact,
// each adaptation warning must be given once, and an OpenCL program must be
// built once. `make tsan` runs this file under ThreadSanitizer.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <latch>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#if CONCORD_HAVE_OPENCL
#include "backend/opencl/runtime.h"
#endif
#include "concord/concord.h"
#include "core/dispatch.h"
#include "support/bytes.h"
#include "support/devices.h"

namespace concord {
namespace {

constexpr int kThreads = 8;
constexpr int kRounds = 3;

using test::host_bytes;
using test::same_bytes;

Tensor filled(Shape shape, const Device& d, uint32_t seed, bool dominant = false) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> v(static_cast<size_t>(numel(shape)));
  for (auto& x : v) x = u(rng);
  if (dominant)
    for (int64_t i = 0; i < shape[0]; ++i) v[static_cast<size_t>(i * shape[0] + i)] += static_cast<float>(shape[0]);
  return from_host(v.data(), shape, float32, d);
}

// Runs fn(thread_index) on kThreads threads released together; returns the
// messages of any exceptions.
std::vector<std::string> run_threads(const std::function<void(int)>& fn) {
  std::latch start(kThreads);
  std::mutex mu;
  std::vector<std::string> errors;
  std::vector<std::thread> ts;
  for (int i = 0; i < kThreads; ++i)
    ts.emplace_back([&, i] {
      start.arrive_and_wait();
      try {
        fn(i);
      } catch (const std::exception& e) {
        std::lock_guard lock(mu);
        errors.push_back(e.what());
      }
    });
  for (auto& t : ts) t.join();
  return errors;
}

using Op = std::function<Tensor(const Tensor&, const Tensor&, const Tensor&)>;
std::vector<std::pair<std::string, Op>> ops() {
  return {
      {"add", [](auto& a, auto& b, auto&) { return add(a, b); }},
      {"mul_broadcast", [](auto& a, auto&, auto&) { return mul(a, a.select(0, 1)); }},
      {"exp_strided", [](auto& a, auto&, auto&) { return exp(a.transpose(0, 1)); }},
      {"half_tanh", [](auto& a, auto&, auto&) { return tanh(a.to(float16)); }},
      {"where", [](auto& a, auto& b, auto&) { return where(gt(a, 0), a, b); }},
      {"sum", [](auto& a, auto&, auto&) { return sum(a, {0}); }},
      {"mean_all", [](auto& a, auto&, auto&) { return mean(a); }},
      {"argmax", [](auto& a, auto&, auto&) { return argmax(a, 1); }},
      {"softmax", [](auto& a, auto&, auto&) { return softmax(a, 1); }},
      {"cumsum", [](auto& a, auto&, auto&) { return cumsum(a, 0); }},
      {"matmul", [](auto& a, auto& b, auto&) { return matmul(a, b.transpose(0, 1)); }},
      {"cat", [](auto& a, auto& b, auto&) { return cat({a, b}, 1); }},
      {"index_select", [](auto& a, auto&, auto&) { return index_select(a, 0, arange(0, 64, 5, int64, a.device())); }},
      {"solve", [](auto&, auto& b, auto& sq) { return linalg::solve(sq, b.narrow(0, 0, 16)); }},
      {"to_cpu", [](auto& a, auto&, auto&) { return a.to(kCPU); }},
      {"rand", [](auto& a, auto&, auto&) { return rand({33, 7}, float32, a.device(), 1234); }},
  };
}

class ConcurrencyTest : public test::DeviceTest {};

TEST_P(ConcurrencyTest, ResultsAndReportCountersMatchOneThread) {
  const Device d = device();
  const Tensor a = filled({64, 48}, d, 1), b = filled({64, 48}, d, 2), sq = filled({16, 16}, d, 3, true);
  const auto all = ops();
  // One thread: the reference results and the report of one run of every op.
  std::vector<std::vector<uint8_t>> expected;
  for (const auto& [name, op] : all) expected.push_back(host_bytes(op(a, b, sq)));
  reset_report();
  for (const auto& [name, op] : all) (void)host_bytes(op(a, b, sq));  // as the threads do
  const Report once = report();

  reset_report();
  std::atomic<int> mismatches{0};
  const auto errors = run_threads([&](int t) {
    for (int r = 0; r < kRounds; ++r)
      for (size_t i = 0; i < all.size(); ++i) {
        const size_t k = (i + static_cast<size_t>(t)) % all.size();  // threads start on different ops
        if (host_bytes(all[k].second(a, b, sq)) != expected[k]) ++mismatches;
      }
  });
  const Report many = report();
  EXPECT_TRUE(errors.empty()) << errors.front();
  EXPECT_EQ(mismatches.load(), 0);
  // Every counter is exactly kThreads * kRounds times the single run.
  ASSERT_EQ(many.entries.size(), once.entries.size()) << many.str() << once.str();
  for (size_t i = 0; i < once.entries.size(); ++i) {
    const auto& e1 = once.entries[i];
    const auto& en = many.entries[i];
    EXPECT_EQ(en.op + en.device, e1.op + e1.device);
    EXPECT_EQ(en.count, e1.count * kThreads * kRounds) << e1.op << " " << e1.device << " " << name(e1.dtype);
  }
  ASSERT_EQ(many.transfers.size(), once.transfers.size());
  for (size_t i = 0; i < once.transfers.size(); ++i) {
    EXPECT_EQ(many.transfers[i].bytes, once.transfers[i].bytes * kThreads * kRounds);
    EXPECT_EQ(many.transfers[i].count, once.transfers[i].count * kThreads * kRounds);
  }
}

// Views of one shared tensor read from many threads while each thread writes
// only its own output.
TEST_P(ConcurrencyTest, ThreadsWriteDisjointSlicesOfOneOutput) {
  const Device d = device();
  const Tensor a = filled({kThreads, 256}, d, 4);
  Tensor out = zeros({kThreads, 256}, float32, d);
  const auto errors = run_threads([&](int t) { out.select(0, t).copy_(mul(a.select(0, t), 2)); });
  EXPECT_TRUE(errors.empty()) << errors.front();
  EXPECT_TRUE(same_bytes(host_bytes(out), host_bytes(mul(a, 2))));
}

CONCORD_INSTANTIATE_DEVICES(ConcurrencyTest);

// One warning per (op, device, dtype) even when 8 threads hit it at once.
TEST(ConcurrencyWarnings, OneWarningPerKeyUnderRaces) {
  const Device emu("emu:0");
  ProfileGuard profile(emu, "no-fp64,no-op:solve");
  reset_warnings();
  reset_report();
  std::mutex mu;
  std::vector<std::string> given;
  WarningHandler saved = set_warning_handler([&](const std::string& m) {
    std::lock_guard lock(mu);
    given.push_back(m);
  });
  const Tensor x64 = arange(0, 12, 1, float64, kCPU).reshape({3, 4});
  const Tensor sq = filled({4, 4}, emu, 5, true), rhs = filled({4, 2}, emu, 6);
  const auto errors = run_threads([&](int) {
    for (int r = 0; r < kRounds; ++r) {
      Tensor e = x64.to(emu);                                   // copy: float64 -> float32 on emu:0
      Tensor f = full({2, 2}, 1.5, float64, emu);               // fill: float64 -> float32
      Tensor s = sum(e, {}, false, float64);                    // sum in float64 -> float32
      Tensor y = linalg::solve(sq, rhs);                        // no native solve -> cpu fallback
      (void)f; (void)s; (void)y;
    }
  });
  set_warning_handler(saved);
  EXPECT_TRUE(errors.empty()) << errors.front();
  std::map<std::string, int> per_message;
  for (const auto& m : given) ++per_message[m];
  for (const auto& [m, n] : per_message) EXPECT_EQ(n, 1) << m;
  // copy, fill and sum downcasts, solve fallback (and what solve's own steps adapt): each once.
  EXPECT_GE(given.size(), 4u);
  auto has = [&](const char* s) {
    for (const auto& m : given)
      if (m.find(s) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(has("[copy] float64 is not supported on emu:0"));
  EXPECT_TRUE(has("[fill] float64 is not supported on emu:0"));
  EXPECT_TRUE(has("[sum] float64 is not supported on emu:0"));
  EXPECT_TRUE(has("[linalg.solve] has no float32 kernel on emu:0"));
  EXPECT_EQ(report().warnings.size(), given.size());  // the report keeps each warning once too
  EXPECT_EQ(report().count("solve", "emu:0", float32, Path::fallback), static_cast<uint64_t>(kThreads * kRounds));
}

// set_profile while other threads run ops on the device: every op sees the old
// or the new profile whole (native or the CPU fallback), and the result has
// the same bits either way; capabilities() references stay valid.
TEST(ConcurrencyProfile, SetProfileWhileOpsRun) {
  const Device emu("emu:0");
  ProfileGuard restore(emu, "no-fp64");
  const Tensor x = filled({64, 257}, emu, 7);
  const std::vector<uint8_t> want = host_bytes(sum(x, {1}));
  const Capabilities& before = capabilities(emu);
  std::atomic<bool> done{false};
  std::thread flipper([&] {
    for (int i = 0; !done.load(); ++i) set_profile(emu, i % 2 ? "no-fp64,no-op:sum" : "no-fp64");
  });
  reset_report();
  const auto errors = run_threads([&](int) {
    for (int r = 0; r < 50; ++r)
      if (host_bytes(sum(x, {1})) != want) throw std::runtime_error("sum differs while the profile changes");
  });
  done = true;
  flipper.join();
  EXPECT_TRUE(errors.empty()) << errors.front();
  EXPECT_FALSE(before.can_compute(float64));  // the old snapshot is still readable
  set_profile(emu, "no-fp64");                 // an equal profile reuses its snapshot
  EXPECT_EQ(&capabilities(emu), &before);
  const uint64_t native = report().count("sum", "emu:0", float32, Path::native);
  const uint64_t fallback = report().count("sum", "emu:0", float32, Path::fallback);
  EXPECT_EQ(native + fallback, static_cast<uint64_t>(kThreads * 50));
}

// Scoped policy guards are per thread: a strict guard in one thread does not
// change what another thread gets.
TEST(ConcurrencyPolicy, GuardsArePerThread) {
  const Device emu("emu:0");
  ProfileGuard profile(emu, "no-fp64");
  const Tensor x64 = arange(0, 4, 1, float64, kCPU);
  const auto errors = run_threads([&](int t) {
    for (int r = 0; r < kRounds; ++r) {
      if (t % 2 == 0) {
        DtypePolicyGuard strict(DtypePolicy::strict);
        bool threw = false;
        try {
          (void)x64.to(emu);
        } catch (const UnsupportedDtypeError&) {
          threw = true;
        }
        if (!threw) throw std::runtime_error("strict guard ignored");
      } else if (x64.to(emu).dtype() != float32) {
        throw std::runtime_error("downcast thread saw the other thread's strict guard");
      }
    }
  });
  EXPECT_TRUE(errors.empty()) << errors.front();
}

// The report's counters are exact under contention, also while it is read.
TEST(ConcurrencyReport, CountersAreExactUnderContention) {
  reset_report();
  constexpr int kPerThread = 20000;
  const auto errors = run_threads([&](int t) {
    const Device d = t % 2 ? Device("emu:0") : kCPU;
    for (int i = 0; i < kPerThread; ++i) {
      detail::record(OpId::add, d, float32, Path::native);
      detail::record(OpId::mul, Device("emu:40"), float16, Path::widened);  // not a device here: not counted
      if (i % 5000 == 0) (void)report();
    }
  });
  EXPECT_TRUE(errors.empty()) << errors.front();
  const Report r = report();
  EXPECT_EQ(r.count("add", "cpu", float32, Path::native), uint64_t{kThreads / 2 * kPerThread});
  EXPECT_EQ(r.count("add", "emu:0", float32, Path::native), uint64_t{kThreads / 2 * kPerThread});
  EXPECT_EQ(r.count("mul", "emu:40", float16, Path::widened), 0u);
  reset_report();
  EXPECT_EQ(report().entries.size(), 0u);
}

#if CONCORD_HAVE_OPENCL  // the OpenCL runtime's internals (CONCORD_OPENCL=ON)
// An OpenCL program asked for by 8 threads at once is built once.
TEST(ConcurrencyOpenCL, ProgramCacheBuildsOnce) {
  if (detail::ocl::device_count() == 0) GTEST_SKIP() << "no OpenCL device";
  auto& ctx = detail::ocl::context(0);
  const std::string src = "__kernel void once(__global float* x) { x[get_global_id(0)] += " +
                          std::to_string(std::random_device{}() % 100000) + ".5f; }\n";
  const auto s0 = ctx.stats();
  std::vector<cl_program> got(kThreads);
  const auto errors = run_threads([&](int t) {
    got[static_cast<size_t>(t)] = ctx.program("concurrency_once", src);
    (void)ctx.kernel(got[static_cast<size_t>(t)], "once");
  });
  EXPECT_TRUE(errors.empty()) << errors.front();
  const auto s1 = ctx.stats();
  EXPECT_EQ((s1.builds_from_source + s1.binaries_loaded) - (s0.builds_from_source + s0.binaries_loaded), 1u);
  EXPECT_EQ(s1.memory_hits - s0.memory_hits, static_cast<uint64_t>(kThreads - 1));
  for (cl_program p : got) EXPECT_EQ(p, got[0]);
}

// Ops under a profile new to the process: their programs are built at most once.
TEST(ConcurrencyOpenCL, OpsBuildEachProgramOnce) {
  if (detail::ocl::device_count() == 0) GTEST_SKIP() << "no OpenCL device";
  const Device d("opencl:0");
  const Tensor a = filled({32, 32}, d, 8);
  ProfileGuard profile(d, "no-fp64");
  auto& ctx = detail::ocl::context(0);
  const auto s0 = ctx.stats();
  const auto errors = run_threads([&](int) { (void)exp(a); });
  EXPECT_TRUE(errors.empty()) << errors.front();
  const auto s1 = ctx.stats();
  EXPECT_LE((s1.builds_from_source + s1.binaries_loaded) - (s0.builds_from_source + s0.binaries_loaded), 1u);
}

#endif  // CONCORD_HAVE_OPENCL

}  // namespace
}  // namespace concord
