// The file-format fuzz harness, shared by npy_fuzzer, npz_fuzzer,
// safetensors_fuzzer and tests/test_io_fuzz_smoke.cpp: the bytes become a
// file, the loader reads it, and it may only succeed or raise a typed concord
// error (FileError, DtypeError, ShapeError) whose message starts with
// "[load] ". What loads must save and load back to the same shapes, dtypes
// and bytes. check() returns "" or a description of the finding.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <typeinfo>

#include "concord/concord.h"

namespace concord::fuzz_io {

enum class Format { npy, npz, safetensors };

inline std::map<std::string, Tensor> load_any(Format f, const std::string& path) {
  if (f == Format::npy) return {{"x", load_npy(path)}};
  if (f == Format::npz) return load_npz(path);
  return load_safetensors(path);
}

inline void save_any(Format f, const std::string& path, const std::map<std::string, Tensor>& m) {
  if (f == Format::npy) save_npy(path, m.at("x"));
  else if (f == Format::npz) save_npz(path, m);
  else save_safetensors(path, m);
}

inline bool same_bytes(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || !(a.shape() == b.shape())) return false;
  const Tensor x = a.contiguous(), y = b.contiguous();
  return x.nbytes() == 0 || std::memcmp(x.raw_data(), y.raw_data(), x.nbytes()) == 0;
}

// `path` is a scratch file this call may overwrite; `path + ".2"` too.
inline std::string check(Format f, const uint8_t* data, size_t size, const std::string& path) {
  if (std::FILE* out = std::fopen(path.c_str(), "wb")) {
    const bool ok = size == 0 || std::fwrite(data, 1, size, out) == size;
    std::fclose(out);
    if (!ok) return "cannot write the scratch file " + path;
  } else {
    return "cannot create the scratch file " + path;
  }
  std::map<std::string, Tensor> m;
  try {
    m = load_any(f, path);
  } catch (const FileError& e) {
    return std::strncmp(e.what(), "[load] ", 7) == 0 ? "" : std::string("FileError without \"[load] \": ") + e.what();
  } catch (const DtypeError& e) {
    return std::strncmp(e.what(), "[load] ", 7) == 0 ? "" : std::string("DtypeError without \"[load] \": ") + e.what();
  } catch (const ShapeError& e) {
    return std::strncmp(e.what(), "[load] ", 7) == 0 ? "" : std::string("ShapeError without \"[load] \": ") + e.what();
  } catch (const std::exception& e) {
    return std::string("unexpected ") + typeid(e).name() + ": " + e.what();
  } catch (...) {
    return "a non-std exception";
  }
  // Names that load but cannot be saved (npz: '/' or empty; safetensors: empty) end the check.
  for (const auto& [k, t] : m)
    if (k.empty() || k.find('/') != std::string::npos || k.find('\0') != std::string::npos || k.size() > 60000) return "";
  try {
    const std::string again = path + ".2";
    save_any(f, again, m);
    auto back = load_any(f, again);
    if (back.size() != m.size()) return "a round trip changed the number of tensors";
    for (const auto& [k, t] : m)
      if (!back.count(k) || !same_bytes(t, back.at(k))) return "a round trip changed tensor '" + k + "'";
  } catch (const std::exception& e) {
    return std::string("a round trip of a loaded file failed: ") + e.what();
  }
  return "";
}

}  // namespace concord::fuzz_io
