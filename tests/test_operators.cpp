// The C++ operators (comparisons, %, bitwise, !, compound assignment), fill_,
// zero_ and the op methods, on every device, against host loops.
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>

#include "support/devices.h"

namespace {

using namespace concord;
using concord::test::can_store;

class Operators : public concord::test::DeviceTest {};

std::vector<float> random_floats(size_t n, uint32_t seed, float lo, float hi) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = std::round(d(g) * 4) / 4;  // quarter steps: ties and equal values occur
  return v;
}

template <class T>
std::vector<T> random_ints(size_t n, uint32_t seed) {
  std::mt19937_64 g(seed);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(g());  // every bit pattern, negatives included
  return v;
}

TEST_P(Operators, ComparisonsGiveBoolOnEitherSide) {
  const auto av = random_floats(12, 1, -2, 2), bv = random_floats(12, 2, -2, 2);
  const Tensor a = from_vector(av, {3, 4}, device()), b = from_vector(bv, {3, 4}, device());
  struct Case { const char* name; Tensor got; std::function<bool(float, float)> ref; bool scalar_rhs; };
  const Case cases[] = {
      {"a < 0.5", a < 0.5, [](float x, float) { return x < 0.5f; }, true},
      {"a <= 0.5", a <= 0.5, [](float x, float) { return x <= 0.5f; }, true},
      {"a > 0.5", a > 0.5, [](float x, float) { return x > 0.5f; }, true},
      {"a >= 0.5", a >= 0.5, [](float x, float) { return x >= 0.5f; }, true},
      {"a == 0.5", a == 0.5, [](float x, float) { return x == 0.5f; }, true},
      {"a != 0.5", a != 0.5, [](float x, float) { return x != 0.5f; }, true},
      {"0.5 < a", 0.5 < a, [](float x, float) { return 0.5f < x; }, true},
      {"0.5 == a", 0.5 == a, [](float x, float) { return 0.5f == x; }, true},
      {"1 != a", 1 != a, [](float x, float) { return 1.f != x; }, true},
      {"a == b", a == b, [](float x, float y) { return x == y; }, false},
      {"a != b", a != b, [](float x, float y) { return x != y; }, false},
      {"a < b", a < b, [](float x, float y) { return x < y; }, false},
      {"a >= b", a >= b, [](float x, float y) { return x >= y; }, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(c.got.dtype(), bool_);
    EXPECT_EQ(c.got.device(), device());
    const auto got = c.got.to_vector<bool>();
    for (size_t i = 0; i < av.size(); ++i) EXPECT_EQ(got[i], c.ref(av[i], bv[i])) << i;
  }
}

TEST_P(Operators, RemainderHasTheDivisorsSign) {
  const std::vector<int32_t> av = {-7, 7, -7, 7, 0, 5, -6, 13};
  const std::vector<int32_t> bv = {2, -2, -2, 2, 3, 5, 4, -5};
  const auto got = (from_vector(av, {8}, device()) % from_vector(bv, {8}, device())).to_vector<int32_t>();
  for (size_t i = 0; i < av.size(); ++i) {
    int32_t m = av[i] % bv[i];
    if (m != 0 && ((m < 0) != (bv[i] < 0))) m += bv[i];
    EXPECT_EQ(got[i], m) << av[i] << " % " << bv[i];
  }
  const auto f = (from_vector(std::vector<float>{-7.5f, 7.5f}, {2}, device()) % 2).to_vector<float>();
  EXPECT_EQ(f[0], 0.5f);
  EXPECT_EQ(f[1], 1.5f);
  EXPECT_EQ((7 % from_vector(std::vector<int32_t>{-3}, {1}, device())).to_vector<int32_t>()[0], -2);
}

template <class T>
void check_bitwise(const Device& dev, uint32_t seed) {
  const auto av = random_ints<T>(10, seed), bv = random_ints<T>(10, seed + 1);
  const Tensor a = from_vector(av, {2, 5}, dev), b = from_vector(bv, {2, 5}, dev);
  const auto band = (a & b).template to_vector<T>(), bor = (a | b).template to_vector<T>();
  const auto bxor = (a ^ b).template to_vector<T>(), bnot = (~a).template to_vector<T>();
  const auto bs = (a & T(0x55)).template to_vector<T>();
  EXPECT_EQ((a & b).dtype(), dtype_v<T>);
  EXPECT_EQ((a & T(0x55)).dtype(), dtype_v<T>);
  for (size_t i = 0; i < av.size(); ++i) {
    EXPECT_EQ(band[i], T(av[i] & bv[i])) << +av[i] << " & " << +bv[i];
    EXPECT_EQ(bor[i], T(av[i] | bv[i])) << +av[i] << " | " << +bv[i];
    EXPECT_EQ(bxor[i], T(av[i] ^ bv[i])) << +av[i] << " ^ " << +bv[i];
    EXPECT_EQ(bnot[i], T(~av[i])) << "~" << +av[i];
    EXPECT_EQ(bs[i], T(av[i] & T(0x55))) << +av[i] << " & 0x55";
  }
}

TEST_P(Operators, BitwiseMatchesTwosComplementOnTheHost) {
  check_bitwise<uint8_t>(device(), 10);
  check_bitwise<int8_t>(device(), 20);
  check_bitwise<int32_t>(device(), 30);
  if (can_store(GetParam(), int64)) check_bitwise<int64_t>(device(), 40);
  // Numbers wrap to the tensor's dtype first, as PyTorch (torch 1.13 gives these values).
  const Tensor u = from_vector(std::vector<uint8_t>{5, 200}, {2}, device());
  EXPECT_EQ((u & -1).to_vector<uint8_t>(), (std::vector<uint8_t>{5, 200}));
  EXPECT_EQ((u | -256).to_vector<uint8_t>(), (std::vector<uint8_t>{5, 200}));
  EXPECT_EQ((from_vector(std::vector<int8_t>{-128, 127}, {2}, device()) ^ 300).to_vector<int8_t>(),
            (std::vector<int8_t>{-84, 83}));
  // Broadcasting: a column against a row.
  const Tensor col = from_vector(std::vector<int32_t>{12, -1}, {2, 1}, device());
  const Tensor row = from_vector(std::vector<int32_t>{10, 6, 0}, {3}, device());
  EXPECT_EQ((col & row).to_vector<int32_t>(), (std::vector<int32_t>{8, 4, 0, 10, 6, 0}));
}

TEST_P(Operators, BoolOperandsAreLogical) {
  const Tensor a = from_vector(std::vector<bool>{true, true, false, false}, {4}, device());
  const Tensor b = from_vector(std::vector<bool>{true, false, true, false}, {4}, device());
  EXPECT_EQ((a & b).to_vector<bool>(), (std::vector<bool>{true, false, false, false}));
  EXPECT_EQ((a | b).to_vector<bool>(), (std::vector<bool>{true, true, true, false}));
  EXPECT_EQ((a ^ b).to_vector<bool>(), (std::vector<bool>{false, true, true, false}));
  EXPECT_EQ((~a).to_vector<bool>(), (std::vector<bool>{false, false, true, true}));
  EXPECT_EQ((!a).to_vector<bool>(), (std::vector<bool>{false, false, true, true}));
  EXPECT_EQ((a & b).dtype(), bool_);
  const Tensor i = from_vector(std::vector<int32_t>{0, 3, -1}, {3}, device());
  EXPECT_EQ((!i).to_vector<bool>(), (std::vector<bool>{true, false, false}));
}

TEST_P(Operators, FloatingBitwiseRaisesTyped) {
  const Tensor f = ones({2}, float32, device());
  const Tensor i = ones({2}, int32, device());
  auto starts = [](const std::function<void()>& fn, const std::string& prefix) {
    try { fn(); } catch (const DtypeError& e) { EXPECT_EQ(std::string(e.what()).rfind(prefix, 0), 0u) << e.what(); return; }
    ADD_FAILURE() << "no DtypeError for " << prefix;
  };
  starts([&] { (void)(f & i); }, "[bitwise_and]");
  starts([&] { (void)(i | 1.5); }, "[bitwise_or]");
  starts([&] { (void)(f ^ f); }, "[bitwise_xor]");
  starts([&] { (void)(~f); }, "[bitwise_not]");
  starts([&] { (void)(!f); }, "[logical_not]");
}

TEST_P(Operators, CompoundAssignmentWritesInPlace) {
  Tensor a = from_vector(std::vector<int32_t>{1, 2, 3, 4}, {2, 2}, device());
  Tensor view = a;  // shares storage: the write must be seen through it
  a += 10;
  a -= from_vector(std::vector<int32_t>{1, 2}, {2}, device());  // broadcast into a
  a *= 3;
  a %= 7;
  a |= 8;
  a &= 13;
  a ^= 1;
  std::vector<int32_t> ref = {1, 2, 3, 4};
  const int32_t sub_row[2] = {1, 2};
  for (size_t k = 0; k < ref.size(); ++k) {
    int32_t x = (ref[k] + 10 - sub_row[k % 2]) * 3;
    x = ((x % 7) + 7) % 7;
    ref[k] = ((x | 8) & 13) ^ 1;
  }
  EXPECT_EQ(view.to_vector<int32_t>(), ref);
  EXPECT_EQ(a.dtype(), int32);

  Tensor h = full({3}, 1.0, float16, device());
  h += full({3}, 0.5, float32, device());   // float32 result rounds into float16
  EXPECT_EQ(h.dtype(), float16);
  EXPECT_EQ(h.to_vector<float>(), (std::vector<float>{1.5f, 1.5f, 1.5f}));
  Tensor f = full({2}, 3.0, float32, device());
  f /= 2;
  EXPECT_EQ(f.to_vector<float>(), (std::vector<float>{1.5f, 1.5f}));

  Tensor m = zeros({2, 3}, float32, device());
  m.select(0, 1) += 2;   // through a view (rvalue)
  EXPECT_EQ(m.to_vector<float>(), (std::vector<float>{0, 0, 0, 2, 2, 2}));
}

TEST_P(Operators, CompoundAssignmentRefusesAndLeavesSelfUntouched) {
  Tensor i = from_vector(std::vector<int32_t>{5, 6}, {2}, device());
  auto untouched = [&] { EXPECT_EQ(i.to_vector<int32_t>(), (std::vector<int32_t>{5, 6})); };
  try { i += 1.5; ADD_FAILURE() << "int32 += 1.5 accepted"; } catch (const DtypeError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("[add_] the result type float32", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("can't be cast"), std::string::npos) << e.what();
  }
  untouched();
  EXPECT_THROW(i /= 2, DtypeError);   // true division gives float32
  untouched();
  EXPECT_THROW(i += ones({3, 2}, int32, device()), ShapeError);   // would grow i
  untouched();
  Tensor b = from_vector(std::vector<bool>{true, false}, {2}, device());
  EXPECT_THROW(b += 1, DtypeError);   // int64 into bool
  EXPECT_EQ(b.to_vector<bool>(), (std::vector<bool>{true, false}));
  b |= from_vector(std::vector<bool>{false, true}, {2}, device());
  EXPECT_EQ(b.to_vector<bool>(), (std::vector<bool>{true, true}));
}

TEST_P(Operators, FillAndZero) {
  Tensor a = empty({2, 3}, int32, device());
  a.fill_(1.7);  // converted to the dtype, as PyTorch: 1
  EXPECT_EQ(a.to_vector<int32_t>(), std::vector<int32_t>(6, 1));
  a.slice(1, 1, std::nullopt).zero_();
  EXPECT_EQ(a.to_vector<int32_t>(), (std::vector<int32_t>{1, 0, 0, 1, 0, 0}));
  Tensor f = empty({4}, float32, device());
  f.fill_(-2.5);
  EXPECT_EQ(f.to_vector<float>(), std::vector<float>(4, -2.5f));
}

// Each method is its free function: same values, bit for bit.
TEST_P(Operators, MethodsForwardToTheOps) {
  const auto av = random_floats(12, 5, 0.25f, 3);
  const Tensor a = from_vector(av, {3, 4}, device());
  const Tensor b = from_vector(random_floats(8, 6, -1, 1), {4, 2}, device());
  auto same = [](const Tensor& x, const Tensor& y, const char* what) {
    SCOPED_TRACE(what);
    EXPECT_EQ(x.shape(), y.shape());
    EXPECT_EQ(x.dtype(), y.dtype());
    EXPECT_EQ(x.to_vector<double>(), y.to_vector<double>());
  };
  same(a.sum(), sum(a), "sum");
  same(a.sum({1}, true), sum(a, {1}, true), "sum dims");
  same(a.mean({0}), mean(a, {0}), "mean");
  same(a.max(), max(a), "max");
  same(a.min(), min(a), "min");
  same(a.max(1).indices, max(a, 1).indices, "max dim");
  same(a.matmul(b), matmul(a, b), "matmul");
  same(a.exp(), exp(a), "exp");
  same(a.log(), log(a), "log");
  same(a.sqrt(), sqrt(a), "sqrt");
  same(a.neg().abs(), abs(neg(a)), "neg abs");
  same(a.pow(2), pow(a, 2), "pow");
  same(a.softmax(1), softmax(a, 1), "softmax");
  // And against the host: the sum of quarter steps is exact in float32.
  double s = 0;
  for (float v : av) s += v;
  EXPECT_EQ(a.sum().item<double>(), s);
  EXPECT_EQ(a.t().clone().shape(), (Shape{4, 3}));
  EXPECT_EQ(a.reshape({2, 6}).transpose(0, 1).shape(), (Shape{6, 2}));
}

CONCORD_INSTANTIATE_DEVICES(Operators);

}  // namespace
