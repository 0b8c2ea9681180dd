// Host memory for the cpu and emu devices.
//
// Small blocks come from aligned_alloc, through a per-thread cache of free
// blocks up to 4 KiB (small ops allocate and free one every call). Blocks of
// kLargeBlock bytes and more are mapped directly and, when freed, kept in a
// bounded cache of free blocks so that the next op of the same size reuses
// pages that are already faulted in: a fresh 64 MB output otherwise costs 16k
// page faults, more than the add that fills it. Cached blocks are not live tensor memory, so memory_stats()
// only sees note_alloc/note_free of the tensors themselves.
//
// Large sizes are rounded up to a size class (1/16 of the power of two below, so a
// block wastes at most 6.25%), and a block is reused only for its own class.
// The cache holds at most min(1 GiB, RAM / 8); it is emptied before a failed
// allocation is retried, and when the system runs low on free memory.
#include <sys/mman.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <vector>

#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/host_cache.h"
#include "backend/cpu/loops.h"
#include "concord/fault_injection.h"

namespace concord::detail::cpu {

namespace {

constexpr size_t kLargeBlock = size_t{1} << 20;  // blocks from 1 MiB on are mapped and cached
constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kMaxCachedBlocks = 64;

size_t size_class(size_t n) {
  const int top = 63 - __builtin_clzll(n);
  const size_t gran = std::max<size_t>(4096, size_t{1} << std::max(top - 4, 0));
  return (n + gran - 1) & ~(gran - 1);
}

size_t physical_ram() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page) : size_t{8} << 30;
}

// Memory the system could give us now: MemAvailable (free plus reclaimable page
// cache), re-read at most every 100 ms; sysinfo's free RAM when /proc is missing.
size_t system_available() {
  static std::mutex mu;
  static std::chrono::steady_clock::time_point last{};
  static size_t value = 0;
  std::lock_guard lock(mu);
  const auto now = std::chrono::steady_clock::now();
  if (value != 0 && now - last < std::chrono::milliseconds(100)) return value;
  last = now;
  value = 0;
  if (std::FILE* f = std::fopen("/proc/meminfo", "r")) {
    char line[128];
    unsigned long long kb = 0;
    while (std::fgets(line, sizeof line, f))
      if (std::sscanf(line, "MemAvailable: %llu kB", &kb) == 1) { value = static_cast<size_t>(kb) * 1024; break; }
    std::fclose(f);
  }
  if (value == 0) {
    struct sysinfo si;
    value = sysinfo(&si) == 0 ? static_cast<size_t>(si.freeram) * si.mem_unit : ~size_t{0};
  }
  return value;
}

struct Block {
  void* ptr;
  size_t size;  // the size class
};

class Cache {
 public:
  Cache() : limit_(std::min<size_t>(size_t{1} << 30, physical_ram() / 8)) {}

  void* take(size_t cls) {
    std::lock_guard lock(mu_);
    // The newest block of the class: the most likely to be warm in cache and TLB.
    for (size_t i = blocks_.size(); i-- > 0;) {
      if (blocks_[i].size != cls) continue;
      void* p = blocks_[i].ptr;
      blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(i));
      cached_ -= cls;
      ++hits_;
      return p;
    }
    ++misses_;
    return nullptr;
  }

  // Keeps the block, evicting the oldest ones to stay within the limit; unmaps it when it cannot fit.
  void give(void* p, size_t cls) {
    std::vector<Block> evicted;
    {
      std::lock_guard lock(mu_);
      if (cls > limit_) {
        evicted.push_back({p, cls});
      } else {
        while (!blocks_.empty() && (cached_ + cls > limit_ || blocks_.size() >= kMaxCachedBlocks)) {
          evicted.push_back(blocks_.front());
          cached_ -= blocks_.front().size;
          blocks_.erase(blocks_.begin());
        }
        blocks_.push_back({p, cls});
        cached_ += cls;
      }
    }
    for (const Block& b : evicted) munmap(b.ptr, b.size);
  }

  size_t release() {
    std::vector<Block> all;
    {
      std::lock_guard lock(mu_);
      all.swap(blocks_);
      cached_ = 0;
    }
    size_t n = 0;
    for (const Block& b : all) {
      munmap(b.ptr, b.size);
      n += b.size;
    }
    return n;
  }

  HostCacheStats stats() {
    std::lock_guard lock(mu_);
    return {cached_, limit_, blocks_.size(), hits_, misses_};
  }

  size_t cached() {
    std::lock_guard lock(mu_);
    return cached_;
  }

 private:
  std::mutex mu_;
  std::vector<Block> blocks_;  // oldest first
  size_t cached_ = 0;
  size_t limit_;
  uint64_t hits_ = 0, misses_ = 0;
};

Cache& cache() {
  static Cache* c = new Cache;  // leaked on purpose: tensors may be freed in static destructors
  return *c;
}

[[noreturn]] void out_of_memory(size_t nbytes, const Device& d) {
  throw OutOfMemoryError("[alloc] out of memory allocating " + std::to_string(nbytes) + " bytes on " + d.str() +
                         "; free tensors you no longer need or use smaller shapes");
}

// A fresh mapping of cls bytes. Blocks of 2 MiB multiples are aligned to 2 MiB
// and marked for transparent huge pages: 32x fewer faults and TLB misses.
void* map_block(size_t cls) {
  const bool huge = cls % kHugePage == 0;
  const size_t want = huge ? cls + kHugePage : cls;
  void* raw = mmap(nullptr, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  if (!huge) return raw;
  const uintptr_t a = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = (a + kHugePage - 1) & ~(uintptr_t{kHugePage} - 1);
  if (aligned > a) munmap(raw, aligned - a);
  if (aligned + cls < a + want) munmap(reinterpret_cast<void*>(aligned + cls), a + want - (aligned + cls));
  void* p = reinterpret_cast<void*>(aligned);
#ifdef MADV_HUGEPAGE
  madvise(p, cls, MADV_HUGEPAGE);
#endif
  return p;
}

// Touches every page of a new block, split across threads: the faults (and the
// kernel zeroing the pages) happen in parallel rather than in whichever single
// thread writes the block first.
void first_touch(void* p, size_t cls) {
  const bool huge = cls % kHugePage == 0;
  const size_t step = huge ? kHugePage : 4096;
  const int64_t pages = static_cast<int64_t>(cls / step);
  char* c = static_cast<char*>(p);
  parallel_for(pages, huge ? 4 : 256, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) c[i * step] = 0;
  });
}

void* large_alloc(size_t nbytes, const Device& d) {
  const size_t cls = size_class(nbytes);
  if (void* p = cache().take(cls)) return p;
  // Low on memory: hand the cached blocks back before asking for more.
  if (cache().cached() > 0 && system_available() < 2 * cls + cache().cached()) cache().release();
  void* p = map_block(cls);
  if (!p && cache().release() > 0) p = map_block(cls);
  if (!p) out_of_memory(nbytes, d);
  first_touch(p, cls);
  return p;
}

// Small blocks (up to 4 KiB): a per-thread stack of free blocks per power-of-two
// class. aligned_alloc costs ~700 instructions in glibc, more than a whole
// 8-element add; a cached block costs a few. The state is trivially
// destructible so that tensors freed after the thread's destructors ran (in
// static destructors) still find it; the reaper empties it at thread exit.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSmallCache = false;  // let AddressSanitizer see every free
#else
constexpr bool kSmallCache = true;
#endif
constexpr int kSmallClasses = 7;  // 64 B .. 4 KiB
constexpr int kSmallPerClass = 16;
constexpr size_t kSmallMax = size_t{64} << (kSmallClasses - 1);

struct SmallCache {
  void* blocks[kSmallClasses][kSmallPerClass];
  int count[kSmallClasses];
  bool reaper_armed;
  bool dead;
};
thread_local SmallCache tl_small{};

void drain_small(SmallCache& c) {
  for (int k = 0; k < kSmallClasses; ++k) {
    for (int i = 0; i < c.count[k]; ++i) std::free(c.blocks[k][i]);
    c.count[k] = 0;
  }
}

struct SmallCacheReaper {
  ~SmallCacheReaper() {
    drain_small(tl_small);
    tl_small.dead = true;
  }
};
thread_local SmallCacheReaper tl_reaper;

inline int small_class(size_t nbytes) {  // 64 << class >= nbytes
  const size_t units = (std::max<size_t>(nbytes, 1) + 63) >> 6;
  return units <= 1 ? 0 : 64 - __builtin_clzll(units - 1);
}

}  // namespace

void* host_alloc(size_t nbytes, const Device& d) {
  // Test hook (one relaxed load when off): an injected failure takes the real out-of-memory path.
  if (fault::should_fail_alloc(d.kind().id()))
    out_of_memory(nbytes, d);
  if (nbytes >= kLargeBlock) return large_alloc(nbytes, d);
  size_t rounded;
  if (kSmallCache && nbytes <= kSmallMax) {
    const int k = small_class(nbytes);
    SmallCache& c = tl_small;
    if (c.count[k] > 0) return c.blocks[k][--c.count[k]];
    rounded = size_t{64} << k;
  } else {
    rounded = (nbytes + 63) & ~size_t{63};
  }
  // 64-byte alignment: whole cache lines, and any SIMD width.
  void* p = std::aligned_alloc(64, rounded);
  if (!p && cache().release() > 0) p = std::aligned_alloc(64, rounded);
  if (!p) out_of_memory(nbytes, d);
  return p;
}

void host_free(void* p, size_t nbytes) {
  if (!p) return;
  if (nbytes >= kLargeBlock) return cache().give(p, size_class(nbytes));
  if (kSmallCache && nbytes <= kSmallMax) {
    SmallCache& c = tl_small;
    const int k = small_class(nbytes);
    if (!c.dead && c.count[k] < kSmallPerClass) {
      if (!c.reaper_armed) {
        c.reaper_armed = true;
        SmallCacheReaper* volatile r = &tl_reaper;  // constructs it, so that it runs at thread exit
        (void)r;
      }
      c.blocks[k][c.count[k]++] = p;
      return;
    }
  }
  std::free(p);
}

size_t release_host_cache() {
  if (kSmallCache) drain_small(tl_small);  // this thread's small blocks
  return cache().release();
}
HostCacheStats host_cache_stats() { return cache().stats(); }

std::shared_ptr<Storage> CpuBackend::allocate(size_t nbytes, const Device& d) {
  auto st = std::make_shared<Storage>();
  st->ptr = host_alloc(nbytes, d);
  st->nbytes = nbytes;
  st->device = d;
  note_alloc(d, nbytes);
  st->release = [](Storage& s) {
    host_free(s.ptr, s.nbytes);
    note_free(s.device, s.nbytes);
  };
  return st;
}

void CpuBackend::write(Storage& dst, size_t off, const void* src, size_t n) {
  std::memcpy(static_cast<char*>(dst.ptr) + off, src, n);
}

void CpuBackend::read(const Storage& src, size_t off, void* dst, size_t n) {
  std::memcpy(dst, static_cast<const char*>(src.ptr) + off, n);
}

}  // namespace concord::detail::cpu
