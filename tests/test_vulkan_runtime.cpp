// The Vulkan runtime layer (src/backend/vulkan/runtime.h) on whatever Vulkan
// device the machine has: devices, memory, transfers and dispatch. On a
// machine without one (or without the backend built) every test skips,
// saying why. With mesa-vulkan-drivers installed, lavapipe (a CPU
// implementation) is a real device and runs them all.
#include <gtest/gtest.h>

#if !CONCORD_HAVE_VULKAN

TEST(VulkanRuntime, NotBuilt) { GTEST_SKIP() << "built without the Vulkan backend (CONCORD_VULKAN is OFF)"; }

#else

#include "vulkan_runtime_checks.h"

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
  // NVIDIA's limits (2^31 - 1 groups in x): a row must still stay within
  // 2^32 invocations, or gl_GlobalInvocationID.x wraps (seen on an H200).
  const std::array<uint32_t, 3> wide{2147483647u, 65535, 65535};
  for (uint32_t local : {1u, 64u, 256u, 1024u}) {
    for (uint64_t n : {(1ull << 32) - 1, (1ull << 32) + 256, (1ull << 34) + 7}) {
      const auto g = vk::Context::grid_1d(n, local, wide);
      EXPECT_LE(uint64_t(g[0]) * local, 1ull << 32) << n << " in groups of " << local;
      EXPECT_GE(uint64_t(g[0]) * g[1] * local, n);
    }
  }
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

#endif  // CONCORD_HAVE_VULKAN
