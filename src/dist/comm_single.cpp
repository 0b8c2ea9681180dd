// src/dist/comm_single.cpp — the communication layer of a build without MPI:
// a world of one, where every collective is a copy (or nothing).
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "concord/dist.h"
#include "dist/comm.h"

namespace concord::dist::detail {
namespace {
bool g_init = false;
}

bool comm_available() { return false; }
std::string comm_library_version() { return ""; }
void comm_init() { g_init = true; }
void comm_finalize() { g_init = false; }
bool comm_initialized() { return g_init; }
int comm_rank() { return 0; }
int comm_size() { return 1; }
void comm_barrier() {}

void comm_abort(const std::string& message) {
  std::fprintf(stderr, "%s\n", message.c_str());
  std::abort();
}

void comm_allgather_timed(const void* send, size_t bytes, void* recv, double, const std::string&) {
  if (bytes) std::memmove(recv, send, bytes);
}
void comm_allgatherv(const void* send, void* recv, const std::vector<size_t>& counts) {
  if (counts[0]) std::memmove(recv, send, counts[0]);
}
void comm_bcast(void*, size_t, int) {}
void comm_allreduce_int(void*, size_t, IntOp) {}
void comm_allreduce_float(const void* send, void* recv, size_t count, bool is_double) {
  if (send != recv && count) std::memmove(recv, send, count * (is_double ? 8 : 4));
}
void comm_alltoallv(const void* send, const std::vector<size_t>& scounts, const std::vector<size_t>& sdispls,
                    void* recv, const std::vector<size_t>&, const std::vector<size_t>& rdispls) {
  if (scounts[0]) std::memmove(static_cast<char*>(recv) + rdispls[0], static_cast<const char*>(send) + sdispls[0], scounts[0]);
}
void comm_allgatherv_inplace(void*, const std::vector<size_t>&, const std::vector<size_t>&) {}

// With one rank a peer is always this rank, which dist.cpp rejects first.
void comm_send(const void*, size_t, int, int) {
  throw DistError("[dist.send] rank 0: there is no other rank in a build without MPI.");
}
void comm_recv(void*, size_t, int, int) {
  throw DistError("[dist.recv] rank 0: there is no other rank in a build without MPI.");
}

}  // namespace concord::dist::detail
