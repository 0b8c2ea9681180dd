// The body of the vectorised kernels declared in vec_math.h, included once per
// ISA by vec_generic.cpp / vec_avx2.cpp / vec_avx512.cpp with:
//   VEC_NS     namespace for this ISA (everything here lives in it, so the
//              copies built with different flags never merge at link time)
//   VEC_W      float lanes per vector (4 SSE2, 8 AVX2, 16 AVX-512)
//   VEC_F16C   1 to convert float16 with the F16C instructions
//   VEC_ISA / VEC_NAME / VEC_TABLE   the table this file defines
//
// Written with GCC vector extensions: the compiler maps the W-lane types to the
// ISA's registers (a 16-double vector is two AVX-512 registers). Only
// correctly rounded IEEE operations are used, in a fixed order and without
// FMA, so every ISA computes the same bits (where an ISA has one instruction
// for a step, e.g. AVX-512's scalef for v * 2^e, it rounds the same way as
// the others' sequence). Compares and selects stay on float32 or integer
// lanes (GCC scalarises selects on double vectors wider than a register). No
// inline function or template from outside this namespace is instantiated
// here (it could be merged with a copy built for another ISA).
#if defined(__x86_64__)
#include <immintrin.h>
#define VEC_X86 1
#else  // only the generic table (VEC_W 4) is built where the compiler does not target x86-64
#define VEC_X86 0
#endif

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "backend/cpu/vec_math.h"

// Vector types wider than the baseline ABI only cross internal functions here;
// GCC 12's F16C/AVX-512 conversion intrinsics trip a false uninitialised warning.
#pragma GCC diagnostic ignored "-Wpsabi"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"  // the same, for _mm512_max_ps's undefined pass-through operand

namespace concord::detail::cpu::vec::VEC_NS {
namespace {

#define VEC_INLINE inline __attribute__((always_inline))

constexpr int W = VEC_W;
typedef float vf __attribute__((vector_size(4 * W)));
typedef double vd __attribute__((vector_size(8 * W)));
typedef int32_t vi __attribute__((vector_size(4 * W)));
typedef uint32_t vu __attribute__((vector_size(4 * W)));
typedef uint64_t vq __attribute__((vector_size(8 * W)));
typedef uint16_t vh __attribute__((vector_size(2 * W)));

template <class V, class T> VEC_INLINE V load(const T* p) { V v; std::memcpy(&v, p, sizeof v); return v; }
template <class V, class T> VEC_INLINE void store(T* p, V v) { std::memcpy(p, &v, sizeof v); }
template <class V, class S> VEC_INLINE V splat(S s) {
  V v;
  for (int j = 0; j < W; ++j) v[j] = s;
  return v;
}
template <class To, class From> VEC_INLINE To as(const From& v) { return __builtin_bit_cast(To, v); }

// ---------------- float16 / bfloat16 <-> float32 ----------------

// float16 bits -> float32, as f16_bits_to_f32 in concord/half.h (but NaNs come out quiet).
VEC_INLINE vf f16_to_f32(vh h16) {
#if VEC_F16C && VEC_W == 8
  return as<vf>(_mm256_cvtph_ps(as<__m128i>(h16)));
#elif VEC_F16C && VEC_W == 16
  return as<vf>(_mm512_cvtph_ps(as<__m256i>(h16)));
#else
  const vu h = __builtin_convertvector(h16, vu);
  const vu sign = (h & 0x8000u) << 16;
  const vu e = (h >> 10) & 0x1fu;
  const vu mant = h & 0x3ffu;
  const vu normal = sign | ((e + 112u) << 23) | (mant << 13);
  // A signalling NaN comes out quiet, as from the F16C instruction.
  const vu infnan = sign | 0x7f800000u | (mant << 13) | (as<vu>(mant != 0u) & 0x400000u);
  const vf sub = __builtin_convertvector(mant, vf) * 5.9604644775390625e-8f;  // mant * 2^-24, exact
  const vu subb = as<vu>(sub) | sign;
  const vi is_inf = as<vi>(e == 0x1fu), is_zero = as<vi>(e == 0u);
  return as<vf>(is_inf ? infnan : is_zero ? subb : normal);
#endif
}

// float32 -> float16 bits, round to nearest even, as f32_to_f16_bits.
VEC_INLINE vh f32_to_f16(vf f) {
#if VEC_F16C && VEC_W == 8
  return as<vh>(_mm256_cvtps_ph(as<__m256>(f), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
#elif VEC_F16C && VEC_W == 16
  return as<vh>(_mm512_cvtps_ph(as<__m512>(f), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
#else
  const vi x = as<vi>(f);
  const vi sign = (x >> 16) & 0x8000;
  const vi ax = x & 0x7fffffff;
  const vi nan_bits = ax > 0x7f800000 ? (0x200 | ((ax >> 13) & 0x3ff)) : splat<vi>(0);
  const vi infnan = sign | 0x7c00 | nan_bits;
  const vi overflow = sign | 0x7c00;
  // Below 2^-14: adding 0.5 makes the float adder round at 2^-24 granularity.
  const vf sv = as<vf>(ax) + 0.5f;
  const vi sub = sign | (as<vi>(sv) - 0x3f000000);
  const vu axu = as<vu>(ax);
  const vi normal = sign | as<vi>((axu + 0xc8000fffu + ((axu >> 13) & 1u)) >> 13);
  const vi r = ax >= 0x7f800000 ? infnan : ax >= 0x477ff000 ? overflow : ax < 0x38800000 ? sub : normal;
  return __builtin_convertvector(r, vh);
#endif
}

// Widening and narrowing of 16-bit lanes, one instruction where the ISA has it.
VEC_INLINE vu widen_u16(vh h) {
#if VEC_W == 16
  return as<vu>(_mm512_cvtepu16_epi32(as<__m256i>(h)));
#elif VEC_W == 8
  return as<vu>(_mm256_cvtepu16_epi32(as<__m128i>(h)));
#else
  return __builtin_convertvector(h, vu);
#endif
}
VEC_INLINE vh narrow_u16(vu v) {  // every lane < 65536
#if VEC_W == 16
  return as<vh>(_mm512_cvtepi32_epi16(as<__m512i>(v)));
#elif VEC_W == 8
  const __m256i w = as<__m256i>(v);
  return as<vh>(_mm_packus_epi32(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1)));
#else
  return __builtin_convertvector(v, vh);
#endif
}

VEC_INLINE vf bf16_to_f32(vh h) { return as<vf>(widen_u16(h) << 16); }

// float32 -> bfloat16 bits, round to nearest even, NaN stays quiet NaN; as f32_to_bf16_bits.
VEC_INLINE vh f32_to_bf16(vf f) {
  const vu x = as<vu>(f);
  const vi is_nan = as<vi>(x & 0x7fffffffu) > 0x7f800000;
  const vu r = is_nan ? ((x >> 16) | 0x40u) : ((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
  return narrow_u16(r);
}

// Orders the non-temporal stores before what follows (x86's sfence).
VEC_INLINE void store_fence() {
#if VEC_X86
  _mm_sfence();
#endif
}

// Non-temporal store of one vector (p aligned to its size): no read-for-ownership.
template <class V, class T> VEC_INLINE void store_nt(T* p, V v) {
#if VEC_W == 16
  if constexpr (sizeof(V) == 64) return _mm512_stream_si512(reinterpret_cast<__m512i*>(p), as<__m512i>(v));
#endif
#if VEC_W >= 8
  if constexpr (sizeof(V) == 32) return _mm256_stream_si256(reinterpret_cast<__m256i*>(p), as<__m256i>(v));
#endif
#if VEC_X86
  if constexpr (sizeof(V) == 16) return _mm_stream_si128(reinterpret_cast<__m128i*>(p), as<__m128i>(v));
#endif
  store(p, v);
}

// Loads and stores of W elements of each storage type, as float32 lanes.
template <Ty T> struct Io;
template <> struct Io<Ty::f32> {
  using E = float;
  VEC_INLINE static vf get(const E* p) { return load<vf>(p); }
  VEC_INLINE static void put(E* p, vf v) { store(p, v); }
  VEC_INLINE static void put_nt(E* p, vf v) { store_nt(p, v); }
};
template <> struct Io<Ty::f16> {
  using E = uint16_t;
  VEC_INLINE static vf get(const E* p) { return f16_to_f32(load<vh>(p)); }
  VEC_INLINE static void put(E* p, vf v) { store(p, f32_to_f16(v)); }
  VEC_INLINE static void put_nt(E* p, vf v) { store_nt(p, f32_to_f16(v)); }
};
template <> struct Io<Ty::bf16> {
  using E = uint16_t;
  VEC_INLINE static vf get(const E* p) { return bf16_to_f32(load<vh>(p)); }
  VEC_INLINE static void put(E* p, vf v) { store(p, f32_to_bf16(v)); }
  VEC_INLINE static void put_nt(E* p, vf v) { store_nt(p, f32_to_bf16(v)); }
};

// ---------------- binary ----------------

// NaN operands: the first one's NaN, quieted, then the second's (what x86,
// OpenCL and the shaders give for x - y and x / y). The compiler may swap the
// operands of + and *, so those pick x's NaN explicitly (x + x quiets it).
struct Add { VEC_INLINE static vf f(vf x, vf y) { return (x != x) ? x + x : x + y; } };
struct Sub { VEC_INLINE static vf f(vf x, vf y) { return x - y; } };
struct Mul { VEC_INLINE static vf f(vf x, vf y) { return (x != x) ? x + x : x * y; } };
struct Div { VEC_INLINE static vf f(vf x, vf y) { return x / y; } };
// As the scalar kernels: NaN in either operand propagates.
struct Max { VEC_INLINE static vf f(vf x, vf y) { return ((x < y) | (y != y)) ? y : x; } };
struct Min { VEC_INLINE static vf f(vf x, vf y) { return ((y < x) | (y != y)) ? y : x; } };

// The reproducible mode's NaN rule in the store (Kernels::*_canon): every NaN
// Op gives becomes the canonical quiet NaN 0x7fc00000, which the halves'
// conversions turn into theirs (0x7e00, 0x7fc0): the bits of the separate pass.
VEC_INLINE vf canon_nan(vf r) { return (r != r) ? as<vf>(splat<vu>(0x7fc00000u)) : r; }
template <class Op> struct Canon {
  template <class... A> VEC_INLINE static vf f(A... a) { return canon_nan(Op::f(a...)); }
};
template <bool C, class Op> using MaybeCanon = std::conditional_t<C, Canon<Op>, Op>;

template <Ty T, class Op, bool XS, bool YS>
void binary_run(void* out, const void* xp, const void* yp, int64_t n, bool stream) {
  using E = typename Io<T>::E;
  if (n <= 0) return;
  E* o = static_cast<E*>(out);
  const E* x = static_cast<const E*>(xp);
  const E* y = static_cast<const E*>(yp);
  E x1[W], y1[W];
  for (int j = 0; j < W; ++j) { x1[j] = x[0]; y1[j] = y[0]; }
  const vf xb = Io<T>::get(x1), yb = Io<T>::get(y1);
  // Elements [i, i + m), m < W: padded to one whole vector.
  auto partial = [&](int64_t i, int64_t m) {
    E xt[W] = {}, yt[W] = {}, ot[W];
    if (XS) std::memcpy(xt, x + i, m * sizeof(E));
    if (YS) std::memcpy(yt, y + i, m * sizeof(E));
    const vf a = XS ? Io<T>::get(xt) : xb;
    const vf b = YS ? Io<T>::get(yt) : yb;
    Io<T>::put(ot, Op::f(a, b));
    std::memcpy(o + i, ot, m * sizeof(E));
  };
  int64_t i = 0;
  if (stream) {
    constexpr uintptr_t kVecBytes = sizeof(E) * W;
    const int64_t head = static_cast<int64_t>(((kVecBytes - reinterpret_cast<uintptr_t>(o) % kVecBytes) % kVecBytes) / sizeof(E));
    if (head > 0) partial(0, head < n ? head : n);
    for (i = head; i + W <= n; i += W) {
      const vf a = XS ? Io<T>::get(x + i) : xb;
      const vf b = YS ? Io<T>::get(y + i) : yb;
      Io<T>::put_nt(o + i, Op::f(a, b));
    }
    store_fence();
    if (i > n) i = n;
  } else {
    for (; i + W <= n; i += W) {
      const vf a = XS ? Io<T>::get(x + i) : xb;
      const vf b = YS ? Io<T>::get(y + i) : yb;
      Io<T>::put(o + i, Op::f(a, b));
    }
  }
  if (i < n) partial(i, n - i);
}

// bfloat16 without any lane shuffles: each 32-bit lane holds two elements, the
// even one widened by a shift, the odd one by a mask; both results round in
// place and are merged back (elementwise ops do not care about lane order).
VEC_INLINE vu round_bf16_hi(vf f) {  // the bfloat16 of f in the upper 16 bits, lower bits garbage
  const vu x = as<vu>(f);
  const vi is_nan = as<vi>(x & 0x7fffffffu) > 0x7f800000;
  return is_nan ? (x | 0x400000u) : (x + 0x7fffu + ((x >> 16) & 1u));
}

template <class Op>
VEC_INLINE vu bf16_pair(vu a, vu b) {
  const vf lo = Op::f(as<vf>(a << 16), as<vf>(b << 16));
  const vf hi = Op::f(as<vf>(a & 0xffff0000u), as<vf>(b & 0xffff0000u));
  return (round_bf16_hi(hi) & 0xffff0000u) | (round_bf16_hi(lo) >> 16);
}

template <class Op, bool XS, bool YS>
void binary_run_bf16(void* out, const void* xp, const void* yp, int64_t n, bool stream) {
  using E = uint16_t;
  constexpr int P = 2 * W;  // elements per vector
  if (n <= 0) return;
  E* o = static_cast<E*>(out);
  const E* x = static_cast<const E*>(xp);
  const E* y = static_cast<const E*>(yp);
  const vu xb = splat<vu>(static_cast<uint32_t>(x[0]) * 0x10001u), yb = splat<vu>(static_cast<uint32_t>(y[0]) * 0x10001u);
  auto partial = [&](int64_t i, int64_t m) {
    E xt[P] = {}, yt[P] = {}, ot[P];
    if (XS) std::memcpy(xt, x + i, m * sizeof(E));
    if (YS) std::memcpy(yt, y + i, m * sizeof(E));
    store(ot, bf16_pair<Op>(XS ? load<vu>(xt) : xb, YS ? load<vu>(yt) : yb));
    std::memcpy(o + i, ot, m * sizeof(E));
  };
  int64_t i = 0;
  if (stream) {
    constexpr uintptr_t kVecBytes = sizeof(E) * P;
    const int64_t head = static_cast<int64_t>(((kVecBytes - reinterpret_cast<uintptr_t>(o) % kVecBytes) % kVecBytes) / sizeof(E));
    if (head > 0) partial(0, head < n ? head : n);
    for (i = head; i + P <= n; i += P)
      store_nt(o + i, bf16_pair<Op>(XS ? load<vu>(x + i) : xb, YS ? load<vu>(y + i) : yb));
    store_fence();
    if (i > n) i = n;
  } else {
    for (; i + P <= n; i += P) store(o + i, bf16_pair<Op>(XS ? load<vu>(x + i) : xb, YS ? load<vu>(y + i) : yb));
  }
  if (i < n) partial(i, n - i);
}

template <Ty T, class Op>
void binary_op(void* o, const void* x, const void* y, int xs, int ys, int64_t n, bool stream) {
  if constexpr (T == Ty::bf16) {
    if (xs && ys) binary_run_bf16<Op, true, true>(o, x, y, n, stream);
    else if (xs) binary_run_bf16<Op, true, false>(o, x, y, n, stream);
    else if (ys) binary_run_bf16<Op, false, true>(o, x, y, n, stream);
    else binary_run_bf16<Op, false, false>(o, x, y, n, stream);
  } else {
    if (xs && ys) binary_run<T, Op, true, true>(o, x, y, n, stream);
    else if (xs) binary_run<T, Op, true, false>(o, x, y, n, stream);
    else if (ys) binary_run<T, Op, false, true>(o, x, y, n, stream);
    else binary_run<T, Op, false, false>(o, x, y, n, stream);
  }
}

template <Ty T, bool C>
void binary_ty(BinOp op, void* o, const void* x, const void* y, int xs, int ys, int64_t n, bool stream) {
  switch (op) {
    case BinOp::add: return binary_op<T, MaybeCanon<C, Add>>(o, x, y, xs, ys, n, stream);
    case BinOp::sub: return binary_op<T, MaybeCanon<C, Sub>>(o, x, y, xs, ys, n, stream);
    case BinOp::mul: return binary_op<T, MaybeCanon<C, Mul>>(o, x, y, xs, ys, n, stream);
    case BinOp::div: return binary_op<T, MaybeCanon<C, Div>>(o, x, y, xs, ys, n, stream);
    case BinOp::maximum: return binary_op<T, MaybeCanon<C, Max>>(o, x, y, xs, ys, n, stream);
    case BinOp::minimum: return binary_op<T, MaybeCanon<C, Min>>(o, x, y, xs, ys, n, stream);
  }
}

template <bool C>
void binary_c(BinOp op, Ty ty, void* o, const void* x, const void* y, int xs, int ys, int64_t n, bool stream) {
  switch (ty) {
    case Ty::f32: return binary_ty<Ty::f32, C>(op, o, x, y, xs, ys, n, stream);
    case Ty::f16: return binary_ty<Ty::f16, C>(op, o, x, y, xs, ys, n, stream);
    case Ty::bf16: return binary_ty<Ty::bf16, C>(op, o, x, y, xs, ys, n, stream);
  }
}

#include "backend/cpu/vec_impl_math.h"  // transcendentals, same namespace

template <Ty T, class Op>
void unary_run(void* out, const void* xp, int64_t n) {
  using E = typename Io<T>::E;
  E* o = static_cast<E*>(out);
  const E* x = static_cast<const E*>(xp);
  int64_t i = 0;
  for (; i + W <= n; i += W) Io<T>::put(o + i, Op::f(Io<T>::get(x + i)));
  if (i < n) {
    const int64_t m = n - i;
    E xt[W] = {}, ot[W];
    std::memcpy(xt, x + i, m * sizeof(E));
    Io<T>::put(ot, Op::f(Io<T>::get(xt)));
    std::memcpy(o + i, ot, m * sizeof(E));
  }
}

template <Ty T, bool C>
void unary_ty(UnOp op, void* o, const void* x, int64_t n) {
  switch (op) {
    case UnOp::exp: return unary_run<T, MaybeCanon<C, Exp>>(o, x, n);
    case UnOp::sigmoid: return unary_run<T, MaybeCanon<C, Sigmoid>>(o, x, n);
    case UnOp::tanh: return unary_run<T, MaybeCanon<C, Tanh>>(o, x, n);
    case UnOp::log: return unary_run<T, MaybeCanon<C, Log>>(o, x, n);
  }
}

template <bool C>
void unary_c(UnOp op, Ty ty, void* o, const void* x, int64_t n) {
  switch (ty) {
    case Ty::f32: return unary_ty<Ty::f32, C>(op, o, x, n);
    case Ty::f16: return unary_ty<Ty::f16, C>(op, o, x, n);
    case Ty::bf16: return unary_ty<Ty::bf16, C>(op, o, x, n);
  }
}

#include "backend/cpu/vec_impl_reduce.h"  // reductions and softmax rows, same namespace
#include "backend/cpu/linalg_small.h"     // the small-matrix loops, same namespace

template <class T>
void trsm_small(const T* a, T* b, int64_t n, int64_t k, bool left, bool upper, bool unit) {
  if (left) trsm_left_small(a, b, n, k, upper, unit);
  else trsm_right_small(a, b, n, k, upper, unit);
}

#undef VEC_INLINE
}  // namespace
}  // namespace concord::detail::cpu::vec::VEC_NS

// VEC_LU_F32 / VEC_LU_F64: an LU written for the ISA itself (vec_avx2.cpp,
// vec_avx512.cpp: lu_avx2.h, lu_avx512.h), else the loop of linalg_small.h.
#ifndef VEC_LU_F32
#define VEC_LU_F32 &VEC_NS::lu_small<float>
#define VEC_LU_F64 &VEC_NS::lu_small<double>
#endif
namespace concord::detail::cpu::vec {
const Kernels VEC_TABLE = {VEC_ISA,
                           VEC_NAME,
                           &VEC_NS::binary_c<false>,
                           &VEC_NS::unary_c<false>,
                           &VEC_NS::reduce_blocks,
                           &VEC_NS::row_out_c<false>,
                           VEC_LU_F32,
                           VEC_LU_F64,
                           &VEC_NS::trsm_small<float>,
                           &VEC_NS::trsm_small<double>,
                           &VEC_NS::binary_c<true>,
                           &VEC_NS::unary_c<true>,
                           &VEC_NS::row_out_c<true>,
#if VEC_W >= 8
                           &VEC_NS::max_any};
#else
                           nullptr};
#endif
}  // namespace concord::detail::cpu::vec
