/* float64 erf and gelu of the reproducible mode, written once
 * (canon_f64_erf.inc, over canon_num.h's kit, after canon_f64.h's pieces) for
 * the CPU (C++), OpenCL C and, on the doubles' bits, Vulkan and OpenCL
 * without float64 (xmath64_erf.glsl's xe_erf, xe_gelu: the same body).
 *
 *   double concord_erf_f64(double x)    erf(x)
 *   double concord_gelu_f64(double x)   x/2 erfc(-x/sqrt2)
 *
 * Contract: within 1 ULP of the true value (measured against long double
 * erfl over 4M values: 0.508 ULP; 0.745 where the result is subnormal, which
 * is rounded twice), the same bits on the CPU and on an OpenCL device with
 * float64. Special values are the C library's:
 * erf(+-0) = +-0, erf(+-inf) = +-1, NaN in, NaN out; erf(x) rounds to +-1
 * from |x| = 6 on (erfc(6) < 2^-54); subnormal x gives 2x/sqrt(pi) rounded.
 * gelu: within 1 ULP (0.501 against mpmath over 4000 points on [-38.7, 9],
 * 0.508 against a long double reference over 1.3M), as the CPU's default
 * kernel: gelu(+-0) = +-0, gelu(+inf) = +inf, gelu(-inf) = -0, x for
 * x > 8.5, -0 below -38.6 (the result is below half the smallest subnormal).
 * Example (C++): concord_erf_f64(0.5) == 0.5204998778130465.
 *
 * Method: |x| < 2: erf(x) = 2/sqrt(pi) x e^(-x^2) sum_n (2x^2)^n / (2n+1)!!,
 * every term positive (no cancellation); the sum by Horner in double-double
 * with the coefficients in two parts (the dropped tail below 2^-66), e^(-x^2)
 * with x^2 split exactly by an fma and a double-double exp (canon_f64.h's
 * reduction and table, the product 2^(j/64) r kept exact: ~2^-66), the
 * products in double-double, rounded once. 2 <= |x| < 6: erf = 1 - erfc,
 * erfc(x) = e^(-x^2)/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + ...))))
 * evaluated bottom-up in double (erfc <= 0.0047, so its relative error of a
 * few 2^-53 is below 2^-60 of erf). |x| < 2^-900: 2x/sqrt(pi) alone, the
 * product in double-double on 2^64 x (so its fma remainder is exact).
 * gelu needs erfc(z) to ~2^-60 relative where it is small (z = -x/sqrt2 up to
 * 27.3): the same series for |z| < 2 (1 - erf there cancels by at most 8
 * bits, which the exp's 2^-66 absorbs), the continued fraction in
 * double-double from 2 on,
 * and the rounding of z itself (z = zh + zl by an fma, which moves erfc by
 * up to 2 z^2 2^-53 relative) corrected to first order: - zl 2/sqrt(pi) e^(-zh^2).
 */
#ifndef CONCORD_CANON_F64_ERF_H
#define CONCORD_CANON_F64_ERF_H

#ifndef __OPENCL_VERSION__
#include "backend/common/canon_f64.h"
#endif

#if CONCORD_CANON_F64
#define CONCORD_NUM_BITS 0
#include "backend/common/canon_num.h"
#undef CN_E
#define CN_E(name) concord_dd_##name
#include "backend/common/canon_f64_erf.inc"
#undef CN_E
#undef CONCORD_NUM_BITS

CONCORD_FN double concord_erf_f64(double x) { return concord_dd_erf_gelu(false, x); }
CONCORD_FN double concord_gelu_f64(double x) { return concord_dd_erf_gelu(true, x); }

#endif /* CONCORD_CANON_F64 */
#endif /* CONCORD_CANON_F64_ERF_H */
