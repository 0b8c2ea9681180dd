// concord/dist.h — collectives across processes (MPI), with reproducible sums.
//
// Run a program under `mpirun -np N`; each process is a rank. Without mpirun,
// in a build without MPI (distributed_support() says which), or before init(),
// the program is a world of one: rank() == 0, world_size() == 1 and every
// collective returns the single-process result.
//
//   concord::dist::Session session;              // init now, finalize at scope end
//   auto local = concord::from_vector(std::vector<float>{1e8f, 1.f});
//   auto total = concord::dist::all_reduce(local);   // same bits for any N
//
// Reproducible sum (Algorithm::reproducible, the default) of floating dtypes:
// the elements are split into one slice per rank; each rank receives every
// contribution to its slice (in the dtype itself), adds them exactly into a
// fixed-point integer accumulator per element (wide enough for every bit
// present across all ranks), rounds once, to nearest even, into the dtype,
// and the rounded slices are gathered by every rank. The traffic is that of
// a ring all_reduce of the data. The result is the correctly
// rounded exact sum of all contributions: identical bits for any number of
// ranks, any rank order, any chunking of the tensor, and equal to the 1-rank
// result on the same contributions. Special values, per element:
//   any NaN, or both +inf and -inf      -> NaN (the positive quiet NaN; payloads are not kept)
//   otherwise any +inf (-inf)           -> +inf (-inf)
//   an exact sum of zero                -> -0 if every contribution is -0, else +0
//   a finite sum beyond the dtype's max -> +-inf (as rounding to nearest does)
// mean is the exact sum divided by the number of contributions, rounded once.
// Algorithm::native is the plain MPI_Allreduce on the tensor's own buffer
// (float16/bfloat16 staged and summed in float32, rounded back once): faster,
// but its bits depend on the MPI library's reduction order.
// It applies to floating sum and mean; the other reductions are exact or
// order-free and ignore it.
//
// Other reductions: integer sum/prod wrap modulo 2^bits as the CPU's integer
// arithmetic does (exact, so independent of order); bool sum/max is any(),
// prod/min is all(); mean of an integer or bool tensor raises DistError on
// every rank.
// Floating max/min: any NaN gives NaN, max(+0, -0) = +0, min(+0, -0) = -0
// (order-independent). Floating max, min and prod use the reproducible sum's
// slices (no rank receives every contribution). Floating prod is the product
// of the contributions taken left to right in (rank, local index) order in float64 and rounded
// once to the dtype (float64: rounded at every step); it is identical on every
// rank and across runs, but it depends on how contributions are assigned to
// ranks (it is not invariant under a different number of ranks).
//
// Tensors on other devices are staged through the host (counted in the
// report's transfers) and the result is returned on the input's device.
//
// Agreement and failures: before moving data every collective exchanges a
// small descriptor (the op, dtype, shape, root) with all ranks; a
// disagreement raises DistError on every rank, naming the first rank that
// disagrees with rank 0. A rank whose input is invalid reports it through the
// same exchange, so every rank throws. Ranks that do not all reach a
// collective within timeout_seconds() (CONCORD_DIST_TIMEOUT, default 300)
// abort the job; so does a send or recv that no recv or send matches within
// that time. A rank that leaves a Session by an exception, or calls
// std::terminate, aborts the job (MPI_Abort): mpirun then ends every rank.
#pragma once

#include <string>
#include <vector>

#include "concord/error.h"
#include "concord/tensor.h"

namespace concord::dist {

// A collective failed: disagreeing ranks, a bad root or peer, a rank that
// could not take part. Messages start with "[dist.<op>]" and name the rank.
class DistError : public Error { public: using Error::Error; };

// Whether this build has MPI, and which library ("Open MPI v4.1.4, ...").
bool distributed_support();
std::string mpi_library_version();   // "" without MPI

// init() is idempotent; MPI is initialized once (thread level: funneled; call
// collectives from one thread). finalize() ends MPI (unless the caller had
// initialized MPI itself); MPI cannot be initialized again afterwards, and
// collectives then run as a world of one. Without MPI both only set the flag.
void init();
void finalize();
bool initialized();

// RAII: init() in the constructor, finalize() in the destructor. If the
// destructor runs while an exception unwinds, the whole job is aborted so
// that the other ranks do not wait for this one.
class Session {
 public:
  Session();
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
};

int rank();          // 0 without init()
int world_size();    // 1 without init()
void barrier();
double timeout_seconds();   // the bound on waiting for all ranks to join a collective

enum class ReduceOp { sum, prod, max, min, mean };
enum class Algorithm { reproducible, native };
std::string_view name(ReduceOp op);

// The reduction of x over all ranks (one contribution per rank); same shape,
// dtype and device as x. x must have the same shape and dtype on every rank.
Tensor all_reduce(const Tensor& x, ReduceOp op = ReduceOp::sum, Algorithm algo = Algorithm::reproducible);
// The reduction of every tensor in `local` on every rank (a rank may hold
// several contributions, or none): with one rank this is the single-process
// reference, e.g. all_reduce({a, b, c, d}) is the correctly rounded a+b+c+d.
// A rank may pass an empty list (it contributes nothing; its result is on the
// CPU); at least one rank must pass a tensor, and all have one shape and dtype.
Tensor all_reduce(const std::vector<Tensor>& local, ReduceOp op = ReduceOp::sum,
                  Algorithm algo = Algorithm::reproducible);

// root's x on every rank (x gives the shape and dtype everywhere).
Tensor broadcast(const Tensor& x, int root = 0);
// The concatenation along dim 0 in rank order; first dims may differ, the
// other dims and the dtype must agree. A 0-dim x counts as shape [1].
Tensor all_gather(const Tensor& x);
// all_reduce, then this rank's share of dim 0: rows are split as evenly as
// possible, the first (rows % world_size) ranks get one more.
Tensor reduce_scatter(const Tensor& x, ReduceOp op = ReduceOp::sum, Algorithm algo = Algorithm::reproducible);

// A reduction over a dim sharded across ranks: x is this rank's slice of a
// tensor along dim (sizes along dim may differ; the other dims must agree).
// Returns, on every rank, exactly the bits of the single-process
// concord::sum / mean of the concatenation in rank order over dim (the
// shards are gathered and reduced by that very op on x's device: the bits
// are the single-process bits by construction; the traffic is the whole
// tensor on every rank).
//   auto s = concord::dist::sum(shard, 0);   // == concord::sum(cat(shards), {0})
Tensor sum(const Tensor& x, int64_t dim, bool keepdim = false);
Tensor mean(const Tensor& x, int64_t dim, bool keepdim = false);

// Point to point: recv returns a tensor of the sender's shape and dtype on
// `device`. A peer out of range or equal to rank() raises DistError.
void send(const Tensor& x, int dst, int tag = 0);
Tensor recv(int src, int tag = 0, const Device& device = kCPU);

}  // namespace concord::dist
