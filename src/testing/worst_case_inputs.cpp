// The inputs and the long double reference of the worst-case search
// (concord/worst_case.h). Everything is built on the host from bit patterns
// and libm's long double functions, never from the ops under test.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "concord/half.h"
#include "concord/testing.h"
#include "concord/worst_case.h"

namespace concord::testing {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Rng {  // SplitMix64: a seed gives the same inputs everywhere
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1p-53; }
};

struct Format_ { int p, emin, emax; };  // precision (with the implicit bit), exponent range

int width(Dtype t) { return t == float64 ? 64 : t == float32 ? 32 : 16; }

double from_bits(Dtype t, uint64_t b) {
  switch (t) {
    case Dtype::float16: return detail::f16_bits_to_f32(static_cast<uint16_t>(b));
    case Dtype::bfloat16: return detail::bf16_bits_to_f32(static_cast<uint16_t>(b));
    case Dtype::float32: return detail::bits_f32(static_cast<uint32_t>(b));
    default: {
      double d;
      std::memcpy(&d, &b, 8);
      return d;
    }
  }
}

// n values spread over every exponent: an even stride through the bit
// patterns with a random offset in each step (16 and 32 bits; every value of a
// half when n >= 65536), random sign, exponent and mantissa for float64.
std::vector<double> spread(Dtype t, int64_t n, Rng& r) {
  std::vector<double> v;
  v.reserve(static_cast<size_t>(n));
  const int w = width(t);
  if (w == 64) {
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t e = r.next() % 2048, m = r.next() >> 12, s = r.next() >> 63;
      v.push_back(from_bits(t, (s << 63) | (e << 52) | m));
    }
    return v;
  }
  const uint64_t space = uint64_t{1} << w, step = std::max<uint64_t>(1, space / static_cast<uint64_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t base = (static_cast<uint64_t>(i) * step) % space;
    v.push_back(from_bits(t, step > 1 ? base + r.next() % step : base));
  }
  return v;
}

void shuffle(std::vector<double>& v, Rng& r) {
  for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[r.next() % i]);
}

// v and its k nearest neighbours on each side in t.
void around(std::vector<double>& out, Dtype t, double v, int k) {
  const double c = round_to(t, v);
  if (!std::isfinite(c)) return;
  for (int i = -k; i <= k; ++i) {
    const double u = round_to(t, c + i * ulp(t, c));
    if (std::isfinite(u)) out.push_back(u);
  }
}

// Values every op meets: zeros, infinities, NaN, the subnormal and normal
// edges, small integers, and numbers next to 1.
std::vector<double> specials(Dtype t) {
  const Format_ f = [&] {
    switch (t) {
      case Dtype::float16: return Format_{11, -14, 15};
      case Dtype::bfloat16: return Format_{8, -126, 127};
      case Dtype::float32: return Format_{24, -126, 127};
      default: return Format_{53, -1022, 1023};
    }
  }();
  const double minsub = std::ldexp(1.0, f.emin - f.p + 1), minnorm = std::ldexp(1.0, f.emin);
  const double maxv = std::ldexp(2.0 - std::ldexp(1.0, 1 - f.p), f.emax), eps = std::ldexp(1.0, 1 - f.p);
  std::vector<double> s = {0.0,    -0.0,          kInf,      -kInf, kNaN, minsub, -minsub, minnorm - minsub,
                           minnorm, -minnorm,     maxv,      -maxv, 1.0,  -1.0,   1 + eps, 1 - eps / 2,
                           0.5,    2.0,           3.0,       -3.0,  10.0, 100.0,  0.1,     -0.5};
  for (double& v : s) v = std::isnan(v) ? v : round_to(t, v);
  return s;
}

}  // namespace

void worst_case_inputs(OpId op, Dtype t, const WorstCaseOptions& o, std::vector<double>& x, std::vector<double>& y) {
  const OpDef& d = op_def(op);
  const bool binary = d.arity == 2;
  Rng r{o.seed * 0x2545f4914f6cdd1dull + static_cast<uint64_t>(op) * 131 + static_cast<uint64_t>(t)};
  const int64_t half = std::max<int64_t>(1, o.count / 2);
  // Half of the inputs over every exponent (a half's unary op: all of its values).
  const int64_t nspread = !binary && width(t) == 16 ? int64_t{65536} : half;
  x = spread(t, nspread, r);
  if (binary) {
    y = spread(t, nspread, r);
    shuffle(x, r);
    shuffle(y, r);
  }
  // Half uniform over the op's sample domain.
  for (int64_t i = 0; i < half; ++i) {
    x.push_back(round_to(t, d.lo + (d.hi - d.lo) * r.uniform()));
    if (binary) y.push_back(round_to(t, d.lo2 + (d.hi2 - d.lo2) * r.uniform()));
  }
  // The hard cases.
  const std::vector<double> s = specials(t);
  std::vector<double> hx, hy;
  if (binary) {
    for (double a : s)
      for (double b : s) hx.push_back(a), hy.push_back(b);
  } else {
    hx = s;
  }
  std::vector<double> edges;
  switch (op) {
    case OpId::exp: case OpId::expm1: case OpId::sigmoid: case OpId::tanh:
      // -709.79 .. -745: e^-x overflows while sigmoid(x) is still a subnormal float64 (all devices gave 0)
      for (double v : {88.7228, -87.3365, -103.279, 709.7827, -708.3964, -709.79, -720.0, -740.0, -745.1332, 11.0904,
                       -9.704, -17.33, 0.0, 1e-3, -1e-3, 20.0, -20.0, 9.01, 44.36, -0.3465736})
        around(edges, t, v, 16);
      break;
    case OpId::log: case OpId::log1p: case OpId::log2:
      for (double v : {1.0, 2.0, 0.5, 1e-3, -0.999, -0.5, std::exp(1.0)}) around(edges, t, v, 32);
      break;
    case OpId::sin: case OpId::cos: case OpId::tan:
      for (int k = 1; k <= 64; ++k) around(edges, t, k * 1.5707963267948966, 8), around(edges, t, -k * 1.5707963267948966, 2);
      for (double v : {1e4, 1e6, 1e10, 1e22, 1e30, 1e300, 0x1p100, 0x1p120, 6.2831853, 3.1415927e6}) around(edges, t, v, 4);
      break;
    case OpId::erf: case OpId::gelu:
      // below -13, float32 erfc(-x/sqrt 2) is subnormal (gelu reached 9.2 ULP at -13.24 without float64)
      for (double v : {-0.5, 0.5, -1.0, 1.0, -2.0, 2.0, -3.92, -5.0, -10.0, -13.0, -13.24, -14.0, -26.0, -38.0, 3.9, 6.0})
        around(edges, t, v, 8);
      break;
    case OpId::rsqrt: case OpId::sqrt: case OpId::reciprocal:
      for (double v : {1.0, 2.0, 4.0, 0.25, 3.0, 1e-30, 1e30}) around(edges, t, v, 8);
      break;
    default: break;
  }
  hx.insert(hx.end(), edges.begin(), edges.end());
  if (binary) {
    // Each edge value against 1, 2, -1 and itself; quotients near 1 and the recorded worst cases.
    for (double e : edges) for (double b : {1.0, 2.0, -1.0, e}) hx.push_back(e), hy.push_back(round_to(t, b));
    std::vector<double> near1;
    around(near1, t, 1.0, 16);
    for (double a : near1)
      for (double b : {1.0, -1.0, 3.0, 0.5}) {
        hx.push_back(round_to(t, a * b)), hy.push_back(round_to(t, b));
        hx.push_back(round_to(t, b)), hy.push_back(round_to(t, a * b));
      }
    if (op == OpId::atan2) {  // y, x: vulkan:0's float32 atan2 reached 2.2 ULP here
      hx.push_back(round_to(t, static_cast<double>(detail::bits_f32(0xbfeb8482u))));
      hy.push_back(round_to(t, static_cast<double>(detail::bits_f32(0x405d232du))));
    }
    if (op == OpId::pow)
      for (double a : near1)
        for (double b : {1e3, -1e3, 1e6, 0.5, 127.0, -126.0, 1023.0}) hx.push_back(a), hy.push_back(round_to(t, b));
    y.insert(y.end(), hy.begin(), hy.end());
  }
  x.insert(x.end(), hx.begin(), hx.end());
}

long double worst_case_reference(OpId op, long double x, long double y) {
  switch (op) {
    case OpId::neg: return -x;
    case OpId::abs: return std::fabs(x);
    case OpId::exp: return std::exp(x);
    case OpId::expm1: return std::expm1(x);
    case OpId::log: return std::log(x);
    case OpId::log1p: return std::log1p(x);
    case OpId::log2: return std::log2(x);
    case OpId::sqrt: return std::sqrt(x);
    case OpId::rsqrt: return 1.0L / std::sqrt(x);
    case OpId::sin: return std::sin(x);
    case OpId::cos: return std::cos(x);
    case OpId::tan: return std::tan(x);
    case OpId::tanh: return std::tanh(x);
    case OpId::sigmoid: return x >= 0 ? 1.0L / (1.0L + std::exp(-x)) : std::exp(x) / (1.0L + std::exp(x));
    case OpId::relu: return std::isnan(x) ? x : x > 0 ? x : 0.0L;
    case OpId::gelu:
      if (std::isinf(x)) return x > 0 ? x : -0.0L;
      return 0.5L * x * std::erfc(-x / std::sqrt(2.0L));
    case OpId::erf: return std::erf(x);
    case OpId::floor: return std::floor(x);
    case OpId::ceil: return std::ceil(x);
    case OpId::round: return std::nearbyint(x);  // half to even
    case OpId::trunc: return std::trunc(x);
    case OpId::reciprocal: return 1.0L / x;
    case OpId::add: return x + y;
    case OpId::sub: return x - y;
    case OpId::mul: return x * y;
    case OpId::div: return x / y;
    case OpId::pow: return std::pow(x, y);
    case OpId::atan2: return std::atan2(x, y);
    case OpId::hypot: return std::isinf(x) || std::isinf(y) ? HUGE_VALL : std::hypot(x, y);
    case OpId::logaddexp: {
      if (std::isnan(x) || std::isnan(y)) return x + y;
      if (x == y && std::isinf(x)) return x;
      const long double m = std::max(x, y);
      return m + std::log1p(std::exp(-std::fabs(x - y)));
    }
    case OpId::remainder: {  // Python's %: the sign of the divisor (fmod is exact)
      if (std::isinf(y) && std::isfinite(x)) return (x == 0 || (x < 0) == (y < 0)) ? x : y;
      long double m = std::fmod(x, y);
      if (m != 0 && ((m < 0) != (y < 0))) m += y;
      if (m == 0) m = std::copysign(0.0L, y);
      return m;
    }
    default: return std::numeric_limits<long double>::quiet_NaN();
  }
}

}  // namespace concord::testing
