// `concord ops`: the support matrix, generated from the dispatcher's own answer (concord::support).
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "concord/concord.h"

namespace concord::cli {

namespace {
// One letter per cell: N native, W widened, D downcast, F fallback, X refused (strict policy), . undefined.
char letter(const Support& s) {
  if (!s.defined) return '.';
  if (!s.runs) return 'X';
  switch (s.path) {
    case Path::native: return 'N';
    case Path::widened: return 'W';
    case Path::downcast: return 'D';
    case Path::fallback: return 'F';
    default: return 'A';
  }
}
const char* word(char l) {
  switch (l) {
    case 'N': return "native";
    case 'W': return "widened";
    case 'D': return "downcast";
    case 'F': return "fallback";
    case 'X': return "unsupported";
    default: return "undefined";
  }
}
const char* kShort[] = {"b", "u8", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64"};
}  // namespace

int cmd_ops(const OpsOptions& o) {
  const auto ds = devices();
  if (o.json) {
    nlohmann::json j;
    for (int i = 0; i < kNumOps; ++i) {
      const OpId op = static_cast<OpId>(i);
      auto& jo = j["ops"][std::string(op_name(op))];
      jo["family"] = std::string(op_family(op));
      for (const auto& d : ds)
        for (Dtype t : kAllDtypes) jo[d.str()][std::string(name(t))] = word(letter(support(op, d, t)));
    }
    std::cout << j.dump(1) << "\n";
    return 0;
  }
  std::string header = "op", sep = "---";
  for (const auto& d : ds) {
    header += (o.markdown ? " | " : "  ") + d.str();
    sep += "|---";
  }
  if (o.markdown) {
    std::printf("Cells list dtypes %s in order: N native, W widened (stored, computed in float32), "
                "D downcast to float32, F CPU fallback, X refused by a strict policy, . undefined.\n\n",
                "b u8 i8 i16 i32 i64 f16 bf16 f32 f64");
    std::printf("| %s |\n|%s|\n", header.c_str(), sep.c_str());
  } else {
    std::printf("N native  W widened (stored, computed in float32)  D downcast  F CPU fallback  "
                "X refused (strict)  . undefined\ndtypes per cell:");
    for (const char* s : kShort) std::printf(" %s", s);
    std::printf("\n\n%-18s", "op");
    for (const auto& d : ds) std::printf(" %-12s", d.str().c_str());
    std::printf("\n");
  }
  for (int i = 0; i < kNumOps; ++i) {
    const OpId op = static_cast<OpId>(i);
    if (o.markdown) std::printf("| %s |", std::string(op_name(op)).c_str());
    else std::printf("%-18s", std::string(op_name(op)).c_str());
    for (const auto& d : ds) {
      std::string cell;
      for (Dtype t : kAllDtypes) cell += letter(support(op, d, t));
      if (o.markdown) std::printf(" `%s` |", cell.c_str());
      else std::printf(" %-12s", cell.c_str());
    }
    std::printf("\n");
  }
  return 0;
}

}  // namespace concord::cli
