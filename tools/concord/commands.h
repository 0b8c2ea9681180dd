// The concord CLI's subcommands. Each returns the process exit status.
#pragma once

#include <string>
#include <vector>

namespace concord::cli {

struct OpsOptions {
  bool markdown = false, json = false, autocast = false;
};
struct BenchOptions {
  std::string json, filter, device = "cpu", python = "/usr/bin/python3";
  int repeats = 7;
  bool no_torch = false;
};
int cmd_devices();
int cmd_bench(const BenchOptions& o);
int cmd_ops(const OpsOptions& o);

}  // namespace concord::cli
