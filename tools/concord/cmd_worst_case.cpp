// `concord parity --exhaustive`: the worst-case search (concord/worst_case.h)
// for every elementwise op with a ULP bound, on every device config, in every
// floating dtype. Prints one row per op and dtype, the worst error / bound of
// each config, and the worst element of each row; exits 1 if any exceeds 1.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "validate.h"
#include "concord/concord.h"
#include "concord/worst_case.h"

namespace concord::cli {

namespace {

std::string cell(const testing::WorstCase& w) {
  if (!w.ran) return "-";
  char b[32];
  if (std::isinf(w.ratio)) return "INF";
  std::snprintf(b, sizeof b, "%.3f%s", w.ratio, w.path == "fallback" ? "*" : "");
  return b;
}

}  // namespace

int cmd_worst_case(const ParityOptions& o) {
  std::vector<OpId> ops = testing::worst_case_ops();
  if (!o.ops.empty()) {
    std::vector<std::string> known;
    for (OpId op : ops) known.emplace_back(op_name(op));
    std::vector<OpId> want;
    for (const auto& n : split_list(o.ops)) {
      const auto it = std::find(known.begin(), known.end(), n);
      if (it == known.end()) throw ValueError("[parity] --exhaustive --ops: " + unknown_choice("op", n, known));
      want.push_back(ops[static_cast<size_t>(it - known.begin())]);
    }
    ops = want;
  }
  std::vector<Dtype> dtypes = {float16, bfloat16, float32, float64};
  if (!o.dtypes.empty()) {
    dtypes.clear();
    for (const auto& d : split_list(o.dtypes)) {
      const Dtype t = parse_dtype(d);
      if (!is_floating(t)) throw ValueError("[parity] --exhaustive --dtypes: " + d + " is not a floating dtype");
      dtypes.push_back(t);
    }
  }
  const auto cfgs = parity_configs(o);
  const ReproducibleGuard mode(o.reproducible || reproducible());
  auto saved = set_warning_handler([](const std::string&) {});
  testing::WorstCaseOptions wo;
  wo.count = o.count;
  wo.seed = o.seed;

  std::printf("concord parity --exhaustive%s: %lld inputs per op and dtype over every exponent plus the hard cases "
              "(seed %llu)\neach cell: the worst error / the declared bound (ULPs; <= 1 holds), * the CPU fallback ran, "
              "- not run there\n",
              reproducible() ? " --reproducible" : "", static_cast<long long>(o.count),
              static_cast<unsigned long long>(o.seed));
  std::printf("%-12s %-9s %-6s", "op", "dtype", "bound");
  for (const auto& c : cfgs) std::printf(" %-16s", c.label.c_str());
  std::printf(" worst element\n");
  nlohmann::json j;
  std::string md = "| op | dtype | bound (ULP) |";
  for (const auto& c : cfgs) md += " " + c.label + " |";
  md += " worst element |\n|---|---|---|";
  for (size_t i = 0; i < cfgs.size(); ++i) md += "---|";
  md += "---|\n";
  int over = 0, runs = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (OpId op : ops)
    for (Dtype t : dtypes) {
      const testing::WorstCaseSearch search(op, t, wo);
      testing::WorstCase worst;
      std::vector<std::string> cells;
      for (const auto& cfg : cfgs) {
        std::unique_ptr<ProfileGuard> guard;
        if (cfg.profile) guard = std::make_unique<ProfileGuard>(cfg.device, *cfg.profile);
        const testing::WorstCase w = search.run(cfg.device);
        cells.push_back(cell(w));
        if (w.ran) ++runs;
        if (w.ran && w.ratio > 1) ++over;
        if (w.ran && (!worst.ran || w.ratio > worst.ratio)) worst = w, worst.path = cfg.label;
        j["results"].push_back({{"op", std::string(op_name(op))}, {"dtype", std::string(name(t))},
                                {"device", cfg.label}, {"ran", w.ran}, {"path", w.path}, {"inputs", w.inputs},
                                {"bound_ulp", w.bound}, {"worst_ulp", std::isinf(w.worst_ulps) ? -1.0 : w.worst_ulps},
                                {"ratio", std::isinf(w.ratio) ? -1.0 : w.ratio}, {"x", w.x}, {"y", w.y},
                                {"got", w.got}, {"reference", w.want}});
      }
      char bound[16];
      std::snprintf(bound, sizeof bound, "%g", op_def(op).model == ErrorModel::rounded ? 0.5 : op_def(op).bound);
      std::printf("%-12s %-9s %-6s", std::string(op_name(op)).c_str(), std::string(name(t)).c_str(), bound);
      for (const auto& c : cells) std::printf(" %-16s", c.c_str());
      std::printf(" %s\n", worst.ran ? (worst.path + ": " + worst.str()).c_str() : "");
      std::fflush(stdout);
      md += "| " + std::string(op_name(op)) + " | " + std::string(name(t)) + " | " + bound + " |";
      for (const auto& c : cells) md += " " + c + " |";
      char w[160] = "";
      if (worst.ran && op_def(op).arity == 2)
        std::snprintf(w, sizeof w, "%.3g ULP on %s at (%.9g, %.9g)", worst.worst_ulps, worst.path.c_str(), worst.x, worst.y);
      else if (worst.ran)
        std::snprintf(w, sizeof w, "%.3g ULP on %s at %.9g", worst.worst_ulps, worst.path.c_str(), worst.x);
      md += std::string(" ") + w + " |\n";
    }
  set_warning_handler(saved);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("\n%d runs, %d beyond the bound (%.0f s)\n", runs, over, secs);
  if (!o.json.empty()) std::ofstream(o.json) << j.dump(1) << "\n";
  if (!o.markdown.empty()) std::ofstream(o.markdown) << md << "\n" << runs << " runs, " << over << " beyond the bound\n";
  return over ? 1 : 0;
}

}  // namespace concord::cli
