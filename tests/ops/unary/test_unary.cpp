// Unary elementwise ops on every device configuration and dtype, against
// float64 references (error model: elementwise_checks.h).
#include "elementwise_checks.h"

namespace {

// ---------------- unary ----------------

struct UnaryCase {
  const char* name;
  Tensor (*fn)(const Tensor&);
  double (*ref)(double);
  double lo, hi;
  double ulps;        // 0: exact (correctly rounded); else ULPs for float32/float64
  double abs_factor;  // extra absolute tolerance: abs_factor * eps(compute) * |x|
};

double ref_sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double ref_gelu(double x) {  // erfc form: no cancellation for x < 0
  return static_cast<double>(0.5L * x * std::erfc(-static_cast<long double>(x) / std::sqrt(2.0L)));
}
double ref_rsqrt(double x) { return 1.0 / std::sqrt(x); }
double ref_recip(double x) { return 1.0 / x; }
double ref_sqrt(double x) { return std::sqrt(x); }

const UnaryCase kFloatUnary[] = {
    {"exp", exp, [](double x) { return std::exp(x); }, -12, 11, 4, 0},
    {"expm1", expm1, [](double x) { return std::expm1(x); }, -5, 5, 4, 0},
    {"log", log, [](double x) { return std::log(x); }, 0.01, 100, 4, 0},
    {"log1p", log1p, [](double x) { return std::log1p(x); }, -0.9, 10, 4, 0},
    {"log2", log2, [](double x) { return std::log2(x); }, 0.01, 100, 4, 0},
    {"sqrt", sqrt, ref_sqrt, 0, 100, 0, 0},
    {"rsqrt", rsqrt, ref_rsqrt, 0.01, 100, 3, 0},
    {"sin", sin, [](double x) { return std::sin(x); }, -10, 10, 4, 0},
    {"cos", cos, [](double x) { return std::cos(x); }, -10, 10, 4, 0},
    {"tan", tan, [](double x) { return std::tan(x); }, -1.5, 1.5, 4, 0},
    {"tanh", tanh, [](double x) { return std::tanh(x); }, -5, 5, 4, 0},
    {"sigmoid", sigmoid, ref_sigmoid, -12, 12, 4, 0},
    {"gelu", gelu, ref_gelu, -5, 5, 4, 8},  // 1 + erf(x) cancels for x < 0
    {"erf", erf, [](double x) { return std::erf(x); }, -3, 3, 4, 0},
    {"reciprocal", reciprocal, ref_recip, 0.1, 50, 0, 0},
};

TEST_P(Elementwise, UnaryFloatingMath) {
  for (Dtype t : kFloats) {
    if (skip(t)) continue;
    for (const UnaryCase& c : kFloatUnary) {
      const auto xs = spread(300, c.lo, c.hi, t);
      const Tensor y = c.fn(make1(xs, t, device()));
      ASSERT_EQ(y.dtype(), t) << c.name;
      ASSERT_EQ(y.device(), device());
      const auto ys = values(y);
      for (size_t i = 0; i < xs.size(); ++i) {
        const double want = c.ref(xs[i]);
        if (c.ulps == 0) {
          expect_same(ys[i], round_to(want, t), ctx(c.name, t, xs[i]));
        } else {
          const double ulps = is_half(t) ? 1 : c.ulps;
          expect_near(ys[i], want, t, ulps, c.abs_factor * compute_eps(t) * std::fabs(xs[i]), ctx(c.name, t, xs[i]));
        }
      }
    }
  }
}

TEST_P(Elementwise, UnaryMathPromotesIntegersToFloat32) {
  const std::vector<double> xs = {0, 1, 2, 3, 7, 10};
  for (Dtype t : {uint8, int8, int16, int32, int64, bool_}) {
    const Tensor x = make1(t == bool_ ? std::vector<double>{0, 1, 1, 0, 1, 0} : xs, t, device());
    const auto in = values(x);
    const Tensor e = exp(x), s = sqrt(x), r = reciprocal(x);
    EXPECT_EQ(e.dtype(), float32);
    EXPECT_EQ(s.dtype(), float32);
    const auto ev = values(e), sv = values(s), rv = values(r);
    for (size_t i = 0; i < in.size(); ++i) {
      expect_near(ev[i], std::exp(in[i]), float32, 4, 0, ctx("exp", t, in[i]));
      expect_same(sv[i], round_to(std::sqrt(in[i]), float32), ctx("sqrt", t, in[i]));
      expect_same(rv[i], round_to(1.0 / in[i], float32), ctx("reciprocal", t, in[i]));
    }
  }
}

struct ExactUnary {
  const char* name;
  Tensor (*fn)(const Tensor&);
  double (*ref)(double);
};
const ExactUnary kExactUnary[] = {
    {"neg", neg, [](double x) { return -x; }},
    {"abs", abs, [](double x) { return std::fabs(x); }},
    {"sign", sign, [](double x) { return x > 0 ? 1.0 : x < 0 ? -1.0 : x == 0 ? 0.0 : x; }},
    {"relu", relu, [](double x) { return x < 0 ? 0.0 : x; }},
    {"floor", floor, [](double x) { return std::floor(x); }},
    {"ceil", ceil, [](double x) { return std::ceil(x); }},
    {"round", round, [](double x) { return std::nearbyint(x); }},
    {"trunc", trunc, [](double x) { return std::trunc(x); }},
};

TEST_P(Elementwise, UnaryExactFloat) {
  for (Dtype t : kFloats) {
    if (skip(t)) continue;
    auto xs = spread(257, -20, 20, t);
    for (double v : {0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.0, -0.0, 3.0, -7.0, kNaN, kInf, -kInf}) xs.push_back(v);
    const Tensor x = make1(xs, t, device());
    for (const ExactUnary& c : kExactUnary) {
      const Tensor y = c.fn(x);
      ASSERT_EQ(y.dtype(), t) << c.name;
      const auto ys = values(y);
      for (size_t i = 0; i < xs.size(); ++i) expect_same(ys[i], round_to(c.ref(xs[i]), t), ctx(c.name, t, xs[i]));
    }
    // Half to even, and the sign of zero where it is defined.
    EXPECT_EQ(values(round(make1({0.5, 1.5, 2.5, -2.5}, t, device()))), (std::vector<double>{0, 2, 2, -2}));
    EXPECT_TRUE(std::signbit(values(neg(make1({0.0}, t, device())))[0]));
    EXPECT_FALSE(std::signbit(values(sign(make1({-0.0}, t, device())))[0]));
  }
}

TEST_P(Elementwise, UnaryExactInteger) {
  for (Dtype t : kInts) {
    const double lo = t == uint8 ? 0 : t == int8 ? -128 : -1000, hi = t == uint8 ? 255 : t == int8 ? 127 : 1000;
    auto xs = spread(100, lo, hi, float64);
    for (double& v : xs) v = std::trunc(v);
    xs.push_back(lo);
    xs.push_back(0);
    const Tensor x = make1(xs, t, device());
    for (const ExactUnary& c : kExactUnary) {
      const Tensor y = c.fn(x);
      ASSERT_EQ(y.dtype(), t) << c.name;
      const auto ys = values(y);
      for (size_t i = 0; i < xs.size(); ++i) expect_same(ys[i], round_to(c.ref(xs[i]), t), ctx(c.name, t, xs[i]));
    }
  }
  // Wrap-around at the type's minimum, as in PyTorch.
  EXPECT_EQ(values(neg(make1({-128}, int8, device()))), std::vector<double>{-128});
  EXPECT_EQ(values(abs(make1({-128}, int8, device()))), std::vector<double>{-128});
  EXPECT_EQ(values(neg(make1({1, 200}, uint8, device()))), (std::vector<double>{255, 56}));
  EXPECT_EQ(neg(make1({-9.2e18}, int64, device())).to_vector<int64_t>()[0], int64_t{9200000000000000000});
}

TEST_P(Elementwise, Predicates) {
  for (Dtype t : kAllDtypes) {
    if (skip(t)) continue;
    std::vector<double> xs = {0, 1, 0, 1};
    if (is_floating(t)) xs = {0.0, -1.5, kNaN, kInf, -kInf, 2.0, -0.0};
    else if (t != bool_) xs = {0, 1, 7, 0, 100};
    const Tensor x = make1(xs, t, device());
    const Tensor n = isnan(x), i = isinf(x), f = isfinite(x), l = logical_not(x);
    for (const Tensor* r : {&n, &i, &f, &l}) ASSERT_EQ(r->dtype(), bool_) << name(t);
    const auto nv = n.to_vector<bool>(), iv = i.to_vector<bool>(), fv = f.to_vector<bool>(), lv = l.to_vector<bool>();
    for (size_t k = 0; k < xs.size(); ++k) {
      const std::string w = ctx("predicates", t, xs[k]);
      EXPECT_EQ(nv[k], std::isnan(xs[k])) << w;
      EXPECT_EQ(iv[k], std::isinf(xs[k])) << w;
      EXPECT_EQ(fv[k], std::isfinite(xs[k])) << w;
      EXPECT_EQ(lv[k], xs[k] == 0) << w;
    }
  }
}

TEST_P(Elementwise, UnarySpecialValues) {
  for (Dtype t : kFloats) {
    if (skip(t)) continue;
    const Tensor x = make1({0.0, kInf, -kInf, kNaN, -1.0}, t, device());
    // want has one entry per input; a NaN entry in `skip` positions is not checked.
    auto check = [&](const Tensor& y, std::vector<double> want, const char* op) {
      const auto got = values(y);
      for (size_t i = 0; i < want.size(); ++i) expect_same(got[i], want[i], ctx(op, t, static_cast<double>(i)));
    };
    check(exp(x), {1, kInf, 0, kNaN}, "exp");
    check(expm1(x), {0, kInf, -1, kNaN}, "expm1");
    check(log(x), {-kInf, kInf, kNaN, kNaN, kNaN}, "log");
    check(log1p(x), {0, kInf, kNaN, kNaN, -kInf}, "log1p");
    check(sqrt(x), {0, kInf, kNaN, kNaN, kNaN}, "sqrt");
    check(rsqrt(x), {kInf, 0, kNaN, kNaN, kNaN}, "rsqrt");
    check(sigmoid(x), {0.5, 1, 0, kNaN}, "sigmoid");
    check(tanh(x), {0, 1, -1, kNaN}, "tanh");
    check(erf(x), {0, 1, -1, kNaN}, "erf");
    check(gelu(x), {0, kInf, -0.0, kNaN}, "gelu");  // the limit at -inf is -0
    check(reciprocal(x), {kInf, 0, -0.0, kNaN, -1}, "reciprocal");
    check(relu(x), {0, kInf, 0, kNaN, 0}, "relu");
    check(sign(x), {0, 1, -1, kNaN, -1}, "sign");
    check(floor(x), {0, kInf, -kInf, kNaN, -1}, "floor");
  }
}

TEST_P(Elementwise, Cast) {
  const Tensor x = make1({-2.7, -0.5, 0.5, 1e10, kNaN, 300.0}, float32, device());
  const Tensor i = cast(x, int32);
  EXPECT_EQ(i.dtype(), int32);
  EXPECT_EQ(i.to_vector<int64_t>(), (std::vector<int64_t>{-2, 0, 0, 2147483647, 0, 300}));
  EXPECT_EQ(cast(x, bool_).to_vector<bool>(), (std::vector<bool>{true, true, true, true, true, true}));
  EXPECT_EQ(values(cast(make1({1, 2049}, int32, device()), float16)), (std::vector<double>{1, 2048}));
}

}  // namespace

CONCORD_INSTANTIATE_DEVICES(Elementwise);
