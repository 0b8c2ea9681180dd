// The small-matrix linear algebra kernels against plain scalar loops written
// here, bit for bit:
//   - the small LU of every instruction-set level this CPU runs (vec::Kernels:
//     the baseline loop, the AVX2 and AVX-512 LUs of lu_avx2.h / lu_avx512.h, unblocked
//     and blocked): the same factors, pivots and info for sizes across the
//     small regime (1..128), on random matrices and on ones built to hit exact
//     pivot ties, zero pivots (singular), NaN, Inf. A level the CPU lacks is
//     reported as skipped.
//   - the CPU's triangular solves (rows solved in interleaved groups for one
//     right-hand side): the same bits as row-by-row substitution, lower with
//     sums in ascending order, upper in descending order.
// The public solve/LU paths are covered on every device by test_linalg.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "backend/cpu/vec_math.h"
#include "concord/concord.h"

namespace vec = concord::detail::cpu::vec;

namespace {

// Right-looking LU, partial pivoting on the first largest |a|, continuing past
// a zero pivot: each a[i][j] gets -= l·u in ascending order of the step.
template <class T>
int32_t reference_lu(T* a, int64_t n, int32_t* piv) {
  int32_t info = 0;
  for (int64_t k = 0; k < n; ++k) {
    int64_t p = k;
    T best = std::abs(a[k * n + k]);
    for (int64_t i = k + 1; i < n; ++i)
      if (std::abs(a[i * n + k]) > best) best = std::abs(a[i * n + k]), p = i;
    piv[k] = static_cast<int32_t>(p + 1);
    if (a[p * n + k] == T(0)) {
      if (info == 0) info = static_cast<int32_t>(k + 1);
      continue;
    }
    for (int64_t j = 0; j < n; ++j) std::swap(a[k * n + j], a[p * n + j]);
    for (int64_t i = k + 1; i < n; ++i) {
      const T l = a[i * n + k] / a[k * n + k];
      a[i * n + k] = l;
      for (int64_t j = k + 1; j < n; ++j) {
        const T prod = l * a[k * n + j];
        a[i * n + j] = a[i * n + j] - prod;
      }
    }
  }
  return info;
}

int32_t level_lu(const vec::Kernels& k, float* a, int64_t n, int32_t* piv) { return k.lu_f32(a, n, piv); }
int32_t level_lu(const vec::Kernels& k, double* a, int64_t n, int32_t* piv) { return k.lu_f64(a, n, piv); }

template <class T>
void expect_same(const vec::Kernels& k, std::vector<T> a, int64_t n, const char* what) {
  std::vector<T> b = a;
  std::vector<int32_t> pa(static_cast<size_t>(n)), pb(static_cast<size_t>(n));
  const int32_t ia = reference_lu(a.data(), n, pa.data());
  const int32_t ib = level_lu(k, b.data(), n, pb.data());
  EXPECT_EQ(ia, ib) << what << " n=" << n;
  EXPECT_EQ(pa, pb) << what << " n=" << n;
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(T)), 0) << what << " n=" << n << ": factors differ";
}

template <class T>
void run_all(const vec::Kernels& k) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<T> d(-1, 1);
  std::uniform_int_distribution<int> small(-2, 2);
  std::vector<int64_t> sizes;  // every size up to 40, then a spread up to the regime's end
  for (int64_t n = 1; n <= 128; n += (n < 40 ? 1 : 7)) sizes.push_back(n);
  for (int64_t n : {64, 127, 128}) sizes.push_back(n);
  for (const int64_t n : sizes) {
    std::vector<T> a(static_cast<size_t>(n * n));
    for (auto& v : a) v = d(rng);
    expect_same(k, a, n, "random");
    for (auto& v : a) v = static_cast<T>(small(rng));  // many exact ties and zero pivots
    expect_same(k, a, n, "integers in [-2, 2]");
    if (n >= 3) {
      for (auto& v : a) v = d(rng);
      for (int64_t i = 0; i < n; ++i) a[static_cast<size_t>(i * n + 1)] = 0;  // column 1 zero: singular
      a[static_cast<size_t>((n - 1) * n + 2)] = std::numeric_limits<T>::quiet_NaN();
      a[static_cast<size_t>(n + n - 1)] = std::numeric_limits<T>::infinity();
      expect_same(k, a, n, "zero column, NaN, Inf");
      for (auto& v : a) v = d(rng);
      for (int64_t i = 0; i < n; ++i) a[static_cast<size_t>(i * n + (n - 1) / 2)] = 0;  // a later panel's zero step
      for (int64_t j = 0; j < n; ++j) a[static_cast<size_t>((n - 2) * n + j)] = a[static_cast<size_t>(j)];  // equal rows
      expect_same(k, a, n, "zero middle column, two equal rows");
      // The pivot search on signs (branch-free |a|): +x/-x ties, -0 against
      // +0, a NaN on the diagonal (never beaten) and one below it (never picked).
      for (auto& v : a) v = static_cast<T>(small(rng)) * T(0.5);
      for (int64_t i = 0; i < n; i += 2) a[static_cast<size_t>(i * n)] = -a[static_cast<size_t>(i * n)];
      for (int64_t i = 0; i < n; ++i) a[static_cast<size_t>(i * n + 1)] = i % 3 ? T(-0.0) : T(0.0);
      a[static_cast<size_t>(2 * n + 2)] = std::numeric_limits<T>::quiet_NaN();
      a[static_cast<size_t>((n - 1) * n)] = std::numeric_limits<T>::quiet_NaN();  // one NaN pattern: two may combine either way
      expect_same(k, a, n, "signed ties, -0/+0, NaN pivot candidates");
    }
  }
}

class LuSmallLevel : public ::testing::TestWithParam<vec::Isa> {
 protected:
  const vec::Kernels* kernels() const { return vec::kernels_for(GetParam()); }
};

TEST_P(LuSmallLevel, SameBitsAsTheScalarLoopFloat32) {
  if (!kernels()) GTEST_SKIP() << "this CPU cannot run the " << concord::detail::name(GetParam()) << " level";
  run_all<float>(*kernels());
}

TEST_P(LuSmallLevel, SameBitsAsTheScalarLoopFloat64) {
  if (!kernels()) GTEST_SKIP() << "this CPU cannot run the " << concord::detail::name(GetParam()) << " level";
  run_all<double>(*kernels());
}

INSTANTIATE_TEST_SUITE_P(Levels, LuSmallLevel,
                         ::testing::Values(vec::Isa::baseline, vec::Isa::avx2, vec::Isa::avx512),
                         [](const auto& info) { return std::string(concord::detail::name(info.param)); });

// b_i = (b_i - Σ_{j<i} a_ij·b_j) / a_ii, j ascending, products rounded.
template <class T>
std::vector<T> forward_substitution(const std::vector<T>& a, std::vector<T> b, int64_t n, bool unit) {
  for (int64_t i = 0; i < n; ++i) {
    T s = b[static_cast<size_t>(i)];
    for (int64_t j = 0; j < i; ++j) {
      const T p = a[static_cast<size_t>(i * n + j)] * b[static_cast<size_t>(j)];
      s = s - p;
    }
    if (!unit) s = s / a[static_cast<size_t>(i * n + i)];
    b[static_cast<size_t>(i)] = s;
  }
  return b;
}

// b_i = (b_i - Σ_{j>i} a_ij·b_j) / a_ii, rows from the bottom, j descending.
template <class T>
std::vector<T> back_substitution(const std::vector<T>& a, std::vector<T> b, int64_t n, int64_t k, bool unit) {
  for (int64_t i = n - 1; i >= 0; --i)
    for (int64_t c = 0; c < k; ++c) {
      T s = b[static_cast<size_t>(i * k + c)];
      for (int64_t j = n - 1; j > i; --j) {
        const T p = a[static_cast<size_t>(i * n + j)] * b[static_cast<size_t>(j * k + c)];
        s = s - p;
      }
      if (!unit) s = s / a[static_cast<size_t>(i * n + i)];
      b[static_cast<size_t>(i * k + c)] = s;
    }
  return b;
}

// Lower with one column (interleaved rows) and upper with one or three
// columns (interleaved rows, or row by row): the references' bits.
template <class T>
void triangular_solve_bits(concord::Dtype dt) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<T> d(-1, 1);
  for (int64_t n : {1, 7, 8, 9, 17, 64, 100, 128})
    for (bool unit : {false, true})
      for (int64_t k : {1, 3}) {
        std::vector<T> a(static_cast<size_t>(n * n)), b(static_cast<size_t>(n * k));
        for (auto& v : a) v = d(rng);
        for (int64_t i = 0; i < n; ++i) a[static_cast<size_t>(i * n + i)] += T(4);
        for (auto& v : b) v = d(rng);
        const concord::Tensor A = concord::from_vector(a, {n, n}).to(dt), B = concord::from_vector(b, {n, k}).to(dt);
        if (k == 1) {
          const concord::Tensor X = concord::linalg::solve_triangular(A, B, /*upper=*/false, /*left=*/true, unit);
          const std::vector<T> want = forward_substitution(a, b, n, unit);
          EXPECT_EQ(std::memcmp(X.contiguous().data<T>(), want.data(), want.size() * sizeof(T)), 0)
              << "lower n=" << n << " unit=" << unit;
        }
        const concord::Tensor U = concord::linalg::solve_triangular(A, B, /*upper=*/true, /*left=*/true, unit);
        const std::vector<T> want = back_substitution(a, b, n, k, unit);
        EXPECT_EQ(std::memcmp(U.contiguous().data<T>(), want.data(), want.size() * sizeof(T)), 0)
            << "upper n=" << n << " k=" << k << " unit=" << unit;
      }
}

TEST(SmallTriangularSolve, SameBitsAsRowByRowSubstitution) {
  triangular_solve_bits<float>(concord::float32);
  triangular_solve_bits<double>(concord::float64);
}

}  // namespace
