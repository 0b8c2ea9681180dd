// concord/linalg.h — linear algebra on every device, batched, PyTorch semantics.
//
// Matrices are the last two dims; any leading dims are a batch, and the batch
// dims of two operands broadcast like NumPy:
//
//   using namespace concord;
//   Tensor A = rand({2, 3, 4, 4}) + 4 * eye(4);       // 6 matrices 4x4
//   Tensor b = rand({4});                              // one vector for all six
//   Tensor x = linalg::solve(A, b);                    // [2, 3, 4]
//   auto [X, info] = linalg::solve_ex(A, b);           // never throws for singular A
//   Tensor d = linalg::det(A);                         // [2, 3]
//
// The right-hand side B of solve and lu_solve is a vector (treated as a
// one-column matrix, and the result drops that column again) iff
//   B.ndim == 1, or B.ndim == A.ndim - 1 and B.shape == A.shape[:-1];
// otherwise it is a batch of matrices [*, n, k]. This is PyTorch's rule for
// solve; PyTorch's lu_solve requires B with 2 dims or more, concord's takes the
// vector forms too (docs/PYTORCH_DIFFERENCES.md).
//
// info (int32, shape A.shape[:-2]) of the _ex variants: 0 on success; k > 0
// when U[k,k] (1-based) of the LU factorisation is exactly zero (singular), or
// for cholesky when the leading minor of order k is not positive definite.
// The _ex variants never throw for numerical failure; solve, lu_factor, inv
// and cholesky throw LinAlgError naming the first failing batch element:
//   "[linalg.solve] (batch element 3) the matrix is singular: U[2,2] is zero ..."
// det of a singular matrix is 0 and slogdet gives sign 0, logabsdet -inf.
//
// Dtypes: float32 and float64 natively; float16/bfloat16 compute in float32
// and round once. Integer and bool inputs raise DtypeError (convert with
// .to(concord::float32)); operands of one call need the same dtype. Shapes that
// do not fit raise ShapeError naming them. Inputs are never modified.
//
// Devices: a device without linear algebra kernels (OpenCL today, or a profile
// with "no-op:solve") runs the op on the CPU: each input is copied there once
// for the whole batch and each result back once (counted in report(); an error
// under the strict fallback policy).
#pragma once

#include <string_view>

#include "concord/ops.h"
#include "concord/tensor.h"

namespace concord::linalg {

struct SolveEx { Tensor result, info; };
struct LUFactor { Tensor LU, pivots; };
struct LUFactorEx { Tensor LU, pivots, info; };
struct InvEx { Tensor inverse, info; };
struct SlogDet { Tensor sign, logabsdet; };
struct CholeskyEx { Tensor L, info; };

// X with A X = B (LU with partial pivoting). A [*, n, n]; B [*, n, k] or a vector.
Tensor solve(const Tensor& A, const Tensor& B);
SolveEx solve_ex(const Tensor& A, const Tensor& B);

// P A = L U. LU holds L (unit diagonal, strictly below) and U (on and above the
// diagonal); pivots [*, n] int32, 1-based as LAPACK: row i was swapped with
// row pivots[i] - 1, in order. lu_factor throws LinAlgError for singular A
// (as PyTorch's); lu_factor_ex reports it in info.
LUFactor lu_factor(const Tensor& A);
LUFactorEx lu_factor_ex(const Tensor& A);
// Solves A X = B from lu_factor's output. pivots must have shape LU.shape[:-1]
// with values in [1, n] (ValueError otherwise).
Tensor lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B);

Tensor inv(const Tensor& A);
InvEx inv_ex(const Tensor& A);
Tensor det(const Tensor& A);          // shape A.shape[:-2]
SlogDet slogdet(const Tensor& A);      // sign in {-1, 0, 1}; det = sign * exp(logabsdet)

// A = L L^T (lower, the default) or A = U^T U (upper). Only the named triangle
// of A is read (lower, or upper when upper = true); the other triangle of the
// result is zero.
Tensor cholesky(const Tensor& A, bool upper = false);
CholeskyEx cholesky_ex(const Tensor& A, bool upper = false);

// Solves A X = B (left) or X A = B (right) for triangular A [*, n, n], reading
// only the triangle named by upper (and taking its diagonal as 1 when
// unitriangular). B is [*, n, k] (left) or [*, k, n] (right); it must be a
// matrix (use B.unsqueeze(-1) for a vector). No check for a zero diagonal.
Tensor solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left = true, bool unitriangular = false);

// Vector norm over dims ({} = all dims):
//   ord = p > 0 or p < 0 (sum |x|^p)^(1/p), inf max |x|, -inf min |x|, 0 number of non-zeros.
// Computed in float64 (float32 inputs and halves round once). Over zero
// elements (an empty x, or an empty reduced dim with other dims non-empty),
// ord = inf, -inf or any p < 0 raise ShapeError, as in PyTorch; ord = 0 and
// p > 0 give 0. Example: vector_norm(zeros({0}), -1) throws; vector_norm(
// zeros({3, 0}), 2, {1}) is [0, 0, 0]; vector_norm(zeros({0, 3}), -1, {1}) is [].
Tensor vector_norm(const Tensor& x, double ord = 2.0, Dims dims = {}, bool keepdim = false);

// Matrix norm over two dims (default the last two):
//   "fro" sqrt(sum |a|^2), "nuc" sum of singular values,
//   1 / -1 max / min column abs-sum, inf / -inf max / min row abs-sum,
//   2 / -2 largest / smallest singular value.
// Other values raise ValueError.
Tensor matrix_norm(const Tensor& A, std::string_view ord = "fro", Dims dims = {-2, -1}, bool keepdim = false);
Tensor matrix_norm(const Tensor& A, double ord, Dims dims = {-2, -1}, bool keepdim = false);

}  // namespace concord::linalg
