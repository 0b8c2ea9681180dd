// cpu_math.cl — the CPU's float32 sigmoid, tanh and log in OpenCL C, operation
// for operation (backend/cpu/vec_impl_math.h), so their bits: the body
// common/canon_cpu_math.inc natively (Vulkan's "_x" variants and OpenCL
// without float64 run it on bits, xmath32.glsl). float64 inside, so only with
// CONCORD_HAS_FP64. Prepended to every program after common.cl (backend.cpp);
// used by elementwise.cl (both modes) and reduce.cl (logsumexp, log_softmax).
//
//   log_f32_cpu(x), tanh_f32_cpu(x), sigmoid_f32_cpu(x)   float -> float
//   exp_d(x), expm1_d(x)                                   the float64 helpers
#if CONCORD_HAS_FP64
#define CONCORD_NUM_BITS 0
#include "canon_num.h"
#undef CN_C
#define CN_C(name) concord_cm_##name
#include "canon_cpu_math.inc"
#undef CN_C
#undef CONCORD_NUM_BITS
static inline double exp_d(double x) { return concord_cm_exp_d(x); }
static inline double expm1_d(double x) { return concord_cm_expm1_d(x); }
static inline float sigmoid_f32_cpu(float x) { return concord_cm_sigmoid(x); }
static inline float tanh_f32_cpu(float x) { return concord_cm_tanh(x); }
static inline float log_f32_cpu(float x) { return concord_cm_log(x); }
#endif
