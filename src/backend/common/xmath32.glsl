// backend/common/xmath32.glsl — the CPU's float32 log, tanh, sigmoid, expm1, log1p
// and log2 on float32 BITS, with integer operations only: float64 inside
// through xf64.glsl.
//
//   uint xm_log(uint x)       the CPU's log_f32 (cpu/vec_math.h, vec_impl_math.h Log)
//   uint xm_tanh(uint x)      vec_impl_math.h Tanh
//   uint xm_sigmoid(uint x)   vec_impl_math.h Sigmoid
//   uint xm_expm1(uint x), xm_log1p(uint x), xm_log2(uint x)
//                             the mode's concord_expm1_f32 / log1p / log2:
//                             canon_explog.h's body (canon_explog.inc) on bits
//   uint64_t xm_exp_d(uint64_t x), xm_expm1_d(uint64_t x)   the float64 helpers
//
// Why: the CPU computes these in float64 and rounds once (the last three as
// the reproducible mode's canon_explog.h). Vulkan promises no
// correctly rounded double division, no kept subnormals and no fused fma (and
// may contract a * b + c); here every double operation is an xd_* call in the
// CPU's order (OpenCL's mirror is kernels/cpu_math.cl), so the result is the
// CPU's bits on any device. Every a * b + c is xd_add(xd_mul(a, b), c): the
// CPU's build does not contract either. Every NaN result is XF_NAN (the mode's
// canonical NaN), so a variant built on these needs no separate NaN pass.
//
// Include after common.glsl, dtypes.glsl, xf32.glsl and xf64.glsl. Also valid
// C++ (tests/ops/unary/test_reproducible_vulkan_math.cpp checks it against the CPU).
// Example: `XSTORE(f32)(dst, i, xm_log(XLOAD(f32)(src, i)));`
#ifndef CONCORD_XMATH32_GLSL
#define CONCORD_XMATH32_GLSL

// The CPU's constants (cpu/vec_math.h expc, and Log's), as float64 bits.
#define XM_LOG2E 0x3ff71547652b82feul  // 1.4426950408889634074
#define XM_SHIFT 0x4338000000000000ul  // 1.5 * 2^52
#define XM_LN2HI 0x3fe62e42fee00000ul
#define XM_LN2LO 0x3dea39ef35793c76ul
#define XM_LN2 0x3fe62e42fefa39eful    // 0.69314718055994530942
#define XM_ONE 0x3ff0000000000000ul
#define XM_TWO 0x4000000000000000ul
#define XM_INV2 0x3fe0000000000000ul   // 1/k!, rounded as the compiler rounds 1.0 / k!
#define XM_INV3 0x3fc5555555555555ul
#define XM_INV4 0x3fa5555555555555ul
#define XM_INV5 0x3f81111111111111ul
#define XM_INV6 0x3f56c16c16c16c17ul
#define XM_INV7 0x3f2a01a01a01a01aul
#define XM_INV8 0x3efa01a01a01a01aul
#define XM_INV9 0x3ec71de3a556c734ul
#define XM_A13 0x3fc3b13b13b13b14ul    // 2.0 / 13, 2.0 / 11, ..., 2.0 / 3
#define XM_A11 0x3fc745d1745d1746ul
#define XM_A9 0x3fcc71c71c71c71cul
#define XM_A7 0x3fd2492492492492ul
#define XM_A5 0x3fd999999999999aul
#define XM_A3 0x3fe5555555555555ul
#define XM_INV10 0x3e927e4fb7789f5cul
#define XM_INV11 0x3e5ae64567f544e4ul
#define XM_INV12 0x3e21eed8eff8d898ul
#define XM_INV13 0x3de6124613a86d09ul
#define XM_A19 0x3fbaf286bca1af28ul
#define XM_A17 0x3fbe1e1e1e1e1e1eul
#define XM_A15 0x3fc1111111111111ul
// The polynomials' coefficients, highest degree first, as one table that
// xm_horner walks in a loop: a shader of one loop per polynomial, not of
// dozens of inlined float64 emulations (pipeline creation on software
// devices grows with the code). [0, 14): 1/13!, ..., 1/2!, 1, 1; [14, 24):
// 2/19, 2/17, ..., 2/3, 2.
#define XM_COEF_LIST                                                                                       \
  XM_INV13, XM_INV12, XM_INV11, XM_INV10, XM_INV9, XM_INV8, XM_INV7, XM_INV6, XM_INV5, XM_INV4, XM_INV3, \
      XM_INV2, XM_ONE, XM_ONE, XM_A19, XM_A17, XM_A15, XM_A13, XM_A11, XM_A9, XM_A7, XM_A5, XM_A3, XM_TWO
#if XF_BRACES
XF_CONST uint64_t XM_COEF[24] = {XM_COEF_LIST};
#else
XF_CONST uint64_t XM_COEF[24] = uint64_t[24](XM_COEF_LIST);
#endif
#define XM_F160 0x43200000u            // float32 160 (expc::kClamp)
#define XM_F20 0x41a00000u             // float32 20

// a * b + c in two roundings, as the CPU writes it.
uint64_t xm_mad(uint64_t a, uint64_t b, uint64_t c) { return xd_add(xd_mul(a, b), c); }

// Horner over XM_COEF[first .. first + n]: p = c0, then p = p * x + c_i, the
// CPU's `p = x * c0 + c1; p = p * x + c2; ...` (x * c0 == c0 * x, bit for bit).
uint64_t xm_horner(uint64_t x, int first, int n) {
  uint64_t p = XM_COEF[first];
  for (int i = 1; i <= n; ++i) p = xm_mad(p, x, XM_COEF[first + i]);
  return p;
}

// x = n ln2 + r, |r| <= ln2/2: r, and s = 2^n from the low bits of t.
struct XmReduced {
  uint64_t r, s;
};
XmReduced xm_reduce_ln2(uint64_t x) {
  const uint64_t t = xm_mad(x, XM_LOG2E, XM_SHIFT);
  const uint64_t n = xd_sub(t, XM_SHIFT);
  XmReduced v;
  v.r = xd_sub(xd_sub(x, xd_mul(n, XM_LN2HI)), xd_mul(n, XM_LN2LO));
  v.s = (t + 1023ul) << 52;  // the bits the CPU reinterprets; meaningless (and unused) for NaN
  return v;
}

uint64_t xm_exp_d(uint64_t x) {
  const XmReduced v = xm_reduce_ln2(x);
  const uint64_t p = xm_horner(v.r, 5, 8);  // 1/8!, ..., 1/2!, 1, 1
  return xd_mul(p, v.s);
}

uint64_t xm_expm1_d(uint64_t x) {
  const XmReduced v = xm_reduce_ln2(x);
  const uint64_t q = xd_mul(xm_horner(v.r, 4, 8), v.r);  // 1/9!, ..., 1/2!, 1
  return xd_add(xd_mul(q, v.s), xd_sub(v.s, XM_ONE));
}

// The x86 minps/maxps rule (a < b ? a : b, a > b ? a : b): b when either is NaN.
uint xm_min_x86(uint a, uint b) { return xf_lt(a, b) ? a : b; }
uint xm_max_x86(uint a, uint b) { return xf_lt(b, a) ? a : b; }

// 1 / (1 + exp(-x)) in float64, -x clamped to [-160, 160] (NaN passes).
uint xm_sigmoid(uint x) {
  const uint c = xm_max_x86(XM_F160 | XF_SIGN, xm_min_x86(XM_F160, xf_neg(x)));
  const uint64_t e = xm_exp_d(xd_from_f32(c));
  return xd_to_f32(xd_div(XM_ONE, xd_add(XM_ONE, e)));
}

// sign(x) * e / (e + 2), e = expm1(2|x|), |x| clamped to 20 (NaN passes).
uint xm_tanh(uint x) {
  uint ax = x & 0x7fffffffu;
  ax = xf_lt(XM_F20, ax) ? XM_F20 : ax;
  const uint64_t a = xd_from_f32(ax);
  const uint64_t e = xm_expm1_d(xd_add(a, a));
  const uint t = xd_to_f32(xd_div(e, xd_add(e, XM_TWO)));
  return xf_isnan(t) ? XF_NAN : t | (x & XF_SIGN);
}

// e ln2 + 2 atanh(s), s = (m - 1) / (m + 1), x = 2^e m, m in [sqrt(1/2), sqrt(2)).
uint xm_log(uint x) {
  if (xf_isnan(x)) return XF_NAN;               // the CPU's x + x, made canonical
  if (x == XF_INF) return XF_INF;
  if (xf_iszero(x)) return XF_INF | XF_SIGN;    // log(±0) = -inf
  if ((x & XF_SIGN) != 0u) return XF_NAN;       // x < 0, -inf included
  const uint64_t bits = xd_from_f32(x);         // exact: float subnormals are normal doubles
  const uint64_t mant = bits & 0x000ffffffffffffful;
  const uint64_t big = 1ul - ((mant - (0x6a09e667f3bcdul + 1ul)) >> 63);  // m > sqrt(2)
  const uint64_t e = ((bits >> 52) & 0x7fful) + big;
  const uint64_t m = (mant | 0x3ff0000000000000ul) - (big << 52);
  const uint64_t s = xd_div(xd_sub(m, XM_ONE), xd_add(m, XM_ONE));
  const uint64_t z = xd_mul(s, s);
  const uint64_t p = xm_horner(z, 17, 6);  // 2/13, 2/11, ..., 2/3, 2
  const uint64_t ed = xd_sub(e + (XM_SHIFT - 1023ul), XM_SHIFT);  // e - 1023, exactly
  return xd_to_f32(xd_add(xd_mul(ed, XM_LN2), xd_mul(s, p)));
}

// The mode's expm1, log1p and log2 (uint xm_expm1(uint x), xm_log1p,
// xm_log2; also xm_expm1_small, which xmath32_erf.glsl uses): canon_explog.h's
// one body, canon_explog.inc, on the doubles' bits.
#define CONCORD_NUM_BITS 1
#include "backend/common/canon_num.h"
#define CN_XL_COEF xm_xl_coef
#define CN_XL_HORNER xm_xl_horner
#define CN_XL_EXPM1_SMALL xm_expm1_small
#define CN_XL_ATANH2_POLY xm_atanh2_poly
#define CN_XL_LOGRED XmLogReduced
#define CN_XL_REDUCE_LOG xm_reduce_log
#define CN_XL_EXPM1 xm_expm1
#define CN_XL_LOG1P xm_log1p
#define CN_XL_LOG2 xm_log2
#include "backend/common/canon_explog.inc"
#undef CN_XL_COEF
#undef CN_XL_HORNER
#undef CN_XL_EXPM1_SMALL
#undef CN_XL_ATANH2_POLY
#undef CN_XL_LOGRED
#undef CN_XL_REDUCE_LOG
#undef CN_XL_EXPM1
#undef CN_XL_LOG1P
#undef CN_XL_LOG2
#undef CONCORD_NUM_BITS

#endif
