// Elementwise ops on every device configuration and dtype, against float64
// references computed here with <cmath> on host data.
//
// Error model: ops that IEEE rounds correctly (add, sub, mul, div, sqrt,
// reciprocal, remainder, rounding, min/max...) must give exactly the float64
// result rounded once to the dtype, for float16/bfloat16 too (float32 has
// enough bits that rounding twice is harmless for these). Transcendentals
// must be within a few ULPs (one ULP for float16/bfloat16). Integers are exact,
// with two's-complement wrap-around.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "concord/concord.h"
#include "support/devices.h"

using namespace concord;

namespace {

const Dtype kFloats[] = {float16, bfloat16, float32, float64};
const Dtype kInts[] = {uint8, int8, int16, int32, int64};
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// ---- host reference helpers ----

// double -> float, truncating and forcing the last bit to 1 when inexact, so a
// second rounding to a narrower format is correct (round to odd).
float round_odd(double v) {
  float f = static_cast<float>(v);
  if (std::isnan(v) || static_cast<double>(f) == v) return f;
  if (std::fabs(static_cast<double>(f)) > std::fabs(v)) f = std::nextafter(f, 0.0f);
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u |= 1u;
  std::memcpy(&f, &u, 4);
  return f;
}

int64_t wrap(int64_t v, Dtype t) {
  const uint64_t u = static_cast<uint64_t>(v);
  switch (t) {
    case Dtype::uint8: return static_cast<uint8_t>(u);
    case Dtype::int8: return static_cast<int8_t>(u);
    case Dtype::int16: return static_cast<int16_t>(u);
    case Dtype::int32: return static_cast<int32_t>(u);
    default: return v;
  }
}

// v rounded once (correctly) to dtype t; integers wrap, bool is v != 0.
double round_to(double v, Dtype t) {
  switch (t) {
    case Dtype::float64: return v;
    case Dtype::float32: return static_cast<float>(v);
    case Dtype::float16: return static_cast<float>(float16_t(round_odd(v)));
    case Dtype::bfloat16: return static_cast<float>(bfloat16_t(round_odd(v)));
    case Dtype::bool_: return v != 0;
    default: return static_cast<double>(wrap(static_cast<int64_t>(v), t));
  }
}

// Spacing of dtype t's values at |v|.
double ulp(double v, Dtype t) {
  int mant = 52, min_exp = -1022;
  if (t == float32) { mant = 23; min_exp = -126; }
  if (t == float16) { mant = 10; min_exp = -14; }
  if (t == bfloat16) { mant = 7; min_exp = -126; }
  const int e = v == 0 ? min_exp : std::max(std::ilogb(v), min_exp);
  return std::ldexp(1.0, e - mant);
}

// Machine epsilon of the type the dtype computes in (float32 for halves).
double compute_eps(Dtype t) { return t == float64 ? 0x1p-52 : 0x1p-23; }

// A tensor of dtype t holding the values v (which must be representable in t).
Tensor make(const std::vector<double>& v, Shape shape, Dtype t, const Device& d) {
  std::vector<unsigned char> buf(v.size() * itemsize(t) + 1);
  visit_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    T* p = reinterpret_cast<T*>(buf.data());
    for (size_t i = 0; i < v.size(); ++i) {
      if constexpr (std::is_same_v<T, float16_t> || std::is_same_v<T, bfloat16_t>) p[i] = T(static_cast<float>(v[i]));
      else if constexpr (std::is_floating_point_v<T>) p[i] = static_cast<T>(v[i]);
      else if constexpr (std::is_same_v<T, bool>) p[i] = v[i] != 0;
      else p[i] = static_cast<T>(static_cast<int64_t>(v[i]));
    }
  });
  return from_host(buf.data(), std::move(shape), t, d);
}
Tensor make1(const std::vector<double>& v, Dtype t, const Device& d) {
  return make(v, Shape{static_cast<int64_t>(v.size())}, t, d);
}

// n values spread over [lo, hi] (deterministic, irregular), rounded to t.
std::vector<double> spread(int n, double lo, double hi, Dtype t, uint32_t seed = 1) {
  std::vector<double> v(n);
  uint32_t s = seed * 2654435761u + 12345u;
  for (int i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    const double u = (s >> 8) / 16777216.0;
    v[i] = round_to(lo + (hi - lo) * u, t);
  }
  return v;
}

std::vector<double> values(const Tensor& t) { return t.to_vector<double>(); }

void expect_same(double got, double want, const std::string& what) {
  if (std::isnan(want)) EXPECT_TRUE(std::isnan(got)) << what << ": got " << got << ", want NaN";
  else EXPECT_EQ(got, want) << what;
}

// |got - want| <= ulps ULPs of t at want, plus abs_tol.
void expect_near(double got, double want, Dtype t, double ulps, double abs_tol, const std::string& what) {
  if (std::isnan(want)) { EXPECT_TRUE(std::isnan(got)) << what << ": got " << got; return; }
  if (std::isinf(want)) { EXPECT_EQ(got, want) << what; return; }
  EXPECT_LE(std::fabs(got - want), ulps * ulp(want, t) + abs_tol) << what << ": got " << got << ", want " << want;
}

std::string ctx(const char* op, Dtype t, double x) {
  return std::string(op) + "(" + std::to_string(x) + ") in " + std::string(name(t));
}

class Elementwise : public test::DeviceTest {
 protected:
  bool skip(Dtype t) const { return !capabilities(device()).can_store(t); }
};

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

// ---------------- binary ----------------

using BinFn = Tensor (*)(const Tensor&, const Tensor&);
struct BinaryCase {
  const char* name;
  BinFn fn;
  double (*ref)(double, double);
  double alo, ahi, blo, bhi;
  double ulps;  // 0: exact
};

double py_mod(double a, double b) {
  double m = std::fmod(a, b);
  if (m != 0 && ((b < 0) != (m < 0))) m += b;
  return m;
}
// The floor of the exact quotient (long double: 64-bit quotients floor exactly for these inputs).
double py_floordiv(double a, double b) {
  if (b == 0) return a / b;
  const double q = static_cast<double>(std::floor(static_cast<long double>(a) / b));
  return q == 0 ? std::copysign(0.0, a / b) : q;
}
double ref_max(double a, double b) { return std::isnan(a) || std::isnan(b) ? kNaN : std::max(a, b); }
double ref_min(double a, double b) { return std::isnan(a) || std::isnan(b) ? kNaN : std::min(a, b); }

const BinaryCase kFloatBinary[] = {
    {"add", [](const Tensor& a, const Tensor& b) { return add(a, b); }, [](double a, double b) { return a + b; }, -100, 100, -1e3, 1e3, 0},
    {"sub", [](const Tensor& a, const Tensor& b) { return sub(a, b); }, [](double a, double b) { return a - b; }, -100, 100, -0.01, 0.01, 0},
    {"mul", [](const Tensor& a, const Tensor& b) { return mul(a, b); }, [](double a, double b) { return a * b; }, -100, 100, -3, 3, 0},
    {"div", [](const Tensor& a, const Tensor& b) { return div(a, b); }, [](double a, double b) { return a / b; }, -100, 100, -3, 3, 0},
    {"maximum", [](const Tensor& a, const Tensor& b) { return maximum(a, b); }, ref_max, -10, 10, -10, 10, 0},
    {"minimum", [](const Tensor& a, const Tensor& b) { return minimum(a, b); }, ref_min, -10, 10, -10, 10, 0},
    {"remainder", [](const Tensor& a, const Tensor& b) { return remainder(a, b); }, py_mod, -100, 100, -7, 7, 0},
    {"floor_divide", [](const Tensor& a, const Tensor& b) { return floor_divide(a, b); }, py_floordiv, -100, 100, -7, 7, 0},
    {"pow", [](const Tensor& a, const Tensor& b) { return pow(a, b); }, [](double a, double b) { return std::pow(a, b); }, 0.1, 10, -3, 3, 4},
    {"atan2", [](const Tensor& a, const Tensor& b) { return atan2(a, b); }, [](double a, double b) { return std::atan2(a, b); }, -10, 10, -10, 10, 4},
};

TEST_P(Elementwise, BinaryFloat) {
  for (Dtype t : kFloats) {
    if (skip(t)) continue;
    for (const BinaryCase& c : kFloatBinary) {
      const auto as = spread(301, c.alo, c.ahi, t, 3), bs = spread(301, c.blo, c.bhi, t, 4);
      const Tensor y = c.fn(make1(as, t, device()), make1(bs, t, device()));
      ASSERT_EQ(y.dtype(), t) << c.name;
      const auto ys = values(y);
      for (size_t i = 0; i < as.size(); ++i) {
        const std::string w = std::string(c.name) + "(" + std::to_string(as[i]) + ", " + std::to_string(bs[i]) + ") in " +
                              std::string(name(t));
        if (c.ulps == 0) expect_same(ys[i], round_to(c.ref(as[i], bs[i]), t), w);
        else expect_near(ys[i], c.ref(as[i], bs[i]), t, is_half(t) ? 1 : c.ulps, 0, w);
      }
    }
  }
}

TEST_P(Elementwise, BinaryFloatSpecialValues) {
  for (Dtype t : kFloats) {
    if (skip(t)) continue;
    const Tensor a = make1({kNaN, 1.0, kNaN, kInf, 1.0, -1.0, 0.0, 5.0, -5.0, 5.0, -0.0}, t, device());
    const Tensor b = make1({1.0, kNaN, kNaN, 1.0, 0.0, 0.0, 0.0, -3.0, 3.0, 0.0, 0.0}, t, device());
    auto check = [&](const Tensor& y, std::vector<double> want, const char* op) {
      const auto got = values(y);
      for (size_t i = 0; i < want.size(); ++i) expect_same(got[i], want[i], ctx(op, t, static_cast<double>(i)));
    };
    check(maximum(a, b), {kNaN, kNaN, kNaN, kInf, 1, 0, 0, 5, 3, 5}, "maximum");
    check(minimum(a, b), {kNaN, kNaN, kNaN, 1, 0, -1, 0, -3, -5, 0}, "minimum");
    check(div(a, b), {kNaN, kNaN, kNaN, kInf, kInf, -kInf, kNaN}, "div");
    check(remainder(a, b), {kNaN, kNaN, kNaN, kNaN, kNaN, kNaN, kNaN, -1, 1, kNaN}, "remainder");
    EXPECT_EQ(eq(a, b).to_vector<bool>(), (std::vector<bool>{0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1}));
    EXPECT_EQ(ne(a, b).to_vector<bool>(), (std::vector<bool>{1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 0}));
    EXPECT_EQ(lt(a, b).to_vector<bool>(), (std::vector<bool>{0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0}));
    EXPECT_EQ(ge(a, b).to_vector<bool>(), (std::vector<bool>{0, 0, 0, 1, 1, 0, 1, 1, 0, 1, 1}));
  }
}

int64_t ref_int_pow(int64_t a, int64_t b) {
  if (b < 0) return a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0;
  int64_t r = 1;
  for (int64_t i = 0; i < b; ++i) r *= a;
  return r;
}
int64_t ref_int_mod(int64_t a, int64_t b) {
  if (b == 0) return 0;
  int64_t m = a % b;
  if (m != 0 && ((m < 0) != (b < 0))) m += b;
  return m;
}

TEST_P(Elementwise, BinaryInteger) {
  for (Dtype t : kInts) {
    const double lo = t == uint8 ? 0 : t == int8 ? -128 : -30000, hi = t == uint8 ? 255 : t == int8 ? 127 : 30000;
    auto as = spread(203, lo, hi, float64, 5), bs = spread(203, lo, hi, float64, 6);
    for (double& v : as) v = std::trunc(v);
    for (double& v : bs) v = std::trunc(v);
    bs[0] = 0;  // remainder by zero
    bs[1] = -1;
    if (t == uint8) bs[1] = 1;
    as[1] = lo;
    const Tensor a = make1(as, t, device()), b = make1(bs, t, device());
    const auto sum = add(a, b).to_vector<int64_t>(), dif = sub(a, b).to_vector<int64_t>(),
               prd = mul(a, b).to_vector<int64_t>(), mx = maximum(a, b).to_vector<int64_t>(),
               mn = minimum(a, b).to_vector<int64_t>(), md = remainder(a, b).to_vector<int64_t>(),
               fd = floor_divide(a, b).to_vector<int64_t>();
    const Tensor q = div(a, b);
    ASSERT_EQ(q.dtype(), float32);
    const auto qv = values(q);
    for (size_t i = 0; i < as.size(); ++i) {
      const int64_t x = static_cast<int64_t>(as[i]), y = static_cast<int64_t>(bs[i]);
      const std::string w = std::to_string(x) + ", " + std::to_string(y) + " in " + std::string(name(t));
      EXPECT_EQ(sum[i], wrap(x + y, t)) << "add " << w;
      EXPECT_EQ(dif[i], wrap(x - y, t)) << "sub " << w;
      EXPECT_EQ(prd[i], wrap(x * y, t)) << "mul " << w;
      EXPECT_EQ(mx[i], std::max(x, y)) << "maximum " << w;
      EXPECT_EQ(mn[i], std::min(x, y)) << "minimum " << w;
      EXPECT_EQ(md[i], ref_int_mod(x, y)) << "remainder " << w;
      // Python's //, 0 for a zero divisor, and x == q*y + r with remainder's r.
      const int64_t want_q = y == 0 ? 0 : wrap(x / y - ((x % y != 0 && ((x < 0) != (y < 0))) ? 1 : 0), t);
      EXPECT_EQ(fd[i], want_q) << "floor_divide " << w;
      if (y != 0) EXPECT_EQ(wrap(fd[i] * y + md[i], t), x) << "floor_divide * y + remainder " << w;
      expect_same(qv[i], round_to(static_cast<double>(x) / static_cast<double>(y), float32), "div " + w);
    }
    // Integer powers (wrapping), and negative exponents for signed types.
    std::vector<double> bases = {0, 1, 2, 3, 5, 10, 7}, exps = {0, 1, 2, 3, 4, 5, 9};
    if (t != uint8) {
      bases.insert(bases.end(), {-1, -1, 2, 0, 1, -2});
      exps.insert(exps.end(), {-3, -2, -1, -1, -5, 3});
    }
    const auto pv = pow(make1(bases, t, device()), make1(exps, t, device())).to_vector<int64_t>();
    for (size_t i = 0; i < bases.size(); ++i)
      EXPECT_EQ(pv[i], wrap(ref_int_pow(static_cast<int64_t>(bases[i]), static_cast<int64_t>(exps[i])), t))
          << "pow(" << bases[i] << ", " << exps[i] << ") in " << name(t);
  }
  // int64 wraps too, and min % -1 does not trap.
  const int64_t big = std::numeric_limits<int64_t>::max(), small = std::numeric_limits<int64_t>::min();
  const Tensor m = tensor(std::vector<int64_t>{big, small}, device());
  EXPECT_EQ(add(m, 1).to_vector<int64_t>(), (std::vector<int64_t>{small, small + 1}));
  EXPECT_EQ(mul(m, 2).to_vector<int64_t>(), (std::vector<int64_t>{-2, 0}));
  EXPECT_EQ(remainder(m, -1).to_vector<int64_t>(), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(remainder(m, 0).to_vector<int64_t>(), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(floor_divide(m, -1).to_vector<int64_t>(), (std::vector<int64_t>{-big, small}));  // min // -1 wraps
  EXPECT_EQ(floor_divide(m, 0).to_vector<int64_t>(), (std::vector<int64_t>{0, 0}));
}

// floor_divide on floats floors the exact quotient, where floor(a / b) would
// floor the rounded one: 1 / 0.1 is 10.000000000000000555 exactly... rounded
// to 10, but 1 // 0.1 is 9 since 0.1 (a double) is slightly above 1/10.
TEST_P(Elementwise, FloorDivideFloorsTheExactQuotient) {
  for (Dtype t : {float32, float64, float16, bfloat16}) {
    if (!test::can_store(GetParam(), t)) continue;
    const Tensor a = make1({1.0, -1.0, 7.5, -7.5, 0.0, -0.0, 5.0, 1.0}, t, device());
    const Tensor b = make1({0.1, 0.1, -2.0, -2.0, 3.0, 3.0, 0.0, -0.0}, t, device());
    const auto q = values(floor_divide(a, b));
    const auto av = values(a), bv = values(b);
    for (size_t i = 0; i < q.size(); ++i)
      expect_same(q[i], round_to(py_floordiv(av[i], bv[i]), t), "floor_divide " + std::to_string(av[i]) + " // " +
                                                                    std::to_string(bv[i]) + " in " + std::string(name(t)));
  }
  EXPECT_THROW(floor_divide(make1({1.0}, bool_, device()), true), DtypeError);  // as PyTorch: not for bool
}

TEST_P(Elementwise, Comparisons) {
  for (Dtype t : kAllDtypes) {
    if (skip(t)) continue;
    std::vector<double> as = {0, 1, 2, 3, 5, 0, 1}, bs = {0, 2, 2, 1, 7, 1, 0};
    if (t == bool_) { as = {0, 0, 1, 1}; bs = {0, 1, 0, 1}; }
    if (is_floating(t)) { as.push_back(-1.5); bs.push_back(-2.5); }
    const Tensor a = make1(as, t, device()), b = make1(bs, t, device());
    const auto e = eq(a, b).to_vector<bool>(), n = ne(a, b).to_vector<bool>(), l = lt(a, b).to_vector<bool>(),
               le_ = le(a, b).to_vector<bool>(), g = gt(a, b).to_vector<bool>(), ge_ = ge(a, b).to_vector<bool>();
    for (size_t i = 0; i < as.size(); ++i) {
      const std::string w = std::to_string(as[i]) + " vs " + std::to_string(bs[i]) + " in " + std::string(name(t));
      EXPECT_EQ(e[i], as[i] == bs[i]) << w;
      EXPECT_EQ(n[i], as[i] != bs[i]) << w;
      EXPECT_EQ(l[i], as[i] < bs[i]) << w;
      EXPECT_EQ(le_[i], as[i] <= bs[i]) << w;
      EXPECT_EQ(g[i], as[i] > bs[i]) << w;
      EXPECT_EQ(ge_[i], as[i] >= bs[i]) << w;
    }
  }
  // Mixed dtypes compare in the promoted dtype: int64 against a float number compares in float32.
  const Tensor big = tensor(std::vector<int64_t>{16777217, 3}, device());
  EXPECT_EQ(eq(big, 16777216.0).to_vector<bool>(), (std::vector<bool>{true, false}));
  EXPECT_EQ(eq(big, int64_t{16777216}).to_vector<bool>(), (std::vector<bool>{false, false}));
  EXPECT_EQ(lt(make1({1, 2, 3}, int32, device()), 2.5).to_vector<bool>(), (std::vector<bool>{true, true, false}));
  EXPECT_EQ(gt(2, make1({1, 2, 3}, uint8, device())).to_vector<bool>(), (std::vector<bool>{true, false, false}));
}

TEST_P(Elementwise, LogicalOps) {
  for (Dtype ta : kAllDtypes) {
    for (Dtype tb : {bool_, int32, float16, float32}) {
      if (skip(ta)) continue;
      const std::vector<double> as = {0, 1, 0, 1, 2, 0}, bs = {0, 0, 1, 1, 1, 0};
      const std::vector<double> av = ta == bool_ ? std::vector<double>{0, 1, 0, 1, 1, 0} : as;
      const Tensor a = make1(av, ta, device()), b = make1(bs, tb, device());
      const auto x = logical_and(a, b).to_vector<bool>(), o = logical_or(a, b).to_vector<bool>(),
                 r = logical_xor(a, b).to_vector<bool>();
      for (size_t i = 0; i < as.size(); ++i) {
        const bool p = av[i] != 0, q = bs[i] != 0;
        EXPECT_EQ(x[i], p && q) << name(ta) << " and " << name(tb);
        EXPECT_EQ(o[i], p || q) << name(ta) << " or " << name(tb);
        EXPECT_EQ(r[i], p != q) << name(ta) << " xor " << name(tb);
      }
    }
  }
  const Tensor f = make1({0.5, 0.0, kNaN}, float32, device());
  EXPECT_EQ(logical_and(f, 1).to_vector<bool>(), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(logical_or(false, f).to_vector<bool>(), (std::vector<bool>{true, false, true}));
}

TEST_P(Elementwise, BoolArithmetic) {
  const Tensor a = make1({0, 0, 1, 1}, bool_, device()), b = make1({0, 1, 0, 1}, bool_, device());
  const Tensor s = add(a, b), p = mul(a, b), mx = maximum(a, b), mn = minimum(a, b);
  for (const Tensor* r : {&s, &p, &mx, &mn}) EXPECT_EQ(r->dtype(), bool_);
  EXPECT_EQ(s.to_vector<bool>(), (std::vector<bool>{false, true, true, true}));
  EXPECT_EQ(p.to_vector<bool>(), (std::vector<bool>{false, false, false, true}));
  EXPECT_EQ(mx.to_vector<bool>(), (std::vector<bool>{false, true, true, true}));
  EXPECT_EQ(mn.to_vector<bool>(), (std::vector<bool>{false, false, false, true}));
  EXPECT_EQ(sign(a).to_vector<bool>(), (std::vector<bool>{false, false, true, true}));
  EXPECT_EQ(add(a, 1).to_vector<int64_t>(), (std::vector<int64_t>{1, 1, 2, 2}));
  EXPECT_THROW(sub(a, b), DtypeError);
  EXPECT_THROW(neg(a), DtypeError);
}

// ---------------- shapes, views, scalars ----------------

TEST_P(Elementwise, Broadcasting) {
  for (Dtype t : {float32, float16, int32}) {
    const Tensor a = make({1, 2, 3}, {3, 1}, t, device());
    const Tensor b = make({10, 20, 30, 40}, {4}, t, device());
    const Tensor y = add(a, b);
    ASSERT_EQ(y.shape(), (Shape{3, 4}));
    std::vector<double> want;
    for (double x : {1, 2, 3})
      for (double z : {10, 20, 30, 40}) want.push_back(x + z);
    EXPECT_EQ(values(y), want) << name(t);
    EXPECT_EQ(values(sub(b, a)).size(), 12u);
    // [2,1,3] * [4,1] -> [2,4,3]
    const Tensor c = make({1, 2, 3, 4, 5, 6}, {2, 1, 3}, t, device());
    const Tensor d = make({1, 2, 3, 4}, {4, 1}, t, device());
    const Tensor m = mul(c, d);
    ASSERT_EQ(m.shape(), (Shape{2, 4, 3}));
    const auto mv = values(m);
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 4; ++j)
        for (int k = 0; k < 3; ++k) EXPECT_EQ(mv[(i * 4 + j) * 3 + k], (i * 3 + k + 1) * (j + 1));
    // 0-dim tensors broadcast against anything and keep 0-dim results 0-dim.
    const Tensor z = make({5}, {}, t, device());
    EXPECT_EQ(add(z, b).shape(), (Shape{4}));
    EXPECT_EQ(values(add(z, b)), (std::vector<double>{15, 25, 35, 45}));
    const Tensor zz = mul(z, z);
    EXPECT_EQ(zz.ndim(), 0);
    EXPECT_EQ(zz.item<double>(), 25);
    EXPECT_EQ(exp(make({0}, {}, float32, device())).item<float>(), 1.0f);
  }
}

TEST_P(Elementwise, ScalarsOnEitherSide) {
  const Tensor x = make1({1, 2, 4}, float32, device());
  EXPECT_EQ(values(sub(x, 2)), (std::vector<double>{-1, 0, 2}));
  EXPECT_EQ(values(sub(2, x)), (std::vector<double>{1, 0, -2}));
  EXPECT_EQ(values(div(1, x)), (std::vector<double>{1, 0.5, 0.25}));
  EXPECT_EQ(values(pow(2, x)), (std::vector<double>{2, 4, 16}));
  EXPECT_EQ(values(pow(x, 2)), (std::vector<double>{1, 4, 16}));
  EXPECT_EQ(values(maximum(2.5, x)), (std::vector<double>{2.5, 2.5, 4}));
  EXPECT_EQ(values(remainder(-7, x)), (std::vector<double>{0, 1, 1}));
  const Tensor i = make1({1, 2, 4}, int32, device());
  const Tensor h = add(i, 2.5);
  EXPECT_EQ(h.dtype(), float32);
  EXPECT_EQ(values(h), (std::vector<double>{3.5, 4.5, 6.5}));
  const Tensor q = div(i, 2);
  EXPECT_EQ(q.dtype(), float32);
  EXPECT_EQ(values(q), (std::vector<double>{0.5, 1, 2}));
  // A number follows the tensor's dtype: 0.1 becomes the nearest float16.
  const Tensor f = add(make1({0}, float16, device()), 0.1);
  EXPECT_EQ(f.dtype(), float16);
  EXPECT_EQ(values(f)[0], round_to(0.1, float16));
  EXPECT_THROW(add(Operand(1), Operand(2)), ValueError);
}

TEST_P(Elementwise, NonContiguousInputs) {
  for (Dtype t : kFloats) {
    if (skip(t)) continue;
    std::vector<double> xs(12), ys(12);
    for (int i = 0; i < 12; ++i) { xs[i] = i * 0.75; ys[i] = 100 - i; }
    const Tensor x = make(xs, {3, 4}, t, device()).transpose(0, 1);  // [4, 3], strides [1, 4]
    const Tensor y = make(ys, {4, 3}, t, device());
    const auto s = values(add(x, y)), m = values(maximum(y, x)), e = values(exp(x));
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 3; ++j) {
        const double xv = xs[j * 4 + i], yv = ys[i * 3 + j];
        EXPECT_EQ(s[i * 3 + j], round_to(xv + yv, t)) << name(t);
        EXPECT_EQ(m[i * 3 + j], std::max(xv, yv)) << name(t);
        expect_near(e[i * 3 + j], std::exp(xv), t, is_half(t) ? 1 : 4, 0, ctx("exp", t, xv));
      }
    // Slices with a step; a transposed operand against an expanded one.
    const Tensor v = make1(xs, t, device()).slice(0, 1, std::nullopt, 3);  // 1, 4, 7, 10
    EXPECT_EQ(values(mul(v, 2)), (std::vector<double>{round_to(xs[1] * 2, t), round_to(xs[4] * 2, t),
                                                      round_to(xs[7] * 2, t), round_to(xs[10] * 2, t)}));
    EXPECT_EQ(values(neg(v)), (std::vector<double>{-xs[1], -xs[4], -xs[7], -xs[10]}));
    const Tensor col = make({1, 2, 3, 4}, {4, 1}, t, device()).expand({4, 3});
    const auto r = values(sub(x, col));
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 3; ++j) EXPECT_EQ(r[i * 3 + j], round_to(xs[j * 4 + i] - (i + 1), t));
  }
}

TEST_P(Elementwise, EmptyTensors) {
  const Tensor e = zeros({0, 3}, float32, device());
  const Tensor b = make1({1, 2, 3}, float32, device());
  const Tensor s = add(e, b);
  EXPECT_EQ(s.shape(), (Shape{0, 3}));
  EXPECT_EQ(s.numel(), 0);
  EXPECT_EQ(exp(e).shape(), (Shape{0, 3}));
  EXPECT_EQ(isnan(e).dtype(), bool_);
  EXPECT_EQ(mul(zeros({2, 0}, int32, device()), 3).shape(), (Shape{2, 0}));
  EXPECT_EQ(where(zeros({0}, bool_, device()), 1.0, 2.0).shape(), (Shape{0}));
  EXPECT_EQ(clamp(e, 0, 1).shape(), (Shape{0, 3}));
  EXPECT_THROW(add(e, zeros({2}, float32, device())), ShapeError);
}

TEST_P(Elementwise, LargeAndDeterministic) {
  // Large enough to run on several threads, with a length that is not a multiple of any block.
  const int n = 100003;
  const auto as = spread(n, -1000, 1000, float32, 7), bs = spread(n, -1, 1, float32, 8);
  const Tensor a = make1(as, float32, device()), b = make1(bs, float32, device());
  const auto s = values(add(a, b));
  for (int i = 0; i < n; ++i) {
    if (s[i] != round_to(as[i] + bs[i], float32)) {
      ADD_FAILURE() << "add at " << i << ": " << as[i] << " + " << bs[i] << " gave " << s[i];
      break;
    }
  }
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  const auto e1 = exp(b).to_vector<float>();
  const auto h1 = div(a.to(bfloat16), 3).to_vector<float>();
  omp_set_num_threads(std::max(2, saved));
  const auto e2 = exp(b).to_vector<float>();
  const auto h2 = div(a.to(bfloat16), 3).to_vector<float>();
  omp_set_num_threads(saved);
  EXPECT_EQ(0, std::memcmp(e1.data(), e2.data(), e1.size() * sizeof(float)));
  EXPECT_EQ(0, std::memcmp(h1.data(), h2.data(), h1.size() * sizeof(float)));
}

// ---------------- where, clamp, add with alpha, operators ----------------

TEST_P(Elementwise, Where) {
  for (Dtype t : kAllDtypes) {
    if (skip(t)) continue;
    const Tensor c = make1({1, 0, 1, 0}, bool_, device());
    const std::vector<double> as = t == bool_ ? std::vector<double>{1, 1, 0, 0} : std::vector<double>{1, 2, 3, 4};
    const std::vector<double> bs = t == bool_ ? std::vector<double>{0, 0, 1, 1} : std::vector<double>{5, 6, 7, 8};
    const Tensor y = where(c, make1(as, t, device()), make1(bs, t, device()));
    EXPECT_EQ(y.dtype(), t);
    EXPECT_EQ(values(y), (std::vector<double>{as[0], bs[1], as[2], bs[3]})) << name(t);
  }
  // Broadcasting cond [3,1] with a [4] and a number; promotion int32 with 2.5 -> float32.
  const Tensor c = make({1, 0, 1}, {3, 1}, bool_, device());
  const Tensor a = make1({1, 2, 3, 4}, int32, device());
  const Tensor y = where(c, a, 2.5);
  EXPECT_EQ(y.dtype(), float32);
  EXPECT_EQ(y.shape(), (Shape{3, 4}));
  EXPECT_EQ(values(y), (std::vector<double>{1, 2, 3, 4, 2.5, 2.5, 2.5, 2.5, 1, 2, 3, 4}));
  EXPECT_EQ(values(where(c.squeeze(1), 1, 0)), (std::vector<double>{1, 0, 1}));
  const Tensor tr = make({1, 2, 3, 4, 5, 6}, {2, 3}, float32, device()).t();  // non-contiguous [3, 2]
  EXPECT_EQ(values(where(c, tr, -1.0)), (std::vector<double>{1, 4, -1, -1, 3, 6}));
  EXPECT_THROW(where(make1({1, 0}, int32, device()), 1, 0), DtypeError);
}

TEST_P(Elementwise, Clamp) {
  for (Dtype t : kFloats) {
    if (skip(t)) continue;
    const Tensor x = make1({-3, -0.5, 0.25, 2, kNaN, kInf}, t, device());
    EXPECT_EQ(clamp(x, -1, 1).dtype(), t);
    const auto both = values(clamp(x, -1, 1)), lo = values(clamp(x, 0, std::nullopt)),
               hi = values(clamp(x, std::nullopt, 0.5)), swapped = values(clamp(x, 2, 1)),
               nan_lo = values(clamp(x, kNaN, 1));
    const std::vector<double> w_both = {-1, -0.5, 0.25, 1, kNaN, 1}, w_lo = {0, 0, 0.25, 2, kNaN, kInf},
                              w_hi = {-3, -0.5, 0.25, 0.5, kNaN, 0.5};
    for (size_t i = 0; i < w_both.size(); ++i) {
      expect_same(both[i], w_both[i], ctx("clamp", t, static_cast<double>(i)));
      expect_same(lo[i], w_lo[i], ctx("clamp lo", t, static_cast<double>(i)));
      expect_same(hi[i], w_hi[i], ctx("clamp hi", t, static_cast<double>(i)));
      expect_same(swapped[i], i == 4 ? kNaN : 1, ctx("clamp lo>hi", t, static_cast<double>(i)));
      EXPECT_TRUE(std::isnan(nan_lo[i])) << ctx("clamp nan bound", t, static_cast<double>(i));
    }
  }
  for (Dtype t : kInts) {
    const Tensor x = make1({0, 5, 100, 127}, t, device());
    EXPECT_EQ(clamp(x, 3, 1000).dtype(), t);
    EXPECT_EQ(values(clamp(x, 3, 1000)), (std::vector<double>{3, 5, 100, 127})) << name(t);
    EXPECT_EQ(values(clamp(x, -1000, 50)), (std::vector<double>{0, 5, 50, 50})) << name(t);
  }
  const Tensor i = make1({0, 1, 2, 3}, int32, device());
  const Tensor f = clamp(i, 0.5, 2.5);
  EXPECT_EQ(f.dtype(), float32);
  EXPECT_EQ(values(f), (std::vector<double>{0.5, 1, 2, 2.5}));
  EXPECT_THROW(clamp(i, std::nullopt, std::nullopt), ValueError);
  // bool with integer bounds promotes to int64 (as PyTorch); with bool bounds it stays bool, which clamp lacks.
  const Tensor b = make1({0, 1}, bool_, device());
  EXPECT_EQ(clamp(b, 0, 1).dtype(), int64);
  EXPECT_EQ(clamp(b, 0, 1).to_vector<int64_t>(), (std::vector<int64_t>{0, 1}));
  EXPECT_THROW(clamp(b, false, true), DtypeError);
}

TEST_P(Elementwise, AddWithAlpha) {
  for (Dtype t : kFloats) {
    if (skip(t)) continue;
    const auto as = spread(50, -10, 10, t, 9), bs = spread(50, -10, 10, t, 10);
    const Tensor a = make1(as, t, device()), b = make1(bs, t, device());
    const auto y = values(add(a, b, 0.3)), m = values(add(a, b, -1)), o = values(add(a, b, 1));
    const Dtype w = t == float64 ? float64 : float32;  // the type the kernels compute in
    for (size_t i = 0; i < as.size(); ++i) {
      const double want = round_to(round_to(as[i] + round_to(round_to(0.3, w) * bs[i], w), w), t);
      expect_same(y[i], want, ctx("add alpha", t, as[i]));
      expect_same(m[i], round_to(as[i] - bs[i], t), ctx("add alpha -1", t, as[i]));
      expect_same(o[i], round_to(as[i] + bs[i], t), ctx("add alpha 1", t, as[i]));
    }
    EXPECT_EQ(add(a, b, 0.3).dtype(), t);
  }
  const Tensor i = make1({1, 2, 3}, int32, device());
  EXPECT_EQ(add(i, i, 3).to_vector<int64_t>(), (std::vector<int64_t>{4, 8, 12}));
  EXPECT_EQ(add(i, 2, 3).to_vector<int64_t>(), (std::vector<int64_t>{7, 8, 9}));
  EXPECT_EQ(add(i, 2, 3).dtype(), int32);
  EXPECT_EQ(add(1.5, i, 2).to_vector<double>(), (std::vector<double>{3.5, 5.5, 7.5}));
  const Tensor bb = make1({0, 1}, bool_, device());
  EXPECT_EQ(add(bb, make1({1, 1}, bool_, device()), false).to_vector<bool>(), (std::vector<bool>{false, true}));
  EXPECT_THROW(add(i, i, 0.5), ValueError);
}

TEST_P(Elementwise, Operators) {
  const Tensor x = make1({1, 2, 3}, float32, device()), y = make1({4, 5, 6}, float32, device());
  EXPECT_EQ(values(x + y), (std::vector<double>{5, 7, 9}));
  EXPECT_EQ(values(x - 1), (std::vector<double>{0, 1, 2}));
  EXPECT_EQ(values(1 - x), (std::vector<double>{0, -1, -2}));
  EXPECT_EQ(values(2 * x * y), (std::vector<double>{8, 20, 36}));
  EXPECT_EQ(values(y / 2), (std::vector<double>{2, 2.5, 3}));
  EXPECT_EQ(values(-x), (std::vector<double>{-1, -2, -3}));
  const Tensor i = make1({1, 2, 4}, int32, device());
  EXPECT_EQ((1 / i).dtype(), float32);
  EXPECT_EQ(values(1 / i), (std::vector<double>{1, 0.5, 0.25}));
  EXPECT_EQ((i + 1).dtype(), int32);
}

// ---------------- errors ----------------

TEST_P(Elementwise, Errors) {
  const Tensor a = make({1, 2, 3, 4, 5, 6}, {2, 3}, float32, device());
  const Tensor b = make1({1, 2, 3, 4}, int32, device());
  try {
    add(a, b);
    ADD_FAILURE() << "add of [2, 3] and [4] did not throw";
  } catch (const ShapeError& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("[add]", 0), 0u) << m;
    EXPECT_NE(m.find("float32[2, 3]"), std::string::npos) << m;
    EXPECT_NE(m.find("int32[4]"), std::string::npos) << m;
    EXPECT_NE(m.find(device().str()), std::string::npos) << m;
  }
  EXPECT_THROW(where(make1({1, 0, 1}, bool_, device()), a, b), ShapeError);
  EXPECT_THROW(maximum(b, make1({1, 2}, int32, device())), ShapeError);
  const Device other = device().is_cpu() ? Device("emu:0") : kCPU;
  const Tensor c = make1({1, 2, 3}, float32, other);
  EXPECT_THROW(add(a, c), DeviceError);
  EXPECT_THROW(where(make1({1, 0, 1}, bool_, other), b.slice(0, 0, 3), 1), DeviceError);
  EXPECT_THROW(sub(make1({1}, bool_, device()), true), DtypeError);
  EXPECT_THROW(add(Tensor(), 1), Error);
  // A failed op leaves its inputs as they were.
  EXPECT_EQ(values(a), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(values(b), (std::vector<double>{1, 2, 3, 4}));
}

// ---------------- adaptation: a profiled-away kernel runs on the CPU ----------------

TEST(ElementwiseProfile, ExpFallsBackToCpu) {
  const Device emu("emu:0");
  ProfileGuard g(emu, "no-op:exp");
  const Tensor x = make1({0, 1, -2, 0.5}, float32, emu);
  reset_warnings();
  reset_report();
  std::vector<std::string> warnings;
  WarningHandler prev = set_warning_handler([&](const std::string& m) { warnings.push_back(m); });
  const Tensor y = exp(x);
  const Tensor y2 = exp(x);  // warned once only
  set_warning_handler(prev);
  EXPECT_EQ(y.device(), emu);
  EXPECT_EQ(y.dtype(), float32);
  const auto v = values(y);
  const std::vector<double> xs = {0, 1, -2, 0.5};
  for (size_t i = 0; i < xs.size(); ++i) expect_near(v[i], std::exp(xs[i]), float32, 4, 0, ctx("exp", float32, xs[i]));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("[exp]"), std::string::npos) << warnings[0];
  const Report r = report();
  EXPECT_EQ(r.count("exp", Path::fallback), 2u);
  EXPECT_EQ(r.count("exp", "emu:0", float32, Path::fallback), 2u);
  EXPECT_GT(r.bytes("emu:0", "cpu"), 0u);
  EXPECT_GT(r.bytes("cpu", "emu:0"), 0u);
  // Ops the profile keeps still run natively there.
  reset_report();
  EXPECT_EQ(values(add(x, 1)), (std::vector<double>{1, 2, -1, 1.5}));
  EXPECT_EQ(report().count("add", "emu:0", float32, Path::native), 1u);
  {
    FallbackPolicyGuard strict(FallbackPolicy::strict);
    EXPECT_THROW(exp(x), NotImplementedError);
  }
  EXPECT_EQ(values(x), (std::vector<double>{0, 1, -2, 0.5}));
}

TEST(ElementwiseProfile, ExpFallbackCountedOnce) {
  const Device emu("emu:0");
  ProfileGuard g(emu, "no-op:exp");
  const Tensor x = make1({1, 2}, float32, emu);
  reset_warnings();
  reset_report();
  std::vector<std::string> warnings;
  WarningHandler prev = set_warning_handler([&](const std::string& m) { warnings.push_back(m); });
  const Tensor y = exp(x);
  set_warning_handler(prev);
  EXPECT_EQ(warnings.size(), 1u);
  EXPECT_EQ(report().count("exp", Path::fallback), 1u);
  EXPECT_GT(report().bytes("emu:0", "cpu"), 0u);
  EXPECT_EQ(y.device(), emu);
}
}  // namespace

CONCORD_INSTANTIATE_DEVICES(Elementwise);
