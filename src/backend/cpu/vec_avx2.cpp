// The vectorised kernels of vec_math.h for AVX2 + F16C (8 float lanes).
// Built with -mavx2 -mf16c (CMakeLists.txt); only called when the CPU has both.
#define VEC_NS avx2_isa
#define VEC_W 8
#define VEC_F16C 1
#define VEC_ISA Isa::avx2
#define VEC_NAME "avx2"
#define VEC_TABLE kAvx2Kernels
#include "backend/cpu/vec_impl.h"
