// Tensors: views share storage, copies convert dtypes and move between devices.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "concord/concord.h"
#include "support/devices.h"

using namespace concord;

namespace {
std::vector<int64_t> iota_vec(int64_t n) {
  std::vector<int64_t> v(n);
  std::iota(v.begin(), v.end(), 0);
  return v;
}
}  // namespace

class TensorTest : public test::DeviceTest {};

TEST_P(TensorTest, ArangeReshapeTransposeContiguous) {
  auto x = arange(12, int64, device()).reshape({3, 4});
  EXPECT_EQ(x.shape(), (Shape{3, 4}));
  EXPECT_TRUE(x.is_contiguous());
  auto t = x.transpose(0, 1);
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_EQ(t.shape(), (Shape{4, 3}));
  auto c = t.contiguous();
  EXPECT_TRUE(c.is_contiguous());
  std::vector<int64_t> expect;
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 3; ++i) expect.push_back(i * 4 + j);
  EXPECT_EQ(c.to_vector<int64_t>(), expect);
  EXPECT_EQ(t.to_vector<int64_t>(), expect);  // to_vector handles strided views
}

TEST_P(TensorTest, ViewsShareStorage) {
  auto x = zeros({4, 5}, float32, device());
  auto row = x.select(0, 2);
  row.copy_(full({5}, 7.0, float32, device()));
  auto v = x.to_vector<float>();
  for (int i = 0; i < 20; ++i) EXPECT_EQ(v[i], (i / 5 == 2) ? 7.0f : 0.0f) << i;
  auto col = x.slice(1, 1, 5, 2);  // columns 1 and 3
  EXPECT_EQ(col.shape(), (Shape{4, 2}));
  col.copy_(ones({1, 2}, float32, device()));  // broadcast source
  v = x.to_vector<float>();
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 5; ++c) {
      float e = (c == 1 || c == 3) ? 1.0f : (r == 2 ? 7.0f : 0.0f);
      EXPECT_EQ(v[r * 5 + c], e) << r << "," << c;
    }
}

TEST_P(TensorTest, SliceNarrowExpandSqueezeFlatten) {
  auto x = arange(24, int64, device()).reshape({2, 3, 4});
  auto s = x.slice(2, -3, std::nullopt);  // last three
  EXPECT_EQ(s.shape(), (Shape{2, 3, 3}));
  EXPECT_EQ(s.select(0, 1).select(0, 2).to_vector<int64_t>(), (std::vector<int64_t>{21, 22, 23}));
  EXPECT_EQ(x.narrow(1, 1, 2).shape(), (Shape{2, 2, 4}));
  auto u = x.unsqueeze(0).unsqueeze(-1);
  EXPECT_EQ(u.shape(), (Shape{1, 2, 3, 4, 1}));
  EXPECT_EQ(u.squeeze().shape(), (Shape{2, 3, 4}));
  EXPECT_EQ(u.squeeze(0).shape(), (Shape{2, 3, 4, 1}));
  EXPECT_EQ(x.flatten(1).shape(), (Shape{2, 12}));
  EXPECT_EQ(x.flatten().to_vector<int64_t>(), iota_vec(24));
  auto e = arange(3, int64, device()).reshape({3, 1}).expand({2, 3, 4});
  EXPECT_EQ(e.shape(), (Shape{2, 3, 4}));
  EXPECT_EQ(e.strides()[0], 0);
  auto ev = e.to_vector<int64_t>();
  for (int i = 0; i < 24; ++i) EXPECT_EQ(ev[i], (i / 4) % 3);
  auto p = x.permute({2, 0, 1});
  EXPECT_EQ(p.shape(), (Shape{4, 2, 3}));
  EXPECT_EQ(p.select(0, 3).select(0, 1).to_vector<int64_t>(), (std::vector<int64_t>{15, 19, 23}));
  // reshape of a non-contiguous view copies; view refuses.
  EXPECT_THROW(x.transpose(0, 2).view({24}), ShapeError);
  EXPECT_EQ(x.transpose(0, 2).reshape({-1}).numel(), 24);
}

TEST_P(TensorTest, DtypeConversions) {
  std::vector<double> v = {-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 1e10, -1e10, NAN, 300.0};
  auto h = from_vector(v, {10});
  auto d = h.to(device());  // float64 may be downcast on the device (emu default profile)
  auto i32 = d.to(int32).to_vector<int32_t>();
  // Truncation toward zero, saturation, NaN -> 0: the same on every device.
  std::vector<int32_t> e = {-2, -1, 0, 0, 1, 2, 2147483647, -2147483647 - 1, 0, 300};
  EXPECT_EQ(i32, e);
  auto u8 = d.to(uint8).to_vector<uint8_t>();
  EXPECT_EQ(u8[0], 0);
  EXPECT_EQ(u8[9], 255);
  auto b = d.to(bool_).to_vector<bool>();
  EXPECT_TRUE(b[8]);  // NaN is true
  auto f16 = d.to(float16).to_vector<float>();
  EXPECT_EQ(f16[6], INFINITY);
  EXPECT_EQ(f16[0], -2.5f);
  // Integer narrowing wraps around.
  auto w = from_vector(std::vector<int32_t>{257, -1, 128}, {3}).to(device()).to(int8).to_vector<int32_t>();
  EXPECT_EQ(w, (std::vector<int32_t>{1, -1, -128}));
}

TEST_P(TensorTest, Float64ToHalfRoundsOnce) {
  if (!test::can_store(GetParam(), float64)) GTEST_SKIP() << "float64 is not stored on " << GetParam().label;
  // 1 + 2^-11 + 2^-40 is just above the float16 midpoint between 1 and 1 + 2^-10:
  // rounding via float32 first would land exactly on the midpoint and round to even (1.0).
  const double v = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  auto x = from_vector(std::vector<double>{v}, {1}, device());
  EXPECT_EQ(x.to(float16).item<float>(), 1.0f + std::ldexp(1.0f, -10));
}

TEST_P(TensorTest, ItemAndErrors) {
  auto x = full({}, 3.5, float32, device());
  EXPECT_EQ(x.item<double>(), 3.5);
  EXPECT_THROW(zeros({2}, float32, device()).item<float>(), ShapeError);
  EXPECT_THROW(zeros({2, 3}, float32, device()).reshape({4, 2}), ShapeError);
  EXPECT_THROW(zeros({2, 3}, float32, device()).transpose(0, 2), ShapeError);
  EXPECT_THROW(zeros({2, 3}, float32, device()).expand({3, 3}), ShapeError);
  EXPECT_THROW(zeros({-1}, float32, device()), ShapeError);
  EXPECT_THROW(zeros({int64_t{1} << 40, int64_t{1} << 40}, float32, device()), ShapeError);
  try {
    zeros({2, 3}, float32, device()).reshape({4, 2});
    FAIL();
  } catch (const ShapeError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("[reshape]", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("[4, 2]"), std::string::npos);
  }
}

TEST_P(TensorTest, CreationOps) {
  EXPECT_EQ(arange(0, 10, 3, {}, device()).to_vector<int64_t>(), (std::vector<int64_t>{0, 3, 6, 9}));
  EXPECT_EQ(arange(5, 0, -2, {}, device()).to_vector<int64_t>(), (std::vector<int64_t>{5, 3, 1}));
  EXPECT_EQ(arange(0.0, 1.0, 0.25, {}, device()).dtype(), float32);
  EXPECT_THROW(arange(0, 10, 0, {}, device()), ValueError);
  auto l = linspace(0, 1, 5, float32, device()).to_vector<float>();
  EXPECT_EQ(l, (std::vector<float>{0, 0.25f, 0.5f, 0.75f, 1}));
  auto e = eye(3, 4, int32, device()).to_vector<int32_t>();
  for (int i = 0; i < 12; ++i) EXPECT_EQ(e[i], (i / 4 == i % 4) ? 1 : 0);
  EXPECT_EQ(zeros({0, 3}, float32, device()).numel(), 0);
  EXPECT_EQ(full({2}, true, bool_, device()).to_vector<bool>(), (std::vector<bool>{true, true}));
}

TEST_P(TensorTest, RoundTripEveryDtype) {
  for (Dtype t : kAllDtypes) {
    if (!test::can_store(GetParam(), t)) continue;
    auto h = arange(0, 50, 1).to(t);
    auto back = h.to(device()).to(kCPU);
    EXPECT_EQ(back.dtype(), t);
    EXPECT_EQ(back.to_vector<double>(), h.to_vector<double>()) << name(t);
  }
}

// synchronize() waits for queued work: results read afterwards are complete,
// and a queue of many ops drains without error.
TEST_P(TensorTest, SynchronizeDrainsTheQueue) {
  Tensor x = zeros({1 << 16}, float32, device());
  for (int i = 0; i < 50; ++i) x = add(x, 1.0);
  synchronize(device());
  EXPECT_EQ(x.to_vector<float>().back(), 50.0f);
  EXPECT_EQ(x.to_vector<float>().front(), 50.0f);
  EXPECT_THROW(synchronize(Device("opencl:99")), DeviceError);
}

CONCORD_INSTANTIATE_DEVICES(TensorTest);

TEST(TensorPrint, Readable) {
  auto x = arange(6, float32).reshape({2, 3});
  EXPECT_EQ(x.str(), "tensor([[0., 1., 2.],\n        [3., 4., 5.]], dtype=float32, shape=[2, 3])");
  EXPECT_EQ(arange(3).str(), "tensor([0, 1, 2], dtype=int64)");
}

// Integer arange is exact int64 arithmetic on every device (no float64
// needed, exact beyond 2^53 where a double would round), converted by the
// int -> int rule; fractional arguments give the truncated float64 values.
TEST_P(TensorTest, IntegerArangeIsExact) {
  reset_report();
  const int64_t big = (int64_t{1} << 60) + 1;
  const auto v = arange(big, big + 7, 3, int64, device()).to_vector<int64_t>();
  EXPECT_EQ(v, (std::vector<int64_t>{big, big + 3, big + 6}));
  EXPECT_EQ(report().count("arange", device().str(), int64, Path::fallback), 0u);
  const auto w = arange(120, 136, 5, int8, device()).to_vector<int8_t>();  // 130 and 135 wrap
  EXPECT_EQ(w, (std::vector<int8_t>{120, 125, -126, -121}));
  const auto f = arange(0, 3, 0.5, int32, device()).to_vector<int32_t>();
  EXPECT_EQ(f, (std::vector<int32_t>{0, 0, 1, 1, 2, 2}));
}
