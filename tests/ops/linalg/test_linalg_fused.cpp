// linalg::solve's fused step (Backend::lu_factor_solve: the CPU runs each
// matrix's LU and both substitutions back to back, in one parallel region)
// against the two public steps it replaces, lu_factor_ex then lu_solve, bit for
// bit on every device: the solution, the pivots' effect and info, singular and
// NaN matrices included. The solutions are also checked against the long
// double reference of linalg_reference.h (backward and forward error), and on
// the CPU the bits must not depend on the number of threads.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "concord/linalg.h"
#include "linalg_reference.h"
#include "support/devices.h"

namespace concord {
namespace {

using namespace concord::test::la;
using test::DeviceTest;

class LinalgFusedTest : public DeviceTest {
 protected:
  bool skip(Dtype t) const { return !capabilities(device()).can_store(t); }
  bool on_cpu() const { return device().is_cpu(); }
};

// The bytes of a float32/float64 tensor (NaN payloads and signed zeros included).
std::vector<unsigned char> bytes(const Tensor& t) {
  std::vector<unsigned char> out;
  auto put = [&](const auto& v) {
    const auto* p = reinterpret_cast<const unsigned char*>(v.data());
    out.assign(p, p + v.size() * sizeof(v[0]));
  };
  if (t.dtype() == float64) put(t.to_vector<double>());
  else put(t.to_vector<float>());
  return out;
}

// X from the two public steps the fused solve replaces.
linalg::SolveEx two_steps(const Tensor& A, const Tensor& B) {
  const auto f = linalg::lu_factor_ex(A);
  return {linalg::lu_solve(f.LU, f.pivots, B), f.info};
}

TEST_P(LinalgFusedTest, SolveIsLuFactorThenLuSolveBitForBit) {
  // Random (not dominant) matrices: rows swap. Sizes across the small LU's
  // unblocked and blocked paths; 150 takes LAPACK (the CPU only: large).
  std::vector<int64_t> sizes = {1, 7, 24, 64};
  if (on_cpu()) sizes.insert(sizes.end(), {48, 100, 128, 150});
  for (Dtype t : {float32, float64}) {
    if (skip(t)) continue;
    for (int64_t n : sizes)
      for (int64_t k : {int64_t{1}, int64_t{5}}) {
        const int64_t count = n > 64 ? 2 : 9;
        const std::string what = std::string(name(t)) + " n=" + std::to_string(n) + " k=" + std::to_string(k);
        Tensor A = make(uniform(static_cast<size_t>(count * n * n), 31 + n), {count, n, n}, t, device());
        Tensor B = make(uniform(static_cast<size_t>(count * n * k), 47 + n + k), {count, n, k}, t, device());
        const Vec a = values(A), b = values(B);
        const linalg::SolveEx r = linalg::solve_ex(A, B);
        const linalg::SolveEx ref = two_steps(A, B);
        EXPECT_TRUE(bytes(r.result) == bytes(ref.result)) << what << ": solve differs from lu_factor + lu_solve";
        EXPECT_EQ(r.info.to_vector<int32_t>(), ref.info.to_vector<int32_t>()) << what;
        EXPECT_EQ(r.info.to_vector<int32_t>(), std::vector<int32_t>(static_cast<size_t>(count), 0)) << what;
        // Uniform matrices are well enough conditioned at these sizes for the c n u cond bound.
        expect_solved(a, b, values(r.result), count, n, k, t, what);
        EXPECT_EQ(values(A), a) << what << ": A was modified";
        EXPECT_EQ(values(B), b) << what << ": B was modified";
      }
  }
}

// 12 matrices 16 x 16: element 3 has a zero column 5 (info 6), element 7 a
// zero row 2 (info 3 or later: the row meets a pivot step with a zero column
// below), element 9 holds a NaN; the others are fine.
Tensor singular_batch(Dtype t, const Device& d) {
  constexpr int64_t kN = 16;
  Vec v = uniform(12 * kN * kN, 77);
  for (int64_t i = 0; i < kN; ++i) v[(3 * kN + i) * kN + 5] = 0;
  for (int64_t j = 0; j < kN; ++j) v[(7 * kN + 2) * kN + j] = 0;
  v[(9 * kN + 4) * kN + 11] = std::numeric_limits<double>::quiet_NaN();
  return make(v, {12, kN, kN}, t, d);
}

TEST_P(LinalgFusedTest, SingularBatchKeepsInfoAndBits) {
  for (Dtype t : {float32, float64}) {
    if (skip(t)) continue;
    Tensor A = singular_batch(t, device());
    Tensor B = make(uniform(12 * 16 * 3, 78), {12, 16, 3}, t, device());
    const std::vector<unsigned char> a = bytes(A);
    const linalg::SolveEx r = linalg::solve_ex(A, B);
    const linalg::SolveEx ref = two_steps(A, B);
    const std::vector<int32_t> info = r.info.to_vector<int32_t>();
    EXPECT_EQ(info, ref.info.to_vector<int32_t>()) << name(t);
    EXPECT_EQ(info[3], 6) << name(t);
    EXPECT_GT(info[7], 0) << name(t);
    for (int e : {0, 1, 2, 4, 5, 6, 8, 10, 11}) EXPECT_EQ(info[e], 0) << name(t) << " element " << e;
    // Inf and NaN in the singular elements' solutions, at the same places with the same bits.
    EXPECT_TRUE(bytes(r.result) == bytes(ref.result)) << name(t) << ": solve differs from lu_factor + lu_solve";
    try {
      linalg::solve(A, B);
      ADD_FAILURE() << "solve of a singular batch did not throw";
    } catch (const LinAlgError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("[linalg.solve] (batch element 3) the matrix is singular: U[6,6] is zero"), std::string::npos)
          << m;
    }
    EXPECT_TRUE(bytes(A) == a) << name(t) << ": A was modified";
  }
}

TEST_P(LinalgFusedTest, CpuBitsDoNotDependOnThreads) {
  if (!on_cpu()) GTEST_SKIP() << "the thread count is the CPU's";
  // 64 matrices 64 x 64: enough work to fork (cpu/linalg.cpp's kParallelWork).
  Tensor A = make(uniform(64 * 64 * 64, 91), {64, 64, 64}, float32, device());
  Tensor B = make(uniform(64 * 64, 92), {64, 64, 1}, float32, device());
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const std::vector<unsigned char> one = bytes(linalg::solve(A, B));
  omp_set_num_threads(std::max(threads, 2));
  const std::vector<unsigned char> many = bytes(linalg::solve(A, B));
  omp_set_num_threads(threads);
  EXPECT_TRUE(one == many) << "solve's bits depend on the number of threads";
}

TEST_P(LinalgFusedTest, FallbackAndWidenedCopiesGiveTheCpuBits) {
  // The fused step factors a fresh copy of A in place (moved to the CPU by a
  // fallback, or widened from float16) and copies A itself when it is the
  // caller's: every route gives the CPU's bits for the same float32 values.
  const Device cpu("cpu");
  Tensor A = make(uniform(5 * 24 * 24, 61), {5, 24, 24}, float32, device());
  Tensor B = make(uniform(5 * 24 * 2, 62), {5, 24, 2}, float32, device());
  const std::vector<unsigned char> want = bytes(linalg::solve(A.to(cpu), B.to(cpu)));
  if (!device().is_cpu()) {
    ProfileGuard g(device(), "no-op:solve");
    EXPECT_TRUE(bytes(linalg::solve(A, B)) == want) << "the CPU fallback differs from the CPU";
  }
  // float16 values are exact in float32: the widened copy solves the same system.
  if (skip(float16)) return;
  Tensor Ah = A.to(float16), Bh = B.to(float16);
  const Tensor x16 = linalg::solve(Ah, Bh);
  const Tensor x32 = linalg::solve(Ah.to(cpu).to(float32), Bh.to(cpu).to(float32)).to(float16);
  EXPECT_EQ(x16.to_vector<float>(), x32.to_vector<float>()) << "float16 solve is not the float32 solve rounded once";
  EXPECT_EQ(values(Ah), values(A.to(float16))) << "A was modified";
}

CONCORD_INSTANTIATE_DEVICES(LinalgFusedTest);

}  // namespace
}  // namespace concord
