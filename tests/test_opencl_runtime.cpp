// Tests for the OpenCL runtime layer (devices, program cache, launch, pool).
// Every test skips when the machine has no OpenCL device. PoCL compiles are
// slow (~1 s each), so the tests share a handful of distinct programs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <latch>
#include <map>
#include <numeric>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "backend/opencl/runtime.h"
#include "concord/error.h"

namespace ocl = concord::detail::ocl;
namespace fs = std::filesystem;

namespace {

#define REQUIRE_DEVICE() \
  if (ocl::device_count() == 0) GTEST_SKIP() << "no OpenCL device"
#define EXPECT_CONTAINS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "missing: " << (part) << "\nin: " << (text)

const char* kSource = R"CLC(
kernel void add(global const float* a, global const float* b, global float* c, int n) {
  int i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i];
}
// One partial sum per work-group, through __local memory, times a scalar.
kernel void block_sum(global const float* x, global float* out, local float* tmp, float scale) {
  size_t l = get_local_id(0);
  tmp[l] = x[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  float s = 0.0f;
  for (size_t j = 0; j < get_local_size(0); ++j) s += tmp[j];
  if (l == 0) out[get_group_id(0)] = s * scale;
}
#if CONCORD_HAS_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
kernel void add_f64(global const double* a, global const double* b, global double* c) {
  c[get_global_id(0)] = a[get_global_id(0)] + b[get_global_id(0)];
}
#endif
)CLC";

// Each test process gets a private, fresh disk cache so results do not
// depend on earlier runs, and the user's ~/.cache is left alone.
class CacheDirEnv : public ::testing::Environment {
 public:
  void SetUp() override {
    if (std::getenv("CONCORD_TEST_CHILD")) return;  // the parent chose this child's dir
    char tmpl[] = "/tmp/concord-ocl-test-XXXXXX";
    if (char* d = mkdtemp(tmpl)) {
      dir_ = d;
      setenv("CONCORD_CACHE_DIR", d, 1);
      unsetenv("CONCORD_NO_DISK_CACHE");
    }
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }
  std::string dir_;
};
const auto* const kEnv = ::testing::AddGlobalTestEnvironment(new CacheDirEnv);

// Adds two float arrays on device 0 through the `add` kernel of kSource.
std::vector<float> device_add(ocl::Context& c, const std::vector<float>& a,
                              const std::vector<float>& b) {
  const size_t n = a.size(), bytes = n * sizeof(float);
  cl_kernel k = c.kernel(c.program("test_kernels", kSource), "add");
  cl_mem da = c.alloc(bytes), db = c.alloc(bytes), dc = c.alloc(bytes);
  c.write(da, 0, bytes, a.data());
  c.write(db, 0, bytes, b.data());
  c.launch(k, {n, 1, 1}, {0, 0, 0}, 1, da, db, dc, static_cast<cl_int>(n));
  std::vector<float> out(n);
  c.read(dc, 0, bytes, out.data());
  for (cl_mem m : {da, db, dc}) c.release(m, bytes);
  return out;
}

struct SuffixGuard {
  explicit SuffixGuard(std::string s) { ocl::set_source_suffix_for_testing(std::move(s)); }
  ~SuffixGuard() { ocl::set_source_suffix_for_testing(""); }
};

}  // namespace

TEST(OpenCLRuntime, EnumeratesDevices) {
  REQUIRE_DEVICE();
  ocl::Context& c = ocl::context(0);
  EXPECT_EQ(c.index(), 0u);
  EXPECT_EQ(c.device_string(), "opencl:0");
  EXPECT_FALSE(c.info().name.empty() || c.info().platform_name.empty());
  EXPECT_GT(c.info().global_mem * c.info().max_alloc * c.info().max_work_group, 0u);
  EXPECT_EQ(&ocl::context(0), &c);  // one context per device
  EXPECT_EQ(c.info().fp64, c.info().has_extension("cl_khr_fp64"));
  EXPECT_EQ(ocl::device_info(0).name, c.info().name);

  const size_t n = ocl::device_count();
  try {
    ocl::context(n + 4);
    FAIL() << "expected DeviceError";
  } catch (const concord::DeviceError& e) {
    std::string msg = e.what();
    EXPECT_CONTAINS(msg, "[opencl] device opencl:" + std::to_string(n + 4) + " does not exist");
    EXPECT_CONTAINS(msg, std::to_string(n) + " OpenCL device");
  }
  EXPECT_EQ(ocl::error_name(CL_OUT_OF_RESOURCES), "CL_OUT_OF_RESOURCES");
  EXPECT_EQ(ocl::error_name(-1001), "CL_PLATFORM_NOT_FOUND_KHR");
  EXPECT_THROW(ocl::check(CL_MEM_OBJECT_ALLOCATION_FAILURE, "x", &c), concord::OutOfMemoryError);
  EXPECT_THROW(ocl::check(CL_OUT_OF_RESOURCES, "x", &c), concord::DeviceError);
  EXPECT_THROW(ocl::check(CL_OUT_OF_RESOURCES, "x", &c, true), concord::OutOfMemoryError);
}

// Capabilities come from the device; `clinfo --raw` must agree, device by
// device, in enumeration order (both walk platforms, then CL_DEVICE_TYPE_ALL).
TEST(OpenCLRuntime, CapabilitiesAgreeWithClinfo) {
  REQUIRE_DEVICE();
  if (std::system("command -v clinfo >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "clinfo is not installed; cannot cross-check capabilities";
  FILE* f = popen("clinfo --raw 2>/dev/null", "r");
  ASSERT_NE(f, nullptr);
  std::vector<std::map<std::string, std::string>> devs;  // per device: param -> value
  std::map<std::string, size_t> index;                   // "[P/D]" -> position in devs
  char buf[8192];
  while (fgets(buf, sizeof buf, f)) {
    std::istringstream line(buf);
    std::string tag, param, value;
    line >> tag >> param;
    std::getline(line, value);
    if (tag.size() < 3 || tag.front() != '[' || tag.find("/*]") != std::string::npos) continue;
    if (param.rfind("CL_DEVICE_", 0) != 0) continue;
    auto [it, fresh] = index.try_emplace(tag, devs.size());
    if (fresh) devs.emplace_back();
    devs[it->second][param] = value;
  }
  pclose(f);
  if (devs.empty()) GTEST_SKIP() << "clinfo --raw printed no devices";
  ASSERT_EQ(devs.size(), ocl::device_count());
  for (size_t i = 0; i < devs.size(); ++i) {
    const ocl::DeviceInfo& info = ocl::device_info(i);
    auto has = [&](const char* param, const std::string& word) {
      return (" " + devs[i][param] + " ").find(" " + word + " ") != std::string::npos;
    };
    EXPECT_CONTAINS(devs[i]["CL_DEVICE_NAME"], info.name);
    EXPECT_EQ(info.fp64, has("CL_DEVICE_EXTENSIONS", "cl_khr_fp64")) << i << " " << info.name;
    EXPECT_EQ(info.fp16, has("CL_DEVICE_EXTENSIONS", "cl_khr_fp16")) << i << " " << info.name;
    EXPECT_EQ(info.fp32_correctly_rounded_divide_sqrt,
              has("CL_DEVICE_SINGLE_FP_CONFIG", "CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT")) << i;
  }
}

TEST(OpenCLRuntime, WriteReadCopyAndZeroBytes) {
  REQUIRE_DEVICE();
  ocl::Context& c = ocl::context(0);
  std::vector<int32_t> src(1000), back(1000, -1), out(1000, -1);
  std::iota(src.begin(), src.end(), 7);
  const size_t bytes = src.size() * sizeof(int32_t);
  cl_mem a = c.alloc(bytes), b = c.alloc(bytes);
  c.write(a, 0, bytes, src.data());
  c.read(a, 0, bytes, back.data());
  EXPECT_EQ(back, src);
  // Copy elements [100, 600) of a to [0, 500) of b; b's tail keeps its old contents.
  c.write(b, 0, bytes, std::vector<int32_t>(1000, 0).data());
  c.copy(a, 100 * 4, b, 0, 500 * 4);
  c.read(b, 0, bytes, out.data());
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(out[i], i < 500 ? src[i + 100] : 0) << i;
  c.read(a, 998 * 4, 4, &out[0]);  // read at an offset
  EXPECT_EQ(out[0], src[998]);
  c.release(a, bytes);
  c.release(b, bytes);

  cl_mem z = c.alloc(0);  // zero bytes: a real (tiny) buffer
  ASSERT_NE(z, nullptr);
  c.write(z, 0, 0, nullptr);  // zero-size transfers are no-ops, not CL_INVALID_VALUE
  c.read(z, 0, 0, nullptr);
  c.copy(z, 0, z, 0, 0);
  c.release(z, 0);
}

TEST(OpenCLRuntime, PoolReusesBuffers) {
  REQUIRE_DEVICE();
  ocl::Context& c = ocl::context(0);
  c.empty_cache();
  const size_t bytes = 300000;
  cl_mem m = c.alloc(bytes);
  c.release(m, bytes);
  const auto before = c.stats();
  EXPECT_GT(before.bytes_cached, 0u);
  cl_mem again = c.alloc(bytes - 1000);  // same power-of-two bucket
  const auto after = c.stats();
  EXPECT_EQ(again, m);
  EXPECT_EQ(after.pool_hits, before.pool_hits + 1);
  EXPECT_EQ(after.allocations, before.allocations);
  c.release(again, bytes - 1000);
  c.empty_cache();
  EXPECT_EQ(c.stats().bytes_cached, 0u);
}

TEST(OpenCLRuntime, AllocBeyondLimitsThrows) {
  REQUIRE_DEVICE();
  ocl::Context& c = ocl::context(0);
  const size_t n = static_cast<size_t>(c.info().max_alloc) + 1;
  try {
    c.alloc(n);
    FAIL() << "expected OutOfMemoryError";
  } catch (const concord::OutOfMemoryError& e) {
    std::string msg = e.what();
    EXPECT_EQ(msg.rfind("[opencl]", 0), 0u) << msg;
    EXPECT_CONTAINS(msg, std::to_string(n) + " bytes");
    EXPECT_CONTAINS(msg, "opencl:0");
    EXPECT_CONTAINS(msg, "smaller batch");
  }
  // Live buffers are capped at global memory even where the driver
  // overcommits (PoCL does). Only on CPU devices: filling a GPU is rude.
  if (c.info().type != "cpu") return;
  std::vector<cl_mem> held;
  const size_t big = static_cast<size_t>(c.info().max_alloc);
  EXPECT_THROW(
      for (int i = 0; i < 64; ++i) held.push_back(c.alloc(big)), concord::OutOfMemoryError);
  EXPECT_LE(c.stats().bytes_live, c.info().global_mem);
  for (cl_mem m : held) c.release(m, big);
  c.empty_cache();
}

TEST(OpenCLRuntime, BuildOptionsFollowCapabilities) {
  REQUIRE_DEVICE();
  ocl::Context& c = ocl::context(0);
  const std::string o = c.build_options("");
  EXPECT_CONTAINS(o, c.info().fp64 ? "-DCONCORD_HAS_FP64=1" : "-DCONCORD_HAS_FP64=0");
  EXPECT_CONTAINS(o, c.info().fp16 ? "-DCONCORD_HAS_FP16=1" : "-DCONCORD_HAS_FP16=0");
  EXPECT_EQ(o.find("-cl-fp32-correctly-rounded-divide-sqrt") != std::string::npos,
            c.info().fp32_correctly_rounded_divide_sqrt) << o;
  // A profile's own definition replaces the default instead of duplicating it.
  const std::string p = c.build_options("-DCONCORD_HAS_FP64=0");
  EXPECT_EQ(p.find("-DCONCORD_HAS_FP64=1"), std::string::npos) << p;
  EXPECT_CONTAINS(p, "-DCONCORD_HAS_FP64=0");
}

TEST(OpenCLRuntime, KernelRunsAndProgramIsCachedInMemory) {
  REQUIRE_DEVICE();
  ocl::Context& c = ocl::context(0);
  std::vector<float> a(1000), b(1000);
  for (int i = 0; i < 1000; ++i) a[i] = 0.5f * i, b[i] = 1000.0f - i;
  auto out = device_add(c, a, b);  // builds (or finds) the program
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(out[i], a[i] + b[i]) << i;

  const auto before = c.stats();
  cl_program p = c.program("test_kernels", kSource);
  const auto after = c.stats();
  EXPECT_EQ(after.memory_hits, before.memory_hits + 1);
  EXPECT_EQ(after.builds_from_source, before.builds_from_source);
  EXPECT_EQ(after.binaries_loaded, before.binaries_loaded);
  EXPECT_EQ(c.kernel(p, "add"), c.kernel(p, "add"));  // kernel cache
  EXPECT_THROW(c.kernel(p, "no_such_kernel"), concord::DeviceError);

  // __local argument + float scalar: 4 groups of 64 ones, scaled by 0.5.
  cl_kernel k = c.kernel(p, "block_sum");
  std::vector<float> ones(256, 1.0f), sums(4, 0.0f);
  cl_mem x = c.alloc(256 * 4), s = c.alloc(4 * 4);
  c.write(x, 0, 256 * 4, ones.data());
  c.launch(k, {256, 1, 1}, {64, 1, 1}, 1, x, s, ocl::LocalMem{64 * sizeof(float)}, 0.5f);
  c.read(s, 0, 4 * 4, sums.data());
  for (float v : sums) EXPECT_EQ(v, 32.0f);
  try {  // 256 is not a multiple of 3: the error names the kernel and sizes
    c.launch(k, {256, 1, 1}, {3, 1, 1}, 1, x, s, ocl::LocalMem{12}, 0.5f);
    FAIL() << "expected DeviceError";
  } catch (const concord::DeviceError& e) {
    EXPECT_CONTAINS(e.what(), "'block_sum', global 256, local 3");
  }
  c.release(x, 256 * 4), c.release(s, 4 * 4);

  if (c.info().fp64) {  // CONCORD_HAS_FP64=1 compiled the double kernel in
    std::vector<double> da{1e300, 0.1}, db{1e300, 0.2}, dc(2);
    cl_mem ma = c.alloc(16), mb = c.alloc(16), mc = c.alloc(16);
    c.write(ma, 0, 16, da.data()), c.write(mb, 0, 16, db.data());
    c.launch(c.kernel(p, "add_f64"), {2, 1, 1}, {0, 0, 0}, 1, ma, mb, mc);
    c.read(mc, 0, 16, dc.data());
    EXPECT_EQ(dc, (std::vector<double>{2e300, 0.1 + 0.2}));
    for (cl_mem m : {ma, mb, mc}) c.release(m, 16);
  }
}

// Several threads launching the same cl_kernel with different arguments.
TEST(OpenCLRuntime, ConcurrentLaunchesAreSafe) {
  REQUIRE_DEVICE();
  ocl::Context& c = ocl::context(0);
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      std::vector<float> a(513, static_cast<float>(t)), b(513, 1.0f);
      int good = 1;
      for (int rep = 0; rep < 10; ++rep)
        for (float v : device_add(c, a, b)) good &= v == t + 1.0f;
      ok[t] = good;
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(ok[t], 1) << "thread " << t;
}

TEST(OpenCLRuntime, BrokenSourceThrowsWithBuildLog) {
  REQUIRE_DEVICE();
  ocl::Context& c = ocl::context(0);
  SuffixGuard guard(
      "\nkernel void broken(global float* x) { x[0] = concord_undeclared_identifier; }\n");
  try {
    c.program("broken_test", kSource, "-DCONCORD_TEST_EXTRA=1");
    FAIL() << "expected DeviceError";
  } catch (const concord::DeviceError& e) {
    std::string msg = e.what();
    EXPECT_EQ(msg.rfind("[opencl]", 0), 0u) << msg;
    EXPECT_CONTAINS(msg, "broken_test");
    EXPECT_CONTAINS(msg, "opencl:0");
    EXPECT_CONTAINS(msg, c.info().name);
    EXPECT_CONTAINS(msg, "-DCONCORD_TEST_EXTRA=1");
    EXPECT_CONTAINS(msg, "concord_undeclared_identifier");
  }
}

// 8 threads ask for the same never-seen program at once: exactly one build.
TEST(OpenCLRuntime, ConcurrentRequestsBuildOnce) {
  REQUIRE_DEVICE();
  ocl::Context& c = ocl::context(0);
  const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
  const std::string src = "// unique " + std::to_string(getpid()) + "-" + std::to_string(stamp) +
                          "\nkernel void fill(global int* x) { x[get_global_id(0)] = 42; }\n";
  const auto before = c.stats();
  std::latch start(8);
  std::vector<cl_program> got(8, nullptr);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      got[t] = c.program("concurrent", src);
    });
  for (auto& th : threads) th.join();
  const auto after = c.stats();
  for (cl_program p : got) EXPECT_EQ(p, got[0]);
  EXPECT_EQ(after.builds_from_source, before.builds_from_source + 1);
  EXPECT_EQ(after.binaries_loaded, before.binaries_loaded);
  EXPECT_EQ(after.memory_hits, before.memory_hits + 7);
}

// ------------------------------------------------------------ disk cache --

namespace {

struct ChildStats {
  int builds = -1, loaded = -1, written = -1;
  std::string output;
};

// Re-executes this test binary, running only the helper below, with
// CONCORD_CACHE_DIR=dir (or, with `explicit_dir` false, no CONCORD_CACHE_DIR
// and XDG_CACHE_HOME=dir: the default place). A fresh process has an empty
// in-memory cache.
ChildStats run_child(const fs::path& dir, bool explicit_dir = true) {
  const std::string exe = fs::read_symlink("/proc/self/exe").string();
  const std::string where = explicit_dir ? "CONCORD_CACHE_DIR='" + dir.string() + "'"
                                         : "XDG_CACHE_HOME='" + dir.string() + "'";
  const std::string cmd = std::string("env -u CONCORD_NO_DISK_CACHE ") + (explicit_dir ? "" : "-u CONCORD_CACHE_DIR ") +
                          "CONCORD_TEST_CHILD=1 " + where + " '" + exe +
                          "' --gtest_also_run_disabled_tests"
                          " --gtest_filter=OpenCLRuntime.DISABLED_DiskCacheChild 2>&1";
  ChildStats s;
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return s;
  char buf[4096];
  while (fgets(buf, sizeof buf, f)) s.output += buf;
  const int status = pclose(f);
  const size_t at = s.output.find("CHILD_STATS");
  if (status == 0 && at != std::string::npos)
    std::sscanf(s.output.c_str() + at, "CHILD_STATS builds=%d loaded=%d written=%d", &s.builds,
                &s.loaded, &s.written);
  return s;
}

}  // namespace

// Helper run only by DiskCacheSurvivesProcesses in a child process.
TEST(OpenCLRuntime, DISABLED_DiskCacheChild) {
  if (!std::getenv("CONCORD_TEST_CHILD")) GTEST_SKIP() << "helper for DiskCacheSurvivesProcesses";
  REQUIRE_DEVICE();
  ocl::Context& c = ocl::context(0);
  auto out = device_add(c, {1.5f, 2.0f, -3.0f}, {0.25f, 5.0f, 3.0f});  // the binary must run too
  ASSERT_EQ(out, (std::vector<float>{1.75f, 7.0f, 0.0f}));
  const auto s = c.stats();
  std::cout << "CHILD_STATS builds=" << s.builds_from_source << " loaded=" << s.binaries_loaded
            << " written=" << s.binaries_written << std::endl;
}

TEST(OpenCLRuntime, DiskCacheSurvivesProcesses) {
  REQUIRE_DEVICE();
  char tmpl[] = "/tmp/concord-ocl-disk-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const fs::path dir = tmpl;

  // Each child prints its counters: builds from source, binaries loaded, written.
  const auto expect = [](const ChildStats& s, int builds, int loaded, int written) {
    EXPECT_EQ(s.builds, builds) << s.output;
    EXPECT_EQ(s.loaded, loaded) << s.output;
    EXPECT_EQ(s.written, written) << s.output;
  };
  expect(run_child(dir), 1, 0, 1);  // cold: build and write
  expect(run_child(dir), 0, 1, 0);  // warm: the binary is loaded

  // A corrupted file is not fatal: the child rebuilds from source and rewrites it.
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir / "opencl")) files.push_back(e.path());
  ASSERT_EQ(files.size(), 1u);  // no temp files left behind
  const auto size = fs::file_size(files[0]);
  fs::resize_file(files[0], size / 2);
  std::ofstream(files[0], std::ios::binary | std::ios::app) << std::string(64, '\x7f');
  expect(run_child(dir), 1, 0, 1);
  // PoCL's binaries vary in size with its own cache state, so check the
  // rewritten file by loading it rather than by its size.
  expect(run_child(dir), 0, 1, 0);

  std::error_code ec;
  fs::remove_all(dir, ec);
}

// A driver that keeps compiled programs itself (PoCL's kernel cache) gets no
// second cache by default: reading a program's binary would make PoCL compile
// every kernel of it. Elsewhere the default place (XDG_CACHE_HOME/concord) is used.
TEST(OpenCLRuntime, DefaultDiskCacheOnlyWhereTheDriverKeepsNone) {
  REQUIRE_DEVICE();
  char tmpl[] = "/tmp/concord-ocl-xdg-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const fs::path dir = tmpl;
  const bool driver_caches = ocl::device_info(0).driver_caches_binaries;
  const char* pocl_cache = std::getenv("POCL_KERNEL_CACHE");
  EXPECT_EQ(driver_caches, ocl::device_info(0).platform_name == "Portable Computing Language" &&
                               !(pocl_cache && std::string(pocl_cache) == "0"));
  const ChildStats s = run_child(dir, /*explicit_dir=*/false);
  EXPECT_EQ(s.builds, 1) << s.output;
  EXPECT_EQ(s.written, driver_caches ? 0 : 1) << s.output;
  EXPECT_EQ(fs::exists(dir / "concord" / "opencl"), !driver_caches);
  std::error_code ec;
  fs::remove_all(dir, ec);
}
