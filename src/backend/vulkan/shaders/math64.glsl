// shaders/math64.glsl — float64 math functions for elementwise_float.glsl
// (GLSL has no double exp or log). The float32 schemes of math.glsl with
// float64 constants and longer polynomials, within the op table's ulp(4):
//   exp, expm1     x = k ln2 + r (ln2 in two parts), Taylor polynomial in r
//                  to r^14 (truncation below 2^-60)
//   log, log2,     x = 2^e m, m in [sqrt(1/2), sqrt(2)), log m = 2 atanh(s),
//   log1p          s = f / (2 + f), the series to s^23; log1p corrects 1 + x
//   tanh, sigmoid  from expm1 / exp
//   sin, cos, tan  quadrant and remainder of x mod pi/2 from 2/pi's bits in
//                  128-bit integer fixed point, then polynomials to r^19
//   erf, gelu, atan2, pow: math64_special.glsl
#ifndef CONCORD_MATH64_GLSL
#define CONCORD_MATH64_GLSL

const double LN2_HI_D = 6.93147180369123816490e-01lf;  // k * LN2_HI_D is exact for |k| < 2^21
const double LN2_LO_D = 1.90821492927058770002e-10lf;
const double INV_LN2_D = 1.44269504088896338700e+00lf;

double expm1_poly(double r) {
  double p = 1.1470745597729725e-11lf;
  p = fma(p, r, 1.6059043836821613e-10lf);
  p = fma(p, r, 2.08767569878681e-09lf);
  p = fma(p, r, 2.505210838544172e-08lf);
  p = fma(p, r, 2.755731922398589e-07lf);
  p = fma(p, r, 2.7557319223985893e-06lf);
  p = fma(p, r, 2.48015873015873e-05lf);
  p = fma(p, r, 0.0001984126984126984lf);
  p = fma(p, r, 0.001388888888888889lf);
  p = fma(p, r, 0.008333333333333333lf);
  p = fma(p, r, 0.041666666666666664lf);
  p = fma(p, r, 0.16666666666666666lf);
  p = fma(p, r, 0.5lf);
  precise double r2 = r * r;
  precise double s = r + r2 * p;
  return s;
}

double reduce_ln2(double x, out int k) {
  const double kf = roundEven(x * INV_LN2_D);
  k = int(kf);
  precise double r = (x - kf * LN2_HI_D) - kf * LN2_LO_D;
  return r;
}

double d_exp(double x) {
  if (isnan(x)) return x;
  if (x > 709.782712893384lf) return f_inf();
  if (x < -745.1332191019412lf) return 0.0lf;
  int k;
  const double r = reduce_ln2(x, k);
  precise double m = 1.0lf + expm1_poly(r);
  return scale2(m, k);
}

double d_expm1(double x) {
  if (isnan(x)) return x;
  if (x > 709.782712893384lf) return f_inf();
  if (x < -40.0lf) return -1.0lf;
  if (abs(x) <= 0.34657359027997264lf) return expm1_poly(x);
  int k;
  const double r = reduce_ln2(x, k);
  const double e = expm1_poly(r);
  if (k > 53) {
    precise double v = 1.0lf + e;
    return scale2(v, k);
  }
  const double p = pow2(k);  // 2^k (1 + e) - 1 = 2^k e + (2^k - 1)
  precise double v = p * e + (p - 1.0lf);
  return v;
}

// x = 2^e (1 + f), 1 + f in [sqrt(1/2), sqrt(2)); returns log(1 + f) and e.
double log_parts(double x, out int e) {
  int ex;
  const uint64_t n = significand(x, ex);
  e = ex + 52;
  double m = uint64BitsToDouble((n & 0xffffffffffffful) | 0x3ff0000000000000ul);
  if (m > 1.4142135623730951lf) { m *= 0.5lf; e += 1; }
  precise double f = m - 1.0lf;
  const double s = f / (2.0lf + f);
  const double z = s * s;
  double R = 0.08695652173913043lf;
  R = fma(R, z, 0.09523809523809523lf);
  R = fma(R, z, 0.10526315789473684lf);
  R = fma(R, z, 0.11764705882352941lf);
  R = fma(R, z, 0.13333333333333333lf);
  R = fma(R, z, 0.15384615384615385lf);
  R = fma(R, z, 0.18181818181818182lf);
  R = fma(R, z, 0.2222222222222222lf);
  R = fma(R, z, 0.2857142857142857lf);
  R = fma(R, z, 0.4lf);
  R = fma(R, z, 0.6666666666666666lf);
  R *= z;  // 2/3 z + 2/5 z^2 + ... + 2/23 z^11
  precise double hfsq = 0.5lf * f * f;
  precise double l = f - (hfsq - s * (hfsq + R));
  return l;
}

double d_log(double x) {
  if (isnan(x) || x < 0.0lf) return f_nan();
  if (x == 0.0lf) return -f_inf();
  if (isinf(x)) return x;
  int e;
  const double l = log_parts(x, e);
  const double fe = double(e);
  precise double v = fe * LN2_HI_D + (l + fe * LN2_LO_D);
  return v;
}

double d_log2(double x) {
  if (isnan(x) || x < 0.0lf) return f_nan();
  if (x == 0.0lf) return -f_inf();
  if (isinf(x)) return x;
  int e;
  const double l = log_parts(x, e);
  precise double v = double(e) + l * INV_LN2_D;
  return v;
}

double d_log1p(double x) {
  if (isnan(x) || x < -1.0lf) return f_nan();
  if (x == -1.0lf) return -f_inf();
  if (isinf(x)) return x;
  if (abs(x) < 1.1102230246251565e-16lf) return x;  // |x| < 2^-53
  precise double u = 1.0lf + x;
  precise double c = x < 9007199254740992.0lf ? (x - (u - 1.0lf)) / u : 0.0lf;
  int e;
  const double l = log_parts(u, e);
  const double fe = double(e);
  precise double v = fe * LN2_HI_D + (l + (fe * LN2_LO_D + c));
  return v;
}

double d_tanh(double x) {
  if (isnan(x)) return x;
  const double a = abs(x);
  if (a > 19.07lf) return x < 0.0lf ? -1.0lf : 1.0lf;
  const double e = d_expm1(2.0lf * a);
  precise double d = e + 2.0lf;
  const double v = div_rn(e, d);
  return x < 0.0lf ? -v : v;
}

// 1 / (1 + e^-x) as the CPU computes it; below -708, where e^-x overflows,
// e^x (the CPU's too: sigmoid is e^x to the last bit there, subnormal down to
// -745.1).
double d_sigmoid(double x) {
  if (isnan(x)) return x;
  if (x < -708.0lf) return d_exp(x);
  precise double d = 1.0lf + d_exp(-x);
  return div_rn(1.0lf, d);
}

// ---------------------------------------------------------------- sin, cos, tan
// |x| mod pi/2: x * 2/pi in 2.126 fixed point (two uint64, wrapping mod 4),
// from x's significand in two parts times the 32-bit words of 2/pi it needs;
// 126 bits keep float64's worst cancellation (about 2^-61) exact enough.
const uint TWO_OVER_PI_D[44] = uint[44](0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u, 0xdb629599u, 0x3c439041u, 0xfe5163abu, 0xdebbc561u, 0xb7246e3au, 0x424dd2e0u, 0x06492eeau, 0x09d1921cu, 0xfe1deb1cu, 0xb129a73eu, 0xe88235f5u, 0x2ebb4484u, 0xe99c7026u, 0xb45f7e41u, 0x3991d639u, 0x835339f4u, 0x9c845f8bu, 0xbdf9283bu, 0x1ff897ffu, 0xde05980fu, 0xef2f118bu, 0x5a0a6d1fu, 0x6d367ecfu, 0x27cb09b7u, 0x4f463f66u, 0x9e5fea2du, 0x7527bac7u, 0xebe5f17bu, 0x3d0739f7u, 0x8a5292eau, 0x6bfb5fb1u, 0x1f8d5d08u, 0x56033046u, 0xfc7b6babu, 0xf0cfbc20u, 0x9af4361du, 0xa9e39161u, 0x5ee61b08u, 0x6599855fu, 0x14a06840u);

// (hi, lo) += p 2^sh, modulo 2^128 (sh in units of the fixed point).
void add128(inout uint64_t hi, inout uint64_t lo, uint64_t p, int sh) {
  if (sh >= 128 || sh <= -64) return;
  uint64_t ah = 0ul, al = 0ul;
  if (sh >= 64) ah = p << (sh - 64);
  else if (sh > 0) { al = p << sh; ah = p >> (64 - sh); }
  else if (sh == 0) al = p;
  else al = p >> (-sh);
  lo += al;
  hi += ah + (lo < al ? 1ul : 0ul);
}

double two_prod_err_d(double a, double b, double p) {
  precise double ca = 134217729.0lf * a;
  precise double ah = ca - (ca - a);
  precise double al = a - ah;
  precise double cb = 134217729.0lf * b;
  precise double bh = cb - (cb - b);
  precise double bl = b - bh;
  precise double e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
  return e;
}

// The quadrant (mod 4) and |x| - q pi/2 = rh + rl in [-pi/4, pi/4].
double reduce_pio2(double ax, out int q, out double rl) {
  rl = 0.0lf;
  if (ax <= 0.78539816339744828lf) { q = 0; return ax; }
  int E;
  const uint64_t M = significand(ax, E);  // ax = M 2^E, M < 2^53
  const uint64_t Mh = M >> 32, Ml = M & 0xfffffffful;
  uint64_t hi = 0ul, lo = 0ul;
  for (int j = 0; j < 44; ++j) {
    const int sh = E - 32 * j + 94;  // M w_j 2^(E - 32(j + 1)) in units of 2^-126
    if (sh + 32 <= -64) break;
    const uint64_t w = uint64_t(TWO_OVER_PI_D[j]);
    add128(hi, lo, Mh * w, sh + 32);
    add128(hi, lo, Ml * w, sh);
  }
  q = int(hi >> 62);
  uint64_t fh = hi & 0x3ffffffffffffffful, fl = lo;
  bool neg = false;
  if ((fh >> 61) != 0ul) {  // past half a quadrant: 1 - fraction, next quadrant
    q += 1;
    neg = true;
    fl = ~fl + 1ul;
    fh = (~fh + (fl == 0ul ? 1ul : 0ul)) & 0x3ffffffffffffffful;
  }
  int s = 0;  // normalise (fh:fl) so that fh's top bit is bit 63
  if (fh == 0ul) { fh = fl; fl = 0ul; s = 64; }
  if (fh == 0ul) return 0.0lf;
  const int z = 63 - msb64(fh);
  if (z > 0) { fh = (fh << z) | (fl >> (64 - z)); fl <<= z; }
  s += z;
  // value = (fh + fl 2^-64) 2^(-62 - s), split into doubles ah + al.
  const double ah = double(fh & 0xfffffffffffff800ul);
  const double al = double(fh & 0x7fful) + double(fl) * pow2(-64);
  const double PIO2_HI = 1.5707963267948966lf, PIO2_LO = 6.123233995736766e-17lf;
  precise double p = ah * PIO2_HI;
  precise double rest = two_prod_err_d(ah, PIO2_HI, p) + (ah * PIO2_LO + al * PIO2_HI);
  precise double rh = p + rest;
  precise double rlo = rest - (rh - p);
  const int k = -62 - s;
  rl = scale2(neg ? -rlo : rlo, k);
  return scale2(neg ? -rh : rh, k);
}

double sin_poly(double r) {
  const double z = r * r;
  double p = -8.22063524662433e-18lf;
  p = fma(p, z, 2.8114572543455206e-15lf);
  p = fma(p, z, -7.647163731819816e-13lf);
  p = fma(p, z, 1.6059043836821613e-10lf);
  p = fma(p, z, -2.505210838544172e-08lf);
  p = fma(p, z, 2.7557319223985893e-06lf);
  p = fma(p, z, -0.0001984126984126984lf);
  p = fma(p, z, 0.008333333333333333lf);
  p = fma(p, z, -0.16666666666666666lf);
  precise double s = r + r * z * p;
  return s;
}

double cos_poly(double r) {
  const double z = r * r;
  double p = 4.110317623312165e-19lf;
  p = fma(p, z, -1.5619206968586225e-16lf);
  p = fma(p, z, 4.779477332387385e-14lf);
  p = fma(p, z, -1.1470745597729725e-11lf);
  p = fma(p, z, 2.08767569878681e-09lf);
  p = fma(p, z, -2.755731922398589e-07lf);
  p = fma(p, z, 2.48015873015873e-05lf);
  p = fma(p, z, -0.001388888888888889lf);
  p = fma(p, z, 0.041666666666666664lf);
  precise double hz = 0.5lf * z;
  precise double w = 1.0lf - hz;
  precise double c = w + (((1.0lf - w) - hz) + z * z * p);
  return c;
}

double sin2(double r, double rl) {
  precise double v = sin_poly(r) + rl * (1.0lf - 0.5lf * r * r);
  return v;
}
double cos2(double r, double rl) {
  precise double v = cos_poly(r) - rl * r;
  return v;
}

double d_sin(double x) {
  if (isnan(x) || isinf(x)) return f_nan();
  int q;
  double rl;
  const double r = reduce_pio2(abs(x), q, rl);
  double v = (q & 1) == 0 ? sin2(r, rl) : cos2(r, rl);
  if ((q & 2) != 0) v = -v;
  return x < 0.0lf ? -v : v;
}

double d_cos(double x) {
  if (isnan(x) || isinf(x)) return f_nan();
  int q;
  double rl;
  const double r = reduce_pio2(abs(x), q, rl);
  double v = (q & 1) == 0 ? cos2(r, rl) : sin2(r, rl);
  if (((q + 1) & 2) != 0) v = -v;
  return v;
}

double d_tan(double x) {
  if (isnan(x) || isinf(x)) return f_nan();
  int q;
  double rl;
  const double r = reduce_pio2(abs(x), q, rl);
  const double s = sin2(r, rl), c = cos2(r, rl);
  const double v = (q & 1) == 0 ? div_rn(s, c) : -div_rn(c, s);
  return x < 0.0lf ? -v : v;
}

#include "math64_special.glsl"

#endif
