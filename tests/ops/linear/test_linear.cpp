// matmul, mm, bmm, mv, dot, outer against a float64 reference computed here
// with plain loops, on every device configuration and dtype.
//
// Floats: |C - ref| <= 2·k·u·(|A||B|) elementwise with u of the accumulation
// (float32 for float16/bfloat16/float32, float64 for float64), plus one final
// rounding to the output dtype for float16/bfloat16. Integers: exact.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "concord/concord.h"
#include "support/devices.h"

namespace concord {
// Readable test parameters ("float16" rather than a byte dump).
inline void PrintTo(Dtype t, std::ostream* os) { *os << name(t); }

namespace {

using test::DeviceConfig;

// ---- host helpers ----
struct Host {
  Shape shape;
  std::vector<double> v;
};

double round_to(Dtype t, double x) {
  switch (t) {
    case Dtype::float16: return static_cast<float>(float16_t(static_cast<float>(x)));
    case Dtype::bfloat16: return static_cast<float>(bfloat16_t(static_cast<float>(x)));
    case Dtype::float32: return static_cast<float>(x);
    default: return x;
  }
}

// Values exact in t: uniform in [-1, 1] for floats, integers in [-8, 8] otherwise.
std::vector<double> values(int64_t n, Dtype t, uint32_t seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> uf(-1.0, 1.0);
  std::uniform_int_distribution<int> ui(-8, 8);
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) x = is_floating(t) ? round_to(t, uf(g)) : ui(g);
  return v;
}

Host host_of(const Tensor& t) { return {t.shape(), t.to_vector<double>()}; }

struct Ref {
  Shape shape;
  std::vector<double> val, mag;  // exact-ish product and |A||B|
  int64_t k = 0;
};

// NumPy matmul semantics on host data (1-D promotion, batch broadcasting).
Ref ref_matmul(const Host& a, const Host& b) {
  const bool a1 = a.shape.size() == 1, b1 = b.shape.size() == 1;
  Shape sa = a1 ? Shape{1, a.shape[0]} : a.shape;
  Shape sb = b1 ? Shape{b.shape[0], 1} : b.shape;
  const int64_t M = sa[sa.size() - 2], K = sa[sa.size() - 1], N = sb[sb.size() - 1];
  const size_t na = sa.size() - 2, nbd = sb.size() - 2, nb = std::max(na, nbd);
  std::vector<int64_t> da(nb, 1), db(nb, 1), dout(nb, 1);
  for (size_t i = 0; i < na; ++i) da[nb - na + i] = sa[i];
  for (size_t i = 0; i < nbd; ++i) db[nb - nbd + i] = sb[i];
  int64_t batches = 1;
  for (size_t i = 0; i < nb; ++i) { dout[i] = std::max(da[i], db[i]); batches *= dout[i]; }
  Ref r;
  r.k = K;
  for (size_t i = 0; i < nb; ++i) r.shape.push_back(dout[i]);
  if (!a1) r.shape.push_back(M);
  if (!b1) r.shape.push_back(N);
  r.val.assign(static_cast<size_t>(batches * M * N), 0.0);
  r.mag = r.val;
  for (int64_t ob = 0; ob < batches; ++ob) {
    int64_t rem = ob, ia = 0, ib = 0, fa = 1, fb = 1;
    for (size_t d = nb; d-- > 0;) {
      const int64_t idx = rem % dout[d];
      rem /= dout[d];
      ia += (da[d] == 1 ? 0 : idx) * fa;
      ib += (db[d] == 1 ? 0 : idx) * fb;
      fa *= da[d];
      fb *= db[d];
    }
    const double* pa = a.v.data() + ia * M * K;
    const double* pb = b.v.data() + ib * K * N;
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double s = 0, m = 0;
        for (int64_t k = 0; k < K; ++k) {
          s += pa[i * K + k] * pb[k * N + j];
          m += std::fabs(pa[i * K + k] * pb[k * N + j]);
        }
        r.val[static_cast<size_t>((ob * M + i) * N + j)] = s;
        r.mag[static_cast<size_t>((ob * M + i) * N + j)] = m;
      }
  }
  return r;
}

double unit_roundoff(Dtype t) {
  switch (t) {
    case Dtype::float16: return std::ldexp(1.0, -11);
    case Dtype::bfloat16: return std::ldexp(1.0, -8);
    case Dtype::float32: return std::ldexp(1.0, -24);
    default: return std::ldexp(1.0, -53);
  }
}

void expect_matches(const Tensor& got, const Ref& r, Dtype t, const Device& dev) {
  ASSERT_EQ(shape_str(got.shape()), shape_str(r.shape));
  EXPECT_EQ(got.dtype(), t);
  EXPECT_EQ(got.device(), dev);
  const std::vector<double> g = got.to_vector<double>();
  ASSERT_EQ(g.size(), r.val.size());
  int failures = 0;
  for (size_t i = 0; i < g.size() && failures < 5; ++i) {
    if (!is_floating(t)) {
      if (g[i] != r.val[i]) { ++failures; ADD_FAILURE() << "element " << i << ": got " << g[i] << ", want " << r.val[i]; }
      continue;
    }
    // Accumulation in float32 (float64 for float64), then one rounding to a half dtype.
    const double ua = t == Dtype::float64 ? unit_roundoff(float64) : unit_roundoff(float32);
    const double acc = 2.0 * static_cast<double>(r.k) * ua * r.mag[i];
    const double bound = is_half(t) ? acc + unit_roundoff(t) * (std::fabs(r.val[i]) + acc) : acc;
    if (!(std::fabs(g[i] - r.val[i]) <= bound)) {
      ++failures;
      ADD_FAILURE() << "element " << i << ": got " << g[i] << ", want " << r.val[i] << " within " << bound;
    }
  }
}

// ---- fixture over (device config, dtype) ----
using Param = std::tuple<DeviceConfig, Dtype>;

class LinearTest : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override {
    scope_ = std::make_unique<test::ConfigScope>(std::get<0>(GetParam()));
    if (!capabilities(device()).can_store(dtype()))
      GTEST_SKIP() << name(dtype()) << " cannot be stored on " << std::get<0>(GetParam()).label;
  }
  void TearDown() override { scope_.reset(); }
  const Device& device() const { return std::get<0>(GetParam()).device; }
  Dtype dtype() const { return std::get<1>(GetParam()); }
  // A device tensor with values exact in the dtype.
  Tensor make(Shape shape, uint32_t seed) const {
    std::vector<double> v = values(numel(shape), dtype(), seed);
    return from_host(v.data(), shape, float64, kCPU).to(dtype()).to(device());
  }
  void check(const Tensor& got, const Tensor& a, const Tensor& b) const {
    expect_matches(got, ref_matmul(host_of(a), host_of(b)), dtype(), device());
  }
  std::unique_ptr<test::ConfigScope> scope_;
};

TEST_P(LinearTest, MmShapes) {
  const int64_t shapes[][3] = {{1, 1, 1}, {3, 4, 5}, {37, 53, 29}, {64, 64, 64}, {1, 7, 9}, {9, 7, 1}, {130, 70, 90}, {2, 300, 3}};
  uint32_t seed = 1;
  for (const auto& s : shapes) {
    SCOPED_TRACE(std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" + std::to_string(s[2]));
    Tensor a = make({s[0], s[1]}, seed++), b = make({s[1], s[2]}, seed++);
    check(mm(a, b), a, b);
    check(matmul(a, b), a, b);
  }
}

TEST_P(LinearTest, NonContiguousInputs) {
  const int64_t M = 23, K = 31, N = 17;
  // Transposed contiguous views (read in place through the transpose flags).
  Tensor at = make({K, M}, 11).t(), bt = make({N, K}, 12).t();
  check(mm(at, bt), at, bt);
  // Every other column (neither row- nor column-major: copied) and a row-padded matrix.
  Tensor as = make({M, 2 * K}, 13).slice(1, 0, std::nullopt, 2);
  Tensor bp = make({K, N + 5}, 14).narrow(1, 2, N);
  check(mm(as, bp), as, bp);
  // Negative strides (a flipped view built directly).
  Tensor base = make({K, N}, 15);
  Tensor bf(base.storage(), Shape{K, N}, Strides{-N, 1}, base.offset() + (K - 1) * N, base.dtype());
  check(mm(as, bf), as, bf);
  // Strided vectors.
  Tensor v = make({2 * K}, 16).slice(0, 0, std::nullopt, 2);
  check(mv(at, v), at, v);
  check(matmul(v, bt), v, bt);
  check(dot(v, make({3 * K}, 17).slice(0, 1, std::nullopt, 3)), v, make({3 * K}, 17).slice(0, 1, std::nullopt, 3));
  // A broadcast (stride-0) vector.
  Tensor e = make({1}, 18).expand({K});
  check(mv(at, e), at, e);
}

TEST_P(LinearTest, BatchedAndBroadcast) {
  Tensor a = make({4, 5, 6}, 21), b = make({4, 6, 3}, 22);
  check(bmm(a, b), a, b);
  check(matmul(a, b), a, b);
  // Batch dims broadcast: [2, 1, 5, 6] x [3, 6, 4] -> [2, 3, 5, 4].
  Tensor a4 = make({2, 1, 5, 6}, 23), b3 = make({3, 6, 4}, 24);
  check(matmul(a4, b3), a4, b3);
  // A shared right matrix: [3, 5, 6] x [6, 4].
  Tensor b2 = make({6, 4}, 25);
  check(matmul(a.narrow(0, 0, 3), b2), a.narrow(0, 0, 3), b2);
  // Transposed batch of left matrices with a shared right one.
  Tensor at = make({3, 6, 5}, 26).transpose(1, 2);
  check(matmul(at, b2), at, b2);
  // Batch dims whose strides do not merge: [2, 3, 5, 6] from a [3, 2, 5, 6] transpose.
  Tensor ap = make({3, 2, 5, 6}, 27).transpose(0, 1);
  Tensor bp = make({2, 3, 6, 2}, 28);
  check(matmul(ap, bp), ap, bp);
  // 1-D on either side of a batch.
  Tensor v = make({6}, 29);
  check(matmul(v, b3), v, b3);
  check(matmul(a, v), a, v);
  // Many small matrices (spread over threads).
  Tensor sa = make({64, 8, 8}, 30), sb = make({64, 8, 8}, 31);
  check(bmm(sa, sb), sa, sb);
  Tensor sc = make({1, 8, 8}, 32).expand({64, 8, 8});
  check(bmm(sa, sc), sa, sc);
}

TEST_P(LinearTest, VectorOps) {
  Tensor a = make({7, 9}, 41), u = make({9}, 42), w = make({7}, 43);
  Tensor d = dot(u, make({9}, 44));
  EXPECT_EQ(d.ndim(), 0);
  check(d, u, make({9}, 44));
  check(mv(a, u), a, u);
  Tensor mvv = matmul(u, u);
  EXPECT_EQ(mvv.ndim(), 0);
  check(mvv, u, u);
  check(matmul(w, a), w, a);
  check(matmul(a, u), a, u);
  // outer is a product with k = 1.
  Tensor o = outer(w, u);
  check(o, w.unsqueeze(1), u.unsqueeze(0));
  EXPECT_EQ(shape_str(o.shape()), "[7, 9]");
}

TEST_P(LinearTest, LongAndPanelled) {
  // Long reductions, and (for float16/bfloat16) more rows than one widened panel holds.
  const int64_t M = is_half(dtype()) ? 1100 : 48;
  Tensor a = make({M, 4096}, 51), b = make({4096, 2}, 52);
  check(mm(a, b), a, b);
  Tensor at = make({4096, M}, 53).t();
  check(mm(at, b), at, b);
  Tensor v = make({4096}, 54);
  check(mv(a, v), a, v);
  check(dot(v, make({4096}, 55)), v, make({4096}, 55));
}

TEST_P(LinearTest, EmptyDims) {
  // k = 0: an empty sum is 0.
  Tensor z = mm(make({3, 0}, 61), make({0, 4}, 62));
  EXPECT_EQ(shape_str(z.shape()), "[3, 4]");
  for (double x : z.to_vector<double>()) EXPECT_EQ(x, 0.0);
  Tensor zd = dot(make({0}, 63), make({0}, 64));
  EXPECT_EQ(zd.ndim(), 0);
  EXPECT_EQ(zd.item<double>(), 0.0);
  Tensor zb = matmul(make({2, 3, 0}, 65), make({0, 5}, 66));
  EXPECT_EQ(shape_str(zb.shape()), "[2, 3, 5]");
  for (double x : zb.to_vector<double>()) EXPECT_EQ(x, 0.0);
  // m = 0, n = 0, batch = 0: empty results.
  EXPECT_EQ(shape_str(mm(make({0, 5}, 67), make({5, 4}, 68)).shape()), "[0, 4]");
  EXPECT_EQ(shape_str(mm(make({3, 5}, 69), make({5, 0}, 70)).shape()), "[3, 0]");
  Tensor e = bmm(make({0, 2, 3}, 71), make({0, 3, 4}, 72));
  EXPECT_EQ(shape_str(e.shape()), "[0, 2, 4]");
  EXPECT_EQ(e.dtype(), dtype());
  EXPECT_EQ(shape_str(mv(make({0, 3}, 73), make({3}, 74)).shape()), "[0]");
  EXPECT_EQ(shape_str(outer(make({0}, 75), make({4}, 76)).shape()), "[0, 4]");
}

std::string param_name(const ::testing::TestParamInfo<Param>& info) {
  std::string s = std::get<0>(info.param).label + "_" + std::string(name(std::get<1>(info.param)));
  for (char& c : s)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(DevicesDtypes, LinearTest,
                         ::testing::Combine(::testing::ValuesIn(test::test_devices()),
                                            ::testing::Values(float16, bfloat16, float32, float64, int32, int64)),
                         param_name);

// ---- device-only tests ----
class LinearDeviceTest : public test::DeviceTest {};

Tensor on(const std::vector<double>& v, Shape s, Dtype t, const Device& d) {
  return from_host(v.data(), s, float64, kCPU).to(t).to(d);
}

// The PyTorch 1.13 CPU gap ("dot" not implemented for 'Half'): here dot, mv
// and matmul work in float16 and bfloat16 on every device, accumulating in float32.
TEST_P(LinearDeviceTest, HalfDotMvMatmul) {
  for (Dtype t : {float16, bfloat16}) {
    SCOPED_TRACE(std::string(name(t)));
    const int64_t n = 1000;
    Tensor a = on(values(n * 40, t, 81), {40, n}, t, device());
    Tensor u = on(values(n, t, 82), {n}, t, device()), w = on(values(n, t, 83), {n}, t, device());
    Tensor b = on(values(n * 30, t, 84), {n, 30}, t, device());
    expect_matches(dot(u, w), ref_matmul(host_of(u), host_of(w)), t, device());
    expect_matches(mv(a, u), ref_matmul(host_of(a), host_of(u)), t, device());
    expect_matches(matmul(a, b), ref_matmul(host_of(a), host_of(b)), t, device());
    // Accumulating in float32 matters: 4096 ones sum exactly past float16's 2048 limit of exact integers.
    Tensor ones_v = ones({4096}, t, device());
    EXPECT_EQ(dot(ones_v, ones_v).item<double>(), 4096.0);
  }
}

TEST_P(LinearDeviceTest, IntegersWrapAround) {
  Tensor a = on({65536.0}, {1, 1}, int32, device());
  EXPECT_EQ(mm(a, a).item<int64_t>(), 0);  // 2^32 wraps to 0
  Tensor b = on({1073741824.0, 1073741824.0}, {1, 2}, int32, device());
  Tensor c = on({1.0, 1.0}, {2, 1}, int32, device());
  EXPECT_EQ(mm(b, c).item<int64_t>(), INT32_MIN);  // 2^30 + 2^30 wraps to -2^31
  Tensor d = on({4611686018427387904.0}, {1}, int64, device());
  Tensor e = on({4.0}, {1}, int64, device());
  EXPECT_EQ(dot(d, e).item<int64_t>(), 0);  // 2^62 * 4 wraps to 0
  Tensor f = on({100.0, 100.0, 100.0}, {3}, int8, device());
  EXPECT_EQ(dot(f, f).item<int64_t>(), static_cast<int8_t>(static_cast<uint8_t>(30000 & 0xff)));
}

TEST_P(LinearDeviceTest, Errors) {
  const Device& d = device();
  Tensor a = zeros({2, 3}, float32, d), b = zeros({4, 5}, float32, d);
  try {
    matmul(a, b);
    ADD_FAILURE() << "no error";
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("[matmul] shapes [2, 3] and [4, 5] cannot be multiplied (3 != 4)"),
              std::string::npos) << e.what();
  }
  EXPECT_THROW(mm(a, b), ShapeError);
  EXPECT_THROW(mm(a, zeros({3}, float32, d)), ShapeError);
  EXPECT_THROW(bmm(zeros({2, 2, 3}, float32, d), zeros({3, 3, 2}, float32, d)), ShapeError);
  EXPECT_THROW(bmm(a, a.t()), ShapeError);
  EXPECT_THROW(mv(a, zeros({2}, float32, d)), ShapeError);
  EXPECT_THROW(dot(zeros({3}, float32, d), zeros({4}, float32, d)), ShapeError);
  EXPECT_THROW(dot(a, a), ShapeError);
  EXPECT_THROW(outer(a, zeros({3}, float32, d)), ShapeError);
  EXPECT_THROW(matmul(zeros({}, float32, d), a), ShapeError);
  EXPECT_THROW(matmul(zeros({2, 2, 3}, float32, d), zeros({3, 3, 4}, float32, d)), ShapeError);  // batch 2 vs 3
  // Dtypes must match; the message names both and the fix.
  try {
    matmul(a, zeros({3, 2}, int32, d));
    ADD_FAILURE() << "no error";
  } catch (const DtypeError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("[matmul]"), std::string::npos) << m;
    EXPECT_NE(m.find("float32[2, 3]"), std::string::npos) << m;
    EXPECT_NE(m.find("int32[3, 2]"), std::string::npos) << m;
    EXPECT_NE(m.find(".to("), std::string::npos) << m;
  }
  // bool is not a numeric dtype for products.
  EXPECT_THROW(mm(zeros({2, 2}, bool_, d), zeros({2, 2}, bool_, d)), DtypeError);
  // Operands on two devices.
  if (!d.is_cpu()) {
    EXPECT_THROW(mm(a, zeros({3, 2}, float32, kCPU)), DeviceError);
  }
  // Inputs are untouched by a failed op.
  Tensor x = ones({2, 3}, float32, d);
  EXPECT_THROW(mm(x, x), ShapeError);
  for (double v : x.to_vector<double>()) EXPECT_EQ(v, 1.0);
}

TEST_P(LinearDeviceTest, FallbackAndDowncast) {
  if (device().is_cpu()) GTEST_SKIP() << "the cpu is the fallback target itself";
  // No native matmul: the CPU computes it; the result comes back to the device.
  ProfileGuard g(device(), "no-fp64,no-op:matmul,no-op:dot");
  reset_report();
  Tensor a = on(values(12, float32, 91), {3, 4}, float32, device());
  Tensor b = on(values(20, float32, 92), {4, 5}, float32, device());
  Tensor c = matmul(a, b);
  EXPECT_EQ(c.device(), device());
  expect_matches(c, ref_matmul(host_of(a), host_of(b)), float32, device());
  EXPECT_EQ(report().count("matmul", device().str(), float32, Path::fallback), 1u);
  Tensor v = on(values(4, float32, 93), {4}, float32, device());
  expect_matches(dot(v, v), ref_matmul(host_of(v), host_of(v)), float32, device());
  // Under a strict fallback policy the same call is an error.
  FallbackPolicyGuard strict(FallbackPolicy::strict);
  EXPECT_THROW(matmul(a, b), NotImplementedError);
}

CONCORD_INSTANTIATE_DEVICES(LinearDeviceTest);

}  // namespace
}  // namespace concord
