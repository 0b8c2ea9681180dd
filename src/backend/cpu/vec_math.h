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
//   exp      evaluated in float64 (Cody-Waite reduction by ln2, degree-8
//            Taylor polynomial), rounded once: <= 1 ULP of the correctly
//            rounded result (max 0.5032 ULP), almost always correctly rounded.
//   sigmoid  1 / (1 + exp(-x)) in float64, rounded once: <= 1 ULP.
//   tanh     expm1(2|x|) / (expm1(2|x|) + 2) in float64 with the sign of x: <= 1 ULP.
//   log      2 atanh((m-1)/(m+1)) + e ln2 in float64: <= 1 ULP.
// float16/bfloat16 widen to float32, compute as above and round once to the dtype.
//
// Set CONCORD_CPU_ISA=generic|avx2|avx512 to pin the ISA (for debugging;
// an ISA the CPU lacks is ignored).
#pragma once

#include <bit>
#include <cstdint>

namespace concord::detail::cpu::vec {

enum class Isa : uint8_t { generic, avx2, avx512 };
enum class Ty : uint8_t { f32, f16, bf16 };
enum class BinOp : uint8_t { add, sub, mul, div, maximum, minimum };
enum class UnOp : uint8_t { exp, sigmoid, tanh, log };
// Reductions over contiguous runs, in the reduction engine's order (below).
enum class RedOp : uint8_t { sum, max, min, exp_sum };
// The last pass of a softmax row (see Kernels::row_out).
enum class RowOut : uint8_t { scale, exp_scale, log };

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
  // itself when ty is f32).
  void (*reduce_blocks)(RedOp op, Ty ty, const void* x, int64_t n, float shift, float* part, float* e);
  // The output pass of a softmax row, o of type ty:
  //   scale:     o[i] = e[i] * a          (x is float32 e; may be o when ty is f32)
  //   exp_scale: o[i] = exp_f32(x[i] - a) * b
  //   log:     o[i] = (x[i] - a) - b
  void (*row_out)(RowOut op, Ty ty, void* o, const void* x, int64_t n, float a, float b);
};

// Outputs from this size on are streamed (binary's `stream`). The caller
// decides by the whole output, not by the run one thread gets.
inline constexpr int64_t kStreamBytes = int64_t{16} << 20;

// Constants of exp (shared by the vector kernels and exp_f32).
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

// exp of one float32: the same IEEE operations in the same order as the
// vectorised exp (vec_impl.h), hence the same bits, for scalar paths that must
// agree with the vector ones (softmax and logsumexp of any layout).
inline float exp_f32(float x) {
  using namespace expc;
  x = x > kClamp ? kClamp : x;
  x = x < -kClamp ? -kClamp : x;
  const double xd = x;
  const double t = xd * kLog2e + kShift;
  const double n = t - kShift;
  const double r = (xd - n * kLn2Hi) - n * kLn2Lo;
  const double s = std::bit_cast<double>((std::bit_cast<uint64_t>(t) + 1023) << 52);
  double p = r * kInv8 + kInv7;
  p = p * r + kInv6;
  p = p * r + kInv5;
  p = p * r + kInv4;
  p = p * r + kInv3;
  p = p * r + kInv2;
  p = p * r + 1.0;
  p = p * r + 1.0;
  return static_cast<float>(p * s);
}

// The kernels for this CPU (chosen once).
const Kernels& kernels();
// The kernels of one ISA, or nullptr when the CPU lacks it (for tests).
const Kernels* kernels_for(Isa isa);

// Per-ISA tables (vec_generic.cpp, vec_avx2.cpp, vec_avx512.cpp).
extern const Kernels kGenericKernels;
extern const Kernels kAvx2Kernels;
extern const Kernels kAvx512Kernels;

}  // namespace concord::detail::cpu::vec
