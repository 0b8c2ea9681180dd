// The vectorised kernels of vec_math.h for AVX-512 (16 float lanes).
// Built with -mavx512f -mavx512vl -mavx512bw -mavx512dq -mf16c (CMakeLists.txt);
// only called when the CPU has them.
#define VEC_NS avx512_isa
#define VEC_W 16
#define VEC_F16C 1
#define VEC_ISA Isa::avx512
#define VEC_NAME "avx512"
#define VEC_TABLE kAvx512Kernels
#include "backend/cpu/vec_impl.h"
