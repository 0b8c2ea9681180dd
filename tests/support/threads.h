// Test support: run a block with a given OpenMP thread count (restored after),
// for tests that compare the bits of 1 against 2 threads.
#pragma once

#include <omp.h>

namespace concord::test {

class ThreadCount {
 public:
  explicit ThreadCount(int n) : saved_(omp_get_max_threads()) { omp_set_num_threads(n); }
  ~ThreadCount() { omp_set_num_threads(saved_); }
  ThreadCount(const ThreadCount&) = delete;
  ThreadCount& operator=(const ThreadCount&) = delete;

 private:
  int saved_;
};

}  // namespace concord::test
