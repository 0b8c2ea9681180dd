// src/dist/sum_paths.h — the paths of a floating all_reduce, all on the
// dtype's own bytes (no float64 staging of the data):
// - exact_sum_sliced (Algorithm::reproducible): a reduce-scatter by slices.
//   The elements are cut into world_size slices (by n and world size only);
//   an all-to-all sends every rank's raw values of slice s to rank s; rank s
//   adds its slice's N*k contributions exactly in a fixed-point integer
//   (int64 or __int128 when the global window allows, else the limbs of
//   exact_sum.h), rounds once (round_exact's rules for NaN, inf and -0), and
//   an all-gather returns the rounded slices to every rank. The traffic is a
//   ring all_reduce's: each rank sends and receives (N-1)/N of the data twice.
// - fold_sliced (prod, max, min): the same slices, each folded in (rank,
//   local index) order, so no rank receives more than its slice of every
//   contribution.
// - native_sum (Algorithm::native): MPI_Allreduce on the buffer itself
//   (float32 as MPI_FLOAT, float64 as MPI_DOUBLE); float16 and bfloat16 are
//   staged in float32 and rounded back once.
#pragma once

#include <cstdint>
#include <vector>

#include "concord/dist.h"
#include "concord/tensor.h"
#include "dist/agree.h"
#include "dist/exact_sum.h"

namespace concord::dist::detail {

// The row-major bytes of t in its own dtype: t's own memory when it is a
// contiguous CPU tensor, else a host copy kept in `keep` (counted as a transfer).
const void* raw_view(const Tensor& t, std::vector<uint8_t>& keep);

// Widens w by the finite nonzero values of n raw elements of floating dtype dt
// (and sets w.special on NaN, +-inf or -0).
void scan_raw(const void* data, size_t n, Dtype dt, Window& w);

// out (n elements of dt) = the correctly rounded sum (or mean) over every
// rank's contributions; `local` holds this rank's (n elements each), `all`
// the agreed descriptors (window and counts).
void exact_sum_sliced(const std::vector<const void*>& local, size_t n, const std::vector<Desc>& all, Dtype dt,
                      bool mean, void* out);

// out = prod, max or min over every rank's contributions (concord/dist.h's rules).
void fold_sliced(const std::vector<const void*>& local, size_t n, const std::vector<Desc>& all, Dtype dt, ReduceOp op,
                 void* out);

// out = the MPI library's sum (or mean, divided by `total` contributions).
void native_sum(const std::vector<const void*>& local, size_t n, Dtype dt, uint64_t total, bool mean, void* out);

}  // namespace concord::dist::detail
