// Binary elementwise ops (arithmetic, Python remainder and floor division,
// comparisons, logical ops) on every device configuration and dtype, against
// float64 references (error model: elementwise_checks.h).
#include "elementwise_checks.h"

namespace {

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

// Issue 23 (found by the differential suite): (-1)^y for a huge even integer y is
// 1 (C99) on every device; the Vulkan shaders gave NaN (splitting y overflowed).
// sigmoid of a large negative input keeps its subnormal result: OpenCL without
// float64 gave 0 (1 / (1 + exp(100)) overflows in float).
TEST_P(Elementwise, PowOfMinusOneAndSigmoidTail) {
  for (Dtype t : kFloats) {
    if (skip(t)) continue;
    const double big = t == float16 ? 65504.0 : t == float64 ? 1.7976931348623157e308 : 3.3895313892515355e38;
    const Tensor a = make1({-1.0, -1.0, 1.0, -1.0}, t, device());
    const Tensor b = make1({big, -big, big, 2.0}, t, device());
    EXPECT_EQ(values(pow(a, b)), (std::vector<double>{1, 1, 1, 1})) << name(t);
  }
  if (!capabilities(device()).keeps_subnormals) return;
  const auto s = values(sigmoid(make1({-100.0, -90.0}, float32, device())));
  // Exact: 3.72e-44 and 8.19e-40, subnormal in float32; 4 ULPs of the subnormal spacing allowed.
  EXPECT_NEAR(s[0], 3.720075976020836e-44, 4 * 1.401298464324817e-45);
  EXPECT_NEAR(s[1], 8.194012623990515e-40, 4 * 1.401298464324817e-45);
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

}  // namespace

// NaN payloads: the first operand's NaN wins, then the second's, quieted and
// rounded to the dtype (the top payload bits kept), whatever order the compiler
// or the device's adder would pick. Checked bit for bit in contiguous,
// strided and broadcast layouts on devices that promise NaN bits
// (Capabilities::keeps_nan_payloads); elsewhere (OpenCL, Vulkan: NVIDIA's
// NaNs are all 0x7fff...) the result must still be a NaN.
template <class B>
std::vector<B> nan_bits(Dtype t) {
  const int w = static_cast<int>(itemsize(t)) * 8;
  const int mant = t == bfloat16 ? 7 : t == float16 ? 10 : t == float32 ? 23 : 52;
  const B sign = B(1) << (w - 1), quiet = B(1) << (mant - 1);
  const B exp = static_cast<B>((static_cast<B>(~B(0)) >> 1) & ~((B(1) << mant) - 1));
  const B one = static_cast<B>(exp & ~(B(1) << (w - 2)));  // 1.0 has the exponent's bits but the top
  // +qNaN, -qNaN, +qNaN with payload, -sNaN with payload, 1.0, -1.0 (as bits).
  return {B(exp | quiet), B(sign | exp | quiet), B(exp | quiet | 1), B(sign | exp | 3), one, B(sign | one)};
}

template <class B>
void check_nan_payloads(Dtype t, const Device& dev) {
  const int mant = t == bfloat16 ? 7 : t == float16 ? 10 : t == float32 ? 23 : 52;
  const B quiet = B(1) << (mant - 1);
  const std::vector<B> v = nan_bits<B>(t);
  const int64_t k = static_cast<int64_t>(v.size());
  std::vector<B> a, b;
  for (B x : v)
    for (B y : v) { a.push_back(x); b.push_back(y); }
  auto is_nan = [&](B x) { return (x & ~(B(1) << (itemsize(t) * 8 - 1))) > (v[0] & ~quiet); };
  const bool payloads = capabilities(dev).keeps_nan_payloads;
  auto nan_bits_ok = [&](B got, B want) { return payloads ? got == want : is_nan(got); };
  const int64_t n = k * k;
  const Tensor ta = from_host(a.data(), {n}, t).to(dev), tb = from_host(b.data(), {n}, t).to(dev);
  const std::pair<const char*, BinFn> ops[] = {{"add", [](const Tensor& x, const Tensor& y) { return add(x, y); }},
                                               {"sub", [](const Tensor& x, const Tensor& y) { return sub(x, y); }},
                                               {"mul", [](const Tensor& x, const Tensor& y) { return mul(x, y); }},
                                               {"div", [](const Tensor& x, const Tensor& y) { return div(x, y); }}};
  for (const auto& [nm, fn] : ops) {
    const Tensor layouts[] = {fn(ta, tb), fn(ta.view({k, k}).transpose(0, 1), tb.view({k, k}).transpose(0, 1)).transpose(0, 1).contiguous().view({n})};
    for (int l = 0; l < 2; ++l) {
      const Tensor h = layouts[l].to(kCPU).contiguous();
      const B* r = static_cast<const B*>(h.raw_data());
      for (int64_t i = 0; i < n; ++i) {
        if (!is_nan(a[i]) && !is_nan(b[i])) continue;
        const B want = static_cast<B>((is_nan(a[i]) ? a[i] : b[i]) | quiet);
        EXPECT_TRUE(nan_bits_ok(r[i], want)) << std::hex << +r[i] << " for 0x" << +want << std::dec << " " << nm << " " << name(t) << " layout " << l << " a=0x" << std::hex << +a[i] << " b=0x" << +b[i];
      }
    }
    // A broadcast scalar NaN as either operand.
    for (int64_t j = 0; j < 4; ++j) {
      const Tensor s = from_host(&v[j], {1}, t).to(dev);
      const Tensor h1 = fn(s, tb).to(kCPU), h2 = fn(ta, s).to(kCPU);
      for (int64_t i = 0; i < n; ++i) {
        EXPECT_TRUE(nan_bits_ok(static_cast<const B*>(h1.raw_data())[i], static_cast<B>(v[j] | quiet))) << nm << " " << name(t) << " scalar first " << j;
        const B w2 = static_cast<B>((is_nan(a[i]) ? a[i] : v[j]) | quiet);
        EXPECT_TRUE(nan_bits_ok(static_cast<const B*>(h2.raw_data())[i], w2)) << nm << " " << name(t) << " scalar second " << j << " i " << i << " a=0x" << std::hex << +a[i] << " w=0x" << +w2 << std::dec;
      }
    }
  }
  const Tensor sq = sqrt(ta).to(kCPU);
  for (int64_t i = 0; i < n; ++i)
    if (is_nan(a[i])) EXPECT_TRUE(nan_bits_ok(static_cast<const B*>(sq.raw_data())[i], static_cast<B>(a[i] | quiet))) << "sqrt " << name(t);
}

TEST_P(Elementwise, NaNPayloadOfTheFirstNaNOperand) {
  for (Dtype t : {float16, bfloat16}) {
    if (!skip(t)) check_nan_payloads<uint16_t>(t, device());
  }
  if (!skip(float32)) check_nan_payloads<uint32_t>(float32, device());
  if (!skip(float64)) check_nan_payloads<uint64_t>(float64, device());
}

CONCORD_INSTANTIATE_DEVICES(Elementwise);
