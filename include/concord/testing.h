// concord/testing.h — comparing tensors and checking results against error models.
//
// compare()/assert_close() follow PyTorch's torch.testing.assert_close: the same
// default tolerances, the same closeness rule and the same failure message, plus
// the distance in units in the last place (ULP):
//
//   Tensor-likes are not close!
//
//   Mismatched elements: 9 / 7680 (0.1%)
//   Greatest absolute difference: 0.00018310546875 at index (3, 17) (up to 1e-05 allowed)
//   Greatest relative difference: 0.265625 at index (5, 2) (up to 1.3e-06 allowed)
//   Greatest ULP distance: 3 at index (3, 17)
//
// 0-dim inputs get PyTorch's scalar message (no element count, no index):
//
//   Scalars are not close!
//
//   Absolute difference: 0.5 (up to 1e-05 allowed)
//   Relative difference: 0.5 (up to 1.3e-06 allowed)
//   ULP distance: 4194304
//
// Integer (and bool) tensors: the relative difference is computed in float32,
// as PyTorch's true division does ("0.3333333432674408"); 0-dim integers in
// float64, as PyTorch's Python-number arithmetic does.
// Attribute mismatches keep PyTorch's sentence with concord's own spelling of
// shapes and dtypes (no "torch." prefix, which would name a type concord lacks):
//   The values for attribute 'shape' do not match: [2, 3] != [3, 2].
//   The values for attribute 'dtype' do not match: float32 != float64.
// (Both differences, and compare() taking rtol or atol alone, are listed in
// docs/PYTORCH_DIFFERENCES.md.)
//
// The error-model checks (check_elementwise, check_reduction, check_matmul,
// check_solve) ask a sharper question: is the difference from an exact
// reference explained by rounding, i.e. within the error bound of the
// algorithm? They compute their references on the host and use no concord op
// other than views and transfers, so they can judge any op.
//
//   concord::testing::assert_close(concord::sum(x, {1}), expected);
//   auto m = concord::testing::check_matmul(concord::matmul(a, b), a, b);
//   EXPECT_TRUE(m.ok) << m.str();
//   EXPECT_TENSOR_CLOSE(out, ref);                               // GoogleTest
//   EXPECT_TENSOR_CLOSE(out, ref, {.rtol = 1e-3, .atol = 1e-3});
//
// Include guards rather than #pragma once: the GoogleTest helpers at the end
// are defined whenever this header is (re-)included after <gtest/gtest.h>.
#ifndef CONCORD_TESTING_H_
#define CONCORD_TESTING_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "concord/dtype.h"
#include "concord/error.h"
#include "concord/shape.h"
#include "concord/tensor.h"

namespace concord::testing {

// Raised by assert_close; what() is the full comparison message.
class AssertionError : public concord::Error { public: using Error::Error; };

struct CompareOptions {
  // Defaults per dtype as PyTorch's assert_close (a missing one takes its default):
  //   float16 (1e-3, 1e-5)  bfloat16 (1.6e-2, 1e-5)  float32 (1.3e-6, 1e-5)
  //   float64 (1e-7, 1e-7)  integers and bool (0, 0): exact.
  // When the two dtypes differ the looser of the two defaults wins.
  std::optional<double> rtol, atol;
  bool equal_nan = false;    // NaN == NaN
  bool check_dtype = true;   // different dtypes fail ("attribute 'dtype'")
  bool check_device = false; // different devices fail; otherwise both are moved to the CPU
};

// The result of compare(). Elements a (actual) and e (expected) are close when
//   |a - e| <= atol + rtol * |e|,
// infinities only when equal (same sign), NaNs only with equal_nan (both NaN).
// Values are compared in float64 on the host (integer tensors exactly, as int64).
struct Comparison {
  bool ok = true;
  std::string problem;            // shape/dtype/device mismatch message; empty if none
  int64_t mismatched = 0, total = 0;
  // The statistics below are over the mismatched elements when there are any
  // (as PyTorch's message), else over all elements. Indices are multi-indices.
  double max_abs_diff = 0;        // NaN when a NaN is involved
  std::vector<int64_t> max_abs_index;
  double max_rel_diff = 0;        // |a - e| / |e|; inf where e == 0
  std::vector<int64_t> max_rel_index;
  uint64_t max_ulp = 0;           // ULPs of the compared dtype, on the bit patterns; 0 for integers
  std::vector<int64_t> max_ulp_index;
  bool has_ulp = false;           // false if no pair had a ULP distance (integers, only NaNs)
  int64_t nan_mismatch = 0;       // elements not close because of a NaN
  int64_t inf_mismatch = 0;       // elements not close because of an infinity
  double rtol = 0, atol = 0;      // the tolerances used
  Dtype dtype = Dtype::float32;   // the compared dtype (promoted when the dtypes differ)
  Shape shape;

  // The assert_close message (PyTorch's, plus the ULP line); "" when ok.
  std::string message() const;
  explicit operator bool() const { return ok; }
};

Comparison compare(const Tensor& actual, const Tensor& expected, const CompareOptions& options = {});
// Throws AssertionError with compare(...).message() when the tensors are not close.
void assert_close(const Tensor& actual, const Tensor& expected, const CompareOptions& options = {});

// PyTorch's default (rtol, atol) for one dtype, and for a pair (the looser).
struct Tolerances { double rtol, atol; };
Tolerances default_tolerances(Dtype t);
Tolerances default_tolerances(Dtype a, Dtype b);

// Python's repr of a float: the shortest string that reads back as the same
// double ("1e-05", "0.00018310546875", "1.0", "inf", "nan").
std::string float_repr(double v);
// "(3, 17)", "(4,)", "()" — a Python tuple.
std::string index_str(const std::vector<int64_t>& index);

// ---------------------------------------------------------------------------
// Error models. Each check returns the element with the largest error/bound
// ratio; ok when every element is within its bound (ratio <= 1).
struct ModelCheck {
  bool ok = true;
  double worst_ratio = 0;              // error / bound (0 if error == 0; inf if the bound is 0)
  std::vector<int64_t> worst_index;    // multi-index of the worst element (or system)
  double worst_error = 0;
  double worst_bound = 0;
  int64_t failures = 0;                // elements (systems) outside their bound
  int64_t total = 0;                   // elements (systems) checked
  bool in_ulps = false;                // error and bound are in ULPs (check_elementwise)
  std::string what = "element";        // "system" for check_solve
  // "worst element (3, 17): error 1.8e-04 = 0.40 of the bound 4.6e-04: rounding"
  std::string str() const;
  explicit operator bool() const { return ok; }
};

struct ModelOptions {
  // The precision the computation accumulates in. Default: from the dtypes
  // involved (float32 for float16/bfloat16/float32, float64 for float64; the
  // less precise one when they differ; exact for integers).
  std::optional<Dtype> accumulate;
};

// Unit roundoff: float16 2^-11, bfloat16 2^-8, float32 2^-24, float64 2^-53, integers 0.
double unit_roundoff(Dtype t);
// Unit roundoff of the accumulation precision used for t (float32's for half types).
double accumulation_roundoff(Dtype t);
// Spacing of dtype t at |v| rounded to t (the subnormal spacing at 0; 1 for integers).
double ulp(Dtype t, double v);
// v rounded to the nearest value of dtype t (ties to even, overflow to inf).
double round_to(Dtype t, double v);

// Elementwise ops: |actual - reference| in ULPs of actual's dtype (the ULP of the
// reference rounded to that dtype) must be <= max_ulp. Correctly rounded ops
// pass with max_ulp = 0.5. Both NaN or the same infinity pass; else a
// non-finite value on one side fails. `reference` holds the exact result
// (float64, computed independently) with actual's shape.
ModelCheck check_elementwise(const Tensor& actual, const Tensor& reference, double max_ulp);

// Sums: |s - ŝ| <= c·n·u·Σ|x| + 0.5·ulp_out(s) per output element, where n is the
// number of reduced elements and u the accumulation roundoff. dims as sum()
// (empty: all), actual has sum(x, dims, keepdim)'s shape.
ModelCheck check_reduction(const Tensor& actual, const Tensor& x, Shape dims, bool keepdim, double c = 1.0,
                           const ModelOptions& options = {});

// Matrix products a [..., m, k] @ b [..., k, n] (batch dims broadcast; 1-D operands as
// matmul): |C - Ĉ| <= c·k·u·(|A||B|) + 0.5·ulp_out(C) elementwise.
ModelCheck check_matmul(const Tensor& actual, const Tensor& a, const Tensor& b, double c = 1.0,
                        const ModelOptions& options = {});

// Linear solves A x = b, a [..., n, n], b [..., n] or [..., n, k] (as linalg.solve):
// per system (each right-hand side) the normwise backward error
//   ‖Ax − b‖∞ / (‖A‖∞‖x‖∞ + ‖b‖∞) <= c·n·u + u_x
// where u_x is the unit roundoff of x's dtype (rounding x to its storage).
ModelCheck check_solve(const Tensor& x, const Tensor& a, const Tensor& b, double c = 1.0,
                       const ModelOptions& options = {});

// A device under a profile: one configuration a test suite or `concord parity` runs on.
struct DeviceConfig {
  std::string label;                   // "cpu", "emu:0", "emu:0=none", "vulkan:0=no-fp64"
  Device device;
  std::optional<std::string> profile;  // nullopt: the device keeps its own profile
};
// Every device with its own profile, plus for each kind its first device
// under the contrasting profile: "=none" where the kind starts restricted
// (emu:0=none), "=no-fp64" where the device stores float64 (opencl:0=no-fp64,
// vulkan:0=no-fp64): the path a float64-less GPU takes, on real hardware.
std::vector<DeviceConfig> device_configs();

}  // namespace concord::testing

#endif  // CONCORD_TESTING_H_

// ---------------------------------------------------------------------------
// GoogleTest helpers, defined when <gtest/gtest.h> was included first.
//   EXPECT_TENSOR_CLOSE(actual, expected);
//   ASSERT_TENSOR_CLOSE(actual, expected, {.rtol = 0, .atol = 0});
// The failure text is assert_close's message.
#if (defined(GTEST_INCLUDE_GTEST_GTEST_H_) || defined(GOOGLETEST_INCLUDE_GTEST_GTEST_H_) || defined(TEST)) && \
    !defined(CONCORD_TESTING_GTEST_HELPERS_)
#define CONCORD_TESTING_GTEST_HELPERS_

namespace concord::testing::gtest {

inline CompareOptions options() { return {}; }
inline CompareOptions options(const CompareOptions& o) { return o; }

inline ::testing::AssertionResult tensor_close(const char* actual_expr, const char* expected_expr, const char*,
                                               const Tensor& actual, const Tensor& expected,
                                               const CompareOptions& o) {
  const Comparison c = compare(actual, expected, o);
  if (c.ok) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << c.message() << "\n(actual: " << actual_expr
                                       << ", expected: " << expected_expr << ")";
}

}  // namespace concord::testing::gtest

#define EXPECT_TENSOR_CLOSE(actual, expected, ...)                                          \
  EXPECT_PRED_FORMAT3(::concord::testing::gtest::tensor_close, actual, expected,             \
                      ::concord::testing::gtest::options(__VA_ARGS__))
#define ASSERT_TENSOR_CLOSE(actual, expected, ...)                                          \
  ASSERT_PRED_FORMAT3(::concord::testing::gtest::tensor_close, actual, expected,             \
                      ::concord::testing::gtest::options(__VA_ARGS__))

#endif
