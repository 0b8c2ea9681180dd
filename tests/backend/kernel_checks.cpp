// Definitions of the shared device-kernel test tools (kernel_checks.h).
#include "backend/kernel_checks.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>

namespace concord::test {

bool is_nan_bits(uint64_t u, Dtype t) {
  switch (t) {
    case float16: return (u & 0x7c00) == 0x7c00 && (u & 0x3ff);
    case bfloat16: return (u & 0x7f80) == 0x7f80 && (u & 0x7f);
    case float32: return (u & 0x7f800000u) == 0x7f800000u && (u & 0x7fffffu);
    case float64: return (u & 0x7ff0000000000000ull) == 0x7ff0000000000000ull && (u & 0xfffffffffffffull);
    default: return false;
  }
}

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

uint64_t quiet(uint64_t u, Dtype t) {
  if (!is_nan_bits(u, t)) return u;
  switch (t) {
    case float16: return u | 0x200;
    case bfloat16: return u | 0x40;
    case float32: return u | 0x400000;
    default: return u | 0x8000000000000ull;
  }
}

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

std::vector<uint8_t> sample(Dtype t, size_t n_random, uint64_t seed) {
  const auto sp = special_doubles();
  Tensor s = from_host(sp.data(), {static_cast<int64_t>(sp.size())}, float64).to(t);
  std::vector<uint8_t> out = raw_bytes(s);
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

void expect_same_bits(const std::vector<uint8_t>& want, const std::vector<uint8_t>& got, Dtype t,
                      const std::vector<uint8_t>* src, Dtype st, const std::string& what, bool nan_payloads) {
  ASSERT_EQ(want.size(), got.size()) << what;
  const size_t isz = itemsize(t), n = want.size() / isz;
  int shown = 0;
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t w = item_bits(want, i, isz), g = item_bits(got, i, isz);
    if (w == g || (!nan_payloads && is_nan_bits(w, t) && is_nan_bits(g, t))) continue;
    ++bad;
    if (shown++ < 5)
      ADD_FAILURE() << what << ": element " << i << (src ? " from " + hex(item_bits(*src, i, itemsize(st))) : "")
                    << " want " << hex(w) << " got " << hex(g);
  }
  EXPECT_EQ(bad, 0u) << what;
}

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

double unit(Dtype t) {
  switch (t) {
    case float16: return std::ldexp(1.0, -11);
    case bfloat16: return std::ldexp(1.0, -8);
    case float32: return std::ldexp(1.0, -24);
    default: return std::ldexp(1.0, -53);
  }
}
double acc_unit(Dtype t) { return t == float64 ? unit(float64) : unit(float32); }
double gamma(int64_t n, double u) { return static_cast<double>(n) * u / (1.0 - static_cast<double>(n) * u); }

std::vector<double> values(int64_t n, double lo, double hi, uint32_t seed, bool integers) {
  std::mt19937 gen(seed);
  std::vector<double> v(static_cast<size_t>(n));
  if (integers) {
    std::uniform_int_distribution<int64_t> d(static_cast<int64_t>(lo), static_cast<int64_t>(hi));
    for (auto& x : v) x = static_cast<double>(d(gen));
  } else {
    std::uniform_real_distribution<double> d(lo, hi);
    for (auto& x : v) x = d(gen);
  }
  return v;
}

Tensor make(const std::vector<double>& v, Shape shape, Dtype t) { return from_host(v.data(), shape, float64).to(t); }

std::vector<uint64_t> raw_bits(const Tensor& t) {
  const Tensor c = t.to(kCPU).contiguous();
  const size_t sz = itemsize(c.dtype());
  std::vector<uint64_t> out(static_cast<size_t>(c.numel()), 0);
  const char* p = static_cast<const char*>(c.raw_data());
  for (size_t i = 0; i < out.size(); ++i) std::memcpy(&out[i], p + i * sz, sz);
  return out;
}

std::vector<uint64_t> raw_bits(const Tensor& t, const Device& judged) {
  std::vector<uint64_t> b = raw_bits(t);
  if (capabilities(judged).keeps_nan_payloads || !is_floating(t.dtype())) return b;
  const std::vector<double> v = t.to(kCPU).contiguous().to_vector<double>();
  for (size_t i = 0; i < b.size(); ++i)
    if (std::isnan(v[i])) b[i] = ~uint64_t{0};
  return b;
}

std::vector<std::vector<double>> groups(const Tensor& x, const std::vector<int64_t>& dims) {
  const std::vector<double> v = x.to_vector<double>();
  const Shape& shape = x.shape();
  const size_t nd = shape.size();
  std::vector<bool> red(nd, dims.empty());
  for (int64_t d : dims) red[static_cast<size_t>(d)] = true;
  int64_t nout = 1;
  for (size_t i = 0; i < nd; ++i)
    if (!red[i]) nout *= shape[i];
  std::vector<std::vector<double>> g(static_cast<size_t>(nout));
  std::vector<int64_t> idx(nd, 0);
  for (size_t lin = 0; lin < v.size(); ++lin) {
    int64_t o = 0;
    for (size_t i = 0; i < nd; ++i)
      if (!red[i]) o = o * shape[i] + idx[i];
    g[static_cast<size_t>(o)].push_back(v[lin]);
    for (size_t i = nd; i-- > 0;) {
      if (++idx[i] < shape[i]) break;
      idx[i] = 0;
    }
  }
  return g;
}

std::string label(const Tensor& x, const std::vector<int64_t>& dims) {
  std::string s = std::string(name(x.dtype())) + shape_str(x.shape()) + " strides " + shape_str(x.strides()) + " dims [";
  for (int64_t d : dims) s += std::to_string(d) + " ";
  return s + "]";
}

Tensor flush_subnormals(const Tensor& x) {
  if (!is_floating(x.dtype())) return x;
  const double tiny = x.dtype() == float64 ? 0x1p-1022 : 0x1p-126;
  std::vector<double> v = x.to_vector<double>();
  for (double& e : v)
    if (e != 0 && std::fabs(e) < tiny) e = std::copysign(0.0, e);
  return from_host(v.data(), x.shape(), float64).to(x.dtype());
}

}  // namespace concord::test
