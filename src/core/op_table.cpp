// The op table as data (concord/op_table.h): CONCORD_OP_TABLE expanded once.
#include "concord/op_table.h"

#include "core/backend.h"

namespace concord {

namespace {

constexpr DtypeSet kAllSet = DtypeSet::all();
constexpr DtypeSet kNumericSet = kIntegralDtypes | kFloatingDtypes;

// The column tokens of CONCORD_OP_TABLE.
#define CONCORD_DTYPES_all kAllSet
#define CONCORD_DTYPES_numeric kNumericSet
#define CONCORD_DTYPES_floating kFloatingDtypes
#define CONCORD_MODEL_exact ErrorModel::exact, 0
#define CONCORD_MODEL_rounded ErrorModel::rounded, 0.5
#define CONCORD_MODEL_same_bits ErrorModel::same_bits, 0
#define CONCORD_MODEL_ulp(k) ErrorModel::ulp, k
#define CONCORD_MODEL_sum(c) ErrorModel::sum, c
#define CONCORD_MODEL_relative(c) ErrorModel::relative, c
#define CONCORD_MODEL_matmul(c) ErrorModel::matmul, c
#define CONCORD_MODEL_solve(c) ErrorModel::solve, c
#define CONCORD_DOMAIN_dom(lo, hi) lo, hi, lo, hi
#define CONCORD_DOMAIN_dom2(lo, hi, blo, bhi) lo, hi, blo, bhi

#define CONCORD_ROW(op, family, arity, dtypes, result, autocast, model, domain)                             \
  OpDef{OpId::op, #op, OpFamily::family, arity, CONCORD_DTYPES_##dtypes, ResultRule::result,                 \
        AutocastPolicy::autocast, CONCORD_MODEL_##model, CONCORD_DOMAIN_##domain},
constexpr OpDef kTable[] = {CONCORD_OP_TABLE(CONCORD_ROW)};
#undef CONCORD_ROW

constexpr bool rows_in_order() {
  for (int i = 0; i < kNumOps; ++i)
    if (static_cast<int>(kTable[i].id) != i) return false;
  return true;
}
static_assert(sizeof(kTable) / sizeof(kTable[0]) == kNumOps);
static_assert(rows_in_order());

}  // namespace

namespace detail {
const OpDef* const g_op_table = kTable;
}  // namespace detail


std::string_view op_name(OpId op) { return op_def(op).name; }

std::string op_label(OpId op) {
  const OpDef& d = op_def(op);
  return (d.family == OpFamily::linalg ? "linalg." : "") + std::string(d.name);
}

std::string_view op_family(OpId op) { return name(kTable[static_cast<int>(op)].family); }

bool parse_op(std::string_view name, OpId* out) {
  for (const OpDef& d : kTable)
    if (d.name == name) {
      *out = d.id;
      return true;
    }
  return false;
}

std::string_view name(OpFamily f) {
  static constexpr std::string_view kNames[] = {"copy",    "creation", "random", "unary", "binary",
                                                "ternary", "reduce",   "linear", "shape", "linalg"};
  return kNames[static_cast<int>(f)];
}

std::string_view name(ResultRule r) {
  static constexpr std::string_view kNames[] = {"same", "floating", "boolean", "widened", "index", "given"};
  return kNames[static_cast<int>(r)];
}

std::string_view name(AutocastPolicy p) {
  static constexpr std::string_view kNames[] = {"none", "lower", "float32", "widest"};
  return kNames[static_cast<int>(p)];
}

std::string_view name(ErrorModel m) {
  static constexpr std::string_view kNames[] = {"exact", "rounded", "ulp", "sum", "relative", "matmul", "solve",
                                                "same_bits"};
  return kNames[static_cast<int>(m)];
}

namespace detail {
DtypeSet op_dtypes(OpId op) { return op_def(op).dtypes; }
}  // namespace detail

}  // namespace concord
