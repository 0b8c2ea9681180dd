// The errors every backend's kernels raise on bad values inside tensors
// (an index out of range, a pivot outside the matrix), worded once so that a
// device gives the CPU's message word for word.
#pragma once

#include <cstdint>

#include "concord/tensor.h"

namespace concord::detail {

// "[op] index 7 is out of range for dim 0 of size 5 (input float32[5, 3] on cpu); ..."
[[noreturn]] void throw_index_out_of_range(const char* op, int64_t bad, const Tensor& x, int64_t dim);

// For backends whose kernels flag a bad index without saying which: reads the
// index to the host and raises for the first one (row-major) outside [0, size).
void check_indices_on_host(const char* op, const Tensor& index, const Tensor& x, int64_t dim);

// lu_solve's pivots (1-based, as lu_factor returns them) must lie in [1, n]:
// raises for the first that does not. piv: count host values.
void check_pivots(const int32_t* piv, int64_t count, int64_t n);

}  // namespace concord::detail
