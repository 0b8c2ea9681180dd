// Jobs that must end, nonzero, in bounded time (CTest: WILL_FAIL with a TIMEOUT;
// a job that hung would time out, which CTest counts as a failure):
//   throw  rank 1 throws out of its dist::Session while the others wait in
//          all_reduce: the Session aborts the job at once.
//   stall  rank 1 sleeps far beyond CONCORD_DIST_TIMEOUT: the waiting ranks
//          abort the job after that many seconds.
//   send   rank 0 sends 8 MiB (too large to be buffered) that rank 1 never
//          receives: the send gives up after CONCORD_DIST_TIMEOUT seconds.
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>

#include "concord/concord.h"
#include "concord/dist.h"

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "throw";
  try {
    concord::dist::Session session;
    if (mode == "send") {
      if (concord::dist::rank() == 0) concord::dist::send(concord::ones({2 << 20}), 1, 5);
      else std::this_thread::sleep_for(std::chrono::seconds(100));
      std::printf("rank %d: the send returned although no rank received it\n", concord::dist::rank());
      return 0;
    }
    if (concord::dist::rank() == 1) {
      if (mode == "throw") throw std::runtime_error("rank 1 fails before its all_reduce");
      std::this_thread::sleep_for(std::chrono::seconds(100));
    }
    concord::dist::all_reduce(concord::ones({4}));
    std::printf("rank %d: all_reduce returned although rank 1 never joined in time\n", concord::dist::rank());
  } catch (const std::exception& e) {
    std::printf("rank %d caught: %s\n", concord::dist::rank(), e.what());
  }
  return 0;   // reached only if the job was not aborted: the test then fails
}
