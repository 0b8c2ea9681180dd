// Helpers for the file I/O tests: a scratch directory, NumPy through
// /usr/bin/python3, and raw file bytes.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace concord::test {

// A fresh directory under the system temp dir, removed with the object.
class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "concord_io_XXXXXX").string();
    dir_ = ::mkdtemp(tmpl.data()) ? tmpl : std::string();
  }
  ~ScratchDir() { std::error_code ec; std::filesystem::remove_all(dir_, ec); }
  std::string path(const std::string& name) const { return dir_ + "/" + name; }
  const std::string& str() const { return dir_; }
 private:
  std::string dir_;
};

inline bool have_numpy() {
  static const bool ok = std::system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") == 0;
  return ok;
}

// Runs a Python program (with numpy imported as np and D = the scratch dir);
// returns its exit status (0: every assert in it held).
inline int run_python(const ScratchDir& d, const std::string& body) {
  const std::string file = d.path("script.py");
  std::ofstream(file) << "import numpy as np, json, struct, sys\nD = " << '"' << d.str() << '"' << "\n" << body << "\n";
  return std::system(("/usr/bin/python3 " + file).c_str());
}

inline std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

inline void write_bytes(const std::string& path, const std::vector<uint8_t>& b) {
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

}  // namespace concord::test

#define CONCORD_NEED_NUMPY() \
  if (!::concord::test::have_numpy()) GTEST_SKIP() << "/usr/bin/python3 with numpy is not available"
