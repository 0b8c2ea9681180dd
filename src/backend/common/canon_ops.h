/* The shared elementwise ops (canon_ops.inc) on native float/double: the
 * CPU's kernels and OpenCL's with float64. xops.glsl is the same body on the
 * bits (Vulkan; OpenCL without float64), so every device gives these bits.
 *
 *   double concord_hypot_f64(double x, double y)      sqrt(x^2 + y^2)
 *   double concord_logaddexp_f64(double x, double y)  ln(e^x + e^y)
 *   double concord_copysign_f64(double x, double y)   |x| with y's sign
 *   double concord_nextafter_f64(double x, double y)  the next double toward y
 *   float concord_<op>_f32(float x, float y, int fmt) the same in float32;
 *       fmt (CONCORD_OPS_FMT_F32, _F16, _BF16): the format x and y came from,
 *       so that nextafter of a float16 value is the next float16
 *
 * Accuracy (measured over millions of inputs against long double): hypot is
 * correctly rounded in practice (float32: the double result rounded once);
 * logaddexp is correctly rounded in practice in float32, and in float64 within
 * 1.5 ulp of |max(x, y)| + log1p(e^-|x - y|): of the result itself except near
 * a zero result (x and y both near -ln 2), where the function is
 * ill-conditioned. copysign and nextafter are exact.
 *
 * Example: concord_hypot_f64(3.0, 4.0) == 5.0;
 *          concord_nextafter_f32(1.0f, 2.0f, CONCORD_OPS_FMT_F16) == 1.0009765625f.
 * Needs double: under OpenCL only where CONCORD_CANON_F64 is 1.
 */
#ifndef CONCORD_CANON_OPS_H
#define CONCORD_CANON_OPS_H

#ifndef __OPENCL_VERSION__
#include "backend/common/canon_base.h"
#include "backend/common/canon_f64.h"
#include "backend/common/canon_f64_log.h"
#endif

#if CONCORD_CANON_F64
#define CONCORD_NUM_BITS 0
#include "backend/common/canon_num.h"
#define CN_EW(name) concord_##name
#define CN_EW_EXP_D concord_exp_f64
#define CN_EW_LOG1P_D concord_log1p_f64
#include "backend/common/canon_ops.inc"
#undef CN_EW
#undef CN_EW_EXP_D
#undef CN_EW_LOG1P_D
#undef CONCORD_NUM_BITS
#endif /* CONCORD_CANON_F64 */

#endif /* CONCORD_CANON_OPS_H */
