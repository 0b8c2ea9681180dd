// `concord ops`: the support matrix, generated from the dispatcher's own answer (concord::support).
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>
#include <fstream>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "concord/concord.h"

namespace concord::cli {

namespace {
// One letter per cell: N native, W widened, H float16 computed in float16 (CONCORD_FLOAT16=native),
// D downcast, F fallback, X refused (strict policy), . undefined.
char letter(const Support& s) {
  if (!s.defined) return '.';
  if (!s.runs) return 'X';
  switch (s.path) {
    case Path::native: return 'N';
    case Path::widened: return 'W';
    case Path::native_f16: return 'H';
    case Path::downcast: return 'D';
    case Path::fallback: return 'F';
    default: return 'A';
  }
}
const char* word(char l) {
  switch (l) {
    case 'N': return "native";
    case 'W': return "widened";
    case 'H': return "native-f16";
    case 'D': return "downcast";
    case 'F': return "fallback";
    case 'X': return "unsupported";
    default: return "undefined";
  }
}
const char* kShort[] = {"b", "u8", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64"};

// What each autocast policy does to an op inside a scope.
const char* autocast_effect(AutocastPolicy p) {
  switch (p) {
    case AutocastPolicy::lower: return "float32 inputs run in the lower dtype (float32 accumulation)";
    case AutocastPolicy::float32: return "float16/bfloat16 inputs run in float32, result float32";
    case AutocastPolicy::widest: return "inputs promote to the widest type (as outside a scope)";
    default: return "unchanged";
  }
}

// --json: to stdout, or to the file given (as `parity --json FILE`).
void write_json(const OpsOptions& o, const nlohmann::json& j) {
  if (o.json_file.empty()) {
    std::cout << j.dump(1) << "\n";
    return;
  }
  std::ofstream f(o.json_file);
  f << j.dump(1) << "\n";
  if (!f) throw ValueError("[ops] could not write " + o.json_file);
}

// `concord ops --autocast`: the autocast table (concord::autocast_policy) and
// each device's default lower dtype.
int print_autocast(const OpsOptions& o, const std::vector<Device>& ds) {
  if (o.json) {
    nlohmann::json j;
    for (const auto& d : ds) j["lower_dtype"][d.str()] = std::string(name(default_autocast_dtype(d)));
    for (int i = 0; i < kNumOps; ++i) {
      const OpId op = static_cast<OpId>(i);
      j["ops"][std::string(op_name(op))] = std::string(name(autocast_policy(op)));
    }
    write_json(o, j);
    return 0;
  }
  std::string lowers;
  for (const auto& d : ds)
    lowers += (lowers.empty() ? "" : ", ") + d.str() + " " + std::string(name(default_autocast_dtype(d)));
  if (o.markdown) {
    std::printf("Default lower dtype: %s. Ops given an explicit dtype and in-place copies are left alone.\n\n",
                lowers.c_str());
    std::printf("| op | family | policy | inside an autocast scope |\n|---|---|---|---|\n");
  } else {
    std::printf("autocast: default lower dtype %s\nops given an explicit dtype and in-place copies are left alone\n\n",
                lowers.c_str());
    std::printf("%-18s %-10s %-8s %s\n", "op", "family", "policy", "inside an autocast scope");
  }
  for (int i = 0; i < kNumOps; ++i) {
    const OpId op = static_cast<OpId>(i);
    const AutocastPolicy p = autocast_policy(op);
    const std::string n(op_name(op)), f(op_family(op)), pn(name(p));
    if (o.markdown) std::printf("| %s | %s | %s | %s |\n", n.c_str(), f.c_str(), pn.c_str(), autocast_effect(p));
    else std::printf("%-18s %-10s %-8s %s\n", n.c_str(), f.c_str(), pn.c_str(), autocast_effect(p));
  }
  return 0;
}
}  // namespace

int cmd_ops(const OpsOptions& o) {
  const auto ds = devices();
  // The matrix the dispatcher acts on in the mode: ops without a reproducible kernel show as F.
  const ReproducibleGuard mode(o.reproducible || reproducible());
  if (o.autocast) return print_autocast(o, ds);
  if (o.json) {
    nlohmann::json j;
    for (int i = 0; i < kNumOps; ++i) {
      const OpId op = static_cast<OpId>(i);
      auto& jo = j["ops"][std::string(op_name(op))];
      jo["family"] = std::string(op_family(op));
      for (const auto& d : ds)
        for (Dtype t : kAllDtypes) jo[d.str()][std::string(name(t))] = word(letter(support(op, d, t)));
    }
    write_json(o, j);
    return 0;
  }
  std::string header = "op", sep = "---";
  for (const auto& d : ds) {
    header += (o.markdown ? " | " : "  ") + d.str();
    sep += "|---";
  }
  if (o.markdown) {
    std::printf("Cells list dtypes %s in order: N native, W widened (stored, computed in float32), "
                "H float16 computed in float16 (CONCORD_FLOAT16=native), "
                "D downcast to float32, F CPU fallback, X refused by a strict policy, . undefined.\n\n",
                "b u8 i8 i16 i32 i64 f16 bf16 f32 f64");
    std::printf("| %s |\n|%s|\n", header.c_str(), sep.c_str());
  } else {
    std::printf("N native  W widened (stored, computed in float32)  H float16 in float16 (CONCORD_FLOAT16=native)\n"
                "D downcast  F CPU fallback  X refused (strict)  . undefined\ndtypes per cell:");
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
