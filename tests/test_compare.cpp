// The comparison toolkit: compare/assert_close (PyTorch's semantics and
// message), tolerances, non-finite values, mismatches of shape, dtype and
// device, the gtest macros. Every expected number is worked out by hand or by
// plain host loops (testing_checks.h).
#include "testing_checks.h"

// ---------------------------------------------------------------------------
// Messages

TEST(Compare, ExactMessageSmall) {
  auto e = f32({1, 2, 3, 4, 5, 6}, {2, 3});
  auto a = f32({1.25f, 2, 3, 4, 5, 6.5f}, {2, 3});
  // (0, 0): |diff| 0.25, rel 0.25, 0.25 / 2^-23 = 2^21 ulps; (1, 2): 0.5, 0.5/6, 0.5 / 2^-21 = 2^20 ulps.
  const std::string want =
      "Tensor-likes are not close!\n\n"
      "Mismatched elements: 2 / 6 (33.3%)\n"
      "Greatest absolute difference: 0.5 at index (1, 2) (up to 1e-05 allowed)\n"
      "Greatest relative difference: 0.25 at index (0, 0) (up to 1.3e-06 allowed)\n"
      "Greatest ULP distance: 2097152 at index (0, 0)";
  auto c = ct::compare(a, e);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.mismatched, 2);
  EXPECT_EQ(c.total, 6);
  EXPECT_EQ(c.max_abs_diff, 0.5);
  EXPECT_EQ(c.max_abs_index, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(c.max_rel_diff, 0.25);
  EXPECT_EQ(c.max_rel_index, (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(c.max_ulp, 2097152u);
  EXPECT_EQ(c.message(), want);
  try {
    ct::assert_close(a, e);
    FAIL() << "assert_close did not throw";
  } catch (const ct::AssertionError& err) {
    EXPECT_EQ(std::string(err.what()), want);
  }
  EXPECT_THROW(ct::assert_close(a, e), concord::Error);
}

TEST(Compare, ExactMessageLarge) {
  // 96 x 80 = 7680 elements, 9 mismatches.
  std::vector<float> e(7680), a;
  for (size_t i = 0; i < e.size(); ++i) e[i] = static_cast<float>(i % 13) * 0.25f;
  a = e;
  auto at = [](int64_t i, int64_t j) { return static_cast<size_t>(i * 80 + j); };
  e[at(3, 17)] = 100.f;  // |diff| 3 * 2^-14, rel 1.83e-6 (> 1.3e-6 + 1e-5/100)
  a[at(3, 17)] = 100.f + 0.00018310546875f;
  e[at(5, 2)] = 0.000244140625f;  // 2^-12; diff 17 * 2^-18 = 0.265625 relative, 17 * 2^17 ulps
  a[at(5, 2)] = 0.000244140625f + 17.f * 0x1p-18f;
  for (int64_t i = 10; i < 17; ++i) {  // 7 small ones: diff 2^-15 at 1.0
    e[at(i, 0)] = 1.f;
    a[at(i, 0)] = 1.f + 0x1p-15f;
  }
  const std::string want =
      "Tensor-likes are not close!\n\n"
      "Mismatched elements: 9 / 7680 (0.1%)\n"
      "Greatest absolute difference: 0.00018310546875 at index (3, 17) (up to 1e-05 allowed)\n"
      "Greatest relative difference: 0.265625 at index (5, 2) (up to 1.3e-06 allowed)\n"
      "Greatest ULP distance: 2228224 at index (5, 2)";
  EXPECT_EQ(ct::compare(f32(a, {96, 80}), f32(e, {96, 80})).message(), want);
}

TEST(Compare, IndicesUnravelled) {
  std::vector<float> e(2 * 3 * 4, 1.f), a = e;
  a[1 * 12 + 2 * 4 + 3] = 2.f;
  auto c = ct::compare(f32(a, {2, 3, 4}), f32(e, {2, 3, 4}));
  EXPECT_EQ(c.max_abs_index, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_NE(c.message().find("at index (1, 2, 3)"), std::string::npos) << c.message();

  auto c1 = ct::compare(f32({1, 2, 3, 4, 5}), f32({1, 2, 3, 4, 6}));
  EXPECT_NE(c1.message().find("Greatest absolute difference: 1.0 at index (4,) "), std::string::npos)
      << c1.message();
  auto c0 = ct::compare(concord::scalar_tensor(1.0), concord::scalar_tensor(2.0));
  // 0-dim: PyTorch's scalar message has neither index nor element count.
  EXPECT_EQ(c0.message().find("at index"), std::string::npos) << c0.message();
  EXPECT_EQ(c0.message().find("Mismatched elements"), std::string::npos) << c0.message();
}

TEST(Compare, FloatRepr) {
  EXPECT_EQ(ct::float_repr(1e-5), "1e-05");
  EXPECT_EQ(ct::float_repr(1.3e-6), "1.3e-06");
  EXPECT_EQ(ct::float_repr(0.00018310546875), "0.00018310546875");
  EXPECT_EQ(ct::float_repr(1.0), "1.0");
  EXPECT_EQ(ct::float_repr(100.0), "100.0");
  EXPECT_EQ(ct::float_repr(0.1), "0.1");
  EXPECT_EQ(ct::float_repr(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(ct::float_repr(1e-4), "0.0001");
  EXPECT_EQ(ct::float_repr(1e16), "1e+16");
  EXPECT_EQ(ct::float_repr(9007199254740992.0), "9007199254740992.0");
  EXPECT_EQ(ct::float_repr(-2.5e300), "-2.5e+300");
  EXPECT_EQ(ct::float_repr(5e-324), "5e-324");
  EXPECT_EQ(ct::float_repr(0.0), "0.0");
  EXPECT_EQ(ct::float_repr(kInf), "inf");
  EXPECT_EQ(ct::float_repr(-kInf), "-inf");
  EXPECT_EQ(ct::float_repr(kNaN), "nan");
  EXPECT_EQ(ct::index_str({}), "()");
  EXPECT_EQ(ct::index_str({4}), "(4,)");
  EXPECT_EQ(ct::index_str({3, 17}), "(3, 17)");
}

// ---------------------------------------------------------------------------
// Tolerances

TEST(Compare, DefaultTolerancesJustInsideAndOutside) {
  struct Case { Dtype t; double rtol, atol; };
  const Case cases[] = {{concord::float16, 1e-3, 1e-5}, {concord::bfloat16, 1.6e-2, 1e-5},
                        {concord::float32, 1.3e-6, 1e-5}, {concord::float64, 1e-7, 1e-7}};
  for (const Case& k : cases) {
    SCOPED_TRACE(std::string(concord::name(k.t)));
    const auto tol = ct::default_tolerances(k.t);
    EXPECT_EQ(tol.rtol, k.rtol);
    EXPECT_EQ(tol.atol, k.atol);
    // e = 0 probes atol alone; e = 3 and e = 1000 mostly rtol.
    for (double e : {0.0, 3.0, 1000.0}) {
      SCOPED_TRACE(e);
      const double limit = e + k.atol + k.rtol * std::fabs(e);
      double inside = to_dtype(k.t, limit);
      while (inside - e > k.atol + k.rtol * std::fabs(e)) inside = next_down(k.t, inside);
      while (next_up(k.t, inside) - e <= k.atol + k.rtol * std::fabs(e)) inside = next_up(k.t, inside);
      const double outside = next_up(k.t, inside);
      auto et = make(k.t, {e}), in = make(k.t, {inside}), out = make(k.t, {outside});
      auto c_in = ct::compare(in, et);
      EXPECT_TRUE(c_in.ok) << c_in.message();
      EXPECT_EQ(c_in.rtol, k.rtol);
      EXPECT_EQ(c_in.atol, k.atol);
      EXPECT_FALSE(ct::compare(out, et).ok);
      // Symmetric below the expected value.
      EXPECT_TRUE(ct::compare(make(k.t, {-inside}), make(k.t, {-e})).ok);
      EXPECT_FALSE(ct::compare(make(k.t, {-outside}), make(k.t, {-e})).ok);
    }
  }
}

TEST(Compare, IntegersAndBoolAreExact) {
  for (Dtype t : {concord::uint8, concord::int8, concord::int16, concord::int32, concord::int64}) {
    SCOPED_TRACE(std::string(concord::name(t)));
    auto e = make(t, {1, 2, 3, 4});
    EXPECT_TRUE(ct::compare(make(t, {1, 2, 3, 4}), e).ok);
    auto c = ct::compare(make(t, {1, 2, 6, 4}), e);
    EXPECT_FALSE(c.ok);
    EXPECT_EQ(c.rtol, 0.0);
    EXPECT_EQ(c.atol, 0.0);
    EXPECT_EQ(c.max_ulp, 0u);
    EXPECT_EQ(c.message(),
              "Tensor-likes are not equal!\n\n"
              "Mismatched elements: 1 / 4 (25.0%)\n"
              "Greatest absolute difference: 3 at index (2,)\n"
              "Greatest relative difference: 1.0 at index (2,)");
  }
  auto b = concord::tensor(std::vector<bool>{true, false});
  EXPECT_TRUE(ct::compare(b, concord::tensor(std::vector<bool>{true, false})).ok);
  EXPECT_FALSE(ct::compare(b, concord::tensor(std::vector<bool>{true, true})).ok);
}

TEST(Compare, Int64BeyondTwoToThe53IsExact) {
  const int64_t big = int64_t{1} << 53;
  auto e = concord::tensor(std::vector<int64_t>{5, big});
  auto a = concord::tensor(std::vector<int64_t>{5, big + 1});  // equal once converted to double
  auto c = ct::compare(a, e);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.message(),
            "Tensor-likes are not equal!\n\n"
            "Mismatched elements: 1 / 2 (50.0%)\n"
            "Greatest absolute difference: 1 at index (1,)\n"
            "Greatest relative difference: 1.1102230246251565e-16 at index (1,)");
  EXPECT_TRUE(ct::compare(a, a.clone()).ok);
}

TEST(Compare, LooserDtypeWins) {
  ct::CompareOptions o;
  o.check_dtype = false;
  auto c = ct::compare(make(concord::float16, {1.0}), make(concord::float32, {1.0}), o);
  EXPECT_TRUE(c.ok);
  EXPECT_EQ(c.rtol, 1e-3);
  EXPECT_EQ(c.atol, 1e-5);
  EXPECT_EQ(c.dtype, concord::float32);
  // 1 + 2^-10 is within float16's rtol but far outside float32's.
  EXPECT_TRUE(ct::compare(make(concord::float32, {1.0 + 0x1p-10}), make(concord::float16, {1.0}), o).ok);
  EXPECT_FALSE(ct::compare(make(concord::float32, {1.0 + 0x1p-10}), make(concord::float32, {1.0})).ok);
  // float32 vs float64: float32's rtol 1.3e-6 with atol max(1e-5, 1e-7).
  auto c2 = ct::compare(make(concord::float32, {1.0}), make(concord::float64, {1.0}), o);
  EXPECT_EQ(c2.rtol, 1.3e-6);
  EXPECT_EQ(c2.atol, 1e-5);
  // Integer vs float: the float's.
  auto c3 = ct::compare(make(concord::int32, {3}), make(concord::bfloat16, {3}), o);
  EXPECT_TRUE(c3.ok);
  EXPECT_EQ(c3.rtol, 1.6e-2);
  // Explicit tolerances win over the defaults; 0 and 0 means "equal".
  ct::CompareOptions z;
  z.rtol = 0;
  z.atol = 0;
  auto c4 = ct::compare(f32({1.f, 2.f}), f32({1.f, std::nextafter(2.f, 3.f)}), z);
  EXPECT_FALSE(c4.ok);
  EXPECT_EQ(c4.message(),
            "Tensor-likes are not equal!\n\n"
            "Mismatched elements: 1 / 2 (50.0%)\n"
            "Greatest absolute difference: 2.384185791015625e-07 at index (1,)\n"
            "Greatest relative difference: 1.1920927533992823e-07 at index (1,)\n"
            "Greatest ULP distance: 1 at index (1,)");
  ct::CompareOptions loose;
  loose.rtol = 0.5;
  loose.atol = 0;
  EXPECT_TRUE(ct::compare(f32({1.4f}), f32({1.f}), loose).ok);
  EXPECT_FALSE(ct::compare(f32({1.6f}), f32({1.f}), loose).ok);
}

TEST(Compare, NaN) {
  auto e = f32({1.f, NAN});
  auto a = f32({1.f, NAN});
  auto c = ct::compare(a, e);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.nan_mismatch, 1);
  EXPECT_EQ(c.message(),
            "Tensor-likes are not close!\n\n"
            "Mismatched elements: 1 / 2 (50.0%)\n"
            "Greatest absolute difference: nan at index (1,) (up to 1e-05 allowed)\n"
            "Greatest relative difference: nan at index (1,) (up to 1.3e-06 allowed)");
  ct::CompareOptions o;
  o.equal_nan = true;
  EXPECT_TRUE(ct::compare(a, e, o).ok);
  auto c2 = ct::compare(f32({1.f, 2.f}), e, o);  // NaN only on one side
  EXPECT_FALSE(c2.ok);
  EXPECT_EQ(c2.nan_mismatch, 1);
  EXPECT_FALSE(ct::compare(e, f32({1.f, 2.f}), o).ok);
}

TEST(Compare, Infinities) {
  EXPECT_TRUE(ct::compare(f64({kInf, -kInf, 1.0}), f64({kInf, -kInf, 1.0})).ok);
  auto c = ct::compare(f64({kInf, 1.0}), f64({-kInf, 1.0}));
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.inf_mismatch, 1);
  ct::CompareOptions huge;
  huge.rtol = 1e300;
  huge.atol = 1e300;
  auto c2 = ct::compare(f64({kInf}), f64({1e308}), huge);
  EXPECT_FALSE(c2.ok);
  EXPECT_EQ(c2.inf_mismatch, 1);
  EXPECT_NE(c2.message().find("Greatest absolute difference: inf at index (0,)"), std::string::npos);
  // Overflow by one step: float32's max finite and inf are one ULP apart.
  auto c3 = ct::compare(f32({INFINITY}), f32({std::numeric_limits<float>::max()}));
  EXPECT_EQ(c3.max_ulp, 1u);
}

TEST(Compare, ShapeDtypeDeviceMismatch) {
  auto a = f32({1, 2, 3, 4, 5, 6}, {2, 3});
  auto c = ct::compare(a, f32({1, 2, 3, 4, 5, 6}, {3, 2}));
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.message(), "The values for attribute 'shape' do not match: [2, 3] != [3, 2].");
  try {
    ct::assert_close(a, a.reshape({3, 2}));
    FAIL();
  } catch (const ct::AssertionError& e) {
    EXPECT_STREQ(e.what(), "The values for attribute 'shape' do not match: [2, 3] != [3, 2].");
  }
  auto d = ct::compare(a, a.to(concord::float64));
  EXPECT_FALSE(d.ok);
  EXPECT_EQ(d.message(), "The values for attribute 'dtype' do not match: float32 != float64.");
  ct::CompareOptions o;
  o.check_dtype = false;
  EXPECT_TRUE(ct::compare(a, a.to(concord::float64), o).ok);
  EXPECT_NO_THROW(ct::assert_close(a, a.clone()));
  EXPECT_TRUE(ct::compare(f32({}, {0, 3}), f32({}, {0, 3})).ok);

  auto emu = a.to(concord::Device("emu:0"));
  EXPECT_TRUE(ct::compare(emu, a).ok);
  ct::CompareOptions dev;
  dev.check_device = true;
  EXPECT_EQ(ct::compare(emu, a, dev).message(), "The values for attribute 'device' do not match: emu:0 != cpu.");
}

TEST(Compare, StatisticsOfPassingComparison) {
  auto c = ct::compare(f32({1.f, 2.f + 0x1p-22f}), f32({1.f, 2.f}));
  EXPECT_TRUE(c.ok);
  EXPECT_EQ(c.message(), "");
  EXPECT_EQ(c.max_abs_diff, 0x1p-22);
  EXPECT_EQ(c.max_abs_index, (std::vector<int64_t>{1}));
  EXPECT_EQ(c.max_ulp, 1u);
}

// ---------------------------------------------------------------------------
// GoogleTest helpers

TEST(Compare, GtestMacros) {
  auto a = f32({1.f, 2.f});
  EXPECT_TENSOR_CLOSE(a, f32({1.f, 2.f}));
  ASSERT_TENSOR_CLOSE(a, f32({1.f, 2.000001f}));
  EXPECT_TENSOR_CLOSE(a, f32({1.f, 2.5f}), {.rtol = 0.5, .atol = 0});
  EXPECT_NONFATAL_FAILURE(EXPECT_TENSOR_CLOSE(a, f32({1.f, 2.5f})),
                          "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\n"
                          "Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)");
  EXPECT_NONFATAL_FAILURE(EXPECT_TENSOR_CLOSE(a, f32({1.f, 2.5f}), {.rtol = 0.1, .atol = 0}),
                          "(up to 0.1 allowed)");
  EXPECT_FATAL_FAILURE(ASSERT_TENSOR_CLOSE(f32({1.f}), f64({1.0})),
                       "The values for attribute 'dtype' do not match: float32 != float64.");
}

// ---------------------------------------------------------------------------
// Devices: tensors elsewhere are moved to the CPU.

class CompareDevices : public concord::test::DeviceTest {};

TEST_P(CompareDevices, OtherDeviceVsCpu) {
  auto v = random_floats(64, 3);
  auto cpu = f32(v, {8, 8});
  auto dev = cpu.to(device());
  EXPECT_TRUE(ct::compare(dev, cpu).ok);
  EXPECT_TRUE(ct::compare(cpu, dev).ok);
  EXPECT_TENSOR_CLOSE(dev, cpu);
  v[19] += 0.5f;
  auto c = ct::compare(f32(v, {8, 8}).to(device()), cpu);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.max_abs_index, (std::vector<int64_t>{2, 3}));
  // Error models read device tensors too.
  auto h = cpu.to(concord::float16);
  auto ref = h.to(concord::float32).to(concord::float64);
  EXPECT_TRUE(ct::check_elementwise(h.to(device()), ref, 0.5).ok);
  if (!concord::test::can_store(GetParam(), concord::float64)) GTEST_SKIP() << "no float64 on this device";
  auto d64 = cpu.to(concord::float64).to(device());
  EXPECT_TRUE(ct::compare(d64, cpu.to(concord::float64)).ok);
}

CONCORD_INSTANTIATE_DEVICES(CompareDevices);

// Issue 23, defect 8: the texts below are torch 1.13's assert_close messages
// (plus concord's ULP line), taken from PyTorch for the same inputs.
TEST(Compare, ZeroDimInputsGetTheScalarMessage) {
  auto a = concord::full({}, 1.5, concord::float32), e = concord::full({}, 1.0, concord::float32);
  EXPECT_EQ(ct::compare(a, e).message(),
            "Scalars are not close!\n\n"
            "Absolute difference: 0.5 (up to 1e-05 allowed)\n"
            "Relative difference: 0.5 (up to 1.3e-06 allowed)\n"
            "ULP distance: 4194304");
  auto n = concord::full({}, std::nan(""), concord::float32);
  EXPECT_EQ(ct::compare(n, e).message(),
            "Scalars are not close!\n\n"
            "Absolute difference: nan (up to 1e-05 allowed)\n"
            "Relative difference: nan (up to 1.3e-06 allowed)");
  auto i3 = concord::full({}, 3, concord::int64), i2 = concord::full({}, 2, concord::int64);
  EXPECT_EQ(ct::compare(i3, i2).message(), "Scalars are not equal!\n\nAbsolute difference: 1\nRelative difference: 0.5");
  ct::CompareOptions o;
  o.rtol = 0.1;
  o.atol = 0.5;
  EXPECT_EQ(ct::compare(i3, i2, o).message(),
            "Scalars are not close!\n\nAbsolute difference: 1 (up to 0.5 allowed)\nRelative difference: 0.5 (up to 0.1 allowed)");
  // 0-dim integers divide in float64 (Python numbers), unlike integer tensors.
  auto j4 = concord::full({}, 4, concord::int32), j3 = concord::full({}, 3, concord::int32);
  EXPECT_EQ(ct::compare(j4, j3).message(),
            "Scalars are not equal!\n\nAbsolute difference: 1\nRelative difference: 0.3333333333333333");
  auto t = concord::full({}, 1, concord::bool_), f = concord::full({}, 0, concord::bool_);
  EXPECT_EQ(ct::compare(t, f).message(), "Scalars are not equal!\n\nAbsolute difference: 1\nRelative difference: inf");
}

TEST(Compare, IntegerTensorRelativeDifferenceIsFloat32) {
  auto a = make(concord::int32, {1, 4}), e = make(concord::int32, {1, 3});
  EXPECT_EQ(ct::compare(a, e).message(),
            "Tensor-likes are not equal!\n\n"
            "Mismatched elements: 1 / 2 (50.0%)\n"
            "Greatest absolute difference: 1 at index (1,)\n"
            "Greatest relative difference: 0.3333333432674408 at index (1,)");
  auto big = concord::tensor(std::vector<int64_t>{100000000000000001}), ref = concord::tensor(std::vector<int64_t>{100000000000000000});
  EXPECT_EQ(ct::compare(big, ref).message(),
            "Tensor-likes are not equal!\n\n"
            "Mismatched elements: 1 / 1 (100.0%)\n"
            "Greatest absolute difference: 1 at index (0,)\n"
            "Greatest relative difference: 9.99999983775159e-18 at index (0,)");
}

TEST(Compare, AttributeMismatchKeepsConcordsSpelling) {
  EXPECT_EQ(ct::compare(concord::zeros({}, concord::float32), concord::zeros({1}, concord::float32)).message(),
            "The values for attribute 'shape' do not match: [] != [1].");
  EXPECT_EQ(ct::compare(concord::zeros({2}, concord::bfloat16), concord::zeros({2}, concord::float16)).message(),
            "The values for attribute 'dtype' do not match: bfloat16 != float16.");
}
