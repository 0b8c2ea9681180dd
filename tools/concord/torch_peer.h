// A PyTorch process that times workloads on request (bench/torch_server.py),
// talked to over pipes so that concord and PyTorch can be interleaved.
#pragma once

#include <string>
#include <vector>

namespace concord::cli {

class TorchPeer {
 public:
  // python: interpreter path ("" disables the peer). threads: torch.set_num_threads.
  TorchPeer(const std::string& python, int threads);
  ~TorchPeer();
  TorchPeer(const TorchPeer&) = delete;
  TorchPeer& operator=(const TorchPeer&) = delete;
  bool ok() const { return ok_; }
  const std::string& version() const { return version_; }
  struct Timing { std::vector<double> seconds; std::string error; };
  Timing time(const std::string& workload, int repeats, int inner);

 private:
  std::string ask(const std::string& line);
  int to_ = -1, from_ = -1, pid_ = -1;
  bool ok_ = false;
  std::string version_ = "not available";
  std::string buffer_;
};

}  // namespace concord::cli
