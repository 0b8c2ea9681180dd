// shaders/elementwise_bool.glsl — the elementwise ops of bool (0/1 in a
// uint): sign is the identity, add and maximum are or, mul and minimum are
// and (src/backend/cpu/unary.cpp, binary.cpp).
#ifndef CONCORD_ELEMENTWISE_BOOL_GLSL
#define CONCORD_ELEMENTWISE_BOOL_GLSL

uint uop(int op, uint x) {
  switch (op) {
    case OP_sign: return x;
    default: return 0u;  // an op without a case here: never claimed
  }
}

uint upr(int op, uint x) {
  switch (op) {
    case OP_isnan: case OP_isinf: return 0u;
    case OP_isfinite: return 1u;
    case OP_logical_not: return x == 0u ? 1u : 0u;
    default: return 0u;
  }
}

uint bop(int op, uint a, uint b) {
  switch (op) {
    case OP_add: case OP_maximum: return a | b;
    case OP_mul: case OP_minimum: return a & b;
    default: return 0u;
  }
}

uint bpr(int op, uint a, uint b) {
  switch (op) {
    case OP_eq: return a == b ? 1u : 0u;
    case OP_ne: return a != b ? 1u : 0u;
    case OP_lt: return a < b ? 1u : 0u;
    case OP_le: return a <= b ? 1u : 0u;
    case OP_gt: return a > b ? 1u : 0u;
    case OP_ge: return a >= b ? 1u : 0u;
    case OP_logical_and: return a & b;
    case OP_logical_or: return a | b;
    case OP_logical_xor: return a ^ b;
    default: return 0u;
  }
}

#endif
