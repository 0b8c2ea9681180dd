// The small LU of lu_avx512.h in AVX2 registers (8 float / 4 double lanes):
// the same contract and the same bits (those of linalg_small.h's lu_small,
// so every ISA level and the reproducible mode agree). Unblocked below
// n = 24, blocked in 8-column panels from 24 to 128; what differs from the
// AVX-512 code (lu_avx512.cpp; both instantiate lu_blocked_impl.h):
//   - full panels move to and from their column-major copy by in-register
//     transposes instead of gathers (8 x 8 float32, 4 x 4 float64);
//   - the trailing update's register tiles are 6 rows x 16 columns (float32;
//     6 x 8 float64): 12 accumulators of the 16 registers;
//   - masked loads and stores (AVX2 has no mask registers: vmaskmov) only at
//     the ragged edges.
// No FMA: each update is a rounded product, then the difference.
// Returns getrf's info (first zero pivot, 1-based; 0 if none) and writes
// 1-based pivots. Reached through the AVX2 vec::Kernels table (vec_math.h),
// i.e. only when core/cpu_isa.h's level is avx2.
//
// Example (what vec::kernels().lu_f32 does at the avx2 level):
//   float a[64 * 64] = ...;  int32_t piv[64];
//   const int32_t info = lu_small_avx2(a, 64, piv);  // a: L (unit, below) and U
#pragma once

#include <cstdint>

namespace concord::detail::cpu {

int32_t lu_small_avx2(float* a, int64_t n, int32_t* piv);
int32_t lu_small_avx2(double* a, int64_t n, int32_t* piv);

}  // namespace concord::detail::cpu
