/* float64 pow and atan2 of the reproducible mode, written once
 * (canon_pow_f64.inc, over canon_num.h's kit) for the CPU (C++), OpenCL C and,
 * on the doubles' bits, Vulkan and OpenCL without float64 (xmath64_pow.glsl's
 * xe_pow, xe_atan2: the same body). It comes after canon_f64.h,
 * canon_f64_log.h and canon_pow.h in file-name order and reuses their
 * double-double exp, the two-sum, the log series' coefficients, the integer
 * test of pow's exponent and the atan(k/16) table.
 *
 *   double concord_pow_f64(double x, double y)     x to the power y
 *   double concord_atan2_f64(double y, double x)   the angle of (x, y)
 *
 * Contract: within 1 ULP of the true value (measured against long double
 * powl / atan2l over 5M pairs: pow 0.510 ULP on normal results, 0.748 on
 * subnormal ones, which are rounded twice; atan2 0.501 ULP),
 * the same bits on the CPU and on an OpenCL device with float64. Special
 * values are the C library's (C99 Annex F):
 *   pow(x, ±0) = 1 and pow(1, y) = 1, even for NaN; otherwise NaN in, NaN out;
 *   pow(-1, ±inf) = 1; pow(x, ±inf) = +0 or +inf by |x| < 1 and the sign of y;
 *   pow(±0, y): y < 0 gives ±inf for odd integers y, else +inf; y > 0 gives ±0
 *   for odd integers, else +0; pow(±inf, y) likewise with the roles swapped;
 *   x < 0 finite: (-1)^y |x|^y for integer y, NaN for non-integer y; results
 *   past the range overflow to ±inf and underflow to ±0 (subnormals between).
 *   atan2(±0, +0) = ±0, atan2(±0, -0) = ±pi, atan2(±0, x<0) = ±pi, atan2(±0,
 *   x>0) = ±0, atan2(y≠0, ±0) = ±pi/2, atan2(±inf, +inf) = ±pi/4, atan2(±inf,
 *   -inf) = ±3pi/4, atan2(y, +inf) = ±0 and atan2(y, -inf) = ±pi for finite
 *   y, atan2(±inf, finite x) = ±pi/2.
 * Example (C++): concord_pow_f64(-2.0, 3.0) == -8.0; concord_pow_f64(-8.0, 1.0 / 3) is NaN.
 *
 * pow: e^(y ln|x|). |y ln|x|| reaches 745 before the result leaves the range,
 * so ln|x| must be good to about 2^-70 relative (53 bits of the result, 10 of
 * the exponent, guard bits): ln|x| = k ln2 + 2 atanh(s), s = f / (2 + f),
 * f = m - 1, m in [sqrt(1/2), sqrt 2), with s, s^2, s^3 and the series' first
 * two coefficients (2/3, 2/5) in double-double and the rest (to s^27, the
 * truncation below 2^-72) in double, whose rounding is then below 2^-70 of
 * the whole. t = y ln|x| = th + tl by an fma; e^th from canon_f64.h's
 * double-double exp (about 2^-59), times 1 + tl, rounded once and scaled by
 * 2^k. Exact powers (pow(3, 2), pow(4, 0.5)) stay exact.
 * atan2: the smaller of |x|, |y| over the larger as a double-double quotient
 * a, atan(a) = atan(k/16) + atan(u), u = (a - k/16) / (1 + a k/16) in
 * double-double, |u| <= 1/32, the series to u^13; then pi - t, pi/2 ± t with
 * pi and pi/2 in two parts, everything summed in double-double and rounded
 * once. Where the quotient's remainder would be inexact (operands or quotient
 * near the subnormals) a is below 2^-69 and atan(a) is the rounded quotient.
 */
#ifndef CONCORD_CANON_POW_F64_H
#define CONCORD_CANON_POW_F64_H

#ifndef __OPENCL_VERSION__
#include "backend/common/canon_f64_log.h"
#include "backend/common/canon_pow.h"
#endif

#if CONCORD_CANON_F64
#define CONCORD_NUM_BITS 0
#include "backend/common/canon_num.h"
#undef CN_E
#define CN_E(name) concord_dd_##name
#define CN_POW_INT_KIND concord_pow_int_kind
#define CN_POW_TRUNC_INT concord_pow_trunc_int
#define CN_POW_HORNER concord_pow_horner
#define CN_POW_ATAN_HI concord_atan_hi
#define CN_POW_ATAN_LO concord_atan_lo
#include "backend/common/canon_pow_f64.inc"
#undef CN_POW_INT_KIND
#undef CN_POW_TRUNC_INT
#undef CN_POW_HORNER
#undef CN_POW_ATAN_HI
#undef CN_POW_ATAN_LO
#undef CN_E
#undef CONCORD_NUM_BITS

CONCORD_FN double concord_pow_f64(double x, double y) { return concord_dd_pow(x, y); }
CONCORD_FN double concord_atan2_f64(double y, double x) { return concord_dd_atan2(y, x); }

#endif /* CONCORD_CANON_F64 */
#endif /* CONCORD_CANON_POW_F64_H */
