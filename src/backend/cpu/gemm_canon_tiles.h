// backend/cpu/gemm_canon_tiles.h — the register tiles of gemm_canon.h for one
// vector width, included by gemm_canon_avx512.cpp and gemm_canon_avx2.cpp
// (each compiled for its ISA) with V, the vector traits:
//   V::F, V::D         float32 / float64 vector types, V::kF / V::kD lanes
//   loadf/storef/bcastf/fmaf and loadd/stored/bcastd/fmad
// A tile is MR rows x 2 vectors; each accumulator is one element's chain.
#pragma once

#include <cstdint>

namespace concord::detail::cpu::canon_tiles {

template <class V, int MR>
void tile_f32(int64_t kc, const float* Ap, const float* Bp, float* C, int64_t ldc) {
  constexpr int W = V::kF, NR = 2 * W;
  typename V::F acc[MR][2];
  for (int i = 0; i < MR; ++i) {
    acc[i][0] = V::loadf(C + i * ldc);
    acc[i][1] = V::loadf(C + i * ldc + W);
  }
  for (int64_t k = 0; k < kc; ++k) {
    const typename V::F b0 = V::loadf(Bp + k * NR), b1 = V::loadf(Bp + k * NR + W);
    for (int i = 0; i < MR; ++i) {
      const typename V::F a = V::bcastf(Ap[k * MR + i]);
      acc[i][0] = V::fmaf(a, b0, acc[i][0]);
      acc[i][1] = V::fmaf(a, b1, acc[i][1]);
    }
  }
  for (int i = 0; i < MR; ++i) {
    V::storef(C + i * ldc, acc[i][0]);
    V::storef(C + i * ldc + W, acc[i][1]);
  }
}

template <class V, int MR>
void tile_f64(int64_t kc, const double* Ap, const double* Bp, double* C, int64_t ldc) {
  constexpr int W = V::kD, NR = 2 * W;
  typename V::D acc[MR][2];
  for (int i = 0; i < MR; ++i) {
    acc[i][0] = V::loadd(C + i * ldc);
    acc[i][1] = V::loadd(C + i * ldc + W);
  }
  for (int64_t k = 0; k < kc; ++k) {
    const typename V::D b0 = V::loadd(Bp + k * NR), b1 = V::loadd(Bp + k * NR + W);
    for (int i = 0; i < MR; ++i) {
      const typename V::D a = V::bcastd(Ap[k * MR + i]);
      acc[i][0] = V::fmad(a, b0, acc[i][0]);
      acc[i][1] = V::fmad(a, b1, acc[i][1]);
    }
  }
  for (int i = 0; i < MR; ++i) {
    V::stored(C + i * ldc, acc[i][0]);
    V::stored(C + i * ldc + W, acc[i][1]);
  }
}

}  // namespace concord::detail::cpu::canon_tiles
