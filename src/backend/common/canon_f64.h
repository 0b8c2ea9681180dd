/* float64 exp, expm1, tanh and sigmoid of the reproducible mode, written once
 * (canon_f64.inc, over canon_num.h's kit) for the CPU (C++), OpenCL C and, on
 * the doubles' bits, Vulkan and OpenCL without float64 (xmath64.glsl's
 * xe_exp, ...: the same body). canon_f64_log.h holds log, log1p and log2.
 *
 * Contract: every function maps a double to a double within 1 ULP of the true
 * value, with only + - * /, fma and bit operations, so the CPU and an OpenCL
 * device with float64 give the same bits. Measured maxima against long double
 * over 7M arguments on every exponent and around the branch points:
 * exp 0.510, expm1 0.564, tanh 0.561, sigmoid 0.510 ULP; 0.750 for exp and
 * sigmoid where the result is subnormal (rounded twice: to 53 bits, then to
 * the subnormal's precision).
 * Special values are the C library's:
 *   exp:     exp(+-0) = 1, exp(-inf) = +0, exp(+inf) = +inf, overflow past
 *            709.78 to +inf, underflow below -745.13 to +0 (subnormals between)
 *   expm1:   expm1(+-0) = +-0, expm1(-inf) = -1, expm1(+inf) = +inf
 *   tanh:    tanh(+-0) = +-0, tanh(+-inf) = +-1
 *   sigmoid: 1 / (1 + exp(-x)); sigmoid(+-0) = 0.5, (-inf) = +0, (+inf) = 1,
 *            and the subnormal results of x in [-745, -708] are kept
 *   NaN in, NaN out (payload free: the mode makes NaNs canonical).
 * Example (C++): double y = concord_exp_f64(1.0);   // 2.718281828459045
 *
 * Method: x = (64 k + j) ln2/64 + r with |r| <= ln2/128 carried as rh + rl
 * (ln2/64 in two parts, the first short so kd * ln2hi/64 is exact); exp(x) =
 * 2^k 2^(j/64) (1 + r + p(r)), the table 2^(j/64) held as hi + lo, p the
 * Taylor series from r^2 to r^6. expm1 near 0 (|x| < 0.125) sums its Taylor
 * series to x^13 instead, free of cancellation. Results are assembled in
 * double-double (two-sum, fma remainders) and rounded once; 2^k is applied in
 * two exact steps, so a subnormal result rounds once more only.
 */
#ifndef CONCORD_CANON_F64_H
#define CONCORD_CANON_F64_H

#ifndef __OPENCL_VERSION__
#include "backend/common/canon_base.h"
#endif

#if CONCORD_CANON_F64
#define CONCORD_NUM_BITS 0
#include "backend/common/canon_num.h"
#undef CN_E
#define CN_E(name) concord_dd_##name
#include "backend/common/canon_f64.inc"
#undef CN_E

CONCORD_FN double concord_exp_f64(double x) { return concord_dd_exp(x); }
CONCORD_FN double concord_expm1_f64(double x) { return concord_dd_expm1(x); }
CONCORD_FN double concord_tanh_f64(double x) { return concord_dd_tanh(x); }
CONCORD_FN double concord_sigmoid_f64(double x) { return concord_dd_sigmoid(x); }

#undef CONCORD_NUM_BITS
#endif /* CONCORD_CANON_F64 */
#endif /* CONCORD_CANON_F64_H */
