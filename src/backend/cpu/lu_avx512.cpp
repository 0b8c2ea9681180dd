// AVX-512 small LU (contract in lu_avx512.h). Only the CONCORD_AVX512
// functions use AVX-512; the file is built for plain x86-64.
#include "backend/cpu/lu_avx512.h"

#include <immintrin.h>

#include <cmath>
#include <utility>

#include "backend/cpu/vec_math.h"

// GCC 12 flags the intrinsics' own deliberately undefined vectors inside target() functions.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

#define CONCORD_AVX512 __attribute__((target("avx512f")))

namespace concord::detail::cpu {

namespace {

// The vector operations of one element type.
struct F32 {
  using T = float;
  using V = __m512;
  static constexpr int kW = 16;
  CONCORD_AVX512 static V set1(T v) { return _mm512_set1_ps(v); }
  CONCORD_AVX512 static V load(const T* p) { return _mm512_loadu_ps(p); }
  CONCORD_AVX512 static void store(T* p, V v) { _mm512_storeu_ps(p, v); }
  CONCORD_AVX512 static V mul_sub(V y, V l, V x) { return _mm512_sub_ps(y, _mm512_mul_ps(l, x)); }
};

struct F64 {
  using T = double;
  using V = __m512d;
  static constexpr int kW = 8;
  CONCORD_AVX512 static V set1(T v) { return _mm512_set1_pd(v); }
  CONCORD_AVX512 static V load(const T* p) { return _mm512_loadu_pd(p); }
  CONCORD_AVX512 static void store(T* p, V v) { _mm512_storeu_pd(p, v); }
  CONCORD_AVX512 static V mul_sub(V y, V l, V x) { return _mm512_sub_pd(y, _mm512_mul_pd(l, x)); }
};

// y -= l * x on m elements (the product rounded, then the difference: no
// FMA). No masked stores: one does not forward to the next column's loads.
// The tail is an unmasked vector ending at y + m, computed from the values
// before the update, so its overlap with the last full vector gets the same bits.
template <class S>
CONCORD_AVX512 void axpy_sub(typename S::T* y, const typename S::T* x, typename S::T l, int64_t m) {
  if (m < S::kW) {
    for (int64_t j = 0; j < m; ++j) y[j] -= l * x[j];
    return;
  }
  const typename S::V vl = S::set1(l);
  const typename S::V tail = S::mul_sub(S::load(y + m - S::kW), vl, S::load(x + m - S::kW));
  for (int64_t j = 0; j + S::kW <= m; j += S::kW) S::store(y + j, S::mul_sub(S::load(y + j), vl, S::load(x + j)));
  S::store(y + m - S::kW, tail);  // overlaps the last full vector with the same values
}

template <class V>
CONCORD_AVX512 int32_t lu(typename V::T* a, int64_t n, int32_t* piv) {
  using T = typename V::T;
  int32_t info = 0;
  bool found = false;  // the pivot of column k was found while updating column k-1
  int64_t p = 0;
  for (int64_t k = 0; k < n; ++k) {
    if (!found) {
      p = k;
      T best = std::abs(a[k * n + k]);
      for (int64_t i = k + 1; i < n; ++i) {
        const T v = std::abs(a[i * n + k]);
        if (v > best) best = v, p = i;
      }
    }
    found = false;
    piv[k] = static_cast<int32_t>(p + 1);
    if (a[p * n + k] == T(0)) {
      if (info == 0) info = static_cast<int32_t>(k + 1);
      continue;  // the column below is zero too: nothing to eliminate
    }
    if (p != k)
      for (int64_t j = 0; j < n; ++j) std::swap(a[k * n + j], a[p * n + j]);
    const T* rk = a + k * n;
    const int64_t m = n - k - 1;
    T best = 0;
    for (int64_t i = k + 1; i < n; ++i) {
      T* ri = a + i * n;
      const T l = ri[k] / rk[k];
      ri[k] = l;
      if (m == 0) continue;
      axpy_sub<V>(ri + k + 1, rk + k + 1, l, m);
      const T v = std::abs(ri[k + 1]);
      if (i == k + 1 || v > best) best = v, p = i;  // the first largest, as the separate search
    }
    found = m > 0;
  }
  return info;
}

}  // namespace

bool lu_avx512_available() {
  static const bool ok = __builtin_cpu_supports("avx512f") && vec::kernels().isa == vec::Isa::avx512;
  return ok;
}

int32_t lu_small_avx512(float* a, int64_t n, int32_t* piv) { return lu<F32>(a, n, piv); }
int32_t lu_small_avx512(double* a, int64_t n, int32_t* piv) { return lu<F64>(a, n, piv); }

}  // namespace concord::detail::cpu
