// concord/parity.h — the parity sweep: every op, on every device, judged by
// its error model against a float64 reference computed on the CPU.
//
// The cases come from the op table (concord/op_table.h): every unary and
// binary op gets its variants (odd shapes, transposed, broadcast, empty,
// special values with signed zeros, infinities, NaN and subnormals) from its
// row's domain, dtypes and error model; the other families add variants of
// their own (reductions over different dims, products with addends, linear
// algebra on well-conditioned matrices). `concord parity`, the backend
// conformance suite (tests/backend/) and anyone who wants to prove a device
// agrees with the CPU run the same cases:
//
//   for (const auto& c : concord::testing::parity_cases(/*quick=*/true))
//     for (concord::Dtype t : concord::kAllDtypes)
//       if (c.dtypes.has(t)) {
//         auto r = concord::testing::judge(c, concord::Device("vulkan:0"), t, /*seed=*/1);
//         if (r.verdict == concord::testing::Verdict::fail) std::cerr << r.detail << "\n";
//       }
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "concord/op_table.h"
#include "concord/ops.h"

namespace concord::testing {

struct ParityCase {
  OpId op = OpId::copy;
  std::string variant;  // "odd 37x53", "transposed", "broadcast", "empty", "special"...
  DtypeSet dtypes;      // the dtypes it runs in (within the op's own)
  std::function<std::vector<Tensor>(Dtype, uint64_t seed)> make;  // inputs, built on the CPU
  std::function<Tensor(const std::vector<Tensor>&)> run;          // null for random ops (same_bits)
  ErrorModel model = ErrorModel::rounded;  // the op table's unless the variant needs its own
  double bound = 0;                        // ULPs (ulp) or the model's constant c
  std::vector<int64_t> dims;               // ErrorModel::sum: the reduced dims ({} = all)
  bool keepdim = false;
  bool float_inputs = true;  // the reference takes float64 inputs (else the input dtype)
  std::string_view op_name() const { return concord::op_name(op); }
};

// Every case of every op (quick: fewer variants). Each op of the table has at
// least one (ops_without_cases() says which do not: a test keeps it empty).
std::vector<ParityCase> parity_cases(bool quick);
std::vector<OpId> ops_without_cases();

enum class Verdict { pass, fail, fallback, downcast, unsupported };
std::string_view verdict_name(Verdict v);  // "PASS", "FAIL", ...

struct ParityResult {
  bool applicable = true;  // false: the op is not defined for the dtype
  OpId op = OpId::copy;
  std::string variant;
  Dtype dtype = float32;
  Verdict verdict = Verdict::pass;  // fallback / downcast: passed, through that path
  double ratio = 0;                 // error / bound of the worst element (0 when exact)
  std::string detail;               // what failed, with numbers
  // Passed only as a device that flushes subnormals to zero: its result
  // agrees with the reference computed on inputs whose subnormals (of the
  // compute dtype) are zero, with subnormal results read as zero. Judged so
  // only where the device does not promise to keep subnormals
  // (Capabilities::keeps_subnormals); counted apart by `concord parity`.
  bool flushed = false;
  // The device's result has the CPU's bits in the same dtype: set by judge()
  // when asked (bits), and always in the reproducible mode when it passes.
  bool cpu_bits = false;
};

// Runs case c on `device` in dtype t (the device's current profile and
// policies apply) and judges the result against the reference: the same
// inputs rounded to the compute dtype, run on the CPU in float64 (in the
// dtype itself for exact ops). Raising the same typed error on both sides is
// agreement. inject: perturb the device's result (proves that failures fail).
// bits: also run the case on the CPU in the dtype and record whether the
// device gave the same bits (ParityResult::cpu_bits; costs one more CPU run).
ParityResult judge(const ParityCase& c, const Device& device, Dtype t, uint64_t seed, bool inject = false,
                   bool bits = false);

}  // namespace concord::testing
