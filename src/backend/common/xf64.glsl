// backend/common/xf64.glsl — float64 arithmetic on bits, in integer operations
// only: xf32.glsl's contract for doubles (include it after xf32.glsl).
//
// Why: Vulkan promises neither kept float64 subnormals (lavapipe reports no
// shaderDenormPreserveFloat64), nor a correctly rounded double division or
// square root (2.5 ULP / inherited from inversesqrt), nor a fused fma. These
// functions give the CPU's IEEE results whatever the device does.
//
// A float64 value is its bits in a `uint64_t`. Results are correctly rounded
// to nearest even with IEEE subnormals, overflow and signed zeros; every NaN
// result is the canonical quiet NaN XD_NAN.
//
//   xd_add(a, b)  xd_sub(a, b)  xd_mul(a, b)  xd_div(a, b)  xd_sqrt(a)
//   xd_fma(a, b, c)       a * b + c rounded once (128-bit intermediate)
//   xd_neg / xd_abs, xd_isnan / xd_isinf / xd_iszero, xd_eq / xd_lt / xd_le
//   xd_from_f32(bits32)   exact widening; xd_to_f32(a) nearest even
//   xd_to_f32_odd(a)      round to odd, for a second rounding to a half
//   xd_from_int64(v)      int64 -> float64, nearest even
//   xd_int64_neg(v)       v < 0, right for an int widened to int64 too
//
// Also valid C++ (tests/test_xf32.cpp checks it against the CPU's doubles).
#ifndef CONCORD_XF64_GLSL
#define CONCORD_XF64_GLSL

#define XD_NAN 0x7ff8000000000000ul
#define XD_INF 0x7ff0000000000000ul
#define XD_SIGN 0x8000000000000000ul
#define XD_ABS 0x7ffffffffffffffful
#define XD_LOW32 0xfffffffful
#define XD_ONE 0x3ff0000000000000ul

bool xd_isnan(uint64_t a) { return (a & XD_ABS) > XD_INF; }
bool xd_isinf(uint64_t a) { return (a & XD_ABS) == XD_INF; }
bool xd_iszero(uint64_t a) { return (a & XD_ABS) == 0ul; }
bool xd_sign(uint64_t a) { return (a & XD_SIGN) != 0ul; }
uint64_t xd_neg(uint64_t a) { return xd_isnan(a) ? XD_NAN : a ^ XD_SIGN; }
uint64_t xd_abs(uint64_t a) { return xd_isnan(a) ? XD_NAN : a & XD_ABS; }

int64_t xd_key(uint64_t a) {
  const int64_t k = int64_t(a & XD_ABS);
  return xd_sign(a) ? -k : k;
}
bool xd_eq(uint64_t a, uint64_t b) { return !xd_isnan(a) && !xd_isnan(b) && xd_key(a) == xd_key(b); }
bool xd_lt(uint64_t a, uint64_t b) { return !xd_isnan(a) && !xd_isnan(b) && xd_key(a) < xd_key(b); }
bool xd_le(uint64_t a, uint64_t b) { return !xd_isnan(a) && !xd_isnan(b) && xd_key(a) <= xd_key(b); }

// Finite nonzero a as m * 2^e, m normalised to bit 62 (ten zero bits below
// the 53-bit significand: see xf32.glsl's sticky-bit argument).
XfNum xd_unpack62(uint64_t a) {
  const int f = int((a >> 52) & 0x7fful);
  XfNum r;
  r.m = (a & 0xffffffffffffful) | (f != 0 ? (1ul << 52) : 0ul);
  r.e = f != 0 ? f - 1075 : -1074;
  const int s = 62 - xf_msb64(r.m);
  r.m <<= s;
  r.e -= s;
  return r;
}

// The float64 nearest (ties to even) to (-1)^neg * m * 2^e, m != 0 (a sticky
// lowest bit allowed, as in xf_round).
uint64_t xd_round(bool neg, uint64_t m, int e) {
  const int n = xf_msb64(m);
  const uint64_t s = neg ? XD_SIGN : 0ul;
  if (n + e > 1023) return s | XD_INF;
  const int shift = max(n - 52, -1074 - e);
  const uint64_t q = shift <= 0 ? (m << (-shift)) : xf_rne_shift(m, shift);
  const int E = e + shift + 52;  // -1022 when subnormal
  const uint64_t bits = (uint64_t(E + 1022) << 52) + q;
  return s | (bits >= XD_INF ? XD_INF : bits);
}

// A 128-bit value hi:lo (not zero) times 2^e, squeezed into 64 bits with
// its msb at bit 63 and the dropped bits folded into a sticky lowest bit.
XfNum xd_pack128(uint64_t hi, uint64_t lo, int e) {
  XfNum r;
  if (hi == 0ul) {
    r.m = lo;
    r.e = e;
    return r;
  }
  const int k = 63 - xf_msb64(hi);
  r.m = k == 0 ? hi : (hi << k) | (lo >> (64 - k));
  const uint64_t rest = k == 0 ? lo : lo << k;
  r.m |= rest != 0ul ? 1ul : 0ul;
  r.e = e + 64 - k;
  return r;
}

// hi:lo = a * b (64 x 64 -> 128 bits) from 32-bit halves.
uint64_t xd_mul_hi(uint64_t a, uint64_t b) {
  const uint64_t a0 = a & XD_LOW32, a1 = a >> 32, b0 = b & XD_LOW32, b1 = b >> 32;
  const uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const uint64_t mid = (p00 >> 32) + (p01 & XD_LOW32) + (p10 & XD_LOW32);
  return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}
uint64_t xd_mul_lo(uint64_t a, uint64_t b) { return a * b; }

uint64_t xd_add_parts(bool nx, uint64_t mx, int ex, bool ny, uint64_t my, int ey) {
  if (ey > ex || (ey == ex && my > mx)) {
    const bool tn = nx; nx = ny; ny = tn;
    const uint64_t tm = mx; mx = my; my = tm;
    const int te = ex; ex = ey; ey = te;
  }
  const int d = ex - ey;
  uint64_t ya = 1ul;
  if (d == 0) ya = my;
  else if (d < 63) ya = (my >> d) | ((my & ((1ul << d) - 1ul)) != 0ul ? 1ul : 0ul);
  if (nx == ny) return xd_round(nx, mx + ya, ex);
  const uint64_t m = mx - ya;
  return m == 0ul ? 0ul : xd_round(nx, m, ex);
}

uint64_t xd_add(uint64_t a, uint64_t b) {
  if (xd_isnan(a) || xd_isnan(b)) return XD_NAN;
  if (xd_isinf(a) || xd_isinf(b)) {
    if (xd_isinf(a) && xd_isinf(b) && xd_sign(a) != xd_sign(b)) return XD_NAN;
    return xd_isinf(a) ? a : b;
  }
  if (xd_iszero(a)) return xd_iszero(b) ? (a & b) : b;
  if (xd_iszero(b)) return a;
  const XfNum x = xd_unpack62(a), y = xd_unpack62(b);
  return xd_add_parts(xd_sign(a), x.m, x.e, xd_sign(b), y.m, y.e);
}

uint64_t xd_sub(uint64_t a, uint64_t b) { return xd_add(a, xd_neg(b)); }

uint64_t xd_mul(uint64_t a, uint64_t b) {
  if (xd_isnan(a) || xd_isnan(b)) return XD_NAN;
  const uint64_t s = (a ^ b) & XD_SIGN;
  if (xd_isinf(a) || xd_isinf(b)) return xd_iszero(a) || xd_iszero(b) ? XD_NAN : s | XD_INF;
  if (xd_iszero(a) || xd_iszero(b)) return s;
  const XfNum x = xd_unpack62(a), y = xd_unpack62(b);
  const uint64_t ma = x.m >> 10, mb = y.m >> 10;  // 53 bits each
  const XfNum p = xd_pack128(xd_mul_hi(ma, mb), xd_mul_lo(ma, mb), x.e + y.e + 20);
  return xd_round(s != 0ul, p.m, p.e);
}

// 128-bit helpers for fma: hi:lo shifted right by d with a sticky lowest bit.
uint64_t xd_shr_lo(uint64_t hi, uint64_t lo, int d) {
  if (d == 0) return lo;
  if (d >= 128) return (hi | lo) != 0ul ? 1ul : 0ul;
  if (d >= 64) {
    const uint64_t v = d == 64 ? hi : hi >> (d - 64);
    const bool lost = lo != 0ul || (d > 64 && (hi << (128 - d)) != 0ul);
    return v | (lost ? 1ul : 0ul);
  }
  return (lo >> d) | (hi << (64 - d)) | ((lo << (64 - d)) != 0ul ? 1ul : 0ul);
}
uint64_t xd_shr_hi(uint64_t hi, int d) { return d == 0 ? hi : d >= 64 ? 0ul : hi >> d; }

uint64_t xd_fma(uint64_t a, uint64_t b, uint64_t c) {
  if (xd_isnan(a) || xd_isnan(b) || xd_isnan(c)) return XD_NAN;
  const bool np = ((a ^ b) & XD_SIGN) != 0ul;
  if (xd_isinf(a) || xd_isinf(b)) {
    if (xd_iszero(a) || xd_iszero(b)) return XD_NAN;
    if (xd_isinf(c) && xd_sign(c) != np) return XD_NAN;
    return (np ? XD_SIGN : 0ul) | XD_INF;
  }
  if (xd_isinf(c)) return c;
  if (xd_iszero(a) || xd_iszero(b)) {
    if (xd_iszero(c)) return (np && xd_sign(c)) ? XD_SIGN : 0ul;
    return c;
  }
  const XfNum x = xd_unpack62(a), y = xd_unpack62(b);
  const uint64_t ma = x.m >> 10, mb = y.m >> 10;
  // The exact product, 105-106 bits, normalised to bit 126 of hi:lo (its
  // lowest 20 bits zero); c's 53 bits there too (73 zero bits below).
  uint64_t phi = xd_mul_hi(ma, mb), plo = xd_mul_lo(ma, mb);
  int pe = x.e + y.e + 20;
  const int sp = 62 - xf_msb64(phi);
  phi = (phi << sp) | (plo >> (64 - sp));  // sp is 21 or 22
  plo <<= sp;
  pe -= sp;
  if (xd_iszero(c)) {
    const XfNum p = xd_pack128(phi, plo, pe);
    return xd_round(np, p.m, p.e);
  }
  const XfNum z = xd_unpack62(c);
  bool nx = np, ny = xd_sign(c);
  uint64_t xhi = phi, xlo = plo, yhi = z.m, ylo = 0ul;
  int ex = pe, ey = z.e - 64;
  if (ey > ex || (ey == ex && (yhi > xhi || (yhi == xhi && ylo > xlo)))) {  // x: the larger magnitude
    nx = ny; ny = np;
    xhi = z.m; xlo = 0ul; yhi = phi; ylo = plo;
    const int te = ex; ex = ey; ey = te;
  }
  const int d = ex - ey;
  const uint64_t ya_lo = xd_shr_lo(yhi, ylo, d), ya_hi = xd_shr_hi(yhi, d);
  uint64_t rhi, rlo;
  if (nx == ny) {
    rlo = xlo + ya_lo;
    rhi = xhi + ya_hi + (rlo < xlo ? 1ul : 0ul);
  } else {
    rlo = xlo - ya_lo;
    rhi = xhi - ya_hi - (xlo < ya_lo ? 1ul : 0ul);
    if (rhi == 0ul && rlo == 0ul) return 0ul;  // exact cancellation is +0
  }
  const XfNum r = xd_pack128(rhi, rlo, ex);
  return xd_round(nx, r.m, r.e);
}

uint64_t xd_div(uint64_t a, uint64_t b) {
  if (xd_isnan(a) || xd_isnan(b)) return XD_NAN;
  const uint64_t s = (a ^ b) & XD_SIGN;
  if (xd_isinf(a)) return xd_isinf(b) ? XD_NAN : s | XD_INF;
  if (xd_isinf(b)) return s;
  if (xd_iszero(b)) return xd_iszero(a) ? XD_NAN : s | XD_INF;
  if (xd_iszero(a)) return s;
  const XfNum x = xd_unpack62(a), y = xd_unpack62(b);
  // Long division of the 53-bit significands: 55 quotient bits and a
  // sticky remainder.
  const uint64_t my = y.m >> 10;
  uint64_t r = x.m >> 10, q = 0ul;
  int e = (x.e + 10) - (y.e + 10) - 54;
  if (r < my) {
    r <<= 1;
    e -= 1;
  }
  for (int i = 0; i < 55; ++i) {
    q <<= 1;
    if (r >= my) {
      r -= my;
      q |= 1ul;
    }
    r <<= 1;
  }
  return xd_round(s != 0ul, (q << 1) | (r != 0ul ? 1ul : 0ul), e - 1);
}

uint64_t xd_sqrt(uint64_t a) {
  if (xd_isnan(a)) return XD_NAN;
  if (xd_iszero(a)) return a;
  if (xd_sign(a)) return XD_NAN;
  if (xd_isinf(a)) return a;
  XfNum x = xd_unpack62(a);
  uint64_t m = x.m >> 10;  // 53 bits
  int e = x.e + 10;
  if ((e & 1) != 0) {
    m <<= 1;
    e -= 1;
  }
  // Digit by digit over the radicand m * 2^58 (bit pairs fed from m): a
  // 56-bit root and the remainder.
  uint64_t rem = 0ul, root = 0ul;
  for (int i = 55; i >= 0; --i) {
    const int p = 2 * i;
    const uint64_t pair = p >= 58 ? (m >> (p - 58)) & 3ul : 0ul;
    rem = (rem << 2) | pair;
    const uint64_t trial = (root << 2) | 1ul;
    if (rem >= trial) {
      rem -= trial;
      root = (root << 1) | 1ul;
    } else {
      root <<= 1;
    }
  }
  return xd_round(false, (root << 1) | (rem != 0ul ? 1ul : 0ul), (e - 58) / 2 - 1);
}

// v < 0, read in 32 bits from v's high word. Why not `v < 0l`: lavapipe
// (Mesa 22.3, LLVM 15) compiles a 64-bit signed compare against a constant,
// or `uint64_t(v) >> 63`, of an int sign-extended to int64 (the call site's
// `int64_t(e)`, e an int) as if the extension had been a zero extension; the
// value itself is right. xd_from_int64(int64_t(-5)) gave 2^64 there.
bool xd_int64_neg(int64_t v) { return int(uint(uint64_t(v) >> 32)) < 0; }

uint64_t xd_from_int64(int64_t v) {
  const uint64_t u = uint64_t(v);
  if (u == 0ul) return 0ul;
  const bool neg = xd_int64_neg(v);
  return xd_round(neg, neg ? 0ul - u : u, 0);
}

// float64 -> an integer type of [lo, hi] as backend/cpu/convert.h converts:
// NaN -> 0, a <= lo -> lo, a >= hi + 1 -> hi, else truncated toward zero.
// lo and hi + 1 are exact doubles for every integer dtype (hi + 1 = 2^63
// for int64, where hi itself rounds up to it).
int64_t xd_to_int64_sat(uint64_t a, int64_t lo, int64_t hi) {
  if (xd_isnan(a)) return int64_t(0);
  if (xd_le(a, xd_from_int64(lo))) return lo;
  if (xd_le(xd_add(xd_from_int64(hi), XD_ONE), a)) return hi;
  const int e = int((a >> 52) & 0x7fful) - 1075;  // |a| = m * 2^e
  const uint64_t m = (a & 0x000ffffffffffffful) | 0x0010000000000000ul;
  const uint64_t t = e >= 0 ? m << e : e > -53 ? m >> (-e) : 0ul;  // |a| < 2^63 here
  return xd_sign(a) ? int64_t(0ul - t) : int64_t(t);
}

uint64_t xd_from_f32(uint f) {
  const uint64_t s = uint64_t(f & XF_SIGN) << 32;
  if (xf_isnan(f)) return XD_NAN;
  if (xf_isinf(f)) return s | XD_INF;
  if (xf_iszero(f)) return s;
  const XfNum x = xf_unpack62(f);
  return s | xd_round(false, x.m, x.e);  // exact
}

uint xd_to_f32(uint64_t a) {
  const uint s = uint(a >> 32) & XF_SIGN;
  if (xd_isnan(a)) return XF_NAN;
  if (xd_isinf(a)) return s | XF_INF;
  if (xd_iszero(a)) return s;
  const XfNum x = xd_unpack62(a);  // exact 53 bits: no sticky bit to mind
  return xf_round(s != 0u, x.m, x.e);
}

// float64 -> float32 rounded to odd (backend/cpu/convert.h's
// round_to_odd_f32): toward zero, the last bit set when inexact, so that one
// more rounding, to float16 or bfloat16, is the single correct rounding of
// the double (a NaN gives XF_NAN).
uint xd_to_f32_odd(uint64_t a) {
  uint r = xd_to_f32(a);
  const uint64_t back = xd_from_f32(r);
  if (xd_isnan(a) || back == a) return r;
  if ((back & XD_ABS) > (a & XD_ABS)) r -= 1u;  // rounded up in magnitude: one step down
  return r | 1u;
}

#endif
