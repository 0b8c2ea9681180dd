// The main of the dist tests: one dist::Session around the whole run. Every
// rank runs every test; a failing rank makes mpirun's exit status nonzero.
// Tests use EXPECT_* only around collectives: an ASSERT_* that returned early
// on one rank would leave the others waiting (bounded by CONCORD_DIST_TIMEOUT).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "concord/dist.h"
#include "concord/policy.h"

int main(int argc, char** argv) {
  concord::dist::Session session;
  ::testing::InitGoogleTest(&argc, argv);
  const char* v = std::getenv("CONCORD_TEST_VERBOSE");
  if (!v || std::string(v) != "1") concord::set_warning_handler([](const std::string&) {});
  // One progress printout (rank 0's); failures are printed by every rank.
  if (concord::dist::rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    struct Failures : ::testing::EmptyTestEventListener {
      void OnTestPartResult(const ::testing::TestPartResult& r) override {
        if (r.failed())
          std::fprintf(stderr, "rank %d: %s:%d: %s\n", concord::dist::rank(), r.file_name() ? r.file_name() : "?",
                       r.line_number(), r.message());
      }
    };
    listeners.Append(new Failures);
  }
  const int rc = RUN_ALL_TESTS();
  concord::dist::barrier();
  return rc;
}
