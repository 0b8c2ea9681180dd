// The vectorised kernels of vec_math.h for baseline x86-64 (SSE2, 4 float lanes).
#define VEC_NS generic_isa
#define VEC_W 4
#define VEC_F16C 0
#define VEC_ISA Isa::baseline
#define VEC_NAME "baseline"
#define VEC_TABLE kGenericKernels
#include "backend/cpu/vec_impl.h"
