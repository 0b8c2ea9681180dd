// concord — the command line: devices, ops, parity, bench.
#include <CLI/CLI.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "concord/concord.h"
#include "commands.h"
#include "validate.h"

namespace {
// libgomp reads its wait policy from the environment once, at load time. Its
// default (spin after every parallel region) starves OpenBLAS's own threads:
// a batched solve right after an elementwise op ran 4-10x slower. So unless
// the user chose a policy, the CLI restarts itself once with a passive one.
void ensure_passive_omp_wait(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") != nullptr) return;
  setenv("OMP_WAIT_POLICY", "passive", 1);
  execv("/proc/self/exe", argv);  // returns only on failure: then run as we are
}
}  // namespace

int main(int argc, char** argv) {
  ensure_passive_omp_wait(argv);
  CLI::App app{"concord: one tensor program on every backend, and the numbers agree"};
  app.set_version_flag("--version", std::string("concord ") + CONCORD_VERSION);
  app.require_subcommand(1);
  app.option_defaults()->always_capture_default();  // --help shows every default

  app.add_subcommand("devices", "List devices with their capabilities and profiles");

  concord::cli::OpsOptions ops;
  auto* ops_cmd = app.add_subcommand("ops", "Support matrix: op x device x dtype (native/widened/downcast/fallback)");
  ops_cmd->add_flag("--markdown", ops.markdown, "Print as a Markdown table");
  auto* ops_json = ops_cmd->add_option("--json", ops.json_file, "Print as JSON, to FILE if given (as parity --json FILE)")
                       ->expected(0, 1)
                       ->check(concord::cli::kWritableFile);
  ops_cmd->add_flag("--autocast", ops.autocast, "Print the autocast op table");
  ops_cmd->add_flag("--reproducible", ops.reproducible, "Where each op runs in the reproducible mode (F: not reproducible there)");

  concord::cli::ParityOptions parity;
  auto* parity_cmd = app.add_subcommand("parity", "Run every op on every device against the float64 CPU reference");
  parity_cmd->add_flag("--quick", parity.quick, "A quick sweep (seconds)");
  parity_cmd->add_option("--ops", parity.ops, "Comma-separated op names (unknown names are refused)");
  parity_cmd->add_option("--dtypes", parity.dtypes, "Comma-separated dtypes");
  parity_cmd->add_option("--devices", parity.devices, "Comma-separated devices or configs (e.g. cpu,opencl:0=no-fp64)");
  parity_cmd->add_option("--profile", parity.profiles, "Add a device with a profile: DEVICE=PROFILE (repeatable)");
  parity_cmd->add_option("--seed", parity.seed, "Seed of the inputs (0 to 2^64-1)")->check(concord::cli::kUnsignedInteger);
  parity_cmd->add_option("--json", parity.json, "Write every case's verdict as JSON to this file")
      ->check(concord::cli::kWritableFile);
  parity_cmd->add_option("--markdown", parity.markdown, "Write the table as Markdown to this file")
      ->check(concord::cli::kWritableFile);
  parity_cmd->add_flag("--compare-paths", parity.compare_paths, "Also compare composites computed two ways");
  parity_cmd->add_flag("--reproducible", parity.reproducible,
                       "In the reproducible mode: every result must have the CPU's bits (same dtype)");
  parity_cmd->add_flag("--bits", parity.bits,
                       "Also mark (=) and count the passes that have the CPU's bits in the same dtype");
  parity_cmd->add_flag("--exhaustive", parity.exhaustive,
                       "The worst-case search instead: every elementwise op with a ULP bound on --count inputs over "
                       "every exponent plus the hard cases; prints each op x device x dtype's worst error / bound");
  parity_cmd->add_option("--count", parity.count, "Inputs per op and dtype of --exhaustive (default 1048576)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 26));
  parity_cmd->add_option("--inject-failure", parity.inject, "Perturb OP's device results (checks that failures fail)")
      ->group("");

  concord::cli::BenchOptions bench;
  auto* bench_cmd = app.add_subcommand("bench", "concord vs PyTorch on the same workloads, interleaved, same threads");
  bench_cmd->add_option("--json", bench.json, "Write the results as JSON to this file")->check(concord::cli::kWritableFile);
  bench_cmd->add_option("--filter", bench.filter, "Only workloads whose name contains this");
  bench_cmd->add_option("--device", bench.device, "Device for concord's side (default cpu)");
  bench_cmd->add_option("--repeats", bench.repeats, "Timing samples per workload (median reported)")
      ->check(CLI::Range(1, 1000));
  bench_cmd->add_option("--python", bench.python, "Python with PyTorch (default /usr/bin/python3)");
  bench_cmd->add_flag("--no-torch", bench.no_torch, "Skip the PyTorch column");
  bench_cmd->add_flag("--reproducible", bench.reproducible,
                      "Also time each workload in the reproducible mode (same rounds), as a rate against the default");
  bench_cmd->add_option("--isa", bench.isa,
                        "Cap both sides' CPU kernels at this instruction-set level (CONCORD_ISA for concord, "
                        "ATEN_CPU_CAPABILITY for PyTorch)")
      ->check(CLI::IsMember({"baseline", "avx2", "avx512", "native"}));

  // An unknown first word: name it and the nearest command (CLI11 alone only
  // says that an argument was not expected).
  if (argc > 1 && argv[1][0] != '-') {
    std::vector<std::string> names;
    for (const auto* sub : app.get_subcommands([](CLI::App*) { return true; })) names.push_back(sub->get_name());
    if (std::find(names.begin(), names.end(), argv[1]) == names.end()) {
      std::cerr << "concord: " << concord::cli::unknown_choice("command", argv[1], names) << "\nRun with --help for more information.\n";
      return 2;
    }
  }
  CLI11_PARSE(app, argc, argv);
  ops.json = ops_json->count() > 0;
  try {
    // Read the policy variables up front so that a malformed one is reported at once.
    concord::dtype_policy();
    concord::fallback_policy();
    if (app.got_subcommand("devices")) return concord::cli::cmd_devices();
    if (app.got_subcommand("ops")) return concord::cli::cmd_ops(ops);
    if (app.got_subcommand("parity")) return concord::cli::cmd_parity(parity);
    if (app.got_subcommand("bench")) return concord::cli::cmd_bench(bench);
  } catch (const concord::Error& e) {
    std::cerr << "concord: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
