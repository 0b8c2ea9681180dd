// shaders/math64_special.glsl — float64 erf, gelu, atan2 and pow, included
// by math64.glsl (whose exp, reductions and two_prod_err_d they use):
//   erf            Taylor series below 1, else exp(-z^2) (z^2 exact) times
//                  erfc's continued fraction (from 1/2 on for gelu)
//   atan2          atan on [0, 1] (a series after halving the range)
//   gelu           x/2 erfc(-x/sqrt 2) from the same two, z kept in two parts
//   pow            2^(y log2|x|), log2 (2 atanh, the leading terms in two
//                  doubles) and the product in two doubles
#ifndef CONCORD_MATH64_SPECIAL_GLSL
#define CONCORD_MATH64_SPECIAL_GLSL

// ---------------------------------------------------------------- erf, atan2
const double TWO_OVER_SQRTPI_D = 1.1283791670955126lf;
const double INV_SQRTPI_D = 0.5641895835477563lf;

// erf(x) for |x| < 1: Taylor series in x^2 (terms to x^39: below 2^-57).
double erf_series(double x) {
  const double z = x * x;
  double p = -2.107855191442136e-19lf;
  p = fma(p, z, 4.221407288807088e-18lf);
  p = fma(p, z, -8.032735012415773e-17lf);
  p = fma(p, z, 1.4483264643598138e-15lf);
  p = fma(p, z, -2.466827010264457e-14lf);
  p = fma(p, z, 3.9554295164585257e-13lf);
  p = fma(p, z, -5.9477940136376354e-12lf);
  p = fma(p, z, 8.35070279514724e-11lf);
  p = fma(p, z, -1.0892221037148573e-09lf);
  p = fma(p, z, 1.3122532963802806e-08lf);
  p = fma(p, z, -1.4503852223150468e-07lf);
  p = fma(p, z, 1.4589169000933706e-06lf);
  p = fma(p, z, -1.3227513227513228e-05lf);
  p = fma(p, z, 0.00010683760683760684lf);
  p = fma(p, z, -0.0007575757575757576lf);
  p = fma(p, z, 0.004629629629629629lf);
  p = fma(p, z, -0.023809523809523808lf);
  p = fma(p, z, 0.1lf);
  p = fma(p, z, -0.3333333333333333lf);
  precise double s = x + x * z * p;
  return s * TWO_OVER_SQRTPI_D;
}

// erfc(z + zl) = v 2^k for z >= 1/2, zl a small correction to z (as
// math.glsl's erfc_cf, with terms for 2^-60: the fraction converges slowly
// near 1/2).
double erfc_cf(double z, double zl, out int k) {
  k = 0;
  if (z > 27.3lf) return 0.0lf;
  const int n = z < 0.7lf ? 1024 : z < 1.0lf ? 512 : z < 1.2lf ? 256 : z < 1.5lf ? 180 : z < 2.0lf ? 128
              : z < 3.0lf ? 80 : 48;
  double t = z;
  for (int i = n; i >= 1; --i) t = z + (double(i) * 0.5lf) / t;
  precise double h = z * z;
  const double l = two_prod_err_d(z, z, h);
  const double r = reduce_ln2(-h, k);
  precise double e = (1.0lf + expm1_poly(r)) * (1.0lf - l);
  precise double v = e * (div_rn(INV_SQRTPI_D, t) - zl * TWO_OVER_SQRTPI_D);
  return v;
}

double d_erf(double x) {
  if (isnan(x)) return x;
  const double a = abs(x);
  if (a < 1.0lf) return erf_series(x);
  if (a >= 5.93lf) return x < 0.0lf ? -1.0lf : 1.0lf;
  int k;
  const double c = erfc_cf(a, 0.0lf, k);
  precise double v = 1.0lf - scale2(c, k);
  return x < 0.0lf ? -v : v;
}

// gelu(x) = x/2 erfc(-x/sqrt 2), as math_special.glsl's m_gelu.
double d_gelu(double x) {
  if (isnan(x)) return x;
  if (isinf(x)) return x > 0.0lf ? x : -0.0lf;
  const double C_HI = 0.70710678118654757lf, C_LO = -4.8336466567264567e-17lf;
  precise double z = -x * C_HI;
  precise double zl = two_prod_err_d(-x, C_HI, z) + -x * C_LO;
  if (z >= 0.5lf) {
    int k;
    const double c = erfc_cf(z, zl, k);
    precise double v = x * 0.5lf * c;
    return scale2(v, k);
  }
  double e;
  if (z > -1.0lf) {
    precise double d = 1.0lf - erf_series(z);
    e = d;
  } else if (z > -5.93lf) {
    int k;
    const double c = erfc_cf(-z, 0.0lf, k);
    precise double d = 2.0lf - scale2(c, k);
    e = d;
  } else {
    e = 2.0lf;
  }
  precise double v = x * 0.5lf * e;
  return v;
}

// The series of atan on |u| <= 1/2 (to u^57: below 2^-58).
double atan_series(double u) {
  const double z = u * u;
  double p = 1.0lf / 57.0lf;
  for (int k = 55; k >= 3; k -= 2) p = fma(p, z, ((k & 2) != 0 ? -1.0lf : 1.0lf) / double(k));
  precise double s = u + u * z * p;
  return s;
}
// atan(n/d) for 0 < n <= d, with the quotient carried in two doubles: the
// rounding of n/d alone (or of t - 1 over t + 1 from a rounded t) cost up to
// 2.2 ULP. Below 1/2: t + tl = n/d; above: pi/4 + atan(u), u = (n - d)/(n + d)
// with n - d exact (Sterbenz) and n + d = s + e exactly.
double atan_ratio(double n, double d) {
  if (n + n <= d) {
    const double t = div_rn(n, d);
    precise double r = fma(-t, d, n);  // exact
    precise double v = atan_series(t) + div_rn(r, d) / (1.0lf + t * t);
    return v;
  }
  if (d > 1.0e307lf) { n *= 0.25lf; d *= 0.25lf; }  // n + d must not overflow (both are large: exact)
  precise double num = n - d;  // exact
  precise double s = n + d;
  precise double bb = s - n;
  precise double e = (n - (s - bb)) + (d - bb);  // n + d = s + e
  const double q = div_rn(num, s);
  precise double r = fma(-q, s, num) - q * e;  // num - q (s + e)
  precise double a = atan_series(q) + div_rn(r, s) / (1.0lf + q * q);
  const double PIO4_HI = 7.85398163397448278999e-01lf, PIO4_LO = 3.06161699786838301793e-17lf;
  precise double v = PIO4_HI + (a + PIO4_LO);
  return v;
}

double d_atan2(double y, double x) {
  if (isnan(x) || isnan(y)) return f_nan();
  const double PI_HI = 3.14159265358979311600e+00lf, PI_LO = 1.22464679914735317720e-16lf;
  const double PIO2_HI = 1.57079632679489655800e+00lf, PIO2_LO = 6.12323399573676588613e-17lf;
  const bool ny = f_signbit(y), nx = f_signbit(x);
  double a;
  if (y == 0.0lf) a = nx ? PI_HI : 0.0lf;
  else if (isinf(x) && isinf(y)) a = nx ? 2.35619449019234492885e+00lf : 7.85398163397448278999e-01lf;
  else if (x == 0.0lf || isinf(y)) a = PIO2_HI;
  else if (isinf(x)) a = nx ? PI_HI : 0.0lf;
  else {
    const double ax = abs(x), ay = abs(y);
    if (ay <= ax) {
      a = atan_ratio(ay, ax);
    } else {
      precise double c = PIO2_HI - (atan_ratio(ax, ay) - PIO2_LO);
      a = c;
    }
    if (nx) { precise double c = PI_HI - (a - PI_LO); a = c; }
  }
  return ny ? -a : a;
}

// ---------------------------------------------------------------- pow
double two_sum_err_d(double a, double b, double s) {
  precise double bb = s - a;
  precise double e = (a - (s - bb)) + (b - bb);
  return e;
}

// log2(x) = h + l for positive finite x, to about 2^-62 relative: log(m) =
// 2 atanh(s), s = (m - 1)/(m + 1), with s, s^3 and the leading 2/3 carried in
// two doubles (the rest of the series is below 1% of the tail).
double log2_hl(double x, out double l) {
  int ex;
  const uint64_t n = significand(x, ex);
  int e = ex + 52;
  double m = uint64BitsToDouble((n & 0xffffffffffffful) | 0x3ff0000000000000ul);
  if (m > 1.4142135623730951lf) { m *= 0.5lf; e += 1; }
  precise double f = m - 1.0lf;  // exact
  precise double dh = m + 1.0lf;
  const double dl = two_sum_err_d(m, 1.0lf, dh);
  const double sh = div_rn(f, dh);
  precise double p = sh * dh;
  const double pe = two_prod_err_d(sh, dh, p);
  precise double sl = (((f - p) - pe) - sh * dl) / dh;
  // z = s^2 = zh + zl, s^3 = ch + cl
  precise double zh = sh * sh;
  precise double zl = two_prod_err_d(sh, sh, zh) + 2.0lf * sh * sl;
  precise double ch = sh * zh;
  precise double cl = two_prod_err_d(sh, zh, ch) + (sh * zl + sl * zh);
  // Q = 2/3 + 2/5 z + 2/7 z^2 + ... = qh + ql
  double R = 0.07407407407407407lf;
  R = fma(R, zh, 0.08lf);
  R = fma(R, zh, 0.08695652173913043lf);
  R = fma(R, zh, 0.09523809523809523lf);
  R = fma(R, zh, 0.10526315789473684lf);
  R = fma(R, zh, 0.11764705882352941lf);
  R = fma(R, zh, 0.13333333333333333lf);
  R = fma(R, zh, 0.15384615384615385lf);
  R = fma(R, zh, 0.18181818181818182lf);
  R = fma(R, zh, 0.2222222222222222lf);
  R = fma(R, zh, 0.2857142857142857lf);
  R = fma(R, zh, 0.4lf);
  precise double w = zh * R;
  precise double qh = 0.6666666666666666lf + w;
  precise double ql = two_sum_err_d(0.6666666666666666lf, w, qh) + 3.700743415417188e-17lf;
  // T = s^3 Q, log(m) = 2s + T = lh + ll
  precise double th = ch * qh;
  precise double tl = two_prod_err_d(ch, qh, th) + (ch * ql + cl * qh);
  precise double lh = 2.0lf * sh + th;
  precise double ll = two_sum_err_d(2.0lf * sh, th, lh) + (2.0lf * sl + tl);
  // times 1/ln2 = IH + IL, plus e
  const double IH = 1.4426950408889634lf, IL = 2.0355273740931033e-17lf;
  precise double ph = lh * IH;
  precise double pl = two_prod_err_d(lh, IH, ph) + (lh * IL + ll * IH);
  const double fe = double(e);
  precise double h = fe + ph;
  precise double lo = two_sum_err_d(fe, ph, h) + pl;
  precise double hh = h + lo;
  l = lo - (hh - h);
  return hh;
}

bool is_int_d(double y) { return floor(y) == y; }
bool is_odd_int_d(double y) {
  return is_int_d(y) && abs(y) < 9007199254740992.0lf && (int64_t(abs(y)) & 1l) != 0l;
}

// x^y (C's pow special cases); |x|^y = 2^(y log2|x|) with log2 and the
// product in two doubles.
double d_pow(double x, double y) {
  if (y == 0.0lf || x == 1.0lf) return 1.0lf;
  if (isnan(x) || isnan(y)) return f_nan();
  const double ax = abs(x);
  const bool neg = f_signbit(x) && is_odd_int_d(y);
  if (isinf(y)) {
    if (ax == 1.0lf) return 1.0lf;
    return (ax < 1.0lf) == (y < 0.0lf) ? f_inf() : 0.0lf;
  }
  if (ax == 0.0lf || isinf(ax)) {
    const bool big = (ax == 0.0lf) == (y < 0.0lf);
    const double v = big ? f_inf() : 0.0lf;
    return neg ? -v : v;
  }
  if (x < 0.0lf && !is_int_d(y)) return f_nan();
  // (-1)^y for an integer y: y * log2(1) is 0, but splitting a huge y overflows.
  if (ax == 1.0lf) return neg ? -1.0lf : 1.0lf;
  double ll;
  const double lh = log2_hl(ax, ll);
  precise double th = y * lh;
  precise double tl = two_prod_err_d(y, lh, th) + y * ll;
  double v;
  if (th > 1024.5lf) v = f_inf();
  else if (th < -1076.0lf) v = 0.0lf;
  else {
    const double k = roundEven(th);
    precise double r = (th - k) + tl;  // th - k is exact
    precise double u = r * 6.93147180559945286227e-01lf;
    precise double m = 1.0lf + expm1_poly(u);
    v = scale2(m, int(k));
  }
  return neg ? -v : v;
}

#endif
