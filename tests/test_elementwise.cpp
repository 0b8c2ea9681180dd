// Elementwise ops as a whole on every device configuration: broadcasting,
// scalars, views, empty and large tensors, where, clamp, add with alpha, the
// operators, errors, and the CPU fallback of a profiled-away kernel (error
// model: elementwise_checks.h).
#include "elementwise_checks.h"

namespace {

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
  // Issue 23: any bool operand raises, as PyTorch (bool - 2, float - True, 2 - bool).
  const Tensor mask = make1({1, 0}, bool_, device()), f = make1({1, 2}, float32, device());
  EXPECT_THROW(sub(mask, 2), DtypeError);
  EXPECT_THROW(sub(f, true), DtypeError);
  EXPECT_THROW(sub(f, mask), DtypeError);
  EXPECT_THROW(2 - mask, DtypeError);
  try {
    (void)sub(f, mask);
  } catch (const DtypeError& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("[sub]", 0), 0u) << m;
    EXPECT_NE(m.find("bool[2]"), std::string::npos) << m;
    EXPECT_NE(m.find("logical_not"), std::string::npos) << m;
    EXPECT_NE(m.find(device().str()), std::string::npos) << m;
  }
  EXPECT_EQ(values(sub(f, 1)), (std::vector<double>{0, 1}));  // numbers still fine
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
