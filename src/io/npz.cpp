// .npz: a zip archive of .npy files (numpy.savez). Reading takes stored
// entries (ZIP64 records included, as numpy writes them); deflated entries
// (numpy.savez_compressed) are refused with a FileError, since concord links
// no zlib. Writing makes stored entries with fixed timestamps, so the same
// tensors give the same bytes.
#include <algorithm>
#include <array>
#include <set>
#include <vector>

#include "io/io_common.h"

namespace concord::io {

namespace {

uint32_t crc32(const uint8_t* p, size_t n, uint32_t crc = 0) {
  static const auto table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  crc = ~crc;
  for (size_t i = 0; i < n; ++i) crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
  return ~crc;
}

constexpr uint32_t kLocalSig = 0x04034b50, kCentralSig = 0x02014b50, kEndSig = 0x06054b50;
constexpr uint32_t kEnd64Sig = 0x06064b50, kLocator64Sig = 0x07064b50;

struct Entry {
  std::string name;
  uint16_t flags, method;
  uint32_t crc;
  uint64_t csize, usize, local;
};

[[noreturn]] void bad_zip(const std::string& path, const std::string& what) {
  fail("load", path, "not a valid .npz (zip) file: " + what, "write it again with numpy.savez or concord::save_npz");
}

// The central directory: where it is and how many entries it lists.
void find_directory(const Bytes& b, uint64_t* count, uint64_t* offset, uint64_t* size) {
  const std::string& path = *b.path;
  if (b.n < 22) {
    if (b.n >= 4 && b.u32(0, "magic") != kLocalSig && b.u32(0, "magic") != kEndSig)
      fail("load", path, "wrong magic: not a zip archive", "pass a file written by numpy.savez or concord::save_npz");
    bad_zip(path, "truncated (" + std::to_string(b.n) + " bytes)");
  }
  size_t e = b.n - 22;
  const size_t lowest = b.n > 22 + 65535 ? b.n - 22 - 65535 : 0;
  while (b.u32(e, "zip end record") != kEndSig) {
    if (e == lowest) {
      if (b.u32(0, "magic") != kLocalSig)
        fail("load", path, "wrong magic: not a zip archive", "pass a file written by numpy.savez or concord::save_npz");
      bad_zip(path, "no end-of-directory record (truncated?)");
    }
    --e;
  }
  *count = b.u16(e + 10, "zip end record");
  *size = b.u32(e + 12, "zip end record");
  *offset = b.u32(e + 16, "zip end record");
  if ((*count == 0xffff || *size == 0xffffffff || *offset == 0xffffffff) && e >= 20 &&
      b.u32(e - 20, "zip64 locator") == kLocator64Sig) {
    const uint64_t z = b.u64(e - 20 + 8, "zip64 locator");
    if (z > b.n || b.u32(static_cast<size_t>(z), "zip64 end record") != kEnd64Sig) bad_zip(path, "bad ZIP64 end record");
    *count = b.u64(static_cast<size_t>(z) + 32, "zip64 end record");
    *size = b.u64(static_cast<size_t>(z) + 40, "zip64 end record");
    *offset = b.u64(static_cast<size_t>(z) + 48, "zip64 end record");
  }
  if (*offset > b.n || *size > b.n - *offset) bad_zip(path, "the directory lies outside the file");
}

std::vector<Entry> read_directory(const Bytes& b) {
  uint64_t count, off, size;
  find_directory(b, &count, &off, &size);
  std::vector<Entry> out;
  size_t p = static_cast<size_t>(off);
  for (uint64_t i = 0; i < count; ++i) {
    if (b.u32(p, "zip directory") != kCentralSig) bad_zip(*b.path, "directory entry " + std::to_string(i) + " is corrupt");
    Entry e;
    e.flags = b.u16(p + 8, "zip directory");
    e.method = b.u16(p + 10, "zip directory");
    e.crc = b.u32(p + 16, "zip directory");
    e.csize = b.u32(p + 20, "zip directory");
    e.usize = b.u32(p + 24, "zip directory");
    const size_t nlen = b.u16(p + 28, "zip directory"), xlen = b.u16(p + 30, "zip directory"),
                 clen = b.u16(p + 32, "zip directory");
    e.local = b.u32(p + 42, "zip directory");
    e.name.assign(reinterpret_cast<const char*>(b.at(p + 46, nlen, "zip entry name")), nlen);
    // ZIP64 extra field: the 64-bit values of the fields saturated above, in order.
    for (size_t x = p + 46 + nlen, xe = x + xlen; x + 4 <= xe;) {
      const uint16_t id = b.u16(x, "zip extra field"), len = b.u16(x + 2, "zip extra field");
      if (x + 4 + len > xe) bad_zip(*b.path, "extra field of '" + e.name + "' overruns its record");
      if (id == 1) {
        size_t q = x + 4;
        for (uint64_t* v : {&e.usize, &e.csize, &e.local})
          if (*v == 0xffffffff) {
            if (q + 8 > x + 4 + len) bad_zip(*b.path, "ZIP64 field of '" + e.name + "' is short");
            *v = b.u64(q, "zip64 field"), q += 8;
          }
      }
      x += 4 + len;
    }
    out.push_back(std::move(e));
    p += 46 + nlen + xlen + clen;
  }
  return out;
}

}  // namespace

std::map<std::string, Tensor> load_npz_impl(const std::string& path, const Device& device) {
  MappedFile m(path, "load");
  const Bytes b{m.data(), m.size(), &path};
  if (b.n >= 4 && b.u32(0, "magic") != kLocalSig && b.u32(0, "magic") != kEndSig)
    fail("load", path, "wrong magic: not a zip archive", "pass a file written by numpy.savez or concord::save_npz");
  std::map<std::string, Tensor> cpu;
  for (const Entry& e : read_directory(b)) {
    std::string key = ends_with(e.name, ".npy") ? e.name.substr(0, e.name.size() - 4) : e.name;
    const std::string label = path + " (entry '" + e.name + "')";
    if (e.flags & 1) fail("load", label, "the entry is encrypted", "save the arrays again without encryption");
    if (e.method == 8)
      fail("load", label, "the entry is deflate-compressed (numpy.savez_compressed); concord reads only stored entries",
           "save with numpy.savez (no compression), or load with NumPy and save the arrays one by one with numpy.save");
    if (e.method != 0 || e.csize != e.usize)
      fail("load", label, "compression method " + std::to_string(e.method) + " is not supported", "save with numpy.savez");
    if (e.local > b.n || b.u32(static_cast<size_t>(e.local), "zip local header") != kLocalSig)
      bad_zip(path, "the local header of '" + e.name + "' is missing");
    const size_t lp = static_cast<size_t>(e.local);
    const size_t data = lp + 30 + b.u16(lp + 26, "zip local header") + b.u16(lp + 28, "zip local header");
    if (e.usize > b.n) bad_zip(path, "entry '" + e.name + "' is larger than the file");
    const uint8_t* p = b.at(data, static_cast<size_t>(e.usize), "a zip entry's data");
    if (crc32(p, static_cast<size_t>(e.usize)) != e.crc)
      fail("load", label, "CRC-32 mismatch: the data is corrupt", "write the file again");
    if (cpu.count(key)) fail("load", path, "two entries are named '" + key + "'", "write the file again with unique names");
    cpu[key] = parse_npy(Bytes{p, static_cast<size_t>(e.usize), &label});
  }
  // All parsed: now the moves (a strict-policy error here also returns nothing).
  std::map<std::string, Tensor> out;
  for (auto& [k, t] : cpu) out[k] = to_device(t, device);
  return out;
}

}  // namespace concord::io

namespace concord {

std::map<std::string, Tensor> load_npz(const std::string& path, const Device& device) {
  return io::load_npz_impl(path, device);
}

void save_npz(const std::string& path, const std::map<std::string, Tensor>& tensors) {
  for (const auto& [k, t] : tensors) {
    if (k.empty() || k.find('/') != std::string::npos || k.find('\0') != std::string::npos || k.size() > 60000)
      throw ValueError("[save] " + path + ": bad array name '" + k + "'; names must be non-empty, without '/' or NUL");
    io::check_defined(t, path, k);
  }
  io::AtomicWriter w(path);
  std::string directory;
  const auto le = [](std::string& s, uint64_t v, int n) { for (int i = 0; i < n; ++i) s += static_cast<char>((v >> (8 * i)) & 0xff); };
  for (const auto& [k, t] : tensors) {
    Dtype saved;
    const std::string header = io::npy_header(t, &saved);
    auto bytes = io::host_bytes(t, saved);
    const size_t nb = static_cast<size_t>(t.numel()) * itemsize(saved);
    const uint64_t size = header.size() + nb, offset = w.written();
    if (size >= 0xffffffffu || offset >= 0xffffffffu)
      io::fail("save", path, "'" + k + "' (or the archive up to it) is over 4 GiB, which needs ZIP64",
               "save large tensors with save_npy or save_safetensors");
    uint32_t crc = io::crc32(reinterpret_cast<const uint8_t*>(header.data()), header.size());
    crc = io::crc32(bytes.get(), nb, crc);
    const std::string name = k + ".npy";
    // Shared part of the local and central records: version, flags, method,
    // time 00:00, date 1980-01-01, crc, sizes, name length, extra length.
    // Flag bit 11: the name is UTF-8 (Python's zipfile reads others as cp437).
    const bool utf8 = std::any_of(name.begin(), name.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; });
    std::string common;
    le(common, 20, 2), le(common, utf8 ? 0x800 : 0, 2), le(common, 0, 2), le(common, 0, 2), le(common, 0x21, 2);
    le(common, crc, 4), le(common, size, 4), le(common, size, 4), le(common, name.size(), 2), le(common, 0, 2);
    std::string local;
    le(local, io::kLocalSig, 4);
    local += common + name;
    w.write(local.data(), local.size());
    w.write(header.data(), header.size());
    w.write(bytes.get(), nb);
    le(directory, io::kCentralSig, 4), le(directory, 20, 2);
    directory += common;
    le(directory, 0, 2), le(directory, 0, 2), le(directory, 0, 2), le(directory, 0, 4), le(directory, offset, 4);
    directory += name;
  }
  const uint64_t dir_offset = w.written();
  if (dir_offset >= 0xffffffffu || tensors.size() >= 0xffff)
    io::fail("save", path, "the archive is over 4 GiB or 65535 entries, which needs ZIP64", "save fewer or smaller tensors per file");
  std::string end;
  le(end, io::kEndSig, 4), le(end, 0, 2), le(end, 0, 2), le(end, tensors.size(), 2), le(end, tensors.size(), 2);
  le(end, directory.size(), 4), le(end, dir_offset, 4), le(end, 0, 2);
  w.write(directory.data(), directory.size());
  w.write(end.data(), end.size());
  w.commit();
}

}  // namespace concord
