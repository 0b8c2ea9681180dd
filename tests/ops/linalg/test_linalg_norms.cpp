// linalg::vector_norm and linalg::matrix_norm on every device and floating
// dtype, against plain long double loops over the values the tensors hold.
// Norms accumulate in float64 and round once, so the bound is a few units of
// the result dtype's roundoff (plus the float64 summation error).
#include <gtest/gtest.h>

#include <map>

#include "concord/linalg.h"
#include "linalg_reference.h"
#include "support/devices.h"

namespace concord {
namespace {

using namespace concord::test::la;
using test::DeviceTest;

constexpr Dtype kDtypes[] = {float16, bfloat16, float32, float64};
constexpr double kInf = INFINITY;

class LinalgNormTest : public DeviceTest {
 protected:
  bool skip(Dtype t) const { return !capabilities(device()).can_store(t); }
};

LD ref_norm(const std::vector<double>& v, double ord) {
  LD r = 0;
  if (ord == 0) { for (double x : v) r += x != 0; return r; }
  if (std::isinf(ord)) {
    r = ord > 0 ? 0 : kInf;
    for (double x : v) r = ord > 0 ? std::max<LD>(r, std::fabs(x)) : std::min<LD>(r, std::fabs(x));
    return r;
  }
  for (double x : v) r += std::pow(static_cast<LD>(std::fabs(x)), static_cast<LD>(ord));
  return std::pow(r, 1 / static_cast<LD>(ord));
}

void expect_rel(double got, LD want, double tol, const std::string& what) {
  if (std::isinf(static_cast<double>(want)) || want == 0) { EXPECT_EQ(got, static_cast<double>(want)) << what; return; }
  EXPECT_LE(std::fabs((got - want) / want), tol) << what << ": got " << got << ", want " << static_cast<double>(want);
}

TEST_P(LinalgNormTest, VectorNormMatchesLoops) {
  const Shape shape{3, 4, 5};
  Vec v = uniform(60, 1, -2, 2);
  for (size_t i = 0; i < v.size(); i += 7) v[i] = 0;  // zeros for ord 0 and negative ord
  struct Case { Dims dims; bool keepdim; Shape out; };
  const Case cases[] = {{{}, false, {}}, {{1}, false, {3, 5}}, {{0, 2}, true, {1, 4, 1}}, {{-1}, true, {3, 4, 1}}};
  for (Dtype t : kDtypes) {
    if (skip(t)) continue;
    Tensor x = make(v, shape, t, device());
    const Vec xv = values(x);
    for (double ord : {2.0, 1.0, kInf, -kInf, 0.0, 3.0, 0.5, -1.0})
      for (const Case& c : cases) {
        Tensor out = linalg::vector_norm(x, ord, c.dims, c.keepdim);
        ASSERT_EQ(out.shape(), c.out);
        EXPECT_EQ(out.dtype(), t);
        // Group the elements by their output position (reduced coordinates dropped).
        std::vector<bool> red(3, c.dims.empty());
        for (int64_t d : c.dims) red[static_cast<size_t>(d < 0 ? d + 3 : d)] = true;
        std::map<int64_t, std::vector<double>> groups;
        for (int64_t i = 0; i < 3; ++i)
          for (int64_t j = 0; j < 4; ++j)
            for (int64_t k = 0; k < 5; ++k) {
              int64_t key = 0;
              const int64_t idx[3] = {i, j, k};
              for (int d = 0; d < 3; ++d)
                if (!red[d]) key = key * shape[d] + idx[d];
              groups[key].push_back(xv[static_cast<size_t>(i * 20 + j * 5 + k)]);
            }
        const Vec got = values(out);
        ASSERT_EQ(got.size(), groups.size());
        const double tol = 4 * unit_roundoff(t) + 1e-12;
        for (const auto& [key, g] : groups)
          expect_rel(got[static_cast<size_t>(key)], ref_norm(g, ord), tol,
                     std::string(name(t)) + " ord " + std::to_string(ord) + " dims " + shape_str(c.dims));
      }
  }
  Tensor empty_x = make({}, {0}, float32, device());
  EXPECT_EQ(values(linalg::vector_norm(empty_x)), (Vec{0}));
  EXPECT_THROW(linalg::vector_norm(empty_x, kInf), ShapeError);
  EXPECT_THROW(linalg::vector_norm(make(v, shape, float32, device()), 2, {1, 1}), ShapeError);
}

// Orders with no value over zero elements raise, as PyTorch 1.13 does; the
// others give 0, and an empty outer shape gives an empty result.
TEST_P(LinalgNormTest, EmptyInputsRaiseForInfAndNegativeOrders) {
  const Tensor e = make({}, {0}, float32, device());
  const Tensor e03 = make({}, {0, 3}, float32, device()), e30 = make({}, {3, 0}, float32, device());
  for (double ord : {-kInf, -2.0, -1.0, -0.5, kInf}) {
    const std::string w = "ord " + std::to_string(ord);
    EXPECT_THROW(linalg::vector_norm(e, ord), ShapeError) << w;
    EXPECT_THROW(linalg::vector_norm(e03, ord, {0}), ShapeError) << w;
    EXPECT_THROW(linalg::vector_norm(e30, ord, {1}), ShapeError) << w;
    EXPECT_EQ(linalg::vector_norm(e03, ord, {1}).numel(), 0) << w;
    EXPECT_EQ(linalg::vector_norm(e30, ord, {0}).numel(), 0) << w;
  }
  for (double ord : {0.0, 0.5, 1.0, 2.0, 3.0}) {
    const std::string w = "ord " + std::to_string(ord);
    EXPECT_EQ(values(linalg::vector_norm(e, ord)), (Vec{0})) << w;
    EXPECT_EQ(values(linalg::vector_norm(e03, ord, {0})), (Vec{0, 0, 0})) << w;
    EXPECT_EQ(values(linalg::vector_norm(e30, ord, {1})), (Vec{0, 0, 0})) << w;
  }
  try {
    linalg::vector_norm(e, -1);
    ADD_FAILURE() << "no throw";
  } catch (const ShapeError& err) {
    EXPECT_EQ(std::string(err.what()).rfind("[linalg.vector_norm]", 0), 0u) << err.what();
  }
}

TEST_P(LinalgNormTest, MatrixNormsFromSumsMatchLoops) {
  const int64_t r = 3, c = 5;
  const Vec v = uniform(2 * r * c, 2, -3, 3);
  for (Dtype t : kDtypes) {
    if (skip(t)) continue;
    Tensor A = make(v, {2, r, c}, t, device());
    const Vec a = values(A);
    for (int64_t e = 0; e < 2; ++e) {
      const double* m = a.data() + e * r * c;
      LD fro = 0, cmax = 0, cmin = kInf, rmax = 0, rmin = kInf;
      for (int64_t j = 0; j < c; ++j) {
        LD s = 0;
        for (int64_t i = 0; i < r; ++i) s += std::fabs(m[i * c + j]);
        cmax = std::max(cmax, s);
        cmin = std::min(cmin, s);
      }
      for (int64_t i = 0; i < r; ++i) {
        LD s = 0;
        for (int64_t j = 0; j < c; ++j) {
          s += std::fabs(m[i * c + j]);
          fro += static_cast<LD>(m[i * c + j]) * m[i * c + j];
        }
        rmax = std::max(rmax, s);
        rmin = std::min(rmin, s);
      }
      const double tol = 4 * unit_roundoff(t) + 1e-12;
      const std::string w(name(t));
      expect_rel(values(linalg::matrix_norm(A))[e], std::sqrt(fro), tol, w + " fro");
      expect_rel(values(linalg::matrix_norm(A, 1))[e], cmax, tol, w + " 1");
      expect_rel(values(linalg::matrix_norm(A, -1))[e], cmin, tol, w + " -1");
      expect_rel(values(linalg::matrix_norm(A, kInf))[e], rmax, tol, w + " inf");
      expect_rel(values(linalg::matrix_norm(A, -kInf))[e], rmin, tol, w + " -inf");
      // Rows and columns follow the order of dims: (-1, -2) swaps their roles.
      expect_rel(values(linalg::matrix_norm(A, 1, {-1, -2}))[e], rmax, tol, w + " 1 over (-1, -2)");
    }
    EXPECT_EQ(linalg::matrix_norm(A, "fro", {-2, -1}, true).shape(), (Shape{2, 1, 1}));
    EXPECT_EQ(linalg::matrix_norm(A, 1, {0, 2}).shape(), (Shape{3}));
  }
}

TEST_P(LinalgNormTest, SpectralAndNuclearNorms) {
  // A = Q diag(d) Q with the reflection Q = I - J/2 (J all ones): exact in every
  // dtype, and its singular values are |d|.
  const double ds[2][4] = {{4, -3, 2, 1}, {1, 0.5, 0.25, 8}};
  Vec a;
  for (const auto& d : ds)
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        double s = 0;
        for (int k = 0; k < 4; ++k) s += ((i == k) - 0.5) * d[k] * ((k == j) - 0.5);
        a.push_back(s);
      }
  for (Dtype t : kDtypes) {
    if (skip(t)) continue;
    Tensor A = make(a, {2, 4, 4}, t, device());
    EXPECT_EQ(values(A), a) << "the test matrices are exact in " << name(t);
    const double tol = 8 * 4 * unit_roundoff(t);
    const Vec two = values(linalg::matrix_norm(A, 2)), mtwo = values(linalg::matrix_norm(A, -2)),
              nuc = values(linalg::matrix_norm(A, "nuc"));
    expect_rel(two[0], 4, tol, "2");
    expect_rel(two[1], 8, tol, "2");
    expect_rel(mtwo[0], 1, tol, "-2");
    expect_rel(mtwo[1], 0.25, tol, "-2");
    expect_rel(nuc[0], 10, tol, "nuc");
    expect_rel(nuc[1], 9.75, tol, "nuc");
    EXPECT_EQ(linalg::matrix_norm(A, "nuc", {-2, -1}, true).shape(), (Shape{2, 1, 1}));
  }
  Tensor A = make(a, {2, 4, 4}, float32, device());
  EXPECT_THROW(linalg::matrix_norm(A, 3), ValueError);
  EXPECT_THROW(linalg::matrix_norm(A, "foo"), ValueError);
  EXPECT_THROW(linalg::matrix_norm(make({1, 2}, {2}, float32, device())), ShapeError);
}

// Rows with NaN, inf, signed zeros, subnormals and huge values (the scaled
// float64 2-norm), odd lengths, a transposed view: NaN gives NaN (ord 0
// counts it), inf gives inf for ord > 0, the rest as the long double loops.
TEST_P(LinalgNormTest, SpecialValuesOddSizesAndViews) {
  const double sp[] = {0.0, -0.0, kInf, -kInf, NAN, 1e300, -4.9e-324, 1e-310, 3.5};
  for (Dtype t : kDtypes) {
    if (skip(t)) continue;
    // Row i (of 9, length 13) holds special i at a few places, random values elsewhere.
    Vec v = uniform(9 * 13, 17, -2, 2);
    for (int64_t i = 0; i < 9; ++i)
      for (int64_t j = i % 3; j < 13; j += 5) v[static_cast<size_t>(i * 13 + j)] = sp[i];
    const Tensor x = make(v, {13, 9}, t, device());  // the rows are its columns: reduce dim 0 of the view
    const Tensor rows = x.transpose(0, 1);
    const Vec xv = values(x);
    for (double ord : {2.0, 1.0, kInf, -kInf, 0.0, 3.0}) {
      const Vec got = values(linalg::vector_norm(rows, ord, {1}));
      for (int64_t i = 0; i < 9; ++i) {
        std::vector<double> g;
        for (int64_t j = 0; j < 13; ++j) g.push_back(xv[static_cast<size_t>(j * 9 + i)]);
        const std::string w = std::string(name(t)) + " ord " + std::to_string(ord) + " row " + std::to_string(i);
        bool nan = false, inf = false;
        for (double e : g) nan = nan || std::isnan(e), inf = inf || std::isinf(e);
        if (nan && ord != 0) EXPECT_TRUE(std::isnan(got[static_cast<size_t>(i)])) << w;
        else if (inf && ord > 0) EXPECT_EQ(got[static_cast<size_t>(i)], kInf) << w;
        else expect_rel(got[static_cast<size_t>(i)], ref_norm(g, ord), 4 * unit_roundoff(t) + 1e-12, w);
      }
    }
  }
}

CONCORD_INSTANTIATE_DEVICES(LinalgNormTest);

}  // namespace
}  // namespace concord
