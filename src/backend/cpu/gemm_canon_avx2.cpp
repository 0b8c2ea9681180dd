// The AVX2 + FMA register tiles of the reproducible GEMM (gemm_canon.h): 6
// rows x 16 float32 (8 float64) columns, 12 accumulators of the 16 registers.
// Built with -mavx2 -mfma; used only where the CPU has both.
#include <immintrin.h>

#include "backend/cpu/gemm_canon.h"
#include "backend/cpu/gemm_canon_tiles.h"
#include "core/cpu_isa.h"

namespace concord::detail::cpu {
namespace {
struct V256 {
  using F = __m256;
  using D = __m256d;
  static constexpr int kF = 8, kD = 4;
  static F loadf(const float* p) { return _mm256_loadu_ps(p); }
  static void storef(float* p, F v) { _mm256_storeu_ps(p, v); }
  static F bcastf(float x) { return _mm256_set1_ps(x); }
  static F fmaf(F a, F b, F c) { return _mm256_fmadd_ps(a, b, c); }
  static D loadd(const double* p) { return _mm256_loadu_pd(p); }
  static void stored(double* p, D v) { _mm256_storeu_pd(p, v); }
  static D bcastd(double x) { return _mm256_set1_pd(x); }
  static D fmad(D a, D b, D c) { return _mm256_fmadd_pd(a, b, c); }
};
constexpr int kMR = 6;
}  // namespace

const CanonKernels* canon_kernels_avx2() {
  static const CanonKernels k{kMR, 2 * V256::kF, kMR, 2 * V256::kD, canon_tiles::tile_f32<V256, kMR>,
                              canon_tiles::tile_f64<V256, kMR>};
  static const bool fma = __builtin_cpu_supports("fma");
  return cpu_features().avx2 && fma ? &k : nullptr;
}

}  // namespace concord::detail::cpu
