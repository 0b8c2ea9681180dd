// backend/common/xmath64_log.glsl — the reproducible mode's float64 log, log1p and
// log2 on float64 BITS, with integer operations only: the CPU's
// src/backend/common/canon_f64_log.h, every double operation an xd_* call
// (xf64.glsl) in the header's order, every branch a compare on bits.
//
//   uint64_t xe_log(uint64_t x)     concord_log_f64
//   uint64_t xe_log1p(uint64_t x)   concord_log1p_f64
//   uint64_t xe_log2(uint64_t x)    concord_log2_f64
//
// Why: see xmath64.glsl (whose two-sum, Horner table, pair and xe_from_int
// this file uses). Every NaN result is XD_NAN.
//
// Include after xf32.glsl, xf64.glsl and xmath64.glsl. Also valid C++
// (tests/ops/unary/test_reproducible_vulkan_math64.cpp).
#ifndef CONCORD_XMATH64_LOG_GLSL
#define CONCORD_XMATH64_LOG_GLSL

#define XE_LN2HI 0x3fe62e42fee00000ul     // ln2, 32 bits
#define XE_LN2LO 0x3dea39ef35793c76ul     // ln2 - XE_LN2HI
#define XE_INVLN2HI 0x3ff71547652b82feul  // 1/ln2
#define XE_INVLN2LO 0x3c7777d0ffda0d24ul  // 1/ln2 - XE_INVLN2HI
#define XE_MIN_NORMAL 0x0010000000000000ul  // 0x1p-1022
#define XE_P54 0x4350000000000000ul       // 0x1p54
#define XE_LP_LO 0xbfd2bedfa43fe5c9ul     // -0.2929
#define XE_LP_HI 0x3fda8240b780346eul     // 0.4142

// log(1 + f) + c = h + l for -0.2929 <= f <= 0.4143, |c| <= 2^-52
// (concord_f64_log_core): h = 2 sh exactly.
XePair xe_log_core(uint64_t f, uint64_t c) {
  const uint64_t dh = xd_add(XE_TWO, f);
  const uint64_t dl = xd_sub(f, xd_sub(dh, XE_TWO));
  const uint64_t sh = xd_div(f, dh);
  const uint64_t sl = xd_div(xd_sub(xd_fma(xd_neg(sh), dh, f), xd_mul(sh, dl)), dh);
  const uint64_t z = xd_mul(sh, sh);
  const uint64_t p = xe_horner(z, 16, 9);
  XePair r;
  r.h = xd_add(sh, sh);
  r.l = xd_add(xd_add(xd_add(sl, sl), xd_mul(xd_mul(sh, z), p)), c);
  r.k = 0;
  return r;
}

// log(x (1 + c)) = k ln2 + h + l for finite x > 0 (concord_f64_log_parts);
// with `direct`, log(1 + x) = h + l for x in log1p's direct range (k = 0).
// One call site of xe_log_core for the three ops: a smaller shader, faster
// to build into a pipeline on software devices.
XePair xe_log_parts(uint64_t x, uint64_t c, bool direct) {
  int k = 0;
  uint64_t f = x;
  if (!direct) {
    if (xd_lt(x, XE_MIN_NORMAL)) {  // subnormal: make it normal
      x = xd_mul(x, XE_P54);
      k = -54;
    }
    const uint64_t mant = x & 0x000ffffffffffffful;
    const uint big = mant > 0x6a09e667f3bcdul ? 1u : 0u;  // m >= sqrt 2 moves to m / 2
    k += int(uint(x >> 52) & 0x7ffu) - 1023 + int(big);
    const uint64_t m = mant | (uint64_t(1023u - big) << 52);
    f = xd_sub(m, XE_ONE);  // exact (Sterbenz)
  }
  XePair r = xe_log_core(f, c);
  r.k = k;
  return r;
}

// k ln2 + h + l rounded once (concord_f64_log_sum).
uint64_t xe_log_sum(XePair p) {
  const uint64_t kd = xe_from_int(p.k);
  const XePair s = xe_two_sum(xd_mul(kd, XE_LN2HI), p.h);
  return xd_add(s.h, xd_add(s.l, xd_add(p.l, xd_mul(kd, XE_LN2LO))));
}

// log (op 0), log1p (1) and log2 (2) of x, the header's specials first.
uint64_t xe_logs(int op, uint64_t x) {
  if (xd_isnan(x)) return XD_NAN;
  if (op == 1 && xd_lt(x, XE_TINY54) && xd_lt(XE_TINY54 | XD_SIGN, x)) return x;  // keeps -0
  const uint64_t zero = op == 1 ? XE_ONE | XD_SIGN : 0ul;  // log1p's pole is -1
  if ((x & (op == 1 ? ~0ul : XD_ABS)) == zero) return XD_SIGN | XD_INF;
  if (xd_lt(x, zero)) return XD_NAN;
  if (xd_isinf(x)) return x;
  const bool direct = op == 1 && xd_lt(XE_LP_LO, x) && xd_lt(x, XE_LP_HI);  // 1 + x is m itself: f = x
  uint64_t u = x, c = 0ul;
  if (op == 1 && !direct) {  // 1 + x = u + c' exactly; log(1 + x) = log(u (1 + c'/u))
    const XePair s = xe_two_sum(XE_ONE, x);
    u = s.h;
    c = xd_div(s.l, s.h);
  }
  const XePair p = xe_log_parts(u, c, direct);
  if (direct) return xd_add(p.h, p.l);
  if (op != 2) return xe_log_sum(p);
  // log2 x = k + (h + l) / ln2, the product in double-double.
  const uint64_t nh = xd_add(p.h, p.l);
  const uint64_t nl = xd_sub(p.l, xd_sub(nh, p.h));
  const uint64_t ph = xd_mul(nh, XE_INVLN2HI);
  const uint64_t pl = xd_add(xd_fma(nh, XE_INVLN2HI, xd_neg(ph)),
                             xd_add(xd_mul(nh, XE_INVLN2LO), xd_mul(nl, XE_INVLN2HI)));
  const XePair t = xe_two_sum(xe_from_int(p.k), ph);
  return xd_add(t.h, xd_add(t.l, pl));
}
uint64_t xe_log(uint64_t x) { return xe_logs(0, x); }
uint64_t xe_log1p(uint64_t x) { return xe_logs(1, x); }
uint64_t xe_log2(uint64_t x) { return xe_logs(2, x); }

#endif
