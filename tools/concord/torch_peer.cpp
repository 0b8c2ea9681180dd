// Pipes to a PyTorch process; any failure just disables the PyTorch column.
#include "torch_peer.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

namespace concord::cli {

namespace {
std::string server_path() {
  // An installed concord (bin/concord) has it in share/concord; a build tree
  // uses the sources, whose place the binary knows from the build.
  char self[4096] = {};
  if (readlink("/proc/self/exe", self, sizeof self - 1) > 0) {
    std::string dir(self);
    dir = dir.substr(0, dir.rfind('/'));
    const std::string installed = dir + "/" CONCORD_BIN_TO_DATA "/torch_server.py";
    if (access(installed.c_str(), R_OK) == 0) return installed;
  }
  return std::string(CONCORD_SOURCE_DIR) + "/bench/torch_server.py";
}
}  // namespace

TorchPeer::TorchPeer(const std::string& python, int threads) {
  if (python.empty() || access(python.c_str(), X_OK) != 0) return;
  int in[2], out[2];
  if (pipe(in) != 0) return;
  if (pipe(out) != 0) { close(in[0]); close(in[1]); return; }
  pid_ = fork();
  if (pid_ == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    close(in[1]);
    close(out[0]);
    const std::string script = server_path();
    execl(python.c_str(), python.c_str(), script.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  to_ = in[1];
  from_ = out[0];
  signal(SIGPIPE, SIG_IGN);
  try {
    auto j = nlohmann::json::parse(ask("threads " + std::to_string(threads)));
    if (j.contains("version")) {
      version_ = "torch " + j["version"].get<std::string>() + " (" + std::to_string(j["threads"].get<int>()) + " threads)";
      ok_ = true;
    } else if (j.contains("error")) {
      version_ = j["error"].get<std::string>();
    }
  } catch (...) {
    version_ = "not available (" + python + " could not run bench/torch_server.py)";
  }
}

TorchPeer::~TorchPeer() {
  if (to_ >= 0) {
    const char q[] = "quit\n";
    (void)!write(to_, q, sizeof q - 1);
    close(to_);
  }
  if (from_ >= 0) close(from_);
  if (pid_ > 0) waitpid(pid_, nullptr, 0);
}

std::string TorchPeer::ask(const std::string& line) {
  const std::string msg = line + "\n";
  if (write(to_, msg.data(), msg.size()) != static_cast<ssize_t>(msg.size())) return "{}";
  for (;;) {
    const size_t nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      std::string reply = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      return reply;
    }
    char chunk[4096];
    const ssize_t n = read(from_, chunk, sizeof chunk);
    if (n <= 0) return "{}";
    buffer_.append(chunk, static_cast<size_t>(n));
  }
}

TorchPeer::Timing TorchPeer::time(const std::string& workload, int repeats, int inner) {
  Timing t;
  if (!ok_ || workload.empty()) { t.error = "no PyTorch equivalent"; return t; }
  try {
    auto j = nlohmann::json::parse(ask(workload + " " + std::to_string(repeats) + " " + std::to_string(inner)));
    if (j.contains("error")) t.error = j["error"].get<std::string>();
    else t.seconds = j["seconds"].get<std::vector<double>>();
  } catch (...) {
    t.error = "PyTorch peer stopped answering";
    ok_ = false;
  }
  return t;
}

}  // namespace concord::cli
