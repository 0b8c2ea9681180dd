// shaders/math64.glsl — float64 math functions for elementwise_float.glsl
// (GLSL has no double exp or log). The float32 schemes of math.glsl with
// float64 constants and longer polynomials, within the op table's ulp(4):
//   exp, expm1     x = k ln2 + r (ln2 in two parts), Taylor polynomial in r
//                  to r^14 (truncation below 2^-60)
//   log, log2,     x = 2^e m, m in [sqrt(1/2), sqrt(2)), log m = 2 atanh(s),
//   log1p          s = f / (2 + f), the series to s^23; log1p corrects 1 + x
//   tanh, sigmoid  from expm1 / exp
// Not here (the CPU fallback serves them): sin, cos, tan (a reduction exact
// for huge arguments needs 120-bit fixed point), erf, gelu, atan2, pow.
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

// 1 / (1 + e^-x) as the CPU computes it: 0 once e^-x overflows (x < -709.78).
double d_sigmoid(double x) {
  if (isnan(x)) return x;
  precise double d = 1.0lf + d_exp(-x);
  return div_rn(1.0lf, d);
}

#endif
