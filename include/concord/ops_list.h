// concord/ops_list.h — the op table: every op concord dispatches, one row each.
//
// A row declares everything the library knows about an op apart from its
// argument checks (the front end in src/ops/) and its kernels (one per
// backend). The dispatcher's dtype chokepoint, autocast, `concord ops`, the
// parity sweep, the fuzzers and the backend conformance suite all read it
// through concord::op_def() (concord/op_table.h). The columns:
//
//   name      the public name: in capabilities ("no-op:NAME"), the report, messages
//   family    copy creation random unary binary ternary reduce linear shape linalg
//   arity     tensor operands (0 for creation, -1 for a list: cat, stack)
//   dtypes    where it is defined: all, numeric (no bool), floating
//   result    the result dtype: same (the promoted operands'), floating (bool and
//             integers give float32), boolean, widened (bool and integers give
//             int64: sum, prod, cumsum), index (int64), given (the dtype asked for)
//   autocast  the op's class inside an autocast scope (concord/amp.h):
//             none, lower, float32, widest
//   model     how a result is judged against the float64 reference:
//             exact, rounded (correctly rounded), ulp(k) (k ULPs), sum(c)
//             (c·n·u·Σ|x|), relative(c) (c·n·u·(|e| + scale)), matmul(c)
//             (c·k·u·|A||B|), solve(c) (backward error c·n·u), same_bits (the
//             CPU's bits, e.g. random numbers)
//   domain    where sample inputs are drawn: dom(lo, hi) for every operand, or
//             dom2(lo, hi, blo, bhi) with the second operand's own range
#pragma once

#include <cstdint>
#include <string_view>

// clang-format off
#define CONCORD_OP_TABLE(X)                                                                              \
  /* name          family    arity dtypes    result    autocast model          domain */                 \
  X(copy,          copy,      1,  all,      same,     none,    exact,          dom(-300, 300))           \
  X(fill,          creation,  0,  all,      given,    none,    exact,          dom(-9, 9))               \
  X(arange,        creation,  0,  numeric,  given,    none,    exact,          dom(-9, 9))               \
  X(linspace,      creation,  0,  floating, given,    none,    rounded,        dom(-9, 9))               \
  X(eye,           creation,  0,  all,      given,    none,    exact,          dom(0, 1))                \
  X(rand,          random,    0,  floating, given,    none,    same_bits,      dom(0, 1))                \
  X(randn,         random,    0,  floating, given,    none,    same_bits,      dom(-4, 4))               \
  X(randint,       random,    0,  all,      given,    none,    same_bits,      dom(-9, 9))               \
  X(neg,           unary,     1,  numeric,  same,     none,    rounded,        dom(-5, 5))               \
  X(abs,           unary,     1,  numeric,  same,     none,    rounded,        dom(-5, 5))               \
  X(sign,          unary,     1,  all,      same,     none,    exact,          dom(-5, 5))               \
  X(exp,           unary,     1,  floating, floating, float32, ulp(4),         dom(-10, 10))             \
  X(expm1,         unary,     1,  floating, floating, none,    ulp(4),         dom(-2, 2))               \
  X(log,           unary,     1,  floating, floating, float32, ulp(4),         dom(0.01, 100))           \
  X(log1p,         unary,     1,  floating, floating, none,    ulp(4),         dom(-0.9, 10))            \
  X(log2,          unary,     1,  floating, floating, none,    ulp(4),         dom(0.01, 100))           \
  X(sqrt,          unary,     1,  floating, floating, none,    rounded,        dom(0, 100))              \
  X(rsqrt,         unary,     1,  floating, floating, none,    ulp(4),         dom(0.01, 100))           \
  X(sin,           unary,     1,  floating, floating, none,    ulp(4),         dom(-6, 6))               \
  X(cos,           unary,     1,  floating, floating, none,    ulp(4),         dom(-6, 6))               \
  X(tan,           unary,     1,  floating, floating, none,    ulp(4),         dom(-1.4, 1.4))           \
  X(tanh,          unary,     1,  floating, floating, none,    ulp(4),         dom(-5, 5))               \
  X(sigmoid,       unary,     1,  floating, floating, none,    ulp(4),         dom(-10, 10))             \
  X(relu,          unary,     1,  numeric,  same,     none,    rounded,        dom(-5, 5))               \
  X(gelu,          unary,     1,  floating, floating, none,    ulp(8),         dom(-5, 5))               \
  X(erf,           unary,     1,  floating, floating, none,    ulp(4),         dom(-3, 3))               \
  X(floor,         unary,     1,  numeric,  same,     none,    rounded,        dom(-50, 50))             \
  X(ceil,          unary,     1,  numeric,  same,     none,    rounded,        dom(-50, 50))             \
  X(round,         unary,     1,  numeric,  same,     none,    rounded,        dom(-50, 50))             \
  X(trunc,         unary,     1,  numeric,  same,     none,    rounded,        dom(-50, 50))             \
  X(reciprocal,    unary,     1,  floating, floating, none,    rounded,        dom(0.5, 8))              \
  X(isnan,         unary,     1,  all,      boolean,  none,    exact,          dom(-5, 5))               \
  X(isinf,         unary,     1,  all,      boolean,  none,    exact,          dom(-5, 5))               \
  X(isfinite,      unary,     1,  all,      boolean,  none,    exact,          dom(-5, 5))               \
  X(logical_not,   unary,     1,  all,      boolean,  none,    exact,          dom(-2, 2))               \
  X(add,           binary,    2,  all,      same,     none,    rounded,        dom(-100, 100))           \
  X(sub,           binary,    2,  numeric,  same,     none,    rounded,        dom(-100, 100))           \
  X(mul,           binary,    2,  all,      same,     none,    rounded,        dom(-10, 10))             \
  X(div,           binary,    2,  floating, floating, none,    rounded,        dom2(-10, 10, 0.5, 10))   \
  X(pow,           binary,    2,  numeric,  same,     float32, ulp(8),         dom2(0.1, 4, -3, 3))      \
  X(maximum,       binary,    2,  all,      same,     none,    exact,          dom(-10, 10))             \
  X(minimum,       binary,    2,  all,      same,     none,    exact,          dom(-10, 10))             \
  X(remainder,     binary,    2,  numeric,  same,     none,    rounded,        dom2(-100, 100, 1, 9))    \
  X(floor_divide,  binary,    2,  numeric,  same,     none,    rounded,        dom2(-100, 100, -9, 9))   \
  X(atan2,         binary,    2,  floating, floating, none,    ulp(4),         dom(-5, 5))               \
  X(hypot,         binary,    2,  floating, floating, none,    rounded,        dom(-100, 100))           \
  X(logaddexp,     binary,    2,  floating, floating, none,    ulp(4),         dom(-20, 20))             \
  X(copysign,      binary,    2,  floating, floating, none,    exact,          dom(-10, 10))             \
  X(nextafter,     binary,    2,  floating, floating, none,    exact,          dom(-5, 5))               \
  X(eq,            binary,    2,  all,      boolean,  none,    exact,          dom(-3, 3))               \
  X(ne,            binary,    2,  all,      boolean,  none,    exact,          dom(-3, 3))               \
  X(lt,            binary,    2,  all,      boolean,  none,    exact,          dom(-3, 3))               \
  X(le,            binary,    2,  all,      boolean,  none,    exact,          dom(-3, 3))               \
  X(gt,            binary,    2,  all,      boolean,  none,    exact,          dom(-3, 3))               \
  X(ge,            binary,    2,  all,      boolean,  none,    exact,          dom(-3, 3))               \
  X(logical_and,   binary,    2,  all,      boolean,  none,    exact,          dom(-2, 2))               \
  X(logical_or,    binary,    2,  all,      boolean,  none,    exact,          dom(-2, 2))               \
  X(logical_xor,   binary,    2,  all,      boolean,  none,    exact,          dom(-2, 2))               \
  X(where,         ternary,   3,  all,      same,     widest,  exact,          dom(-9, 9))               \
  X(clamp,         ternary,   1,  numeric,  same,     none,    exact,          dom(-20, 20))             \
  X(sum,           reduce,    1,  numeric,  widened,  float32, sum(2),         dom(-1, 1))               \
  X(mean,          reduce,    1,  floating, same,     none,    relative(2),    dom(-1, 1))               \
  X(prod,          reduce,    1,  numeric,  widened,  float32, relative(2),    dom(0.999, 1.001))        \
  X(max,           reduce,    1,  numeric,  same,     none,    exact,          dom(-100, 100))           \
  X(min,           reduce,    1,  numeric,  same,     none,    exact,          dom(-100, 100))           \
  X(amax,          reduce,    1,  numeric,  same,     none,    exact,          dom(-100, 100))           \
  X(amin,          reduce,    1,  numeric,  same,     none,    exact,          dom(-100, 100))           \
  X(argmax,        reduce,    1,  numeric,  index,    none,    exact,          dom(-5, 5))               \
  X(argmin,        reduce,    1,  numeric,  index,    none,    exact,          dom(-5, 5))               \
  X(var,           reduce,    1,  floating, same,     none,    relative(8),    dom(-1, 1))               \
  X(std,           reduce,    1,  floating, same,     none,    relative(8),    dom(-1, 1))               \
  X(norm,          reduce,    1,  floating, same,     float32, relative(2),    dom(-1, 1))               \
  X(all,           reduce,    1,  all,      boolean,  none,    exact,          dom(0, 2))                \
  X(any,           reduce,    1,  all,      boolean,  none,    exact,          dom(0, 2))                \
  X(logsumexp,     reduce,    1,  floating, floating, float32, relative(2),    dom(-5, 5))               \
  X(softmax,       reduce,    1,  floating, same,     float32, relative(4),    dom(-5, 5))               \
  X(log_softmax,   reduce,    1,  floating, same,     float32, relative(4),    dom(-5, 5))               \
  X(cumsum,        reduce,    1,  numeric,  widened,  float32, relative(4),    dom(-5, 5))               \
  X(matmul,        linear,    2,  numeric,  same,     lower,   matmul(2),      dom(-2, 2))               \
  X(mm,            linear,    2,  numeric,  same,     lower,   matmul(2),      dom(-2, 2))               \
  X(bmm,           linear,    2,  numeric,  same,     lower,   matmul(2),      dom(-2, 2))               \
  X(mv,            linear,    2,  numeric,  same,     lower,   matmul(2),      dom(-2, 2))               \
  X(dot,           linear,    2,  numeric,  same,     none,    matmul(2),      dom(-2, 2))               \
  X(outer,         linear,    2,  numeric,  same,     none,    matmul(2),      dom(-2, 2))               \
  X(addmm,         linear,    3,  numeric,  same,     lower,   matmul(8),      dom(-2, 2))               \
  X(baddbmm,       linear,    3,  numeric,  same,     lower,   matmul(8),      dom(-2, 2))               \
  X(linear,        linear,    3,  numeric,  same,     lower,   matmul(8),      dom(-2, 2))               \
  X(cat,           shape,    -1,  all,      same,     widest,  exact,          dom(-9, 9))               \
  X(stack,         shape,    -1,  all,      same,     widest,  exact,          dom(-9, 9))               \
  X(index_select,  shape,     2,  all,      same,     none,    exact,          dom(-9, 9))               \
  X(gather,        shape,     2,  all,      same,     none,    exact,          dom(-9, 9))               \
  X(flip,          shape,     1,  all,      same,     none,    exact,          dom(-9, 9))               \
  X(tril,          shape,     1,  all,      same,     none,    exact,          dom(-9, 9))               \
  X(triu,          shape,     1,  all,      same,     none,    exact,          dom(-9, 9))               \
  X(solve,         linalg,    2,  floating, same,     float32, solve(4),       dom(-1, 1))               \
  X(lu_factor,     linalg,    1,  floating, same,     float32, relative(8),    dom(-1, 1))               \
  X(lu_solve,      linalg,    3,  floating, same,     float32, solve(4),       dom(-1, 1))               \
  X(inv,           linalg,    1,  floating, same,     float32, relative(16),   dom(-1, 1))               \
  X(det,           linalg,    1,  floating, same,     float32, relative(16),   dom(-1, 1))               \
  X(slogdet,       linalg,    1,  floating, same,     float32, relative(16),   dom(-1, 1))               \
  X(cholesky,      linalg,    1,  floating, same,     float32, relative(8),    dom(-1, 1))               \
  X(solve_triangular, linalg, 2,  floating, same,     float32, solve(4),       dom(-1, 1))               \
  X(vector_norm,   linalg,    1,  floating, same,     float32, relative(2),    dom(-1, 1))               \
  X(matrix_norm,   linalg,    1,  floating, same,     float32, relative(4),    dom(-1, 1))
// clang-format on

namespace concord {

enum class OpId : uint16_t {
#define CONCORD_X(name, ...) name,
  CONCORD_OP_TABLE(CONCORD_X)
#undef CONCORD_X
};

inline constexpr int kNumOps = 0
#define CONCORD_X(name, ...) +1
    CONCORD_OP_TABLE(CONCORD_X)
#undef CONCORD_X
    ;

std::string_view op_name(OpId op);
// The op's one spelling in messages ("[linalg.solve] ..."): op_name, with
// "linalg." before the linalg family's ops, as they are called (linalg::solve).
// Report entries and CONCORD profiles use op_name.
std::string op_label(OpId op);
std::string_view op_family(OpId op);
// Returns false if the name is unknown.
bool parse_op(std::string_view name, OpId* out);

}  // namespace concord
