// Host-side linear algebra: determinants from an LU and vector and matrix
// norms (the CPU's Backend slots, which OpenCL's kernels/norms.cl repeats bit
// for bit), singular values (no slot; see linalg_host.h).
//
// Norms and determinants accumulate in float64 whatever the input dtype and
// round once on store, so float32 and half results are correctly rounded up to
// the float64 summation error. Each output is one sequential loop: the result
// never depends on the thread count.
#include "backend/cpu/linalg_host.h"

#include <lapacke.h>

#include <cmath>
#include <limits>
#include <vector>

#include "backend/common/canon_f64_log.h"
#include "backend/cpu/convert.h"
#include "backend/cpu/cpu_backend.h"
#include "concord/policy.h"

namespace concord::detail::cpu {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
// Below this many elements the loops stay on one thread.
constexpr int64_t kParallelGrain = 32768;

template <class T>
inline double load(const T* p, int64_t i) {
  return static_cast<double>(static_cast<compute_t<T>>(p[i]));
}
template <class T> inline void store(T* p, int64_t i, double v) { p[i] = convert<T>(v); }

template <class F>
void floating(const char* op, Dtype t, F&& f) {
  switch (t) {
    case float16: f(float16_t{}); return;
    case bfloat16: f(bfloat16_t{}); return;
    case float32: f(float{}); return;
    case float64: f(double{}); return;
    default:
      throw NotImplementedError(std::string("[") + op + "] host kernel takes floating dtypes, got " +
                                std::string(name(t)));
  }
}

// Parity of the row swaps recorded in 1-based pivots.
inline double pivot_sign(const int32_t* piv, int64_t n) {
  bool odd = false;
  for (int64_t i = 0; i < n; ++i) odd ^= (piv[i] != i + 1);
  return odd ? -1.0 : 1.0;
}

// One row of n elements (stride 1) to its ord-norm.
template <class T>
double norm_of(const T* x, int64_t n, double ord) {
  if (ord == 0) {
    int64_t nz = 0;
    for (int64_t i = 0; i < n; ++i) nz += load(x, i) != 0.0;  // NaN counts as non-zero
    return static_cast<double>(nz);
  }
  if (std::isinf(ord)) {
    double m = ord > 0 ? 0.0 : kInf;
    for (int64_t i = 0; i < n; ++i) {
      const double v = std::fabs(load(x, i));
      if (std::isnan(v)) return kNaN;
      m = ord > 0 ? std::max(m, v) : std::min(m, v);
    }
    return m;
  }
  if (ord == 1) {
    double s = 0;
    for (int64_t i = 0; i < n; ++i) s += std::fabs(load(x, i));
    return s;
  }
  if (ord == 2 && !std::is_same_v<T, double>) {
    // Squares of float32 values are exact in float64 and cannot overflow there.
    double s = 0;
    for (int64_t i = 0; i < n; ++i) { const double v = load(x, i); s += v * v; }
    return std::sqrt(s);
  }
  if (ord < 0) {
    double s = 0;
    for (int64_t i = 0; i < n; ++i) s += std::pow(std::fabs(load(x, i)), ord);
    return std::pow(s, 1.0 / ord);
  }
  // Scaled by the largest |x| so that neither overflow nor underflow can occur.
  double m = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double v = std::fabs(load(x, i));
    if (std::isnan(v)) return kNaN;
    m = std::max(m, v);
  }
  if (m == 0 || std::isinf(m)) return m;
  double s = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double t = std::fabs(load(x, i)) / m;
    s += ord == 2 ? t * t : std::pow(t, ord);
  }
  return m * (ord == 2 ? std::sqrt(s) : std::pow(s, 1.0 / ord));
}

// max (pick_max) or min of values, NaN propagating.
inline double extreme(const std::vector<double>& v, bool pick_max) {
  double r = pick_max ? -kInf : kInf;
  for (double x : v) {
    if (std::isnan(x)) return kNaN;
    r = pick_max ? std::max(r, x) : std::min(r, x);
  }
  return r;
}

lapack_int gesdd(lapack_int m, lapack_int n, float* a, float* s, float* work, lapack_int lwork, lapack_int* iwork) {
  return LAPACKE_sgesdd_work(LAPACK_COL_MAJOR, 'N', m, n, a, m, s, nullptr, 1, nullptr, 1, work, lwork, iwork);
}
lapack_int gesdd(lapack_int m, lapack_int n, double* a, double* s, double* work, lapack_int lwork, lapack_int* iwork) {
  return LAPACKE_dgesdd_work(LAPACK_COL_MAJOR, 'N', m, n, a, m, s, nullptr, 1, nullptr, 1, work, lwork, iwork);
}

}  // namespace

void lu_det(const Tensor& lu, const Tensor& pivots, const Tensor& det) {
  const int64_t batch = lu.size(0), n = lu.size(1);
  const int32_t* piv = detail::host_data<int32_t>(pivots);
  floating("linalg.det", lu.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* a = detail::host_data<T>(lu);
    T* out = detail::host_data<T>(det);
    for (int64_t b = 0; b < batch; ++b) {
      double d = pivot_sign(piv + b * n, n);
      for (int64_t i = 0; i < n; ++i) d *= load(a + b * n * n, i * n + i);
      store(out, b, d);
    }
  });
}

void lu_slogdet(const Tensor& lu, const Tensor& pivots, const Tensor& sign, const Tensor& logabsdet) {
  const int64_t batch = lu.size(0), n = lu.size(1);
  const int32_t* piv = detail::host_data<int32_t>(pivots);
  floating("linalg.slogdet", lu.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* a = detail::host_data<T>(lu);
    // The reproducible mode takes the shared log (0.53 ULP), which the OpenCL
    // kernel runs too; the default mode keeps the C library's (about 5x faster per call).
    const bool shared_log = reproducible();
    for (int64_t b = 0; b < batch; ++b) {
      double sg = pivot_sign(piv + b * n, n), la = 0;
      for (int64_t i = 0; i < n; ++i) {
        const double u = load(a + b * n * n, i * n + i);
        if (std::isnan(u)) { sg = kNaN; la = kNaN; break; }
        if (u == 0) { sg = 0; la = -kInf; break; }
        if (u < 0) sg = -sg;
        la += shared_log ? concord_log_f64(std::fabs(u)) : std::log(std::fabs(u));
      }
      store(detail::host_data<T>(sign), b, sg);
      store(detail::host_data<T>(logabsdet), b, la);
    }
  });
}

void vector_norm_rows(const Tensor& x, double ord, const Tensor& out) {
  const int64_t rows = x.size(0), cols = x.size(1);
  floating("linalg.vector_norm", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = detail::host_data<T>(x);
    T* po = detail::host_data<T>(out);
#pragma omp parallel for schedule(static) if (rows > 1 && rows * cols >= kParallelGrain)
    for (int64_t r = 0; r < rows; ++r) store(po, r, norm_of(px + r * cols, cols, ord));
  });
}

void matrix_abs_sum_norm(const Tensor& x, double ord, const Tensor& out) {
  const int64_t batch = x.size(0), r = x.size(1), c = x.size(2);
  const bool columns = std::fabs(ord) == 1, pick_max = ord > 0;
  floating("linalg.matrix_norm", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = detail::host_data<T>(x);
    T* po = detail::host_data<T>(out);
    std::vector<double> sums;
    for (int64_t b = 0; b < batch; ++b) {
      const T* m = px + b * r * c;
      sums.assign(static_cast<size_t>(columns ? c : r), 0.0);
      for (int64_t i = 0; i < r; ++i)
        for (int64_t j = 0; j < c; ++j) sums[static_cast<size_t>(columns ? j : i)] += std::fabs(load(m, i * c + j));
      store(po, b, extreme(sums, pick_max));
    }
  });
}

void singular_values(const Tensor& a, const Tensor& s) {
  const int64_t batch = a.size(0), r = a.size(1), c = a.size(2), k = std::min(r, c);
  // Row-major r x c memory is the column-major c x r transpose: same singular values.
  const auto m = static_cast<lapack_int>(c), n = static_cast<lapack_int>(r);
  std::vector<lapack_int> iwork(static_cast<size_t>(8 * std::max<int64_t>(k, 1)));
  auto run = [&](auto tag) {
    using T = decltype(tag);
    T query = 0;
    gesdd(m, n, nullptr, nullptr, &query, -1, iwork.data());
    std::vector<T> work(static_cast<size_t>(std::max<double>(1, static_cast<double>(query))));
    for (int64_t b = 0; b < batch; ++b) {
      T* sv = detail::host_data<T>(s) + b * k;
      T* ab = detail::host_data<T>(a) + b * r * c;
      bool finite = true;
      for (int64_t i = 0; i < r * c; ++i) finite = finite && std::isfinite(ab[i]);
      // NaN or inf has no meaningful singular values (and LAPACK may not converge on it).
      const lapack_int info =
          finite ? gesdd(m, n, ab, sv, work.data(), static_cast<lapack_int>(work.size()), iwork.data()) : -1;
      if (info != 0)
        for (int64_t i = 0; i < k; ++i) sv[i] = std::numeric_limits<T>::quiet_NaN();
    }
  };
  if (a.dtype() == float32) run(float{});
  else if (a.dtype() == float64) run(double{});
  else throw NotImplementedError("[linalg.matrix_norm] singular values take float32 or float64, got " +
                                 std::string(name(a.dtype())));
}

// The Backend slots (cpu and emu): the loops above.
void CpuBackend::lu_det(const Tensor& lu, const Tensor& pivots, const Tensor& det) { cpu::lu_det(lu, pivots, det); }
void CpuBackend::lu_slogdet(const Tensor& lu, const Tensor& pivots, const Tensor& sign, const Tensor& logabsdet) {
  cpu::lu_slogdet(lu, pivots, sign, logabsdet);
}
void CpuBackend::vector_norm_rows(const Tensor& x, double ord, const Tensor& out) { cpu::vector_norm_rows(x, ord, out); }
void CpuBackend::matrix_abs_sum_norm(const Tensor& x, double ord, const Tensor& out) {
  cpu::matrix_abs_sum_norm(x, ord, out);
}

}  // namespace concord::detail::cpu
