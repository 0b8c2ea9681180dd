// The Vulkan runtime layer: pipelines and their on-disk cache, injected
// faults, device loss, shutdown with work queued, and a few measurements.
// Skips without a Vulkan device or without the backend built.
#include <gtest/gtest.h>

#if !CONCORD_HAVE_VULKAN

TEST(VulkanRuntime, NotBuilt) { GTEST_SKIP() << "built without the Vulkan backend (CONCORD_VULKAN is OFF)"; }

#else

#include "vulkan_runtime_checks.h"

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
