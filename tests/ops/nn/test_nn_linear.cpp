// nn::Linear on every device configuration and floating dtype, against a
// float64 reference written with plain loops:
//   |y - ref| <= 2·k·u_acc·(|x||W|) + 2·u·(|x||W| + |b|) elementwise
// (the accumulation with the bias folded in, and the final rounding; the
// bound also covers a product and a bias add rounded apart); autocast.
#include "nn_checks.h"

namespace concord {
namespace {

// ---------------------------------------------------------------- Linear

class LinearTest : public NnTest {};

TEST_P(LinearTest, ForwardMatchesFloat64Reference) {
  const int64_t in = 37, out = 11;
  nn::Linear lin(in, out, true, dtype(), device(), 42);
  ASSERT_EQ(lin.weight().shape(), (Shape{out, in}));
  ASSERT_EQ(lin.bias().shape(), (Shape{out}));
  ASSERT_EQ(lin.weight().dtype(), dtype());
  ASSERT_EQ(lin.weight().device(), device());
  const Tensor x = make(values(2 * 3 * in, dtype(), 7), {2, 3, in}, dtype(), device());
  const Tensor y = lin(x);
  ASSERT_EQ(y.shape(), (Shape{2, 3, out}));
  ASSERT_EQ(y.dtype(), dtype());
  const auto hx = host(x), hw = host(lin.weight()), hb = host(lin.bias());
  const double u = unit_roundoff(dtype()), ua = accumulation_roundoff(dtype());
  auto check = [&](const Vec& hy, int64_t rows) {
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < out; ++j) {
        double ref = 0, mag = 0;
        for (int64_t k = 0; k < in; ++k) {
          ref += hx[r * in + k] * hw[j * in + k];
          mag += std::fabs(hx[r * in + k] * hw[j * in + k]);
        }
        ref += hb[j];
        const double bound = 2 * in * ua * mag + 2 * u * (mag + std::fabs(hb[j]));
        ASSERT_LE(std::fabs(hy[r * out + j] - ref), bound) << "row " << r << " col " << j << " ref " << ref;
      }
  };
  check(host(y), 6);
  // 1-D input: [in] -> [out] (a matrix-vector product: other bits than the batch, same bound).
  const Tensor y1 = lin(x.select(0, 0).select(0, 0));
  ASSERT_EQ(y1.shape(), (Shape{out}));
  check(host(y1), 1);
}

TEST_P(LinearTest, InitialisationIsUniformAndTheSameOnEveryDevice) {
  const int64_t in = 50, out = 20;
  const double bound = 1.0 / std::sqrt(static_cast<double>(in));
  nn::Linear lin(in, out, true, dtype(), device(), 5);
  nn::Linear ref(in, out, true, float64, kCPU, 5);  // the host draw, before rounding
  const auto w = host(lin.weight()), b = host(lin.bias()), rw = host(ref.weight()), rb = host(ref.bias());
  for (size_t i = 0; i < w.size(); ++i) {
    ASSERT_GE(rw[i], -bound);
    ASSERT_LT(rw[i], bound);
    ASSERT_EQ(w[i], round_to(dtype(), rw[i])) << i;
  }
  for (size_t i = 0; i < b.size(); ++i) ASSERT_EQ(b[i], round_to(dtype(), rb[i])) << i;
  // Weight and bias are different draws; a different seed gives a different layer.
  EXPECT_NE(rw[0], rb[0]);
  nn::Linear other(in, out, true, float64, kCPU, 6);
  EXPECT_NE(host(other.weight()), rw);
  // Both signs occur, and the values fill the range.
  const auto [lo, hi] = std::minmax_element(rw.begin(), rw.end());
  EXPECT_LT(*lo, -0.8 * bound);
  EXPECT_GT(*hi, 0.8 * bound);
}

TEST_P(LinearTest, WithoutBiasAndErrors) {
  nn::Linear lin(4, 3, false, dtype(), device(), 1);
  EXPECT_FALSE(lin.bias().defined());
  const Tensor x = make(values(8, dtype(), 3), {2, 4}, dtype(), device());
  EXPECT_EQ(bits(lin(x)), bits(matmul(x, lin.weight().t())));
  EXPECT_THROW(lin(make(values(6, dtype(), 3), {2, 3}, dtype(), device())), ShapeError);
  const Dtype other = dtype() == float32 ? float16 : float32;
  EXPECT_THROW(lin(x.to(other)), DtypeError);
  EXPECT_THROW(nn::Linear(0, 3), ValueError);
  EXPECT_THROW(nn::Linear(3, 3, true, int32), DtypeError);
}

TEST_P(LinearTest, NamedParametersShareStorageInAFixedOrder) {
  const nn::Linear lin(4, 3, true, dtype(), device(), 9);   // const: the accessors are const
  const auto named = lin.named_parameters();
  ASSERT_EQ(named.size(), 2u);
  EXPECT_EQ(named[0].first, "weight");
  EXPECT_EQ(named[1].first, "bias");
  EXPECT_EQ(named[0].second.storage(), lin.weight().storage());
  EXPECT_EQ(named[1].second.storage(), lin.bias().storage());
  const auto params = lin.parameters();
  ASSERT_EQ(params.size(), 2u);
  EXPECT_EQ(params[0].shape(), (Shape{3, 4}));
  EXPECT_EQ(params[1].shape(), (Shape{3}));
  // Writing through a parameter changes the layer: y = 0·x + 1.
  Tensor w = params[0], b = params[1];
  w.zero_();
  b.fill_(1);
  EXPECT_EQ(host(lin(ones({2, 4}, dtype(), device()))), Vec(6, 1.0));
  const nn::Linear nobias(4, 3, false, dtype(), device(), 9);
  ASSERT_EQ(nobias.named_parameters().size(), 1u);
  EXPECT_EQ(nobias.named_parameters()[0].first, "weight");
}

// state_dict shares the parameters; load_state_dict copies a CPU float64
// state into the layer (its dtype, its device), and refuses a state that does
// not fit before writing anything.
TEST_P(LinearTest, StateDictRoundTripsAndMismatchesLeaveTheLayer) {
  const nn::Linear src(4, 3, true, dtype(), device(), 11);
  const auto sd = src.state_dict();
  ASSERT_EQ(sd.size(), 2u);
  EXPECT_EQ(sd.at("weight").storage(), src.weight().storage());
  nn::Linear dst(4, 3, true, dtype(), device(), 12);
  std::map<std::string, Tensor> host_state;
  for (const auto& [k, t] : sd) host_state[k] = t.to(kCPU).to(float64);  // another dtype, on the host
  dst.load_state_dict(host_state);
  EXPECT_EQ(dst.weight().dtype(), dtype());
  EXPECT_EQ(dst.weight().device(), device());
  EXPECT_EQ(host(dst.weight()), host(src.weight()));
  EXPECT_EQ(host(dst.bias()), host(src.bias()));
  nn::Linear other(4, 3, true, dtype(), device(), 13);
  const Vec before = host(other.weight());
  auto bad = host_state;
  bad["extra"] = ones({1});
  EXPECT_THROW(other.load_state_dict(bad), ValueError);
  bad = host_state;
  bad["bias"] = ones({4}, float64);
  EXPECT_THROW(other.load_state_dict(bad), ShapeError);
  bad = host_state;
  bad.erase("bias");
  EXPECT_THROW(other.load_state_dict(bad), ValueError);
  bad = host_state;
  bad["bias"] = ones({3}, int64);
  EXPECT_THROW(other.load_state_dict(bad), DtypeError);
  EXPECT_EQ(host(other.weight()), before);  // nothing written by any refused load
}

CONCORD_INSTANTIATE_NN(LinearTest);

// Autocast changes float32 layers only, so this one is over devices alone.
class LinearAutocastTest : public test::DeviceTest {};

TEST_P(LinearAutocastTest, TheProductRunsInTheLowerDtype) {
  nn::Linear lin(16, 8, true, float32, device(), 2);
  const Tensor x = make(values(32, float32, 4), {2, 16}, float32, device());
  autocast ac(device().kind());
  const Dtype lo = default_autocast_dtype(device());
  const Tensor y = lin(x);
  EXPECT_EQ(y.dtype(), lo);
  // The linear op on the operands rounded to lo (bias included), bit for bit.
  const Tensor xl = x.to(lo), wl = lin.weight().to(lo), bl = lin.bias().to(lo);
  EXPECT_EQ(bits(y), bits(linear(xl, wl, bl)));
  // The bias joins the float32 sum and the result is rounded once: within the
  // accumulation error plus half an ulp of lo of the exact value.
  const auto hy = host(y), hx = host(xl), hw = host(wl), hb = host(bl);
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t j = 0; j < 8; ++j) {
      double ref = hb[j], mag = std::fabs(hb[j]);
      for (int64_t k = 0; k < 16; ++k) {
        ref += hx[r * 16 + k] * hw[j * 16 + k];
        mag += std::fabs(hx[r * 16 + k] * hw[j * 16 + k]);
      }
      const double acc = 2 * 18 * accumulation_roundoff(lo) * mag;
      EXPECT_LE(std::fabs(hy[r * 8 + j] - ref), acc + unit_roundoff(lo) * (std::fabs(ref) + acc)) << r << "," << j;
    }
}

CONCORD_INSTANTIATE_DEVICES(LinearAutocastTest);

}  // namespace
}  // namespace concord
