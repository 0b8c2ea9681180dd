// Part of vec_impl.h's per-ISA body (included from it, inside its namespace,
// with its macros and vector types): the transcendentals (exp, sigmoid, tanh,
// log) as vector functors, and the helpers they share with the reductions
// (vec_impl_reduce.h). Not a standalone header.
// ---------------- transcendentals (float64 inside) ----------------

using namespace expc;  // kLog2e, kShift, kLn2Hi/Lo, kInv2..9, kClamp (vec_math.h)
constexpr double kLn2 = 0.69314718055994530942;
constexpr uint64_t kSqrt2Mant = 0x6a09e667f3bcdULL;  // mantissa bits of sqrt(2)

// The x86 min/max instructions: a < b ? a : b and a > b ? a : b, so b when
// either is NaN. One instruction where the vector-extension select is two.
VEC_INLINE vf min_x86(vf a, vf b) {
#if VEC_W == 16
  return as<vf>(_mm512_min_ps(as<__m512>(a), as<__m512>(b)));
#elif VEC_W == 8
  return as<vf>(_mm256_min_ps(as<__m256>(a), as<__m256>(b)));
#elif VEC_X86
  return as<vf>(_mm_min_ps(as<__m128>(a), as<__m128>(b)));
#else
  return a < b ? a : b;
#endif
}
VEC_INLINE vf max_x86(vf a, vf b) {
#if VEC_W == 16
  return as<vf>(_mm512_max_ps(as<__m512>(a), as<__m512>(b)));
#elif VEC_W == 8
  return as<vf>(_mm256_max_ps(as<__m256>(a), as<__m256>(b)));
#elif VEC_X86
  return as<vf>(_mm_max_ps(as<__m128>(a), as<__m128>(b)));
#else
  return a > b ? a : b;
#endif
}

// x clamped to [-lim, lim]; NaN passes through (the instructions return their second operand).
VEC_INLINE vf clamp(vf x, float lim) { return max_x86(splat<vf>(-lim), min_x86(splat<vf>(lim), x)); }

// x = n ln2 + r with n integral and |r| <= ln2/2; returns r and sets scale = 2^n.
VEC_INLINE vd reduce_ln2(const vd& x, vd& scale) {
  const vd t = x * kLog2e + kShift;
  const vd n = t - kShift;
  const vd r = (x - n * kLn2Hi) - n * kLn2Lo;
  // The low bits of t hold n; (n + 1023) << 52 is the double 2^n.
  scale = as<vd>((as<vq>(t) + 1023) << 52);
  return r;
}

// exp(x) for |x| <= kClamp (or NaN), relative error below 3e-10.
VEC_INLINE vd exp_d(const vd& x) {
  vd s;
  const vd r = reduce_ln2(x, s);
  // exp(r) = 1 + r + r^2/2! + ... + r^8/8! (remainder < 2.1e-10 relative for |r| <= ln2/2).
  vd p = r * kInv8 + kInv7;
  p = p * r + kInv6;
  p = p * r + kInv5;
  p = p * r + kInv4;
  p = p * r + kInv3;
  p = p * r + kInv2;
  p = p * r + 1.0;
  p = p * r + 1.0;
  return p * s;
}

// expm1(x) for 0 <= x <= kClamp (or NaN), relative error below 1e-9 (no cancellation near 0).
VEC_INLINE vd expm1_d(const vd& x) {
  vd s;
  const vd r = reduce_ln2(x, s);
  // expm1(r) = r (1 + r/2! + ... + r^8/9!)
  vd p = r * kInv9 + kInv8;
  p = p * r + kInv7;
  p = p * r + kInv6;
  p = p * r + kInv5;
  p = p * r + kInv4;
  p = p * r + kInv3;
  p = p * r + kInv2;
  p = p * r + 1.0;
  const vd q = p * r;
  return q * s + (s - 1.0);  // 2^n (expm1(r) + 1) - 1; exact step when n = 0
}

VEC_INLINE vd widen(vf x) { return __builtin_convertvector(x, vd); }
VEC_INLINE vf narrow(const vd& x) { return __builtin_convertvector(x, vf); }  // round to nearest even

// t[j[i]] for j in 0..7 and a table of 8 entries stored twice (vpermps on AVX2 / AVX-512).
VEC_INLINE vf lookup8(const float (&t)[16], vi j) {
#if VEC_W == 4
  return __builtin_shuffle(load<vf>(t), load<vf>(t + 4), j);
#else
  return __builtin_shuffle(load<vf>(t), j);
#endif
}

// v * 2^e rounded once, for |e| <= 150 and v in [0.9, 2] (exp's range): two
// exact power-of-two factors (AVX-512 takes scalef, in exp16_many).
VEC_INLINE vf scale2(vf v, vi e) {
  const vi e1 = e >> 1, e2 = e - e1;
  return (v * as<vf>((e1 + 127) << 23)) * as<vf>((e2 + 127) << 23);
}

// One statement for each of N vectors in turn (Exp::many, ExpLe::many).
#define VEC_EACH _Pragma("GCC unroll 8") for (int u = 0; u < N; ++u)

#if VEC_W == 16
// AVX-512's exp: Exp's operations on the same values in five fewer steps per
// vector. t's bits are kShift's (low 23 bits zero) plus k, so the low four
// bits of t are k mod 16, all that vpermps reads of an index (the tables hold
// their 8 entries twice): no integer k, no `& 7`. scalef multiplies by
// 2^floor(b), and floor(kf / 8) is k >> 3 (kf / 8 is exact), so 2^e comes
// without the shift and the conversion; a NaN v keeps its bits (scalef
// returns its first operand's NaN). kLe: x <= 0 or NaN, no upper clamp.
template <bool kLe, int N>
VEC_INLINE void exp16_many(vf (&x)[N]) {
  namespace c = expf32;
  vf t[N], kf[N], r[N], q[N];
  if constexpr (kLe) VEC_EACH x[u] = max_x86(splat<vf>(-c::kClamp), x[u]);
  else VEC_EACH x[u] = clamp(x[u], c::kClamp);
  VEC_EACH t[u] = x[u] * c::kInvStep + c::kShift;
  VEC_EACH kf[u] = t[u] - c::kShift;
  VEC_EACH r[u] = (x[u] - kf[u] * c::kStepHi) - kf[u] * c::kStepLo;
  VEC_EACH q[u] = (r[u] * c::kInv24 + c::kInv6) * r[u] + 0.5f;  // p
  VEC_EACH q[u] = r[u] + (r[u] * r[u]) * q[u];
  VEC_EACH {
    const __m512i j = as<__m512i>(t[u]);
    const vf th = as<vf>(_mm512_permutexvar_ps(j, as<__m512>(load<vf>(c::kT))));
    const vf tl = as<vf>(_mm512_permutexvar_ps(j, as<__m512>(load<vf>(c::kTlo))));
    x[u] = as<vf>(_mm512_scalef_ps(as<__m512>(th + (th * q[u] + tl)), as<__m512>(kf[u] * 0.125f)));
  }
}
#endif

// exp in float32 arithmetic, operation for operation exp_f32 (vec_math.h).
// many: N vectors at once, each step for all of them before the next, so the
// core sees N independent chains side by side rather than one long chain
// after another (the same operations on each vector: the same bits).
struct Exp {
  template <int N>
  VEC_INLINE static void many(vf (&x)[N]) {
#if VEC_W == 16
    exp16_many<false>(x);
#else
    namespace c = expf32;
    vf t[N], kf[N], r[N], q[N];
    vi k[N];
    VEC_EACH x[u] = clamp(x[u], c::kClamp);
    VEC_EACH t[u] = x[u] * c::kInvStep + c::kShift;
    VEC_EACH kf[u] = t[u] - c::kShift;
    VEC_EACH r[u] = (x[u] - kf[u] * c::kStepHi) - kf[u] * c::kStepLo;
    VEC_EACH k[u] = as<vi>(as<vu>(t[u]) - std::bit_cast<uint32_t>(c::kShift));
    VEC_EACH q[u] = (r[u] * c::kInv24 + c::kInv6) * r[u] + 0.5f;  // p
    VEC_EACH q[u] = r[u] + (r[u] * r[u]) * q[u];
    VEC_EACH {
      const vi j = k[u] & 7;
      const vf th = lookup8(c::kT, j);
      x[u] = scale2(th + (th * q[u] + lookup8(c::kTlo, j)), k[u] >> 3);
    }
#endif
  }
  VEC_INLINE static vf f(vf x) {
    vf a[1] = {x};
    many<1>(a);
    return a[0];
  }
};

// Exp for x <= 0 or NaN (softmax's x - max), the same bits as Exp with fewer
// operations on AVX2, where the exponent step is the longest part (scale2 is
// nine integer and multiply operations there). Here v comes out as v * 2^25
// from the scaled tables (exact), 2^e is added to its exponent field (exact:
// e in [-150, 0] keeps v * 2^(e + 25) normal), and the one multiply by 2^-25
// rounds v * 2^e once, as scale2 does. kf is x 8/ln2 rounded to the nearest
// even integer by vroundps, one step for Exp's add and subtract of kShift
// (the same value for |x 8/ln2| < 2^22; a zero may come out -0, which
// changes no result: r then is +-0 and q +0 either way). The table index is
// k itself (vpermps reads its low three bits); k is the same rounding as an
// integer conversion, which gives 0x80000000 for NaN: its exponent step is
// 0, so a NaN keeps its bits. AVX-512 drops the upper clamp (exp16_many); SSE2 uses Exp.
struct ExpLe {
  template <int N>
  VEC_INLINE static void many(vf (&x)[N]) {
#if VEC_W == 8
    namespace c = expf32;
    vf t[N], kf[N], r[N], q[N];
    vi k[N];
    VEC_EACH x[u] = max_x86(splat<vf>(-c::kClamp), x[u]);  // NaN passes; x <= 0 needs no upper clamp
    VEC_EACH t[u] = x[u] * c::kInvStep;
    VEC_EACH kf[u] = as<vf>(_mm256_round_ps(as<__m256>(t[u]), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    VEC_EACH r[u] = (x[u] - kf[u] * c::kStepHi) - kf[u] * c::kStepLo;
    VEC_EACH k[u] = as<vi>(_mm256_cvtps_epi32(as<__m256>(t[u])));
    VEC_EACH q[u] = (r[u] * c::kInv24 + c::kInv6) * r[u] + 0.5f;  // p
    VEC_EACH q[u] = r[u] + (r[u] * r[u]) * q[u];
    VEC_EACH {
      const vf th = as<vf>(_mm256_permutevar8x32_ps(as<__m256>(load<vf>(c::kT25)), as<__m256i>(k[u])));
      const vf tl = as<vf>(_mm256_permutevar8x32_ps(as<__m256>(load<vf>(c::kTlo25)), as<__m256i>(k[u])));
      t[u] = th + (th * q[u] + tl);  // v * 2^25
    }
    VEC_EACH {
      const vu eb = (as<vu>(k[u]) << 20) & 0xff800000u;  // (k >> 3) << 23, modulo 2^32
      x[u] = as<vf>(as<vu>(t[u]) + eb) * 0x1p-25f;
    }
#elif VEC_W == 16
    exp16_many<true>(x);
#else
    Exp::many(x);
#endif
  }
  VEC_INLINE static vf f(vf x) {
    vf a[1] = {x};
    many<1>(a);
    return a[0];
  }
};
template <bool kLe> using ExpOf = std::conditional_t<kLe, ExpLe, Exp>;
#undef VEC_EACH

struct Sigmoid {
  VEC_INLINE static vf f(vf x) { return narrow(1.0 / (1.0 + exp_d(widen(clamp(-x, kClamp))))); }
};

// tanh(x) = sign(x) * e / (e + 2) with e = expm1(2|x|); |x| >= 20 gives +-1 exactly.
struct Tanh {
  VEC_INLINE static vf f(vf x) {
    vf ax = as<vf>(as<vu>(x) & 0x7fffffffu);
    ax = ax > 20.0f ? splat<vf>(20.0f) : ax;
    const vd a = widen(ax);
    const vd e = expm1_d(a + a);
    const vf t = narrow(e / (e + 2.0));
    return as<vf>(as<vu>(t) | (as<vu>(x) & 0x80000000u));
  }
};

// log(x) = e ln2 + 2 atanh(s), s = (m - 1)/(m + 1), x = 2^e m with m in [sqrt(1/2), sqrt(2)).
struct Log {
  VEC_INLINE static vf f(vf x) {
    const vd xd = widen(x);  // float subnormals are normal doubles
    const vq bits = as<vq>(xd);
    const vq mant = bits & 0x000fffffffffffffULL;
    // big = 1 where m > sqrt(2) (integer arithmetic: double compares would not stay vectorised).
    const vq big = 1 - ((mant - (kSqrt2Mant + 1)) >> 63);
    const vq e = ((bits >> 52) & 0x7ff) + big;  // biased by 1023
    const vd m = as<vd>((mant | 0x3ff0000000000000ULL) - (big << 52));  // halved where big
    const vd s = (m - 1.0) / (m + 1.0);
    const vd z = s * s;
    // 2 atanh(s) = 2s (1 + z/3 + z^2/5 + ...); |s| < 0.1716, remainder < 2e-11 relative.
    vd p = z * (2.0 / 13) + (2.0 / 11);
    p = p * z + (2.0 / 9);
    p = p * z + (2.0 / 7);
    p = p * z + (2.0 / 5);
    p = p * z + (2.0 / 3);
    p = p * z + 2.0;
    // e - 1023 as a double, exactly: the magic-number trick, cheaper than an int64 conversion.
    const vd ed = as<vd>(e + (as<uint64_t>(kShift) - 1023)) - kShift;
    const vd r = ed * kLn2 + s * p;
    vf y = narrow(r);
    const float inf = __builtin_inff(), nan = __builtin_nanf("");
    y = x == 0.0f ? splat<vf>(-inf) : y;
    y = x < 0.0f ? splat<vf>(nan) : y;
    y = x == inf ? splat<vf>(inf) : y;
    return x != x ? x + x : y;
  }
};
