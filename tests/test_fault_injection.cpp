// Fault injection: every allocation an op makes fails once (k = 1..N), and
// OpenCL builds and transfers fail on demand. Each failure must raise the typed
// error of a real failure, leave the inputs bitwise untouched, leak nothing
// (memory_stats), and leave the library working for the next op.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#if CONCORD_HAVE_OPENCL
#include "backend/opencl/runtime.h"
#endif
#include "concord/concord.h"
#include "concord/fault_injection.h"
#include "support/bytes.h"
#include "support/devices.h"

namespace concord {
namespace {

using testing::FaultInjection;

using test::host_bytes;
using test::same_bytes;

Tensor filled(Shape shape, const Device& d, uint32_t seed, bool spd = false) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  const int64_t n = numel(shape);
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = u(rng);
  if (spd) {  // diagonally dominant square matrix: solve/inv are well defined
    const int64_t m = shape[0];
    for (int64_t i = 0; i < m; ++i) v[static_cast<size_t>(i * m + i)] += static_cast<float>(m);
  }
  return from_host(v.data(), shape, float32, d);
}

std::vector<Device> devices_touched(const Device& d) {
  std::vector<Device> ds{kCPU};
  if (!d.is_cpu()) ds.push_back(d);
  if (d != Device("emu:0")) ds.push_back(Device("emu:0"));
  return ds;
}

struct OpCase {
  std::string name;
  std::function<Tensor(const Tensor& a, const Tensor& b, const Tensor& sq, const Device& d)> run;
};

std::vector<OpCase> op_cases() {
  return {
      {"zeros", [](auto&, auto&, auto&, const Device& d) { return zeros({16, 8}, float32, d); }},
      {"arange", [](auto&, auto&, auto&, const Device& d) { return arange(0, 100, 1, float32, d); }},
      {"eye", [](auto&, auto&, auto&, const Device& d) { return eye(8, std::nullopt, float32, d); }},
      {"add", [](auto& a, auto& b, auto&, auto&) { return add(a, b); }},
      {"add_broadcast", [](auto& a, auto&, auto&, auto&) { return add(a, a.select(0, 0)); }},
      {"exp_strided", [](auto& a, auto&, auto&, auto&) { return exp(a.transpose(0, 1)); }},
      {"mul_scalar_f16", [](auto& a, auto&, auto&, auto&) { return mul(a.to(float16), 2.5); }},
      {"where", [](auto& a, auto& b, auto&, auto&) { return where(gt(a, 0), a, b); }},
      {"sum_dim", [](auto& a, auto&, auto&, auto&) { return sum(a, {1}); }},
      {"mean_all", [](auto& a, auto&, auto&, auto&) { return mean(a); }},
      {"argmax", [](auto& a, auto&, auto&, auto&) { return argmax(a, 1); }},
      {"var", [](auto& a, auto&, auto&, auto&) { return var(a, {0}); }},
      {"softmax", [](auto& a, auto&, auto&, auto&) { return softmax(a, 1); }},
      {"cumsum", [](auto& a, auto&, auto&, auto&) { return cumsum(a, 0); }},
      {"matmul", [](auto& a, auto& b, auto&, auto&) { return matmul(a, b.transpose(0, 1)); }},
      {"cat", [](auto& a, auto& b, auto&, auto&) { return cat({a, b}, 0); }},
      {"contiguous", [](auto& a, auto&, auto&, auto&) { return a.transpose(0, 1).contiguous(); }},
      {"flip", [](auto& a, auto&, auto&, auto&) { return flip(a, {0}); }},
      {"index_select",
       [](auto& a, auto&, auto&, const Device& d) {
         return index_select(a, 0, arange(0, 16, 3, int64, d));
       }},
      {"tril", [](auto&, auto&, auto& sq, auto&) { return tril(sq); }},
      {"solve", [](auto&, auto& b, auto& sq, auto&) { return linalg::solve(sq, b.narrow(0, 0, 8)); }},
      {"inv", [](auto&, auto&, auto& sq, auto&) { return linalg::inv(sq); }},
      {"to_cpu", [](auto& a, auto&, auto&, auto&) { return a.to(kCPU); }},
      {"to_emu", [](auto& a, auto&, auto&, auto&) { return a.to(Device("emu:0")); }},
      {"to_float16", [](auto& a, auto&, auto&, auto&) { return a.to(float16); }},
  };
}

class FaultInjectionTest : public test::DeviceTest {};

// Sweeps k = 1, 2, ...: the k-th allocation of the op fails until the op makes
// fewer than k allocations and succeeds.
TEST_P(FaultInjectionTest, EveryAllocationOfEveryOpFailsCleanly) {
  const Device d = device();
  const Tensor a = filled({16, 8}, d, 1), b = filled({16, 8}, d, 2), sq = filled({8, 8}, d, 3, true);
  const auto a0 = host_bytes(a), b0 = host_bytes(b), sq0 = host_bytes(sq);
  for (const OpCase& c : op_cases()) {
    SCOPED_TRACE(c.name + " on " + d.str());
    if ((c.name == "to_cpu" && d.is_cpu()) || (c.name == "to_emu" && d == Device("emu:0"))) continue;  // no copy
    const auto expected = host_bytes(c.run(a, b, sq, d));  // also builds any OpenCL program first
    std::vector<uint64_t> live0;
    for (const Device& m : devices_touched(d)) live0.push_back(memory_stats(m).live_bytes);
    int failures = 0;
    bool done = false;
    for (int64_t k = 1; k <= 64 && !done; ++k) {
      SCOPED_TRACE("allocation " + std::to_string(k));
      FaultInjection guard;
      const uint64_t failed0 = testing::fault_counters().allocations_failed;
      testing::fail_allocation_after(k);
      try {
        Tensor r = c.run(a, b, sq, d);
        ASSERT_TRUE(testing::fault_counters().allocation_armed) << "the op swallowed an allocation failure";
        done = true;
      } catch (const OutOfMemoryError& e) {
        ++failures;
        EXPECT_EQ(testing::fault_counters().allocations_failed, failed0 + 1);
        const std::string m = e.what();
        EXPECT_EQ(m.rfind("[", 0), 0u) << m;
        EXPECT_NE(m.find(" bytes on "), std::string::npos) << m;
        EXPECT_TRUE(m.find("cpu") != std::string::npos || m.find("emu:") != std::string::npos ||
                    m.find("opencl:") != std::string::npos)
            << m;
      } catch (const std::exception& e) {
        ADD_FAILURE() << "expected OutOfMemoryError, got: " << e.what();
      }
      testing::clear_faults();
      EXPECT_TRUE(same_bytes(host_bytes(a), a0));
      EXPECT_TRUE(same_bytes(host_bytes(b), b0));
      EXPECT_TRUE(same_bytes(host_bytes(sq), sq0));
      const auto ds = devices_touched(d);
      for (size_t i = 0; i < ds.size(); ++i)
        EXPECT_EQ(memory_stats(ds[i]).live_bytes, live0[i]) << "leak on " << ds[i].str();
      const auto again = host_bytes(c.run(a, b, sq, d));  // the next op after a failure works
      EXPECT_TRUE(same_bytes(again, expected)) << "the next op after a failure";
    }
    EXPECT_TRUE(done) << "the op still failed after 64 allocations";
    EXPECT_GE(failures, 1) << "the op allocated nothing";
  }
}

// Only allocations of the named kind count: a cpu fault does not fire on an
// op that allocates only on the device.
TEST_P(FaultInjectionTest, KindFilterCountsOnlyThatDevice) {
  const Device d = device();
  if (d.is_cpu()) GTEST_SKIP() << "needs a non-cpu device";
  const Tensor a = filled({4, 4}, d, 5);
  FaultInjection guard;
  testing::fail_allocation_after(1, "cpu");
  // clone: a copy, native on every device (an op taking the CPU fallback
  // would allocate on the host too).
  ASSERT_TRUE(capabilities(d).has_kernel(OpId::copy, float32));
  Tensor r = a.clone();  // one allocation on d, none on the host
  EXPECT_TRUE(testing::fault_counters().allocation_armed);
  testing::fail_allocation_after(1, d.kind().name());
  EXPECT_THROW((void)a.clone(), OutOfMemoryError);
}

TEST_P(FaultInjectionTest, FailedTransferLeavesTensorsUntouched) {
  const Device d = device();
  if (memory_space(d) == MemorySpace::host) GTEST_SKIP() << "host copies (cpu <-> emu) are memcpy: they cannot fail";
  const Tensor h = filled({32, 4}, kCPU, 7);
  const Tensor x = h.to(d);
  const auto h0 = host_bytes(h), x0 = host_bytes(x);
  const uint64_t live_cpu = memory_stats(kCPU).live_bytes, live_dev = memory_stats(d).live_bytes;
  FaultInjection guard;

  testing::fail_next_transfer();
  try {
    (void)h.to(d);
    ADD_FAILURE() << "write did not fail";
  } catch (const DeviceError& e) {
    const std::string m = e.what();
    // "[opencl] clEnqueueWriteBuffer(512 bytes ..." / "[vulkan] write of 512 bytes ...".
    EXPECT_EQ(m.rfind("[" + std::string(d.kind().name()) + "]", 0), 0u) << m;
    EXPECT_NE(m.find("512 bytes"), std::string::npos) << m;
    EXPECT_NE(m.find("host -> " + d.str()), std::string::npos) << m;
  }
  testing::fail_next_transfer();
  try {
    (void)x.to(kCPU);
    ADD_FAILURE() << "read did not fail";
  } catch (const DeviceError& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("[" + std::string(d.kind().name()) + "]", 0), 0u) << m;
    EXPECT_NE(m.find("512 bytes"), std::string::npos) << m;
    EXPECT_NE(m.find(d.str() + " -> host"), std::string::npos) << m;
  }
  EXPECT_EQ(testing::fault_counters().transfers_failed >= 2, true);
  EXPECT_EQ(memory_stats(kCPU).live_bytes, live_cpu);
  EXPECT_EQ(memory_stats(d).live_bytes, live_dev);
  EXPECT_TRUE(same_bytes(host_bytes(h), h0));
  EXPECT_TRUE(same_bytes(host_bytes(x), x0));
  EXPECT_TRUE(same_bytes(host_bytes(h.to(d)), h0));  // works again
}

CONCORD_INSTANTIATE_DEVICES(FaultInjectionTest);

#if CONCORD_HAVE_OPENCL  // the OpenCL runtime's internals (CONCORD_OPENCL=ON)
// A failing build (context level): DeviceError with the program name, the
// device and the compiler's log; the next build of the same program works.
TEST(FaultInjectionBuild, ProgramBuildFailureCarriesTheLog) {
  if (detail::ocl::device_count() == 0) GTEST_SKIP() << "no OpenCL device";
  auto& ctx = detail::ocl::context(0);
  const std::string src = "__kernel void fault_probe(__global float* x) { x[get_global_id(0)] = " +
                          std::to_string(std::random_device{}()) + ".0f; }\n";
  FaultInjection guard;
  testing::fail_next_kernel_build();
  try {
    ctx.program("fault_probe", src);
    ADD_FAILURE() << "the build did not fail";
  } catch (const DeviceError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("[opencl] building program 'fault_probe' failed on opencl:0"), std::string::npos) << m;
    EXPECT_NE(m.find("build log:"), std::string::npos) << m;
    EXPECT_NE(m.find("injected build failure"), std::string::npos) << m;  // the compiler's own log line
  }
  EXPECT_FALSE(testing::fault_counters().build_armed);
  cl_program p = ctx.program("fault_probe", src);
  EXPECT_NE(p, nullptr);
  EXPECT_NE(ctx.kernel(p, "fault_probe"), nullptr);
}

// A failing build reached through an op: the op raises DeviceError with the
// log, its input is untouched, and the op works afterwards. A profile that
// changes the build options makes the program new to this process.
TEST(FaultInjectionBuild, OpWithFailingBuild) {
  if (detail::ocl::device_count() == 0) GTEST_SKIP() << "no OpenCL device";
  const Device d("opencl:0");
  const Tensor x = filled({8}, d, 9);
  const auto x0 = host_bytes(x);
  ProfileGuard profile(d, "no-fp64");
  FaultInjection guard;
  testing::fail_next_kernel_build();
  try {
    Tensor r = sqrt(abs(x));
    if (testing::fault_counters().build_armed)
      GTEST_SKIP() << "the op's program was already built in this process; nothing to fail";
    ADD_FAILURE() << "the op did not fail";
  } catch (const DeviceError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("build log:"), std::string::npos) << m;
    EXPECT_NE(m.find("opencl:0"), std::string::npos) << m;
  }
  EXPECT_TRUE(same_bytes(host_bytes(x), x0));
  const std::vector<float> r = sqrt(abs(x)).to_vector<float>();
  const std::vector<float> xs = x.to_vector<float>();
  for (size_t i = 0; i < r.size(); ++i) EXPECT_EQ(r[i], static_cast<float>(std::sqrt(std::fabs(xs[i]))));
}

TEST(FaultInjectionOff, CountersStayQuietWhenNothingIsArmed) {
  testing::clear_faults();
  const auto c0 = testing::fault_counters();
  Tensor t = add(ones({4}, float32, kCPU), 1);
  const auto c1 = testing::fault_counters();
  EXPECT_EQ(c1.allocations_failed, c0.allocations_failed);
  EXPECT_FALSE(c1.allocation_armed || c1.build_armed || c1.transfer_armed);
}

#endif  // CONCORD_HAVE_OPENCL

}  // namespace
}  // namespace concord
