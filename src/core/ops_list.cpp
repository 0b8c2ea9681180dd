// Names and families of the ops in CONCORD_OPS.
#include "concord/ops_list.h"

namespace concord {

namespace {
constexpr std::string_view kOpNames[] = {
#define CONCORD_X(name, family) #name,
    CONCORD_OPS(CONCORD_X)
#undef CONCORD_X
};
constexpr std::string_view kOpFamilies[] = {
#define CONCORD_X(name, family) #family,
    CONCORD_OPS(CONCORD_X)
#undef CONCORD_X
};
}  // namespace

std::string_view op_name(OpId op) { return kOpNames[static_cast<int>(op)]; }
std::string_view op_family(OpId op) { return kOpFamilies[static_cast<int>(op)]; }

bool parse_op(std::string_view name, OpId* out) {
  for (int i = 0; i < kNumOps; ++i)
    if (kOpNames[i] == name) {
      *out = static_cast<OpId>(i);
      return true;
    }
  return false;
}

}  // namespace concord
