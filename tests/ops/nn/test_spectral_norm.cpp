// nn::SpectralNorm on every device configuration and floating dtype: one
// power iteration and sigma from the module's own u, v against float64 loops;
// bounds derived in the comments at spectral_bound().
#include "nn_checks.h"

namespace concord {
namespace {

// ---------------------------------------------------------------- SpectralNorm

struct Mat {
  int64_t h, w;
  Vec a;  // row-major
  double at(int64_t i, int64_t j) const { return a[i * w + j]; }
};

Vec normalize(const Vec& x, double eps) {
  double s = 0;
  for (double v : x) s += v * v;
  const double n = std::max(std::sqrt(s), eps);
  Vec r(x.size());
  for (size_t i = 0; i < x.size(); ++i) r[i] = x[i] / n;
  return r;
}
Vec mv(const Mat& m, const Vec& v, bool transpose) {
  Vec r(static_cast<size_t>(transpose ? m.w : m.h), 0.0);
  for (int64_t i = 0; i < m.h; ++i)
    for (int64_t j = 0; j < m.w; ++j) {
      if (transpose) r[j] += m.at(i, j) * v[i];
      else r[i] += m.at(i, j) * v[j];
    }
  return r;
}
// PyTorch's power method in float64.
void power(const Mat& m, Vec& u, Vec& v, int iters, double eps) {
  for (int i = 0; i < iters; ++i) {
    u = normalize(mv(m, v, false), eps);
    v = normalize(mv(m, u, true), eps);
  }
}
double sigma_of(const Mat& m, const Vec& u, const Vec& v) {
  const Vec wv = mv(m, v, false);
  double s = 0;
  for (size_t i = 0; i < u.size(); ++i) s += u[i] * wv[i];
  return s;
}

double max_diff(const Vec& a, const Vec& b) {
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::fabs(a[i] - b[i]));
  return d;
}

// Error bounds for one power iteration + sigma run in dtype t (unit roundoff
// u, accumulation roundoff u_a, k = h + w) from the same u, v as the reference.
// A new unit vector: the mv (k·u_a relative to |W||v|), its rounding to t
// (u), the norm (k·u_a + u) and the division (u): about 3u + 2k·u_a per element
// (4u with slack); v starts from the computed u, so twice that. sigma = u·Wv
// moves only by the components of those errors along u and v plus the
// roundings of its own mv and dot; W / sigma adds one rounding: 12u + 8k·u_a
// relative. The 15 warm-up iterations contract earlier errors by the spectral
// gap; 16u + 8k·u_a covers the well-separated test matrices. (Measured worst
// cases over 200 random 6x5 matrices, cpu and opencl: 1.7u per vector step,
// 4.1u relative for the result, 10.6u after the warm-up.)
struct Bounds { double vec, rel, warmup; };
Bounds spectral_bound(Dtype t, int64_t h, int64_t w) {
  const double u = unit_roundoff(t), ua = accumulation_roundoff(t), k = static_cast<double>(h + w);
  return {4 * u + 2 * k * ua, 12 * u + 8 * k * ua, 16 * u + 8 * k * ua};
}

class SpectralNormTest : public NnTest {};

constexpr int64_t kH = 6, kW = 5;

Mat host_matrix(const Tensor& t) { return Mat{t.size(0), t.size(1), host(t)}; }

TEST_P(SpectralNormTest, WarmupMatchesFloat64PowerIteration) {
  const Tensor W = make(values(kH * kW, dtype(), 11), {kH, kW}, dtype(), device());
  nn::SpectralNorm sn(W, 1, 0, 1e-12, 77);
  ASSERT_EQ(sn.u().shape(), (Shape{kH}));
  ASSERT_EQ(sn.v().shape(), (Shape{kW}));
  ASSERT_EQ(sn.u().dtype(), dtype());
  ASSERT_EQ(sn.u().device(), device());
  // The documented start: randn([h + w], float64, cpu, seed) rounded to the dtype, normalised.
  const Vec r = host(randn({kH + kW}, float64, kCPU, 77));
  Vec u(kH), v(kW);
  for (int64_t i = 0; i < kH; ++i) u[i] = round_to(dtype(), r[i]);
  for (int64_t i = 0; i < kW; ++i) v[i] = round_to(dtype(), r[kH + i]);
  u = normalize(u, 1e-12);
  v = normalize(v, 1e-12);
  const Mat m = host_matrix(W);
  power(m, u, v, 15, 1e-12);
  const Bounds b = spectral_bound(dtype(), kH, kW);
  EXPECT_LE(max_diff(host(sn.u()), u), b.warmup);
  EXPECT_LE(max_diff(host(sn.v()), v), b.warmup);
}

TEST_P(SpectralNormTest, TrainingForwardMatchesFloat64Reference) {
  const Tensor W = make(values(kH * kW, dtype(), 12), {kH, kW}, dtype(), device());
  nn::SpectralNorm sn(W, 1, 0, 1e-12, 78);
  Vec u = host(sn.u()), v = host(sn.v());  // the module's own start, exact in float64
  const Mat m = host_matrix(W);
  power(m, u, v, 1, 1e-12);
  const double sigma = sigma_of(m, u, v);
  const Tensor out = sn();
  ASSERT_EQ(out.shape(), W.shape());
  ASSERT_EQ(out.dtype(), dtype());
  ASSERT_EQ(out.device(), device());
  const Bounds b = spectral_bound(dtype(), kH, kW);
  EXPECT_LE(max_diff(host(sn.u()), u), b.vec);
  EXPECT_LE(max_diff(host(sn.v()), v), 2 * b.vec);
  const Vec o = host(out);
  for (size_t i = 0; i < o.size(); ++i) {
    const double ref = m.a[i] / sigma;
    ASSERT_LE(std::fabs(o[i] - ref), b.rel * std::fabs(ref) + 0.5 * ulp(dtype(), ref)) << "element " << i;
  }
  // The result's largest singular value is 1 (to the accuracy of the estimate).
  Vec uu = u, vv = v;
  Mat n{kH, kW, o};
  power(n, uu, vv, 200, 1e-12);
  EXPECT_NEAR(sigma_of(n, uu, vv), 1.0, 0.05);
}

TEST_P(SpectralNormTest, EvalModeDoesNoIterations) {
  const Tensor W = make(values(kH * kW, dtype(), 13), {kH, kW}, dtype(), device());
  nn::SpectralNorm sn(W, 3, 0, 1e-12, 79);
  sn.eval();
  EXPECT_FALSE(sn.training());
  const auto u0 = bits(sn.u()), v0 = bits(sn.v());
  const Tensor out = sn();
  EXPECT_EQ(bits(sn.u()), u0);
  EXPECT_EQ(bits(sn.v()), v0);
  const Mat m = host_matrix(W);
  const double sigma = sigma_of(m, host(sn.u()), host(sn.v()));
  const Bounds b = spectral_bound(dtype(), kH, kW);
  const Vec o = host(out);
  for (size_t i = 0; i < o.size(); ++i) {
    const double ref = m.a[i] / sigma;
    ASSERT_LE(std::fabs(o[i] - ref), b.rel * std::fabs(ref) + 0.5 * ulp(dtype(), ref)) << "element " << i;
  }
}

// W = Q1 diag(1, 0.95, 0.5, 0.25, 0.1) Q2ᵀ (random orthogonal Q1, Q2): the
// iteration converges slowly, so after the warm-up each iteration still moves
// u visibly and the number of iterations a forward runs can be told apart.
Vec slow_matrix(Dtype t) {
  std::mt19937 g(31);
  std::normal_distribution<double> n;
  auto orthonormal = [&](int64_t rows, int64_t cols) {  // columns by Gram-Schmidt
    Vec q(static_cast<size_t>(rows * cols));
    for (double& x : q) x = n(g);
    for (int64_t c = 0; c < cols; ++c) {
      for (int64_t p = 0; p < c; ++p) {
        double d = 0;
        for (int64_t r = 0; r < rows; ++r) d += q[r * cols + c] * q[r * cols + p];
        for (int64_t r = 0; r < rows; ++r) q[r * cols + c] -= d * q[r * cols + p];
      }
      double s = 0;
      for (int64_t r = 0; r < rows; ++r) s += q[r * cols + c] * q[r * cols + c];
      for (int64_t r = 0; r < rows; ++r) q[r * cols + c] /= std::sqrt(s);
    }
    return q;
  };
  const Vec q1 = orthonormal(kH, kW), q2 = orthonormal(kW, kW);
  const double sv[kW] = {1, 0.95, 0.5, 0.25, 0.1};
  Vec w(kH * kW, 0.0);
  for (int64_t i = 0; i < kH; ++i)
    for (int64_t j = 0; j < kW; ++j) {
      for (int64_t k = 0; k < kW; ++k) w[i * kW + j] += q1[i * kW + k] * sv[k] * q2[j * kW + k];
      w[i * kW + j] = round_to(t, w[i * kW + j]);
    }
  return w;
}

TEST_P(SpectralNormTest, EachTrainingForwardRunsNPowerIterations) {
  const Tensor W = make(slow_matrix(dtype()), {kH, kW}, dtype(), device());
  const Mat m = host_matrix(W);
  nn::SpectralNorm sn(W, 2, 0, 1e-12, 82);
  const Bounds b = spectral_bound(dtype(), kH, kW);
  Vec u = host(sn.u()), v = host(sn.v());
  Vec u1 = u, v1 = v, u3 = u, v3 = v;
  power(m, u, v, 2, 1e-12);
  power(m, u1, v1, 1, 1e-12);
  power(m, u3, v3, 3, 1e-12);
  sn();
  // Two iterations, each within the one-step bound of the reference (errors do
  // not contract along the slow direction): 2 steps of u and v.
  const double tol = 2 * 2 * b.vec;
  EXPECT_LE(max_diff(host(sn.u()), u), tol);
  EXPECT_LE(max_diff(host(sn.v()), v), tol);
  // A module that ran 1 or 3 iterations would be within tol of u1 or u3, so more
  // than 2·tol from u: it would fail above. That holds where the precision
  // resolves one step (bfloat16's rounding is about the size of a step here).
  if (dtype() != bfloat16) {
    ASSERT_GT(max_diff(u1, u), 2 * tol) << "the test matrix converges too fast to count iterations";
    ASSERT_GT(max_diff(u3, u), 2 * tol) << "the test matrix converges too fast to count iterations";
  }
  // eval: none.
  sn.eval();
  const Bits u0 = bits(sn.u().clone());
  sn();
  EXPECT_EQ(bits(sn.u()), u0);
}

TEST_P(SpectralNormTest, OtherDimAndOneDimWeights) {
  // [3, 4, 2] with dim 1: the matrix is [4, 6] (dim 1 first, the rest flattened).
  const Tensor W = make(values(24, dtype(), 14), {3, 4, 2}, dtype(), device());
  nn::SpectralNorm sn(W, 1, 1, 1e-12, 80);
  ASSERT_EQ(sn.u().shape(), (Shape{4}));
  ASSERT_EQ(sn.v().shape(), (Shape{6}));
  const Vec hw = host(W);
  Mat m{4, 6, Vec(24)};
  for (int64_t a = 0; a < 3; ++a)
    for (int64_t r = 0; r < 4; ++r)
      for (int64_t c = 0; c < 2; ++c) m.a[r * 6 + a * 2 + c] = hw[(a * 4 + r) * 2 + c];
  Vec u = host(sn.u()), v = host(sn.v());
  power(m, u, v, 1, 1e-12);
  const double sigma = sigma_of(m, u, v);
  const Tensor out = sn();
  ASSERT_EQ(out.shape(), W.shape());
  const Bounds b = spectral_bound(dtype(), 4, 6);
  const Vec o = host(out);
  for (size_t i = 0; i < o.size(); ++i) {
    const double ref = hw[i] / sigma;
    ASSERT_LE(std::fabs(o[i] - ref), b.rel * std::fabs(ref) + 0.5 * ulp(dtype(), ref)) << "element " << i;
  }
  // 1-D: just normalised.
  const Tensor w1 = make(values(7, dtype(), 15), {7}, dtype(), device());
  const Vec ref1 = normalize(host(w1), 1e-12);
  const Vec o1 = host(nn::SpectralNorm(w1)());
  EXPECT_LE(max_diff(o1, ref1), b.vec);
}

TEST_P(SpectralNormTest, Errors) {
  const Tensor W = make(values(6, dtype(), 16), {2, 3}, dtype(), device());
  EXPECT_THROW(nn::SpectralNorm(W, 0), ValueError);
  EXPECT_THROW(nn::SpectralNorm(W, 1, 2), ShapeError);
  EXPECT_THROW(nn::SpectralNorm(W, 1, 0, 0.0), ValueError);
  EXPECT_THROW(nn::SpectralNorm(scalar_tensor(1.0, dtype(), device())), ShapeError);
  EXPECT_THROW(nn::SpectralNorm(zeros({2, 2}, int32, device())), DtypeError);
}

// A known state, as a PyTorch model holds it: W [3, 4], _u and _v set by hand.
// PyTorch 1.13 (float64, parametrizations.spectral_norm, after copying these
// into _u/_v) gives one training iteration's u, v below and eval's W / -0.3.
const Vec kSnW = {0.5, -1.25, 2.0, 0.75, 1.5, 0.25, -0.5, 1.0, -0.75, 2.5, 1.25, -1.5};
const Vec kSnU = {0.6, -0.8, 0.0}, kSnV = {0.5, 0.5, 0.5, 0.5};
const Vec kTorchU1 = {0.5946353169977331, 0.6689647316224497, 0.4459764877482998};
const Vec kTorchV1 = {0.5226988667334469, 0.29150513721672994, 0.7639444975334992, 0.24124563080005243};

TEST_P(SpectralNormTest, SetUVFromAKnownState) {
  const Tensor W = make(kSnW, {3, 4}, dtype(), device());
  const Mat m = host_matrix(W);
  const Bounds b = spectral_bound(dtype(), 3, 4);
  nn::SpectralNorm sn(W, 1, 0, 1e-12, 5);
  // Given as float64 host tensors (as read from a checkpoint): rounded once to the weight's dtype, moved.
  sn.set_u(from_host(kSnU.data(), {3}, float64, kCPU));
  sn.set_v(from_host(kSnV.data(), {4}, float64, kCPU));
  ASSERT_EQ(sn.u().dtype(), dtype());
  ASSERT_EQ(sn.v().device(), device());
  Vec ur(3), vr(4);  // rounded once to the dtype, not normalised
  for (size_t i = 0; i < 3; ++i) ur[i] = round_to(dtype(), kSnU[i]);
  for (size_t i = 0; i < 4; ++i) vr[i] = round_to(dtype(), kSnV[i]);
  EXPECT_EQ(host(sn.u()), ur);
  EXPECT_EQ(host(sn.v()), vr);
  // Eval: sigma = dot(u, W v) from the given state (-0.3 in float64), by a float64 loop.
  sn.eval();
  ASSERT_NEAR(sigma_of(m, kSnU, kSnV), -0.3, 1e-15);
  const double sigma0 = sigma_of(m, ur, vr);
  Vec o = host(sn());
  for (size_t i = 0; i < o.size(); ++i) {
    const double ref = m.a[i] / sigma0;
    ASSERT_LE(std::fabs(o[i] - ref), b.rel * std::fabs(ref) + 0.5 * ulp(dtype(), ref)) << "element " << i;
  }
  // Training: one iteration from the given state, against a float64 power
  // iteration and against PyTorch's recorded u, v.
  sn.train();
  Vec u = kSnU, v = kSnV;
  power(m, u, v, 1, 1e-12);
  ASSERT_LE(max_diff(u, kTorchU1), 1e-15);  // the reference loop is PyTorch's
  ASSERT_LE(max_diff(v, kTorchV1), 1e-15);
  u = ur, v = vr;
  power(m, u, v, 1, 1e-12);
  const double sigma = sigma_of(m, u, v);
  o = host(sn());
  EXPECT_LE(max_diff(host(sn.u()), u), b.vec);
  EXPECT_LE(max_diff(host(sn.v()), v), 2 * b.vec);
  for (size_t i = 0; i < o.size(); ++i) {
    const double ref = m.a[i] / sigma;
    ASSERT_LE(std::fabs(o[i] - ref), b.rel * std::fabs(ref) + 0.5 * ulp(dtype(), ref)) << "element " << i;
  }
  // The module holds a copy: writing into the tensor it was given changes nothing.
  Tensor mine = make(kSnU, {3}, dtype(), device());
  sn.set_u(mine);
  mine.copy_(zeros({3}, dtype(), device()));
  EXPECT_EQ(host(sn.u()), ur);
}

TEST_P(SpectralNormTest, SetUVErrorsLeaveTheModuleUnchanged) {
  const Tensor W = make(kSnW, {3, 4}, dtype(), device());
  nn::SpectralNorm sn(W, 1, 0, 1e-12, 6);
  const Bits u0 = bits(sn.u()), v0 = bits(sn.v());
  EXPECT_THROW(sn.set_u(zeros({4}, dtype(), device())), ShapeError);
  EXPECT_THROW(sn.set_v(zeros({3}, dtype(), device())), ShapeError);
  EXPECT_THROW(sn.set_u(zeros({3}, int32, device())), DtypeError);
  EXPECT_THROW(sn.set_v(Tensor()), ValueError);
  try {
    sn.set_v(zeros({2, 2}, dtype(), device()));
    FAIL() << "no error";
  } catch (const ShapeError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("[SpectralNorm.set_v] v must have shape [4]", 0), 0u) << e.what();
  }
  EXPECT_EQ(bits(sn.u()), u0);
  EXPECT_EQ(bits(sn.v()), v0);
  nn::SpectralNorm one(make(values(3, dtype(), 7), {3}, dtype(), device()));
  EXPECT_THROW(one.set_u(zeros({3}, dtype(), device())), ValueError);
}

TEST_P(SpectralNormTest, NamedParametersAndBuffers) {
  const Tensor W = make(values(kH * kW, dtype(), 21), {kH, kW}, dtype(), device());
  const nn::SpectralNorm sn(W, 1, 0, 1e-12, 3);
  const auto p = sn.named_parameters();
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].first, "weight");
  EXPECT_EQ(p[0].second.storage(), W.storage());
  ASSERT_EQ(sn.parameters().size(), 1u);
  const auto b = sn.named_buffers();
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].first, "_u");
  EXPECT_EQ(b[1].first, "_v");
  EXPECT_EQ(b[0].second.shape(), (Shape{kH}));
  EXPECT_EQ(b[1].second.shape(), (Shape{kW}));
  EXPECT_EQ(host(b[0].second), host(sn.u()));
  const nn::SpectralNorm one(make(values(4, dtype(), 22), {4}, dtype(), device()));
  EXPECT_TRUE(one.named_buffers().empty());
}

CONCORD_INSTANTIATE_NN(SpectralNormTest);

TEST(SpectralNormAutocast, Float32WeightInsideAScope) {
  const Tensor W = make(values(kH * kW, float32, 17), {kH, kW}, float32, kCPU);
  nn::SpectralNorm sn(W, 1, 0, 1e-12, 81);
  autocast ac(DeviceKind::cpu);
  const Tensor out = sn();  // mv in bfloat16; u, v stay float32
  EXPECT_EQ(sn.u().dtype(), float32);
  EXPECT_EQ(sn.v().dtype(), float32);
  EXPECT_EQ(out.dtype(), float32);
  const Mat m = host_matrix(W);
  Vec u = host(sn.u()), v = host(sn.v());
  power(m, u, v, 100, 1e-12);
  const double sigma = sigma_of(m, u, v);
  const Vec o = host(out);
  for (size_t i = 0; i < o.size(); ++i) EXPECT_NEAR(o[i], m.a[i] / sigma, 0.05 * std::fabs(m.a[i] / sigma) + 1e-6);
}

}  // namespace
}  // namespace concord
