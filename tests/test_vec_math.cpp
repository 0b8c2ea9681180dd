// The vectorised CPU kernels (backend/cpu/vec_math.h), every ISA the CPU
// has on its own: transcendentals against references computed here in double
// / long double with <cmath> (exp within 1 ULP of the double-precision exp
// rounded to float, over whole binades and 10M random inputs), arithmetic
// against the scalar float32 result, and the ISAs against each other bit for
// bit (the ISA picked at run time must not change a result); the reduction
// engine's block order (vec_math_checks.h).
#include "vec_math_checks.h"

namespace {

TEST(VecMath, IsaTablesAreConsistent) {
  ASSERT_NE(vec::kernels_for(vec::Isa::baseline), nullptr);
  const vec::Kernels& k = vec::kernels();
  EXPECT_EQ(vec::kernels_for(k.isa), &k);
  for (const vec::Kernels* t : isas()) std::printf("  [ isa ] %s\n", t->name);
}

TEST(VecMath, ExpWholeBinades) {
  const UnaryRef& e = kUnary[0];
  check_unary(e, all_between(1.0f, std::nextafter(2.0f, 0.0f)), "[1, 2)");
  check_unary(e, all_between(-1.0f, std::nextafter(-2.0f, 0.0f)), "(-2, -1]");
  check_unary(e, all_between(64.0f, 89.0f), "[64, 89]: overflow edge");
  check_unary(e, all_between(-87.0f, -104.0f), "[-104, -87]: subnormal results");
  check_unary(e, all_between(0x1p-24f, std::nextafter(0x1p-23f, 0.0f)), "[2^-24, 2^-23)");
  check_unary(e, all_between(-0x1p-26f, std::nextafter(-0x1p-25f, 0.0f)), "(-2^-25, -2^-26]");
  check_unary(e, {-0x1p-149f, 0x1p-149f, -0x1p-126f, 0x1p-126f, -0x1p-60f, 0x1p-60f}, "tiny");
}

TEST(VecMath, ExpRandom) {
  check_unary(kUnary[0], random_between(-104.0f, 89.0f, 10'000'000, 1), "10M random in [-104, 89]");
}

TEST(VecMath, ExpSpecialValues) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> xs = {0.0f, -0.0f, inf, -inf, nan, 88.72283f, 88.72284f, 89.0f, 1e30f, -103.97208f,
                                 -103.9721f, -104.0f, -1e30f, 0x1p-149f, -0x1p-149f};
  auto e = [](float x) { return static_cast<float>(std::exp(static_cast<double>(x))); };
  const std::vector<float> want = {1, 1, inf, 0, nan, e(88.72283f), inf, inf, inf, e(-103.97208f), e(-103.9721f), 0,
                                   0, 1, 1};
  for (const vec::Kernels* k : isas()) {
    std::vector<float> y(xs.size());
    k->unary(vec::UnOp::exp, vec::Ty::f32, y.data(), xs.data(), static_cast<int64_t>(xs.size()));
    for (size_t i = 0; i < xs.size(); ++i) {
      if (std::isnan(want[i])) EXPECT_TRUE(std::isnan(y[i])) << k->name << " exp(" << xs[i] << ")";
      else EXPECT_LE(ulp_distance(y[i], want[i]), 1) << k->name << " exp(" << xs[i] << ") = " << y[i] << ", want " << want[i];
    }
    EXPECT_EQ(y[0], 1.0f) << "exp(0) is exactly 1";
  }
}

TEST(VecMath, SigmoidTanhLog) {
  for (int i = 1; i < 4; ++i) {
    const UnaryRef& u = kUnary[i];
    const bool log = u.op == vec::UnOp::log;
    check_unary(u, random_between(log ? 0.0f : -120.0f, log ? 3e38f : 120.0f, 2'000'000, 7 + i), "2M random");
    check_unary(u, all_between(0.5f, std::nextafter(1.0f, 0.0f)), "[0.5, 1)");
    check_unary(u, all_between(1.0f, 1.25f), "[1, 1.25]");
    if (!log) check_unary(u, all_between(-0x1p-13f, std::nextafter(-0x1p-12f, 0.0f)), "(-2^-12, -2^-13]");
  }
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> xs = {0.0f, -0.0f, inf, -inf, nan, -1.0f, 0x1p-149f, 0x1p-126f, 3.4e38f};
  for (const vec::Kernels* k : isas()) {
    std::vector<float> s(xs.size()), t(xs.size()), l(xs.size());
    const int64_t n = static_cast<int64_t>(xs.size());
    k->unary(vec::UnOp::sigmoid, vec::Ty::f32, s.data(), xs.data(), n);
    k->unary(vec::UnOp::tanh, vec::Ty::f32, t.data(), xs.data(), n);
    k->unary(vec::UnOp::log, vec::Ty::f32, l.data(), xs.data(), n);
    const std::string w = k->name;
    EXPECT_EQ(s[0], 0.5f) << w;
    EXPECT_EQ(s[2], 1.0f) << w;
    EXPECT_EQ(s[3], 0.0f) << w;
    EXPECT_TRUE(std::isnan(s[4])) << w;
    EXPECT_EQ(bits(t[1]), bits(-0.0f)) << w << ": tanh(-0) = -0";
    EXPECT_EQ(t[2], 1.0f) << w;
    EXPECT_EQ(t[3], -1.0f) << w;
    EXPECT_TRUE(std::isnan(t[4])) << w;
    EXPECT_EQ(t[6], 0x1p-149f) << w << ": tanh(x) = x for tiny x";
    EXPECT_EQ(l[0], -inf) << w;
    EXPECT_EQ(l[1], -inf) << w;
    EXPECT_EQ(l[2], inf) << w;
    EXPECT_TRUE(std::isnan(l[3])) << w;
    EXPECT_TRUE(std::isnan(l[4])) << w;
    EXPECT_TRUE(std::isnan(l[5])) << w;
    EXPECT_EQ(l[6], static_cast<float>(std::log(0x1p-149))) << w;
    EXPECT_EQ(l[7], static_cast<float>(std::log(0x1p-126))) << w;
  }
}

// float16/bfloat16: every bit pattern; the result is the float32 kernel's result rounded once.
TEST(VecMath, HalvesGoThroughFloat32) {
  for (vec::Ty ty : {vec::Ty::f16, vec::Ty::bf16}) {
    const bool f16 = ty == vec::Ty::f16;
    std::vector<uint16_t> xh(65536);
    std::vector<float> xf(65536);
    for (int i = 0; i < 65536; ++i) {
      xh[i] = static_cast<uint16_t>(i);
      xf[i] = f16 ? static_cast<float>(float16_t::from_bits(xh[i])) : static_cast<float>(bfloat16_t::from_bits(xh[i]));
    }
    for (const UnaryRef& u : kUnary) {
      for (const vec::Kernels* k : isas()) {
        std::vector<uint16_t> yh(65536);
        std::vector<float> yf(65536);
        k->unary(u.op, ty, yh.data(), xh.data(), 65536);
        k->unary(u.op, vec::Ty::f32, yf.data(), xf.data(), 65536);
        int bad = 0;
        for (int i = 0; i < 65536; ++i) {
          const uint16_t want = f16 ? float16_t(yf[i]).bits : bfloat16_t(yf[i]).bits;
          const bool nan_both = std::isnan(yf[i]) && ((yh[i] & 0x7fff) > (f16 ? 0x7c00 : 0x7f80));
          if (yh[i] != want && !nan_both && bad++ < 3)
            ADD_FAILURE() << k->name << " " << u.name << (f16 ? " f16 " : " bf16 ") << std::hex << xh[i] << ": got "
                          << yh[i] << ", want " << want;
        }
      }
    }
  }
}

float scalar_binary(vec::BinOp op, float x, float y) {
  switch (op) {
    case vec::BinOp::add: return x + y;
    case vec::BinOp::sub: return x - y;
    case vec::BinOp::mul: return x * y;
    case vec::BinOp::div: return x / y;
    case vec::BinOp::maximum: return (x < y || y != y) ? y : x;
    case vec::BinOp::minimum: return (y < x || y != y) ? y : x;
  }
  return 0;
}

template <class H> bool same_half(uint16_t got, H want) {
  return got == want.bits || (std::isnan(static_cast<float>(want)) && std::isnan(static_cast<float>(H::from_bits(got))));
}

// Arithmetic is correctly rounded: every ISA, every broadcast pattern, every
// tail length and both store kinds must give the scalar float32 result
// (halves: rounded once). Outputs start at odd offsets: the streaming path
// aligns itself.
TEST(VecMath, BinaryMatchesScalar) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> x = random_between(-1e6f, 1e6f, 997, 3), y = random_between(-1e6f, 1e6f, 997, 4);
  const float specials[] = {0.0f, -0.0f, inf, -inf, nan, 1e-40f, 65504.0f, 65520.0f, 3.4e38f, 1.0f};
  for (size_t i = 0; i < 10; ++i) {
    x[i * 7] = specials[i];
    y[i * 11] = specials[(i + 3) % 10];
    x[100 + i] = specials[i];
  }
  for (const vec::Kernels* k : isas()) {
    for (int o = 0; o < 6; ++o) {
      const auto op = static_cast<vec::BinOp>(o);
      for (int64_t n : {int64_t{1}, int64_t{3}, int64_t{15}, int64_t{17}, int64_t{33}, int64_t{997 - 2}}) {
        for (int pattern = 0; pattern < 4; ++pattern) {
          const int xs = pattern & 1 ? 0 : 1, ys = pattern & 2 ? 0 : 1;
          std::vector<float> out(n + 1);
          k->binary(op, vec::Ty::f32, out.data() + 1, x.data() + 1, y.data() + 2, xs, ys, n, n > 100);
          std::vector<uint16_t> xh(n + 2), xb(n + 2), yb(n + 2), oh(n + 1), ob(n + 1);
          for (int64_t i = 0; i < n + 2; ++i) {
            xh[i] = float16_t(x[i]).bits;
            xb[i] = bfloat16_t(x[i]).bits;
            yb[i] = bfloat16_t(y[i]).bits;
          }
          k->binary(op, vec::Ty::f16, oh.data() + 1, xh.data() + 1, xh.data() + 2, xs, ys, n, n > 100);
          k->binary(op, vec::Ty::bf16, ob.data() + 1, xb.data() + 1, yb.data() + 2, xs, ys, n, n > 100);
          for (int64_t i = 0; i < n; ++i) {
            const int64_t ix = 1 + (xs ? i : 0), iy = 2 + (ys ? i : 0);
            const std::string w = std::string(k->name) + " op " + std::to_string(o) + " n " + std::to_string(n) +
                                  " pattern " + std::to_string(pattern) + " i " + std::to_string(i);
            ASSERT_TRUE(same_bits_or_both_nan(out[i + 1], scalar_binary(op, x[ix], y[iy]))) << w << ": " << x[ix] << ", " << y[iy];
            const float16_t hw(scalar_binary(op, float16_t::from_bits(xh[ix]), float16_t::from_bits(xh[iy])));
            ASSERT_TRUE(same_half(oh[i + 1], hw)) << w << " float16";
            const bfloat16_t bw(scalar_binary(op, bfloat16_t::from_bits(xb[ix]), bfloat16_t::from_bits(yb[iy])));
            ASSERT_TRUE(same_half(ob[i + 1], bw)) << w << " bfloat16";
          }
        }
      }
    }
  }
}

// ---------------- through the public API ----------------

// exp_f32 (the scalar twin used by non-contiguous softmax/logsumexp) gives the
// bits of the vectorised exp on every ISA.
TEST(VecMath, ScalarExpHasTheVectorBits) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> xs = random_between(-200.0f, 200.0f, 200'000, 7);
  for (float f : {0.0f, -0.0f, inf, -inf, nan, 88.72284f, -103.9721f, 160.0f, -160.0f, 1e30f, -1e30f}) xs.push_back(f);
  for (const vec::Kernels* k : isas()) {
    std::vector<float> ys(xs.size());
    k->unary(vec::UnOp::exp, vec::Ty::f32, ys.data(), xs.data(), static_cast<int64_t>(xs.size()));
    int bad = 0;
    for (size_t i = 0; i < xs.size(); ++i)
      if (!same_bits_or_both_nan(vec::exp_f32(xs[i]), ys[i]) && bad++ < 3)
        ADD_FAILURE() << k->name << " exp(" << xs[i] << "): scalar " << vec::exp_f32(xs[i]) << ", vector " << ys[i];
  }
}

// Every step k = round(x 8/ln2) the float32 exp reaches, on both sides of
// each rounding edge (the table index k mod 8; the exponent k >> 3, which
// floors for k < 0), and NaNs with many payloads: every level's exp and
// softmax's exp step give exp_f32's bits, NaN payloads included. (AVX-512
// reads the index from t's bits and scales by scalef(v, kf / 8).)
TEST(VecMath, ExpBitsAtEveryStepAndNaNPayload) {
  std::vector<float> xs;
  for (int k = -1210; k <= 1210; ++k)
    for (float d : {-0.5f, -0.49999f, -0.25f, 0.0f, 0.25f, 0.49999f, 0.5f}) xs.push_back((k + d) * 0x1.62e430p-4f);  // ln2/8
  for (uint32_t p = 1; p < (1u << 23); p = p * 3 + 1)
    for (uint32_t sign : {0u, 0x80000000u}) xs.push_back(std::bit_cast<float>(sign | 0x7f800000u | p));
  const int64_t n = static_cast<int64_t>(xs.size());
  std::vector<float> le;  // x <= 0 or NaN: softmax's exp step (exp_sum_max, exp_scale_max)
  for (float x : xs)
    if (!(x > 0.0f)) le.push_back(x);
  const int64_t m = static_cast<int64_t>(le.size());
  for (const vec::Kernels* k : isas()) {
    std::vector<float> y(n), e(m), o(m), part((m + 4095) / 4096);
    k->unary(vec::UnOp::exp, vec::Ty::f32, y.data(), xs.data(), n);
    k->reduce_blocks(vec::RedOp::exp_sum_max, vec::Ty::f32, le.data(), m, 0.0f, part.data(), e.data());
    k->row_out(vec::RowOut::exp_scale_max, vec::Ty::f32, o.data(), le.data(), m, 0.0f, 1.0f);
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(bits(y[i]), bits(vec::exp_f32(xs[i]))) << k->name << " exp(" << xs[i] << "), bits " << std::hex << bits(xs[i]);
    for (int64_t i = 0; i < m; ++i) {
      ASSERT_EQ(bits(e[i]), bits(vec::exp_f32(le[i]))) << k->name << " exp_sum_max, bits " << std::hex << bits(le[i]);
      ASSERT_EQ(bits(o[i]), bits(vec::exp_f32(le[i]))) << k->name << " exp_scale_max, bits " << std::hex << bits(le[i]);
    }
  }
}

// The engine's block order written out plainly: lane i % 16, increasing i, lane tree.
float ref_block(vec::RedOp op, const std::vector<float>& v, size_t i0, size_t len, float shift) {
  float acc[16];
  const float inf = std::numeric_limits<float>::infinity();
  for (float& a : acc) a = op == vec::RedOp::max ? -inf : op == vec::RedOp::min ? inf : -0.0f;
  auto comb = [op](float a, float b) {
    if (op == vec::RedOp::max) return (a > b || a != a) ? a : b;
    if (op == vec::RedOp::min) return (a < b || a != a) ? a : b;
    return a + b;
  };
  for (size_t i = 0; i < len; ++i) {
    const float x = v[i0 + i];
    acc[i % 16] = comb(acc[i % 16], op == vec::RedOp::exp_sum ? static_cast<float>(std::exp(static_cast<double>(x - shift))) : x);
  }
  for (int w = 8; w >= 1; w /= 2)
    for (int l = 0; l < w; ++l) acc[l] = comb(acc[l], acc[l + w]);
  return acc[0];
}

// Block reductions: sum/max/min bit-exact against the plain loop above; the
// exp-sum within a few ULPs of it (its exp rounds differently) and, like
// everything else, bit-identical across ISAs, halves included.
TEST(VecMath, ReduceBlocksFollowTheEngineOrder) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  for (int64_t n : {1, 5, 16, 17, 31, 4096, 4097, 3 * 4096 + 333}) {
    for (bool specials : {false, true}) {
      std::vector<float> x = random_between(-30.0f, 30.0f, static_cast<size_t>(n), static_cast<uint32_t>(n));
      if (specials) {
        x[0] = -0.0f;
        if (n > 3) { x[n / 2] = nan; x[n - 1] = inf; x[1] = -inf; }
      }
      for (vec::RedOp op : {vec::RedOp::sum, vec::RedOp::max, vec::RedOp::min, vec::RedOp::exp_sum}) {
        const int64_t nb = (n + 4095) / 4096;
        std::vector<std::vector<float>> parts, es;
        for (const vec::Kernels* k : isas()) {
          std::vector<float> part(nb), e(n);
          k->reduce_blocks(op, vec::Ty::f32, x.data(), n, 1.5f, part.data(), op == vec::RedOp::exp_sum ? e.data() : nullptr);
          for (int64_t b = 0; b < nb; ++b) {
            const float want = ref_block(op, x, b * 4096, std::min<int64_t>(4096, n - b * 4096), 1.5f);
            if (op == vec::RedOp::exp_sum) {
              if (!specials) EXPECT_LE(std::fabs(part[b] - want), 1e-6f * std::fabs(want)) << k->name << " n=" << n;
            } else {
              EXPECT_TRUE(same_bits_or_both_nan(part[b], want)) << k->name << " op " << int(op) << " n=" << n << " b=" << b
                                                                << ": " << part[b] << " vs " << want;
            }
          }
          if (op == vec::RedOp::exp_sum)
            for (int64_t i = 0; i < n; ++i) ASSERT_TRUE(same_bits_or_both_nan(e[i], vec::exp_f32(x[i] - 1.5f))) << i;
          parts.push_back(part);
          es.push_back(e);
        }
        for (size_t k = 1; k < parts.size(); ++k)
          for (int64_t b = 0; b < nb; ++b) EXPECT_TRUE(same_bits_or_both_nan(parts[k][b], parts[0][b])) << "isa " << k;
      }
    }
  }
  // Halves: the same as their float32 values.
  std::vector<float> xf = random_between(-8.0f, 8.0f, 5000, 11);
  std::vector<uint16_t> xh(xf.size()), xb(xf.size());
  for (size_t i = 0; i < xf.size(); ++i) {
    xh[i] = float16_t(xf[i]).bits;
    xb[i] = bfloat16_t(xf[i]).bits;
  }
  std::vector<float> fh(xf.size()), fb(xf.size());
  for (size_t i = 0; i < xf.size(); ++i) {
    fh[i] = static_cast<float>(float16_t::from_bits(xh[i]));
    fb[i] = static_cast<float>(bfloat16_t::from_bits(xb[i]));
  }
  for (const vec::Kernels* k : isas())
    for (vec::RedOp op : {vec::RedOp::sum, vec::RedOp::max, vec::RedOp::exp_sum}) {
      float p16[2], p32[2], pb[2], pb32[2];
      k->reduce_blocks(op, vec::Ty::f16, xh.data(), 5000, 0.5f, p16, nullptr);
      k->reduce_blocks(op, vec::Ty::f32, fh.data(), 5000, 0.5f, p32, nullptr);
      k->reduce_blocks(op, vec::Ty::bf16, xb.data(), 5000, 0.5f, pb, nullptr);
      k->reduce_blocks(op, vec::Ty::f32, fb.data(), 5000, 0.5f, pb32, nullptr);
      for (int b = 0; b < 2; ++b) {
        EXPECT_EQ(bits(p16[b]), bits(p32[b])) << k->name;
        EXPECT_EQ(bits(pb[b]), bits(pb32[b])) << k->name;
      }
    }
}

// Ties between +0 and -0: the later element wins, as in the engine's order
// (max/min run on the x86 instructions, which must keep that rule).
TEST(VecMath, MaxMinZeroTiesKeepTheEngineOrder) {
  std::mt19937 g(3);
  for (vec::RedOp op : {vec::RedOp::max, vec::RedOp::min}) {
    const float other = op == vec::RedOp::max ? -1.0f : 1.0f;
    for (int trial = 0; trial < 50; ++trial) {
      std::vector<float> x(4096 + 77);
      for (float& f : x) f = std::vector<float>{0.0f, -0.0f, other}[g() % 3];
      for (const vec::Kernels* k : isas()) {
        float part[2];
        k->reduce_blocks(op, vec::Ty::f32, x.data(), static_cast<int64_t>(x.size()), 0.0f, part, nullptr);
        for (int b = 0; b < 2; ++b) {
          const float want = ref_block(op, x, b * 4096, b ? 77 : 4096, 0.0f);
          ASSERT_EQ(bits(part[b]), bits(want)) << k->name << " op " << int(op) << " block " << b;
        }
      }
    }
  }
}

// The softmax output pass: each mode is its scalar formula, rounded once to the dtype.
TEST(VecMath, RowOutIsTheScalarFormula) {
  const std::vector<float> x = random_between(-20.0f, 20.0f, 1003, 5);
  for (const vec::Kernels* k : isas()) {
    std::vector<float> o(x.size());
    k->row_out(vec::RowOut::scale, vec::Ty::f32, o.data(), x.data(), 1003, 3.0f, 0.0f);
    for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(bits(o[i]), bits(x[i] * 3.0f)) << k->name << i;
    k->row_out(vec::RowOut::exp_scale, vec::Ty::f32, o.data(), x.data(), 1003, 2.0f, 7.0f);
    for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(bits(o[i]), bits(vec::exp_f32(x[i] - 2.0f) * 7.0f)) << k->name << i;
    k->row_out(vec::RowOut::log, vec::Ty::f32, o.data(), x.data(), 1003, 2.0f, 7.0f);
    for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(bits(o[i]), bits((x[i] - 2.0f) - 7.0f)) << k->name << i;
    std::vector<uint16_t> xh(x.size()), oh(x.size());
    for (size_t i = 0; i < x.size(); ++i) xh[i] = float16_t(x[i]).bits;
    k->row_out(vec::RowOut::exp_scale, vec::Ty::f16, oh.data(), xh.data(), 1003, 2.0f, 7.0f);
    for (size_t i = 0; i < x.size(); ++i) {
      const float xv = static_cast<float>(float16_t::from_bits(xh[i]));
      ASSERT_EQ(oh[i], float16_t(vec::exp_f32(xv - 2.0f) * 7.0f).bits) << k->name << i;
    }
    k->row_out(vec::RowOut::scale, vec::Ty::bf16, oh.data(), x.data(), 1003, 3.0f, 0.0f);
    for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(oh[i], bfloat16_t(x[i] * 3.0f).bits) << k->name << i;
  }
}

// softmax's exp (exp_sum_max, exp_scale_max: a shift >= every x, the other
// exponent step on AVX2) gives exp's bits, NaN payloads included, over a
// sweep of the floats <= 0 (every 251st pattern; all 2^31 of them agreed in a
// one-off run), the whole subnormal-result range, NaNs with payloads, and a
// nonzero shift (x - shift rounds).
TEST(VecMath, SoftmaxExpHasTheExpBits) {
  std::vector<float> xs = all_between(-87.0f, -104.0f);
  for (uint64_t b = 0x80000000u; b <= 0xff800000u; b += 251) xs.push_back(std::bit_cast<float>(static_cast<uint32_t>(b)));
  for (uint32_t b : {0x80000000u, 0xff800000u, 0x7fc00000u, 0xffc12345u, 0x7fa00001u, 0xfff80ff8u, 0x7fc00ff8u})
    xs.push_back(std::bit_cast<float>(b));
  const int64_t n = static_cast<int64_t>(xs.size()), nb = (n + 4095) / 4096;
  for (float shift : {0.0f, 3.25f}) {
    std::vector<float> x = xs;
    if (shift != 0.0f)
      for (float& v : x) v = v + shift;  // still <= shift (NaNs stay NaN)
    for (const vec::Kernels* k : isas()) {
      std::vector<float> pa(nb), pb(nb), ea(n), eb(n), oa(n), ob(n);
      k->reduce_blocks(vec::RedOp::exp_sum, vec::Ty::f32, x.data(), n, shift, pa.data(), ea.data());
      k->reduce_blocks(vec::RedOp::exp_sum_max, vec::Ty::f32, x.data(), n, shift, pb.data(), eb.data());
      k->row_out(vec::RowOut::exp_scale, vec::Ty::f32, oa.data(), x.data(), n, shift, 0.375f);
      k->row_out(vec::RowOut::exp_scale_max, vec::Ty::f32, ob.data(), x.data(), n, shift, 0.375f);
      for (int64_t i = 0; i < n; ++i) {
        ASSERT_EQ(bits(eb[i]), bits(ea[i])) << k->name << " exp(" << x[i] << " - " << shift << ")";
        ASSERT_EQ(bits(ob[i]), bits(oa[i])) << k->name << " exp(" << x[i] << " - " << shift << ") * 0.375";
        if (!std::isnan(x[i])) ASSERT_EQ(bits(ea[i]), bits(vec::exp_f32(x[i] - shift))) << k->name << " " << x[i];
      }
      for (int64_t b = 0; b < nb; ++b) ASSERT_TRUE(same_bits_or_both_nan(pb[b], pa[b])) << k->name << " block " << b;
    }
  }
  // The halves through the same path.
  const std::vector<float> xf = random_between(-30.0f, 0.0f, 3000, 4);
  std::vector<uint16_t> xh(xf.size()), xbf(xf.size()), oa(xf.size()), ob(xf.size());
  for (size_t i = 0; i < xf.size(); ++i) {
    xh[i] = float16_t(xf[i]).bits;
    xbf[i] = bfloat16_t(xf[i]).bits;
  }
  for (const vec::Kernels* k : isas())
    for (auto [ty, src] : {std::pair{vec::Ty::f16, &xh}, std::pair{vec::Ty::bf16, &xbf}}) {
      float pa[1], pb[1];
      k->reduce_blocks(vec::RedOp::exp_sum, ty, src->data(), 3000, 0.0f, pa, nullptr);
      k->reduce_blocks(vec::RedOp::exp_sum_max, ty, src->data(), 3000, 0.0f, pb, nullptr);
      EXPECT_EQ(bits(pb[0]), bits(pa[0])) << k->name;
      k->row_out(vec::RowOut::exp_scale, ty, oa.data(), src->data(), 3000, 0.0f, 0.5f);
      k->row_out(vec::RowOut::exp_scale_max, ty, ob.data(), src->data(), 3000, 0.0f, 0.5f);
      EXPECT_EQ(oa, ob) << k->name;
    }
}

// The host devices (cpu, emu) run these kernels; an OpenCL device has its own.

}  // namespace
