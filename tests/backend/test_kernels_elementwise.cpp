// Device kernels of unary and binary ops on every device whose memory is
// device memory, against the CPU backend on the same data and a float64
// reference: correctly rounded arithmetic on a million float32 pairs, every
// op of the table in every dtype the device claims, limits and special
// values, integer edge cases (kernel_checks.h).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "backend/cpu/convert.h"
#include "backend/kernel_checks.h"

namespace concord::test {
namespace {

struct Target;

class KernelsElementwise : public DeviceKernels {
 protected:
  Target target() const;
};

// 1M float32 pairs over every exponent, including subnormal inputs and results.
TEST_P(KernelsElementwise, Float32ArithmeticIsCorrectlyRoundedLikeCpu) {
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
  Tensor ad = ah.to(device()), bd = bh.to(device());
  // A device that does not promise to keep subnormals (Capabilities::
  // keeps_subnormals) is not held to them: cases with a subnormal operand or
  // result are not compared there.
  const bool subnormals = capabilities(device()).keeps_subnormals;
  auto sub = [](float x) { return std::fpclassify(x) == FP_SUBNORMAL; };
  auto check = [&](const char* what, const Tensor& dev_out, auto ref) {
    const auto got = dev_out.to_vector<float>();
    int64_t bad = 0;
    for (int64_t i = 0; i < n; ++i) {
      const float w = ref(a[i], b[i]), g = got[i];
      if (std::isnan(w) && std::isnan(g)) continue;  // NaN payloads are not part of the contract
      if (!subnormals && (sub(a[i]) || sub(b[i]) || sub(w))) continue;
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
    if (!native(op, float32)) continue;
    Tensor out = empty({n}, float32, device());
    be().binary(op, ad, bd, out);
    check(op_name(op).data(), out, f);
  }
  Tensor out = empty({n}, float32, device());
  if (native(OpId::sqrt, float32)) {
    be().unary(OpId::sqrt, ad, out);
    check("sqrt", out, [](float x, float) { return std::sqrt(x); });
  }
  if (native(OpId::reciprocal, float32)) {
    be().unary(OpId::reciprocal, bd, out);
    check("reciprocal", out, [](float, float y) { return 1.0f / y; });
  }
  // The public op on the device, and the CPU backend, agree with the same reference.
  check("public add", add(ad, bd), [](float x, float y) { return x + y; });
  Tensor cpu_quot = empty({n}, float32);
  cb().binary(OpId::div, ah, bh, cpu_quot);
  check("cpu backend div", cpu_quot, [](float x, float y) { return x / y; });
}

TEST_P(KernelsElementwise, Float64ArithmeticIsCorrectlyRoundedLikeCpu) {
  if (!storable(float64)) GTEST_SKIP() << device().str() << " has no float64 (under this profile)";
  const int64_t n = 1 << 18;
  std::mt19937_64 rng(7);
  std::vector<double> a(n), b(n);
  for (int64_t i = 0; i < n; ++i) {
    a[i] = std::bit_cast<double>(quiet(i % 2 ? rng() : rng() & 0x801fffffffffffffull, float64));
    b[i] = std::bit_cast<double>(quiet(rng(), float64));
  }
  Tensor ad = from_vector(a, {n}).to(device()), bd = from_vector(b, {n}).to(device());
  const std::pair<OpId, double (*)(double, double)> ops[] = {
      {OpId::add, [](double x, double y) { return x + y; }},
      {OpId::sub, [](double x, double y) { return x - y; }},
      {OpId::mul, [](double x, double y) { return x * y; }},
      {OpId::div, [](double x, double y) { return x / y; }},
      {OpId::sqrt, [](double x, double) { return std::sqrt(x); }}};
  const bool subnormals = capabilities(device()).keeps_subnormals;
  auto sub = [](double x) { return std::fpclassify(x) == FP_SUBNORMAL; };
  for (auto [op, f] : ops) {
    if (!native(op, float64)) continue;
    Tensor out = empty({n}, float64, device());
    if (op == OpId::sqrt) be().unary(op, ad, out);
    else be().binary(op, ad, bd, out);
    const auto got = out.to_vector<double>();
    int64_t bad = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double w = f(a[i], b[i]);
      if (std::isnan(w) && std::isnan(got[i])) continue;
      if (!subnormals && (sub(a[i]) || sub(b[i]) || sub(w))) continue;
      if (std::bit_cast<uint64_t>(w) != std::bit_cast<uint64_t>(got[i])) ++bad;
    }
    EXPECT_EQ(bad, 0) << op_name(op);
  }
}

// ---------------------------------------------------------------- every op, every dtype

struct UlpStat {
  int64_t vs_cpu = 0, vs_ref = 0, subnormal_skipped = 0;
};

// A subnormal of the dtype t computes in (halves compute in float32).
bool tiny(double v, Dtype t) { return v != 0 && std::fabs(v) < (t == float64 ? 0x1p-1022 : 0x1p-126); }

// True where the op promises the CPU's bits: exact and correctly rounded ops
// (the op table's model). OpenCL's rsqrt is 1 / sqrt, both correctly rounded.
bool bitwise_op(OpId op, const std::string& kind) {
  const ErrorModel m = op_def(op).model;
  return m == ErrorModel::exact || m == ErrorModel::rounded || (kind == "opencl" && op == OpId::rsqrt);
}

// The float64 reference of a transcendental op (independent of both backends).
double reference(OpId op, double x, double y) {
  switch (op) {
    case OpId::exp: return std::exp(x);
    case OpId::expm1: return std::expm1(x);
    case OpId::log: return std::log(x);
    case OpId::log1p: return std::log1p(x);
    case OpId::log2: return std::log2(x);
    case OpId::rsqrt: return 1.0 / std::sqrt(x);
    case OpId::sin: return std::sin(x);
    case OpId::cos: return std::cos(x);
    case OpId::tan: return std::tan(x);
    case OpId::tanh: return std::tanh(x);
    // in long double: e^-x of a float64 overflows below -709.78, where sigmoid is still a subnormal
    case OpId::sigmoid: return static_cast<double>(1.0L / (1.0L + std::exp(-static_cast<long double>(x))));
    case OpId::gelu: {
      const long double w = x;
      if (std::isinf(x)) return x > 0 ? x : -0.0;
      return static_cast<double>(0.5L * w * std::erfc(-w / std::sqrt(2.0L)));
    }
    case OpId::erf: return std::erf(x);
    case OpId::pow: return std::pow(x, y);
    case OpId::atan2: return std::atan2(x, y);
    case OpId::logaddexp: {
      if (x == y && std::isinf(x)) return x;
      const long double m = std::max<long double>(x, y);
      return static_cast<double>(m + std::log1p(std::exp(-std::fabs(static_cast<long double>(x) - y))));
    }
    default: return std::nan("");
  }
}

// The device under test: its kind and whether it has float64 (profiles included).
struct Target {
  Device device;
  std::string kind;
  bool fp64;
  bool subnormals;  // Capabilities::keeps_subnormals
  bool pocl;        // an OpenCL device of PoCL, whose measured bounds apply
};

// ULP bound of a device result against the CPU's and against the float64
// (long double for gelu) reference rounded to the dtype. OpenCL's bounds are
// measured on PoCL 3.1: float32 and the halves evaluate math functions in
// float64 and round once, so they are within 1 ulp of the CPU and correctly
// rounded on these inputs; float64 exp expm1 log log1p log2 sin cos erf pow
// atan2 are within 1 ulp, tan tanh sigmoid gelu within 2; without float64
// (profile no-fp64) float32 functions run in float32: 1 ulp, tan sigmoid gelu
// 2. Other backends, and OpenCL drivers other than PoCL (NVIDIA's float64
// erfc puts gelu 3 ulp from the CPU on an H200): the op table's bound. A result that overflows on one
// side only counts inf as 1 ulp past the largest finite value.
int64_t ulp_bound(OpId op, Dtype t, const Target& dev) {
  if (bitwise_op(op, dev.kind)) return 0;
  if (dev.kind != "opencl" || !dev.pocl) return static_cast<int64_t>(op_def(op).bound);
  // float32 computed in float32 (no float64 on the device) behaves like float64 here.
  if (t != float64 && !(t == float32 && !dev.fp64)) return 1;
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

// Compares the device and CPU results of one op; returns the max ULP
// distances. The device may differ from the CPU by the bound on each side of
// the reference (the CPU's own results are within the model too).
UlpStat compare(OpId op, Dtype t, const Tensor& a, const Tensor* b, const Tensor& cpu_out, const Tensor& dev_out,
                const Target& dev) {
  const Dtype ot = cpu_out.dtype();
  const auto want = raw_bytes(cpu_out), got = raw_bytes(dev_out);
  const size_t isz = itemsize(ot), n = want.size() / isz;
  const int64_t bound = ulp_bound(op, t, dev);
  const int64_t cpu_bound = dev.kind == "opencl" && dev.pocl ? bound : 2 * bound;
  UlpStat st;
  const auto av = a.to_vector<double>();
  const std::vector<double> bv = b ? b->to_vector<double>() : std::vector<double>();
  int shown = 0;
  auto fail = [&](size_t i, const std::string& why) {
    if (shown++ < 5)
      ADD_FAILURE() << op_name(op) << " " << name(t) << " on " << dev.device.str() << " x=" << av[i]
                    << (b ? " y=" + std::to_string(bv[i]) : "") << ": " << why;
  };
  const std::vector<double> wv = cpu_out.to_vector<double>();
  for (size_t i = 0; i < n; ++i) {
    // A device that does not promise to keep subnormals is not held to them
    // here (the parity sweep judges it as flushing them).
    if (!dev.subnormals && (tiny(av[i], t) || (b && tiny(bv[i], t)) || tiny(wv[i], t))) {
      ++st.subnormal_skipped;
      continue;
    }
    const uint64_t w = item_bits(want, i, isz), g = item_bits(got, i, isz);
    const int64_t d = is_floating(ot) ? ulp_diff(w, g, ot) : (w == g ? 0 : std::numeric_limits<int64_t>::max());
    st.vs_cpu = std::max(st.vs_cpu, d);
    if (d > cpu_bound) fail(i, "cpu " + hex(w) + " device " + hex(g) + " (" + std::to_string(d) + " ulp)");
    if (is_floating(ot) && !bitwise_op(op, dev.kind)) {
      const double r = reference(op, av[i], b ? bv[i] : 0.0);
      const uint64_t rb = round_bits(r, ot);
      const int64_t dr = ulp_diff(rb, g, ot);
      // float64 logaddexp near a zero result is ill-conditioned (ops.h): its
      // bound is 1.5 ulp of |max(x, y)| + ln(1 + e^-|x - y|), not of the result.
      if (op == OpId::logaddexp && ot == float64 && std::fabs(r) < 0.5) {
        const double scale = std::max(av[i], bv[i]) < 0 ? -std::max(av[i], bv[i]) + 0.7 : 0.7;
        EXPECT_LE(std::fabs(std::bit_cast<double>(g) - r), 1.5 * std::ldexp(1.0, std::ilogb(scale) - 52))
            << "logaddexp float64 on " << dev.device.str() << " at (" << av[i] << ", " << bv[i] << ")";
        continue;
      }
      st.vs_ref = std::max(st.vs_ref, dr);
      if (dr > bound) fail(i, "reference " + hex(rb) + " device " + hex(g) + " (" + std::to_string(dr) + " ulp)");
    }
  }
  return st;
}

// Every op of `family` in the table, in every dtype the device claims natively.
void ops_match_cpu(OpFamily family, const Target& dev) {
  const int64_t n = 4099;  // not a multiple of 8: the halves' flat kernels have a partial group
  std::map<std::string, UlpStat> worst;
  std::vector<std::string> not_native;
  const Capabilities caps = capabilities(dev.device);
  for (Dtype t : kAllDtypes) {
    if (!caps.can_store(t)) continue;
    const bool unary = family == OpFamily::unary;
    const Tensor ah = op_input(t, n, unary ? 11 : 21, -10, 10), bh = op_input(t, n, 22, -4, 4);
    const Tensor ad = ah.to(dev.device), bd = bh.to(dev.device);
    for (int i = 0; i < kNumOps; ++i) {
      const OpDef& def = op_def(static_cast<OpId>(i));
      if (def.family != family || !def.dtypes.has(t)) continue;
      if (!caps.has_kernel(def.id, t)) {
        not_native.push_back(std::string(def.name) + " " + std::string(name(t)));
        continue;
      }
      const Dtype ot = def.result_dtype(t);
      Tensor ch = empty({n}, ot), cd = empty({n}, ot, dev.device);
      if (family == OpFamily::unary) {
        detail::cpu_backend().unary(def.id, ah, ch);
        detail::backend_for(dev.device).unary(def.id, ad, cd);
      } else {
        detail::cpu_backend().binary(def.id, ah, bh, ch);
        detail::backend_for(dev.device).binary(def.id, ad, bd, cd);
      }
      const UlpStat s = compare(def.id, t, ah, family == OpFamily::binary ? &bh : nullptr, ch, cd, dev);
      auto& w = worst[std::string(def.name) + " " + std::string(name(t))];
      w.vs_cpu = std::max(w.vs_cpu, s.vs_cpu);
      w.vs_ref = std::max(w.vs_ref, s.vs_ref);
      w.subnormal_skipped += s.subnormal_skipped;
    }
  }
  for (const auto& [k, s] : worst)
    if (s.vs_cpu || s.vs_ref) std::cout << "  ulp " << k << ": vs cpu " << s.vs_cpu << ", vs float64 ref " << s.vs_ref << "\n";
  int64_t skipped = 0;
  for (const auto& [k, s] : worst) skipped += s.subnormal_skipped;
  if (skipped)
    std::cout << "  " << skipped << " elements with a subnormal operand or result not compared: " << dev.device.str()
              << " does not promise to keep subnormals\n";
  if (!not_native.empty()) {
    std::cout << "  " << not_native.size() << " (op, dtype) pairs not native on " << dev.device.str()
              << " (not called), e.g.";
    for (size_t i = 0; i < not_native.size() && i < 4; ++i) std::cout << " " << not_native[i] << ";";
    std::cout << "\n";
  }
}

Target KernelsElementwise::target() const {
  return {device(), kind(), storable(float64), capabilities(device()).keeps_subnormals,
          capabilities(device()).description.find("Portable Computing Language") != std::string::npos};
}

// Limits and special values come out exactly as on the CPU (tanh saturates to
// exactly +-1, exp underflows and overflows, erf reaches +-1...).
TEST_P(KernelsElementwise, MathFunctionsAtSpecialValuesMatchCpuExactly) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> v = {0.0, -0.0, inf, -inf, std::nan(""), 1e30, -1e30, 9.5, -9.5, 20, -20, 100, -100};
  for (Dtype t : {float32, float64, float16, bfloat16}) {
    if (!storable(t)) continue;
    Tensor xh = tensor(v).to(t), xd = xh.to(device());
    for (OpId op : {OpId::exp, OpId::expm1, OpId::log, OpId::log1p, OpId::log2, OpId::tanh, OpId::erf, OpId::sigmoid,
                    OpId::gelu, OpId::sqrt, OpId::rsqrt}) {
      if (!native(op, t)) continue;
      Tensor ch = empty({static_cast<int64_t>(v.size())}, t), cd = empty({static_cast<int64_t>(v.size())}, t, device());
      cb().unary(op, xh, ch);
      be().unary(op, xd, cd);
      const auto want = raw_bytes(ch), got = raw_bytes(cd);
      for (size_t i = 0; i < v.size(); ++i) {
        const uint64_t w = item_bits(want, i, itemsize(t)), g = item_bits(got, i, itemsize(t));
        const double wv = ch.to(float64).to_vector<double>()[i];
        // Only limits are checked exactly: 0, -0, +-1, +-inf, NaN.
        if (!(wv == 0 || std::fabs(wv) == 1 || std::isinf(wv) || std::isnan(wv))) continue;
        EXPECT_EQ(ulp_diff(w, g, t), 0) << op_name(op) << "(" << v[i] << ") in " << name(t) << ": cpu " << hex(w)
                                        << " " << device().str() << " " << hex(g);
      }
    }
  }
}

TEST_P(KernelsElementwise, EveryUnaryOpEveryDtypeMatchesCpu) { ops_match_cpu(OpFamily::unary, target()); }
TEST_P(KernelsElementwise, EveryBinaryOpEveryDtypeMatchesCpu) { ops_match_cpu(OpFamily::binary, target()); }

TEST_P(KernelsElementwise, IntegerEdgeCases) {
  // Python remainder signs, remainder by 0 and -1, wrapping arithmetic, integer powers.
  const std::vector<int32_t> a = {7, -7, 7, -7, 5, std::numeric_limits<int32_t>::min(), 3, 2, -1, 1, -2, 2147483647};
  const std::vector<int32_t> b = {3, 3, -3, -3, 0, -1, 0, 31, -3, -5, 3, 2};
  Tensor ad = tensor(a, device()), bd = tensor(b, device());
  for (OpId op : {OpId::remainder, OpId::floor_divide, OpId::pow, OpId::add, OpId::abs})
    if (!native(op, int32)) GTEST_SKIP() << device().str() << " has no native " << op_name(op) << " in int32";
  auto run = [&](OpId op) {
    Tensor out = empty({static_cast<int64_t>(a.size())}, int32, device());
    be().binary(op, ad, bd, out);
    return out.to_vector<int32_t>();
  };
  EXPECT_EQ(run(OpId::remainder), (std::vector<int32_t>{1, 2, -2, -1, 0, 0, 0, 2, -1, -4, 1, 1}));
  EXPECT_EQ(run(OpId::floor_divide), (std::vector<int32_t>{2, -3, -3, 2, 0, std::numeric_limits<int32_t>::min(), 0,
                                                           0, 0, -1, -1, 1073741823}));  // min // -1 wraps
  EXPECT_EQ(run(OpId::pow), (std::vector<int32_t>{343, -343, 0, 0, 1, 0, 1, std::numeric_limits<int32_t>::min(), -1,
                                                  1, -8, 1}));
  EXPECT_EQ(run(OpId::add)[11], std::numeric_limits<int32_t>::min() + 1);  // wraps
  Tensor neg = empty({static_cast<int64_t>(a.size())}, int32, device());
  be().unary(OpId::abs, ad, neg);
  EXPECT_EQ(neg.to_vector<int32_t>()[5], std::numeric_limits<int32_t>::min());  // abs(min) stays min
}

CONCORD_INSTANTIATE_DEVICE_KERNELS(KernelsElementwise);

}  // namespace
}  // namespace concord::test
