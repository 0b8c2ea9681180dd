// The small LU of lu_avx512.h in AVX2 registers (8 float / 4 double lanes):
// the same contract and the same bits (those of linalg_small.h's lu_small,
// so every ISA level and the reproducible mode agree), unblocked below
// n = 48, blocked in 8-column panels from 48 to 128. No FMA: each update is
// a rounded product, then the difference.
// Returns getrf's info (first zero pivot, 1-based; 0 if none) and writes
// 1-based pivots. Reached through the AVX2 vec::Kernels table (vec_math.h),
// i.e. only when core/cpu_isa.h's level is avx2.
#pragma once

#include <cstdint>

namespace concord::detail::cpu {

int32_t lu_small_avx2(float* a, int64_t n, int32_t* piv);
int32_t lu_small_avx2(double* a, int64_t n, int32_t* piv);

}  // namespace concord::detail::cpu
