// bfloat16 matrix product on the AVX512-BF16 dot-product instruction
// (VDPBF16PS): a float32 sum of exact bfloat16 products, twice the multiply-add
// rate of float32 FMA, read straight from bfloat16 operands (no widened copy).
//
// Contract:
//   gemm_bf16(M, N, K, a, b, out) forms S(i,j) = Σ_k a(i,k)·b(k,j) in float32 and
//   writes, for an M x N row-major output,
//     {.part = c}   c[i*N + j] = S(i,j)                          (float32), or
//     {.bf16 = o}   o[i*N + j] = bf16(alpha·S(i,j) + beta·o[i*N + j])
//                   (in float32, products rounded, no FMA, one rounding on store;
//                   beta == 0 never reads o, alpha == 1 skips the multiply).
//   a and b are read through element strides (a(i,k) = a.p[i*a.rs + k*a.cs]),
//   so transposed views need no copy. K == 0 writes nothing (an empty sum is
//   the caller's).
//   - Every product is exact; the sum runs over k in ascending order of pairs,
//     in one thread per output element: the same bits for any thread count.
//   - The instruction treats subnormal inputs and subnormal partial sums as
//     zero (|x| < 2^-126); everything else is IEEE float32 with round to nearest even.
//     gemm_bf16_exact() says when that cannot happen: callers take another
//     path otherwise (a subnormal input, or a product that could fall below
//     2^-126, would be lost without a trace).
//   - Runs on the calling thread inside a parallel region, on all threads otherwise.
//   - Only call it when gemm_bf16_available() (the CPU has AVX512-BF16 and the
//     instruction-set level, core/cpu_isa.h, is avx512).
// Example:
//   if (gemm_bf16_available()) gemm_bf16(M, N, K, {pa, K, 1}, {pb, 1, K}, {.part = c});  // a @ bᵀ
#pragma once

#include <cstdint>

namespace concord::detail::cpu {

struct Bf16Mat {
  const uint16_t* p;
  int64_t rs, cs;  // element strides of rows and columns
};

// Where the result goes: float32 sums (part) or a bfloat16 result (bf16); ld is set by gemm_bf16.
struct GemmOut {
  float* part = nullptr;
  uint16_t* bf16 = nullptr;
  float alpha = 1.0f, beta = 0.0f;
  int64_t ld = 0;
};

bool gemm_bf16_available();

// The smallest exponent field (bits 7..14) among the nonzero elements of an
// R x C bfloat16 matrix: 0 when one is subnormal, 255 when none is nonzero.
int bf16_min_exponent(Bf16Mat m, int64_t R, int64_t C);
// True when operands whose smallest exponent fields are ea and eb give IEEE
// float32's sums on the instruction: no input is subnormal and every product
// is a multiple of 2^-126 (the product's last bit is 2^(ea+eb-254-14)), so
// every partial sum is 0 or at least 2^-126 and nothing is flushed.
//   gemm_bf16_exact(bf16_min_exponent(a, M, K), bf16_min_exponent(b, K, N))
inline bool gemm_bf16_exact(int ea, int eb) { return ea >= 1 && eb >= 1 && ea + eb >= 142; }

void gemm_bf16(int64_t M, int64_t N, int64_t K, Bf16Mat a, Bf16Mat b, GemmOut out);

}  // namespace concord::detail::cpu
