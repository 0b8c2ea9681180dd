// nn::scan: the same bits as the loop written by hand on every device
// configuration and floating dtype; a scan over a Linear on opencl:0 judged
// by check_matmul's error model.
#include "nn_checks.h"

namespace concord {
namespace {

// ---------------------------------------------------------------- scan

class ScanTest : public NnTest {};

TEST_P(ScanTest, SameBitsAsTheLoopWrittenByHand) {
  nn::Linear lin(8, 8, true, dtype(), device(), 3);
  const Tensor xs = make(values(5 * 3 * 8, dtype(), 21), {5, 3, 8}, dtype(), device());
  const Tensor h0 = zeros({3, 8}, dtype(), device());
  auto step = [&](const Tensor& h, const Tensor& x) {
    const Tensor n = tanh(add(lin(x), h));
    return std::pair<Tensor, Tensor>(n, mul(n, 2));
  };
  const auto [carry, ys] = nn::scan(step, h0, xs);
  ASSERT_EQ(ys.shape(), (Shape{5, 3, 8}));
  ASSERT_EQ(ys.dtype(), dtype());
  ASSERT_EQ(ys.device(), device());
  Tensor h = h0;
  std::vector<Tensor> outs;
  for (int64_t t = 0; t < 5; ++t) {
    h = tanh(add(lin(xs.select(0, t)), h));
    outs.push_back(mul(h, 2));
  }
  EXPECT_EQ(bits(carry), bits(h));
  EXPECT_EQ(bits(ys), bits(stack(outs)));
}

TEST_P(ScanTest, SeveralSequences) {
  const Tensor a = make(values(12, dtype(), 22), {4, 3}, dtype(), device());
  const Tensor b = make(values(12, dtype(), 23), {4, 3}, dtype(), device());
  const Tensor c0 = zeros({3}, dtype(), device());
  const auto [carry, ys] = nn::scan(
      [](const Tensor& c, const std::vector<Tensor>& x) {
        const Tensor n = add(c, mul(x[0], x[1]));
        return std::pair<Tensor, Tensor>(n, n);
      },
      c0, {a, b});
  Tensor c = c0;
  std::vector<Tensor> outs;
  for (int64_t t = 0; t < 4; ++t) {
    c = add(c, mul(a.select(0, t), b.select(0, t)));
    outs.push_back(c);
  }
  EXPECT_EQ(bits(carry), bits(c));
  EXPECT_EQ(bits(ys), bits(stack(outs)));
}

TEST_P(ScanTest, ErrorsAndNoOutputs) {
  const Tensor c0 = zeros({3}, dtype(), device());
  auto id = [](const Tensor& c, const Tensor& x) { return std::pair<Tensor, Tensor>(add(c, x), x); };
  EXPECT_THROW(nn::scan(id, c0, zeros({0, 3}, dtype(), device())), ShapeError);
  EXPECT_THROW(nn::scan(id, c0, scalar_tensor(1.0, dtype(), device())), ShapeError);
  auto multi = [](const Tensor& c, const std::vector<Tensor>&) { return std::pair<Tensor, Tensor>(c, c); };
  EXPECT_THROW(nn::scan(multi, c0, std::vector<Tensor>{}), ShapeError);
  EXPECT_THROW(nn::scan(multi, c0, {zeros({2, 3}, dtype(), device()), zeros({3, 3}, dtype(), device())}),
               ShapeError);
  // fn's own errors come through unchanged.
  auto bad = [](const Tensor& c, const Tensor& x) { return std::pair<Tensor, Tensor>(matmul(c, x.unsqueeze(0)), x); };
  EXPECT_THROW(nn::scan(bad, c0, zeros({2, 3}, dtype(), device())), ShapeError);
  // No y at any step: ys is undefined; y at some steps only: ValueError.
  const auto r = nn::scan([](const Tensor& c, const Tensor& x) { return std::pair<Tensor, Tensor>(add(c, x), Tensor()); },
                          c0, ones({4, 3}, dtype(), device()));
  EXPECT_FALSE(r.ys.defined());
  EXPECT_EQ(host(r.carry), (Vec{4, 4, 4}));
  int n = 0;
  auto some = [&n](const Tensor& c, const Tensor& x) { return std::pair<Tensor, Tensor>(c, n++ == 1 ? x : Tensor()); };
  EXPECT_THROW(nn::scan(some, c0, ones({3, 3}, dtype(), device())), ValueError);
}

CONCORD_INSTANTIATE_NN(ScanTest);

// The motivating report: a scan over a linear layer on an accelerator drifted
// from the CPU (9 of 7680 elements, max abs 1.8e-4, max rel 0.27). A fixed
// tolerance cannot tell rounding from a bug; the matmul error model can: every
// step's output, on each device, must be within check_matmul's bound of the
// exact product of that device's own inputs.
std::optional<Device> first_opencl() {
  for (const auto& d : devices())
    if (d.kind().name() == "opencl") return d;
  return std::nullopt;
}

TEST(ScanOverLinear, OpenClAgreesWithCpuUpToTheMatmulErrorModel) {
  const auto ocl = first_opencl();
  if (!ocl) GTEST_SKIP() << "no OpenCL device (concord::devices() lists none)";
  const int64_t T = 10, B = 16, in = 64, out = 48;  // 7680 outputs, as in the report
  const Tensor xs = randn({T, B, in}, float32, kCPU, 2024);
  std::vector<std::string> notes;
  std::vector<Tensor> results;
  for (const Device& d : {kCPU, *ocl}) {
    nn::Linear lin(in, out, false, float32, d, 99);
    const auto r = nn::scan(
        [&](const Tensor& c, const Tensor& x) {
          const Tensor y = lin(x);
          return std::pair<Tensor, Tensor>(add(c, sum(y)), y);
        },
        zeros({}, float32, d), xs.to(d));
    const auto m = testing::check_matmul(r.ys, xs, lin.weight().t());
    EXPECT_TRUE(m.ok) << d.str() << ": " << m.str();
    results.push_back(r.ys.to(kCPU));
  }
  // How far apart the two are is reported, not judged by a fixed tolerance.
  const auto c = testing::compare(results[1], results[0]);
  std::cout << "[ scan over Linear, " << ocl->str() << " vs cpu ] "
            << (c.ok ? std::string("close by assert_close's defaults") : c.message()) << "\n";
}

TEST(ScanOverLinear, RecurrentStepsOnOpenClEachWithinTheErrorModel) {
  const auto ocl = first_opencl();
  if (!ocl) GTEST_SKIP() << "no OpenCL device (concord::devices() lists none)";
  const int64_t T = 10, B = 16, n = 48;
  const Tensor xs = randn({T, B, n}, float32, kCPU, 7);
  for (const Device& d : {kCPU, *ocl}) {
    nn::Linear lin(n, n, false, float32, d, 5);
    std::vector<Tensor> inputs;  // each step's input z_t as the device computed it
    const auto r = nn::scan(
        [&](const Tensor& h, const Tensor& x) {
          const Tensor z = add(x, h);
          inputs.push_back(z);
          const Tensor y = lin(z);
          return std::pair<Tensor, Tensor>(tanh(y), y);
        },
        zeros({B, n}, float32, d), xs.to(d));
    ASSERT_EQ(inputs.size(), static_cast<size_t>(T));
    for (int64_t t = 0; t < T; ++t) {
      const auto m = testing::check_matmul(r.ys.select(0, t), inputs[t], lin.weight().t());
      EXPECT_TRUE(m.ok) << d.str() << " step " << t << ": " << m.str();
    }
  }
}

}  // namespace
}  // namespace concord
