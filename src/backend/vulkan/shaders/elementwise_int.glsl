// shaders/elementwise_int.glsl — the elementwise ops of integer dtypes
// (src/backend/cpu/unary.cpp, binary.cpp): S is the compute type (int for
// int8/int16/int32, uint for uint8, int64_t), U its unsigned twin.
// Arithmetic wraps: it runs in U, and the store keeps the dtype's low bits
// (which commutes with +, -, * and negation). Division never traps: x % 0,
// x // 0 and x % -1 give 0, min // -1 wraps; % and // follow Python (the
// result takes the divisor's sign, the quotient is floored); a negative
// exponent gives the integer part of the true power (1, +-1 or 0).
#ifndef CONCORD_ELEMENTWISE_INT_GLSL
#define CONCORD_ELEMENTWISE_INT_GLSL

#if INTW == 64
#define S int64_t
#define U uint64_t
#elif defined(UNSIGNED)
#define S uint
#define U uint
#else
#define S int
#define U uint
#endif

S wrap_neg(S x) { return S(U(0) - U(x)); }

// a / b truncated toward zero, in unsigned arithmetic (b != 0, not min / -1).
S trunc_div(S a, S b) {
  const bool na = a < S(0), nb = b < S(0);
  const U q = (na ? U(0) - U(a) : U(a)) / (nb ? U(0) - U(b) : U(b));
  return na != nb ? S(U(0) - q) : S(q);
}

S ipow(S a, S b) {
  if (b < S(0)) return a == S(1) ? S(1) : a == S(-1) ? ((b & S(1)) != S(0) ? S(-1) : S(1)) : S(0);
  U r = U(1), base = U(a);
  for (U e = U(b); e != U(0); e >>= 1) {
    if ((e & U(1)) != U(0)) r *= base;
    base *= base;
  }
  return S(r);
}

S irem(S a, S b) {
  if (b == S(0) || b == S(-1)) return S(0);  // -1: min % -1 traps in hardware
  S m = S(U(a) - U(trunc_div(a, b)) * U(b));
  if (m != S(0) && ((b < S(0)) != (m < S(0)))) m = S(U(m) + U(b));
  return m;
}

S ifloordiv(S a, S b) {
  if (b == S(0)) return S(0);
  if (b == S(-1)) return wrap_neg(a);  // min // -1 wraps
  S q = trunc_div(a, b);
  if (S(U(a) - U(q) * U(b)) != S(0) && ((a < S(0)) != (b < S(0)))) q = S(U(q) - U(1));
  return q;
}

S uop(int op, S x) {
  switch (op) {
    case OP_neg: return wrap_neg(x);
    case OP_abs: return x < S(0) ? wrap_neg(x) : x;  // abs(min) stays min
    case OP_sign: return x > S(0) ? S(1) : x < S(0) ? S(-1) : S(0);
    case OP_relu: return x < S(0) ? S(0) : x;
    case OP_floor: case OP_ceil: case OP_round: case OP_trunc: return x;
    default: return S(0);  // an op without a case here: never claimed
  }
}

uint upr(int op, S x) {
  switch (op) {
    case OP_isnan: case OP_isinf: return 0u;
    case OP_isfinite: return 1u;
    case OP_logical_not: return x == S(0) ? 1u : 0u;
    default: return 0u;
  }
}

S bop(int op, S a, S b) {
  switch (op) {
    case OP_add: return S(U(a) + U(b));
    case OP_sub: return S(U(a) - U(b));
    case OP_mul: return S(U(a) * U(b));
    case OP_maximum: return a < b ? b : a;
    case OP_minimum: return b < a ? b : a;
    case OP_pow: return ipow(a, b);
    case OP_remainder: return irem(a, b);
    case OP_floor_divide: return ifloordiv(a, b);
    default: return S(0);
  }
}

uint bpr(int op, S a, S b) {
  switch (op) {
    case OP_eq: return a == b ? 1u : 0u;
    case OP_ne: return a != b ? 1u : 0u;
    case OP_lt: return a < b ? 1u : 0u;
    case OP_le: return a <= b ? 1u : 0u;
    case OP_gt: return a > b ? 1u : 0u;
    case OP_ge: return a >= b ? 1u : 0u;
    case OP_logical_and: return (a != S(0)) && (b != S(0)) ? 1u : 0u;
    case OP_logical_or: return (a != S(0)) || (b != S(0)) ? 1u : 0u;
    case OP_logical_xor: return (a != S(0)) != (b != S(0)) ? 1u : 0u;
    default: return 0u;
  }
}

// Bounds arrive as the compute type's value, sign-extended to 64 bits.
S clamp_op(S x, uint64_t lo_bits, uint64_t hi_bits) {
  const S lo = S(int64_t(lo_bits)), hi = S(int64_t(hi_bits));
  x = x < lo ? lo : x;
  return x > hi ? hi : x;
}

#endif
