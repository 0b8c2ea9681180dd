// Which dtypes each op is defined for: the CPU reference's table. Other
// backends declare their native kernels as a subset of this; anything outside
// it is a DtypeError on every device.
#include "core/backend.h"

namespace concord::detail {

DtypeSet op_dtypes(OpId op) {
  const DtypeSet all = DtypeSet::all();
  const DtypeSet numeric = kIntegralDtypes | kFloatingDtypes;
  const DtypeSet floating = kFloatingDtypes;
  switch (op) {
    // Data movement and creation: every dtype.
    case OpId::copy: case OpId::fill: case OpId::where: case OpId::cat: case OpId::stack:
    case OpId::index_select: case OpId::gather: case OpId::flip: case OpId::tril: case OpId::triu:
    case OpId::eq: case OpId::ne: case OpId::logical_and: case OpId::logical_or:
    case OpId::logical_xor: case OpId::logical_not: case OpId::isnan: case OpId::isinf:
    case OpId::isfinite: case OpId::all: case OpId::any: case OpId::randint: case OpId::eye:
      return all;
    // Elementwise ops PyTorch also defines on bool: add = or, mul = and, maximum = or,
    // minimum = and, ordered comparisons with false < true, sign = identity.
    case OpId::add: case OpId::mul: case OpId::maximum: case OpId::minimum: case OpId::lt:
    case OpId::le: case OpId::gt: case OpId::ge: case OpId::sign:
      return all;
    // Ordering and arithmetic that make sense on integers too.
    case OpId::arange: case OpId::sub: case OpId::remainder: case OpId::clamp: case OpId::abs:
    case OpId::neg: case OpId::relu: case OpId::floor: case OpId::ceil: case OpId::round: case OpId::trunc:
    case OpId::sum: case OpId::prod: case OpId::max: case OpId::min: case OpId::amax:
    case OpId::amin: case OpId::argmax: case OpId::argmin: case OpId::cumsum:
    case OpId::matmul: case OpId::mm: case OpId::bmm: case OpId::mv: case OpId::dot:
    case OpId::outer: case OpId::addmm: case OpId::baddbmm: case OpId::linear: case OpId::pow:
      return numeric;
    default:  // transcendental, division, statistics, softmax, random floats, linalg
      return floating;
  }
}

}  // namespace concord::detail
