// Binary elementwise kernels on the CPU.
//
// a and b arrive in the compute dtype, possibly as stride-0 broadcast views.
// Runs where both inputs are contiguous, or one is contiguous and the other a
// single broadcast value, go to the vectorised kernels of vec_math.h for
// float32/float16/bfloat16 arithmetic (halves converted in registers), and
// are plain `#pragma omp simd` loops over typed pointers otherwise.
// float16/bfloat16 are computed in float32 and rounded once on store. Integer
// arithmetic wraps around (two's complement) without signed-overflow UB.
#include <cmath>
#include <type_traits>

#include "backend/cpu/convert.h"
#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/loops.h"
#include "backend/cpu/vec_math.h"
#include "backend/common/canon_pow.h"
#include "backend/common/canon_pow_f64.h"
#include "backend/common/canon_ops.h"

namespace concord::detail::cpu {

namespace {

template <class T> using C = compute_t<T>;
constexpr int64_t kBlock = 256;

inline void widen(const float16_t* s, float* d, int64_t n) { convert_f16_to_f32(s, d, static_cast<size_t>(n)); }
inline void widen(const bfloat16_t* s, float* d, int64_t n) { convert_bf16_to_f32(s, d, static_cast<size_t>(n)); }
inline void narrow(const float* s, float16_t* d, int64_t n) { convert_f32_to_f16(s, d, static_cast<size_t>(n)); }
inline void narrow(const float* s, bfloat16_t* d, int64_t n) { convert_f32_to_bf16(s, d, static_cast<size_t>(n)); }

template <class T, class V> inline T store(V v) {
  if constexpr (is_half_v<T>) return T(static_cast<float>(v));
  else return static_cast<T>(v);
}

// Half runs: widen both inputs (or one, with a broadcast value for the other), compute, narrow.
// xs/ys: 0 for a broadcast operand, 1 for a contiguous one.
template <class Out, class T, class F>
void half_run(Out* o, const T* x, const T* y, int xs, int ys, int64_t n, F f) {
  float bx[kBlock], by[kBlock];
  C<Out> res[kBlock];
  const float x0 = static_cast<float>(*x), y0 = static_cast<float>(*y);
  for (int64_t i = 0; i < n; i += kBlock) {
    const int64_t m = std::min(kBlock, n - i);
    if (xs) widen(x + i, bx, m);
    if (ys) widen(y + i, by, m);
    if (xs && ys) {
#pragma omp simd
      for (int64_t j = 0; j < m; ++j) res[j] = f(bx[j], by[j]);
    } else if (xs) {
#pragma omp simd
      for (int64_t j = 0; j < m; ++j) res[j] = f(bx[j], y0);
    } else {
#pragma omp simd
      for (int64_t j = 0; j < m; ++j) res[j] = f(x0, by[j]);
    }
    if constexpr (is_half_v<Out>) narrow(res, o + i, m);
    else std::copy(res, res + m, o + i);
  }
}

// The vectorised kernels (vec_math.h) cover float32 and the halves.
template <class T> constexpr bool kVecType = std::is_same_v<T, float> || is_half_v<T>;
template <class T> constexpr vec::Ty vec_ty() {
  return std::is_same_v<T, float> ? vec::Ty::f32 : std::is_same_v<T, float16_t> ? vec::Ty::f16 : vec::Ty::bf16;
}

// out[i] = f(a[i], b[i]); f maps (C<T>, C<T>) to C<Out>. vop names the same
// operation for the vectorised kernels (kNoVec when they do not have it); they
// compute exactly what f does, so which one runs never changes a result.
constexpr int kNoVec = -1;
template <class Out, class T, class F>
void map2_run(const Tensor& a, const Tensor& b, const Tensor& out, F f, int vop, bool canon) {
  Iter it({&out, &a, &b});
  const vec::Kernels* vk = nullptr;
  bool stream = false;
  if constexpr (kVecType<T> && std::is_same_v<Out, T>) {
    if (vop != kNoVec) vk = &vec::kernels();
    stream = out.numel() * static_cast<int64_t>(sizeof(Out)) >= vec::kStreamBytes;
  }
  const auto vbin = vk ? (canon ? vk->binary_canon : vk->binary) : nullptr;
  for_each(it, [f, vbin, vop, stream](char* const* p, const int64_t* s, int64_t n) {
    Out* __restrict o = reinterpret_cast<Out*>(p[0]);
    const T* __restrict x = reinterpret_cast<const T*>(p[1]);
    const T* __restrict y = reinterpret_cast<const T*>(p[2]);
    constexpr int64_t so = sizeof(Out), st = sizeof(T);
    if (s[0] == so && (s[1] == st || s[1] == 0) && (s[2] == st || s[2] == 0)) {
      const int xs = s[1] != 0, ys = s[2] != 0;
      if constexpr (kVecType<T> && std::is_same_v<Out, T>) {
        // Short runs (a broadcast row at a time) keep ordinary stores: partial write-combining lines are slow.
        if (vbin) return vbin(static_cast<vec::BinOp>(vop), vec_ty<T>(), o, x, y, xs, ys, n, stream && n * so >= 16384);
      }
      if constexpr (is_half_v<T>) {
        if (xs || ys) return half_run(o, x, y, xs, ys, n, f);
      } else if (xs && ys) {
#pragma omp simd
        for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], y[i]);
        return;
      } else if (xs) {
        const T yv = *y;
#pragma omp simd
        for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], yv);
        return;
      } else if (ys) {
        const T xv = *x;
#pragma omp simd
        for (int64_t i = 0; i < n; ++i) o[i] = f(xv, y[i]);
        return;
      }
    }
    char* d = p[0];
    const char* xp = p[1];
    const char* yp = p[2];
    for (int64_t i = 0; i < n; ++i, d += s[0], xp += s[1], yp += s[2])
      *reinterpret_cast<Out*>(d) = store<Out>(f(static_cast<C<T>>(*reinterpret_cast<const T*>(xp)),
                                                static_cast<C<T>>(*reinterpret_cast<const T*>(yp))));
  });
}

// Floating outputs in the reproducible mode: the NaN rule in every store
// (core/nan_rule.h; CanonNan: the canonical NaN the halves' conversions keep).
template <class Out, class T, class F>
void map2(const Tensor& a, const Tensor& b, const Tensor& out, F f, int vop = kNoVec) {
  if constexpr (std::is_floating_point_v<C<Out>>) {
    if (nan_rule_in_stores()) {
      map2_run<Out, T>(a, b, out, CanonNan<F>{f}, vop, true);
      return nan_rule_fused(out);
    }
  }
  map2_run<Out, T>(a, b, out, f, vop, false);
}

// Integer arithmetic in an unsigned type at least as wide as int: wraps, no UB.
template <class V> using Wide = std::conditional_t<(sizeof(V) < 4), uint32_t, std::make_unsigned_t<V>>;

struct Add {
  template <class V> V operator()(V x, V y) const {
    if constexpr (std::is_same_v<V, bool>) return x || y;
    else if constexpr (std::is_integral_v<V>) return static_cast<V>(Wide<V>(x) + Wide<V>(y));
    else return x != x ? x + x : x + y;  // x's NaN first, as the vector kernels (vec_impl.h)
  }
};
struct Sub {
  template <class V> V operator()(V x, V y) const {
    if constexpr (std::is_integral_v<V>) return static_cast<V>(Wide<V>(x) - Wide<V>(y));
    else return x - y;
  }
};
struct Mul {
  template <class V> V operator()(V x, V y) const {
    if constexpr (std::is_same_v<V, bool>) return x && y;
    else if constexpr (std::is_integral_v<V>) return static_cast<V>(Wide<V>(x) * Wide<V>(y));
    else return x != x ? x + x : x * y;
  }
};
struct Div { template <class V> V operator()(V x, V y) const { return x / y; } };
struct Atan2 { template <class V> V operator()(V x, V y) const { return std::atan2(x, y); } };
// float32 pow (the reproducible mode's) and atan2 (canon_pow.h; OpenCL runs the same code in the mode).
struct CanonPow { float operator()(float x, float y) const { return concord_pow_f32(x, static_cast<double>(y)); } };
struct CanonAtan2 { float operator()(float x, float y) const { return concord_atan2_f32(x, y); } };
// float64 pow and atan2 in the mode only (canon_pow_f64.h): libm is 1.2-5.5x faster.
struct CanonPow64 { double operator()(double x, double y) const { return concord_pow_f64(x, y); } };
struct CanonAtan2F64 { double operator()(double x, double y) const { return concord_atan2_f64(x, y); } };
// The shared ops (common/canon_ops.inc: hypot, logaddexp, copysign,
// nextafter): every backend's kernel is this body, so no mode switch. Halves
// compute in float32 and tell the body their format (nextafter's step).
template <class T> constexpr int kOpsFmt = std::is_same_v<T, float16_t>    ? CONCORD_OPS_FMT_F16
                                           : std::is_same_v<T, bfloat16_t> ? CONCORD_OPS_FMT_BF16
                                                                           : CONCORD_OPS_FMT_F32;
template <class T>
bool shared_op(OpId op, const Tensor& a, const Tensor& b, const Tensor& out) {
  if constexpr (std::is_same_v<T, double>) {
#define CONCORD_CPU_OPS_CASE(name) \
  case OpId::name: return map2<T, T>(a, b, out, [](double x, double y) { return concord_##name##_f64(x, y); }), true;
    switch (op) {
      CONCORD_OPS_BINARY(CONCORD_CPU_OPS_CASE)
      default: return false;
    }
#undef CONCORD_CPU_OPS_CASE
  } else if constexpr (std::is_same_v<C<T>, float>) {
#define CONCORD_CPU_OPS_CASE(name) \
  case OpId::name: return map2<T, T>(a, b, out, [](float x, float y) { return concord_##name##_f32(x, y, kOpsFmt<T>); }), true;
    switch (op) {
      CONCORD_OPS_BINARY(CONCORD_CPU_OPS_CASE)
      default: return false;
    }
#undef CONCORD_CPU_OPS_CASE
  }
  return false;
}

// NaN in either operand propagates; for bool these are or/and.
struct Maximum { template <class V> V operator()(V x, V y) const { return (x < y || y != y) ? y : x; } };
struct Minimum { template <class V> V operator()(V x, V y) const { return (y < x || y != y) ? y : x; } };

// Integer powers by squaring (wrapping). A negative exponent gives 1 for base 1,
// ±1 for base -1 and 0 otherwise (the integer part of the true value), as PyTorch.
struct Pow {
  template <class V> V operator()(V x, V y) const {
    if constexpr (std::is_floating_point_v<V>) {
      return std::pow(x, y);
    } else {
      if constexpr (std::is_signed_v<V>) {
        if (y < 0) return x == 1 ? V(1) : x == -1 ? ((y & 1) ? V(-1) : V(1)) : V(0);
      }
      Wide<V> r = 1, b = static_cast<Wide<V>>(x);
      for (auto e = static_cast<std::make_unsigned_t<V>>(y); e; e >>= 1) {
        if (e & 1) r *= b;
        b *= b;
      }
      return static_cast<V>(r);
    }
  }
};

// Python's %: the result takes the divisor's sign. Integer division by zero
// gives 0 (it must never trap, and every device agrees on 0).
struct Remainder {
  template <class V> V operator()(V x, V y) const {
    if constexpr (std::is_floating_point_v<V>) {
      V m = std::fmod(x, y);
      if (m != V(0) && ((y < V(0)) != (m < V(0)))) m += y;
      return m;
    } else if constexpr (std::is_unsigned_v<V>) {
      return y == 0 ? V(0) : static_cast<V>(x % y);
    } else {
      if (y == 0 || y == -1) return V(0);  // -1: min % -1 overflows (and traps) in hardware
      V m = static_cast<V>(x % y);
      if (m != 0 && ((y < 0) != (m < 0))) m = static_cast<V>(m + y);
      return m;
    }
  }
};

// Python's //: the floor of the exact quotient (see ops.h). Integers: 0 for a
// zero divisor (as Remainder), wrapping negation for -1 (min // -1 overflows).
struct FloorDivide {
  template <class V> V operator()(V x, V y) const {
    if constexpr (std::is_floating_point_v<V>) {
      if (y == V(0)) return x / y;
      const V m = std::fmod(x, y);
      V q = (x - m) / y;  // exact up to rounding: x - m is a multiple of y
      if (m != V(0) && ((y < V(0)) != (m < V(0)))) q -= V(1);
      if (q == V(0)) return std::copysign(V(0), x / y);
      V f = std::floor(q);
      if (q - f > V(0.5)) f += V(1);  // q was rounded just below an integer
      return f;
    } else if constexpr (std::is_unsigned_v<V>) {
      return y == 0 ? V(0) : static_cast<V>(x / y);
    } else {
      if (y == 0) return V(0);
      if (y == -1) return static_cast<V>(Wide<V>(0) - Wide<V>(x));
      V q = static_cast<V>(x / y);
      if (static_cast<V>(x % y) != 0 && ((x < 0) != (y < 0))) q = static_cast<V>(q - 1);
      return q;
    }
  }
};

struct Eq { template <class V> bool operator()(V x, V y) const { return x == y; } };
struct Ne { template <class V> bool operator()(V x, V y) const { return x != y; } };
struct Lt { template <class V> bool operator()(V x, V y) const { return x < y; } };
struct Le { template <class V> bool operator()(V x, V y) const { return x <= y; } };
struct Gt { template <class V> bool operator()(V x, V y) const { return x > y; } };
struct Ge { template <class V> bool operator()(V x, V y) const { return x >= y; } };
struct LogicalAnd { template <class V> bool operator()(V x, V y) const { return (x != V(0)) & (y != V(0)); } };
struct LogicalOr { template <class V> bool operator()(V x, V y) const { return (x != V(0)) | (y != V(0)); } };
struct LogicalXor { template <class V> bool operator()(V x, V y) const { return (x != V(0)) != (y != V(0)); } };

template <class T>
void binary_typed(OpId op, const Tensor& a, const Tensor& b, const Tensor& out) {
  constexpr bool kBool = std::is_same_v<T, bool>;
  constexpr bool kFloat = std::is_floating_point_v<C<T>>;
  auto vop = [](vec::BinOp o) { return kVecType<T> ? static_cast<int>(o) : kNoVec; };
  switch (op) {
    case OpId::eq: return map2<bool, T>(a, b, out, Eq{});
    case OpId::ne: return map2<bool, T>(a, b, out, Ne{});
    case OpId::lt: return map2<bool, T>(a, b, out, Lt{});
    case OpId::le: return map2<bool, T>(a, b, out, Le{});
    case OpId::gt: return map2<bool, T>(a, b, out, Gt{});
    case OpId::ge: return map2<bool, T>(a, b, out, Ge{});
    case OpId::logical_and: return map2<bool, T>(a, b, out, LogicalAnd{});
    case OpId::logical_or: return map2<bool, T>(a, b, out, LogicalOr{});
    case OpId::logical_xor: return map2<bool, T>(a, b, out, LogicalXor{});
    case OpId::add: return map2<T, T>(a, b, out, Add{}, vop(vec::BinOp::add));
    case OpId::mul: return map2<T, T>(a, b, out, Mul{}, vop(vec::BinOp::mul));
    case OpId::maximum: return map2<T, T>(a, b, out, Maximum{}, vop(vec::BinOp::maximum));
    case OpId::minimum: return map2<T, T>(a, b, out, Minimum{}, vop(vec::BinOp::minimum));
    default: break;
  }
  if (shared_op<T>(op, a, b, out)) return;
  if constexpr (std::is_same_v<C<T>, float>) {
    // atan2 in both modes: the shared code is correctly rounded in practice and
    // not slower than the C library's atan2f (up to 1.4 ULP off). pow only in
    // the mode (read on this thread): powf is many times faster.
    if (op == OpId::atan2) return map2<T, T>(a, b, out, CanonAtan2{});
    if (op == OpId::pow && nan_rule_in_stores()) return map2<T, T>(a, b, out, CanonPow{});
  }
  if constexpr (std::is_same_v<T, double>) {
    if (op == OpId::pow && nan_rule_in_stores()) return map2<T, T>(a, b, out, CanonPow64{});
    if (op == OpId::atan2 && nan_rule_in_stores()) return map2<T, T>(a, b, out, CanonAtan2F64{});
  }
  if constexpr (!kBool) {
    switch (op) {
      case OpId::sub: return map2<T, T>(a, b, out, Sub{}, vop(vec::BinOp::sub));
      case OpId::pow: return map2<T, T>(a, b, out, Pow{});
      case OpId::remainder: return map2<T, T>(a, b, out, Remainder{});
      case OpId::floor_divide: return map2<T, T>(a, b, out, FloorDivide{});
      default: break;
    }
  }
  if constexpr (kFloat) {
    switch (op) {
      case OpId::div: return map2<T, T>(a, b, out, Div{}, vop(vec::BinOp::div));
      case OpId::atan2: return map2<T, T>(a, b, out, Atan2{});
      default: break;
    }
  }
  // The dispatcher checks op_dtypes before any kernel runs, so this is a wiring bug.
  throw NotImplementedError("[" + std::string(op_name(op)) + "] the cpu binary kernel has no " +
                            std::string(name(dtype_v<T>)) + " variant");
}

}  // namespace

void CpuBackend::binary(OpId op, const Tensor& a, const Tensor& b, const Tensor& out) {
  visit_dtype(a.dtype(), [&](auto tag) { binary_typed<decltype(tag)>(op, a, b, out); });
}

}  // namespace concord::detail::cpu
