// OpenCL backend kernels (copy, fill, iota, unary, binary, where, clamp) on opencl:0.
//
// Kernels are called directly through the backends, so that layouts (strided,
// broadcast, negative strides) are exactly the ones under test, and compared
// with the CPU backend on the same data: bit for bit for conversions and
// correctly rounded arithmetic, within a measured ULP bound for the math
// library functions (those are also checked against a float64 reference).
// Every test skips when the machine has no OpenCL device.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "backend/cpu/convert.h"
#include "backend/opencl/opencl_backend.h"
#include "concord/concord.h"
#include "core/backend.h"

using namespace concord;
namespace ocl = concord::detail::ocl;

namespace {

#define REQUIRE_OPENCL() \
  if (detail::ocl::device_count() == 0) GTEST_SKIP() << "no OpenCL device on this machine"

Device ocl0() { return Device("opencl:0"); }
detail::Backend& ob() { return detail::backend_for(ocl0()); }
detail::Backend& cb() { return detail::cpu_backend(); }

bool storable(Dtype t) { return capabilities(ocl0()).can_store(t); }

std::vector<uint8_t> raw(const Tensor& t) {
  Tensor h = t.to(kCPU).contiguous();
  std::vector<uint8_t> b(h.nbytes());
  if (!b.empty()) std::memcpy(b.data(), h.raw_data(), b.size());
  return b;
}

uint64_t item_bits(const std::vector<uint8_t>& b, size_t i, size_t isz) {
  uint64_t u = 0;
  std::memcpy(&u, b.data() + i * isz, isz);
  return u;
}

Tensor from_raw(const std::vector<uint8_t>& b, Dtype t, const Device& d = kCPU) {
  return from_host(b.data(), {static_cast<int64_t>(b.size() / itemsize(t))}, t, d);
}

bool is_nan_bits(uint64_t u, Dtype t) {
  switch (t) {
    case float16: return (u & 0x7c00) == 0x7c00 && (u & 0x3ff);
    case bfloat16: return (u & 0x7f80) == 0x7f80 && (u & 0x7f);
    case float32: return (u & 0x7f800000u) == 0x7f800000u && (u & 0x7fffffu);
    case float64: return (u & 0x7ff0000000000000ull) == 0x7ff0000000000000ull && (u & 0xfffffffffffffull);
    default: return false;
  }
}

// Distance in units in the last place of t (0 for two NaNs, huge for NaN vs number).
int64_t ulp_diff(uint64_t a, uint64_t b, Dtype t) {
  const bool na = is_nan_bits(a, t), nb = is_nan_bits(b, t);
  if (na || nb) return na && nb ? 0 : std::numeric_limits<int64_t>::max();
  const int bits = static_cast<int>(itemsize(t)) * 8;
  auto ordered = [bits](uint64_t u) {
    const uint64_t sign = uint64_t{1} << (bits - 1);
    const int64_t mag = static_cast<int64_t>(u & (sign - 1));
    return (u & sign) ? -mag : mag;
  };
  const int64_t d = ordered(a) - ordered(b);
  return d < 0 ? -d : d;
}

// Quiet a NaN given as raw bits (signalling NaNs are outside the conversion
// contract: the CPU's own vectorised and scalar paths treat them differently).
uint64_t quiet(uint64_t u, Dtype t) {
  if (!is_nan_bits(u, t)) return u;
  switch (t) {
    case float16: return u | 0x200;
    case bfloat16: return u | 0x40;
    case float32: return u | 0x400000;
    default: return u | 0x8000000000000ull;
  }
}

// Values that stress conversions: NaN, infinities, signed zeros, subnormals,
// ties of every rounding, the edges of every integer type and beyond.
std::vector<double> special_doubles() {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> v = {0.0, -0.0, 1, -1, 0.5, -0.5, 1.5, 2.5, -2.5, 0.49999997, 127, 127.5, 128, -128, -128.5,
                           -129, 255, 255.5, 256, 257, -1e-3, 32767, 32767.9, 32768, -32768.5, -32769, 65535, 65536,
                           2147483647.0, 2147483648.0, -2147483648.0, -2147483649.0, 4294967296.0,
                           9223372036854775808.0, -9223372036854775808.0, 1e19, -1e19, 1e30, -1e30, 65504,
                           65519.99, 65520, -65520, 1e-8, 5.960464477539063e-8, 2.98023223876953125e-8,
                           2.9802322387695312e-8 * 1.5, 1e-40, -1e-40, 1e-45, 1e-310, -1e-310, inf, -inf, nan,
                           -nan, 3.4028234663852886e38, 3.5e38, 1.7976931348623157e308, 1.0 + std::ldexp(1.0, -11),
                           1.0 + 3 * std::ldexp(1.0, -11), 1.0 + std::ldexp(1.0, -8), 1.0 + 3 * std::ldexp(1.0, -8),
                           1.0 + std::ldexp(1.0, -24), 1.0 + std::ldexp(1.0, -24) + std::ldexp(1.0, -50),
                           16777217.0, 9007199254740993.0, 0.1, -0.7, 3.14159, 1e10, -1e10};
  return v;
}

// n values of dtype t as raw bytes: the specials converted by the CPU, then random bits.
std::vector<uint8_t> sample(Dtype t, size_t n_random, uint64_t seed) {
  const auto sp = special_doubles();
  Tensor s = from_host(sp.data(), {static_cast<int64_t>(sp.size())}, float64).to(t);
  std::vector<uint8_t> out = raw(s);
  const size_t isz = itemsize(t);
  auto push = [&](uint64_t u) {
    const size_t at = out.size();
    out.resize(at + isz);
    std::memcpy(out.data() + at, &u, isz);
  };
  if (t == int64 || t == int32) {
    const int64_t m = int64_t{1} << 52;  // bfloat16 midpoint spacing around 2^60
    for (int64_t v : {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(),
                      (int64_t{1} << 53) + 1, (int64_t{1} << 60) - 1, (int64_t{1} << 24) + 1, -((int64_t{1} << 24) + 1),
                      (int64_t{1} << 60) + m - 1, (int64_t{1} << 60) + m, (int64_t{1} << 60) + m + 1,
                      (int64_t{1} << 60) + 3 * m - 1, -((int64_t{1} << 60) + m - 1), (int64_t{1} << 62) + (int64_t{1} << 54) - 1,
                      int64_t{65520}, int64_t{-65519}, int64_t{2147483647}, int64_t{-2147483647} - 1})
      push(static_cast<uint64_t>(v));
  }
  std::mt19937_64 rng(seed);
  for (size_t i = 0; i < n_random; ++i) {
    uint64_t u = rng();
    if (t == bool_) u &= 1;
    push(quiet(u & (isz == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * isz)) - 1), t));
  }
  return out;
}

std::string hex(uint64_t u) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(u));
  return buf;
}

// Expects a and b (raw items of dtype t) equal bit for bit; reports the first few differences.
void expect_same_bits(const std::vector<uint8_t>& want, const std::vector<uint8_t>& got, Dtype t,
                      const std::vector<uint8_t>* src, Dtype st, const std::string& what) {
  ASSERT_EQ(want.size(), got.size()) << what;
  const size_t isz = itemsize(t), n = want.size() / isz;
  int shown = 0;
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t w = item_bits(want, i, isz), g = item_bits(got, i, isz);
    if (w == g) continue;
    ++bad;
    if (shown++ < 5)
      ADD_FAILURE() << what << ": element " << i << (src ? " from " + hex(item_bits(*src, i, itemsize(st))) : "")
                    << " want " << hex(w) << " got " << hex(g);
  }
  EXPECT_EQ(bad, 0u) << what;
}

class OpenClBackendTest : public ::testing::Test {
 protected:
  void SetUp() override { REQUIRE_OPENCL(); }
};

// ---------------------------------------------------------------- geometry

TEST_F(OpenClBackendTest, GeomCoalescesEachOperand) {
  auto x = zeros({4, 5, 6}, float32, ocl0());
  ocl::Geom g = ocl::geom(x);
  EXPECT_EQ(g.ndim, 1);
  EXPECT_EQ(g.contiguous, 1);
  EXPECT_EQ(g.shape[ocl::kMaxDims - 1], 120);
  g = ocl::geom(x.transpose(0, 2));
  EXPECT_EQ(g.ndim, 3);
  EXPECT_EQ(g.contiguous, 0);
  g = ocl::geom(x.slice(2, 0, 6, 2));  // inner stride 2
  EXPECT_EQ(g.ndim, 1);
  EXPECT_EQ(g.strides[ocl::kMaxDims - 1], 2);
  // A row broadcast over 7 rows: the outer stride-0 dim goes away.
  auto row = zeros({6}, float32, ocl0());
  g = ocl::geom_as(row, Shape{7, 6});
  EXPECT_EQ(g.ndim, 1);
  EXPECT_EQ(g.contiguous, 0);  // element i is at i % 6, not i
  g = ocl::geom_as(zeros({6, 1}, float32, ocl0()), Shape{6, 7});
  EXPECT_EQ(g.ndim, 2);
  g = ocl::geom_as(scalar_tensor(1.0, float32, ocl0()), Shape{3, 3});
  EXPECT_EQ(g.ndim, 0);
  EXPECT_EQ(g.contiguous, 0);
  EXPECT_EQ(ocl::geom(scalar_tensor(1.0, float32, ocl0())).contiguous, 1);
  EXPECT_STREQ(ocl::cl_type(float16), "ushort");
  EXPECT_STREQ(ocl::cl_type(int8), "char");
}

TEST_F(OpenClBackendTest, GeomBeyondMaxDimsIsShapeError) {
  // 9 dims of size 2 with strides that cannot merge (every other element of each dim).
  Shape shape(9, 2);
  auto base = zeros({1 << 18}, float32, ocl0());
  Strides strides(9, 0);
  int64_t s = 2;
  for (int d = 8; d >= 0; --d, s *= 4) strides[static_cast<size_t>(d)] = s;
  Tensor v(base.storage(), shape, strides, 0, float32);
  EXPECT_THROW(ocl::geom(v), ShapeError);
  try {
    ocl::geom(v);
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("[opencl]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("opencl:0"), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------- copy

TEST_F(OpenClBackendTest, EveryConversionPairMatchesCpuBitwise) {
  int pairs = 0;
  for (Dtype s : kAllDtypes) {
    if (!storable(s)) continue;
    const auto bits = sample(s, 2048, 17 + static_cast<uint64_t>(s));
    Tensor hs = from_raw(bits, s);
    Tensor ds = hs.to(ocl0());
    ASSERT_EQ(raw(ds), bits) << "transfer of " << name(s);
    const int64_t n = hs.numel();
    for (Dtype d : kAllDtypes) {
      if (!storable(d)) continue;
      ++pairs;
      const std::string what = std::string(name(s)) + " -> " + std::string(name(d));
      const auto want = raw(hs.to(d));
      // Contiguous source and destination.
      Tensor got = empty({n}, d, ocl0());
      got.copy_(ds);
      expect_same_bits(want, raw(got), d, &bits, s, what + " (contiguous)");
      // Strided destination: every other element of a wider buffer.
      Tensor wide = zeros({n, 2}, d, ocl0());
      Tensor col = wide.select(1, 1);
      col.copy_(ds);
      expect_same_bits(want, raw(col), d, &bits, s, what + " (strided dst)");
      // Reversed (negative stride) source.
      Tensor rev_h(hs.storage(), {n}, {-1}, n - 1, s);
      Tensor rev_d(ds.storage(), {n}, {-1}, n - 1, s);
      Tensor want_rev = empty({n}, d);
      want_rev.copy_(rev_h);
      Tensor got_rev = empty({n}, d, ocl0());
      got_rev.copy_(rev_d);
      expect_same_bits(raw(want_rev), raw(got_rev), d, nullptr, s, what + " (reversed src)");
    }
  }
  EXPECT_EQ(pairs, storable(float64) ? 100 : 81);
}

TEST_F(OpenClBackendTest, SameDtypeCopiesAndBroadcast) {
  for (Dtype t : kAllDtypes) {
    if (!storable(t)) continue;
    const auto bits = sample(t, 600, 5);
    const int64_t n = static_cast<int64_t>(bits.size() / itemsize(t)) / 6 * 6;
    Tensor h = from_raw(bits, t).narrow(0, 0, n).reshape({n / 6, 6});
    Tensor d = h.to(ocl0());
    expect_same_bits(raw(h.clone()), raw(d.clone()), t, nullptr, t, std::string(name(t)) + " clone");
    expect_same_bits(raw(h.t().contiguous()), raw(d.t().contiguous()), t, nullptr, t,
                     std::string(name(t)) + " transpose");
    // A broadcast row into a [5, 6] destination slice.
    Tensor hd = zeros({5, 12}, t), dd = zeros({5, 12}, t, ocl0());
    hd.slice(1, 3, 9).copy_(h.select(0, 1));
    dd.slice(1, 3, 9).copy_(d.select(0, 1));
    expect_same_bits(raw(hd), raw(dd), t, nullptr, t, std::string(name(t)) + " broadcast row");
  }
}

// ---------------------------------------------------------------- fill, iota, where, clamp

TEST_F(OpenClBackendTest, FillAndIotaMatchCpu) {
  for (Dtype t : kAllDtypes) {
    if (!storable(t)) continue;
    for (Scalar v : {Scalar(3.75), Scalar(-1), Scalar(true), Scalar(1e10), Scalar(-0.0), Scalar(int64_t{300})}) {
      Tensor h = zeros({7, 9}, t), d = zeros({7, 9}, t, ocl0());
      cb().fill(h, v);
      ob().fill(d, v);
      expect_same_bits(raw(h), raw(d), t, nullptr, t, std::string(name(t)) + " fill " + v.str());
      Tensor hs = zeros({7, 9}, t), ds = zeros({7, 9}, t, ocl0());
      cb().fill(hs.slice(1, 1, 9, 3), v);
      ob().fill(ds.slice(1, 1, 9, 3), v);
      expect_same_bits(raw(hs), raw(ds), t, nullptr, t, std::string(name(t)) + " strided fill " + v.str());
    }
    for (auto [start, step] : {std::pair{0.0, 1.0}, std::pair{-3.25, 0.1}, std::pair{1e6, -7.5}, std::pair{0.5, 1e-3}}) {
      Tensor h = empty({1000}, t), d = empty({1000}, t, ocl0());
      cb().iota(h, start, step);
      ob().iota(d, start, step);
      expect_same_bits(raw(h), raw(d), t, nullptr, t, std::string(name(t)) + " iota");
    }
  }
}

TEST_F(OpenClBackendTest, WhereAndClampMatchCpu) {
  std::mt19937_64 rng(3);
  std::vector<uint8_t> cond(8 * 5);
  for (auto& c : cond) c = rng() & 1;
  Tensor ch = from_host(cond.data(), {8, 5}, bool_), cd = ch.to(ocl0());
  for (Dtype t : kAllDtypes) {
    if (!storable(t)) continue;
    const auto bits = sample(t, 40, 9);
    Tensor ah = from_raw(bits, t).narrow(0, 0, 40).reshape({5, 8}), ad = ah.to(ocl0());
    Tensor bh = from_raw(bits, t).narrow(0, 1, 5), bd = bh.to(ocl0());
    // a transposed, b a broadcast column, cond as is.
    Tensor oh = empty({8, 5}, t), od = empty({8, 5}, t, ocl0());
    cb().where(ch, ah.t(), bh.expand({8, 5}), oh);
    ob().where(cd, ad.t(), bd.expand({8, 5}), od);
    expect_same_bits(raw(oh), raw(od), t, nullptr, t, std::string(name(t)) + " where");
    if (t == bool_) continue;
    using B = std::optional<Scalar>;
    for (auto [lo, hi] : {std::pair<B, B>{Scalar(-1.5), Scalar(100)}, std::pair<B, B>{Scalar(0), std::nullopt},
                          std::pair<B, B>{std::nullopt, Scalar(int64_t{1000})}, std::pair<B, B>{Scalar(5), Scalar(-5)},
                          std::pair<B, B>{Scalar(std::nan("")), Scalar(1)}}) {
      Tensor xh = empty({8, 5}, t), xd = empty({8, 5}, t, ocl0());
      cb().clamp(ah.t(), lo, hi, xh);
      ob().clamp(ad.t(), lo, hi, xd);
      expect_same_bits(raw(xh), raw(xd), t, nullptr, t,
                       std::string(name(t)) + " clamp " + (lo ? lo->str() : "-") + " " + (hi ? hi->str() : "-"));
    }
  }
}

// ---------------------------------------------------------------- arithmetic

// 1M float32 pairs over every exponent, including subnormal inputs and results.
TEST_F(OpenClBackendTest, Float32ArithmeticIsCorrectlyRoundedLikeCpu) {
  const int64_t n = 1 << 20;
  std::mt19937_64 rng(42);
  std::vector<float> a(n), b(n);
  std::uniform_real_distribution<float> u(-1e3f, 1e3f);
  for (int64_t i = 0; i < n; ++i) {
    switch (i % 4) {
      case 0:  // any bits (NaNs quiet)
        a[i] = std::bit_cast<float>(static_cast<uint32_t>(quiet(rng() & 0xffffffffu, float32)));
        b[i] = std::bit_cast<float>(static_cast<uint32_t>(quiet(rng() & 0xffffffffu, float32)));
        break;
      case 1:  // subnormals and tiny normals
        a[i] = std::bit_cast<float>(static_cast<uint32_t>(rng() & 0x80ffffffu));
        b[i] = std::bit_cast<float>(static_cast<uint32_t>(rng() & 0x81ffffffu));
        break;
      case 2:  // tiny times ordinary: products and quotients land in the subnormal range
        a[i] = std::bit_cast<float>(static_cast<uint32_t>((rng() & 0x807fffffu) | (0x00800000u * (1 + rng() % 40))));
        b[i] = u(rng);
        break;
      default:  // close values (cancellation in sub)
        a[i] = u(rng);
        b[i] = a[i] * (1.0f + std::ldexp(static_cast<float>(static_cast<int>(rng() % 64) - 32), -20));
    }
  }
  Tensor ah = from_vector(a, {n}), bh = from_vector(b, {n});
  Tensor ad = ah.to(ocl0()), bd = bh.to(ocl0());
  auto check = [&](const char* what, const Tensor& dev_out, auto ref) {
    const auto got = dev_out.to_vector<float>();
    int64_t bad = 0;
    for (int64_t i = 0; i < n; ++i) {
      const float w = ref(a[i], b[i]), g = got[i];
      if (std::isnan(w) && std::isnan(g)) continue;  // NaN payloads are not part of the contract
      if (std::bit_cast<uint32_t>(w) != std::bit_cast<uint32_t>(g) && bad++ < 5)
        ADD_FAILURE() << what << "(" << hex(std::bit_cast<uint32_t>(a[i])) << ", " << hex(std::bit_cast<uint32_t>(b[i]))
                      << "): want " << hex(std::bit_cast<uint32_t>(w)) << " got " << hex(std::bit_cast<uint32_t>(g));
    }
    EXPECT_EQ(bad, 0) << what;
  };
  const std::pair<OpId, float (*)(float, float)> ops[] = {
      {OpId::add, [](float x, float y) { return x + y; }},
      {OpId::sub, [](float x, float y) { return x - y; }},
      {OpId::mul, [](float x, float y) { return x * y; }},
      {OpId::div, [](float x, float y) { return x / y; }}};
  for (auto [op, f] : ops) {
    Tensor out = empty({n}, float32, ocl0());
    ob().binary(op, ad, bd, out);
    check(op_name(op).data(), out, f);
  }
  Tensor out = empty({n}, float32, ocl0());
  ob().unary(OpId::sqrt, ad, out);
  check("sqrt", out, [](float x, float) { return std::sqrt(x); });
  ob().unary(OpId::reciprocal, bd, out);
  check("reciprocal", out, [](float, float y) { return 1.0f / y; });
  // The public op on the device, and the CPU backend, agree with the same reference.
  check("public add", add(ad, bd), [](float x, float y) { return x + y; });
  Tensor cpu_quot = empty({n}, float32);
  cb().binary(OpId::div, ah, bh, cpu_quot);
  check("cpu backend div", cpu_quot, [](float x, float y) { return x / y; });
}

TEST_F(OpenClBackendTest, Float64ArithmeticIsCorrectlyRoundedLikeCpu) {
  if (!storable(float64)) GTEST_SKIP() << "opencl:0 has no float64 (cl_khr_fp64)";
  const int64_t n = 1 << 18;
  std::mt19937_64 rng(7);
  std::vector<double> a(n), b(n);
  for (int64_t i = 0; i < n; ++i) {
    a[i] = std::bit_cast<double>(quiet(i % 2 ? rng() : rng() & 0x801fffffffffffffull, float64));
    b[i] = std::bit_cast<double>(quiet(rng(), float64));
  }
  Tensor ad = from_vector(a, {n}).to(ocl0()), bd = from_vector(b, {n}).to(ocl0());
  const std::pair<OpId, double (*)(double, double)> ops[] = {
      {OpId::add, [](double x, double y) { return x + y; }},
      {OpId::sub, [](double x, double y) { return x - y; }},
      {OpId::mul, [](double x, double y) { return x * y; }},
      {OpId::div, [](double x, double y) { return x / y; }},
      {OpId::sqrt, [](double x, double) { return std::sqrt(x); }}};
  for (auto [op, f] : ops) {
    Tensor out = empty({n}, float64, ocl0());
    if (op == OpId::sqrt) ob().unary(op, ad, out);
    else ob().binary(op, ad, bd, out);
    const auto got = out.to_vector<double>();
    int64_t bad = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double w = f(a[i], b[i]);
      if (std::isnan(w) && std::isnan(got[i])) continue;
      if (std::bit_cast<uint64_t>(w) != std::bit_cast<uint64_t>(got[i])) ++bad;
    }
    EXPECT_EQ(bad, 0) << op_name(op);
  }
}

// ---------------------------------------------------------------- every op, every dtype

// Inputs for op tests: specials, ordinary values, wide values, random bits.
Tensor op_input(Dtype t, int64_t n, uint64_t seed, double lo, double hi) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v = special_doubles();
  if (is_floating(t)) {
    while (static_cast<int64_t>(v.size()) < n * 3 / 4) v.push_back(u(rng));
    while (static_cast<int64_t>(v.size()) < n) v.push_back(std::ldexp(u(rng), static_cast<int>(rng() % 40) - 20));
    return from_vector(v, {n}).to(t);  // the CPU conversion gives every device the same inputs
  }
  std::vector<uint8_t> bits = sample(t, static_cast<size_t>(n), seed);
  // Mostly small integers (so pow and mul stay interesting), some extremes.
  std::vector<int64_t> iv(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) iv[i] = static_cast<int64_t>(rng() % 41) - 20;
  Tensor r = from_vector(iv, {n}).to(t);
  Tensor extremes = from_raw(bits, t).narrow(0, 0, n / 4);
  r.narrow(0, 0, n / 4).copy_(extremes);
  return r;
}

struct UlpStat {
  int64_t vs_cpu = 0, vs_ref = 0;
};

// Op names whose float results must be bit-identical to the CPU's.
bool exact_op(OpId op) {
  switch (op) {
    case OpId::neg: case OpId::abs: case OpId::sign: case OpId::relu: case OpId::floor: case OpId::ceil:
    case OpId::round: case OpId::trunc: case OpId::sqrt: case OpId::rsqrt: case OpId::reciprocal: case OpId::isnan:
    case OpId::isinf: case OpId::isfinite: case OpId::logical_not: case OpId::add: case OpId::sub: case OpId::mul:
    case OpId::div: case OpId::maximum: case OpId::minimum: case OpId::remainder: case OpId::eq: case OpId::ne:
    case OpId::lt: case OpId::le: case OpId::gt: case OpId::ge: case OpId::logical_and: case OpId::logical_or:
    case OpId::logical_xor:
      return true;
    default:
      return false;
  }
}

bool is_pred(OpId op) {
  switch (op) {
    case OpId::isnan: case OpId::isinf: case OpId::isfinite: case OpId::logical_not: case OpId::eq: case OpId::ne:
    case OpId::lt: case OpId::le: case OpId::gt: case OpId::ge: case OpId::logical_and: case OpId::logical_or:
    case OpId::logical_xor:
      return true;
    default:
      return false;
  }
}

// The float64 reference of a transcendental op (independent of both backends).
double reference(OpId op, double x, double y) {
  switch (op) {
    case OpId::exp: return std::exp(x);
    case OpId::expm1: return std::expm1(x);
    case OpId::log: return std::log(x);
    case OpId::log1p: return std::log1p(x);
    case OpId::log2: return std::log2(x);
    case OpId::sin: return std::sin(x);
    case OpId::cos: return std::cos(x);
    case OpId::tan: return std::tan(x);
    case OpId::tanh: return std::tanh(x);
    case OpId::sigmoid: return 1.0 / (1.0 + std::exp(-x));
    case OpId::gelu: {
      const long double w = x;
      if (std::isinf(x)) return x > 0 ? x : -0.0;
      return static_cast<double>(0.5L * w * std::erfc(-w / std::sqrt(2.0L)));
    }
    case OpId::erf: return std::erf(x);
    case OpId::pow: return std::pow(x, y);
    case OpId::atan2: return std::atan2(x, y);
    default: return std::nan("");
  }
}

// ULP bounds of the OpenCL result against the CPU's and against the float64
// (long double for gelu) reference rounded to the dtype. Measured on PoCL 3.1:
// float32 and the halves evaluate math functions in float64 and round once,
// so they are within 1 ulp of the CPU and correctly rounded on these inputs;
// float64 exp expm1 log log1p log2 sin cos erf pow atan2 are within 1 ulp,
// tan tanh sigmoid gelu within 2. A result that overflows on one side only
// counts inf as 1 ulp past the largest finite value. Without float64 (profile
// no-fp64) float32 functions run in float32: 1 ulp, tan sigmoid gelu 2.
int64_t ulp_bound(OpId op, Dtype t) {
  if (exact_op(op)) return 0;
  // float32 computed in float32 (no float64 on the device) behaves like float64 here.
  if (t != float64 && !(t == float32 && !storable(float64))) return 1;
  switch (op) {
    case OpId::tan: case OpId::tanh: case OpId::sigmoid: case OpId::gelu: return 2;
    default: return 1;
  }
}

// A float64 value rounded once to dtype t, as raw bits.
uint64_t round_bits(double r, Dtype t) {
  return visit_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    const T v = detail::cpu::convert<T>(r);
    uint64_t u = 0;
    std::memcpy(&u, &v, sizeof(T));
    return u;
  });
}

// Compares the OpenCL and CPU results of one op; returns the max ULP distances
// (the distance to the reference is checked against the same bound).
UlpStat compare(OpId op, Dtype t, const Tensor& a, const Tensor* b, const Tensor& cpu_out, const Tensor& dev_out) {
  const Dtype ot = cpu_out.dtype();
  const auto want = raw(cpu_out), got = raw(dev_out);
  const size_t isz = itemsize(ot), n = want.size() / isz;
  UlpStat st;
  const auto av = a.to_vector<double>();
  const std::vector<double> bv = b ? b->to_vector<double>() : std::vector<double>();
  int shown = 0;
  auto fail = [&](size_t i, const std::string& why) {
    if (shown++ < 5)
      ADD_FAILURE() << op_name(op) << " " << name(t) << " x=" << av[i] << (b ? " y=" + std::to_string(bv[i]) : "")
                    << ": " << why;
  };
  for (size_t i = 0; i < n; ++i) {
    const uint64_t w = item_bits(want, i, isz), g = item_bits(got, i, isz);
    const int64_t d = is_floating(ot) ? ulp_diff(w, g, ot) : (w == g ? 0 : std::numeric_limits<int64_t>::max());
    st.vs_cpu = std::max(st.vs_cpu, d);
    if (d > ulp_bound(op, t)) fail(i, "cpu " + hex(w) + " opencl " + hex(g) + " (" + std::to_string(d) + " ulp)");
    if (is_floating(ot) && !exact_op(op)) {
      const uint64_t rb = round_bits(reference(op, av[i], b ? bv[i] : 0.0), ot);
      const int64_t dr = ulp_diff(rb, g, ot);
      st.vs_ref = std::max(st.vs_ref, dr);
      if (dr > ulp_bound(op, t)) fail(i, "reference " + hex(rb) + " opencl " + hex(g) + " (" + std::to_string(dr) + " ulp)");
    }
  }
  return st;
}

const OpId kUnaryOps[] = {OpId::neg, OpId::abs, OpId::sign, OpId::exp, OpId::expm1, OpId::log, OpId::log1p,
                          OpId::log2, OpId::sqrt, OpId::rsqrt, OpId::sin, OpId::cos, OpId::tan, OpId::tanh,
                          OpId::sigmoid, OpId::relu, OpId::gelu, OpId::erf, OpId::floor, OpId::ceil, OpId::round,
                          OpId::trunc, OpId::reciprocal, OpId::isnan, OpId::isinf, OpId::isfinite,
                          OpId::logical_not};
const OpId kBinaryOps[] = {OpId::add, OpId::sub, OpId::mul, OpId::div, OpId::pow, OpId::maximum, OpId::minimum,
                           OpId::remainder, OpId::atan2, OpId::eq, OpId::ne, OpId::lt, OpId::le, OpId::gt,
                           OpId::ge, OpId::logical_and, OpId::logical_or, OpId::logical_xor};

void unary_ops_match_cpu() {
  const int64_t n = 4099;  // not a multiple of 8: the halves' flat kernels have a partial group
  std::map<std::string, UlpStat> worst;
  for (Dtype t : kAllDtypes) {
    if (!storable(t)) continue;
    const Tensor xh = op_input(t, n, 11, -10, 10);
    const Tensor xd = xh.to(ocl0());
    for (OpId op : kUnaryOps) {
      if (!detail::op_dtypes(op).has(t)) continue;
      const Dtype ot = is_pred(op) ? bool_ : t;
      Tensor ch = empty({n}, ot), cd = empty({n}, ot, ocl0());
      cb().unary(op, xh, ch);
      ob().unary(op, xd, cd);
      const UlpStat s = compare(op, t, xh, nullptr, ch, cd);
      auto& w = worst[std::string(op_name(op)) + " " + std::string(name(t))];
      w.vs_cpu = std::max(w.vs_cpu, s.vs_cpu);
      w.vs_ref = std::max(w.vs_ref, s.vs_ref);
    }
  }
  for (const auto& [k, s] : worst)
    if (s.vs_cpu || s.vs_ref) std::cout << "  ulp " << k << ": vs cpu " << s.vs_cpu << ", vs float64 ref " << s.vs_ref << "\n";
}

void binary_ops_match_cpu() {
  const int64_t n = 4099;  // not a multiple of 8: the halves' flat kernels have a partial group
  std::map<std::string, UlpStat> worst;
  for (Dtype t : kAllDtypes) {
    if (!storable(t)) continue;
    const Tensor ah = op_input(t, n, 21, -10, 10), bh = op_input(t, n, 22, -4, 4);
    const Tensor ad = ah.to(ocl0()), bd = bh.to(ocl0());
    for (OpId op : kBinaryOps) {
      if (!detail::op_dtypes(op).has(t)) continue;
      const Dtype ot = is_pred(op) ? bool_ : t;
      Tensor ch = empty({n}, ot), cd = empty({n}, ot, ocl0());
      cb().binary(op, ah, bh, ch);
      ob().binary(op, ad, bd, cd);
      const UlpStat s = compare(op, t, ah, &bh, ch, cd);
      auto& w = worst[std::string(op_name(op)) + " " + std::string(name(t))];
      w.vs_cpu = std::max(w.vs_cpu, s.vs_cpu);
      w.vs_ref = std::max(w.vs_ref, s.vs_ref);
    }
  }
  for (const auto& [k, s] : worst)
    if (s.vs_cpu || s.vs_ref) std::cout << "  ulp " << k << ": vs cpu " << s.vs_cpu << ", vs float64 ref " << s.vs_ref << "\n";
}

// Limits and special values come out exactly as on the CPU (tanh saturates to
// exactly +-1, exp underflows and overflows, erf reaches +-1...).
TEST_F(OpenClBackendTest, MathFunctionsAtSpecialValuesMatchCpuExactly) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> v = {0.0, -0.0, inf, -inf, std::nan(""), 1e30, -1e30, 9.5, -9.5, 20, -20, 100, -100};
  for (Dtype t : {float32, float64, float16, bfloat16}) {
    if (!storable(t)) continue;
    Tensor xh = tensor(v).to(t), xd = xh.to(ocl0());
    for (OpId op : {OpId::exp, OpId::expm1, OpId::log, OpId::log1p, OpId::log2, OpId::tanh, OpId::erf, OpId::sigmoid,
                    OpId::gelu, OpId::sqrt, OpId::rsqrt}) {
      Tensor ch = empty({static_cast<int64_t>(v.size())}, t), cd = empty({static_cast<int64_t>(v.size())}, t, ocl0());
      cb().unary(op, xh, ch);
      ob().unary(op, xd, cd);
      const auto want = raw(ch), got = raw(cd);
      for (size_t i = 0; i < v.size(); ++i) {
        const uint64_t w = item_bits(want, i, itemsize(t)), g = item_bits(got, i, itemsize(t));
        const double wv = ch.to(float64).to_vector<double>()[i];
        // Only limits are checked exactly: 0, -0, +-1, +-inf, NaN.
        if (!(wv == 0 || std::fabs(wv) == 1 || std::isinf(wv) || std::isnan(wv))) continue;
        EXPECT_EQ(ulp_diff(w, g, t), 0) << op_name(op) << "(" << v[i] << ") in " << name(t) << ": cpu " << hex(w)
                                        << " opencl " << hex(g);
      }
    }
  }
}

TEST_F(OpenClBackendTest, EveryUnaryOpEveryDtypeMatchesCpu) { unary_ops_match_cpu(); }
TEST_F(OpenClBackendTest, EveryBinaryOpEveryDtypeMatchesCpu) { binary_ops_match_cpu(); }
// Without float64 the float32 math functions run in float32 (the path of a GPU without fp64).
TEST_F(OpenClBackendTest, EveryUnaryOpMatchesCpuWithoutFp64) {
  ProfileGuard guard(ocl0(), "no-fp64");
  unary_ops_match_cpu();
}
TEST_F(OpenClBackendTest, EveryBinaryOpMatchesCpuWithoutFp64) {
  ProfileGuard guard(ocl0(), "no-fp64");
  binary_ops_match_cpu();
}

TEST_F(OpenClBackendTest, IntegerEdgeCases) {
  // Python remainder signs, remainder by 0 and -1, wrapping arithmetic, integer powers.
  const std::vector<int32_t> a = {7, -7, 7, -7, 5, std::numeric_limits<int32_t>::min(), 3, 2, -1, 1, -2, 2147483647};
  const std::vector<int32_t> b = {3, 3, -3, -3, 0, -1, 0, 31, -3, -5, 3, 2};
  Tensor ad = tensor(a, ocl0()), bd = tensor(b, ocl0());
  auto run = [&](OpId op) {
    Tensor out = empty({static_cast<int64_t>(a.size())}, int32, ocl0());
    ob().binary(op, ad, bd, out);
    return out.to_vector<int32_t>();
  };
  EXPECT_EQ(run(OpId::remainder), (std::vector<int32_t>{1, 2, -2, -1, 0, 0, 0, 2, -1, -4, 1, 1}));
  EXPECT_EQ(run(OpId::pow), (std::vector<int32_t>{343, -343, 0, 0, 1, 0, 1, std::numeric_limits<int32_t>::min(), -1,
                                                  1, -8, 1}));
  EXPECT_EQ(run(OpId::add)[11], std::numeric_limits<int32_t>::min() + 1);  // wraps
  Tensor neg = empty({static_cast<int64_t>(a.size())}, int32, ocl0());
  ob().unary(OpId::abs, ad, neg);
  EXPECT_EQ(neg.to_vector<int32_t>()[5], std::numeric_limits<int32_t>::min());  // abs(min) stays min
}

// ---------------------------------------------------------------- layouts

TEST_F(OpenClBackendTest, StridedBroadcastAndNegativeStrideInputs) {
  for (Dtype t : {float32, int32, float16, bfloat16, int8, float64}) {
    if (!storable(t)) continue;
    Tensor base_h = op_input(t, 12 * 10, 31, -5, 5), base_d = base_h.to(ocl0());
    auto views = [&](const Tensor& base) {
      // [10, 12] transposed from [12, 10]; a reversed [12] row; a [10, 1] column slice.
      std::vector<Tensor> v;
      v.push_back(base.reshape({12, 10}).t());
      v.push_back(Tensor(base.storage(), {12}, {-1}, base.offset() + 11, t).unsqueeze(0).expand({10, 12}));
      v.push_back(base.reshape({12, 10}).slice(0, 2, 12, 1).t().slice(1, 0, 1));  // [10, 1]
      v.push_back(Tensor(base.storage(), {10, 12}, {-12, 1}, base.offset() + 9 * 12, t));
      v.push_back(scalar_tensor(0.0, t).to(base.device()).expand({10, 12}));
      return v;
    };
    auto vh = views(base_h), vd = views(base_d);
    for (size_t i = 0; i < vh.size(); ++i) {
      for (size_t j = 0; j < vh.size(); ++j) {
        const Tensor bh = vh[j].expand({10, 12}), bd = vd[j].expand({10, 12});
        const Tensor ah = vh[i].expand({10, 12}), ad = vd[i].expand({10, 12});
        for (OpId op : {OpId::add, OpId::maximum, OpId::lt}) {
          const Dtype ot = op == OpId::lt ? bool_ : t;
          Tensor oh = empty({10, 12}, ot), od = empty({10, 12}, ot, ocl0());
          cb().binary(op, ah, bh, oh);
          ob().binary(op, ad, bd, od);
          expect_same_bits(raw(oh), raw(od), ot, nullptr, t,
                           std::string(op_name(op)) + " " + std::string(name(t)) + " views " + std::to_string(i) +
                               "," + std::to_string(j));
        }
      }
      Tensor oh = empty({10, 12}, t), od = empty({10, 12}, t, ocl0());
      cb().unary(OpId::neg, vh[i].expand({10, 12}), oh);
      ob().unary(OpId::neg, vd[i].expand({10, 12}), od);
      expect_same_bits(raw(oh), raw(od), t, nullptr, t, "neg " + std::string(name(t)) + " view " + std::to_string(i));
    }
  }
}

// ---------------------------------------------------------------- half types, profiles, errors

TEST_F(OpenClBackendTest, Float16ArithmeticWithoutHalfExtension) {
  const auto& info = ocl::context(0).info();
  if (info.fp16) std::cout << "  note: opencl:0 has cl_khr_fp16; float16 still computes in float32 here\n";
  std::vector<float> a = {1.0f, 0.1f, 65504.0f, -3.5f, 1e-7f, 2049.0f, 0.333f};
  std::vector<float> b = {std::ldexp(1.0f, -11), 0.2f, 100.0f, 0.25f, 1e-7f, 1.0f, 3.0f};
  Tensor ah = from_vector(a, {7}).to(float16), bh = from_vector(b, {7}).to(float16);
  Tensor ad = ah.to(ocl0()), bd = bh.to(ocl0());
  const auto af = ah.to_vector<float>(), bf = bh.to_vector<float>();
  Tensor sum = add(ad, bd), prod = mul(ad, bd);
  EXPECT_EQ(sum.dtype(), float16);
  EXPECT_EQ(sum.device(), ocl0());
  const auto s = raw(sum), p = raw(prod);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(item_bits(s, i, 2), float16_t(af[i] + bf[i]).bits) << i;  // float32 sum rounded once
    EXPECT_EQ(item_bits(p, i, 2), float16_t(af[i] * bf[i]).bits) << i;
  }
  EXPECT_EQ(float16_t(af[0] + bf[0]).bits, 0x3c00);  // 1 + 2^-11 ties to even
  EXPECT_EQ(float16_t(af[2] + bf[2]).bits, 0x7c00);  // overflow to inf
}

TEST_F(OpenClBackendTest, NoFp64ProfileDowncastsWithOneWarning) {
  ProfileGuard guard(ocl0(), "no-fp64");
  reset_report();
  reset_warnings();
  std::vector<std::string> warnings;
  auto prev = set_warning_handler([&](const std::string& w) { warnings.push_back(w); });
  const std::vector<double> v = {0.1, -2.5, 1e300, 3.0, 1.0 / 3};
  Tensor h = tensor(v);
  Tensor d = h.to(ocl0());
  Tensor d2 = h.to(ocl0());
  set_warning_handler(prev);
  EXPECT_EQ(d.dtype(), float32);
  EXPECT_EQ(d.device(), ocl0());
  const auto got = d.to_vector<float>();
  for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(got[i], static_cast<float>(v[i])) << i;
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("float64"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("opencl:0"), std::string::npos) << warnings[0];
  EXPECT_EQ(report().count("copy", "opencl:0", float64, Path::downcast), 2u);
  // Kernels still work without float64 (the programs are built without it).
  Tensor out = empty({5}, float32, ocl0());
  ob().binary(OpId::mul, d, d2, out);
  const auto sq = out.to_vector<float>();
  for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(sq[i], got[i] * got[i]) << i;
  // Floating arange computes in float64 on the device: not claimed without it;
  // integer arange is exact int64 arithmetic and stays native.
  EXPECT_FALSE(capabilities(ocl0()).has_kernel(OpId::arange, float32));
  EXPECT_TRUE(capabilities(ocl0()).has_kernel(OpId::arange, int32));
  Tensor r = empty({100}, int32, ocl0()), rc = empty({100}, int32);
  ob().iota_int(r, -7, 3);
  cb().iota_int(rc, -7, 3);
  EXPECT_EQ(raw(r), raw(rc));
  Tensor hh = tensor(std::vector<float>{1.5f, -2.25f}).to(ocl0()).to(bfloat16);
  EXPECT_EQ(hh.to_vector<float>(), (std::vector<float>{1.5f, -2.25f}));
}

TEST_F(OpenClBackendTest, NoFp64ProfileStrictThrowsWithoutAllocating) {
  ProfileGuard guard(ocl0(), "no-fp64");
  DtypePolicyGuard strict(DtypePolicy::strict);
  Tensor h = tensor(std::vector<double>{1.0, 2.0});
  const uint64_t before = memory_stats(ocl0()).allocations;
  EXPECT_THROW(h.to(ocl0()), UnsupportedDtypeError);
  EXPECT_EQ(memory_stats(ocl0()).allocations, before);
  try {
    h.to(ocl0());
  } catch (const UnsupportedDtypeError& e) {
    EXPECT_NE(std::string(e.what()).find("float64"), std::string::npos) << e.what();
  }
}

TEST_F(OpenClBackendTest, BrokenKernelSourceGivesDeviceErrorWithBuildLog) {
  auto& be = static_cast<ocl::OpenClBackend&>(ob());
  ocl::set_source_suffix_for_testing("\nthis_is_not_opencl_c oops;\n");
  bool threw = false;
  try {
    // A fresh option string: a program this process has not built yet.
    be.program("copy.cl", "-DCONCORD_TEST_BROKEN=1");
  } catch (const DeviceError& e) {
    threw = true;
    const std::string m = e.what();
    EXPECT_NE(m.find("copy.cl"), std::string::npos) << m;
    EXPECT_NE(m.find("opencl:0"), std::string::npos) << m;
    EXPECT_NE(m.find("this_is_not_opencl_c"), std::string::npos) << m;  // from the build log
  }
  ocl::set_source_suffix_for_testing("");
  EXPECT_TRUE(threw);
  // The working programs are unaffected.
  Tensor x = tensor(std::vector<int32_t>{1, 2, 3}, ocl0()).to(float32);
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{1, 2, 3}));
}

}  // namespace
