// backend/common/xmath64.glsl — the reproducible mode's float64 exp, expm1, tanh and
// sigmoid on float64 BITS (a uint64_t), with integer operations only: the
// CPU's src/backend/common/canon_f64.h, every double operation an xd_* call
// (xf64.glsl) in the header's order, every fma an xd_fma, every branch a
// compare on bits. xmath64_log.glsl holds log, log1p and log2;
// xmath64_erf.glsl erf and gelu (both use this file's pieces).
//
//   uint64_t xe_exp(uint64_t x)      concord_exp_f64
//   uint64_t xe_expm1(uint64_t x)    concord_expm1_f64
//   uint64_t xe_tanh(uint64_t x)     concord_tanh_f64
//   uint64_t xe_sigmoid(uint64_t x)  concord_sigmoid_f64
//
// Why: Vulkan promises no kept float64 subnormals, no correctly rounded
// double division and no fused fma (lavapipe has none of them), so the
// header's double-double algorithm cannot run on the device's doubles and
// keep the CPU's bits; on bits it does, on any device (and on one without
// shaderFloat64 too). A NaN result is always XD_NAN, the mode's canonical
// NaN. Where the header computes a value it then discards (x + x for a NaN,
// x * 0x1p1023 past overflow) the result is returned directly.
//
// Include after xf32.glsl and xf64.glsl. Also valid C++
// (tests/ops/unary/test_reproducible_vulkan_math64.cpp checks it against the CPU).
// Example: `st64(dst, i, xe_exp(ld64(src, i)));`
#ifndef CONCORD_XMATH64_GLSL
#define CONCORD_XMATH64_GLSL

// canon_f64.h's constants as float64 bits.
#define XE_SHIFT 0x4338000000000000ul    // 0x1.8p+52
#define XE_INV_L64 0x40571547652b82feul  // 64/ln2
#define XE_L64HI 0x3f862e42ff000000ul    // ln2/64, 29 bits
#define XE_L64LO 0xbd6718432a1b0e26ul    // ln2/64 - XE_L64HI
#define XE_HALF 0x3fe0000000000000ul
#define XE_ONE 0x3ff0000000000000ul
#define XE_TWO 0x4000000000000000ul
#define XE_EXP_HI 0x40862e51eb851eb8ul   // 709.79
#define XE_EXP_LO 0xc08749999999999aul   // -745.2
#define XE_P40 0x4044000000000000ul      // 40.0
#define XE_P20 0x4034000000000000ul      // 20.0
#define XE_P0125 0x3fc0000000000000ul    // 0.125
#define XE_M746 0xc087500000000000ul     // -746.0
#define XE_TINY54 0x3c90000000000000ul   // 0x1p-54
#define XE_T28 0x3e30000000000000ul      // 0x1p-28

// The polynomials' coefficients, highest degree first, for xe_horner:
// [0, 5) exp's 1/6!, ..., 1/3!, 1/2; [5, 16) expm1's 1/13!, ..., 1/3!;
// [16, 26) log's 2/21, ..., 2/3 (xmath64_log.glsl).
#define XE_COEF_LIST                                                                                  \
  0x3f56c16c16c16c17ul, 0x3f81111111111111ul, 0x3fa5555555555555ul, 0x3fc5555555555555ul, XE_HALF,     \
      0x3de6124613a86d09ul, 0x3e21eed8eff8d898ul, 0x3e5ae64567f544e4ul, 0x3e927e4fb7789f5cul,          \
      0x3ec71de3a556c734ul, 0x3efa01a01a01a01aul, 0x3f2a01a01a01a01aul, 0x3f56c16c16c16c17ul,          \
      0x3f81111111111111ul, 0x3fa5555555555555ul, 0x3fc5555555555555ul, 0x3fb8618618618618ul,          \
      0x3fbaf286bca1af28ul, 0x3fbe1e1e1e1e1e1eul, 0x3fc1111111111111ul, 0x3fc3b13b13b13b14ul,          \
      0x3fc745d1745d1746ul, 0x3fcc71c71c71c71cul, 0x3fd2492492492492ul, 0x3fd999999999999aul,          \
      0x3fe5555555555555ul
// 2^(j/64) = hi + lo for j = 0..63 as {hi, lo} pairs (concord_f64_exp2_64).
#define XE_EXP2_LIST \
  0x3ff0000000000000ul, 0x0000000000000000ul, 0x3ff02c9a3e778061ul, 0xbc719083535b085dul, \
  0x3ff059b0d3158574ul, 0x3c8d73e2a475b465ul, 0x3ff0874518759bc8ul, 0x3c6186be4bb284fful, \
  0x3ff0b5586cf9890ful, 0x3c98a62e4adc610bul, 0x3ff0e3ec32d3d1a2ul, 0x3c403a1727c57b53ul, \
  0x3ff11301d0125b51ul, 0xbc96c51039449b3aul, 0x3ff1429aaea92de0ul, 0xbc932fbf9af1369eul, \
  0x3ff172b83c7d517bul, 0xbc819041b9d78a76ul, 0x3ff1a35beb6fcb75ul, 0x3c8e5b4c7b4968e4ul, \
  0x3ff1d4873168b9aaul, 0x3c9e016e00a2643cul, 0x3ff2063b88628cd6ul, 0x3c8dc775814a8495ul, \
  0x3ff2387a6e756238ul, 0x3c99b07eb6c70573ul, 0x3ff26b4565e27cddul, 0x3c82bd339940e9d9ul, \
  0x3ff29e9df51fdee1ul, 0x3c8612e8afad1255ul, 0x3ff2d285a6e4030bul, 0x3c90024754db41d5ul, \
  0x3ff306fe0a31b715ul, 0x3c86f46ad23182e4ul, 0x3ff33c08b26416fful, 0x3c932721843659a6ul, \
  0x3ff371a7373aa9cbul, 0xbc963aeabf42eae2ul, 0x3ff3a7db34e59ff7ul, 0xbc75e436d661f5e3ul, \
  0x3ff3dea64c123422ul, 0x3c8ada0911f09ebcul, 0x3ff4160a21f72e2aul, 0xbc5ef3691c309278ul, \
  0x3ff44e086061892dul, 0x3c489b7a04ef80d0ul, 0x3ff486a2b5c13cd0ul, 0x3c73c1a3b69062f0ul, \
  0x3ff4bfdad5362a27ul, 0x3c7d4397afec42e2ul, 0x3ff4f9b2769d2ca7ul, 0xbc94b309d25957e3ul, \
  0x3ff5342b569d4f82ul, 0xbc807abe1db13cadul, 0x3ff56f4736b527daul, 0x3c99bb2c011d93adul, \
  0x3ff5ab07dd485429ul, 0x3c96324c054647adul, 0x3ff5e76f15ad2148ul, 0x3c9ba6f93080e65eul, \
  0x3ff6247eb03a5585ul, 0xbc9383c17e40b497ul, 0x3ff6623882552225ul, 0xbc9bb60987591c34ul, \
  0x3ff6a09e667f3bcdul, 0xbc9bdd3413b26456ul, 0x3ff6dfb23c651a2ful, 0xbc6bbe3a683c88abul, \
  0x3ff71f75e8ec5f74ul, 0xbc816e4786887a99ul, 0x3ff75feb564267c9ul, 0xbc90245957316dd3ul, \
  0x3ff7a11473eb0187ul, 0xbc841577ee04992ful, 0x3ff7e2f336cf4e62ul, 0x3c705d02ba15797eul, \
  0x3ff82589994cce13ul, 0xbc9d4c1dd41532d8ul, 0x3ff868d99b4492edul, 0xbc9fc6f89bd4f6baul, \
  0x3ff8ace5422aa0dbul, 0x3c96e9f156864b27ul, 0x3ff8f1ae99157736ul, 0x3c85cc13a2e3976cul, \
  0x3ff93737b0cdc5e5ul, 0xbc675fc781b57ebcul, 0x3ff97d829fde4e50ul, 0xbc9d185b7c1b85d1ul, \
  0x3ff9c49182a3f090ul, 0x3c7c7c46b071f2beul, 0x3ffa0c667b5de565ul, 0xbc9359495d1cd533ul, \
  0x3ffa5503b23e255dul, 0xbc9d2f6edb8d41e1ul, 0x3ffa9e6b5579fdbful, 0x3c90fac90ef7fd31ul, \
  0x3ffae89f995ad3adul, 0x3c97a1cd345dcc81ul, 0x3ffb33a2b84f15fbul, 0xbc62805e3084d708ul, \
  0x3ffb7f76f2fb5e47ul, 0xbc75584f7e54ac3bul, 0x3ffbcc1e904bc1d2ul, 0x3c823dd07a2d9e84ul, \
  0x3ffc199bdd85529cul, 0x3c811065895048ddul, 0x3ffc67f12e57d14bul, 0x3c92884dff483cadul, \
  0x3ffcb720dcef9069ul, 0x3c7503cbd1e949dbul, 0x3ffd072d4a07897cul, 0xbc9cbc3743797a9cul, \
  0x3ffd5818dcfba487ul, 0x3c82ed02d75b3707ul, 0x3ffda9e603db3285ul, 0x3c9c2300696db532ul, \
  0x3ffdfc97337b9b5ful, 0xbc91a5cd4f184b5cul, 0x3ffe502ee78b3ff6ul, 0x3c839e8980a9cc8ful, \
  0x3ffea4afa2a490daul, 0xbc9e9c23179c2893ul, 0x3ffefa1bee615a27ul, 0x3c9dc7f486a4b6b0ul, \
  0x3fff50765b6e4540ul, 0x3c99d3e12dd8a18bul, 0x3fffa7c1819e90d8ul, 0x3c874853f3a5931eul
#if XF_BRACES
XF_CONST uint64_t XE_COEF[26] = {XE_COEF_LIST};
XF_CONST uint64_t XE_EXP2[128] = {XE_EXP2_LIST};
#else
XF_CONST uint64_t XE_COEF[26] = uint64_t[26](XE_COEF_LIST);
XF_CONST uint64_t XE_EXP2[128] = uint64_t[128](XE_EXP2_LIST);
#endif

// Horner over XE_COEF[first .. first + n]: p = c0, then p = p * x + c_i in
// two roundings (the header does not contract; x * c0 == c0 * x bit for bit).
uint64_t xe_horner(uint64_t x, int first, int n) {
  uint64_t p = XE_COEF[first];
  for (int i = 1; i <= n; ++i) p = xd_add(xd_mul(p, x), XE_COEF[first + i]);
  return p;
}

// A double-double (or any pair of doubles), and an exponent.
struct XePair {
  uint64_t h, l;
  int k;
};

// h + l = a + b exactly (concord_f64_two_sum).
XePair xe_two_sum(uint64_t a, uint64_t b) {
  XePair r;
  r.h = xd_add(a, b);
  const uint64_t bb = xd_sub(r.h, a);
  r.l = xd_add(xd_sub(a, xd_sub(r.h, bb)), xd_sub(b, bb));
  r.k = 0;
  return r;
}

// 2^k for -1022 <= k <= 1023 (k + 1023 is positive: no widened signed int).
uint64_t xe_pow2(int k) { return uint64_t(uint(k + 1023)) << 52; }

// y * 2^k in two exact steps; k / 2 truncates toward zero as in C.
uint64_t xe_scale(uint64_t y, int k) {
  const int k1 = k >= 0 ? k >> 1 : -((-k) >> 1);
  return xd_mul(xd_mul(y, xe_pow2(k1)), xe_pow2(k - k1));
}

// (double)k for a small int k, exactly; the sign read in 32 bits (no int
// widened to int64_t: see xf64.glsl's xd_int64_neg).
uint64_t xe_from_int(int k) {
  if (k == 0) return 0ul;
  return xd_round(k < 0, uint64_t(uint(k < 0 ? -k : k)), 0);
}

// x = ki ln2/64 + h + l for |x| <= 746, ki in k (concord_f64_exp_reduce; the
// header's j and k are ki & 63 and ki >> 6). (int)kd is read from t's low
// word: t is in [2^52, 2^53) with kd = t - SHIFT exactly, and SHIFT's low
// word is zero.
XePair xe_exp_reduce(uint64_t x) {
  const uint64_t t = xd_add(xd_mul(x, XE_INV_L64), XE_SHIFT);
  const uint64_t kd = xd_sub(t, XE_SHIFT);
  const uint64_t r1 = xd_sub(x, xd_mul(kd, XE_L64HI));
  XePair r = xe_two_sum(r1, xd_neg(xd_mul(kd, XE_L64LO)));
  r.k = int(uint(t & XD_LOW32));
  return r;
}

// exp(x) = 2^k (h + l) for |x| <= 746 (concord_f64_exp_dd).
XePair xe_exp_dd(uint64_t x) {
  const XePair r = xe_exp_reduce(x);
  const int ki = r.k;
  const int j = ki & 63;
  const uint64_t rh = r.h, rl = r.l;
  const uint64_t q = xe_horner(rh, 0, 4);
  const uint64_t p = xd_add(xd_mul(xd_mul(rh, rh), q), xd_add(rl, xd_mul(rl, rh)));
  const uint64_t th = XE_EXP2[2 * j], tl = XE_EXP2[2 * j + 1];
  const uint64_t l =
      xd_add(tl, xd_add(xd_mul(th, rh), xd_add(xd_mul(th, p), xd_mul(tl, xd_add(rh, p)))));
  XePair e;
  e.h = xd_add(th, l);
  e.l = xd_sub(l, xd_sub(e.h, th));
  e.k = (ki - j) >> 6;  // an exact multiple of 64
  return e;
}

// expm1(x) = h + l for -40 <= x <= 40 (concord_f64_expm1_dd, with the
// series of concord_f64_expm1_tail for |x| < 0.125).
XePair xe_expm1_dd(uint64_t x) {
  uint64_t h, l;
  if (xd_lt(x, XE_P0125) && xd_lt(XE_P0125 | XD_SIGN, x)) {
    const uint64_t q = xe_horner(x, 5, 10);
    const uint64_t x2 = xd_mul(x, x);
    const uint64_t tl =
        xd_add(xd_mul(XE_HALF, xd_fma(x, x, xd_neg(x2))), xd_mul(xd_mul(x2, x), q));
    const XePair s = xe_two_sum(x, xd_mul(XE_HALF, x2));
    h = s.h;
    l = xd_add(s.l, tl);
  } else {
    const XePair y = xe_exp_dd(x);
    const uint64_t s = xe_pow2(y.k);
    const XePair d = xe_two_sum(xd_mul(s, y.h), XE_ONE | XD_SIGN);
    h = d.h;
    l = xd_add(d.l, xd_mul(s, y.l));
  }
  XePair r;
  r.h = xd_add(h, l);
  r.l = xd_sub(l, xd_sub(r.h, h));
  r.k = 0;
  return r;
}

uint64_t xe_exp(uint64_t x) {
  if (xd_isnan(x)) return XD_NAN;
  if (xd_lt(XE_EXP_HI, x)) return XD_INF;
  if (xd_lt(x, XE_EXP_LO)) return 0ul;
  const XePair e = xe_exp_dd(x);
  return xe_scale(xd_add(e.h, e.l), e.k);
}

uint64_t xe_expm1(uint64_t x) {
  if (xd_isnan(x)) return XD_NAN;
  if (xd_lt(XE_EXP_HI, x)) return XD_INF;
  if (xd_lt(x, XE_P40 | XD_SIGN)) return XE_ONE | XD_SIGN;
  if (xd_lt(x, XE_TINY54) && xd_lt(XE_TINY54 | XD_SIGN, x)) return x;  // keeps -0
  if (xd_lt(XE_P40, x)) {
    const XePair e = xe_exp_dd(x);
    return xe_scale(xd_add(e.h, e.l), e.k);
  }
  const XePair r = xe_expm1_dd(x);
  return xd_add(r.h, r.l);
}

// tanh(|x|) = e / (e + 2), e = expm1(2|x|), the sign put back on bits.
uint64_t xe_tanh(uint64_t x) {
  const uint64_t ax = x & XD_ABS, sign = x & XD_SIGN;
  if (xd_isnan(x)) return XD_NAN;
  if (xd_lt(ax, XE_T28)) return x;
  if (xd_le(XE_P20, ax)) return XE_ONE | sign;
  const XePair e = xe_expm1_dd(xd_add(ax, ax));
  const XePair d = xe_two_sum(e.h, XE_TWO);
  const uint64_t dl = xd_add(d.l, e.l);
  const uint64_t q = xd_div(e.h, d.h);
  const uint64_t r = xd_sub(xd_add(xd_fma(xd_neg(q), d.h, e.h), e.l), xd_mul(q, dl));
  return xd_add(q, xd_div(r, d.h)) | sign;
}

// 1 / (1 + e^-x) for x >= 0, e^x / (1 + e^x) below (scaled by 2^k last).
uint64_t xe_sigmoid(uint64_t x) {
  if (xd_isnan(x)) return XD_NAN;
  if (xd_lt(XE_P40, x)) return XE_ONE;
  if (xd_lt(x, XE_M746)) return 0ul;
  const bool pos = xd_le(0ul, x);  // true for -0 too
  const XePair y = xe_exp_dd(pos ? xd_neg(x) : x);
  const uint64_t s = y.k >= -60 ? xe_pow2(y.k) : 0ul;
  const XePair d = xe_two_sum(XE_ONE, xd_mul(s, y.h));
  const uint64_t dl = xd_add(d.l, xd_mul(s, y.l));
  // One quotient for both signs (a smaller shader): for x >= 0 the numerator
  // is 1 + 0, and fma(-q, dh, 1) + 0 - q dl, then q + r / dh, has the bits of
  // the header's fma(-q, dh, 1) - q dl (they differ at most in the sign of a
  // zero r, and q is not zero).
  const uint64_t nh = pos ? XE_ONE : y.h, nl = pos ? 0ul : y.l;
  const uint64_t q = xd_div(nh, d.h);
  const uint64_t r = xd_sub(xd_add(xd_fma(xd_neg(q), d.h, nh), nl), xd_mul(q, dl));
  const uint64_t t = xd_add(q, xd_div(r, d.h));
  return pos ? t : xe_scale(t, y.k);
}

#endif
