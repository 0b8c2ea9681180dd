// Shared main for the test executables: warnings are collected, not printed,
// unless CONCORD_TEST_VERBOSE=1.
#include <gtest/gtest.h>

#include <cstdlib>

#include "concord/policy.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const char* v = std::getenv("CONCORD_TEST_VERBOSE");
  if (!v || std::string(v) != "1") concord::set_warning_handler([](const std::string&) {});
  return RUN_ALL_TESTS();
}
