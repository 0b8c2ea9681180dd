// `concord parity` end to end: the quick sweep passes on every device, the JSON
// has a verdict for every case, and an injected failure fails the run.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

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

// The worst-case search: one row per op and dtype, a cell per config, a JSON
// result per op x dtype x config with its worst element; an unknown op names the valid ones.
TEST(ParityCli, ExhaustiveReportsTheWorstRatioPerOpDeviceAndDtype) {
  const std::string file = ::testing::TempDir() + "worst.json";
  CliRun r = run("parity --exhaustive --count 4096 --ops atan2,sigmoid --dtypes float32,float64 --devices cpu,emu:0 --json " +
                 file);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("6 runs, 0 beyond the bound"), std::string::npos) << r.out;  // emu:0 has no float64
  std::ifstream in(file);
  const nlohmann::json j = nlohmann::json::parse(in);
  ASSERT_EQ(j["results"].size(), 8u);
  for (const auto& c : j["results"]) {
    if (!c["ran"]) {
      EXPECT_EQ(c["device"], "emu:0") << c.dump();
      continue;
    }
    EXPECT_GE(c["inputs"].get<int64_t>(), 4096) << c.dump();
    EXPECT_LE(c["ratio"].get<double>(), 1.0) << c.dump();
    EXPECT_GE(c["ratio"].get<double>(), 0.0) << c.dump();
  }
  const CliRun bad = run("parity --exhaustive --ops floor_divide");
  EXPECT_EQ(bad.status, 2) << bad.out;  // a usage error, as every refused argument
  EXPECT_NE(bad.out.find("atan2"), std::string::npos) << bad.out;
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

// Every argument a user can get wrong is refused before any work: a non-zero
// exit and a message naming the bad value and the valid choices.
TEST(ParityCli, BadArgumentsAreRefusedWithTheValidChoices) {
  struct Case {
    const char* args;
    std::vector<std::string> names;
  };
  const Case cases[] = {
      {"parity --ops matmull", {"unknown op 'matmull'", "did you mean matmul?", "softmax"}},
      {"parity --ops add,sofmax", {"'sofmax'", "did you mean softmax?"}},
      {"parity --devices gpu:0", {"unknown configuration 'gpu:0'", "cpu", "emu:0"}},
      {"parity --devices emu:1", {"'emu:1'", "did you mean emu:0?"}},
      {"parity --seed -5", {"--seed", "'-5'", "18446744073709551615"}},
      {"parity --seed 18446744073709551616", {"--seed", "18446744073709551616"}},
      {"parity --seed 1e3", {"--seed", "'1e3'"}},
      {"parity --json /no/such/dir/x.json", {"--json", "/no/such/dir", "does not exist"}},
      {"parity --markdown /", {"--markdown", "is a directory"}},
      {"parity --dtypes float33", {"float33", "float32"}},
      {"bench --repeats 0 --no-torch", {"--repeats", "0", "1 to 1000"}},
      {"bench --json /no/such/dir/b.json --no-torch", {"--json", "does not exist"}},
      {"bench --filter no-such-workload --no-torch", {"no-such-workload", "matches no workload", "matmul 1024^2 float32"}},
      {"bench --device gpu:0 --no-torch", {"gpu:0"}},
      {"bench --isa avx3 --no-torch", {"--isa", "avx3"}},
      {"paritty", {"unknown command 'paritty'", "did you mean parity?", "devices"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args);
    const CliRun r = run(c.args);
    EXPECT_NE(r.status, 0) << r.out;
    for (const auto& n : c.names) EXPECT_NE(r.out.find(n), std::string::npos) << "'" << n << "' missing in: " << r.out;
    EXPECT_EQ(r.out.find("passed,"), std::string::npos) << "ran a sweep: " << r.out;
  }
}

TEST(ParityCli, HelpShowsDefaults) {
  const CliRun r = run("parity --help");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("=1234"), std::string::npos) << r.out;  // the default seed
  const CliRun b = run("bench --help");
  EXPECT_NE(b.out.find("=7"), std::string::npos) << b.out;  // the default repeats
}

// --isa caps the CPU kernels (the header says at which level); baseline
// exists on every x86-64 machine.
TEST(ParityCli, BenchIsaCapsTheCpuKernels) {
  const CliRun r = run("bench --isa baseline --no-torch --filter \"add 8\" --repeats 1");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("CPU kernels baseline"), std::string::npos) << r.out;
}

// --bits marks passes with the CPU's bits (=) and counts them per device:
// on the CPU itself every pass of add has them.
TEST(ParityCli, BitsCountsTheCpusBits) {
  const CliRun r = run("parity --quick --bits --ops add --devices cpu");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("=========="), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" 0 within the bound"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the CPU's bits"), std::string::npos) << r.out;
}

// `ops --json FILE` writes where `parity --json FILE` would; bare `--json` still prints.
TEST(ParityCli, OpsJsonTakesAFileLikeParity) {
  const std::string file = ::testing::TempDir() + "ops.json";
  std::remove(file.c_str());
  const CliRun r = run("ops --json " + file);
  ASSERT_EQ(r.status, 0) << r.out;
  std::ifstream in(file);
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j["ops"]["matmul"]["cpu"]["float32"], "native") << j["ops"]["matmul"].dump();
  const CliRun p = run("ops --json");
  EXPECT_EQ(nlohmann::json::parse(p.out)["ops"].size(), j["ops"].size());
}
