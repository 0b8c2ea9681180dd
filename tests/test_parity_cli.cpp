// `concord parity` end to end: the quick sweep passes on every device, the JSON
// has a verdict for every case, and an injected failure fails the run.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace {
struct CliRun {
  int status;
  std::string out;
};
CliRun run(const std::string& args) {
  const std::string cmd = std::string(CONCORD_CLI) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  while (p && fgets(buf, sizeof buf, p)) out += buf;
  const int st = p ? pclose(p) : -1;
  return {WEXITSTATUS(st), out};
}
}  // namespace

TEST(ParityCli, QuickSweepPassesOnEveryDevice) {
  CliRun r = run("parity --quick --ops add,mul,sqrt,exp,sum,softmax,matmul,cat,randn,solve");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find(" 0 failed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("emu:0"), std::string::npos);
}

TEST(ParityCli, JsonHasAVerdictForEveryCase) {
  const std::string file = ::testing::TempDir() + "parity.json";
  CliRun r = run("parity --quick --ops add,sum,solve --json " + file);
  ASSERT_EQ(r.status, 0) << r.out;
  std::ifstream in(file);
  nlohmann::json j = nlohmann::json::parse(in);
  ASSERT_TRUE(j.contains("cases"));
  int n = 0;
  for (const auto& c : j["cases"]) {
    ASSERT_TRUE(c.contains("verdict"));
    const std::string v = c["verdict"];
    EXPECT_TRUE(v == "PASS" || v == "FALLBACK" || v == "DOWNCAST" || v == "UNSUPPORTED") << c.dump();
    ++n;
  }
  EXPECT_GT(n, 20);
  EXPECT_EQ(j["summary"]["failed"], 0);
}

TEST(ParityCli, InjectedFailureFailsTheRun) {
  CliRun r = run("parity --quick --ops add --devices emu:0 --inject-failure add");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("FAIL"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("failures:"), std::string::npos) << r.out;
}

TEST(ParityCli, UnknownProfileIsAClearError) {
  CliRun r = run("parity --quick --ops add --profile emu:0=no-fp99");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("[profile]"), std::string::npos) << r.out;
}
