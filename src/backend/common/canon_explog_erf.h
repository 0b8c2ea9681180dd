/* float32 erf and gelu of the reproducible mode (and the double erf / erfc
 * they are built on), written once (canon_explog_erf.inc, over canon_num.h's
 * kit) for the CPU (C++), OpenCL C and, on the doubles' bits, Vulkan and
 * OpenCL without float64 (xmath32_erf.glsl's xm_erf, xm_gelu, xm_erf_d,
 * xm_erfc_d: the same body).
 *
 *   double concord_erf_d(double x)     erf(x)
 *   double concord_erfc_d(double z)    erfc(z); 0 for z >= 26 (erfc(26)
 *                                            < 6e-296, below every float result)
 *   float  concord_erf_f32(float x)    erf(x), double inside, rounded once
 *   float  concord_gelu_f32(float x)   x/2 * erfc(-x/sqrt2), the same
 *
 * Method (+ - * /, sqrt and fma only, so the same bits everywhere):
 *   |x| < 2   erf(x) = 2/sqrt(pi) x e^(-x^2) sum_n (2x^2)^n / (2n+1)!!
 *             (all terms positive: no cancellation), erfc = 1 - erf
 *             (erfc(2) = 0.0047: at most ~8 bits of cancellation);
 *   |x| >= 2  erfc(x) = e^(-x^2)/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + ...))))
 *             (the continued fraction, evaluated bottom-up over a number
 *             of levels that depends on x), erf = 1 - erfc;
 *   e^(-x^2)  with x^2 = hi + lo split by fma, e^(-hi) (1 - lo).
 * Series and fraction are truncated at ~1e-16 relative; the double results
 * are good to 1.2e-13 relative (against long double over [-7, 26]; the
 * worst: erfc just below 2), so the float results are within 1 ULP and
 * correctly rounded on every float32 checked.
 *
 * gelu uses erfc, not 1 + erf (which cancels for x < 0): the float result
 * keeps its accuracy down to where it underflows (x ~ -14). Special values
 * follow the C library / the CPU's default kernel: erf(+-0) = +-0,
 * erf(+-inf) = +-1, gelu(+-0) = +-0, gelu(+inf) = +inf, gelu(-inf) = -0,
 * NaN in, NaN out.
 *
 * Example: concord_erf_f32(0.5f) == 0.5204999f; concord_gelu_f32(1.0f) == 0.84134477f.
 * Needs double: under OpenCL only where CONCORD_CANON_F64 is 1.
 */
#ifndef CONCORD_CANON_EXPLOG_ERF_H
#define CONCORD_CANON_EXPLOG_ERF_H

#ifndef __OPENCL_VERSION__
#include "backend/common/canon_base.h"
#include "backend/common/canon_explog.h"
#endif

#if CONCORD_CANON_F64
#define CONCORD_NUM_BITS 0
#include "backend/common/canon_num.h"
#define CN_XL_EXPM1_SMALL concord_xl_expm1_small
#define CN_ERF_COEF concord_erf_odd_fact_inv
#define CN_ERF_EXP_NEG concord_erf_exp_neg
#define CN_ERF_GAUSS concord_erf_gauss
#define CN_ERF_SERIES concord_erf_series
#define CN_ERF_FRACTION concord_erf_fraction
#define CN_ERFC_D concord_erfc_d
#define CN_ERF_D concord_erf_d
#define CN_ERF_F32 concord_erf_f32
#define CN_GELU_F32 concord_gelu_f32
#include "backend/common/canon_explog_erf.inc"
#undef CN_XL_EXPM1_SMALL
#undef CN_ERF_COEF
#undef CN_ERF_EXP_NEG
#undef CN_ERF_GAUSS
#undef CN_ERF_SERIES
#undef CN_ERF_FRACTION
#undef CN_ERFC_D
#undef CN_ERF_D
#undef CN_ERF_F32
#undef CN_GELU_F32
#undef CONCORD_NUM_BITS
#endif /* CONCORD_CANON_F64 */

#endif /* CONCORD_CANON_EXPLOG_ERF_H */
