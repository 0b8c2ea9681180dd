// `concord parity`: every op x dtype x device (and profile) on seeded inputs,
// judged against the float64 CPU reference with the op's error model.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "validate.h"
#include "concord/concord.h"
#include "concord/testing.h"
#include "concord/parity.h"

namespace concord::cli {

using testing::ParityCase;
using testing::ParityResult;
using testing::Verdict;

namespace {

// Composites computed two ways on the same device: prints the findings and
// returns 1 if a pair that must agree bitwise does not.
int compare_paths(const std::vector<Device>& devices, uint64_t seed) {
  int status = 0;
  std::printf("\ncompare-paths: one composite computed two ways on the same device\n");
  for (const auto& d : devices) {
    for (Dtype t : {float32, float16}) {
      if (!capabilities(d).can_store(t)) continue;
      Tensor x = randn({24, 320}, t, d, seed), w = mul(randn({96, 320}, t, d, seed + 1), 0.05);
      // Elementwise and per-row reductions must agree bitwise: the same kernel order per element/row.
      Tensor e_all = exp(x), s_all = sum(x, {1});
      bool ew = true, red = true;
      for (int64_t i = 0; i < x.size(0); ++i) {
        Tensor row = x.select(0, i);
        ew &= testing::compare(exp(row), e_all.select(0, i), {0.0, 0.0, true}).ok;
        red &= testing::compare(sum(row), s_all.select(0, i), {0.0, 0.0, true}).ok;
      }
      // A linear layer row by row vs batched: BLAS may block differently, so judge by the error model.
      Tensor batched = matmul(x, w.t());
      double worst = 0;
      for (int64_t i = 0; i < x.size(0); ++i) {
        Tensor one = matmul(x.narrow(0, i, 1), w.t());
        auto m = testing::check_matmul(one, x.narrow(0, i, 1), w.t());
        auto mb = testing::check_matmul(batched.narrow(0, i, 1), x.narrow(0, i, 1), w.t());
        worst = std::max({worst, m.worst_ratio, mb.worst_ratio});
      }
      const bool lin_bits = testing::compare(matmul(x.narrow(0, 3, 1), w.t()), batched.narrow(0, 3, 1), {0.0, 0.0}).ok;
      std::printf("  %-9s %-8s exp row-wise vs whole: %-9s sum row-wise vs dim: %-9s linear loop vs batched: %s, "
                  "worst error %.2f of the bound (%s)\n",
                  d.str().c_str(), std::string(name(t)).c_str(), ew ? "bitwise" : "DIFFER", red ? "bitwise" : "DIFFER",
                  lin_bits ? "bitwise" : "not bitwise", worst, worst <= 1 ? "rounding" : "NOT rounding");
      if (!ew || !red || worst > 1) status = 1;
    }
  }
  return status;
}

// bits (--bits): '=' marks a pass with the CPU's bits.
char letter(const testing::ParityResult& r, bool bits) {
  switch (r.verdict) {
    case Verdict::pass: return r.flushed ? 'Z' : bits && r.cpu_bits ? '=' : 'P';
    case Verdict::fail: return 'F';
    case Verdict::fallback: return 'B';
    case Verdict::downcast: return 'D';
    default: return 'U';
  }
}

}  // namespace

std::vector<ParityConfig> parity_configs(const ParityOptions& o) {
  std::vector<ParityConfig> all;
  for (auto& c : testing::device_configs()) all.push_back({c.label, c.device, c.profile});
  for (const auto& p : o.profiles) {  // "emu:0=no-fp64,no-op:solve"
    const size_t eq = p.find('=');
    if (eq == std::string::npos)
      throw ValueError("[parity] --profile '" + p + "' needs DEVICE=PROFILE, e.g. emu:0=no-op:solve");
    parse_profile(p.substr(eq + 1));  // validate now
    all.push_back({p, Device(p.substr(0, eq)), p.substr(eq + 1)});
  }
  if (o.devices.empty()) return all;
  std::vector<ParityConfig> out;
  // By label: "vulkan:0" is the device under its own profile,
  // "vulkan:0=no-fp64" the contrasting configuration.
  std::vector<std::string> labels;
  for (const auto& c : all) labels.push_back(c.label);
  for (const auto& want : split_list(o.devices)) {
    const auto it = std::find_if(all.begin(), all.end(), [&](const ParityConfig& c) { return c.label == want; });
    if (it == all.end()) throw ValueError("[parity] --devices: " + unknown_choice("configuration", want, labels));
    out.push_back(*it);
  }
  return out;
}

int cmd_parity(const ParityOptions& o) {
  if (o.exhaustive) return cmd_worst_case(o);
  auto cases = testing::parity_cases(o.quick);
  std::vector<std::string> ops = split_list(o.ops);
  {
    // Names from the full sweep: an op of the full sweep is valid under --quick too.
    std::vector<std::string> known;
    for (const auto& c : testing::parity_cases(false))
      if (std::find(known.begin(), known.end(), c.op_name()) == known.end()) known.emplace_back(c.op_name());
    for (const auto& op : ops)
      if (std::find(known.begin(), known.end(), op) == known.end())
        throw ValueError("[parity] --ops: " + unknown_choice("op", op, known));
  }
  std::vector<Dtype> dtypes;
  for (const auto& d : split_list(o.dtypes)) dtypes.push_back(parse_dtype(d));
  if (!ops.empty())
    cases.erase(std::remove_if(cases.begin(), cases.end(), [&](const ParityCase& c) {
                  return std::find(ops.begin(), ops.end(), std::string(c.op_name())) == ops.end(); }), cases.end());
  const auto cfgs = parity_configs(o);
  const bool tty = isatty(2);
  // --reproducible: the judge then also demands the CPU's bits in the same dtype.
  const ReproducibleGuard mode(o.reproducible || reproducible());
  // Warnings about adaptations are the verdicts here; keep the output a table.
  auto saved = set_warning_handler([](const std::string&) {});

  std::vector<ParityResult> results;
  std::vector<std::string> configs_of;  // the config label of each result
  size_t done = 0, total = cases.size() * cfgs.size();
  // Row key "op | variant" -> per config the letters over kAllDtypes.
  std::vector<std::string> rows;
  std::map<std::string, std::vector<std::string>> cells;
  for (const auto& c : cases) {
    const std::string row = std::string(c.op_name()) + " | " + c.variant;
    if (!cells.count(row)) { rows.push_back(row); cells[row] = std::vector<std::string>(cfgs.size(), std::string(kNumDtypes, '.')); }
    for (size_t ci = 0; ci < cfgs.size(); ++ci) {
      const ParityConfig& cfg = cfgs[ci];
      std::unique_ptr<ProfileGuard> guard;
      if (cfg.profile) guard = std::make_unique<ProfileGuard>(cfg.device, *cfg.profile);
      for (Dtype t : kAllDtypes) {
        if (!c.dtypes.has(t)) continue;
        if (!dtypes.empty() && std::find(dtypes.begin(), dtypes.end(), t) == dtypes.end()) continue;
        ParityResult r;
        try {
          r = testing::judge(c, cfg.device, t, o.seed, o.inject == c.op_name(), o.bits);
        } catch (const std::exception& e) {  // a judging failure is a failed case, not a crashed sweep
          r.op = c.op, r.variant = c.variant, r.dtype = t, r.verdict = Verdict::fail, r.detail = e.what();
        }
        if (!r.applicable) continue;
        configs_of.push_back(cfg.label);
        cells[row][ci][static_cast<int>(t)] = letter(r, o.bits);
        results.push_back(std::move(r));
      }
      ++done;
      if (tty) {
        const int w = 30, filled = static_cast<int>(w * done / std::max<size_t>(total, 1));
        std::fprintf(stderr, "\r[%s%s] %zu/%zu %-40.40s", std::string(filled, '#').c_str(),
                     std::string(w - filled, ' ').c_str(), done, total, row.c_str());
      }
    }
  }
  if (tty) std::fprintf(stderr, "\r%100s\r", "");
  set_warning_handler(saved);

  int passed = 0, failed = 0, fallback = 0, downcast = 0, unsupported = 0, flushed = 0;
  for (const auto& r : results) {
    flushed += r.flushed ? 1 : 0;
    switch (r.verdict) {
      case Verdict::pass: ++passed; break;
      case Verdict::fail: ++failed; break;
      case Verdict::fallback: ++fallback; break;
      case Verdict::downcast: ++downcast; break;
      default: ++unsupported;
    }
  }
  std::printf("concord parity%s%s: seed %llu; each cell lists dtypes b u8 i8 i16 i32 i64 f16 bf16 f32 f64:\n"
              "P pass  F FAIL  B ran via the CPU fallback (checked)  D float64 downcast to float32 (checked)  "
              "U unsupported (strict policy)  . not applicable\n"
              "Z passed with subnormals flushed to zero (a device that does not promise to keep them)\n%s%s\n",
              o.quick ? " --quick" : "", reproducible() ? " --reproducible" : "", static_cast<unsigned long long>(o.seed),
              o.bits ? "= passed with the CPU's bits in the same dtype (P: within the error bound, other bits)\n" : "",
              reproducible() ? "reproducible mode: every native pass has the CPU's bits, every NaN canonical\n" : "");
  std::printf("%-34s", "op | inputs");
  for (const auto& cfg : cfgs) std::printf(" %-16s", cfg.label.c_str());
  std::printf("\n");
  for (const auto& row : rows) {
    std::printf("%-34.34s", row.c_str());
    for (const auto& cell : cells[row]) std::printf(" %-16s", cell.c_str());
    std::printf("\n");
  }
  if (failed) {
    std::printf("\nfailures:\n");
    for (size_t i = 0; i < results.size(); ++i)
      if (const auto& r = results[i]; r.verdict == Verdict::fail)
        std::printf("  %s | %s on %s, %s: %s\n", std::string(op_name(r.op)).c_str(), r.variant.c_str(), configs_of[i].c_str(),
                    std::string(name(r.dtype)).c_str(), r.detail.c_str());
  }
  std::printf("\n%d passed, %d failed, %d fallback, %d downcast, %d unsupported\n", passed, failed, fallback, downcast,
              unsupported);
  if (flushed)
    std::printf("%d of the passes only with subnormals flushed to zero (Z: the device does not promise to keep them)\n",
                flushed);
  if (o.bits || reproducible()) {
    // Per configuration: what agreed bitwise with the CPU, what held within its bound.
    for (const auto& cfg : cfgs) {
      int same = 0, within = 0, z = 0, fail = 0, fb = 0, dc = 0;
      for (size_t i = 0; i < results.size(); ++i) {
        if (configs_of[i] != cfg.label) continue;
        const auto& r = results[i];
        if (r.verdict == Verdict::pass) (r.flushed ? z : r.cpu_bits ? same : within) += 1;
        else if (r.verdict == Verdict::fail) ++fail;
        else if (r.verdict == Verdict::fallback) ++fb;
        else if (r.verdict == Verdict::downcast) ++dc;
      }
      std::printf("%-18s %5d the CPU's bits, %5d within the bound, %4d with subnormals flushed, %3d failed, "
                  "%4d fallback, %4d downcast\n", cfg.label.c_str(), same, within, z, fail, fb, dc);
    }
  }

  if (!o.json.empty() || !o.markdown.empty()) {
    nlohmann::json j;
    j["seed"] = o.seed;
    j["summary"] = {{"passed", passed}, {"failed", failed}, {"fallback", fallback}, {"downcast", downcast},
                    {"unsupported", unsupported}, {"flushed", flushed}};
    for (size_t i = 0; i < results.size(); ++i) {
      const auto& r = results[i];
      j["cases"].push_back({{"op", std::string(op_name(r.op))}, {"inputs", r.variant}, {"device", configs_of[i]}, {"dtype", std::string(name(r.dtype))},
                            {"verdict", std::string(testing::verdict_name(r.verdict))}, {"ratio", r.ratio}, {"detail", r.detail},
                            {"flushed", r.flushed}, {"cpu_bits", r.cpu_bits}});
    }
    if (!o.json.empty()) std::ofstream(o.json) << j.dump(1) << "\n";
    if (!o.markdown.empty()) {
      std::ofstream md(o.markdown);
      md << "| op | inputs |";
      for (const auto& cfg : cfgs) md << " " << cfg.label << " |";
      md << "\n|---|---|";
      for (size_t i = 0; i < cfgs.size(); ++i) md << "---|";
      md << "\n";
      for (const auto& row : rows) {
        const size_t bar = row.find(" | ");
        md << "| " << row.substr(0, bar) << " | " << row.substr(bar + 3) << " |";
        for (const auto& cell : cells[row]) md << " `" << cell << "` |";
        md << "\n";
      }
      md << "\n" << passed << " passed, " << failed << " failed, " << fallback << " fallback, " << downcast
         << " downcast, " << unsupported << " unsupported, " << flushed << " passed with subnormals flushed (Z)\n";
    }
  }
  int status = failed ? 1 : 0;
  if (o.compare_paths) status |= compare_paths(cfgs.empty() ? std::vector<Device>{kCPU} : [&] {
    std::vector<Device> ds;
    for (const auto& c : cfgs) if (!c.profile) ds.push_back(c.device);
    return ds; }(), o.seed);
  return status;
}

}  // namespace concord::cli
