// Right-looking LU with partial pivoting of one small row-major matrix,
// written for AVX-512 (the lu_small loop of linalg.cpp, the same operations in
// the same order, so the same bits on every ISA):
//   - each row update y -= l·x runs in 16/8-lane vectors, the tail as one
//     more vector ending at the row's end (most rows of a 64 x 64 LU have a
//     tail; the compiled loop ran it in scalar code);
//   - the pivot search of column k+1 rides on the update of column k (the
//     first largest |a|, as LAPACK's idamax), saving a strided pass per column;
//   - from n = 48 it is blocked: 8-column panels factored in a column-major
//     copy (each step one pass over the rows: divide, update the panel's
//     columns right of it, the next pivot's first search pass), the panel's
//     rows right of it kept in registers for all its steps, then the rows
//     below updated by register tiles that apply a whole panel's steps to
//     each element in turn (each element still gets its steps' operations in
//     ascending order: the same bits; 1.1-1.4x faster at n = 64, 1.3-1.5x at
//     100-128; the one-pass steps and register U12 another 1.2-1.4x at 64).
// The algorithm is lu_blocked_impl.h, shared with AVX2 (lu_avx2.h).
// Returns getrf's info (first zero pivot, 1-based; 0 if none) and writes
// 1-based pivots. Reached through the AVX-512 vec::Kernels table (vec_math.h),
// i.e. only when core/cpu_isa.h's level is avx512.
#pragma once

#include <cstdint>

namespace concord::detail::cpu {

int32_t lu_small_avx512(float* a, int64_t n, int32_t* piv);
int32_t lu_small_avx512(double* a, int64_t n, int32_t* piv);

}  // namespace concord::detail::cpu
