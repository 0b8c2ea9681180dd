// A tensor past 128 MiB (lavapipe's maxStorageBufferRange: 32M float32
// elements) on every device with its own memory: the transfer both ways, an
// elementwise op, a reduction and a strided view across the 128 MiB mark
// give the CPU's bits — nothing truncated, nothing wrapped. One plain
// configuration per device (profiles change nothing here).
#include <gtest/gtest.h>

#include <cstring>

#include "backend/kernel_checks.h"

namespace concord::test {
namespace {

class KernelsLarge : public DeviceKernels {};

TEST_P(KernelsLarge, OpsOnATensorBeyond128MiB) {
  if (GetParam().profile) GTEST_SKIP() << "one configuration per device: " << GetParam().label << " adds nothing";
  const int64_t n = (int64_t{1} << 25) + 4099;  // 128 MiB + 16 KiB of float32
  const Tensor h = remainder(arange(0, n, 1, int32), 1000).to(float32);
  const Tensor d = h.to(device());
  const Tensor y = add(d, 0.5);
  const Tensor want = add(h, 0.5);
  ASSERT_EQ(y.device(), device());
  const Tensor got = y.to(kCPU);
  EXPECT_EQ(std::memcmp(got.raw_data(), want.raw_data(), want.nbytes()), 0) << "add over " << n << " elements";
  // The last elements, and a window across the 128 MiB mark.
  const int64_t mark = int64_t{1} << 25;
  EXPECT_EQ(y.narrow(0, n - 3, 3).to_vector<float>(), want.narrow(0, n - 3, 3).to_vector<float>());
  EXPECT_EQ(y.narrow(0, mark - 2, 4).to_vector<float>(), want.narrow(0, mark - 2, 4).to_vector<float>());
  // A reduction in the blocked order: the CPU's bits.
  EXPECT_EQ(raw_bits(sum(y)), raw_bits(sum(want)));
  // Every third element, from the end backwards: strides across the whole buffer.
  const Tensor v = flip(y, {0}).slice(0, 0, std::nullopt, 3);
  EXPECT_EQ(raw_bits(sum(v)), raw_bits(sum(flip(want, {0}).slice(0, 0, std::nullopt, 3))));
}

CONCORD_INSTANTIATE_DEVICE_KERNELS(KernelsLarge);

}  // namespace
}  // namespace concord::test
