// xf32.glsl / xf64.glsl's integer conversions and compares run on the Vulkan
// device (shaders/xint_check.comp) against the CPU's own conversions. The
// headers compiled as C++ pass tests/test_xf32.cpp; this checks what the
// device's compiler makes of them: lavapipe once read an int widened to
// int64 at the call site as nonnegative in xd_from_int64 (-5 gave 2^64).
// Skips where no Vulkan device is usable.
#include <gtest/gtest.h>

#if !CONCORD_HAVE_VULKAN

TEST(VulkanXint, NotBuilt) { GTEST_SKIP() << "built without the Vulkan backend (CONCORD_VULKAN is OFF)"; }

#else

#include <bit>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <limits>

#include "vulkan_runtime_checks.h"

namespace {

struct XintPush {
  uint64_t n, v, w, out;
};

// Negative values first (the failing case): the extremes, -1, values just
// past 2^53 / 2^62 / 2^63 that round (ties to even both ways), the int32
// edges (e = int(v) covers int -> int64 widening and float32 ties at 2^24),
// then random magnitudes of both signs.
std::vector<int64_t> inputs() {
  const int64_t p53 = int64_t(1) << 53, p62 = int64_t(1) << 62, lo = std::numeric_limits<int64_t>::min();
  std::vector<int64_t> v = {lo, lo + 1, lo + 511, lo + 512, lo + 513, lo + 1024, lo + 1536,
                            -1, -2, -3, -5, -1000, 0, 1, 5, std::numeric_limits<int64_t>::max(),
                            -p53, -(p53 + 1), -(p53 + 2), -(p53 + 3), -(p53 + 5), p53 + 1, p53 + 3,
                            -(2 * p53 + 2), -(2 * p53 + 6), -(p62 + 512), -(p62 + 513), -(p62 + 1536),
                            -(p62 - 1), INT32_MIN, INT32_MIN + 1, INT32_MAX, -(1 << 24) - 1, -(1 << 24) - 3,
                            (1 << 24) + 1, -(int64_t(1) << 31) - 1, (int64_t(1) << 32) - 5};
  std::mt19937_64 rng(2024);
  for (int k = 0; k < 2000; ++k) {
    const int64_t r = static_cast<int64_t>(rng());
    v.push_back(r >> (rng() % 64));  // every magnitude; about half negative
  }
  return v;
}

// The comparand of each value: itself, its neighbours, zeros of both signs,
// infinities, a NaN and another input.
std::vector<uint64_t> comparands(const std::vector<int64_t>& v) {
  std::vector<uint64_t> w(v.size());
  const double inf = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < v.size(); ++i) {
    const double a = static_cast<double>(v[i]);
    const double c[] = {a, std::nextafter(a, inf), std::nextafter(a, -inf), -0.0, 0.0, -inf, inf,
                        std::numeric_limits<double>::quiet_NaN(), static_cast<double>(v[(i * 7 + 3) % v.size()])};
    w[i] = std::bit_cast<uint64_t>(c[i % 9]);
  }
  return w;
}

TEST_F(VulkanRuntime, IntegerConversionsOfXfHeaders) {
  const std::vector<int64_t> v = inputs();
  const std::vector<uint64_t> w = comparands(v);
  const size_t n = v.size();
  vk::Buffer *bv = ctx->alloc(n * 8), *bw = ctx->alloc(n * 8), *bo = ctx->alloc(n * 32);
  ctx->write(bv, 0, n * 8, v.data());
  ctx->write(bw, 0, n * 8, w.data());
  vk::Pipeline& p = ctx->pipeline("xint_check", spirv("xint_check"), sizeof(XintPush));
  XintPush push{n, bv->addr, bw->addr, bo->addr};
  ctx->dispatch_1d(p, n, &push, sizeof push);
  std::vector<uint64_t> out(4 * n);
  ctx->read(bo, 0, n * 32, out.data());
  for (auto* b : {bv, bw, bo}) ctx->release(b);

  size_t bad[4] = {0, 0, 0, 0};
  for (size_t i = 0; i < n; ++i) {
    const int32_t e = static_cast<int32_t>(v[i]);  // modular, as GLSL's int(int64_t)
    const double a = static_cast<double>(v[i]), b = std::bit_cast<double>(w[i]);
    const uint64_t want[4] = {
        std::bit_cast<uint64_t>(a), std::bit_cast<uint64_t>(static_cast<double>(e)),
        std::bit_cast<uint32_t>(static_cast<float>(e)),
        uint64_t((a < b ? 1 : 0) | (a <= b ? 2 : 0) | (a == b ? 4 : 0) | (e < 0 ? 8 : 0))};
    for (int k = 0; k < 4; ++k) {
      if (out[4 * i + k] == want[k]) continue;
      if (++bad[k] <= 3)
        ADD_FAILURE() << "v = " << v[i] << " (e = " << e << "), column " << k << ": got 0x" << std::hex
                      << out[4 * i + k] << ", want 0x" << want[k];
    }
  }
  EXPECT_EQ(bad[0], 0u) << "xd_from_int64(v)";
  EXPECT_EQ(bad[1], 0u) << "xd_from_int64(int64_t(e)), e an int";
  EXPECT_EQ(bad[2], 0u) << "xf_from_int(e)";
  EXPECT_EQ(bad[3], 0u) << "xd_lt / xd_le / xd_eq / xd_int64_neg";
}

}  // namespace

#endif
