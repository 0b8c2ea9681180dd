// The concord CLI's subcommands. Each returns the process exit status.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "concord/device.h"

namespace concord::cli {

struct OpsOptions {
  bool markdown = false, json = false, autocast = false, reproducible = false;
  std::string json_file;  // --json FILE; empty: stdout
};
struct BenchOptions {
  std::string json, filter, device = "cpu", python = "/usr/bin/python3";
  std::string isa;  // --isa: caps concord's CPU kernels (CONCORD_ISA) and PyTorch's (ATEN_CPU_CAPABILITY)
  int repeats = 7;
  bool no_torch = false;
  bool reproducible = false;  // --reproducible: also time each workload in the reproducible mode
};
struct ParityOptions {
  bool quick = false, compare_paths = false, reproducible = false, bits = false;
  bool exhaustive = false;             // --exhaustive: the worst-case search (cmd_worst_case.cpp)
  int64_t count = int64_t{1} << 20;    // --count: its inputs per op and dtype
  std::string ops, dtypes, devices, json, markdown, inject;
  std::vector<std::string> profiles;
  uint64_t seed = 1234;
};
// The device configs a parity run covers: every device with its own profile,
// the contrasting profiles, --profile additions, filtered by --devices.
struct ParityConfig {
  std::string label;
  Device device;
  std::optional<std::string> profile;
};
std::vector<ParityConfig> parity_configs(const ParityOptions& o);

int cmd_devices();
int cmd_parity(const ParityOptions& o);
int cmd_worst_case(const ParityOptions& o);  // parity --exhaustive
int cmd_bench(const BenchOptions& o);
int cmd_ops(const OpsOptions& o);

}  // namespace concord::cli
