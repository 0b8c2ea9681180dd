// concord_bench_dist — the reproducible all_reduce against the plain
// MPI_Allreduce path (Algorithm::native) on the same float32 buffer, 1 KiB to
// 64 MiB. Run under mpirun:
//   mpirun -np 4 build/bench/concord_bench_dist [max_bytes]
// Prints, on rank 0, the best of a few runs of each (all ranks start together
// after a barrier; the time is the slowest rank's) and their ratio.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "concord/concord.h"
#include "concord/dist.h"

namespace dist = concord::dist;

namespace {

double seconds_of(const concord::Tensor& x, dist::Algorithm algo, int reps) {
  double best = 1e30;
  for (int i = 0; i < reps; ++i) {
    dist::barrier();
    const auto t0 = std::chrono::steady_clock::now();
    const concord::Tensor y = dist::all_reduce(x, dist::ReduceOp::sum, algo);
    const double mine = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // The slowest rank's time (a max is exact: its reduction order does not matter).
    const double slowest = dist::all_reduce(concord::full({1}, mine, concord::float64), dist::ReduceOp::max).item<double>();
    best = std::min(best, slowest);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  dist::Session session;
  const size_t max_bytes = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : size_t{64} << 20;
  if (dist::rank() == 0)
    std::printf("ranks %d, float32, best of runs; time of the slowest rank\n%10s %14s %14s %8s\n", dist::world_size(),
                "bytes", "native (ms)", "exact (ms)", "ratio");
  for (size_t bytes = 1024; bytes <= max_bytes; bytes *= 4) {
    const int64_t n = static_cast<int64_t>(bytes / 4);
    const concord::Tensor x = concord::mul(
        concord::randn({n}, concord::float32, concord::kCPU, static_cast<uint64_t>(dist::rank()) + 1), 1000.0);
    const int reps = bytes <= (size_t{1} << 20) ? 10 : 3;
    const double native = seconds_of(x, dist::Algorithm::native, reps);
    const double exact = seconds_of(x, dist::Algorithm::reproducible, reps);
    if (dist::rank() == 0)
      std::printf("%10zu %14.3f %14.3f %8.2f\n", bytes, native * 1e3, exact * 1e3, exact / native);
  }
  return 0;
}
