// The concord CLI's subcommands. Each returns the process exit status.
#pragma once

#include <string>
#include <vector>

namespace concord::cli {

struct OpsOptions {
  bool markdown = false, json = false, autocast = false;
};
int cmd_devices();
int cmd_ops(const OpsOptions& o);

}  // namespace concord::cli
