// The vectorised kernels of vec_math.h for AVX-512 (16 float lanes).
// Built with -mavx512f -mavx512vl -mavx512bw -mavx512dq -mf16c (CMakeLists.txt);
// only called when the CPU has them.
#define VEC_NS avx512_isa
#define VEC_W 16
#define VEC_F16C 1
#define VEC_ISA Isa::avx512
#define VEC_NAME "avx512"
#define VEC_TABLE kAvx512Kernels
// The LU written for AVX-512 (masked row tails, fused pivot search, blocked from n = 48).
#include "backend/cpu/lu_avx512.h"
#define VEC_LU_F32 static_cast<int32_t (*)(float*, int64_t, int32_t*)>(&::concord::detail::cpu::lu_small_avx512)
#define VEC_LU_F64 static_cast<int32_t (*)(double*, int64_t, int32_t*)>(&::concord::detail::cpu::lu_small_avx512)
#include "backend/cpu/vec_impl.h"
