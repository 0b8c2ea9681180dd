// Shared by the Vulkan runtime suites (test_vulkan_runtime,
// test_vulkan_pipelines); included only where the backend is built. A few
// tests re-run their binary as a child process (a fresh runtime): with
// CONCORD_VULKAN=0, to load the pipeline cache written by the parent, after a
// simulated device loss and after shutdown. The child-only tests skip unless
// CONCORD_VK_TEST_CHILD names them.
#pragma once

#include <dlfcn.h>
#include <link.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "backend/vulkan/runtime.h"
#include "concord/error.h"
#include "concord/fault_injection.h"

extern char** environ;

namespace vk = concord::detail::vk;
namespace fs = std::filesystem;

namespace {

// Pipelines go to a private cache directory, never the user's; removed at the
// end: in TearDown after the tests, or at exit where no test ran (a
// --gtest_list_tests run, as CTest's listing does after every link, never
// calls TearDown and left one directory behind each time).
class CacheDirEnv : public ::testing::Environment {
 public:
  CacheDirEnv() {
    if (std::getenv("CONCORD_VK_TEST_CHILD")) return;  // the parent's directory is inherited
    char tmpl[] = "/tmp/concord-vk-test-XXXXXX";
    if (mkdtemp(tmpl)) {
      dir() = tmpl;
      setenv("CONCORD_CACHE_DIR", tmpl, 1);
      std::atexit(&remove_dir);
    }
  }
  void TearDown() override {
    setenv("CONCORD_NO_DISK_CACHE", "1", 1);  // no save at exit into a removed directory
    remove_dir();
  }

 private:
  static std::string& dir() {
    static std::string d;
    return d;
  }
  static void remove_dir() {
    if (dir().empty()) return;
    std::error_code ec;
    fs::remove_all(dir(), ec);
    dir().clear();
  }
};
[[maybe_unused]] auto* const g_env = ::testing::AddGlobalTestEnvironment(new CacheDirEnv);

bool is_child(const char* name) {
  const char* v = std::getenv("CONCORD_VK_TEST_CHILD");
  return v && std::strcmp(v, name) == 0;
}

// Runs this binary with one test and extra environment; returns the exit status.
int run_child(const std::string& test, std::vector<std::string> env) {
  for (char** e = environ; *e; ++e) env.emplace_back(*e);  // overrides first: getenv takes the first
  std::vector<char*> envp;
  for (auto& s : env) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string self = fs::read_symlink("/proc/self/exe").string();
  std::string filter = "--gtest_filter=" + test;
  char* argv[] = {self.data(), filter.data(), nullptr};
  pid_t pid = 0;
  if (posix_spawn(&pid, self.c_str(), nullptr, nullptr, argv, envp.data()) != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

const std::vector<uint32_t>& spirv(const char* name) { return vk::embedded_spirv().at(name); }

struct AddPush {
  uint64_t n, a, b, c;
};
struct CountPush {
  uint64_t n, lo, counts;
};
struct ScaleArgs {
  uint64_t n, src, dst;
  float scale, bias;
};

class VulkanRuntime : public ::testing::Test {
 protected:
  void SetUp() override {
    if (vk::device_count() == 0)
      GTEST_SKIP() << "no usable Vulkan device (no loader or driver, CONCORD_VULKAN=0, or devices lacking "
                      "required features; install mesa-vulkan-drivers for lavapipe)";
    ctx = &vk::context(0);
  }
  vk::Context* ctx = nullptr;

  vk::Buffer* upload(const std::vector<float>& v) {
    vk::Buffer* b = ctx->alloc(v.size() * 4);
    ctx->write(b, 0, v.size() * 4, v.data());
    return b;
  }
  std::vector<float> download(const vk::Buffer* b, size_t n) {
    std::vector<float> v(n);
    ctx->read(b, 0, n * 4, v.data());
    return v;
  }
  vk::Pipeline& add() { return ctx->pipeline("smoke_add", spirv("smoke_add"), sizeof(AddPush)); }
};

std::vector<float> random_floats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-100.f, 100.f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

}  // namespace

