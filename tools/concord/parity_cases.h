// The cases `concord parity` sweeps: an op, an input variant, the dtypes it
// applies to, how to build seeded inputs, how to run it, and the error model
// that judges the result against the float64 CPU reference.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "concord/concord.h"

namespace concord::cli {

enum class Model {
  exact,      // bitwise equal to the reference rounded to the output dtype (integers, casts, selections)
  rounded,    // correctly rounded: within 0.5 ULP of the float64 result (add, mul, div, sqrt)
  ulp,        // within `ulps` ULPs (transcendentals)
  reduction,  // |s - ŝ| <= c·n·u·Σ|x| (sums, means)
  relative,   // |a - e| <= tol·(|e| + scale) with tol = c·n·u (prod, var, softmax, norms)
  matmul,     // |C - Ĉ| <= c·k·u·(|A||B|)
  solve,      // backward error <= c·n·u
  same_bits,  // equal to the CPU's result in the same dtype (random numbers)
};

struct ParityCase {
  std::string op;       // must be an op name from ops_list.h
  std::string variant;  // "odd 37x53", "transposed", "broadcast", "empty", "special"...
  DtypeSet dtypes;
  std::function<std::vector<Tensor>(Dtype, uint64_t seed)> make;  // inputs on the CPU
  std::function<Tensor(const std::vector<Tensor>&)> run;
  Model model = Model::rounded;
  double ulps = 4;          // Model::ulp
  double c = 2;             // constant of the model's bound
  std::vector<int64_t> dims;  // Model::reduction: reduced dims ({} = all)
  bool keepdim = false;
  bool float_inputs = true;   // reference computed with float64 inputs (else in the input dtype)
};

std::vector<ParityCase> parity_cases(bool quick);

}  // namespace concord::cli
