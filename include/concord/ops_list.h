// concord/ops_list.h — the single list of ops concord dispatches.
//
// Each entry is an op the dispatcher knows by name: it appears in device
// capabilities ("no-op:NAME"), in the support matrix (`concord ops`) and in
// the report. X(name, family).
#pragma once

#include <cstdint>
#include <string_view>

#define CONCORD_OPS(X)                                                                     \
  /* data movement and creation */                                                       \
  X(copy, copy) X(fill, creation) X(arange, creation) X(linspace, creation)             \
  X(eye, creation) X(rand, random) X(randn, random) X(randint, random)                  \
  /* unary elementwise */                                                                \
  X(neg, unary) X(abs, unary) X(sign, unary) X(exp, unary) X(expm1, unary)               \
  X(log, unary) X(log1p, unary) X(log2, unary) X(sqrt, unary) X(rsqrt, unary)            \
  X(sin, unary) X(cos, unary) X(tan, unary) X(tanh, unary) X(sigmoid, unary)             \
  X(relu, unary) X(gelu, unary) X(erf, unary) X(floor, unary) X(ceil, unary)             \
  X(round, unary) X(trunc, unary) X(reciprocal, unary) X(isnan, unary) X(isinf, unary)   \
  X(isfinite, unary) X(logical_not, unary)                                               \
  /* binary elementwise */                                                               \
  X(add, binary) X(sub, binary) X(mul, binary) X(div, binary) X(pow, binary)             \
  X(maximum, binary) X(minimum, binary) X(remainder, binary) X(atan2, binary)            \
  X(eq, binary) X(ne, binary) X(lt, binary) X(le, binary) X(gt, binary) X(ge, binary)    \
  X(logical_and, binary) X(logical_or, binary) X(logical_xor, binary)                    \
  /* ternary */                                                                          \
  X(where, ternary) X(clamp, ternary)                                                    \
  /* reductions */                                                                       \
  X(sum, reduce) X(mean, reduce) X(prod, reduce) X(max, reduce) X(min, reduce)           \
  X(amax, reduce) X(amin, reduce) X(argmax, reduce) X(argmin, reduce) X(var, reduce)     \
  X(std, reduce) X(norm, reduce) X(all, reduce) X(any, reduce) X(logsumexp, reduce)      \
  X(softmax, reduce) X(log_softmax, reduce) X(cumsum, reduce)                            \
  /* linear */                                                                           \
  X(matmul, linear) X(mm, linear) X(bmm, linear) X(mv, linear) X(dot, linear)            \
  X(outer, linear) X(addmm, linear) X(baddbmm, linear) X(linear, linear)                 \
  /* shape */                                                                            \
  X(cat, shape) X(stack, shape) X(index_select, shape) X(gather, shape) X(flip, shape)   \
  X(tril, shape) X(triu, shape)                                                          \
  /* linear algebra */                                                                   \
  X(solve, linalg) X(lu_factor, linalg) X(lu_solve, linalg) X(inv, linalg)               \
  X(det, linalg) X(slogdet, linalg) X(cholesky, linalg) X(solve_triangular, linalg)      \
  X(vector_norm, linalg) X(matrix_norm, linalg)

namespace concord {

enum class OpId : uint16_t {
#define CONCORD_X(name, family) name,
  CONCORD_OPS(CONCORD_X)
#undef CONCORD_X
};

inline constexpr int kNumOps = 0
#define CONCORD_X(name, family) +1
    CONCORD_OPS(CONCORD_X)
#undef CONCORD_X
    ;

std::string_view op_name(OpId op);
std::string_view op_family(OpId op);
// Returns false if the name is unknown.
bool parse_op(std::string_view name, OpId* out);

}  // namespace concord
