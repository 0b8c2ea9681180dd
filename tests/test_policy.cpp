// Devices, profiles, policies and the report: the scenarios concord exists for.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <thread>
#include <memory>

#include "concord/concord.h"
#include "support/devices.h"

using namespace concord;

namespace {
// Collects warnings for the lifetime of the object.
struct WarningCapture {
  std::vector<std::string> seen;
  WarningHandler saved;
  WarningCapture() {
    reset_warnings();
    saved = set_warning_handler([this](const std::string& m) { seen.push_back(m); });
  }
  ~WarningCapture() { set_warning_handler(saved); }
};
bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
}  // namespace

TEST(Device, ParsesAndPrints) {
  EXPECT_EQ(Device("cpu").str(), "cpu");
  EXPECT_EQ(Device("emu:0").str(), "emu:0");
  EXPECT_EQ(Device("opencl:12").str(), "opencl:12");
  EXPECT_EQ(Device("emu").str(), "emu:0");
  EXPECT_TRUE(Device("cpu") == kCPU);
  for (const char* bad : {"", "gpu", "emu:", "emu:x", "opencl:-1", "cpu:1", "emu:0:1", "EMU:0", "emu:9999999"})
    EXPECT_THROW(Device{bad}, DeviceError) << bad;
  try {
    Device d("cuda:0");
    FAIL();
  } catch (const DeviceError& e) {
    EXPECT_TRUE(contains(e.what(), "[device]")) << e.what();
    EXPECT_TRUE(contains(e.what(), "cuda:0"));
    EXPECT_TRUE(contains(e.what(), "emu:N"));
  }
}

TEST(Device, ListsCpuAndEmu) {
  auto ds = devices();
  ASSERT_GE(ds.size(), 2u);
  EXPECT_EQ(ds[0], kCPU);
  EXPECT_EQ(ds[1], Device("emu:0"));
  EXPECT_THROW(zeros({2}, float32, Device("emu:7")), DeviceError);
}

TEST(Profile, ParsesAndRejects) {
  Profile p = parse_profile("no-fp64, no-op:solve,no-fp16");
  EXPECT_TRUE(p.no_fp64);
  EXPECT_TRUE(p.no_fp16);
  ASSERT_EQ(p.no_ops.size(), 1u);
  EXPECT_EQ(p.no_ops[0], "solve");
  EXPECT_EQ(p.str(), "no-fp64,no-fp16,no-op:solve");
  EXPECT_TRUE(parse_profile("none").empty());
  EXPECT_THROW(parse_profile("no-fp32"), ValueError);
  EXPECT_THROW(parse_profile("no-op:frobnicate"), ValueError);
  EXPECT_THROW(parse_profile("no-op:copy"), ValueError);
  EXPECT_THROW(set_profile(kCPU, "no-fp64"), DeviceError);
}

TEST(Profile, RestrictsCapabilitiesAndGuardRestores) {
  const Device e("emu:0");
  EXPECT_FALSE(capabilities(e).can_store(float64));  // emu's default profile
  EXPECT_TRUE(raw_capabilities(e).can_store(float64));
  {
    ProfileGuard g(e, "none");
    EXPECT_TRUE(capabilities(e).can_store(float64));
    {
      ProfileGuard g2(e, "no-fp16,no-op:fill");
      EXPECT_FALSE(capabilities(e).can_compute(float16));
      EXPECT_TRUE(capabilities(e).can_store(float16));
      EXPECT_FALSE(capabilities(e).has_kernel(OpId::fill, float32));
    }
    EXPECT_TRUE(capabilities(e).has_kernel(OpId::fill, float32));
  }
  EXPECT_FALSE(capabilities(e).can_store(float64));
}

// Scenario 1: a float64 host array moved to a float64-less device.
TEST(Scenario, Float64HostArrayToEmuDowncastsOnceAndIsCounted) {
  reset_report();
  WarningCapture w;
  const double data[4] = {1.0, 2.5, 1e300, 1.0 + 1e-12};
  auto host = from_host(data, {2, 2}, float64);
  auto t = host.to(Device("emu:0"));
  auto t2 = host.to(Device("emu:0"));
  EXPECT_EQ(t.dtype(), float32);
  EXPECT_EQ(t.device(), Device("emu:0"));
  auto v = t.to_vector<float>();
  EXPECT_EQ(v[0], 1.0f);
  EXPECT_EQ(v[1], 2.5f);
  EXPECT_EQ(v[2], INFINITY);
  EXPECT_EQ(v[3], 1.0f);
  ASSERT_EQ(w.seen.size(), 1u) << "exactly one warning for two transfers";
  EXPECT_TRUE(contains(w.seen[0], "float64")) << w.seen[0];
  EXPECT_TRUE(contains(w.seen[0], "emu:0"));
  EXPECT_TRUE(contains(w.seen[0], "CONCORD_DTYPE_POLICY=strict"));
  Report r = report();
  EXPECT_EQ(r.count("copy", "emu:0", float64, Path::downcast), 2u);
  EXPECT_EQ(r.bytes("cpu", "emu:0"), 2u * 4 * sizeof(float));
  EXPECT_TRUE(contains(r.str(), "downcast"));
}

TEST(Scenario, Float64ToEmuStrictThrowsAndAllocatesNothing) {
  const double data[3] = {1, 2, 3};
  auto host = from_host(data, {3}, float64);
  const auto before = memory_stats(Device("emu:0")).allocations;
  DtypePolicyGuard strict(DtypePolicy::strict);
  try {
    host.to(Device("emu:0"));
    FAIL() << "expected UnsupportedDtypeError";
  } catch (const UnsupportedDtypeError& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("[copy]", 0), 0u) << m;
    EXPECT_TRUE(contains(m, "float64")) << m;
    EXPECT_TRUE(contains(m, "emu:0")) << m;
    EXPECT_TRUE(contains(m, "no-fp64")) << m;
    EXPECT_TRUE(contains(m, "Use float32")) << m;                  // remedy 1
    EXPECT_TRUE(contains(m, "CONCORD_DTYPE_POLICY=downcast")) << m;  // remedy 2
  }
  EXPECT_EQ(memory_stats(Device("emu:0")).allocations, before);
  EXPECT_EQ(host.to_vector<double>(), (std::vector<double>{1, 2, 3}));  // input untouched
  EXPECT_THROW(zeros({2}, float64, Device("emu:0")), UnsupportedDtypeError);
}

// Scenario 2: an op removed by a profile runs through the CPU fallback.
TEST(Scenario, ProfiledAwayOpFallsBackOnceAndIsCounted) {
  const Device e("emu:0");
  ProfileGuard g(e, "no-fp64,no-op:arange");
  reset_report();
  WarningCapture w;
  auto a = arange(0, 1000, 1, int64, e);
  auto b = arange(0, 1000, 1, int64, e);
  EXPECT_EQ(a.device(), e);
  auto v = a.to_vector<int64_t>();
  for (int64_t i = 0; i < 1000; ++i) ASSERT_EQ(v[i], i);
  EXPECT_EQ(b.to_vector<int64_t>(), v);
  ASSERT_EQ(w.seen.size(), 1u);
  EXPECT_TRUE(contains(w.seen[0], "[arange]"));
  EXPECT_TRUE(contains(w.seen[0], "CONCORD_FALLBACK=strict"));
  Report r = report();
  EXPECT_EQ(r.count("arange", "emu:0", int64, Path::fallback), 2u);
  EXPECT_GE(r.bytes("cpu", "emu:0"), 2u * 1000 * 8);
  FallbackPolicyGuard strict(FallbackPolicy::strict);
  try {
    arange(0, 10, 1, int64, e);
    FAIL();
  } catch (const NotImplementedError& ex) {
    EXPECT_TRUE(contains(ex.what(), "[arange]")) << ex.what();
    EXPECT_TRUE(contains(ex.what(), "emu:0"));
    EXPECT_TRUE(contains(ex.what(), "CONCORD_FALLBACK=cpu"));
  }
}

TEST(Policy, GuardsNestAndAreThreadLocal) {
  EXPECT_EQ(dtype_policy(), DtypePolicy::downcast);
  {
    DtypePolicyGuard a(DtypePolicy::strict);
    EXPECT_EQ(dtype_policy(), DtypePolicy::strict);
    std::thread([] { EXPECT_EQ(dtype_policy(), DtypePolicy::downcast); }).join();
    {
      DtypePolicyGuard b(DtypePolicy::downcast);
      EXPECT_EQ(dtype_policy(), DtypePolicy::downcast);
    }
    EXPECT_EQ(dtype_policy(), DtypePolicy::strict);
  }
  EXPECT_EQ(dtype_policy(), DtypePolicy::downcast);
  EXPECT_THROW(parse_dtype_policy("loose"), ValueError);
  EXPECT_THROW(parse_fallback_policy("gpu"), ValueError);
  EXPECT_EQ(parse_fallback_policy("strict"), FallbackPolicy::strict);
}

TEST(Support, AnswersLikeTheDispatcher) {
  const Device e("emu:0");
  EXPECT_EQ(support(OpId::add, kCPU, float32).path, Path::native);
  EXPECT_EQ(support(OpId::add, kCPU, float16).path, Path::widened);
  EXPECT_EQ(support(OpId::add, e, float64).path, Path::downcast);
  EXPECT_FALSE(support(OpId::sqrt, kCPU, int32).defined);
  {
    ProfileGuard g(e, "no-op:sum");
    Support s = support(OpId::sum, e, float32);
    EXPECT_EQ(s.path, Path::fallback);
    EXPECT_EQ(s.exec, kCPU);
    FallbackPolicyGuard strict(FallbackPolicy::strict);
    EXPECT_FALSE(support(OpId::sum, e, float32).runs);
  }
}

TEST(Report, JsonAndReset) {
  reset_report();
  auto z = zeros({3}, float32, Device("emu:0"));
  Report r = report();
  EXPECT_EQ(r.count("fill", "emu:0", float32, Path::native), 1u);
  EXPECT_TRUE(contains(r.json(), "\"op\":\"fill\""));
  reset_report();
  EXPECT_TRUE(report().entries.empty());
}

// Environment variables are read once per process: check them through the CLI.
TEST(Environment, ProfileAndPolicyVariables) {
  auto run = [](const std::string& env) {
    std::string cmd = env + " " CONCORD_CLI " devices 2>&1";
    std::unique_ptr<FILE, int (*)(FILE*)> p(popen(cmd.c_str(), "r"), pclose);
    std::string out;
    char buf[512];
    while (p && fgets(buf, sizeof buf, p.get())) out += buf;
    return out;
  };
  std::string ok = run("CONCORD_DEVICE_PROFILE='emu:0=no-fp16,no-op:solve' CONCORD_EMU_DEVICES=2");
  EXPECT_TRUE(contains(ok, "emu:1")) << ok;
  EXPECT_TRUE(contains(ok, "no-fp16,no-op:solve")) << ok;
  std::string bad = run("CONCORD_DEVICE_PROFILE='emu:0=no-fp99'");
  EXPECT_TRUE(contains(bad, "[profile]")) << bad;
  EXPECT_TRUE(contains(bad, "no-fp99")) << bad;
  std::string badpol = run("CONCORD_DTYPE_POLICY=sloppy");
  EXPECT_TRUE(contains(badpol, "downcast or strict")) << badpol;
}

TEST(DeviceKinds, RegistryListsEveryKindCpuFirst) {
  const auto kinds = device_kinds();
  ASSERT_GE(kinds.size(), 3u);
  EXPECT_EQ(kinds[0], DeviceKind::cpu);
  EXPECT_EQ(kinds[0].name(), "cpu");
  for (size_t i = 0; i < kinds.size(); ++i) {
    EXPECT_EQ(kinds[i].id(), i);
    EXPECT_EQ(DeviceKind(kinds[i].name()), kinds[i]);  // names round-trip
  }
  EXPECT_THROW(DeviceKind("gpu"), DeviceError);
  // Every listed device belongs to a registered kind, in registration order.
  int last = -1;
  for (const auto& d : devices()) {
    EXPECT_GE(static_cast<int>(d.kind().id()), last) << d;
    last = d.kind().id();
  }
  EXPECT_EQ(memory_space(kCPU), MemorySpace::host);
  EXPECT_EQ(memory_space(Device("emu:0")), MemorySpace::host);
  EXPECT_EQ(memory_space(Device("opencl:0")), MemorySpace::device);
  try {
    Device d("cuda:0");
  } catch (const DeviceError& e) {
    EXPECT_TRUE(contains(e.what(), "no 'cuda' backend")) << e.what();
  }
}
