// A job in which rank 1 throws out of its dist::Session while the other ranks
// wait in all_reduce: the Session aborts the job, so mpirun must exit nonzero
// promptly (CTest: WILL_FAIL, with a TIMEOUT far below CONCORD_DIST_TIMEOUT).
#include <cstdio>
#include <stdexcept>

#include "concord/concord.h"
#include "concord/dist.h"

int main() {
  try {
    concord::dist::Session session;
    if (concord::dist::rank() == 1) throw std::runtime_error("rank 1 fails before its all_reduce");
    concord::dist::all_reduce(concord::ones({4}));
    std::printf("rank %d: all_reduce returned although rank 1 never joined\n", concord::dist::rank());
  } catch (const std::exception& e) {
    std::printf("rank %d caught: %s\n", concord::dist::rank(), e.what());
  }
  return 0;   // reached only if the job was not aborted: the test then fails
}
