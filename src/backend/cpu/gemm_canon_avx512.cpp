// The AVX-512 register tiles of the reproducible GEMM (gemm_canon.h): 12 rows
// x 32 float32 (16 float64) columns, 24 accumulators of the 32 registers.
#include <immintrin.h>

#include "backend/cpu/gemm_canon.h"
#include "backend/cpu/gemm_canon_tiles.h"
#include "core/cpu_isa.h"

namespace concord::detail::cpu {
namespace {
struct V512 {
  using F = __m512;
  using D = __m512d;
  static constexpr int kF = 16, kD = 8;
  static F loadf(const float* p) { return _mm512_loadu_ps(p); }
  static void storef(float* p, F v) { _mm512_storeu_ps(p, v); }
  static F bcastf(float x) { return _mm512_set1_ps(x); }
  static F fmaf(F a, F b, F c) { return _mm512_fmadd_ps(a, b, c); }
  static D loadd(const double* p) { return _mm512_loadu_pd(p); }
  static void stored(double* p, D v) { _mm512_storeu_pd(p, v); }
  static D bcastd(double x) { return _mm512_set1_pd(x); }
  static D fmad(D a, D b, D c) { return _mm512_fmadd_pd(a, b, c); }
};
constexpr int kMR = 12;
}  // namespace

const CanonKernels* canon_kernels_avx512() {
  static const CanonKernels k{kMR, 2 * V512::kF, kMR, 2 * V512::kD, canon_tiles::tile_f32<V512, kMR>,
                              canon_tiles::tile_f64<V512, kMR>};
  return cpu_features().avx512 ? &k : nullptr;
}

}  // namespace concord::detail::cpu
