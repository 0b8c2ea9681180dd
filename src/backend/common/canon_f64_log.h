/* float64 log, log1p and log2 of the reproducible mode, written once
 * (canon_f64_log.inc, over canon_num.h's kit, after canon_f64.h's pieces) for
 * the CPU (C++), OpenCL C and, on the doubles' bits, Vulkan and OpenCL
 * without float64 (xmath64_log.glsl's xe_log, ...: the same body).
 *
 * Contract: within 1 ULP of the true value (measured maxima against long
 * double over 7M arguments on every exponent and around the branch points:
 * log 0.534, log1p 0.548, log2 0.528 ULP), same bits on the CPU and
 * on an OpenCL device with float64. Special values are the C library's:
 *   log, log2: (+-0) = -inf, (x < 0) = NaN, (+inf) = +inf, (1) = +0;
 *              log2(2^k) = k exactly; subnormals are accepted
 *   log1p:     (+-0) = +-0, (-1) = -inf, (x < -1) = NaN, (+inf) = +inf
 * Example (C++): double y = concord_log2_f64(8.0);   // 3.0
 *
 * Method: x = 2^k m with m in [sqrt(1/2), sqrt 2), f = m - 1 (exact),
 * log m = 2 atanh(s), s = f / (2 + f) carried as sh + sl (fma remainder);
 * log m = 2 sh + (2 sl + sh^3 P(sh^2)), P to s^21 (truncation < 2^-60 of
 * the result). The pieces are summed in double-double and rounded once.
 */
#ifndef CONCORD_CANON_F64_LOG_H
#define CONCORD_CANON_F64_LOG_H

#ifndef __OPENCL_VERSION__
#include "backend/common/canon_f64.h"
#endif

#if CONCORD_CANON_F64
#define CONCORD_NUM_BITS 0
#include "backend/common/canon_num.h"
#undef CN_E
#define CN_E(name) concord_dd_##name
#include "backend/common/canon_f64_log.inc"
#undef CN_E
#undef CONCORD_NUM_BITS

/* ln2 = LN2HI + LN2LO (canon_pow_f64.h's names) */
#define CONCORD_F64_LN2HI concord_bits_f64(CONCORD_XE_LN2HI)
#define CONCORD_F64_LN2LO concord_bits_f64(CONCORD_XE_LN2LO)

CONCORD_FN double concord_log_f64(double x) { return concord_dd_logs(0, x); }
CONCORD_FN double concord_log1p_f64(double x) { return concord_dd_logs(1, x); }
CONCORD_FN double concord_log2_f64(double x) { return concord_dd_logs(2, x); }

#endif /* CONCORD_CANON_F64 */
#endif /* CONCORD_CANON_F64_LOG_H */
