// The shared elementwise ops: those whose kernel on every backend is the one
// body in backend/common/canon_ops.inc (hypot, logaddexp, copysign,
// nextafter). A backend expands CONCORD_OPS_BINARY where it dispatches and
// reads this list where it claims; the list and the bodies sit in one file,
// so a claim cannot lack its kernel.
//
// Example: if (is_shared_op(op)) c.claim(op, floating_dtypes);
#pragma once

#include <algorithm>
#include <iterator>

#include "backend/common/canon_ops.h"
#include "concord/op_table.h"

namespace concord::detail {

#define CONCORD_SHARED_OPID(name) OpId::name,
inline constexpr OpId kSharedOps[] = {CONCORD_OPS_BINARY(CONCORD_SHARED_OPID)};
#undef CONCORD_SHARED_OPID

inline bool is_shared_op(OpId op) {
  return std::find(std::begin(kSharedOps), std::end(kSharedOps), op) != std::end(kSharedOps);
}

}  // namespace concord::detail
