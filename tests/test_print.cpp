// Printing: element strings and layout against PyTorch 1.13's repr (the
// expected bodies below were printed by torch 1.13 for the same values),
// concord's distinct-values rule, exact int64, print options, << dtype/shape.
#include <cmath>
#include <sstream>

#include "support/devices.h"

namespace {

using namespace concord;

// The part of str() that PyTorch also prints: "tensor(" up to concord's
// ", dtype=" suffix.
std::string body(const Tensor& t) {
  const std::string s = t.str();
  return s.substr(0, s.find(", dtype=")) + ")";
}

Tensor f32(std::vector<float> v, Shape s = {}) {
  if (s.empty() && v.size() != 1) s = {static_cast<int64_t>(v.size())};
  return from_vector(v, s);
}

TEST(Print, MatchesPyTorchLayout) {
  EXPECT_EQ(body(f32({1.5f, -2.25f, 3.f})), "tensor([ 1.5000, -2.2500,  3.0000])");
  EXPECT_EQ(body(f32({0, 1, 2, 3, 4, 5}, {2, 3})), "tensor([[0., 1., 2.],\n        [3., 4., 5.]])");
  EXPECT_EQ(body(f32({1e-5f, 1.f, 250.f})), "tensor([1.0000e-05, 1.0000e+00, 2.5000e+02])");
  EXPECT_EQ(body(f32({1.f, 1e9f})), "tensor([1.0000e+00, 1.0000e+09])");
  EXPECT_EQ(body(f32({NAN, INFINITY, -INFINITY, 1.5f})), "tensor([   nan,    inf,   -inf, 1.5000])");
  EXPECT_EQ(body(f32({-NAN, 2.5f})), "tensor([   nan, 2.5000])");   // never "-nan"
  EXPECT_EQ(body(zeros({3})), "tensor([0., 0., 0.])");
  EXPECT_EQ(body(f32({-1.00015f, -1.f})), "tensor([-1.0001, -1.0000])");
  EXPECT_EQ(body(from_vector(std::vector<bool>{true, false, true}, {3})), "tensor([ True, False,  True])");
  EXPECT_EQ(body(arange(12).reshape({2, 2, 3})),
            "tensor([[[ 0,  1,  2],\n         [ 3,  4,  5]],\n\n        [[ 6,  7,  8],\n         [ 9, 10, 11]]])");
  EXPECT_EQ(body(scalar_tensor(0.5)), "tensor(0.5000)");
  EXPECT_EQ(body(from_vector(std::vector<float>{0.1f, 65504.f}, {2}).to(float16)), "tensor([9.9976e-02, 6.5504e+04])");
  EXPECT_EQ(body(mul(arange(30, float32), 1.5)),
            "tensor([ 0.0000,  1.5000,  3.0000,  4.5000,  6.0000,  7.5000,  9.0000, 10.5000,\n"
            "        12.0000, 13.5000, 15.0000, 16.5000, 18.0000, 19.5000, 21.0000, 22.5000,\n"
            "        24.0000, 25.5000, 27.0000, 28.5000, 30.0000, 31.5000, 33.0000, 34.5000,\n"
            "        36.0000, 37.5000, 39.0000, 40.5000, 42.0000, 43.5000])");
}

TEST(Print, SummarisesLikePyTorch) {
  EXPECT_EQ(body(arange(2000, int32)), "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])");
  EXPECT_EQ(body(arange(1200, float32).reshape({40, 30})),
            "tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 2.7000e+01, 2.8000e+01,\n"
            "         2.9000e+01],\n"
            "        [3.0000e+01, 3.1000e+01, 3.2000e+01,  ..., 5.7000e+01, 5.8000e+01,\n"
            "         5.9000e+01],\n"
            "        [6.0000e+01, 6.1000e+01, 6.2000e+01,  ..., 8.7000e+01, 8.8000e+01,\n"
            "         8.9000e+01],\n"
            "        ...,\n"
            "        [1.1100e+03, 1.1110e+03, 1.1120e+03,  ..., 1.1370e+03, 1.1380e+03,\n"
            "         1.1390e+03],\n"
            "        [1.1400e+03, 1.1410e+03, 1.1420e+03,  ..., 1.1670e+03, 1.1680e+03,\n"
            "         1.1690e+03],\n"
            "        [1.1700e+03, 1.1710e+03, 1.1720e+03,  ..., 1.1970e+03, 1.1980e+03,\n"
            "         1.1990e+03]])");
}

TEST(Print, OptionsAndGuard) {
  const Tensor thirds = div(arange(10, float32), 3);
  const Tensor m = div(arange(12, float32), 7).reshape({3, 4});
  const std::string before = thirds.str();
  {
    PrintOptionsGuard g({.precision = 2, .threshold = 5, .edgeitems = 1, .linewidth = 40});
    EXPECT_EQ(body(thirds), "tensor([0.,  ..., 3.])");
    EXPECT_EQ(body(m), "tensor([[0.00,  ..., 0.43],\n        ...,\n        [1.14,  ..., 1.57]])");
    EXPECT_EQ(print_options().precision, 2);
  }
  EXPECT_EQ(thirds.str(), before);
  EXPECT_EQ(print_options().threshold, 1000);
  set_print_options({.precision = 1});
  EXPECT_EQ(body(f32({0.25f, 1.5f})), "tensor([0.2, 1.5])");
  reset_print_options();
  EXPECT_EQ(body(f32({0.25f, 1.5f})), "tensor([0.2500, 1.5000])");
  EXPECT_THROW(set_print_options({.edgeitems = 0}), ValueError);
  EXPECT_THROW(set_print_options({.precision = -1}), ValueError);
  EXPECT_EQ(print_options().edgeitems, 3);   // unchanged by the refused calls
}

// Concord's rule (docs/PYTORCH_DIFFERENCES.md): different values print differently.
TEST(Print, DifferentValuesReadDifferently) {
  EXPECT_EQ(body(f32({-1.00015f, -1.00011f})), "tensor([-1.00015, -1.00011])");   // PyTorch: -1.0001 twice
  EXPECT_EQ(body(from_vector(std::vector<double>{1.0, 1.0 + 1e-12}, {2})), "tensor([1.000000000000, 1.000000000001])");
  EXPECT_EQ(body(f32({2.f, 2.f, 1.5f})), "tensor([2.0000, 2.0000, 1.5000])");   // equal values need nothing
  EXPECT_EQ(body(from_vector(std::vector<double>{123456789.0, 123456780.0}, {2})),
            "tensor([1.2345679e+08, 1.2345678e+08])");
}

TEST(Print, IntegersAreExact) {
  const std::vector<int64_t> v = {9007199254740993LL, -1, 12};   // 2^53 + 1: not a double
  EXPECT_EQ(body(from_vector(v, {3})), "tensor([9007199254740993,               -1,               12])");
  const std::vector<int64_t> lim = {INT64_MIN, INT64_MAX};
  EXPECT_EQ(body(from_vector(lim, {2})), "tensor([-9223372036854775808,  9223372036854775807])");
}

TEST(Print, DtypeShapeAndSuffix) {
  std::ostringstream os;
  os << float16 << " " << Shape{2, 3} << " " << bool_;
  EXPECT_EQ(os.str(), "float16 [2, 3] bool");
  EXPECT_EQ(zeros({0, 2}).str(), "tensor([], dtype=float32, shape=[0, 2])");
  EXPECT_EQ(arange(3).str(), "tensor([0, 1, 2], dtype=int64)");
}

class PrintDevices : public concord::test::DeviceTest {};

TEST_P(PrintDevices, SameBodyOnEveryDevice) {
  const Tensor h = f32({1.25f, -3.f, 1e-3f, 7.f}, {2, 2});
  const std::string s = h.to(device()).str();
  EXPECT_EQ(s.substr(0, s.find(", dtype=")), h.str().substr(0, h.str().find(", dtype=")));
  if (!device().is_cpu()) EXPECT_NE(s.find("device=" + device().str()), std::string::npos) << s;
}

CONCORD_INSTANTIATE_DEVICES(PrintDevices);

}  // namespace
