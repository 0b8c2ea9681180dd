// The error-model checks of concord/testing.h (elementwise, reductions,
// matmul, solve): results just inside and just outside each bound, with the
// bound worked out here by plain host loops (testing_checks.h).
#include "testing_checks.h"

// ---------------------------------------------------------------------------
// Error models

TEST(ErrorModel, ElementwiseCorrectlyRounded) {
  auto x = random_floats(200, 11, -5.f, 5.f);
  std::vector<double> ref(x.size());
  std::vector<float> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    ref[i] = std::exp(static_cast<double>(x[i]));
    out[i] = static_cast<float>(ref[i]);
  }
  auto m = ct::check_elementwise(f32(out), f64(ref), 0.5);
  EXPECT_TRUE(m.ok) << m.str();
  EXPECT_LE(m.worst_ratio, 1.0);
  EXPECT_GT(m.worst_ratio, 0.5);  // some element is close to half an ULP away
  EXPECT_EQ(m.total, 200);
  EXPECT_NE(m.str().find(": rounding"), std::string::npos) << m.str();

  // Two ULPs off at one element: fails there, ratio reported.
  out[37] = std::nextafter(std::nextafter(out[37], 1e30f), 1e30f);
  auto bad = ct::check_elementwise(f32(out), f64(ref), 1.0);
  EXPECT_FALSE(bad.ok);
  EXPECT_EQ(bad.failures, 1);
  EXPECT_EQ(bad.worst_index, (std::vector<int64_t>{37}));
  EXPECT_GE(bad.worst_ratio, 1.5);
  EXPECT_LE(bad.worst_ratio, 2.5);
  EXPECT_NE(bad.str().find("worst element (37,)"), std::string::npos) << bad.str();
  EXPECT_NE(bad.str().find("NOT rounding"), std::string::npos) << bad.str();
}

TEST(ErrorModel, ElementwiseMessageAndUlpUnits) {
  // Reference 1 + 2.5 * 2^-23: float32 1.0 is 2.5 ULPs away.
  auto m = ct::check_elementwise(f32({2.f, 1.f, 3.f}), f64({2.0, 1.0 + 2.5 * 0x1p-23, 3.0}), 1.0);
  EXPECT_FALSE(m.ok);
  EXPECT_DOUBLE_EQ(m.worst_error, 2.5);
  EXPECT_DOUBLE_EQ(m.worst_ratio, 2.5);
  EXPECT_EQ(m.str(), "worst element (1,): error 2.5 ulp = 2.5 of the bound 1 ulp: NOT rounding (1 of 3 outside the bound)");
  // Just below a power of two the faithful (not correct) rounding is > 0.5 ULP away.
  const double r = 2.0 - 0x1p-25;
  EXPECT_TRUE(ct::check_elementwise(f32({2.f}), f64({r}), 0.5).ok);
  EXPECT_FALSE(ct::check_elementwise(f32({std::nextafter(2.f, 0.f)}), f64({r}), 0.5).ok);
  // Half precision: ULPs of float16 (2^-10 at 1).
  auto h = ct::check_elementwise(make(concord::float16, {1.0 + 0x1p-10}), f64({1.0}), 1.0);
  EXPECT_TRUE(h.ok);
  EXPECT_DOUBLE_EQ(h.worst_error, 1.0);
  EXPECT_FALSE(ct::check_elementwise(make(concord::bfloat16, {1.0 + 0x1p-6}), f64({1.0}), 1.0).ok);
}

TEST(ErrorModel, ElementwiseNonFinite) {
  const float fmax = std::numeric_limits<float>::max();
  // Both NaN, same infinity, overflow of a finite reference to inf: all correct.
  EXPECT_TRUE(ct::check_elementwise(f32({NAN, INFINITY, -INFINITY, INFINITY}),
                                    f64({kNaN, kInf, -kInf, 1e39}), 0.5).ok);
  auto m = ct::check_elementwise(f32({1.f, NAN, INFINITY, fmax}), f64({1.0, 1.0, -kInf, kInf}), 0.5);
  EXPECT_FALSE(m.ok);
  EXPECT_EQ(m.failures, 3);
  EXPECT_TRUE(std::isinf(m.worst_ratio));
  EXPECT_EQ(m.worst_index, (std::vector<int64_t>{1}));
}

namespace {
// Row sums of an [r, c] matrix in float32, left to right (error <= (c-1)·u·Σ|x|).
std::vector<float> naive_row_sums(const std::vector<float>& x, size_t r, size_t c) {
  std::vector<float> s(r, 0.f);
  for (size_t i = 0; i < r; ++i)
    for (size_t j = 0; j < c; ++j) s[i] += x[i * c + j];
  return s;
}
}  // namespace

TEST(ErrorModel, ReductionFloat32) {
  const size_t R = 4, C = 3000;
  auto x = random_floats(R * C, 5, 0.f, 1.f);  // same sign: naive error grows ~ n·u·Σ|x|
  auto xt = f32(x, {4, 3000});
  auto s = naive_row_sums(x, R, C);
  auto m = ct::check_reduction(f32(s), xt, {1}, false);
  EXPECT_TRUE(m.ok) << m.str();
  EXPECT_GT(m.worst_ratio, 0.0);
  EXPECT_LE(m.worst_ratio, 1.0);

  // Independent bounds: n·u·Σ|x| + half an ULP of the float32 result.
  std::vector<double> exact(R, 0.0), bound(R, 0.0);
  for (size_t i = 0; i < R; ++i) {
    double ab = 0;
    for (size_t j = 0; j < C; ++j) { exact[i] += x[i * C + j]; ab += std::fabs(x[i * C + j]); }
    int e;
    std::frexp(exact[i], &e);
    bound[i] = C * 0x1p-24 * ab + 0.5 * std::ldexp(1.0, e - 24);
  }
  // Correctly rounded results pass with a small ratio.
  std::vector<float> rounded(R);
  for (size_t i = 0; i < R; ++i) rounded[i] = static_cast<float>(exact[i]);
  auto mr = ct::check_reduction(f32(rounded), xt, {1}, false);
  EXPECT_TRUE(mr.ok);
  EXPECT_LT(mr.worst_ratio, 0.01);
  // Off by 3 bounds at row 2: fails, ratio about 3.
  auto bad = rounded;
  bad[2] = static_cast<float>(exact[2] + 3 * bound[2]);
  auto mb = ct::check_reduction(f32(bad), xt, {-1}, false);
  EXPECT_FALSE(mb.ok);
  EXPECT_EQ(mb.failures, 1);
  EXPECT_EQ(mb.worst_index, (std::vector<int64_t>{2}));
  EXPECT_NEAR(mb.worst_ratio, 3.0, 0.05);
  EXPECT_NEAR(mb.worst_bound, bound[2], 1e-9 * bound[2]);
  EXPECT_NE(mb.str().find("NOT rounding"), std::string::npos);
  // keepdim shape, and a constant c loosens the bound.
  auto keep = ct::check_reduction(f32(bad, {4, 1}), xt, {1}, true, 4.0);
  EXPECT_TRUE(keep.ok) << keep.str();
  EXPECT_THROW(ct::check_reduction(f32(bad), xt, {1}, true), concord::ShapeError);
  EXPECT_THROW(ct::check_reduction(f32(bad), xt, {1, 1}, false), concord::ShapeError);
}

TEST(ErrorModel, ReductionDimsAllAndHalf) {
  // Column sums over dim 0 and a full sum (dims {}), exact small integers.
  std::vector<float> x = {1, 2, 3, 4, 5, 6};
  auto xt = f32(x, {2, 3});
  EXPECT_TRUE(ct::check_reduction(f32({5, 7, 9}), xt, {0}, false).ok);
  EXPECT_TRUE(ct::check_reduction(concord::scalar_tensor(21.0, concord::float32), xt, {}, false).ok);
  EXPECT_FALSE(ct::check_reduction(f32({5, 7, 9.01f}), xt, {0}, false).ok);
  // float16: accumulation in float32 (bound tiny), output rounding half an f16 ULP.
  // 1000 + 0.25 + 0.25 + 0.25 = 1000.75 -> f16 1000.5 or 1001 (spacing 0.5): |err| <= 0.25.
  auto xh = make(concord::float16, {1000, 0.25, 0.25, 0.25});
  EXPECT_TRUE(ct::check_reduction(make(concord::float16, {1001}), xh, {0}, true).ok);
  EXPECT_TRUE(ct::check_reduction(make(concord::float16, {1000.5}), xh, {0}, true).ok);
  auto off = ct::check_reduction(make(concord::float16, {1000}), xh, {0}, true);
  EXPECT_FALSE(off.ok);  // 0.75 away; the bound is 0.25 + 4·2^-24·1000.75
  EXPECT_NEAR(off.worst_ratio, 3.0, 0.01);
  // With float16 accumulation declared the bound is 4·2^-11·1000.75 = 1.95 + 0.25.
  ct::ModelOptions acc16;
  acc16.accumulate = concord::float16;
  EXPECT_TRUE(ct::check_reduction(make(concord::float16, {1000}), xh, {0}, true, 1.0, acc16).ok);
  // Integers are exact.
  auto xi = concord::tensor(std::vector<int32_t>{1, 2, 3});
  EXPECT_TRUE(ct::check_reduction(concord::scalar_tensor(6, concord::int64), xi, {}, false).ok);
  auto wrong = ct::check_reduction(concord::scalar_tensor(7, concord::int64), xi, {}, false);
  EXPECT_FALSE(wrong.ok);
  EXPECT_TRUE(std::isinf(wrong.worst_ratio));
  // Infinities and NaN follow IEEE.
  EXPECT_TRUE(ct::check_reduction(f32({INFINITY, NAN}), f32({1, INFINITY, INFINITY, -INFINITY}, {2, 2}), {1},
                                  false).ok);
}

namespace {
// C = A B in float32 with float32 accumulation, p = 0..k-1.
std::vector<float> naive_matmul(const std::vector<float>& a, const std::vector<float>& b, size_t m, size_t k,
                                size_t n) {
  std::vector<float> c(m * n, 0.f);
  for (size_t i = 0; i < m; ++i)
    for (size_t j = 0; j < n; ++j)
      for (size_t p = 0; p < k; ++p) c[i * n + j] += a[i * k + p] * b[p * n + j];
  return c;
}
}  // namespace

TEST(ErrorModel, Matmul) {
  const size_t M = 5, K = 700, N = 3;
  auto a = random_floats(M * K, 21), b = random_floats(K * N, 22);
  auto at = f32(a, {5, 700}), bt = f32(b, {700, 3});
  auto c = naive_matmul(a, b, M, K, N);
  auto ok = ct::check_matmul(f32(c, {5, 3}), at, bt);
  EXPECT_TRUE(ok.ok) << ok.str();
  // Independent bound at (4, 1); perturb by twice it.
  double exact = 0, mag = 0;
  for (size_t p = 0; p < K; ++p) {
    exact += static_cast<double>(a[4 * K + p]) * b[p * N + 1];
    mag += std::fabs(static_cast<double>(a[4 * K + p]) * b[p * N + 1]);
  }
  int e;
  std::frexp(exact, &e);
  const double bound = K * 0x1p-24 * mag + 0.5 * std::ldexp(1.0, e - 24);
  auto bad = c;
  bad[4 * N + 1] = static_cast<float>(exact + 2 * bound);
  auto mb = ct::check_matmul(f32(bad, {5, 3}), at, bt);
  EXPECT_FALSE(mb.ok);
  EXPECT_EQ(mb.failures, 1);
  EXPECT_EQ(mb.worst_index, (std::vector<int64_t>{4, 1}));
  EXPECT_NEAR(mb.worst_ratio, 2.0, 0.05);
  EXPECT_NE(mb.str().find("worst element (4, 1)"), std::string::npos) << mb.str();
  EXPECT_THROW(ct::check_matmul(f32(c, {5, 3}), at, f32(b, {3, 700})), concord::ShapeError);
}

TEST(ErrorModel, MatmulBatchedBroadcastAndVectors) {
  const size_t B = 3, M = 4, K = 6, N = 2;
  auto a = random_floats(B * M * K, 31), b = random_floats(B * K * N, 32);
  std::vector<float> c;
  for (size_t i = 0; i < B; ++i) {
    std::vector<float> ai(a.begin() + i * M * K, a.begin() + (i + 1) * M * K);
    std::vector<float> bi(b.begin() + i * K * N, b.begin() + (i + 1) * K * N);
    auto ci = naive_matmul(ai, bi, M, K, N);
    c.insert(c.end(), ci.begin(), ci.end());
  }
  auto at = f32(a, {3, 4, 6}), bt = f32(b, {3, 6, 2});
  EXPECT_TRUE(ct::check_matmul(f32(c, {3, 4, 2}), at, bt).ok);
  auto bad = c;
  bad[(2 * M + 1) * N + 0] += 0.01f;
  auto mb = ct::check_matmul(f32(bad, {3, 4, 2}), at, bt);
  EXPECT_FALSE(mb.ok);
  EXPECT_EQ(mb.worst_index, (std::vector<int64_t>{2, 1, 0}));
  // Broadcast: every batch against the first b.
  std::vector<float> b0(b.begin(), b.begin() + K * N), cb;
  for (size_t i = 0; i < B; ++i) {
    std::vector<float> ai(a.begin() + i * M * K, a.begin() + (i + 1) * M * K);
    auto ci = naive_matmul(ai, b0, M, K, N);
    cb.insert(cb.end(), ci.begin(), ci.end());
  }
  EXPECT_TRUE(ct::check_matmul(f32(cb, {3, 4, 2}), at, f32(b0, {6, 2})).ok);
  EXPECT_FALSE(ct::check_matmul(f32(c, {3, 4, 2}), at, f32(b0, {6, 2})).ok);
  // Vector @ matrix: [6] @ [6, 2] -> [2].
  std::vector<float> v(a.begin(), a.begin() + K);
  auto cv = naive_matmul(v, b0, 1, K, N);
  EXPECT_TRUE(ct::check_matmul(f32(cv), f32(v), f32(b0, {6, 2})).ok);
  // float16 operands, float32 accumulation, float16 output: the rounded exact result passes.
  const double b1 = static_cast<float>(concord::float16_t(0.1f)), b2 = static_cast<float>(concord::float16_t(0.2f));
  auto ah = make(concord::float16, {1, 2, 3, 4}), bh = make(concord::float16, {b1, b2});
  auto ch = make(concord::float16, {to_dtype(concord::float16, 1 * b1 + 2 * b2), to_dtype(concord::float16, 3 * b1 + 4 * b2)});
  EXPECT_TRUE(ct::check_matmul(ch, ah.reshape({2, 2}), bh).ok);
}

namespace {
// y = A x in double for an n x n row-major A.
std::vector<double> matvec(const std::vector<double>& a, const std::vector<double>& x, size_t n) {
  std::vector<double> y(n, 0.0);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) y[i] += a[i * n + j] * x[j];
  return y;
}
// Gaussian elimination with partial pivoting in double.
std::vector<double> gepp(std::vector<double> a, std::vector<double> b, size_t n) {
  for (size_t k = 0; k < n; ++k) {
    size_t p = k;
    for (size_t i = k + 1; i < n; ++i)
      if (std::fabs(a[i * n + k]) > std::fabs(a[p * n + k])) p = i;
    for (size_t j = 0; j < n; ++j) std::swap(a[k * n + j], a[p * n + j]);
    std::swap(b[k], b[p]);
    for (size_t i = k + 1; i < n; ++i) {
      const double l = a[i * n + k] / a[k * n + k];
      for (size_t j = k; j < n; ++j) a[i * n + j] -= l * a[k * n + j];
      b[i] -= l * b[k];
    }
  }
  std::vector<double> x(n);
  for (size_t i = n; i-- > 0;) {
    double s = b[i];
    for (size_t j = i + 1; j < n; ++j) s -= a[i * n + j] * x[j];
    x[i] = s / a[i * n + i];
  }
  return x;
}
}  // namespace

TEST(ErrorModel, SolveBatchedVectors) {
  const size_t B = 3, N = 5;
  std::vector<float> a, x, b;
  for (size_t s = 0; s < B; ++s) {
    auto as = random_floats(N * N, 40 + static_cast<unsigned>(s));
    auto xs = random_floats(N, 50 + static_cast<unsigned>(s));
    std::vector<double> ad(as.begin(), as.end()), xd(xs.begin(), xs.end());
    auto bd = matvec(ad, xd, N);  // exact-ish in double, then rounded to float32
    a.insert(a.end(), as.begin(), as.end());
    x.insert(x.end(), xs.begin(), xs.end());
    for (double v : bd) b.push_back(static_cast<float>(v));
  }
  auto at = f32(a, {3, 5, 5}), bt = f32(b, {3, 5});
  auto m = ct::check_solve(f32(x, {3, 5}), at, bt);
  EXPECT_TRUE(m.ok) << m.str();
  EXPECT_EQ(m.total, 3);
  EXPECT_LE(m.worst_ratio, 1.0);
  auto bad = x;
  bad[1 * N + 2] *= 1.001f;
  auto mb = ct::check_solve(f32(bad, {3, 5}), at, bt);
  EXPECT_FALSE(mb.ok);
  EXPECT_EQ(mb.failures, 1);
  EXPECT_EQ(mb.worst_index, (std::vector<int64_t>{1}));
  EXPECT_GT(mb.worst_ratio, 10.0);
  EXPECT_NE(mb.str().find("worst system (1,)"), std::string::npos) << mb.str();
  EXPECT_NE(mb.str().find("NOT rounding"), std::string::npos) << mb.str();
  EXPECT_THROW(ct::check_solve(f32(x, {3, 5}), f32(a, {3, 25}), bt), concord::ShapeError);
  EXPECT_THROW(ct::check_solve(concord::tensor(std::vector<int32_t>{1}), f32({1}, {1, 1}), f32({1})),
               concord::DtypeError);
}

TEST(ErrorModel, SolveMatrixRhsFloat64) {
  const size_t N = 8, K = 2;
  auto af = random_floats(N * N, 60);
  std::vector<double> a(af.begin(), af.end());
  for (size_t i = 0; i < N; ++i) a[i * N + i] += 4.0;  // well conditioned
  auto bf = random_floats(N * K, 61);
  std::vector<double> b(bf.begin(), bf.end()), x(N * K);
  for (size_t r = 0; r < K; ++r) {
    std::vector<double> col(N);
    for (size_t i = 0; i < N; ++i) col[i] = b[i * K + r];
    auto xs = gepp(a, col, N);
    for (size_t i = 0; i < N; ++i) x[i * K + r] = xs[i];
  }
  auto at = f64(a, {8, 8}), bt = f64(b, {8, 2});
  auto m = ct::check_solve(f64(x, {8, 2}), at, bt);
  EXPECT_TRUE(m.ok) << m.str();
  EXPECT_EQ(m.total, 2);
  auto bad = x;
  bad[3 * K + 1] += 1e-9;  // backward error ~1e-10, far above 8·2^-53
  auto mb = ct::check_solve(f64(bad, {8, 2}), at, bt);
  EXPECT_FALSE(mb.ok);
  EXPECT_EQ(mb.worst_index, (std::vector<int64_t>{1}));
  // A NaN solution is never a solution.
  bad[0] = kNaN;
  EXPECT_TRUE(std::isinf(ct::check_solve(f64(bad, {8, 2}), at, bt).worst_ratio));
}
