// The vectorised kernels of vec_math.h for AVX2 + F16C (8 float lanes).
// Built with -mavx2 -mf16c (CMakeLists.txt); only called when the CPU has both.
#define VEC_NS avx2_isa
#define VEC_W 8
#define VEC_F16C 1
#define VEC_ISA Isa::avx2
#define VEC_NAME "avx2"
#define VEC_TABLE kAvx2Kernels
// The LU written for AVX2 (lu_avx512.h's blocked LU in 8-lane registers).
#include "backend/cpu/lu_avx2.h"
#define VEC_LU_F32 static_cast<int32_t (*)(float*, int64_t, int32_t*)>(&::concord::detail::cpu::lu_small_avx2)
#define VEC_LU_F64 static_cast<int32_t (*)(double*, int64_t, int32_t*)>(&::concord::detail::cpu::lu_small_avx2)
#include "backend/cpu/vec_impl.h"
