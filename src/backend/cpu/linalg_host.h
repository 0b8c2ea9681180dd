// Host-side linear algebra loops: det/slogdet from an LU, vector and matrix
// norms (behind the CPU backend's Backend slots of the same names; OpenCL has
// its own kernels for them), singular values (no slot: they read host memory,
// so on devices without host memory the SVD norm orders run through the
// counted CPU fallback; la::host_exec refuses anything else). Same
// preconditions as the Backend kernels: contiguous row-major operands,
// float32 or float64 unless stated, outputs allocated by the caller.
#pragma once

#include "concord/tensor.h"

namespace concord::detail::cpu {

// From an LU [B,n,n] with pivots [B,n] (1-based): det [B], or sign and log|det| [B],
// in the LU's dtype (accumulated in float64).
void lu_det(const Tensor& lu, const Tensor& pivots, const Tensor& det);
void lu_slogdet(const Tensor& lu, const Tensor& pivots, const Tensor& sign, const Tensor& logabsdet);

// Vector norms of the rows of x [R, C] (any floating dtype, contiguous) into
// out [R] (x's dtype): ord as linalg::vector_norm, accumulated in float64.
void vector_norm_rows(const Tensor& x, double ord, const Tensor& out);

// For x [B, r, c] (any floating dtype, contiguous) into out [B] (x's dtype):
// ord 1 / -1: max / min column abs-sum; inf / -inf: max / min row abs-sum.
void matrix_abs_sum_norm(const Tensor& x, double ord, const Tensor& out);

// Singular values of a [B, r, c] (float32/float64, contiguous; destroyed) into
// s [B, min(r, c)], descending.
void singular_values(const Tensor& a, const Tensor& s);

}  // namespace concord::detail::cpu
