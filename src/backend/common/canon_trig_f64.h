/* float64 sin, cos and tan of the reproducible mode, written once
 * (canon_trig_f64.inc, over canon_num.h's kit, after canon_f64.h's pieces)
 * for the CPU (C++), OpenCL C and, on the doubles' bits, Vulkan and OpenCL
 * without float64 (xmath64_trig.glsl's xe_sin, ...: the same body);
 * canon_trig.h holds the float32 ones.
 *
 *   double concord_sin_f64(double x)    sin(x)
 *   double concord_cos_f64(double x)    cos(x)
 *   double concord_tan_f64(double x)    tan(x)
 *
 * Contract: within 1 ULP of the true value for every double, with only
 * + - * /, fma and integer operations, so the CPU and an OpenCL device with
 * float64 give the same bits. Measured maxima against long double over 21M
 * arguments (bit patterns on every exponent, the doubles nearest k pi/2):
 * sin 0.515, cos 0.513, tan 0.523 ULP; at the known worst case of the
 * reduction, 0x1.6ac5b262ca1ffp+849 (about 2^-61 from a multiple of pi/2),
 * all three are correctly rounded (checked with mpmath).
 * Special values are the C library's: sin/tan(+-0) = +-0, cos(+-0) = 1,
 * +-inf and NaN give NaN, |x| < 2^-27 gives x for sin and tan and 1 for cos.
 * Example (C++): concord_sin_f64(1e300) == -0.8178819121159085 (as sin()).
 *
 * Method: r = x - q pi/2 with |r| <= pi/4 as a double-double rh + rl. Below
 * 2^20 Cody-Waite with pi/2 in three doubles (the first step an exact fma,
 * the products' errors caught by fma); above, Payne-Hanek: the 53-bit
 * significand times a 224-bit window of 2/pi in integer arithmetic, of which
 * 2 integer and 190 fraction bits are kept (the closest double to a multiple
 * of pi/2 is about 2^-61 away, so >= 128 significant bits remain). Then
 * sin(r) = r - r^3/6 + r^5 P(r^2) and cos(r) = 1 - r^2/2 + r^4/24 + r^6 Q(r^2):
 * the named terms in double-double, the Taylor tails P, Q (to r^19, r^18) in
 * double, every result a double-double good to about 2^-60 relative, rounded
 * once; tan = sin / cos as a double-double quotient (fma remainder).
 */
#ifndef CONCORD_CANON_TRIG_F64_H
#define CONCORD_CANON_TRIG_F64_H

#ifndef __OPENCL_VERSION__
#include "backend/common/canon_f64.h"
#endif

#if CONCORD_CANON_F64
#define CONCORD_NUM_BITS 0
#include "backend/common/canon_num.h"
#undef CN_E
#define CN_E(name) concord_dd_##name
#include "backend/common/canon_trig_f64.inc"
#undef CN_E
#undef CONCORD_NUM_BITS

CONCORD_FN double concord_sin_f64(double x) { return concord_dd_trig(0, x); }
CONCORD_FN double concord_cos_f64(double x) { return concord_dd_trig(1, x); }
CONCORD_FN double concord_tan_f64(double x) { return concord_dd_trig(2, x); }

#endif /* CONCORD_CANON_F64 */
#endif /* CONCORD_CANON_TRIG_F64_H */
