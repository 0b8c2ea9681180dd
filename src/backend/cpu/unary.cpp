// Unary elementwise kernels on the CPU.
//
// Each op is a small functor over the compute type (float for float16 and
// bfloat16). exp, sigmoid, tanh and log of float32 and the halves go to the
// vectorised kernels of vec_math.h instead (<= 1 ULP, same bits on every ISA);
// float64 keeps the libm calls. In the reproducible mode the shared code of
// backend/common runs instead, which OpenCL runs too: float32 (and the
// halves) sin, cos, tan, pow(x, number), expm1, log1p, log2, erf and gelu
// (canon_trig.h, canon_pow.h, canon_explog.h, canon_explog_erf.h; outside the mode
// the C library's, faster: sin/cos/tan about twice, powf many times, the
// others: see CanonExpm1), and float64 exp, expm1, log, log1p, log2, tanh,
// sigmoid, sin, cos, tan, erf, gelu and pow(x, number) (canon_f64*.h,
// canon_trig_f64.h, canon_pow_f64.h). Contiguous runs use `#pragma omp simd`
// loops: at -O2 GCC's cheap cost model would otherwise leave loops of unknown
// trip count scalar.
#include <cmath>
#include <limits>
#include <type_traits>

#include "backend/common/canon_explog_erf.h"
#include "backend/common/canon_explog.h"
#include "backend/common/canon_f64_erf.h"
#include "backend/common/canon_f64_log.h"
#include "backend/common/canon_pow.h"
#include "backend/common/canon_pow_f64.h"
#include "backend/common/canon_trig.h"
#include "backend/common/canon_trig_f64.h"
#include "backend/cpu/convert.h"
#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/loops.h"
#include "backend/cpu/vec_math.h"

namespace concord::detail::cpu {

namespace {

template <class T> using C = compute_t<T>;
constexpr int64_t kBlock = 256;  // halves are widened to float in blocks of this size

inline void widen(const float16_t* s, float* d, int64_t n) { convert_f16_to_f32(s, d, static_cast<size_t>(n)); }
inline void widen(const bfloat16_t* s, float* d, int64_t n) { convert_bf16_to_f32(s, d, static_cast<size_t>(n)); }
inline void narrow(const float* s, float16_t* d, int64_t n) { convert_f32_to_f16(s, d, static_cast<size_t>(n)); }
inline void narrow(const float* s, bfloat16_t* d, int64_t n) { convert_f32_to_bf16(s, d, static_cast<size_t>(n)); }

// Compute value -> storage value (halves round to nearest even, once).
template <class T, class V> inline T store(V v) {
  if constexpr (is_half_v<T>) return T(static_cast<float>(v));
  else return static_cast<T>(v);
}

// out[i] = f(x[i]). f maps C<In> to C<Out> (bool for predicates).
template <class Out, class In, class F>
void map1_run(const Tensor& x, const Tensor& out, F f) {
  Iter it({&out, &x});
  for_each(it, [f](char* const* p, const int64_t* s, int64_t n) {
    Out* __restrict o = reinterpret_cast<Out*>(p[0]);
    const In* __restrict a = reinterpret_cast<const In*>(p[1]);
    if (s[0] == static_cast<int64_t>(sizeof(Out)) && s[1] == static_cast<int64_t>(sizeof(In))) {
      if constexpr (is_half_v<In>) {
        float buf[kBlock];
        C<Out> res[kBlock];
        for (int64_t i = 0; i < n; i += kBlock) {
          const int64_t m = std::min(kBlock, n - i);
          widen(a + i, buf, m);
#pragma omp simd
          for (int64_t j = 0; j < m; ++j) res[j] = f(buf[j]);
          if constexpr (is_half_v<Out>) narrow(res, o + i, m);
          else std::copy(res, res + m, o + i);
        }
      } else {
#pragma omp simd
        for (int64_t i = 0; i < n; ++i) o[i] = f(a[i]);
      }
      return;
    }
    if (s[1] == 0) {  // a broadcast input: one value for the whole run
      const Out v = store<Out>(f(static_cast<C<In>>(*a)));
      char* d = p[0];
      for (int64_t i = 0; i < n; ++i, d += s[0]) *reinterpret_cast<Out*>(d) = v;
      return;
    }
    char* d = p[0];
    const char* xs = p[1];
    for (int64_t i = 0; i < n; ++i, d += s[0], xs += s[1])
      *reinterpret_cast<Out*>(d) = store<Out>(f(static_cast<C<In>>(*reinterpret_cast<const In*>(xs))));
  });
}

// Floating outputs in the reproducible mode: the NaN rule in every store (core/nan_rule.h).
template <class Out, class In, class F>
void map1(const Tensor& x, const Tensor& out, F f) {
  if constexpr (std::is_floating_point_v<C<Out>>) {
    if (nan_rule_in_stores()) {
      map1_run<Out, In>(x, out, CanonNan<F>{f});
      return nan_rule_fused(out);
    }
  }
  map1_run<Out, In>(x, out, f);
}

// out[i] = op(x[i]) through the vectorised kernels (float32 and the halves).
// Strided runs are gathered into a block first, so every element goes through
// the same code whatever the layout: exp of a transposed view gives the same
// bits as exp of its contiguous copy.
template <class T>
void vec_map1(vec::UnOp op, const Tensor& x, const Tensor& out) {
  constexpr vec::Ty ty = std::is_same_v<T, float> ? vec::Ty::f32
                         : std::is_same_v<T, float16_t> ? vec::Ty::f16 : vec::Ty::bf16;
  const vec::Kernels& k = vec::kernels();
  const bool canon = nan_rule_in_stores();  // read here: the worker threads do not see it
  const auto un = canon ? k.unary_canon : k.unary;
  Iter it({&out, &x});
  for_each(it, [un, op](char* const* p, const int64_t* s, int64_t n) {
    constexpr int64_t sz = sizeof(T);
    if (s[0] == sz && s[1] == sz) return un(op, ty, p[0], p[1], n);
    T in[kBlock], res[kBlock];
    for (int64_t i = 0; i < n; i += kBlock) {
      const int64_t m = std::min(kBlock, n - i);
      const char* xs = p[1] + i * s[1];
      for (int64_t j = 0; j < m; ++j, xs += s[1]) in[j] = *reinterpret_cast<const T*>(xs);
      un(op, ty, res, in, m);
      char* d = p[0] + i * s[0];
      for (int64_t j = 0; j < m; ++j, d += s[0]) *reinterpret_cast<T*>(d) = res[j];
    }
  });
  if (canon) nan_rule_fused(out);
}

// Two's-complement wrap-around for integer negation (no signed overflow UB).
template <class T> inline T wrap_neg(T x) {
  using W = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;
  return static_cast<T>(W(0) - static_cast<W>(x));
}

// ---- the ops (V is the compute type) ----
struct Neg { template <class V> V operator()(V x) const { if constexpr (std::is_integral_v<V>) return wrap_neg(x); else return -x; } };
struct Abs {
  template <class V> V operator()(V x) const {
    if constexpr (std::is_floating_point_v<V>) return std::fabs(x);
    else if constexpr (std::is_unsigned_v<V>) return x;
    else return x < 0 ? wrap_neg(x) : x;  // abs(min) stays min, as in PyTorch
  }
};
// sign(±0) = +0; NaN propagates (NumPy's choice: a NaN is not a sign).
struct Sign {
  template <class V> V operator()(V x) const {
    if constexpr (std::is_same_v<V, bool>) return x;
    else if constexpr (std::is_floating_point_v<V>) return x > V(0) ? V(1) : x < V(0) ? V(-1) : x == V(0) ? V(0) : x;
    else if constexpr (std::is_unsigned_v<V>) return static_cast<V>(x > 0);
    else return static_cast<V>((x > 0) - (x < 0));
  }
};
struct Relu { template <class V> V operator()(V x) const { return x < V(0) ? V(0) : x; } };  // NaN stays NaN
// Rounding ops leave integers unchanged.
struct Floor { template <class V> V operator()(V x) const { if constexpr (std::is_floating_point_v<V>) return std::floor(x); else return x; } };
struct Ceil { template <class V> V operator()(V x) const { if constexpr (std::is_floating_point_v<V>) return std::ceil(x); else return x; } };
struct Trunc { template <class V> V operator()(V x) const { if constexpr (std::is_floating_point_v<V>) return std::trunc(x); else return x; } };
// nearbyint in the default rounding mode: half to even.
struct Round { template <class V> V operator()(V x) const { if constexpr (std::is_floating_point_v<V>) return std::nearbyint(x); else return x; } };

// Floating-only math.
struct Exp { template <class V> V operator()(V x) const { return std::exp(x); } };
struct Expm1 { template <class V> V operator()(V x) const { return std::expm1(x); } };
struct Log { template <class V> V operator()(V x) const { return std::log(x); } };
struct Log1p { template <class V> V operator()(V x) const { return std::log1p(x); } };
struct Log2 { template <class V> V operator()(V x) const { return std::log2(x); } };
struct Sqrt { template <class V> V operator()(V x) const { return std::sqrt(x); } };
struct Rsqrt { template <class V> V operator()(V x) const { return V(1) / std::sqrt(x); } };
struct Sin { template <class V> V operator()(V x) const { return std::sin(x); } };
struct Cos { template <class V> V operator()(V x) const { return std::cos(x); } };
struct Tan { template <class V> V operator()(V x) const { return std::tan(x); } };
struct Tanh { template <class V> V operator()(V x) const { return std::tanh(x); } };
struct Erf { template <class V> V operator()(V x) const { return std::erf(x); } };
struct Reciprocal { template <class V> V operator()(V x) const { return V(1) / x; } };
// Below -708, e^-x overflows (x < -709.78) while sigmoid(x) = e^x / (1 + e^x)
// is e^x to the last bit and still a subnormal down to -745.1.
struct Sigmoid {
  template <class V> V operator()(V x) const { return x < V(-708) ? std::exp(x) : V(1) / (V(1) + std::exp(-x)); }
};
// Exact GELU: x/2 * erfc(-x/sqrt(2)). Not 1 + erf(x/sqrt(2)): that cancels for
// x < 0 (4e5 ULP in float32 at x = -5). erfc is steep there (d ln erfc(z)/dz ~
// -2z), so rounding z = -x/sqrt(2) to the working precision alone would cost
// ~2z^2 half-ULPs: float32 and the halves are evaluated in double, float64 in
// long double, and rounded once. gelu(-inf) = -0, gelu(+inf) = +inf.
struct Gelu {
  template <class V> V operator()(V x) const {
    using W = std::conditional_t<std::is_same_v<V, double>, long double, double>;
    if (std::isinf(x)) return x > 0 ? x : V(-0.0);
    const W w = static_cast<W>(x);
    return static_cast<V>(w * W(0.5) * std::erfc(-w * W(0.707106781186547524400844362104849039L)));
  }
};

// The reproducible mode's float32 sin, cos, tan (canon_trig.h), expm1, log1p,
// log2 (canon_explog.h), erf and gelu (canon_explog_erf.h): double inside, rounded
// once; OpenCL runs the same code. Outside the mode the C library's (<= 0.9
// ULP): as fast for expm1, 1.2x faster for log1p, about 5x for log2 and 3-4x
// for erf and gelu.
struct CanonSin { float operator()(float x) const { return concord_sin_f32(x); } };
struct CanonCos { float operator()(float x) const { return concord_cos_f32(x); } };
struct CanonTan { float operator()(float x) const { return concord_tan_f32(x); } };
struct CanonExpm1 { float operator()(float x) const { return concord_expm1_f32(x); } };
struct CanonLog1p { float operator()(float x) const { return concord_log1p_f32(x); } };
struct CanonLog2 { float operator()(float x) const { return concord_log2_f32(x); } };
struct CanonErf { float operator()(float x) const { return concord_erf_f32(x); } };
struct CanonGelu { float operator()(float x) const { return concord_gelu_f32(x); } };

// Predicates (bool results).
struct IsNan { template <class V> bool operator()(V x) const { if constexpr (std::is_floating_point_v<V>) return x != x; else return false; } };
struct IsInf { template <class V> bool operator()(V x) const { if constexpr (std::is_floating_point_v<V>) return std::isinf(x); else return false; } };
struct IsFinite { template <class V> bool operator()(V x) const { if constexpr (std::is_floating_point_v<V>) return std::isfinite(x); else return true; } };
struct LogicalNot { template <class V> bool operator()(V x) const { return x == V(0); } };

// A shared float64 algorithm as a functor (reproducible mode only: libm is a
// little more accurate and 1.1-10x faster (erf 10x), but no other device gives its bits).
template <double (*F)(double)> struct SharedF64 { double operator()(double x) const { return F(x); } };

template <class T>
void unary_typed(OpId op, const Tensor& x, const Tensor& out) {
  switch (op) {
    case OpId::isnan: return map1<bool, T>(x, out, IsNan{});
    case OpId::isinf: return map1<bool, T>(x, out, IsInf{});
    case OpId::isfinite: return map1<bool, T>(x, out, IsFinite{});
    case OpId::logical_not: return map1<bool, T>(x, out, LogicalNot{});
    case OpId::sign: return map1<T, T>(x, out, Sign{});
    default: break;
  }
  if constexpr (!std::is_same_v<T, bool>) {
    switch (op) {
      case OpId::neg: return map1<T, T>(x, out, Neg{});
      case OpId::abs: return map1<T, T>(x, out, Abs{});
      case OpId::relu: return map1<T, T>(x, out, Relu{});
      case OpId::floor: return map1<T, T>(x, out, Floor{});
      case OpId::ceil: return map1<T, T>(x, out, Ceil{});
      case OpId::round: return map1<T, T>(x, out, Round{});
      case OpId::trunc: return map1<T, T>(x, out, Trunc{});
      default: break;
    }
  }
  if constexpr (std::is_same_v<C<T>, float>) {
    if (nan_rule_in_stores()) {  // the mode (read on this thread): the shared algorithms
      if (op == OpId::sin) return map1<T, T>(x, out, CanonSin{});
      if (op == OpId::cos) return map1<T, T>(x, out, CanonCos{});
      if (op == OpId::tan) return map1<T, T>(x, out, CanonTan{});
      if (op == OpId::expm1) return map1<T, T>(x, out, CanonExpm1{});
      if (op == OpId::log1p) return map1<T, T>(x, out, CanonLog1p{});
      if (op == OpId::log2) return map1<T, T>(x, out, CanonLog2{});
      if (op == OpId::erf) return map1<T, T>(x, out, CanonErf{});
      if (op == OpId::gelu) return map1<T, T>(x, out, CanonGelu{});
    }
  }
  if constexpr (std::is_same_v<C<T>, float>) {
    switch (op) {
      case OpId::exp: return vec_map1<T>(vec::UnOp::exp, x, out);
      case OpId::sigmoid: return vec_map1<T>(vec::UnOp::sigmoid, x, out);
      case OpId::tanh: return vec_map1<T>(vec::UnOp::tanh, x, out);
      case OpId::log: return vec_map1<T>(vec::UnOp::log, x, out);
      default: break;
    }
  }
  if constexpr (std::is_same_v<T, double>) {
    if (nan_rule_in_stores()) {  // the reproducible mode, read on the calling thread
      switch (op) {
        case OpId::exp: return map1<T, T>(x, out, SharedF64<concord_exp_f64>{});
        case OpId::expm1: return map1<T, T>(x, out, SharedF64<concord_expm1_f64>{});
        case OpId::log: return map1<T, T>(x, out, SharedF64<concord_log_f64>{});
        case OpId::log1p: return map1<T, T>(x, out, SharedF64<concord_log1p_f64>{});
        case OpId::log2: return map1<T, T>(x, out, SharedF64<concord_log2_f64>{});
        case OpId::tanh: return map1<T, T>(x, out, SharedF64<concord_tanh_f64>{});
        case OpId::sigmoid: return map1<T, T>(x, out, SharedF64<concord_sigmoid_f64>{});
        case OpId::erf: return map1<T, T>(x, out, SharedF64<concord_erf_f64>{});
        case OpId::gelu: return map1<T, T>(x, out, SharedF64<concord_gelu_f64>{});
        // sin/cos/tan: < 0.53 ULP everywhere (glibc 2.36's cos/tan err by 8/14 ULP
        // at 0x1.6ac5b262ca1ffp+849), but libm is 1.4-2x faster below |x| = 1e3.
        case OpId::sin: return map1<T, T>(x, out, SharedF64<concord_sin_f64>{});
        case OpId::cos: return map1<T, T>(x, out, SharedF64<concord_cos_f64>{});
        case OpId::tan: return map1<T, T>(x, out, SharedF64<concord_tan_f64>{});
        default: break;
      }
    }
  }
  if constexpr (std::is_floating_point_v<C<T>>) {
    switch (op) {
      case OpId::exp: return map1<T, T>(x, out, Exp{});
      case OpId::expm1: return map1<T, T>(x, out, Expm1{});
      case OpId::log: return map1<T, T>(x, out, Log{});
      case OpId::log1p: return map1<T, T>(x, out, Log1p{});
      case OpId::log2: return map1<T, T>(x, out, Log2{});
      case OpId::sqrt: return map1<T, T>(x, out, Sqrt{});
      case OpId::rsqrt: return map1<T, T>(x, out, Rsqrt{});
      case OpId::sin: return map1<T, T>(x, out, Sin{});
      case OpId::cos: return map1<T, T>(x, out, Cos{});
      case OpId::tan: return map1<T, T>(x, out, Tan{});
      case OpId::tanh: return map1<T, T>(x, out, Tanh{});
      case OpId::sigmoid: return map1<T, T>(x, out, Sigmoid{});
      case OpId::gelu: return map1<T, T>(x, out, Gelu{});
      case OpId::erf: return map1<T, T>(x, out, Erf{});
      case OpId::reciprocal: return map1<T, T>(x, out, Reciprocal{});
      default: break;
    }
  }
  // The dispatcher checks op_dtypes before any kernel runs, so this is a wiring bug.
  throw NotImplementedError("[" + std::string(op_name(op)) + "] the cpu unary kernel has no " +
                            std::string(name(dtype_v<T>)) + " variant");
}

// pow(x, number): the exponent's full value (core/backend.h, ScalarExponent).
// Split scheme: what a device without float64 computes, in float32 only.
float pow_split(float x, const ScalarExponent& e) {
  const float a = std::fabs(x);
  float r = std::pow(a, e.hi);
  if (e.lo != 0.0f && std::isfinite(r) && r != 0.0f) {
    const float t = e.lo * std::log(a);
    r = r + r * t;
  }
  if (std::signbit(x) && !std::isnan(x)) {
    if (e.odd) r = -r;
    else if (!e.integer && a != 0.0f && !std::isinf(a)) r = std::numeric_limits<float>::quiet_NaN();
  }
  return r;
}

template <class T>
void pow_scalar_typed(const Tensor& x, const ScalarExponent& e, const Tensor& out) {
  if constexpr (std::is_same_v<T, double>) {
    // The mode: canon_pow_f64.h, as OpenCL's pows64c_f64 kernel.
    if (nan_rule_in_stores()) map1<T, T>(x, out, [v = e.value](double b) { return concord_pow_f64(b, v); });
    else map1<T, T>(x, out, [v = e.value](double b) { return std::pow(b, v); });
  } else if constexpr (std::is_same_v<C<T>, float>) {
    // The mode: canon_pow.h's pow with the double exponent, as OpenCL's pows64c kernels.
    if (nan_rule_in_stores()) map1<T, T>(x, out, [v = e.value](float b) { return concord_pow_f32(b, v); });
    else if (e.wide) map1<T, T>(x, out, [v = e.value](float b) { return static_cast<float>(std::pow(static_cast<double>(b), v)); });
    else map1<T, T>(x, out, [e](float b) { return pow_split(b, e); });
  } else {
    throw NotImplementedError("[pow] the cpu number-exponent kernel has no " + std::string(name(dtype_v<T>)) +
                              " variant");  // the front end sends only floating dtypes
  }
}

}  // namespace

void CpuBackend::pow_scalar(const Tensor& x, const ScalarExponent& e, const Tensor& out) {
  visit_dtype(x.dtype(), [&](auto tag) { pow_scalar_typed<decltype(tag)>(x, e, out); });
}

void CpuBackend::unary(OpId op, const Tensor& x, const Tensor& out) {
  visit_dtype(x.dtype(), [&](auto tag) { unary_typed<decltype(tag)>(op, x, out); });
}

}  // namespace concord::detail::cpu
