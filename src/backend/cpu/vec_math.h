// Vectorised elementwise kernels for contiguous float32/float16/bfloat16 runs,
// compiled once per instruction set and chosen at run time.
//
// The same source (vec_impl.h) is built three times: generic x86-64 (SSE2),
// AVX2 + F16C, and AVX-512. Every element goes through the same sequence of
// IEEE operations on every ISA (no FMA, fixed evaluation order, tails padded
// to a whole vector instead of a scalar loop), so results never depend on the
// ISA picked, the thread count or the position of an element in its run.
// (Only the payload of a NaN made from two NaN operands may differ: IEEE lets
// the hardware return either one.)
//
// Accuracy (float32 results, checked over every input in [-104, 89] for exp):
//   exp      float32 arithmetic with a table of 2^(j/8) in two parts
//            (Cody-Waite reduction by ln2/8, degree-4 polynomial): max 0.63
//            ULP for normal results, 0.78 ULP for subnormal ones; 99.85% of
//            inputs correctly rounded. (Twice the speed of the float64
//            evaluation it replaced, which was within 0.51 ULP.)
//   sigmoid  1 / (1 + exp(-x)) in float64, rounded once: <= 1 ULP.
//   tanh     expm1(2|x|) / (expm1(2|x|) + 2) in float64 with the sign of x: <= 1 ULP.
//   log      2 atanh((m-1)/(m+1)) + e ln2 in float64: <= 1 ULP.
// float16/bfloat16 widen to float32, compute as above and round once to the dtype.
//
// The table used is the level core/cpu_isa.h picks (CONCORD_ISA caps it).
#pragma once

#include <bit>
#include <cstdint>

#include "core/cpu_isa.h"

namespace concord::detail::cpu::vec {

using Isa = CpuIsa;
enum class Ty : uint8_t { f32, f16, bf16 };
enum class BinOp : uint8_t { add, sub, mul, div, maximum, minimum };
enum class UnOp : uint8_t { exp, sigmoid, tanh, log };
// Reductions over contiguous runs, in the reduction engine's order (below).
// exp_sum_max is exp_sum for a shift that is the max of the run (softmax's).
enum class RedOp : uint8_t { sum, max, min, exp_sum, exp_sum_max };
// The last pass of a softmax row (see Kernels::row_out).
enum class RowOut : uint8_t { scale, exp_scale, log, exp_scale_max };

// The reduction engine's order (reduce_impl.h): the n elements of one output
// are cut into blocks of kRedBlock; inside a block element i goes to lane
// i % kRedLanes, lanes accumulate in increasing i, then combine as a tree
// (lane l += lane l + w for w = kRedLanes/2 ... 1). The OpenCL reduce kernel
// follows the same order (RED_BLOCK, RED_LANES in reduce.cl).
inline constexpr int64_t kRedBlock = 4096;
inline constexpr int kRedLanes = 16;

struct Kernels {
  Isa isa;
  const char* name;
  // o[i] = x[i] op y[i] for i < n. All three have type ty; xs/ys are 1 for a
  // contiguous input and 0 for a single value used for every i. maximum and
  // minimum propagate a NaN from either operand. stream: write o with
  // non-temporal stores (for outputs far larger than the caches: it saves the
  // read-for-ownership of every output line, a quarter of the traffic).
  void (*binary)(BinOp op, Ty ty, void* o, const void* x, const void* y, int xs, int ys, int64_t n, bool stream);
  // o[i] = op(x[i]) for i < n, both of type ty, contiguous.
  void (*unary)(UnOp op, Ty ty, void* o, const void* x, int64_t n);
  // Block results of the engine's order over a contiguous run x[0, n) of type
  // ty, n > 0: part[b] reduces x[b*kRedBlock, min(n, (b+1)*kRedBlock)), with
  // the bits of red::block_contig (float32 lanes). sum: lanes start at -0.0;
  // max/min: NaN propagates; exp_sum: the sum of exp_f32(x[i] - shift), and
  // when e is not null also e[i] = exp_f32(x[i] - shift) (float32; e may be x
  // itself when ty is f32). exp_sum_max: the same bits as exp_sum, for a
  // shift >= every x[i] (NaNs aside: softmax's row max), which lets AVX2 scale
  // by 2^e with one integer add (vec_impl_math.h, ExpLe).
  void (*reduce_blocks)(RedOp op, Ty ty, const void* x, int64_t n, float shift, float* part, float* e);
  // The output pass of a softmax row, o of type ty:
  //   scale:     o[i] = e[i] * a          (x is float32 e; may be o when ty is f32)
  //   exp_scale: o[i] = exp_f32(x[i] - a) * b
  //   log:     o[i] = (x[i] - a) - b
  //   exp_scale_max: exp_scale's bits, for a >= every x[i] (as exp_sum_max)
  void (*row_out)(RowOut op, Ty ty, void* o, const void* x, int64_t n, float a, float b);
  // The small-matrix linear algebra (linalg_small.h; AVX2/AVX-512 LU: lu_avx2.h, lu_avx512.h),
  // row-major, n <= 128: LU with partial pivoting in place (1-based pivots,
  // returns getrf's info), and triangular solves A X = B (left, b [n, k]) or
  // X A = B (b [k, n]), b overwritten.
  int32_t (*lu_f32)(float* a, int64_t n, int32_t* piv);
  int32_t (*lu_f64)(double* a, int64_t n, int32_t* piv);
  void (*trsm_f32)(const float* a, float* b, int64_t n, int64_t k, bool left, bool upper, bool unit);
  void (*trsm_f64)(const double* a, double* b, int64_t n, int64_t k, bool left, bool upper, bool unit);
  // binary, unary and row_out with the reproducible mode's NaN rule in the
  // store (every NaN written as the canonical quiet NaN of ty; core/nan_rule.h).
  void (*binary_canon)(BinOp op, Ty ty, void* o, const void* x, const void* y, int xs, int ys, int64_t n, bool stream);
  void (*unary_canon)(UnOp op, Ty ty, void* o, const void* x, int64_t n);
  void (*row_out_canon)(RowOut op, Ty ty, void* o, const void* x, int64_t n, float a, float b);
  // part[b] = the largest value of block b (kRedBlock elements) of x[0, n),
  // n > 0, when the block holds no NaN, in any order (four chains, one
  // instruction per vector). With a NaN the result is unspecified, and a zero
  // max may come out +0 or -0: callers check (softmax: a NaN sum). Null on
  // SSE2, where softmax takes reduce_blocks' max.
  void (*max_any)(Ty ty, const void* x, int64_t n, float* part);
};

// Outputs from this size on are streamed (binary's `stream`). The caller
// decides by the whole output, not by the run one thread gets.
inline constexpr int64_t kStreamBytes = int64_t{16} << 20;

// Constants of the float64 exp behind sigmoid and tanh (vec_impl.h).
namespace expc {
inline constexpr double kLog2e = 1.4426950408889634074;
inline constexpr double kShift = 6755399441055744.0;  // 1.5 * 2^52: x + kShift rounds x to an integer
// ln2 split so that n * kLn2Hi is exact for |n| < 2^20 (Cody-Waite; the
// customary split of ln2, the same digits as in fdlibm).
inline constexpr double kLn2Hi = 6.93147180369123816490e-01;
inline constexpr double kLn2Lo = 1.90821492927058770002e-10;
// 1/k! for k = 2..9.
inline constexpr double kInv2 = 0.5, kInv3 = 1.0 / 6, kInv4 = 1.0 / 24, kInv5 = 1.0 / 120, kInv6 = 1.0 / 720,
                        kInv7 = 1.0 / 5040, kInv8 = 1.0 / 40320, kInv9 = 1.0 / 362880;
// Beyond +-160 every float result has saturated (exp: inf or 0); clamping keeps 2^n a normal double.
inline constexpr float kClamp = 160.0f;
}  // namespace expc

// Constants of the float32 exp (exp_f32 and the vector Exp).
//   x = (8e + j) ln2/8 + r, |r| <= ln2/16 (plus rounding), j in 0..7
//   exp(x) = 2^e * (T[j] + (T[j] (r + r^2 p(r)) + Tlo[j]))
// with 2^(j/8) = T[j] + Tlo[j] to 48 bits and p the Taylor terms 1/2 + r/6 + r^2/24
// (remainder below 1.6e-9 relative). 2^e is applied as two exact halves so
// that results in the subnormal range are rounded once.
namespace expf32 {
inline constexpr float kInvStep = 0x1.715476p+3f;      // 8/ln2
inline constexpr float kShift = 12582912.0f;           // 1.5 * 2^23: t = x*8/ln2 + kShift holds k = 8e + j in its low bits
inline constexpr float kStepHi = 2839.0f / 32768.0f;   // ln2/8 to 12 bits: k * kStepHi is exact for |k| < 2^12
inline constexpr float kStepLo = 0x1.0bfbe8p-18f;      // ln2/8 - kStepHi
// |x| beyond 104 saturates every float result (2^-150 rounds to 0, 2^150 overflows).
inline constexpr float kClamp = 104.0f;
// Each table twice over, so that a 16-lane vector loads it whole.
inline constexpr float kT[16] = {0x1p+0f,        0x1.172b84p+0f, 0x1.306fep+0f,  0x1.4bfdaep+0f,
                                 0x1.6a09e6p+0f, 0x1.8ace54p+0f, 0x1.ae89fap+0f, 0x1.d5818ep+0f,
                                 0x1p+0f,        0x1.172b84p+0f, 0x1.306fep+0f,  0x1.4bfdaep+0f,
                                 0x1.6a09e6p+0f, 0x1.8ace54p+0f, 0x1.ae89fap+0f, 0x1.d5818ep+0f};
inline constexpr float kTlo[16] = {0.0f,           -0x1.c15742p-27f, 0x1.4636e2p-25f, -0x1.593abcp-25f,
                                   0x1.9fcef4p-26f, 0x1.15506ep-27f,  -0x1.a94b14p-26f, -0x1.822dbcp-27f,
                                   0.0f,           -0x1.c15742p-27f, 0x1.4636e2p-25f, -0x1.593abcp-25f,
                                   0x1.9fcef4p-26f, 0x1.15506ep-27f,  -0x1.a94b14p-26f, -0x1.822dbcp-27f};
inline constexpr float kInv6 = 1.0f / 6, kInv24 = 1.0f / 24;
// kT and kTlo times 2^25 (exact): ExpLe's v comes out scaled by 2^25, the same
// operations on the same significands, so the same rounding.
inline constexpr float kT25[8] = {kT[0] * 0x1p25f, kT[1] * 0x1p25f, kT[2] * 0x1p25f, kT[3] * 0x1p25f,
                                  kT[4] * 0x1p25f, kT[5] * 0x1p25f, kT[6] * 0x1p25f, kT[7] * 0x1p25f};
inline constexpr float kTlo25[8] = {kTlo[0] * 0x1p25f, kTlo[1] * 0x1p25f, kTlo[2] * 0x1p25f, kTlo[3] * 0x1p25f,
                                    kTlo[4] * 0x1p25f, kTlo[5] * 0x1p25f, kTlo[6] * 0x1p25f, kTlo[7] * 0x1p25f};
}  // namespace expf32

// exp of one float32: the same IEEE operations in the same order as the
// vectorised exp (vec_impl.h), hence the same bits, for scalar paths that must
// agree with the vector ones (softmax and logsumexp of any layout).
inline float exp_f32(float x) {
  using namespace expf32;
  x = x > kClamp ? kClamp : x;
  x = x < -kClamp ? -kClamp : x;
  const float t = x * kInvStep + kShift;
  const float kf = t - kShift;
  const float r = (x - kf * kStepHi) - kf * kStepLo;
  const int32_t k = static_cast<int32_t>(std::bit_cast<uint32_t>(t) - std::bit_cast<uint32_t>(kShift));
  const int32_t j = k & 7, e = k >> 3, e1 = e >> 1, e2 = e - e1;
  const float p = (r * kInv24 + kInv6) * r + 0.5f;
  const float q = r + (r * r) * p;
  const float v = kT[j] + (kT[j] * q + kTlo[j]);
  const float s1 = std::bit_cast<float>(static_cast<uint32_t>(e1 + 127) << 23);
  const float s2 = std::bit_cast<float>(static_cast<uint32_t>(e2 + 127) << 23);
  return (v * s1) * s2;
}

// log of one float32: the same IEEE operations in the same order as the
// vectorised Log (vec_impl_math.h: float64 inside, rounded once), hence the
// same bits, for the scalar steps that must agree with it (logsumexp,
// log_softmax's log of the sum) and with the OpenCL kernels (cpu_math.cl's
// log_f32_cpu, used in the reproducible mode's claims).
inline float log_f32(float x) {
  const double xd = x;  // float subnormals are normal doubles
  const uint64_t bits = std::bit_cast<uint64_t>(xd);
  const uint64_t mant = bits & 0x000fffffffffffffULL;
  const uint64_t big = 1 - ((mant - (0x6a09e667f3bcdULL + 1)) >> 63);  // m > sqrt(2)
  const uint64_t e = ((bits >> 52) & 0x7ff) + big;
  const double m = std::bit_cast<double>((mant | 0x3ff0000000000000ULL) - (big << 52));
  const double s = (m - 1.0) / (m + 1.0);
  const double z = s * s;
  double p = z * (2.0 / 13) + (2.0 / 11);
  p = p * z + (2.0 / 9);
  p = p * z + (2.0 / 7);
  p = p * z + (2.0 / 5);
  p = p * z + (2.0 / 3);
  p = p * z + 2.0;
  const double ed = std::bit_cast<double>(e + (std::bit_cast<uint64_t>(expc::kShift) - 1023)) - expc::kShift;
  const double r = ed * 0.69314718055994530942 + s * p;
  float y = static_cast<float>(r);
  const float inf = __builtin_inff();
  if (x == 0.0f) y = -inf;
  if (x < 0.0f) y = __builtin_nanf("");
  if (x == inf) y = inf;
  return x != x ? x + x : y;
}
// The log of an accumulator: log_f32's bits for float32, the library's for float64.
inline float log_acc(float a) { return log_f32(a); }
inline double log_acc(double a) { return __builtin_log(a); }

// The kernels of the level cpu_isa() picks (chosen once).
const Kernels& kernels();
// The kernels of one level, or nullptr when the CPU lacks it (for tests).
const Kernels* kernels_for(Isa isa);

// Per-ISA tables (vec_generic.cpp, vec_avx2.cpp, vec_avx512.cpp).
extern const Kernels kGenericKernels;
extern const Kernels kAvx2Kernels;
extern const Kernels kAvx512Kernels;

}  // namespace concord::detail::cpu::vec
