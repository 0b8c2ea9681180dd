// Shared pieces of the file formats (see io_common.h).
#include "io/io_common.h"

#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "concord/creation.h"

namespace concord::io {

void fail(const char* op, const std::string& path, const std::string& what, const std::string& todo) {
  throw FileError(std::string("[") + op + "] " + path + ": " + what + "; " + todo);
}

MappedFile::MappedFile(const std::string& path, const char* op) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(op, path, std::string("cannot open it (") + std::strerror(errno) + ")", "check the path and its permissions");
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    fail(op, path, "not a regular file", "pass the path of a file");
  }
  size_ = static_cast<size_t>(st.st_size);
  if (size_ > 0) {
    // Private and writable: zero-copy tensors may be written into; the
    // writes stay in this process's pages and never reach the file.
    void* m = ::mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) {
      const int e = errno;
      ::close(fd);
      fail(op, path, std::string("cannot map it (") + std::strerror(e) + ")", "check that it is a readable file");
    }
    data_ = static_cast<uint8_t*>(m);
  }
  ::close(fd);  // the mapping keeps the file
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(data_, size_);
}

const uint8_t* Bytes::at(size_t off, size_t len, const char* what) const {
  if (off > n || len > n - off)
    fail("load", *path, std::string("truncated: ") + what + " needs bytes " + std::to_string(off) + ".." +
                            std::to_string(static_cast<unsigned long long>(off) + len) + " but the data has " +
                            std::to_string(n) + " bytes",
         "the file is incomplete or corrupt; write it again");
  return p + off;
}
uint16_t Bytes::u16(size_t off, const char* what) const {
  const uint8_t* b = at(off, 2, what);
  return static_cast<uint16_t>(b[0] | b[1] << 8);
}
uint32_t Bytes::u32(size_t off, const char* what) const {
  const uint8_t* b = at(off, 4, what);
  return uint32_t{b[0]} | uint32_t{b[1]} << 8 | uint32_t{b[2]} << 16 | uint32_t{b[3]} << 24;
}
uint64_t Bytes::u64(size_t off, const char* what) const {
  return uint64_t{u32(off, what)} | uint64_t{u32(off + 4, what)} << 32;
}

AtomicWriter::AtomicWriter(const std::string& path) : path_(path), tmp_(path + ".tmp." + std::to_string(::getpid())) {
  f_ = std::fopen(tmp_.c_str(), "wb");
  if (!f_) fail("save", path, std::string("cannot create it (") + std::strerror(errno) + ")",
                "check that the directory exists and is writable");
}

AtomicWriter::~AtomicWriter() {
  if (f_) {
    std::fclose(f_);
    std::remove(tmp_.c_str());
  }
}

void AtomicWriter::write(const void* p, size_t n) {
  if (n > 0 && std::fwrite(p, 1, n, f_) != n)
    fail("save", path_, std::string("write failed after ") + std::to_string(written_) + " bytes (" + std::strerror(errno) + ")",
         "check the free space; nothing was written");
  written_ += n;
}

void AtomicWriter::commit() {
  // Renamed only once complete, so a reader never sees a partial file (no
  // fsync: durability across power loss is the caller's choice).
  const bool ok = std::fflush(f_) == 0;
  const int e = errno;
  std::fclose(f_);
  f_ = nullptr;
  if (!ok || std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    std::remove(tmp_.c_str());
    fail("save", path_, std::string("cannot finish it (") + std::strerror(ok ? errno : e) + ")",
         "check the free space and permissions; nothing was written");
  }
}

void swap_bytes(void* p, size_t n, size_t w) {
  if (w < 2) return;
  auto* b = static_cast<uint8_t*>(p);
  for (size_t i = 0; i < n; ++i, b += w)
    for (size_t j = 0; j < w / 2; ++j) std::swap(b[j], b[w - 1 - j]);
}

size_t checked_nbytes(const char* op, const std::string& path, const Shape& shape, Dtype dtype) {
  int64_t n = 1;
  for (int64_t s : shape) {
    if (s < 0)
      throw ShapeError(std::string("[") + op + "] " + path + ": negative size " + std::to_string(s) + " in shape " +
                       shape_str(shape) + "; the file is corrupt");
    if (__builtin_mul_overflow(n, s, &n))
      throw ShapeError(std::string("[") + op + "] " + path + ": the element count of shape " + shape_str(shape) +
                       " overflows int64; the file is corrupt");
  }
  size_t bytes;
  if (__builtin_mul_overflow(static_cast<size_t>(n), itemsize(dtype), &bytes))
    throw ShapeError(std::string("[") + op + "] " + path + ": shape " + shape_str(shape) + " of " +
                     std::string(name(dtype)) + " needs more bytes than fit in size_t; the file is corrupt");
  return bytes;
}

std::unique_ptr<uint8_t[]> host_bytes(const Tensor& t, Dtype as) {
  const size_t n = static_cast<size_t>(t.numel()) * itemsize(as);
  std::unique_ptr<uint8_t[]> buf(new uint8_t[n > 0 ? n : 1]);
  detail::to_host_as(t, as, buf.get());
  return buf;
}

Tensor copy_to_cpu(const uint8_t* bytes, const Shape& shape, Dtype dtype) {
  Tensor t = empty(shape, dtype, kCPU);
  if (t.nbytes() > 0) std::memcpy(t.raw_data(), bytes, t.nbytes());
  return t;
}

std::string base_name(const std::string& path) {
  const size_t s = path.find_last_of('/');
  return s == std::string::npos ? path : path.substr(s + 1);
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace concord::io
