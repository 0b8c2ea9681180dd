// Shared pieces of the file formats: errors, mapped input, atomic output,
// byte order, checked shapes and the move to the target device.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "concord/io.h"

namespace concord::io {

// "[op] path: what; todo" as FileError.
[[noreturn]] void fail(const char* op, const std::string& path, const std::string& what, const std::string& todo);

// A whole file mapped private and writable (copy-on-write: the file never
// changes). An empty file maps to no memory (size 0).
class MappedFile {
 public:
  MappedFile(const std::string& path, const char* op);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
 private:
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

// Bounds-checked reads over a byte range: any read past the end is a
// "truncated" FileError.
struct Bytes {
  const uint8_t* p;
  size_t n;
  const std::string* path;
  const uint8_t* at(size_t off, size_t len, const char* what) const;
  uint16_t u16(size_t off, const char* what) const;
  uint32_t u32(size_t off, const char* what) const;
  uint64_t u64(size_t off, const char* what) const;
};

// Writes to "<path>.tmp.<pid>" and renames over path on commit(); the
// temporary is removed if commit() is never reached.
class AtomicWriter {
 public:
  explicit AtomicWriter(const std::string& path);
  ~AtomicWriter();
  void write(const void* p, size_t n);
  void commit();
  size_t written() const { return written_; }
 private:
  std::string path_, tmp_;
  std::FILE* f_ = nullptr;
  size_t written_ = 0;
};

// Reverses the bytes of each of n elements of size w.
void swap_bytes(void* p, size_t n, size_t w);

// Element count and byte size of shape for dtype, checked (ShapeError naming
// the file for negative sizes or overflow of int64 / size_t).
size_t checked_nbytes(const char* op, const std::string& path, const Shape& shape, Dtype dtype);

// The host bytes of t, row-major, as dtype `as` (any device, any layout).
std::unique_ptr<uint8_t[]> host_bytes(const Tensor& t, Dtype as);

// A CPU tensor (row-major copy of `bytes`) for the loaders.
Tensor copy_to_cpu(const uint8_t* bytes, const Shape& shape, Dtype dtype);

// The loaded CPU tensor on its device: Tensor::to, so the dtype policy applies.
inline Tensor to_device(const Tensor& cpu, const Device& device) { return device.is_cpu() ? cpu : cpu.to(device); }

// .npy content (a file, or an .npz entry) as a row-major CPU tensor; b.path
// names it in errors ("x.npz (entry 'w.npy')").
Tensor parse_npy(const Bytes& b);
// The .npy header (magic to '\n') for t as saved, and that dtype
// (bfloat16 is saved as float32).
std::string npy_header(const Tensor& t, Dtype* saved);
// Throws ValueError for an undefined tensor.
void check_defined(const Tensor& t, const std::string& path, const std::string& name);

std::string base_name(const std::string& path);
bool ends_with(std::string_view s, std::string_view suffix);

}  // namespace concord::io
