// Host memory for the cpu and emu devices.
#include <cstdlib>
#include <cstring>
#include <new>

#include "backend/cpu/cpu_backend.h"

namespace concord::detail::cpu {

void* host_alloc(size_t nbytes, const Device& d) {
  // 64-byte alignment: whole cache lines, and any SIMD width.
  const size_t rounded = (std::max<size_t>(nbytes, 1) + 63) & ~size_t{63};
  void* p = std::aligned_alloc(64, rounded);
  if (!p)
    throw OutOfMemoryError("[alloc] out of memory allocating " + std::to_string(nbytes) + " bytes on " + d.str() +
                           "; free tensors you no longer need or use smaller shapes");
  return p;
}

void host_free(void* p, size_t) { std::free(p); }

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
