// where and clamp on the CPU.
//
// where only selects, so it works on the raw bits (one kernel per item size).
// clamp is minimum(maximum(x, lo), hi) with the bounds converted to the dtype:
// a NaN in x or in a bound propagates, and lo > hi gives hi everywhere.
#include <cmath>
#include <limits>
#include <type_traits>

#include "backend/cpu/convert.h"
#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/loops.h"

namespace concord::detail::cpu {

namespace {

template <class U>
void where_bits(const Tensor& cond, const Tensor& a, const Tensor& b, const Tensor& out) {
  Iter it({&out, &cond, &a, &b});
  for_each(it, [](char* const* p, const int64_t* s, int64_t n) {
    constexpr int64_t su = sizeof(U);
    if (s[0] == su && s[1] == 1 && s[2] == su && s[3] == su) {
      U* __restrict o = reinterpret_cast<U*>(p[0]);
      const bool* __restrict c = reinterpret_cast<const bool*>(p[1]);
      const U* __restrict x = reinterpret_cast<const U*>(p[2]);
      const U* __restrict y = reinterpret_cast<const U*>(p[3]);
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) o[i] = c[i] ? x[i] : y[i];
      return;
    }
    char* d = p[0];
    const char* c = p[1];
    const char* x = p[2];
    const char* y = p[3];
    for (int64_t i = 0; i < n; ++i, d += s[0], c += s[1], x += s[2], y += s[3])
      *reinterpret_cast<U*>(d) = *reinterpret_cast<const bool*>(c) ? *reinterpret_cast<const U*>(x)
                                                                   : *reinterpret_cast<const U*>(y);
  });
}

// A bound in the compute type of T. Integer bounds saturate to T's range
// (clamp(int8, 0, 1000) means "no upper limit", not a wrapped -24).
template <class T>
compute_t<T> bound(const Scalar& s) {
  if constexpr (std::is_integral_v<T>) {
    if (s.is_floating()) return convert<T>(s.to_double());
    const int64_t v = s.to_int();
    if constexpr (std::is_same_v<T, int64_t>) {
      return v;
    } else {
      constexpr int64_t lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
      return static_cast<T>(v < lo ? lo : v > hi ? hi : v);
    }
  } else {
    const T t = s.is_floating() ? convert<T>(s.to_double()) : convert<T>(s.to_int());
    return static_cast<compute_t<T>>(t);
  }
}

template <class T>
void clamp_typed(const Tensor& x, std::optional<Scalar> lo_s, std::optional<Scalar> hi_s, const Tensor& out) {
  using V = compute_t<T>;
  // An absent bound is one that never wins: -inf/+inf, or the type's limits.
  V lo, hi;
  if constexpr (std::is_floating_point_v<V>) {
    lo = -std::numeric_limits<V>::infinity();
    hi = std::numeric_limits<V>::infinity();
  } else {
    lo = std::numeric_limits<V>::lowest();
    hi = std::numeric_limits<V>::max();
  }
  if (lo_s) lo = bound<T>(*lo_s);
  if (hi_s) hi = bound<T>(*hi_s);
  auto f = [lo, hi](V v) {
    v = (v < lo || lo != lo) ? lo : v;
    return (v > hi || hi != hi) ? hi : v;
  };
  Iter it({&out, &x});
  for_each(it, [f](char* const* p, const int64_t* s, int64_t n) {
    constexpr int64_t st = sizeof(T);
    if constexpr (!is_half_v<T>) {
      if (s[0] == st && s[1] == st) {
        T* __restrict o = reinterpret_cast<T*>(p[0]);
        const T* __restrict a = reinterpret_cast<const T*>(p[1]);
#pragma omp simd
        for (int64_t i = 0; i < n; ++i) o[i] = f(a[i]);
        return;
      }
    }
    // Halves: the result is x or a bound, both already representable, so the
    // per-element conversions are exact.
    char* d = p[0];
    const char* a = p[1];
    for (int64_t i = 0; i < n; ++i, d += s[0], a += s[1]) {
      const V v = f(static_cast<V>(*reinterpret_cast<const T*>(a)));
      if constexpr (is_half_v<T>) *reinterpret_cast<T*>(d) = T(v);
      else *reinterpret_cast<T*>(d) = v;
    }
  });
}

}  // namespace

void CpuBackend::where(const Tensor& cond, const Tensor& a, const Tensor& b, const Tensor& out) {
  switch (itemsize(out.dtype())) {
    case 1: return where_bits<uint8_t>(cond, a, b, out);
    case 2: return where_bits<uint16_t>(cond, a, b, out);
    case 4: return where_bits<uint32_t>(cond, a, b, out);
    default: return where_bits<uint64_t>(cond, a, b, out);
  }
}

void CpuBackend::clamp(const Tensor& x, std::optional<Scalar> lo, std::optional<Scalar> hi, const Tensor& out) {
  visit_dtype(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>)
      throw NotImplementedError("[clamp] the cpu kernel has no bool variant");  // op_dtypes excludes bool
    else
      clamp_typed<T>(x, lo, hi, out);
  });
}

}  // namespace concord::detail::cpu
