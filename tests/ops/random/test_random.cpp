// Tests for rand / randn / randint / manual_seed and the shared Philox header.
//
// References are computed here: the Philox words come from the generator
// checked against the published known-answer vectors, the transforms are
// re-derived with long double arithmetic (uniforms and integers exactly,
// normals to a few ulp). Bit equality across devices and thread counts is
// checked against the CPU result.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "backend/common/philox.h"
#if CONCORD_HAVE_OPENCL
#include "backend/opencl/opencl_backend.h"
#endif
#include "core/backend.h"
#include "concord/concord.h"
#include "support/devices.h"

namespace concord {
namespace {

using test::DeviceTest;

// ---- reference side ------------------------------------------------------

concord_u32x4 words(uint64_t seed, uint64_t n) {
  const concord_u32x4 ctr{static_cast<uint32_t>(n), static_cast<uint32_t>(n >> 32), 0u, 0u};
  return concord_philox4x32_10(ctr, static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
}

// cos(2 pi t) with the argument reduced exactly (t has at most 53 bits), so
// the reference stays accurate next to the zeros of cos.
long double cos2pi(long double t) {
  const long double pi = 3.141592653589793238462643383279502884L;
  const long double q = std::round(4 * t);
  const long double r = t - q / 4;
  switch (static_cast<int>(q) & 3) {
    case 0: return std::cos(2 * pi * r);
    case 1: return -std::sin(2 * pi * r);
    case 2: return -std::cos(2 * pi * r);
    default: return std::sin(2 * pi * r);
  }
}

long double ref_normal_f32(concord_u32x4 x) {
  const long double u1 = static_cast<long double>((x.w0 >> 8) + 1) * 0x1p-24L;
  const long double u2 = static_cast<long double>(x.w1 >> 8) * 0x1p-24L;
  return std::sqrt(-2 * std::log(u1)) * cos2pi(u2);
}

long double ref_normal_f64(concord_u32x4 x) {
  const uint64_t a = ((uint64_t{x.w0} << 21) | (x.w1 >> 11)) + 1, b = (uint64_t{x.w2} << 21) | (x.w3 >> 11);
  return std::sqrt(-2 * std::log(static_cast<long double>(a) * 0x1p-53L)) * cos2pi(static_cast<long double>(b) * 0x1p-53L);
}

int64_t ref_randint(concord_u32x4 x, int64_t low, int64_t high) {
  const unsigned __int128 r = (static_cast<unsigned __int128>(x.w0) << 32) | x.w1;
  const uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  return static_cast<int64_t>(static_cast<uint64_t>(low) + static_cast<uint64_t>((r * range) >> 64));
}

// Raw bytes of a tensor on the host.
std::vector<uint8_t> bytes_of(const Tensor& t) {
  Tensor h = t.to(kCPU).contiguous();
  const auto* p = static_cast<const uint8_t*>(h.raw_data());
  return std::vector<uint8_t>(p, p + h.numel() * static_cast<int64_t>(itemsize(h.dtype())));
}

// One draw; randint uses a range every dtype holds exactly.
Tensor draw(OpId op, Shape s, Dtype t, const Device& d, std::optional<uint64_t> seed) {
  switch (op) {
    case OpId::rand: return rand(std::move(s), t, d, seed);
    case OpId::randn: return randn(std::move(s), t, d, seed);
    default:
      if (t == bool_) return randint(0, 2, std::move(s), t, d, seed);
      if (t == uint8) return randint(0, 200, std::move(s), t, d, seed);
      return randint(-100, 100, std::move(s), t, d, seed);
  }
}

constexpr Dtype kFloats[] = {float16, bfloat16, float32, float64};

// ---- the generator itself ------------------------------------------------

TEST(Philox, KnownAnswerVectors) {
  struct Kat { concord_u32x4 ctr; uint32_t k0, k1; concord_u32x4 out; };
  const Kat kats[] = {
      {{0, 0, 0, 0}, 0, 0, {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}},
      {{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}, 0xffffffffu, 0xffffffffu,
       {0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}},
      {{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}, 0xa4093822u, 0x299f31d0u,
       {0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}},
  };
  for (const Kat& k : kats) {
    const concord_u32x4 r = concord_philox4x32_10(k.ctr, k.k0, k.k1);
    EXPECT_EQ(r.w0, k.out.w0);
    EXPECT_EQ(r.w1, k.out.w1);
    EXPECT_EQ(r.w2, k.out.w2);
    EXPECT_EQ(r.w3, k.out.w3);
  }
  // Element n of seed s is the block at counter (lo32 n, hi32 n, 0, 0), key (lo32 s, hi32 s).
  const concord_u32x4 e = concord_philox_element(0xa4093822ull | (0x299f31d0ull << 32), 0x85a308d3243f6a88ull);
  const concord_u32x4 w = concord_philox4x32_10({0x243f6a88u, 0x85a308d3u, 0, 0}, 0xa4093822u, 0x299f31d0u);
  EXPECT_TRUE(e.w0 == w.w0 && e.w1 == w.w1 && e.w2 == w.w2 && e.w3 == w.w3);
}

// ---- per device ----------------------------------------------------------

class RandomTest : public DeviceTest {
 protected:
  // The dtype a draw of t is made in on this device (float32 after a float64 downcast).
  Dtype made(Dtype t) const { return test::can_store(GetParam(), t) ? t : float32; }
};

TEST_P(RandomTest, MatchesReference) {
  const uint64_t seed = 0x0123456789abcdefull;
  const int64_t n = 50000;
  for (Dtype t : kFloats) {
    SCOPED_TRACE(std::string(name(t)));
    const Dtype m = made(t);
    const auto u = rand({n}, t, device(), seed).to_vector<double>();
    const auto z = randn({n}, t, device(), seed).to_vector<double>();
    ASSERT_EQ(rand({1}, t, device(), seed).dtype(), m);
    for (int64_t i = 0; i < n; ++i) {
      const concord_u32x4 x = words(seed, static_cast<uint64_t>(i));
      // Uniform: exact.
      double ue;
      if (m == float64) {
        ue = static_cast<double>((uint64_t{x.w0} << 21) | (x.w1 >> 11)) * 0x1p-53;
      } else {
        const float f = static_cast<float>(static_cast<double>(x.w0 >> 8) * 0x1p-24);
        if (m == float16) ue = static_cast<float>(float16_t(std::min(f, 1.0f - 0x1p-11f)));
        else if (m == bfloat16) ue = static_cast<float>(bfloat16_t(std::min(f, 1.0f - 0x1p-8f)));
        else ue = f;
      }
      ASSERT_EQ(u[i], ue) << "rand element " << i;
      // Normal: a few ulp of the float32/float64 result, plus the rounding to a half type.
      const long double ze = m == float64 ? ref_normal_f64(x) : ref_normal_f32(x);
      const double rel = m == float64 ? 0x1p-49 : m == float16 ? 0x1p-11 + 0x1p-20 : m == bfloat16 ? 0x1p-8 + 0x1p-20 : 0x1p-20;
      const double abs = m == float16 ? 0x1p-25 : 1e-300;  // float16 subnormals: half of 2^-24
      ASSERT_LE(std::fabs(static_cast<long double>(z[i]) - ze), rel * std::fabs(ze) + abs)
          << "randn element " << i << " got " << z[i] << " want " << static_cast<double>(ze);
    }
  }
  for (Dtype t : {int64, int32, float32}) {
    const auto r = randint(-123456, 654321, {n}, t, device(), seed).to_vector<int64_t>();
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(r[i], ref_randint(words(seed, static_cast<uint64_t>(i)), -123456, 654321)) << name(t) << " element " << i;
  }
}

TEST_P(RandomTest, SameBitsAsCpu) {
  const Shape shape{3, 1001};
  for (OpId op : {OpId::rand, OpId::randn}) {
    for (Dtype t : kFloats) {
      SCOPED_TRACE(std::string(op_name(op)) + " " + std::string(name(t)));
      const Tensor d = draw(op, shape, t, device(), 77);
      ASSERT_EQ(d.device(), device());
      ASSERT_EQ(d.dtype(), made(t));
      EXPECT_EQ(bytes_of(d), bytes_of(draw(op, shape, made(t), kCPU, 77)));
    }
  }
  for (Dtype t : kAllDtypes) {
    SCOPED_TRACE("randint " + std::string(name(t)));
    const Tensor d = draw(OpId::randint, shape, t, device(), 77);
    ASSERT_EQ(d.dtype(), made(t));
    EXPECT_EQ(bytes_of(d), bytes_of(draw(OpId::randint, shape, made(t), kCPU, 77)));
  }
}

// A draw that does not start at counter 0 (the global generator after other
// draws; and, straight through the backends, offsets whose counter crosses
// 2^32 or wraps at 2^64) gives the CPU's bits on every device.
TEST_P(RandomTest, SameBitsAsCpuAtAnOffset) {
  const Shape shape{3, 257};
  for (OpId op : {OpId::rand, OpId::randn, OpId::randint}) {
    for (Dtype t : kAllDtypes) {
      if (op != OpId::randint && !is_floating(t)) continue;
      SCOPED_TRACE(std::string(op_name(op)) + " " + std::string(name(t)));
      manual_seed(99);
      (void)rand({12345}, float32, kCPU);  // the next draw starts at offset 12345
      const Tensor d = draw(op, shape, t, device(), std::nullopt);
      manual_seed(99);
      (void)rand({12345}, float32, kCPU);
      EXPECT_EQ(bytes_of(d), bytes_of(draw(op, shape, made(t), kCPU, std::nullopt)));
    }
  }
  const Capabilities& caps = capabilities(device());
  const uint64_t seed = 0xdeadbeef12345678ull;
  for (uint64_t offset : {(uint64_t{1} << 32) - 100, (uint64_t{1} << 40) + 3, ~uint64_t{0} - 50}) {
    for (OpId op : {OpId::rand, OpId::randn, OpId::randint}) {
      for (Dtype t : kAllDtypes) {
        if (!caps.has_kernel(op, t)) continue;  // the others run the CPU kernel itself
        SCOPED_TRACE(std::string(op_name(op)) + " " + std::string(name(t)) + " offset " + std::to_string(offset));
        const int64_t lo = t == bool_ ? 0 : t == uint8 ? 3 : -100, hi = t == bool_ ? 2 : 120;
        const Tensor d = empty({300}, t, device()), c = empty({300}, t, kCPU);
        detail::backend_for(device()).random(op, d, seed, offset, lo, hi);
        detail::cpu_backend().random(op, c, seed, offset, lo, hi);
        EXPECT_EQ(bytes_of(d), bytes_of(c));
        if (op == OpId::randint && t == int64) {  // the full int64 range
          const int64_t a = std::numeric_limits<int64_t>::min(), b = std::numeric_limits<int64_t>::max();
          detail::backend_for(device()).random(op, d, seed, offset, a, b);
          detail::cpu_backend().random(op, c, seed, offset, a, b);
          EXPECT_EQ(bytes_of(d), bytes_of(c));
        }
      }
    }
  }
}

TEST_P(RandomTest, ThreadCountDoesNotChangeBits) {
  const int saved = omp_get_max_threads();
  const Shape shape{100003};  // several parallel chunks of uneven size
  for (OpId op : {OpId::rand, OpId::randn, OpId::randint}) {
    for (Dtype t : {float32, float64, float16}) {
      SCOPED_TRACE(std::string(op_name(op)) + " " + std::string(name(t)));
      omp_set_num_threads(1);
      const auto one = bytes_of(draw(op, shape, t, device(), 5));
      omp_set_num_threads(2);
      const auto two = bytes_of(draw(op, shape, t, device(), 5));
      omp_set_num_threads(3);
      const auto three = bytes_of(draw(op, shape, t, device(), 5));
      EXPECT_EQ(one, two);
      EXPECT_EQ(one, three);
    }
  }
  omp_set_num_threads(saved);
}

TEST_P(RandomTest, UniformStatistics) {
  const int64_t n = 1 << 20;
  for (Dtype t : kFloats) {
    SCOPED_TRACE(std::string(name(t)));
    const auto v = rand({n}, t, device(), 1234).to_vector<double>();
    double sum = 0, sq = 0, lo = 1, hi = 0;
    for (double x : v) { sum += x; sq += x * x; lo = std::min(lo, x); hi = std::max(hi, x); }
    const double mean = sum / n, var = sq / n - mean * mean;
    // Rounding to a half type moves each value by at most half an ulp of 1.
    const double slack = made(t) == bfloat16 ? 0x1p-8 : made(t) == float16 ? 0x1p-11 : 0.0;
    EXPECT_NEAR(mean, 0.5, 5 * std::sqrt(1.0 / 12 / n) + slack);
    EXPECT_NEAR(var, 1.0 / 12, 5 * std::sqrt((1.0 / 80 - 1.0 / 144) / n) + slack);
    EXPECT_GE(lo, 0.0);
    EXPECT_LT(hi, 1.0);
    // A draw that would round up to 1.0 gives the largest value below 1 (2^-12 and 2^-9 of draws).
    if (made(t) == float16) EXPECT_EQ(hi, 1.0 - 0x1p-11);
    if (made(t) == bfloat16) EXPECT_EQ(hi, 1.0 - 0x1p-8);
  }
}

TEST_P(RandomTest, NormalStatistics) {
  const int64_t n = 1 << 20;
  for (Dtype t : kFloats) {
    SCOPED_TRACE(std::string(name(t)));
    const auto v = randn({n}, t, device(), 99).to_vector<double>();
    double sum = 0, sq = 0, inside = 0, lo = 0, hi = 0;
    for (double x : v) {
      ASSERT_TRUE(std::isfinite(x));
      sum += x; sq += x * x; inside += std::fabs(x) < 1.0;
      lo = std::min(lo, x); hi = std::max(hi, x);
    }
    const double mean = sum / n, var = sq / n - mean * mean, p = inside / n;
    const double slack = made(t) == bfloat16 ? 0x1p-8 : made(t) == float16 ? 0x1p-11 : 0.0;
    EXPECT_NEAR(mean, 0.0, 5 * std::sqrt(1.0 / n) + slack);
    EXPECT_NEAR(var, 1.0, 5 * std::sqrt(2.0 / n) + 4 * slack);
    EXPECT_NEAR(p, 0.6826894921370859, 5 * std::sqrt(0.6827 * 0.3173 / n) + 0.01 * (slack > 0));
    // |z| <= sqrt(-2 log 2^-53) ~ 8.57 by construction; 1M draws reach past 4.
    EXPECT_LT(hi, 8.6);
    EXPECT_GT(lo, -8.6);
    EXPECT_GT(hi, 4.0);
    EXPECT_LT(lo, -4.0);
  }
}

TEST_P(RandomTest, RandintCoversItsRange) {
  const int64_t n = 200000;
  struct Case { Dtype t; int64_t low, high; };
  const Case cases[] = {{int64, -7, 6}, {int32, 100, 117}, {int16, -3, 4}, {int8, -128, 128}, {uint8, 0, 256},
                        {bool_, 0, 2}, {float16, -2048, -2040}, {bfloat16, 250, 257}, {float32, 0, 10},
                        {float64, -5, 5}};
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(name(c.t)) + " [" + std::to_string(c.low) + ", " + std::to_string(c.high) + ")");
    const Tensor r = randint(c.low, c.high, {n}, c.t, device(), 31);
    EXPECT_EQ(r.dtype(), made(c.t));
    std::map<int64_t, int64_t> count;
    for (int64_t x : r.to_vector<int64_t>()) {
      ASSERT_GE(x, c.low);
      ASSERT_LT(x, c.high);
      ++count[x];
    }
    const int64_t k = c.high - c.low;
    ASSERT_EQ(static_cast<int64_t>(count.size()), k);
    const double expect = static_cast<double>(n) / k, sd = std::sqrt(expect * (1 - 1.0 / k));
    for (const auto& [value, cnt] : count) EXPECT_NEAR(cnt, expect, 5 * sd) << "value " << value;
  }
  // The whole int64 range: the offset is computed modulo 2^64.
  const auto w = randint(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(), {1000}, int64,
                         device(), 8).to_vector<int64_t>();
  int neg = 0;
  for (int64_t x : w) neg += x < 0;
  EXPECT_GT(neg, 400);
  EXPECT_LT(neg, 600);
}

TEST_P(RandomTest, ManualSeedReproducesAndDoesNotOverlap) {
  const int64_t n = 4099;
  manual_seed(2024);
  const Tensor a = rand({n}, float32, device());
  const Tensor b = randn({n}, float32, device());
  const Tensor c = randint(0, 1000, {n}, int32, device());
  manual_seed(2024);
  EXPECT_EQ(bytes_of(a), bytes_of(rand({n}, float32, device())));
  EXPECT_EQ(bytes_of(b), bytes_of(randn({n}, float32, device())));
  EXPECT_EQ(bytes_of(c), bytes_of(randint(0, 1000, {n}, int32, device())));
  // Consecutive draws take consecutive counters: a is [0, n) of seed 2024,
  // b is [n, 2n), c is [2n, 3n); an explicit seed starts at 0.
  EXPECT_EQ(bytes_of(a), bytes_of(rand({n}, float32, device(), 2024)));
  const auto b_all = bytes_of(randn({2 * n}, float32, device(), 2024));
  EXPECT_EQ(bytes_of(b), std::vector<uint8_t>(b_all.begin() + n * 4, b_all.end()));
  const auto c_all = bytes_of(randint(0, 1000, {3 * n}, int32, device(), 2024));
  EXPECT_EQ(bytes_of(c), std::vector<uint8_t>(c_all.begin() + 2 * n * 4, c_all.end()));
  // A draw with an explicit seed, and an empty draw, leave the global stream alone.
  manual_seed(2024);
  (void)rand({n}, float32, device(), 1);
  (void)rand({0, 5}, float32, device());
  EXPECT_EQ(bytes_of(a), bytes_of(rand({n}, float32, device())));
  // Another seed gives other numbers.
  manual_seed(2025);
  EXPECT_NE(bytes_of(a), bytes_of(rand({n}, float32, device())));
}

TEST_P(RandomTest, ShapesAndErrors) {
  EXPECT_EQ(rand({2, 0, 3}, float32, device(), 1).numel(), 0);
  EXPECT_EQ(randn({}, float32, device(), 1).shape(), Shape{});
  EXPECT_EQ(rand({4, 5}, float32, device()).shape(), (Shape{4, 5}));
  EXPECT_THROW(rand({2, -1}, float32, device()), ShapeError);
  EXPECT_THROW(rand({3}, int32, device()), DtypeError);
  EXPECT_THROW(randn({3}, bool_, device()), DtypeError);
  EXPECT_THROW(randn({3}, int64, device()), DtypeError);
  EXPECT_THROW(randint(5, 5, {3}, int64, device()), ValueError);
  EXPECT_THROW(randint(5, 2, {3}, int64, device()), ValueError);
  EXPECT_THROW(randint(0, 200, {3}, int8, device()), ValueError);
  EXPECT_THROW(randint(-1, 10, {3}, uint8, device()), ValueError);
  EXPECT_THROW(randint(0, 3, {3}, bool_, device()), ValueError);
  EXPECT_THROW(randint(0, 2050, {3}, float16, device()), ValueError);  // 2049 is not a float16
  EXPECT_THROW(randint(-2049, 0, {3}, float16, device()), ValueError);
  EXPECT_NO_THROW(randint(-2048, 2049, {3}, float16, device()));
  EXPECT_NO_THROW(randint(-128, 128, {3}, int8, device()));
  try {
    randint(0, 300, {2, 3}, uint8, device());
    FAIL() << "no error";
  } catch (const ValueError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("[randint]", 0), 0u) << msg;
    EXPECT_NE(msg.find("uint8"), std::string::npos) << msg;
    EXPECT_NE(msg.find("[2, 3]"), std::string::npos) << msg;
    EXPECT_NE(msg.find(device().str()), std::string::npos) << msg;
  }
  try {
    rand({2}, int16, device());
    FAIL() << "no error";
  } catch (const DtypeError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("[rand]", 0), 0u) << e.what();
  }
}

CONCORD_INSTANTIATE_DEVICES(RandomTest);

#if CONCORD_HAVE_OPENCL  // the OpenCL runtime's internals (CONCORD_OPENCL=ON)
// ---- the shared header compiled as OpenCL C ------------------------------

// Evaluates the header's transforms in an OpenCL kernel built from the
// embedded header text and compares every bit with the CPU ops.
const char* kProbeKernels = R"CLC(
__kernel void probe(ulong seed, long low, ulong range, __global float* uf, __global float* nf,
                    __global ushort* uh, __global ushort* nh, __global long* ri) {
  const size_t i = get_global_id(0);
  const concord_u32x4 x = concord_philox_element(seed, (ulong)i);
  uf[i] = concord_uniform_f32(x.w0);
  nf[i] = concord_normal_f32(x.w0, x.w1);
  vstore_half_rte(concord_uniform_f32_below(x.w0, CONCORD_F16_BELOW_ONE), i, (__global half*)uh);
  vstore_half_rte(concord_normal_f32(x.w0, x.w1), i, (__global half*)nh);
  ri[i] = (long)((ulong)low + concord_randint_offset(x.w0, x.w1, range));
}
#if CONCORD_HAS_FP64
__kernel void probe64(ulong seed, __global double* ud, __global double* nd) {
  const size_t i = get_global_id(0);
  const concord_u32x4 x = concord_philox_element(seed, (ulong)i);
  ud[i] = concord_uniform_f64(x.w0, x.w1);
  nd[i] = concord_normal_f64(x);
}
#endif
)CLC";

TEST(PhiloxOpenCl, SharedHeaderGivesCpuBits) {
  namespace ocl = detail::ocl;
  if (ocl::device_count() == 0) GTEST_SKIP() << "no OpenCL device on this machine";
  const auto& sources = ocl::embedded_sources();
  const auto base = sources.find("canon_base.h"), it = sources.find("philox.h");
  ASSERT_NE(base, sources.end()) << "canon_base.h is not embedded";
  ASSERT_NE(it, sources.end()) << "philox.h is not embedded";
  const size_t n = 1 << 18;
  const uint64_t seed = 0xfeedface12345678ull;
  const int64_t low = -5000000000ll, high = 7000000000ll;
  for (size_t dev = 0; dev < ocl::device_count(); ++dev) {
    SCOPED_TRACE("opencl:" + std::to_string(dev));
    ocl::Context& c = ocl::context(dev);
    cl_program p = c.program("test_random_probe", base->second + "\n" + it->second + "\n" + kProbeKernels);
    cl_mem uf = c.alloc(n * 4), nf = c.alloc(n * 4), uh = c.alloc(n * 2), nh = c.alloc(n * 2), ri = c.alloc(n * 8);
    c.launch(c.kernel(p, "probe"), {n, 1, 1}, {0, 0, 0}, 1, seed, low, static_cast<uint64_t>(high - low), uf, nf, uh,
             nh, ri);
    auto fetch = [&](cl_mem m, size_t bytes) {
      std::vector<uint8_t> v(bytes);
      c.read(m, 0, bytes, v.data());
      c.release(m, bytes);
      return v;
    };
    const int64_t ni = static_cast<int64_t>(n);
    EXPECT_EQ(fetch(uf, n * 4), bytes_of(rand({ni}, float32, kCPU, seed)));
    EXPECT_EQ(fetch(nf, n * 4), bytes_of(randn({ni}, float32, kCPU, seed)));
    EXPECT_EQ(fetch(uh, n * 2), bytes_of(rand({ni}, float16, kCPU, seed)));
    EXPECT_EQ(fetch(nh, n * 2), bytes_of(randn({ni}, float16, kCPU, seed)));
    EXPECT_EQ(fetch(ri, n * 8), bytes_of(randint(low, high, {ni}, int64, kCPU, seed)));
    if (c.info().fp64) {
      cl_mem ud = c.alloc(n * 8), nd = c.alloc(n * 8);
      c.launch(c.kernel(p, "probe64"), {n, 1, 1}, {0, 0, 0}, 1, seed, ud, nd);
      EXPECT_EQ(fetch(ud, n * 8), bytes_of(rand({ni}, float64, kCPU, seed)));
      EXPECT_EQ(fetch(nd, n * 8), bytes_of(randn({ni}, float64, kCPU, seed)));
    }
  }
}

#endif  // CONCORD_HAVE_OPENCL

}  // namespace
}  // namespace concord
