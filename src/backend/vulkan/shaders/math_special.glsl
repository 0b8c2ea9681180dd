// shaders/math_special.glsl — float32 erf, gelu and pow, included by
// math.glsl (whose exp, reductions and two_prod_err they use):
//   erf, gelu      Taylor series near 0, else exp(-z^2) (z^2 exact) times
//                  erfc's continued fraction; gelu keeps z = -x/sqrt 2 in
//                  two parts where erfc is steep
//   pow            2^(y log2|x|), log2 and the product in two floats
// (float32 atan2 runs the CPU's canon_pow.h on bits in both modes:
// xmath32_pow.glsl.)
#ifndef CONCORD_MATH_SPECIAL_GLSL
#define CONCORD_MATH_SPECIAL_GLSL

const float TWO_OVER_SQRTPI = 1.1283791671;
const float INV_SQRTPI = 0.5641895835;

// erf(x) for |x| < 1: Taylor series in x^2 (terms to x^23: below 2^-27).
float erf_series(float x) {
  const float z = x * x;
  float p = -1.0 / (39916800.0 * 23.0);  // (-1)^n / (n! (2n + 1)), n = 11 .. 1
  p = fma(p, z, 1.0 / (3628800.0 * 21.0));
  p = fma(p, z, -1.0 / (362880.0 * 19.0));
  p = fma(p, z, 1.0 / (40320.0 * 17.0));
  p = fma(p, z, -1.0 / (5040.0 * 15.0));
  p = fma(p, z, 1.0 / (720.0 * 13.0));
  p = fma(p, z, -1.0 / (120.0 * 11.0));
  p = fma(p, z, 1.0 / (24.0 * 9.0));
  p = fma(p, z, -1.0 / (6.0 * 7.0));
  p = fma(p, z, 1.0 / (2.0 * 5.0));
  p = fma(p, z, -1.0 / 3.0);
  precise float s = x + x * z * p;  // x (1 - z/3 + ...)
  return s * TWO_OVER_SQRTPI;
}

// erfc(z + zl) = v 2^k for z >= 1/2 (zl a small correction to z): exp(-z^2)
// (z^2 formed exactly; its power of two kept apart, so that a tiny result is
// rounded once, by the caller) times the continued fraction 1/(sqrt(pi) (z +
// 1/2/(z + 1/(z + 3/2/(z + ...))))), evaluated backwards with enough terms
// for 2^-28.
float erfc_cf(float z, float zl, out int k) {
  k = 0;
  if (z > 10.1) return 0.0;
  const int n = z < 0.6 ? 256 : z < 0.7 ? 200 : z < 0.8 ? 128 : z < 1.0 ? 96 : z < 1.2 ? 64 : z < 1.5 ? 48 : 32;
  float t = z;
  for (int i = n; i >= 1; --i) t = z + (float(i) * 0.5) / t;
  precise float h = z * z;
  const float l = two_prod_err(z, z, h);
  precise float e = exp_parts(-h, k) * (1.0 - l);
  precise float v = e * (div_rn(INV_SQRTPI, t) - zl * TWO_OVER_SQRTPI);
  return v;
}

float m_erf(float x) {
  if (isnan(x)) return x;
  const float a = abs(x);
  if (a < 1.0) return erf_series(x);
  if (a >= 3.92) return x < 0.0 ? -1.0 : 1.0;
  int k;
  const float c = erfc_cf(a, 0.0, k);
  precise float v = 1.0 - scale2(c, k);
  return x < 0.0 ? -v : v;
}

// gelu(x) = x/2 erfc(-x/sqrt 2). For x < 0 erfc is small and steep, so
// z = -x/sqrt 2 is kept as z + zl (the product's error and the constant's tail).
float m_gelu(float x) {
  if (isnan(x)) return x;
  if (isinf(x)) return x > 0.0 ? x : -0.0;
  const float C_HI = 0.70710677, C_LO = 1.21016171e-08;
  precise float z = -x * C_HI;
  precise float zl = two_prod_err(-x, C_HI, z) + -x * C_LO;
  if (z >= 0.5) {
    int k;
    const float c = erfc_cf(z, zl, k);
    precise float v = x * 0.5 * c;
    return scale2(v, k);
  }
  float e;
  if (z > -1.0) {
    precise float d = 1.0 - erf_series(z);
    e = d;
  } else if (z > -3.92) {
    int k;
    const float c = erfc_cf(-z, 0.0, k);
    precise float d = 2.0 - scale2(c, k);
    e = d;
  } else {
    e = 2.0;
  }
  precise float v = x * 0.5 * e;
  return v;
}

// a + b = s + err exactly (Knuth's TwoSum).
float two_sum_err(float a, float b, float s) {
  precise float bb = s - a;
  precise float e = (a - (s - bb)) + (b - bb);
  return e;
}

// log2(x) = h + l for positive finite x, to about 2^-40 relative: log(m) =
// 2 atanh(s) with s = (m - 1)/(m + 1) carried in two floats.
float log2_hl(float x, out float l) {
  int ex;
  const uint n = significand(x, ex);
  int e = ex + 23;
  float m = uintBitsToFloat((n & 0x7fffffu) | 0x3f800000u);
  if (m > 1.41421356) { m *= 0.5; e += 1; }
  precise float f = m - 1.0;                      // exact
  precise float dh = m + 1.0;
  const float dl = two_sum_err(m, 1.0, dh);     // m + 1 = dh + dl
  const float sh = div_rn(f, dh);
  precise float p = sh * dh;
  const float pe = two_prod_err(sh, dh, p);
  precise float sl = (((f - p) - pe) - sh * dl) / dh;  // f - p is exact
  const float z = sh * sh;
  float R = 2.0 / 15.0;
  R = fma(R, z, 2.0 / 13.0);
  R = fma(R, z, 2.0 / 11.0);
  R = fma(R, z, 2.0 / 9.0);
  R = fma(R, z, 2.0 / 7.0);
  R = fma(R, z, 2.0 / 5.0);
  R = fma(R, z, 2.0 / 3.0);
  precise float lh = 2.0 * sh;                  // log(m) = lh + ll
  precise float ll = 2.0 * sl + sh * z * R;
  // times 1/ln2 = IH + IL, plus e.
  const float IH = 1.4426950216e+00, IL = 1.9259629891e-08;
  precise float ph = lh * IH;
  precise float pl = two_prod_err(lh, IH, ph) + (lh * IL + ll * IH);
  const float fe = float(e);
  precise float h = fe + ph;
  precise float lo = two_sum_err(fe, ph, h) + pl;
  precise float hh = h + lo;
  l = lo - (hh - h);
  return hh;
}

bool is_int(float y) { return floor(y) == y; }
bool is_odd_int(float y) { return is_int(y) && abs(y) < 16777216.0 && (int(abs(y)) & 1) != 0; }

// x^y (C's powf special cases); |x|^y = 2^(y log2|x|) with the product
// carried in two floats, so that exponents up to 150 keep 2^-26.
float m_pow(float x, float y) {
  if (y == 0.0 || x == 1.0) return 1.0;
  if (isnan(x) || isnan(y)) return f_nan();
  const float ax = abs(x), ay = abs(y);
  const bool odd = is_odd_int(y);
  const bool neg = f_signbit(x) && odd;
  if (isinf(y)) {
    if (ax == 1.0) return 1.0;
    return (ax < 1.0) == (y < 0.0) ? f_inf() : 0.0;
  }
  if (ax == 0.0 || isinf(ax)) {
    // 0^y and inf^y: 0 or inf, signed when x is negative and y an odd integer.
    const bool big = (ax == 0.0) == (y < 0.0);
    const float v = big ? f_inf() : 0.0;
    return neg ? -v : v;
  }
  if (x < 0.0 && !is_int(y)) return f_nan();
  // (-1)^y for an integer y: y * log2(1) is 0, but splitting a huge y overflows.
  if (ax == 1.0) return neg ? -1.0 : 1.0;
  float ll;
  const float lh = log2_hl(ax, ll);
  precise float th = y * lh;
  precise float tl = two_prod_err(y, lh, th) + y * ll;
  float v;
  if (th > 128.5) v = f_inf();
  else if (th < -151.0) v = 0.0;
  else {
    const float k = roundEven(th);
    precise float r = (th - k) + tl;  // th - k is exact
    const float LN2 = 6.9314718056e-01;
    precise float u = r * LN2;
    precise float m = 1.0 + expm1_poly(u);
    v = scale2(m, int(k));
  }
  return neg ? -v : v;
}

#endif
