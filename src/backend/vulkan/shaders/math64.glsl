// shaders/math64.glsl — float64 math for elementwise_float.glsl and
// reduce_ops.glsl in the default mode: the reproducible mode's bodies
// (backend/common/canon_f64*.inc, canon_trig_f64.inc, canon_pow_f64.inc)
// instantiated a third time, on the device's doubles (GLSL has no double
// exp, log or sin). One algorithm for every backend: the double-double
// methods and their specials are described in backend/common/canon_f64*.h.
//
// Accuracy: within 1 ULP where the device's double + - * are IEEE, its fma
// fused and its subnormals kept (lavapipe; NVIDIA's drivers); the Vulkan
// spec allows less (2.5 ULP division and sqrt, an unfused fma, flushed
// subnormals), which the double-double corrections and the op table's
// ulp(4) absorb. The result is then often the CPU's bits, but only the
// reproducible mode's "_x" variants promise that.
#ifndef CONCORD_MATH64_GLSL
#define CONCORD_MATH64_GLSL

#include "backend/common/canon_f64.h"
#include "backend/common/canon_f64_log.h"
#include "backend/common/canon_f64_erf.h"
#include "backend/common/canon_trig_f64.h"
#include "backend/common/canon_pow.h"
#include "backend/common/canon_pow_f64.h"

#define d_exp concord_exp_f64
#define d_expm1 concord_expm1_f64
#define d_log concord_log_f64
#define d_log1p concord_log1p_f64
#define d_log2 concord_log2_f64
#define d_tanh concord_tanh_f64
#define d_sigmoid concord_sigmoid_f64
#define d_sin concord_sin_f64
#define d_cos concord_cos_f64
#define d_tan concord_tan_f64
#define d_erf concord_erf_f64
#define d_gelu concord_gelu_f64
#define d_atan2 concord_atan2_f64
#define d_pow concord_pow_f64

#endif
