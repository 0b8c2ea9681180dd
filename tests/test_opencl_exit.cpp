// Process exit with OpenCL work still queued. A kernel launched and never read
// runs after main() returns; PoCL compiles a kernel at its first run, so with
// a cold kernel cache that compile used to overlap static destruction and
// crash in LLVM (SIGSEGV after every test had passed). The runtime now makes
// each submitting thread wait for the queues when it ends (runtime.h,
// drain_on_thread_exit). The child runs with fresh, private PoCL and concord
// caches, so its kernels are compiled cold every time.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>

#include "concord/concord.h"

namespace fs = std::filesystem;
using namespace concord;

namespace {

bool has_opencl() {
  for (const Device& d : devices())
    if (d.kind().name() == "opencl") return true;
  return false;
}

}  // namespace

// Run only as the child of ExitWithQueuedWorkIsClean: queue kernels whose
// results are never read, then return.
TEST(OpenclExit, DISABLED_Child) {
  if (!std::getenv("CONCORD_EXIT_CHILD")) GTEST_SKIP() << "helper for ExitWithQueuedWorkIsClean";
  const Device d("opencl:0");
  Tensor x = arange(0, 4096, 1, float32, d).reshape({64, 64});
  Tensor s = sum(x, {1});  // a reduce kernel, compiled at its first run
  (void)s.dtype();         // nothing read back
  std::cout << "CHILD_QUEUED" << std::endl;
}

TEST(OpenclExit, ExitWithQueuedWorkIsClean) {
  if (!has_opencl()) GTEST_SKIP() << "no OpenCL device on this machine";
  char tmpl[] = "/tmp/concord-exit-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const fs::path dir = tmpl;
  const std::string exe = fs::read_symlink("/proc/self/exe").string();
  const std::string cmd = "env CONCORD_EXIT_CHILD=1 POCL_CACHE_DIR='" + (dir / "pocl").string() +
                          "' CONCORD_CACHE_DIR='" + (dir / "concord").string() + "' '" + exe +
                          "' --gtest_also_run_disabled_tests --gtest_filter=OpenclExit.DISABLED_Child 2>&1";
  FILE* f = popen(cmd.c_str(), "r");
  ASSERT_NE(f, nullptr);
  std::string out;
  char buf[4096];
  while (fgets(buf, sizeof buf, f)) out += buf;
  const int status = pclose(f);
  std::error_code ec;
  fs::remove_all(dir, ec);
  EXPECT_NE(out.find("CHILD_QUEUED"), std::string::npos) << out;
  ASSERT_TRUE(WIFEXITED(status)) << "the child died by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0)
                                 << " after its work was queued:\n" << out;
  EXPECT_EQ(WEXITSTATUS(status), 0) << out;
}
