// Shared steps of the reduction front ends (reduce.cpp, reduce_stats.cpp).
#pragma once

#include <optional>
#include <string>

#include "concord/ops.h"
#include "core/dispatch.h"

namespace concord::detail {

// The reduced dims of x resolved for a kernel.
struct ReduceDims {
  Tensor x;          // the input; a 0-dim tensor is viewed as [1]
  Dims dims;         // sorted, unique, non-empty (dims of x above)
  Shape keep_shape;  // x's shape with the reduced dims set to 1
  Shape out_shape;   // the shape returned (keep_shape, or without the reduced dims)
  int64_t count = 1; // elements reduced into each output
};

// Wraps negative dims, sorts, rejects repeats (ShapeError); {} means all dims.
ReduceDims reduce_dims(const char* op, const Tensor& x, const Dims& dims, bool keepdim);

// What a reduction over zero elements gives: a value, or a ShapeError ("no identity").
struct EmptyRule {
  bool has_identity;
  Scalar value;
  static EmptyRule identity(Scalar v) { return {true, v}; }
  static EmptyRule error() { return {false, Scalar(0)}; }
};

// Every reduction over dims: resolves the dims, then runs Backend::reduce
// through d (d.tensor(0) is x after autocast). dtype: the dtype it runs in;
// out_dtype: the kernel's output dtype when fixed (bool for all/any), by
// default the plan's compute dtype.
Tensor run_reduce(Dispatch& d, const Dims& dims, bool keepdim, Dtype dtype, std::optional<Dtype> out_dtype,
                  const ReduceArgs& args, EmptyRule on_empty);

// A 0-dim tensor as a 1-element 1-d view (same storage); other tensors unchanged.
Tensor as_1d(const Tensor& x);

// "float32[2, 3] on cpu" for messages.
std::string describe_on(const Tensor& x);

}  // namespace concord::detail
