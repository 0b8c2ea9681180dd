// backend/cpu/gemm_canon.h — the reproducible mode's float GEMM on the CPU:
// out = alpha·(a @ b) + beta·out with one canonical order of operations, so
// that every device that runs the mode's matmul gives these bits.
//
// The order, per output element (i, j), for K > 0:
//   acc = -0;  for k = 0 .. K-1:  acc = fma(a[i,k], b[k,j], acc)   (in order)
//   r = alpha·acc;  if beta != 0:  r = r + beta·out[i,j]            (no fusing)
//   out[i,j] = r rounded once to out's dtype
// in float64 for float64 and in float32 for float32, float16 and bfloat16
// (halves are widened exactly; alpha and beta are rounded to the compute
// type first). Starting from -0 makes the first step the rounded product and
// keeps the sign of an all-(-0) sum. fma is correctly rounded wherever the
// mode runs: the FMA instruction here, OpenCL C's fma (kernels/linear.cl,
// matmul_canon) on OpenCL devices, the integer xf_fma of xf32.glsl (xd_fma
// of xf64.glsl for float64) on Vulkan (shaders/gemm_canon.comp). K == 0 is
// the backends' empty-sum path (beta·out), as outside the mode.
//
// The sums are never split along K (k-blocks carry the exact partial sum from
// one block to the next), so the bits do not depend on the thread count, the
// blocking or the ISA level: AVX-512 and AVX2+FMA register tiles and a scalar
// std::fma loop (baseline, or a CPU without FMA) all run the same chain.
//
//   ReproducibleGuard on(true);
//   Tensor c = matmul(a, b);   // the CPU backend calls gemm_canon here
#pragma once

#include <cstdint>

#include "concord/tensor.h"

namespace concord::detail::cpu {

// a [B, M, K], b [B, K, N] (any strides; batch stride 0 broadcasts), out
// [B, M, N] contiguous, all of one floating dtype; K > 0.
void gemm_canon(const Tensor& a, const Tensor& b, const Tensor& out, double alpha, double beta);

// Register-tile kernels of one ISA level: for a packed A panel (kc x mr,
// element (i, k) at Ap[k·mr + i]) and B panel (kc x nr, (k, j) at Bp[k·nr + j]),
// continues the chain of every element of the mr x nr tile at C (row stride
// ldc): C[i·ldc + j] = fma(Ap, Bp, C[...]) for k = 0 .. kc-1 in order.
template <class T>
using CanonMicro = void (*)(int64_t kc, const T* Ap, const T* Bp, T* C, int64_t ldc);
struct CanonKernels {
  int mr32, nr32, mr64, nr64;
  CanonMicro<float> f32;
  CanonMicro<double> f64;
};
// nullptr where the build or the CPU lacks the level (AVX2 also needs FMA).
const CanonKernels* canon_kernels_avx512();
const CanonKernels* canon_kernels_avx2();

}  // namespace concord::detail::cpu
