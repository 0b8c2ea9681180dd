// Regression tests for findings of the fuzzers in fuzz/ (one test per finding,
// named after what broke, with the decoded fuzzer program in a comment).
#include <gtest/gtest.h>

#include "concord/concord.h"
#include "concord/testing.h"

namespace concord {
namespace {

// op_sequence_fuzzer: r0 = make([], bfloat16, {-2.5}); r1 = sum(r0, dims={0}, keepdim).
// check_reduction marked dim 0 of a 0-dim x in an empty vector (heap overflow).
TEST(FuzzRegressions, CheckReductionOfZeroDimTensorWithDim) {
  for (Dtype t : {bfloat16, float32}) {
    Tensor x = full({}, -2.5, t);
    for (int64_t d : {0, -1}) {
      for (bool keepdim : {false, true}) {
        Tensor s = sum(x, {d}, keepdim);
        auto m = testing::check_reduction(s, x, {d}, keepdim);
        EXPECT_TRUE(m.ok) << m.str();
        EXPECT_EQ(m.total, 1);
        EXPECT_EQ(s.item<double>(), -2.5);
      }
    }
  }
}

// op_sequence_fuzzer: r0 = make([8, 5, 16, 4], bfloat16, {1e300, 1e-08, 10, ...});
// r5 = sum(r0, dims={0}, dtype=float16). Not a library bug: dtype= converts the input
// first (PyTorch's rule), so 1e-8 becomes 0 in float16 before the sum; the fuzzer's
// error model now judges against the converted input. This pins the semantics.
TEST(FuzzRegressions, SumWithDtypeConvertsTheInputFirst) {
  Tensor x = full({8, 2}, 1e-8, bfloat16);
  Tensor s = sum(x, {0}, false, float16);
  EXPECT_EQ(s.dtype(), float16);
  for (double v : s.to_vector<double>()) EXPECT_EQ(v, 0.0);  // each 1e-8 rounds to 0 in float16
  auto m = testing::check_reduction(s, x.to(float16), {0}, false);
  EXPECT_TRUE(m.ok) << m.str();
  // Without dtype= the bfloat16 values accumulate in float32.
  EXPECT_GT(sum(x, {0}).to_vector<double>()[0], 7e-8);
}

}  // namespace
}  // namespace concord
