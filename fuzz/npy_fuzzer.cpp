// npy fuzzer: any bytes as a .npy file; the loader succeeds (and what it
// loads round-trips) or raises a typed "[load]" error (fuzz/io_fuzz.h).
#include <unistd.h>

#include <cstdlib>

#include "io_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/tmp/concord_npy_fuzz_" + std::to_string(::getpid()) + ".npy";
  const std::string finding = concord::fuzz_io::check(concord::fuzz_io::Format::npy, data, size, path);
  if (!finding.empty()) {
    std::fprintf(stderr, "\n==== concord fuzz finding ====\nnpy: %s\n", finding.c_str());
    std::fflush(stderr);
    std::abort();
  }
  return 0;
}
