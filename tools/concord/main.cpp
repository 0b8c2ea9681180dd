// concord — the command line: devices, ops, parity, bench.
#include <CLI/CLI.hpp>

#include <iostream>

#include "concord/concord.h"
#include "commands.h"

int main(int argc, char** argv) {
  CLI::App app{"concord: one tensor program on every backend, and the numbers agree"};
  app.set_version_flag("--version", std::string("concord ") + CONCORD_VERSION);
  app.require_subcommand(1);

  app.add_subcommand("devices", "List devices with their capabilities and profiles");

  concord::cli::OpsOptions ops;
  auto* ops_cmd = app.add_subcommand("ops", "Support matrix: op x device x dtype (native/widened/downcast/fallback)");
  ops_cmd->add_flag("--markdown", ops.markdown, "Print as a Markdown table");
  ops_cmd->add_flag("--json", ops.json, "Print as JSON");
  ops_cmd->add_flag("--autocast", ops.autocast, "Print the autocast op table");

  CLI11_PARSE(app, argc, argv);
  try {
    // Read the policy variables up front so that a malformed one is reported at once.
    concord::dtype_policy();
    concord::fallback_policy();
    if (app.got_subcommand("devices")) return concord::cli::cmd_devices();
    if (app.got_subcommand("ops")) return concord::cli::cmd_ops(ops);
  } catch (const concord::Error& e) {
    std::cerr << "concord: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
