// Shared steps of the linear algebra front ends (linalg*.cpp).
//
// Every op is one dispatch (core/dispatch.h) whose body copies the operands
// ONCE to the plan's exec device (the CPU on a fallback, for the whole batch)
// as fresh contiguous [count, rows, cols] tensors in the kernel dtype
// (float32 or float64), runs the kernels in place on those copies and rounds
// the results to the input dtype; the dispatcher moves them back once.
#pragma once

#include <functional>
#include <string>

#include "concord/linalg.h"
#include "core/dispatch.h"

namespace concord::detail::la {

// "[linalg.solve]" etc. Every op name below is given without the prefix ("solve").
std::string tag(const char* op);
// "float32[2, 3, 3] on cpu" for messages.
std::string desc(const Tensor& t);

// ValueError for an undefined tensor; DtypeError (with the .to(float32) fix) for non-floating dtypes.
void check_floating(const char* op, const char* arg, const Tensor& t);
// DtypeError unless both have the same dtype.
void check_same_dtype(const char* op, const char* an, const Tensor& a, const char* bn, const Tensor& b);
// ShapeError unless t is [*, n, n]; returns n.
int64_t check_square(const char* op, const char* arg, const Tensor& t);

// t.shape without its last `last` dims.
Shape leading(const Shape& s, int64_t last);
Shape concat(const Shape& a, std::initializer_list<int64_t> tail);
// Broadcast of two batch shapes; ShapeError naming both operands otherwise.
Shape broadcast_batch(const char* op, const Shape& ba, const Tensor& a, const Shape& bb, const Tensor& b);

// float64 when the plan computes in float64, else float32 (halves widen).
Dtype kernel_dtype(const Plan& p);
// Where host-side steps (singular values) run: the exec device, whose memory must
// be host memory (a backend with device memory must not claim these ops: the
// dispatcher then runs them through the CPU fallback, and says so).
Device host_exec(const Plan& p);

// A fresh contiguous tensor of `shape` and dtype dt on `where`, holding t
// broadcast to shape; t moves to `where` unexpanded (one transfer at most).
// cast_first: let the plan's prepare_input move and cast t (floating operands).
Tensor working_copy(const Plan& p, const Tensor& t, const Shape& shape, Dtype dt, const Device& where,
                    bool cast_first = true);
// As working_copy, but returns the moved tensor itself when it already fits
// (for operands the kernel only reads).
Tensor read_copy(const Plan& p, const Tensor& t, const Shape& shape, Dtype dt, const Device& where,
                 bool cast_first = true);

// [count, r, c] view of a contiguous tensor.
Tensor as3(const Tensor& t, int64_t count, int64_t r, int64_t c);
// Zero-filled int32 info [count] on p's exec device (for empty matrices no kernel runs).
Tensor new_info(const Plan& p, int64_t count, bool zero);

// The result for the caller: viewed as shape, rounded to dtype where it is
// (the dispatcher moves it to the operands' device).
Tensor deliver(const Tensor& out, Dtype dtype, const Shape& shape);

// Throws LinAlgError for the first non-zero info (int32 [count] on any device):
//   "[linalg.op] (batch element i) <what(k)>; A is float32[...] on cpu. <advice>"
// The batch part is left out for a single matrix.
void check_info(const char* op, const Tensor& info, const Tensor& A, bool batched,
                const std::function<std::string(int32_t)>& what, const char* advice);

std::string singular_what(int32_t k);   // "the matrix is singular: U[k,k] is zero"

// LU of A's own batch on p's exec device: lu [count, n, n] (kernel dtype), pivots [count, n], info [count].
struct LU { Tensor lu, pivots, info; int64_t count, n; };
LU factor(const Plan& p, const Tensor& A);
// factor's tensors without the LU itself: lu holds A's working copy, info is
// zero-filled when there is nothing to factor (no matrix, or n = 0).
LU factor_inputs(const Plan& p, const Tensor& A);
// As factor_inputs for a backend step that copies A into lu itself
// (Backend::lu_factor_solve): src is A on the exec device in the kernel dtype
// [count, n, n], A's own memory when it already fits (then only read), and lu
// is src when src is a fresh copy, else a new uninitialised tensor.
LU factor_outputs(const Plan& p, const Tensor& A, Tensor& src);

}  // namespace concord::detail::la
