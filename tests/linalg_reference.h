// Independent references for the linear algebra tests: plain loops in long
// double over values read back from tensors (never the code under test).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <string>

#include "concord/concord.h"

namespace concord::test::la {

using LD = long double;
using Vec = std::vector<double>;

// Unit roundoff of a dtype's significand.
inline double unit_roundoff(Dtype t) {
  switch (t) {
    case float16: return std::ldexp(1.0, -11);
    case bfloat16: return std::ldexp(1.0, -8);
    case float32: return std::ldexp(1.0, -24);
    default: return std::ldexp(1.0, -53);
  }
}

inline Vec uniform(size_t n, uint64_t seed, double lo = -1, double hi = 1) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  Vec v(n);
  for (auto& x : v) x = d(g);
  return v;
}

// Well-conditioned matrices: uniform(-1, 1) + n I, `count` of them.
inline Vec dominant(int64_t count, int64_t n, uint64_t seed) {
  Vec v = uniform(static_cast<size_t>(count * n * n), seed);
  for (int64_t b = 0; b < count; ++b)
    for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(b * n * n + i * n + i)] += static_cast<double>(n);
  return v;
}

// A tensor with these values rounded to dtype, on the device.
inline Tensor make(const Vec& v, Shape s, Dtype t, const Device& d) {
  return from_host(v.data(), std::move(s), float64, kCPU).to(t).to(d);
}

inline Vec values(const Tensor& t) { return t.to_vector<double>(); }

// Solves A X = B (n x n, n x k, row-major) by Gaussian elimination with partial pivoting.
// Returns X; *det gets the determinant (0 for an exactly singular A).
inline std::vector<LD> ge_solve(const double* a, const double* b, int64_t n, int64_t k, LD* det = nullptr) {
  std::vector<LD> A(a, a + n * n), X(b, b + n * k);
  LD d = 1;
  for (int64_t c = 0; c < n; ++c) {
    int64_t p = c;
    for (int64_t i = c + 1; i < n; ++i)
      if (std::fabs(A[i * n + c]) > std::fabs(A[p * n + c])) p = i;
    if (A[p * n + c] == 0) { d = 0; continue; }
    if (p != c) {
      d = -d;
      for (int64_t j = 0; j < n; ++j) std::swap(A[c * n + j], A[p * n + j]);
      for (int64_t j = 0; j < k; ++j) std::swap(X[c * k + j], X[p * k + j]);
    }
    d *= A[c * n + c];
    for (int64_t i = c + 1; i < n; ++i) {
      const LD l = A[i * n + c] / A[c * n + c];
      for (int64_t j = c; j < n; ++j) A[i * n + j] -= l * A[c * n + j];
      for (int64_t j = 0; j < k; ++j) X[i * k + j] -= l * X[c * k + j];
    }
  }
  for (int64_t i = n - 1; i >= 0; --i)
    for (int64_t j = 0; j < k; ++j) {
      LD s = X[i * k + j];
      for (int64_t m = i + 1; m < n; ++m) s -= A[i * n + m] * X[m * k + j];
      X[i * k + j] = s / A[i * n + i];
    }
  if (det) *det = d;
  return X;
}

inline LD norm_inf(const double* a, int64_t r, int64_t c) {
  LD m = 0;
  for (int64_t i = 0; i < r; ++i) {
    LD s = 0;
    for (int64_t j = 0; j < c; ++j) s += std::fabs(static_cast<LD>(a[i * c + j]));
    m = std::max(m, s);
  }
  return m;
}

// Infinity-norm condition number of a non-singular n x n matrix.
inline double cond_inf(const double* a, int64_t n) {
  Vec eye(static_cast<size_t>(n * n), 0.0);
  for (int64_t i = 0; i < n; ++i) eye[static_cast<size_t>(i * n + i)] = 1;
  std::vector<LD> inv = ge_solve(a, eye.data(), n, n);
  Vec invd(inv.begin(), inv.end());
  return static_cast<double>(norm_inf(a, n, n) * norm_inf(invd.data(), n, n));
}

// ||A X - B||inf / (||A||inf ||X||inf + ||B||inf)
inline double backward_error(const double* a, const double* x, const double* b, int64_t n, int64_t k) {
  Vec r(static_cast<size_t>(n * k));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < k; ++j) {
      LD s = -static_cast<LD>(b[i * k + j]);
      for (int64_t m = 0; m < n; ++m) s += static_cast<LD>(a[i * n + m]) * x[m * k + j];
      r[static_cast<size_t>(i * k + j)] = static_cast<double>(s);
    }
  return static_cast<double>(norm_inf(r.data(), n, k) / (norm_inf(a, n, n) * norm_inf(x, n, k) + norm_inf(b, n, k)));
}

// max |x - ref| / max |ref|
inline double forward_error(const double* x, const std::vector<LD>& ref) {
  LD num = 0, den = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    num = std::max(num, std::fabs(x[i] - ref[i]));
    den = std::max(den, std::fabs(ref[i]));
  }
  return static_cast<double>(den > 0 ? num / den : num);
}

// Lower Cholesky factor of an SPD matrix.
inline std::vector<LD> cholesky_ref(const double* a, int64_t n) {
  std::vector<LD> L(static_cast<size_t>(n * n), 0);
  for (int64_t j = 0; j < n; ++j) {
    LD d = a[j * n + j];
    for (int64_t p = 0; p < j; ++p) d -= L[j * n + p] * L[j * n + p];
    L[j * n + j] = std::sqrt(d);
    for (int64_t i = j + 1; i < n; ++i) {
      LD s = a[i * n + j];
      for (int64_t p = 0; p < j; ++p) s -= L[i * n + p] * L[j * n + p];
      L[i * n + j] = s / L[j * n + j];
    }
  }
  return L;
}

// The constant of the c n u bounds.
constexpr double kC = 8;

// Checks X (count matrices n x k) against A and B: backward and forward error.
inline void expect_solved(const Vec& a, const Vec& b, const Vec& x, int64_t count, int64_t n, int64_t k, Dtype t,
                          const std::string& what) {
  const double u = unit_roundoff(t);
  for (int64_t e = 0; e < count; ++e) {
    const double* ae = a.data() + e * n * n;
    const double* be = b.data() + e * n * k;
    const double* xe = x.data() + e * n * k;
    EXPECT_LE(backward_error(ae, xe, be, n, k), kC * n * u) << what << " element " << e;
    EXPECT_LE(forward_error(xe, ge_solve(ae, be, n, k)), kC * n * u * cond_inf(ae, n)) << what << " element " << e;
  }
}

// ||P A - L U||inf <= c n u ||L||inf ||U||inf for the factors of one matrix.
inline void expect_lu_backward_stable(const double* a, const double* lu, const int32_t* piv, int64_t n, Dtype t,
                                      const std::string& what) {
  Vec pa(a, a + n * n), L(n * n, 0.0), U(n * n, 0.0);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t p = piv[i] - 1;
    ASSERT_TRUE(p >= i && p < n) << what << ": pivot " << piv[i] << " at " << i;
    for (int64_t j = 0; j < n; ++j) std::swap(pa[i * n + j], pa[p * n + j]);
  }
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) (j < i ? L : U)[i * n + j] = lu[i * n + j];
  for (int64_t i = 0; i < n; ++i) L[i * n + i] = 1;
  LD worst = 0;
  for (int64_t i = 0; i < n; ++i) {
    LD row = 0;
    for (int64_t j = 0; j < n; ++j) {
      LD s = -static_cast<LD>(pa[i * n + j]);
      for (int64_t p = 0; p < n; ++p) s += static_cast<LD>(L[i * n + p]) * U[p * n + j];
      row += s < 0 ? -s : s;
    }
    worst = std::max(worst, row);
  }
  const double bound = kC * n * unit_roundoff(t) * static_cast<double>(norm_inf(L.data(), n, n) * norm_inf(U.data(), n, n));
  EXPECT_LE(static_cast<double>(worst), bound) << what;
}

}  // namespace concord::test::la
