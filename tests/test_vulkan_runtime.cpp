// The Vulkan runtime layer (src/backend/vulkan/runtime.h) on whatever Vulkan
// device the machine has; on a machine without one (or without the backend
// built) every test skips, saying why. With mesa-vulkan-drivers installed,
// lavapipe (a CPU implementation) is a real device and runs them all.
//
// A few tests re-run this binary as a child process (a fresh runtime): with
// CONCORD_VULKAN=0, to load the pipeline cache written by the parent, after a
// simulated device loss and after shutdown. The child-only tests skip unless
// CONCORD_VK_TEST_CHILD names them.
#include <gtest/gtest.h>

#if !CONCORD_HAVE_VULKAN

TEST(VulkanRuntime, NotBuilt) { GTEST_SKIP() << "built without the Vulkan backend (CONCORD_VULKAN is OFF)"; }

#else

#include <dlfcn.h>
#include <link.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "backend/vulkan/runtime.h"
#include "concord/error.h"
#include "concord/fault_injection.h"

extern char** environ;

namespace vk = concord::detail::vk;
namespace fs = std::filesystem;

namespace {

// Pipelines go to a private cache directory, never the user's; removed at the end.
class CacheDirEnv : public ::testing::Environment {
 public:
  CacheDirEnv() {
    if (std::getenv("CONCORD_VK_TEST_CHILD")) return;  // the parent's directory is inherited
    char tmpl[] = "/tmp/concord-vk-test-XXXXXX";
    if (mkdtemp(tmpl)) {
      dir_ = tmpl;
      setenv("CONCORD_CACHE_DIR", tmpl, 1);
    }
  }
  void TearDown() override {
    if (dir_.empty()) return;
    setenv("CONCORD_NO_DISK_CACHE", "1", 1);  // no save at exit into a removed directory
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

 private:
  std::string dir_;
};
[[maybe_unused]] auto* const g_env = ::testing::AddGlobalTestEnvironment(new CacheDirEnv);

bool is_child(const char* name) {
  const char* v = std::getenv("CONCORD_VK_TEST_CHILD");
  return v && std::strcmp(v, name) == 0;
}

// Runs this binary with one test and extra environment; returns the exit status.
int run_child(const std::string& test, std::vector<std::string> env) {
  for (char** e = environ; *e; ++e) env.emplace_back(*e);  // overrides first: getenv takes the first
  std::vector<char*> envp;
  for (auto& s : env) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string self = fs::read_symlink("/proc/self/exe").string();
  std::string filter = "--gtest_filter=" + test;
  char* argv[] = {self.data(), filter.data(), nullptr};
  pid_t pid = 0;
  if (posix_spawn(&pid, self.c_str(), nullptr, nullptr, argv, envp.data()) != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// LeakSanitizer checks after the exit-time destructors, by when
// vkDestroyInstance has made the loader unload the driver: memory the driver
// reaches only from its own globals would then be reported as leaked from an
// "<unknown module>". Keeping every library loaded so far (the driver, its
// LLVM) mapped keeps those globals scanned; real leaks are still reported.
void pin_loaded_libraries() {
  static std::once_flag once;
  std::call_once(once, [] {
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void*) {
          if (info->dlpi_name && *info->dlpi_name) dlopen(info->dlpi_name, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
          return 0;
        },
        nullptr);
  });
}

const std::vector<uint32_t>& spirv(const char* name) { return vk::embedded_spirv().at(name); }

struct AddPush {
  uint64_t n, a, b, c;
};
struct CountPush {
  uint64_t n, lo, counts;
};
struct ScaleArgs {
  uint64_t n, src, dst;
  float scale, bias;
};

class VulkanRuntime : public ::testing::Test {
 protected:
  void SetUp() override {
    if (vk::device_count() == 0)
      GTEST_SKIP() << "no usable Vulkan device (no loader or driver, CONCORD_VULKAN=0, or devices lacking "
                      "required features; install mesa-vulkan-drivers for lavapipe)";
    ctx = &vk::context(0);
    pin_loaded_libraries();
  }
  vk::Context* ctx = nullptr;

  vk::Buffer* upload(const std::vector<float>& v) {
    vk::Buffer* b = ctx->alloc(v.size() * 4);
    ctx->write(b, 0, v.size() * 4, v.data());
    return b;
  }
  std::vector<float> download(const vk::Buffer* b, size_t n) {
    std::vector<float> v(n);
    ctx->read(b, 0, n * 4, v.data());
    return v;
  }
  vk::Pipeline& add() { return ctx->pipeline("smoke_add", spirv("smoke_add"), sizeof(AddPush)); }
};

std::vector<float> random_floats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-100.f, 100.f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

}  // namespace

// --------------------------------------------------------------- devices --

TEST(VulkanRuntimeNoDevice, ResultNamesAndBadIndex) {
  EXPECT_EQ(vk::result_name(VK_ERROR_DEVICE_LOST), "VK_ERROR_DEVICE_LOST");
  EXPECT_EQ(vk::result_name(VK_ERROR_OUT_OF_DEVICE_MEMORY), "VK_ERROR_OUT_OF_DEVICE_MEMORY");
  EXPECT_EQ(vk::result_name(static_cast<VkResult>(-12345)), "VkResult(-12345)");
  try {
    vk::context(vk::device_count() + 7);
    FAIL() << "no error for a missing device";
  } catch (const concord::DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("vulkan:" + std::to_string(vk::device_count() + 7)), std::string::npos);
  }
  for (const auto& d : vk::skipped_devices()) {
    EXPECT_FALSE(d.usable);
    EXPECT_EQ(d.unusable_reason.rfind("needs ", 0), 0u) << d.unusable_reason;
  }
}

TEST(VulkanRuntimeNoDevice, DisabledByEnvironment) {
  if (is_child("disabled")) {
    EXPECT_EQ(vk::device_count(), 0u);
    EXPECT_TRUE(vk::skipped_devices().empty());
    try {
      vk::context(0);
      FAIL() << "no error";
    } catch (const concord::DeviceError& e) {
      EXPECT_NE(std::string(e.what()).find("CONCORD_VULKAN=0"), std::string::npos) << e.what();
    }
    return;
  }
  if (std::getenv("CONCORD_VK_TEST_CHILD")) GTEST_SKIP() << "child run of another test";
  EXPECT_EQ(run_child("VulkanRuntimeNoDevice.DisabledByEnvironment",
                      {"CONCORD_VULKAN=0", "CONCORD_VK_TEST_CHILD=disabled"}), 0);
}

TEST_F(VulkanRuntime, DeviceInfoIsPlausible) {
  const vk::DeviceInfo& i = ctx->info();
  EXPECT_TRUE(i.usable);
  EXPECT_TRUE(i.unusable_reason.empty());
  EXPECT_FALSE(i.name.empty());
  EXPECT_GE(i.api_version_used, VK_API_VERSION_1_2);
  EXPECT_TRUE(i.bda && i.int64 && i.storage8 && i.storage16 && i.timeline_semaphore);
  EXPECT_GE(i.max_workgroup_count[0], 65535u);
  EXPECT_GE(i.max_push_constants, 128u);
  EXPECT_GE(i.max_workgroup_invocations, 128u);
  EXPECT_GT(i.max_memory_allocation, 0u);
  EXPECT_GT(i.device_local_bytes, 0u);
  EXPECT_GT(i.subgroup_size, 0u);
  EXPECT_TRUE(i.subgroup_ops & VK_SUBGROUP_FEATURE_BASIC_BIT);
  EXPECT_NE(i.subgroup_ops_string().find("basic"), std::string::npos);
  EXPECT_NE(i.summary().find(i.name), std::string::npos);
  EXPECT_EQ(ctx->device_string(), "vulkan:0");
  if (i.driver_name == "llvmpipe") {  // lavapipe: what vulkaninfo reports for it
    EXPECT_EQ(i.type, vk::DeviceType::cpu);
    EXPECT_TRUE(i.fp64 && i.fp16 && i.int16 && i.int8);
    EXPECT_EQ(i.max_storage_buffer_range, 128u << 20);
    EXPECT_EQ(i.max_compute_shared_memory, 32768u);
    EXPECT_TRUE(i.unified_memory);
    EXPECT_TRUE(i.float_controls[1].rounding_rte);
    EXPECT_TRUE(i.float_controls[1].signed_zero_inf_nan_preserve);
    EXPECT_FALSE(i.float_controls[1].denorm_preserve);
  }
  std::printf("  vulkan:0 = %s\n  subgroup %u (%s), coop-matrix %d (%u)\n", i.summary().c_str(), i.subgroup_size,
              i.subgroup_ops_string().c_str(), i.cooperative_matrix, i.cooperative_matrix_properties);
}

// ---------------------------------------------------------------- memory --

TEST_F(VulkanRuntime, RoundTripSizesAndOffsets) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{3}, size_t{255}, size_t{4097}, (size_t{1} << 20) + 5}) {
    vk::Buffer* b = ctx->alloc(n);
    ASSERT_NE(b, nullptr);
    EXPECT_GE(b->size, std::max<size_t>(n, 1));
    EXPECT_NE(b->addr, 0u);
    std::vector<uint8_t> in(n), out(n, 0xee);
    for (size_t i = 0; i < n; ++i) in[i] = static_cast<uint8_t>(i * 7 + 1);
    ctx->write(b, 0, n, in.data());
    ctx->read(b, 0, n, out.data());
    EXPECT_EQ(in, out) << n << " bytes";
    if (n > 8) {  // an odd offset and length inside
      const uint8_t patch[5] = {9, 8, 7, 6, 5};
      ctx->write(b, 3, 5, patch);
      std::vector<uint8_t> got(7);
      ctx->read(b, 2, 7, got.data());
      EXPECT_EQ(got, (std::vector<uint8_t>{in[2], 9, 8, 7, 6, 5, in[8]}));
    }
    ctx->write(b, 0, 0, nullptr);  // zero bytes: no-ops
    ctx->read(b, 0, 0, nullptr);
    ctx->release(b);
  }
  vk::Buffer* b = ctx->alloc(16);
  char x[8] = {};
  EXPECT_THROW(ctx->write(b, b->size - 4, 8, x), concord::DeviceError);
  EXPECT_THROW(ctx->read(b, b->size + 1, 1, x), concord::DeviceError);
  ctx->release(b);
  ctx->release(nullptr);
}

TEST_F(VulkanRuntime, StagedTransfersCopyAndFill) {
  ctx->set_staging_for_testing(true);  // the discrete-GPU path, also on unified memory
  const size_t n = (size_t{10} << 20) + 3;
  std::vector<uint8_t> in(n), out(n);
  for (size_t i = 0; i < n; ++i) in[i] = static_cast<uint8_t>(i * 131 + (i >> 13));
  vk::Buffer* a = ctx->alloc(n + 8);
  vk::Buffer* b = ctx->alloc(n + 8);
  ctx->write(a, 5, n, in.data());
  ctx->read(a, 5, n, out.data());
  EXPECT_TRUE(in == out);
  ctx->copy(a, 5, b, 1, n);
  std::fill(out.begin(), out.end(), 0);
  ctx->read(b, 1, n, out.data());
  EXPECT_TRUE(in == out);
  vk::Buffer* f = ctx->alloc(64);
  ctx->fill(f, 0, 64, 0xdeadbeefu);
  uint32_t words[16];
  ctx->read(f, 0, 64, words);
  for (uint32_t w : words) EXPECT_EQ(w, 0xdeadbeefu);
  EXPECT_THROW(ctx->fill(f, 2, 8, 0), concord::DeviceError);
  ctx->release(f);
  EXPECT_THROW(ctx->copy(a, 0, a, 4, 16), concord::DeviceError);  // overlap
  ctx->set_staging_for_testing(false);
  ctx->read(b, 1, n, out.data());  // the mapped path sees what staging wrote
  EXPECT_TRUE(in == out);
  ctx->release(a);
  ctx->release(b);
}

TEST_F(VulkanRuntime, PoolReusesFreedBuffers) {
  ctx->finish();
  ctx->empty_cache();
  const auto s0 = ctx->stats();
  vk::Buffer* a = ctx->alloc(5000);
  ctx->release(a);
  EXPECT_EQ(ctx->stats().bytes_cached, s0.bytes_cached + a->size);
  vk::Buffer* b = ctx->alloc(5100);  // same bucket (5 KiB)
  EXPECT_EQ(a, b);
  EXPECT_EQ(b->requested, 5100u);
  const auto s1 = ctx->stats();
  EXPECT_EQ(s1.pool_hits, s0.pool_hits + 1);
  EXPECT_EQ(s1.allocations, s0.allocations + 1);
  ctx->release(b);
  ctx->release(b);  // a second release is ignored: one pooled copy only
  EXPECT_EQ(ctx->stats().bytes_cached, s0.bytes_cached + b->size);
  ctx->empty_cache();
  EXPECT_EQ(ctx->stats().bytes_cached, 0u);
  EXPECT_LE(ctx->stats().bytes_live, s0.bytes_live);
}

TEST_F(VulkanRuntime, OutOfMemoryIsTyped) {
  const uint64_t too_big = ctx->info().max_memory_allocation + 1;
  try {
    ctx->alloc(too_big);
    FAIL() << "no error";
  } catch (const concord::OutOfMemoryError& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("[vulkan]", 0), 0u) << m;
    EXPECT_NE(m.find(std::to_string(too_big)), std::string::npos) << m;
    EXPECT_NE(m.find("vulkan:0"), std::string::npos) << m;
    EXPECT_NE(m.find("free tensors"), std::string::npos) << m;
  }
}

// -------------------------------------------------------------- dispatch --

TEST_F(VulkanRuntime, SmokeAddMatchesCpu) {
  const size_t n = 1 << 20;
  auto x = random_floats(n, 1), y = random_floats(n, 2);
  vk::Buffer *a = upload(x), *b = upload(y), *c = ctx->alloc(n * 4);
  vk::Pipeline& p = add();
  EXPECT_EQ(p.local_size, (std::array<uint32_t, 3>{256, 1, 1}));
  AddPush push{n, a->addr, b->addr, c->addr};
  ctx->dispatch_1d(p, n, &push, sizeof push);
  const auto z = download(c, n);
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) bad += z[i] != x[i] + y[i];
  EXPECT_EQ(bad, 0u);
  for (auto* buf : {a, b, c}) ctx->release(buf);
}

TEST_F(VulkanRuntime, ArgumentBlocks) {
  const size_t n = 100000;
  auto x = random_floats(n, 3);
  vk::Buffer *src = upload(x), *dst = ctx->alloc(n * 4);
  vk::Pipeline& p = ctx->pipeline("smoke_args", spirv("smoke_args"), 8);
  // One launch per slice of 100 elements, each with its own argument block:
  // 1000 blocks recycled through the ring while the work is in flight.
  const float scale = 1.5f, bias = -0.25f;
  for (size_t at = 0; at < n; at += 100) {
    vk::ArgBlock args = ctx->args(sizeof(ScaleArgs));
    *args.as<ScaleArgs>() = {100, src->addr + at * 4, dst->addr + at * 4, scale, bias};
    const uint64_t push = args.addr;
    ctx->dispatch_1d(p, 100, &push, sizeof push);
  }
  const auto y = download(dst, n);
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    const float prod = x[i] * scale;  // -ffp-contract=off: no fma here either
    bad += y[i] != prod + bias;
  }
  EXPECT_EQ(bad, 0u);
  ctx->release(src);
  ctx->release(dst);
}

TEST_F(VulkanRuntime, GridSplitsIntoRows) {
  const std::array<uint32_t, 3> max{65535, 65535, 65535};
  EXPECT_EQ(vk::Context::grid_1d(0, 256, max), (std::array<uint32_t, 3>{0, 0, 0}));
  EXPECT_EQ(vk::Context::grid_1d(1, 256, max), (std::array<uint32_t, 3>{1, 1, 1}));
  EXPECT_EQ(vk::Context::grid_1d(65535ull * 256, 256, max), (std::array<uint32_t, 3>{65535, 1, 1}));
  for (uint64_t n : {65535ull * 256 + 1, (1ull << 32) + 5, (1ull << 36) + 12345, 65535ull * 65535 * 256}) {
    const auto g = vk::Context::grid_1d(n, 256, max);
    const uint64_t groups = (n + 255) / 256;
    EXPECT_LE(g[0], 65535u);
    EXPECT_GE(uint64_t(g[0]) * g[1] * 256, n);
    EXPECT_LT(uint64_t(g[0]) * g[1] - groups, g[1]);  // fewer than one idle group per row
  }
  EXPECT_THROW(vk::Context::grid_1d(1ull << 40, 1, max), concord::DeviceError);
}

TEST_F(VulkanRuntime, DispatchOverMoreThan65535Groups) {
  // Local size 1 (a spec constant): 200000 groups, so y rows; every id once.
  const uint64_t n = 200000;
  vk::Pipeline& p = ctx->pipeline("smoke_count", spirv("smoke_count"), sizeof(CountPush), {{0, 1}});
  EXPECT_EQ(p.local_size[0], 1u);
  EXPECT_EQ(ctx->pipeline("smoke_count", spirv("smoke_count"), sizeof(CountPush)).local_size[0], 64u);
  vk::Buffer* counts = ctx->alloc(n * 4);
  ctx->fill(counts, 0, n * 4, 0);
  CountPush push{n, 0, counts->addr};
  ctx->dispatch_1d(p, n, &push, sizeof push);
  std::vector<uint32_t> got(n);
  ctx->read(counts, 0, n * 4, got.data());
  EXPECT_EQ(std::count(got.begin(), got.end(), 1u), static_cast<long>(n));
  ctx->release(counts);
}

TEST_F(VulkanRuntime, LinearIdsBeyond32Bits) {
  // 2^32 + 256 invocations: ids past 2^32 must reach the shader intact. Costs
  // a few seconds on lavapipe (4 billion invocations), so opt-in there.
  if (ctx->info().type == vk::DeviceType::cpu && !std::getenv("CONCORD_VK_SLOW_TESTS"))
    GTEST_SKIP() << "4e9 invocations on a CPU device; set CONCORD_VK_SLOW_TESTS=1 to run";
  const uint64_t n = (1ull << 32) + 256, lo = (1ull << 32) - 256;
  vk::Pipeline& p = ctx->pipeline("smoke_count", spirv("smoke_count"), sizeof(CountPush), {{0, 256}});
  vk::Buffer* counts = ctx->alloc(512 * 4);
  ctx->fill(counts, 0, 512 * 4, 0);
  CountPush push{n, lo, counts->addr};
  ctx->dispatch_1d(p, n, &push, sizeof push);
  std::vector<uint32_t> got(512);
  ctx->read(counts, 0, 512 * 4, got.data());
  EXPECT_EQ(std::count(got.begin(), got.end(), 1u), 512);
  ctx->release(counts);
}

TEST_F(VulkanRuntime, BuffersLargerThanMaxStorageBufferRange) {
  // 160 MiB per buffer: more than lavapipe's 128 MiB maxStorageBufferRange,
  // which limits descriptors, not device addresses. The words are the
  // float32 bits of i % 1000003, so the buffer is also an operand below.
  const size_t n = 40u << 20;  // 40M elements
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>(i % 1000003);
  vk::Buffer* a = upload(x);
  std::vector<float> back = download(a, n);
  EXPECT_TRUE(std::memcmp(x.data(), back.data(), n * 4) == 0);
  back = {};

  vk::Buffer *b = ctx->alloc(n * 4), *c = ctx->alloc(n * 4);
  ctx->fill(b, 0, n * 4, 0x3f000000u);  // 0.5f
  ctx->fill(c, 0, n * 4, 0);
  AddPush push{n, a->addr, b->addr, c->addr};
  ctx->dispatch_1d(add(), n, &push, sizeof push);
  // The last elements, and a window across the 128 MiB mark.
  for (size_t first : {n - 4096, (size_t{128} << 20) / 4 - 2048}) {
    std::vector<float> got(4096);
    ctx->read(c, first * 4, got.size() * 4, got.data());
    for (size_t k = 0; k < got.size(); ++k) ASSERT_EQ(got[k], x[first + k] + 0.5f) << "element " << first + k;
  }
  for (auto* buf : {a, b, c}) ctx->release(buf);
  ctx->empty_cache();
}

TEST_F(VulkanRuntime, ManyQueuedDispatchesThenOneRead) {
  const size_t n = 4096;
  const int steps = 600;
  vk::Buffer* one = upload(std::vector<float>(n, 1.f));
  vk::Buffer* acc[2] = {upload(std::vector<float>(n, 0.f)), ctx->alloc(n * 4)};
  const auto s0 = ctx->stats();
  for (int k = 0; k < steps; ++k) {  // acc[k+1] = acc[k] + 1, ping-pong
    AddPush push{n, acc[k % 2]->addr, one->addr, acc[(k + 1) % 2]->addr};
    ctx->dispatch_1d(add(), n, &push, sizeof push);
  }
  const auto z = download(acc[steps % 2], n);
  EXPECT_EQ(std::count(z.begin(), z.end(), float(steps)), static_cast<long>(n));
  const auto s1 = ctx->stats();
  EXPECT_EQ(s1.dispatches - s0.dispatches, uint64_t(steps));
  EXPECT_GE(s1.submissions - s0.submissions, uint64_t(steps / 32));  // submitted along the way
  EXPECT_LE(s1.waits - s0.waits, 3u);
  for (auto* buf : {one, acc[0], acc[1]}) ctx->release(buf);
}

TEST_F(VulkanRuntime, ReleaseWhileInFlightIsSafe) {
  const size_t n = 1 << 20;
  auto x = random_floats(n, 4);
  vk::Buffer *out = ctx->alloc(n * 4), *zero = upload(std::vector<float>(n, 0.f));
  for (int round = 0; round < 3; ++round) {
    vk::Buffer* in = upload(x);
    AddPush push{n, in->addr, zero->addr, out->addr};
    ctx->dispatch_1d(add(), n, &push, sizeof push);
    ctx->release(in);      // the dispatch may not have run yet
    ctx->empty_cache();    // its memory is freed only after it has
    vk::Buffer* other = ctx->alloc(n * 4);  // possibly a reuse; overwriting must not race
    ctx->fill(other, 0, n * 4, 0x7f7f7f7fu);
    ctx->release(other);
  }
  EXPECT_TRUE(download(out, n) == x);
  ctx->release(out);
  ctx->release(zero);
}

TEST_F(VulkanRuntime, FourThreadsAtOnce) {
  vk::Pipeline& p = add();
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      try {
        for (int it = 0; it < 25; ++it) {
          const size_t n = 1000 + 977 * t + 31 * it;
          auto x = random_floats(n, 100 * t + it), y = random_floats(n, 7 + t);
          vk::Buffer *a = upload(x), *b = upload(y), *c = ctx->alloc(n * 4);
          AddPush push{n, a->addr, b->addr, c->addr};
          ctx->dispatch_1d(p, n, &push, sizeof push);
          ctx->release(a);
          const auto z = download(c, n);
          for (size_t i = 0; i < n; ++i)
            if (z[i] != x[i] + y[i]) {
              ++failures;
              break;
            }
          ctx->release(b);
          ctx->release(c);
        }
      } catch (const std::exception& e) {
        ADD_FAILURE() << e.what();
        ++failures;
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

// ------------------------------------------------------------- pipelines --

TEST_F(VulkanRuntime, PipelinesAreCachedByNameAndSpecialization) {
  const auto s0 = ctx->stats();
  vk::Pipeline& a = ctx->pipeline("smoke_add_u32", spirv("smoke_add_u32"), sizeof(AddPush));
  vk::Pipeline& b = ctx->pipeline("smoke_add_u32", spirv("smoke_add_u32"), sizeof(AddPush));
  vk::Pipeline& c = ctx->pipeline("smoke_add_u32", spirv("smoke_add_u32"), sizeof(AddPush), {{0, 32}});
  EXPECT_EQ(&a, &b);
  EXPECT_NE(&a, &c);
  EXPECT_EQ(c.local_size[0], 32u);
  EXPECT_GE(ctx->stats().pipeline_memory_hits, s0.pipeline_memory_hits + 1);
  EXPECT_THROW(ctx->pipeline("smoke_add_u32", spirv("smoke_add_u32"), 16), concord::DeviceError);
  EXPECT_THROW(ctx->pipeline("bad_push", spirv("smoke_add_u32"), 132), concord::DeviceError);
  EXPECT_THROW(ctx->pipeline("not_spirv", std::vector<uint32_t>(8, 0), 32), concord::DeviceError);
  AddPush push{};
  EXPECT_THROW(ctx->dispatch(a, 1, 1, 1, &push, 16), concord::DeviceError);  // wrong push size
  const auto& i = ctx->info();
  if (i.subgroup_size_control && (i.required_subgroup_size_stages & VK_SHADER_STAGE_COMPUTE_BIT)) {
    vk::Pipeline& sg = ctx->pipeline("smoke_add_u32", spirv("smoke_add_u32"), sizeof(AddPush), {},
                                     i.min_subgroup_size);
    EXPECT_EQ(sg.required_subgroup_size, i.min_subgroup_size);
  }
  EXPECT_THROW(ctx->pipeline("smoke_add_u32", spirv("smoke_add_u32"), sizeof(AddPush), {}, 3),
               concord::DeviceError);
}

TEST_F(VulkanRuntime, PipelineCachePersistsAcrossProcesses) {
  if (is_child("cache")) {
    EXPECT_GT(ctx->stats().pipeline_cache_bytes_loaded, 0u);
    add();
    return;
  }
  if (std::getenv("CONCORD_VK_TEST_CHILD")) GTEST_SKIP() << "child run of another test";
  add();
  ASSERT_FALSE(ctx->pipeline_cache_path().empty());
  ASSERT_TRUE(ctx->save_pipeline_cache());
  EXPECT_TRUE(fs::exists(ctx->pipeline_cache_path()));
  EXPECT_GT(ctx->stats().pipeline_cache_bytes_saved, 0u);
  EXPECT_EQ(run_child("VulkanRuntime.PipelineCachePersistsAcrossProcesses", {"CONCORD_VK_TEST_CHILD=cache"}), 0);
  // A corrupt file is ignored, never handed to the driver.
  {
    std::FILE* f = std::fopen(ctx->pipeline_cache_path().c_str(), "r+b");
    ASSERT_NE(f, nullptr);
    std::fseek(f, 40, SEEK_SET);
    std::fputc('X', f);
    std::fclose(f);
  }
  EXPECT_EQ(run_child("VulkanRuntime.PipelineCacheIgnoresCorruptFile", {"CONCORD_VK_TEST_CHILD=corrupt"}), 0);
}

TEST_F(VulkanRuntime, PipelineCacheIgnoresCorruptFile) {
  if (!is_child("corrupt")) GTEST_SKIP() << "run by PipelineCachePersistsAcrossProcesses";
  EXPECT_EQ(ctx->stats().pipeline_cache_bytes_loaded, 0u);
  add();  // builds fine without the cache
}

// ---------------------------------------------------------------- faults --

TEST_F(VulkanRuntime, InjectedFaultsGiveTypedErrors) {
  concord::testing::FaultInjection guard;
  concord::testing::fail_allocation_after(1);
  try {
    ctx->alloc(1234);
    FAIL() << "no allocation error";
  } catch (const concord::OutOfMemoryError& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("[vulkan] out of memory allocating 1234 bytes on vulkan:0", 0), 0u) << m;
  }
  concord::testing::fail_next_kernel_build();
  try {
    ctx->pipeline("fault_probe", spirv("smoke_add"), sizeof(AddPush));
    FAIL() << "no build error";
  } catch (const concord::DeviceError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("building pipeline 'fault_probe' failed on vulkan:0"), std::string::npos) << m;
  }
  EXPECT_NO_THROW(ctx->pipeline("fault_probe", spirv("smoke_add"), sizeof(AddPush)));  // retried
  vk::Buffer* b = ctx->alloc(64);
  char data[64] = {};
  concord::testing::fail_next_transfer();
  try {
    ctx->write(b, 8, 32, data);
    FAIL() << "no transfer error";
  } catch (const concord::DeviceError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("[vulkan] write of 32 bytes at offset 8 (host -> vulkan:0) failed", 0),
              0u) << e.what();
  }
  concord::testing::fail_next_transfer();
  try {
    ctx->read(b, 0, 16, data);
    FAIL() << "no transfer error";
  } catch (const concord::DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("(vulkan:0 -> host)"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(ctx->read(b, 0, 16, data));
  ctx->release(b);
}

// Each runs in a child process (a fresh runtime) that must exit with status 0:
// no crash or hang at exit whatever state the runtime is left in.
TEST_F(VulkanRuntime, DeviceLostIsReported) {
  if (is_child("lost")) {
    vk::Buffer* b = ctx->alloc(1024);
    ctx->simulate_device_lost_for_testing();
    AddPush push{};
    try {
      ctx->dispatch(add(), 1, 1, 1, &push, sizeof push);
      FAIL() << "no error";
    } catch (const concord::DeviceError& e) {
      EXPECT_NE(std::string(e.what()).find("vulkan:0"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("was lost"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("restart the process"), std::string::npos) << e.what();
    }
    char x[4];
    EXPECT_THROW(ctx->read(b, 0, 4, x), concord::DeviceError);
    EXPECT_THROW(ctx->alloc(16), concord::DeviceError);
    ctx->release(b);  // harmless
    return;
  }
  if (std::getenv("CONCORD_VK_TEST_CHILD")) GTEST_SKIP() << "child run of another test";
  EXPECT_EQ(run_child("VulkanRuntime.DeviceLostIsReported", {"CONCORD_VK_TEST_CHILD=lost"}), 0);
}

TEST_F(VulkanRuntime, UseAfterShutdownIsHarmless) {
  if (is_child("shutdown")) {
    vk::Buffer* b = ctx->alloc(1024);
    AddPush push{1, b->addr, b->addr, b->addr};
    ctx->dispatch_1d(add(), 1, &push, sizeof push);  // still queued
    ctx->shutdown();  // as at process exit, with a buffer still held
    ctx->release(b);  // a no-op now
    EXPECT_THROW(ctx->alloc(16), concord::DeviceError);
    EXPECT_THROW(ctx->finish(), concord::DeviceError);
    return;
  }
  if (std::getenv("CONCORD_VK_TEST_CHILD")) GTEST_SKIP() << "child run of another test";
  EXPECT_EQ(run_child("VulkanRuntime.UseAfterShutdownIsHarmless", {"CONCORD_VK_TEST_CHILD=shutdown"}), 0);
}

TEST_F(VulkanRuntime, ExitWithWorkQueued) {
  if (is_child("queued")) {
    // Fresh pipelines, work queued by this thread and by one that has ended,
    // buffers never released: exit() must wait and tear down cleanly.
    const size_t n = 1 << 20;
    vk::Buffer *a = ctx->alloc(n * 4), *c = ctx->alloc(n * 4);
    ctx->fill(a, 0, n * 4, 0x3f800000u);
    std::thread([&] {
      AddPush push{n, a->addr, a->addr, c->addr};
      for (int i = 0; i < 20; ++i) ctx->dispatch_1d(add(), n, &push, sizeof push);
    }).join();
    AddPush push{n, c->addr, a->addr, c->addr};
    for (int i = 0; i < 100; ++i) ctx->dispatch_1d(add(), n, &push, sizeof push);
    ctx->flush();
    return;
  }
  if (std::getenv("CONCORD_VK_TEST_CHILD")) GTEST_SKIP() << "child run of another test";
  EXPECT_EQ(run_child("VulkanRuntime.ExitWithWorkQueued", {"CONCORD_VK_TEST_CHILD=queued", "CONCORD_NO_DISK_CACHE=1"}),
            0);
}

// ---------------------------------------------------------- measurements --

TEST_F(VulkanRuntime, Measurements) {
  // Best of 3 of each: small-dispatch throughput and latency, 64 MiB transfers.
  using clock = std::chrono::steady_clock;
  auto best = [](auto&& f) {
    double t = 1e30;
    for (int rep = 0; rep < 3; ++rep) {
      const auto t0 = clock::now();
      f();
      t = std::min(t, std::chrono::duration<double>(clock::now() - t0).count());
    }
    return t;
  };
  vk::Pipeline& p = add();
  vk::Buffer *a = upload(std::vector<float>(256, 1.f)), *c = ctx->alloc(1024);
  AddPush push{256, a->addr, a->addr, c->addr};
  ctx->finish();
  const int k = 1000, m = 100;
  const double queued = best([&] {
    for (int i = 0; i < k; ++i) ctx->dispatch(p, 1, 1, 1, &push, sizeof push);
    ctx->finish();
  }) / k;
  const double roundtrip = best([&] {
    for (int i = 0; i < m; ++i) {
      ctx->dispatch(p, 1, 1, 1, &push, sizeof push);
      ctx->finish();
    }
  }) / m;
  const size_t bytes = size_t{64} << 20;
  std::vector<char> host(bytes, 1);
  vk::Buffer* big = ctx->alloc(bytes);
  double gbs[4];
  for (int staged = 0; staged < 2; ++staged) {
    ctx->set_staging_for_testing(staged);
    gbs[2 * staged] = bytes / best([&] {
                        ctx->write(big, 0, bytes, host.data());
                        ctx->finish();
                      }) / 1e9;
    gbs[2 * staged + 1] = bytes / best([&] { ctx->read(big, 0, bytes, host.data()); }) / 1e9;
  }
  ctx->set_staging_for_testing(false);
  std::printf("  small dispatch: %.1f us each when queued, %.1f us dispatch + finish\n", queued * 1e6,
              roundtrip * 1e6);
  std::printf("  64 MiB: write %.1f GB/s, read %.1f GB/s (mapped); write %.1f GB/s, read %.1f GB/s (staged)\n",
              gbs[0], gbs[1], gbs[2], gbs[3]);
  for (auto* buf : {a, c, big}) ctx->release(buf);
}

#endif  // CONCORD_HAVE_VULKAN
