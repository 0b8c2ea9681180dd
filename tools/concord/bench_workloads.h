// The workloads `concord bench` measures; each has a PyTorch twin of the same
// name in bench/torch_server.py.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "concord/device.h"

namespace concord::cli {

struct Workload {
  std::string name;        // shown in the table
  std::string torch_name;  // the twin in torch_server.py ("" if none)
  double flops = 0;        // per run, for GFLOP/s
  double bytes = 0;        // per run, for GB/s (bytes read + written)
  int inner = 1;           // runs per timing sample (for microsecond workloads)
  std::function<void()> setup, run, teardown;
};

std::vector<Workload> workloads(const Device& device);

}  // namespace concord::cli
