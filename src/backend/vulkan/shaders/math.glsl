// shaders/math.glsl — float32 math functions for elementwise_float.glsl
// (float32 and the halves, which compute in float32). GLSL's built-ins carry
// no precision promise that meets the op table (exp is 3 + 2|x| ULP in the
// Vulkan spec, sin/cos absolute error only), so each is a range reduction
// and a polynomial, within the table's ulp(4) on every float32 input:
//   exp, expm1     x = k ln2 + r (ln2 in two parts), Taylor polynomial in r
//   log, log2,     x = 2^e m, m in [sqrt(1/2), sqrt(2)), log m = 2 atanh(s),
//   log1p          s = f / (2 + f) (fdlibm's scheme); log1p corrects 1 + x
//   sin, cos, tan  quadrant and remainder of x mod pi/2 from 2/pi's bits in
//                  integer fixed point (exact for huge |x|), then polynomials
//   tanh, sigmoid  from expm1 / exp
//   erf, gelu, atan2, pow: math_special.glsl
#ifndef CONCORD_MATH_GLSL
#define CONCORD_MATH_GLSL

const float LN2_HI = 6.9313812256e-01;  // 0x3f317180: k * LN2_HI is exact for |k| < 2^8
const float LN2_LO = 9.0580006145e-06;  // 0x3717f7d1
const float INV_LN2 = 1.4426950216e+00;

// a * b = p + err exactly (Dekker: Veltkamp splits, no fma needed).
float two_prod_err(float a, float b, float p) {
  precise float ca = 4097.0 * a;
  precise float ah = ca - (ca - a);
  precise float al = a - ah;
  precise float cb = 4097.0 * b;
  precise float bh = cb - (cb - b);
  precise float bl = b - bh;
  precise float e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
  return e;
}

// e^r - 1 for |r| <= ln2/2 (Taylor to r^9: truncation below 2^-30 relative).
float expm1_poly(float r) {
  float p = 1.0 / 362880.0;
  p = fma(p, r, 1.0 / 40320.0);
  p = fma(p, r, 1.0 / 5040.0);
  p = fma(p, r, 1.0 / 720.0);
  p = fma(p, r, 1.0 / 120.0);
  p = fma(p, r, 1.0 / 24.0);
  p = fma(p, r, 1.0 / 6.0);
  p = fma(p, r, 0.5);
  precise float r2 = r * r;
  precise float s = r + r2 * p;
  return s;
}

// x = k ln2 + r, |r| <= ln2/2 (plus rounding).
float reduce_ln2(float x, out int k) {
  const float kf = roundEven(x * INV_LN2);
  k = int(kf);
  precise float r = (x - kf * LN2_HI) - kf * LN2_LO;
  return r;
}

// e^x = m 2^k for -104 <= x <= 89: m = 1 + expm1_poly(r) in [0.7, 1.42].
float exp_parts(float x, out int k) {
  const float r = reduce_ln2(x, k);
  precise float m = 1.0 + expm1_poly(r);
  return m;
}

float m_exp(float x) {
  if (isnan(x)) return x;
  if (x > 88.72284) return f_inf();
  if (x < -103.98) return 0.0;
  int k;
  const float m = exp_parts(x, k);
  return scale2(m, k);
}

float m_expm1(float x) {
  if (isnan(x)) return x;
  if (x > 88.72284) return f_inf();
  if (x < -17.5) return -1.0;
  if (abs(x) <= 0.34657359) return expm1_poly(x);
  int k;
  const float r = reduce_ln2(x, k);
  const float e = expm1_poly(r);
  if (k > 24) {
    precise float v = 1.0 + e;
    return scale2(v, k);
  }
  // 2^k (1 + e) - 1 = 2^k e + (2^k - 1), the latter exact for |k| <= 24.
  const float p = pow2(k);
  precise float v = p * e + (p - 1.0);
  return v;
}

// x = 2^e (1 + f), 1 + f in [sqrt(1/2), sqrt(2)); returns log(1 + f) and e.
float log_parts(float x, out int e) {
  int ex;
  const uint n = significand(x, ex);  // x = n 2^ex, n in [2^23, 2^24)
  e = ex + 23;
  float m = uintBitsToFloat((n & 0x7fffffu) | 0x3f800000u);  // [1, 2)
  if (m > 1.41421356) { m *= 0.5; e += 1; }
  precise float f = m - 1.0;  // exact
  const float s = f / (2.0 + f);
  const float z = s * s;
  float R = 2.0 / 9.0;
  R = fma(R, z, 2.0 / 7.0);
  R = fma(R, z, 2.0 / 5.0);
  R = fma(R, z, 2.0 / 3.0);
  R *= z;
  precise float hfsq = 0.5 * f * f;
  precise float l = f - (hfsq - s * (hfsq + R));
  return l;
}

float m_log(float x) {
  if (isnan(x) || x < 0.0) return f_nan();
  if (x == 0.0) return -f_inf();
  if (isinf(x)) return x;
  int e;
  const float l = log_parts(x, e);
  const float fe = float(e);
  precise float v = fe * LN2_HI + (l + fe * LN2_LO);
  return v;
}

float m_log2(float x) {
  if (isnan(x) || x < 0.0) return f_nan();
  if (x == 0.0) return -f_inf();
  if (isinf(x)) return x;
  int e;
  const float l = log_parts(x, e);
  precise float v = float(e) + l * INV_LN2;
  return v;
}

float m_log1p(float x) {
  if (isnan(x) || x < -1.0) return f_nan();
  if (x == -1.0) return -f_inf();
  if (isinf(x)) return x;
  if (abs(x) < 5.9604645e-08) return x;  // |x| < 2^-24: log1p(x) rounds to x
  precise float u = 1.0 + x;
  // u rounds 1 + x; c is what it lost, relative to u: log1p(x) ~ log(u) + c.
  precise float c = x < 1.6777216e7 ? (x - (u - 1.0)) / u : 0.0;
  int e;
  const float l = log_parts(u, e);
  const float fe = float(e);
  precise float v = fe * LN2_HI + (l + (fe * LN2_LO + c));
  return v;
}

// |x| mod pi/2 for finite x: the quadrant (mod 4) and the remainder in
// [-pi/4, pi/4]. x * 2/pi is formed in 2.62 fixed point (wrapping mod 4)
// from x's integer significand and the bits of 2/pi it needs.
const uint TWO_OVER_PI[8] = uint[8](0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u, 0xdb629599u, 0x3c439041u,
                                     0xfe5163abu, 0xdebbc561u);
float reduce_pio2(float ax, out int q, out float rl) {
  rl = 0.0;
  if (ax <= 0.78539816) { q = 0; return ax; }
  int E;
  const uint64_t M = uint64_t(significand(ax, E));  // ax = M 2^E, M < 2^24
  uint64_t acc = 0ul;
  for (int j = 0; j < 8; ++j) {
    // M w_j 2^(E - 32(j + 1)) in units of 2^-62.
    const int sh = E - 32 * j + 30;
    if (sh >= 64) continue;  // a multiple of 4
    if (sh <= -64) break;
    const uint64_t p = M * uint64_t(TWO_OVER_PI[j]);
    acc += sh >= 0 ? p << sh : p >> (-sh);
  }
  q = int(acc >> 62);
  int64_t f = int64_t(acc & 0x3ffffffffffffffful);  // [0, 1) of a quadrant
  if (f >= (1l << 61)) { f -= 1l << 62; q += 1; }   // [-1/2, 1/2)
  // r = f 2^-62 pi/2 as rh + rl: f = fh + fl, pi/2 = PIO2_HI + PIO2_LO.
  const float fh = float(f);
  const float fl = float(f - int64_t(fh));
  const float PIO2_HI = 1.5707963705e+00, PIO2_LO = -4.3711388287e-08;
  precise float p = fh * PIO2_HI;
  precise float rest = two_prod_err(fh, PIO2_HI, p) + (fl * PIO2_HI + fh * PIO2_LO);
  precise float rh = p + rest;
  precise float lo = rest - (rh - p);
  rl = lo * pow2(-62);
  return rh * pow2(-62);
}

float sin_poly(float r) {
  const float z = r * r;
  float p = 1.0 / 362880.0;
  p = fma(p, z, -1.0 / 5040.0);
  p = fma(p, z, 1.0 / 120.0);
  p = fma(p, z, -1.0 / 6.0);
  precise float s = r + r * z * p;
  return s;
}

float cos_poly(float r) {
  const float z = r * r;
  float p = -1.0 / 3628800.0;
  p = fma(p, z, 1.0 / 40320.0);
  p = fma(p, z, -1.0 / 720.0);
  p = fma(p, z, 1.0 / 24.0);
  precise float hz = 0.5 * z;
  precise float w = 1.0 - hz;
  precise float c = w + (((1.0 - w) - hz) + z * z * p);
  return c;
}

// sin and cos of r + rl (rl: the reduction's low part, |rl| << ulp(r)).
float sin2(float r, float rl) {
  precise float v = sin_poly(r) + rl * (1.0 - 0.5 * r * r);
  return v;
}
float cos2(float r, float rl) {
  precise float v = cos_poly(r) - rl * r;
  return v;
}

float m_sin(float x) {
  if (isnan(x) || isinf(x)) return f_nan();
  int q;
  float rl;
  const float r = reduce_pio2(abs(x), q, rl);
  float v = (q & 1) == 0 ? sin2(r, rl) : cos2(r, rl);
  if ((q & 2) != 0) v = -v;
  return x < 0.0 ? -v : v;
}

float m_cos(float x) {
  if (isnan(x) || isinf(x)) return f_nan();
  int q;
  float rl;
  const float r = reduce_pio2(abs(x), q, rl);
  float v = (q & 1) == 0 ? cos2(r, rl) : sin2(r, rl);
  if (((q + 1) & 2) != 0) v = -v;
  return v;
}

float m_tan(float x) {
  if (isnan(x) || isinf(x)) return f_nan();
  int q;
  float rl;
  const float r = reduce_pio2(abs(x), q, rl);
  const float s = sin2(r, rl), c = cos2(r, rl);
  const float v = (q & 1) == 0 ? div_rn(s, c) : -div_rn(c, s);
  return x < 0.0 ? -v : v;
}

// tanh = e / (e + 2), e = expm1(2|x|); rounds to +-1 beyond 9.011.
float m_tanh(float x) {
  if (isnan(x)) return x;
  const float a = abs(x);
  if (a > 9.0110) return x < 0.0 ? -1.0 : 1.0;
  const float e = m_expm1(2.0 * a);
  precise float d = e + 2.0;
  const float v = div_rn(e, d);
  return x < 0.0 ? -v : v;
}

// 1 / (1 + e^-x); far left it is e^x to within 2^-28 (and may be subnormal).
float m_sigmoid(float x) {
  if (isnan(x)) return x;
  if (x < -20.0) return m_exp(x);
  precise float d = 1.0 + m_exp(-x);
  return div_rn(1.0, d);
}

#include "math_special.glsl"

#endif
