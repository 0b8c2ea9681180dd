// The caches of free host blocks behind host_alloc (memory.cpp).
//
// Freed blocks of 1 MiB and more are kept (up to min(1 GiB, RAM / 8)) so that
// the next allocation of the same size class skips the page faults of fresh
// memory; blocks up to 4 KiB are kept per thread (a few per size). Cached
// blocks are not live tensors: memory_stats() does not count them. The large
// cache empties itself before an allocation is retried after a failure and
// when the system is low on available memory.
#pragma once

#include <cstddef>
#include <cstdint>

namespace concord::detail::cpu {

struct HostCacheStats {
  size_t cached_bytes = 0;  // bytes held in free large blocks
  size_t limit_bytes = 0;
  size_t blocks = 0;
  uint64_t hits = 0, misses = 0;  // large allocations served from / not from the cache
};

// Unmaps every cached large block (and frees this thread's small ones);
// returns the large-block bytes given back to the system.
size_t release_host_cache();
HostCacheStats host_cache_stats();

}  // namespace concord::detail::cpu
