// A 0-dim CPU tensor combines with a tensor on any device in the elementwise
// ops, as a number does (PyTorch's rule), and promotes as a 0-dim tensor:
// its dtype counts only when its category is higher than the dimensioned
// operands'. Expected values are plain C++ arithmetic.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "support/devices.h"

namespace concord {
namespace {

class HostScalarTensors : public test::DeviceTest {};

TEST_P(HostScalarTensors, SameCategoryKeepsTheDeviceTensorsDtype) {
  const Device d = device();
  const std::vector<float> xv{1.5f, -2.0f, 3.25f};
  const Tensor x = from_host(xv.data(), {3}, float32, d);
  const Tensor half = scalar_tensor(0.5, float64, kCPU);  // float64, but 0-dim: float32 wins
  reset_report();
  Tensor y;
  {
    DtypePolicyGuard g(DtypePolicy::strict);  // no float64 reaches the device
    y = mul(x, half);
  }
  EXPECT_EQ(y.device(), d);
  EXPECT_EQ(y.dtype(), float32);
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{0.75f, -1.0f, 1.625f}));
  // Converted on the host, then one float32 moved.
  if (!d.is_cpu()) EXPECT_EQ(report().bytes("cpu", d.str()), 4u);
  // On the left, through an operator, and in a comparison.
  EXPECT_EQ(sub(half, x).to_vector<float>(), (std::vector<float>{-1.0f, 2.5f, -2.75f}));
  EXPECT_EQ((x + half).device(), d);
  const Tensor g = gt(x, half);
  EXPECT_EQ(g.device(), d);
  EXPECT_EQ(g.to_vector<bool>(), (std::vector<bool>{true, false, true}));
  // int32 tensor and a 0-dim int64: int32.
  const std::vector<int32_t> iv{1, 2, 3};
  const Tensor xi = from_host(iv.data(), {3}, int32, d);
  const Tensor r = add(xi, scalar_tensor(int64_t{7}, int64, kCPU));
  EXPECT_EQ(r.dtype(), int32);
  EXPECT_EQ(r.to_vector<int32_t>(), (std::vector<int32_t>{8, 9, 10}));
}

TEST_P(HostScalarTensors, HigherCategoryTakesTheZeroDimDtype) {
  const Device d = device();
  const std::vector<int32_t> iv{1, -2, 3};
  const Tensor xi = from_host(iv.data(), {3}, int32, d);
  // int32 + float64 0-dim: float64 (PyTorch), stored as float32 where the device has no float64.
  const Tensor r = add(xi, scalar_tensor(1.5, float64, kCPU));
  EXPECT_EQ(r.device(), d);
  EXPECT_EQ(r.dtype(), capabilities(d).can_store(float64) ? float64 : float32);
  EXPECT_EQ(r.to_vector<double>(), (std::vector<double>{2.5, -0.5, 4.5}));
  // bool tensor and an int64 0-dim: int64.
  const Tensor b = gt(xi, 0);
  const Tensor s = mul(b, scalar_tensor(int64_t{5}, int64, kCPU));
  EXPECT_EQ(s.dtype(), int64);
  EXPECT_EQ(s.to_vector<int64_t>(), (std::vector<int64_t>{5, 0, 5}));
}

TEST_P(HostScalarTensors, WhereAndZeroDimDeviceTensors) {
  const Device d = device();
  const std::vector<float> xv{1, -2, 3};
  const Tensor x = from_host(xv.data(), {3}, float32, d);
  const Tensor w = where(gt(x, 0), x, scalar_tensor(0.0, float32, kCPU));
  EXPECT_EQ(w.device(), d);
  EXPECT_EQ(w.to_vector<float>(), (std::vector<float>{1, 0, 3}));
  // A 0-dim host condition.
  const Tensor w2 = where(scalar_tensor(true, bool_, kCPU), x, 0.0);
  EXPECT_EQ(w2.to_vector<float>(), xv);
  // Both 0-dim: the device tensor decides; both on the CPU: the CPU.
  const Tensor z = add(scalar_tensor(2.0, float32, d), scalar_tensor(3.0, float32, kCPU));
  EXPECT_EQ(z.device(), d);
  EXPECT_EQ(z.item<float>(), 5.0f);
  EXPECT_EQ(add(scalar_tensor(2.0, float32, kCPU), scalar_tensor(3.0, float32, kCPU)).device(), kCPU);
}

TEST_P(HostScalarTensors, OnlyZeroDimHostTensorsMix) {
  const Device d = device();
  if (d.is_cpu()) GTEST_SKIP() << "one device";
  const Tensor x = ones({3}, float32, d);
  // A one-element CPU tensor with a dim is not a scalar: DeviceError, as in PyTorch.
  EXPECT_THROW(add(x, ones({1}, float32, kCPU)), DeviceError);
  // A 0-dim tensor on another non-CPU device is not either.
  if (d != Device("emu:1")) {
    try {
      const Tensor other = scalar_tensor(1.0, float32, Device("emu:1"));
      EXPECT_THROW(add(x, other), DeviceError);
    } catch (const DeviceError&) {
      // emu:1 does not exist in this build
    }
  }
}

CONCORD_INSTANTIATE_DEVICES(HostScalarTensors);

}  // namespace
}  // namespace concord
