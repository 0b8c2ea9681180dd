// concord/op_table.h — what concord knows about each op, from one table.
//
// op_def(op) is the row of CONCORD_OP_TABLE (concord/ops_list.h) as data:
//
//   const concord::OpDef& d = concord::op_def(concord::OpId::exp);
//   d.dtypes.has(concord::int32);     // false: exp is defined on floating dtypes
//   d.result_dtype(concord::int32);   // float32 (integers give float32)
//   d.autocast;                       // AutocastPolicy::float32
//   d.model, d.bound;                 // ErrorModel::ulp, 4
//
// Everything that asks "is op X defined for dtype T", "what dtype does it
// return", "what does autocast do to it" or "how close must a device come"
// reads this: the dispatcher, autocast, `concord ops`, the parity sweep, the
// fuzzers and the backend conformance suite.
#pragma once

#include <cstdint>
#include <string_view>

#include "concord/dtype.h"
#include "concord/ops_list.h"

namespace concord {

enum class OpFamily : uint8_t { copy, creation, random, unary, binary, ternary, reduce, linear, shape, linalg };
std::string_view name(OpFamily f);

// The result dtype as a function of the (promoted) operand dtype.
enum class ResultRule : uint8_t {
  same,      // the promoted operands' dtype
  floating,  // the same for floating dtypes; bool and integers give float32
  boolean,   // bool
  widened,   // the same for floating dtypes; bool and integers give int64
  index,     // int64
  given,     // the dtype the caller asks for (creation, random)
};
std::string_view name(ResultRule r);

// What an autocast scope does to the op (concord/amp.h).
enum class AutocastPolicy : uint8_t { none, lower, float32, widest };
std::string_view name(AutocastPolicy p);

// How a result is judged against an exact (float64) reference; `bound` is the
// model's constant.
enum class ErrorModel : uint8_t {
  exact,      // bitwise equal to the reference rounded to the output dtype
  rounded,    // correctly rounded: within 0.5 ULP of the exact result
  ulp,        // within `bound` ULPs of the output dtype
  sum,        // |s - ŝ| <= bound·n·u·Σ|x|
  relative,   // |a - e| <= bound·n·u·(|e| + scale)
  matmul,     // |C - Ĉ| <= bound·k·u·(|A||B|)
  solve,      // normwise backward error <= bound·n·u
  same_bits,  // the CPU's bits in the same dtype (random numbers)
};
std::string_view name(ErrorModel m);

struct OpDef {
  OpId id;
  std::string_view name;
  OpFamily family;
  int arity;               // tensor operands; -1: a list (cat, stack)
  DtypeSet dtypes;         // dtypes the op is defined for (on every device)
  ResultRule result;
  AutocastPolicy autocast;
  ErrorModel model;
  double bound;            // ULPs (ulp) or the constant c of the other bound models; 0 for exact
  double lo, hi;           // sample domain of the operands
  double lo2, hi2;         // ... of the second operand (binary ops), else lo, hi
  // The result dtype for operands promoted to t (given: t itself).
  Dtype result_dtype(Dtype t) const {
    switch (result) {
      case ResultRule::floating: return is_floating(t) ? t : float32;
      case ResultRule::boolean: return bool_;
      case ResultRule::widened: return is_floating(t) ? t : int64;
      case ResultRule::index: return int64;
      default: return t;  // same, given
    }
  }
};

namespace detail {
extern const OpDef* const g_op_table;  // CONCORD_OP_TABLE as data, indexed by OpId
}
inline const OpDef& op_def(OpId op) { return detail::g_op_table[static_cast<int>(op)]; }

}  // namespace concord
