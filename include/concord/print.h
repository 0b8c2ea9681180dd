// concord/print.h — how tensors print, and the options that control it.
//
// Tensor::str() and operator<< print PyTorch's layout: the same element
// strings, padding, line breaks and "..." summaries as PyTorch 1.13's
// torch.Tensor.__repr__ with the same options, followed by concord's suffix
// (", dtype=float32" always, ", shape=[2, 3]" unless 1-D, ", device=emu:0"
// off the CPU).
//
// Floating elements follow PyTorch's choice of format over the printed
// elements: integers only -> "3." (scientific when max/min of the nonzero
// magnitudes > 1000 or max > 1e8); else fixed "%.{precision}f", scientific
// "%.{precision}e" when max/min > 1000, max > 1e8 or min < 1e-4. One rule is
// concord's own (docs/PYTORCH_DIFFERENCES.md): when two different printed
// values would give the same string at that precision, the precision grows
// until every printed value reads differently: [-1.00015, -1.00011] prints
// [-1.00015, -1.00011] (PyTorch: [-1.0001, -1.0001]); values that already
// differ at 4 digits print exactly as PyTorch. Integers print exactly (int64
// never goes through double);
// bool prints True/False.
//
//   concord::set_print_options({.precision = 2, .threshold = 10});
//   { concord::PrintOptionsGuard g({.edgeitems = 1}); std::cout << t; }  // restored here
//   concord::reset_print_options();
//   std::cout << concord::float16 << " " << t.shape();   // "float16 [2, 3]"
#pragma once

#include <cstdint>

namespace concord {

struct PrintOptions {
  int precision = 4;          // digits after the point (fixed) or of the mantissa (scientific)
  int64_t threshold = 1000;   // more elements than this print summarised
  int64_t edgeitems = 3;      // elements kept at each end of a summarised dim (>= 1)
  int64_t linewidth = 80;     // characters per line before a 1-D row wraps
};

// Sets the options for every later print (process-wide). precision outside
// [0, 30], threshold < 0, edgeitems < 1 or linewidth < 1 raise ValueError and
// change nothing.
void set_print_options(const PrintOptions& o);
PrintOptions print_options();
void reset_print_options();   // PyTorch's defaults: 4, 1000, 3, 80

// Sets options for its scope and restores the previous ones on exit.
class PrintOptionsGuard {
 public:
  explicit PrintOptionsGuard(const PrintOptions& o) : saved_(print_options()) { set_print_options(o); }
  ~PrintOptionsGuard() { set_print_options(saved_); }
  PrintOptionsGuard(const PrintOptionsGuard&) = delete;
  PrintOptionsGuard& operator=(const PrintOptionsGuard&) = delete;

 private:
  PrintOptions saved_;
};

}  // namespace concord
