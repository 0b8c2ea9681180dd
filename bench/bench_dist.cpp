// concord_bench_dist — the reproducible all_reduce against a plain
// MPI_Allreduce of the same float32 buffer (raw: MPI alone, no tensor; in
// place, and from one buffer into another, as dist::all_reduce returns a new
// tensor) and against concord's Algorithm::native (MPI_Allreduce behind
// dist::all_reduce's tensor handling), 1 KiB to 64 MiB. Run under mpirun:
//   mpirun -np 4 build/bench/concord_bench_dist [max_bytes]
// Prints, on rank 0, the best of a few runs of each (all ranks start together
// after a barrier; the time is the slowest rank's) and the ratios to the
// faster raw call and to native.
// A benchmark program, not the library: it calls MPI directly for the raw baseline.
#include <mpi.h>

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

double seconds_raw(const concord::Tensor& x, int reps, bool in_place) {
  std::vector<float> buf = x.to_vector<float>(), out(buf.size());
  double best = 1e30;
  for (int i = 0; i < reps; ++i) {
    dist::barrier();
    const auto t0 = std::chrono::steady_clock::now();
    MPI_Allreduce(in_place ? MPI_IN_PLACE : buf.data(), in_place ? buf.data() : out.data(), static_cast<int>(buf.size()),
                  MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    double mine = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), slowest = 0;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    best = std::min(best, slowest);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  dist::Session session;
  const size_t max_bytes = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : size_t{64} << 20;
  if (dist::rank() == 0)
    std::printf("ranks %d, float32, best of runs; time of the slowest rank\n%10s %12s %12s %12s %12s %10s %10s\n",
                dist::world_size(), "bytes", "raw-ip (ms)", "raw (ms)", "native (ms)", "exact (ms)", "exact/raw",
                "exact/nat");
  for (size_t bytes = 1024; bytes <= max_bytes; bytes *= 4) {
    const int64_t n = static_cast<int64_t>(bytes / 4);
    const concord::Tensor x = concord::mul(
        concord::randn({n}, concord::float32, concord::kCPU, static_cast<uint64_t>(dist::rank()) + 1), 1000.0);
    const int reps = bytes <= (size_t{1} << 20) ? 10 : 5;
    const double raw_ip = seconds_raw(x, reps, true), raw = seconds_raw(x, reps, false);
    const double native = seconds_of(x, dist::Algorithm::native, reps);
    const double exact = seconds_of(x, dist::Algorithm::reproducible, reps);
    if (dist::rank() == 0)
      std::printf("%10zu %12.3f %12.3f %12.3f %12.3f %10.2f %10.2f\n", bytes, raw_ip * 1e3, raw * 1e3, native * 1e3,
                  exact * 1e3, exact / std::min(raw, raw_ip), exact / native);
  }
  return 0;
}
