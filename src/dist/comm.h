// src/dist/comm.h — the communication layer under dist.h, without mpi.h.
//
// Two implementations: comm_mpi.cpp (MPI) and comm_single.cpp (a world of
// one, for builds without MPI). Buffers are host memory; sizes are in bytes
// or elements as named, and may exceed INT_MAX (the MPI layer splits them).
// Errors of the library underneath are raised as DistError("[dist.<op>] ...").
// Before init() (or after finalize()) both are a world of one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace concord::dist::detail {

bool comm_available();
std::string comm_library_version();
void comm_init();
void comm_finalize();
bool comm_initialized();    // init() ran and finalize() did not
int comm_rank();
int comm_size();
void comm_barrier();
[[noreturn]] void comm_abort(const std::string& message);

// Every rank's `bytes` bytes, in rank order, within timeout_s seconds
// (else the job is aborted with `what` in the message).
void comm_allgather_timed(const void* send, size_t bytes, void* recv, double timeout_s, const std::string& what);
// Rank r contributes counts[r] bytes; recv receives them back to back.
void comm_allgatherv(const void* send, void* recv, const std::vector<size_t>& counts);
void comm_bcast(void* buf, size_t bytes, int root);

enum class IntOp { sum_u64, prod_u64, max_i64, min_i64, bor_u8 };
void comm_allreduce_int(void* buf, size_t count, IntOp op);
// The plain floating sum of the MPI library (Algorithm::native); send may
// equal recv (in place).
void comm_allreduce_float(const void* send, void* recv, size_t count, bool is_double);
// Rank r sends scounts[s] bytes from send + sdispls[s] to every rank s, and
// receives rcounts[q] bytes from rank q at recv + rdispls[q]. Every count and
// displacement must be below 2^31 (callers work in chunks).
void comm_alltoallv(const void* send, const std::vector<size_t>& scounts, const std::vector<size_t>& sdispls,
                    void* recv, const std::vector<size_t>& rcounts, const std::vector<size_t>& rdispls);
// In place: this rank's counts[r] bytes are already at buf + displs[r]; every
// other rank's block arrives at its place (counts and displs below 2^31).
void comm_allgatherv_inplace(void* buf, const std::vector<size_t>& counts, const std::vector<size_t>& displs);

void comm_send(const void* buf, size_t bytes, int dst, int tag);
void comm_recv(void* buf, size_t bytes, int src, int tag);   // waits at most timeout_seconds()

}  // namespace concord::dist::detail
