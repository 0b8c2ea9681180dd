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

#include <cstdint>

namespace concord::detail::cpu::vec {

enum class Isa : uint8_t { generic, avx2, avx512 };
enum class Ty : uint8_t { f32, f16, bf16 };
enum class BinOp : uint8_t { add, sub, mul, div, maximum, minimum };
enum class UnOp : uint8_t { exp, sigmoid, tanh, log };

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
};

// Outputs from this size on are streamed (binary's `stream`). The caller
// decides by the whole output, not by the run one thread gets.
inline constexpr int64_t kStreamBytes = int64_t{16} << 20;

// The kernels for this CPU (chosen once).
const Kernels& kernels();
// The kernels of one ISA, or nullptr when the CPU lacks it (for tests).
const Kernels* kernels_for(Isa isa);

// Per-ISA tables (vec_generic.cpp, vec_avx2.cpp, vec_avx512.cpp).
extern const Kernels kGenericKernels;
extern const Kernels kAvx2Kernels;
extern const Kernels kAvx512Kernels;

}  // namespace concord::detail::cpu::vec
