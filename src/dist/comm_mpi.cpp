// src/dist/comm_mpi.cpp — the communication layer on MPI (the only file that
// includes mpi.h). Large buffers go in pieces: MPI counts are ints.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "concord/dist.h"
#include "dist/comm.h"

namespace concord::dist::detail {
namespace {

bool g_owned = false;       // we called MPI_Init (a caller's own MPI is left to it)
bool g_ready = false;       // comm_init ran, comm_finalize did not
constexpr size_t kPieceBytes = size_t{1} << 28;

void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  throw DistError(std::string("[dist.") + what + "] rank " + std::to_string(comm_rank()) + ": MPI failed: " +
                  std::string(msg, static_cast<size_t>(len)) + ". Check the MPI installation and that every rank is alive.");
}

MPI_Datatype int_type(IntOp op) {
  switch (op) {
    case IntOp::sum_u64: case IntOp::prod_u64: return MPI_UINT64_T;
    case IntOp::max_i64: case IntOp::min_i64: return MPI_INT64_T;
    default: return MPI_UINT8_T;
  }
}
MPI_Op int_op(IntOp op) {
  switch (op) {
    case IntOp::sum_u64: return MPI_SUM;
    case IntOp::prod_u64: return MPI_PROD;
    case IntOp::max_i64: return MPI_MAX;
    case IntOp::min_i64: return MPI_MIN;
    default: return MPI_BOR;
  }
}

}  // namespace

bool comm_available() { return true; }

std::string comm_library_version() {
  char v[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(v, &len);   // callable before MPI_Init
  std::string s(v, static_cast<size_t>(len));
  while (!s.empty() && (s.back() == '\n' || s.back() == '\0')) s.pop_back();
  return s;
}

void comm_init() {
  int done = 0;
  MPI_Initialized(&done);
  if (!done) {
    int provided = 0;
    check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "init");
    g_owned = true;
  }
  g_ready = true;
}

void comm_finalize() {
  if (!comm_initialized()) return;
  g_ready = false;
  if (g_owned) MPI_Finalize();
  g_owned = false;
}

bool comm_initialized() {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  return init && !fin && g_ready;
}

int comm_rank() {
  if (!comm_initialized()) return 0;
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int comm_size() {
  if (!comm_initialized()) return 1;
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

void comm_barrier() {
  if (comm_initialized()) check(MPI_Barrier(MPI_COMM_WORLD), "barrier");
}

void comm_abort(const std::string& message) {
  std::fprintf(stderr, "%s\n", message.c_str());
  std::fflush(stderr);
  if (comm_initialized()) MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

// Waits for req, aborting the job after timeout_s seconds.
static void wait_timed(MPI_Request& req, double timeout_s, const std::string& what) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (long spins = 0;; ++spins) {
    int done = 0;
    check(MPI_Test(&req, &done, MPI_STATUS_IGNORE), what.c_str());
    if (done) return;
    // Spin briefly (the usual case: the peers are a moment away), then sleep
    // so that waiting ranks leave the cores to the ranks still computing.
    if (spins > 2000) std::this_thread::sleep_for(std::chrono::microseconds(200));
    if ((spins & 63) == 0 && std::chrono::steady_clock::now() > deadline)
      comm_abort("[dist." + what + "] rank " + std::to_string(comm_rank()) + ": the peers did not arrive within " +
                 std::to_string(timeout_s) + " s (CONCORD_DIST_TIMEOUT); a rank is stuck, dead or called another "
                 "collective, or a send/recv has no matching recv/send. Aborting the job.");
  }
}

void comm_allgather_timed(const void* send, size_t bytes, void* recv, double timeout_s, const std::string& what) {
  if (!comm_initialized()) {   // before init(): a world of one
    if (bytes) std::memmove(recv, send, bytes);
    return;
  }
  MPI_Request req;
  check(MPI_Iallgather(send, static_cast<int>(bytes), MPI_BYTE, recv, static_cast<int>(bytes), MPI_BYTE,
                       MPI_COMM_WORLD, &req), what.c_str());
  wait_timed(req, timeout_s, what);
}

void comm_allgatherv(const void* send, void* recv, const std::vector<size_t>& counts) {
  if (!comm_initialized()) {
    if (counts[0]) std::memmove(recv, send, counts[0]);
    return;
  }
  std::vector<int> c(counts.size()), d(counts.size());
  size_t off = 0;
  for (size_t r = 0; r < counts.size(); ++r) {
    if (counts[r] > INT_MAX || off > INT_MAX)
      throw DistError("[dist.all_gather] rank " + std::to_string(comm_rank()) + ": " + std::to_string(off + counts[r]) +
                      " bytes exceed MPI's int counts (2 GiB); gather the tensor in slices.");
    c[r] = static_cast<int>(counts[r]);
    d[r] = static_cast<int>(off);
    off += counts[r];
  }
  check(MPI_Allgatherv(send, c[static_cast<size_t>(comm_rank())], MPI_BYTE, recv, c.data(), d.data(), MPI_BYTE,
                       MPI_COMM_WORLD), "all_gather");
}

void comm_bcast(void* buf, size_t bytes, int root) {
  if (!comm_initialized()) return;
  auto* p = static_cast<char*>(buf);
  for (size_t o = 0; o < bytes; o += kPieceBytes)
    check(MPI_Bcast(p + o, static_cast<int>(std::min(kPieceBytes, bytes - o)), MPI_BYTE, root, MPI_COMM_WORLD),
          "broadcast");
}

void comm_allreduce_int(void* buf, size_t count, IntOp op) {
  if (!comm_initialized()) return;
  const size_t item = op == IntOp::bor_u8 ? 1 : 8, piece = kPieceBytes / item;
  auto* p = static_cast<char*>(buf);
  for (size_t o = 0; o < count; o += piece)
    check(MPI_Allreduce(MPI_IN_PLACE, p + o * item, static_cast<int>(std::min(piece, count - o)), int_type(op),
                        int_op(op), MPI_COMM_WORLD), "all_reduce");
}

void comm_allreduce_float(const void* send, void* recv, size_t count, bool is_double) {
  const size_t item = is_double ? 8 : 4, piece = kPieceBytes / item;
  if (!comm_initialized()) {
    if (send != recv && count) std::memmove(recv, send, count * item);
    return;
  }
  const auto* in = static_cast<const char*>(send);
  auto* out = static_cast<char*>(recv);
  for (size_t o = 0; o < count; o += piece)
    check(MPI_Allreduce(send == recv ? MPI_IN_PLACE : in + o * item, out + o * item,
                        static_cast<int>(std::min(piece, count - o)), is_double ? MPI_DOUBLE : MPI_FLOAT, MPI_SUM,
                        MPI_COMM_WORLD), "all_reduce");
}

namespace {
std::vector<int> ints(const std::vector<size_t>& v) {
  std::vector<int> r(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] > INT_MAX)
      throw DistError("[dist.all_reduce] rank " + std::to_string(comm_rank()) + ": a block of " + std::to_string(v[i]) +
                      " bytes exceeds MPI's int counts; this is a bug in the chunking, please report it.");
    r[i] = static_cast<int>(v[i]);
  }
  return r;
}
}  // namespace

void comm_alltoallv(const void* send, const std::vector<size_t>& scounts, const std::vector<size_t>& sdispls,
                    void* recv, const std::vector<size_t>& rcounts, const std::vector<size_t>& rdispls) {
  if (!comm_initialized()) {
    if (scounts[0]) std::memmove(static_cast<char*>(recv) + rdispls[0], static_cast<const char*>(send) + sdispls[0], scounts[0]);
    return;
  }
  const std::vector<int> sc = ints(scounts), sd = ints(sdispls), rc = ints(rcounts), rd = ints(rdispls);
  check(MPI_Alltoallv(send, sc.data(), sd.data(), MPI_BYTE, recv, rc.data(), rd.data(), MPI_BYTE, MPI_COMM_WORLD),
        "all_reduce");
}

void comm_allgatherv_inplace(void* buf, const std::vector<size_t>& counts, const std::vector<size_t>& displs) {
  if (!comm_initialized()) return;
  const std::vector<int> c = ints(counts), d = ints(displs);
  check(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, c.data(), d.data(), MPI_BYTE, MPI_COMM_WORLD),
        "all_reduce");
}

void comm_send(const void* buf, size_t bytes, int dst, int tag) {
  const auto* p = static_cast<const char*>(buf);
  // Pieces arrive in order (same peer, same tag). A send that no recv matches
  // would block forever once the message is too large to be buffered: it is
  // bounded like the collectives.
  for (size_t o = 0; o < bytes; o += kPieceBytes) {
    MPI_Request req;
    check(MPI_Isend(p + o, static_cast<int>(std::min(kPieceBytes, bytes - o)), MPI_BYTE, dst, tag, MPI_COMM_WORLD, &req),
          "send");
    wait_timed(req, timeout_seconds(), "send");
  }
}

void comm_recv(void* buf, size_t bytes, int src, int tag) {
  auto* p = static_cast<char*>(buf);
  for (size_t o = 0; o < bytes; o += kPieceBytes) {
    MPI_Request req;
    check(MPI_Irecv(p + o, static_cast<int>(std::min(kPieceBytes, bytes - o)), MPI_BYTE, src, tag, MPI_COMM_WORLD, &req),
          "recv");
    wait_timed(req, timeout_seconds(), "recv");
  }
}

}  // namespace concord::dist::detail
