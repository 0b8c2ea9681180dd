// Printing: PyTorch 1.13's _tensor_str layout and element formats, with one
// addition (print.h): the precision grows until different values read
// differently.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <ostream>
#include <sstream>

#include "concord/print.h"
#include "concord/tensor.h"

namespace concord {

namespace {

std::mutex g_options_mutex;
PrintOptions g_options;

// The elements as they will be formatted: doubles for floating dtypes (float16
// and bfloat16 are exact in double, as PyTorch's .float()), int64 for the rest.
struct Values {
  bool floating = false;
  bool boolean = false;
  std::vector<double> f;
  std::vector<int64_t> i;
};

// Flat row-major indices of the elements that print (all of them unless
// summarised: then edgeitems at each end of every dim longer than 2*edgeitems).
void printed_indices(const Shape& shape, size_t dim, int64_t base, bool summarize, int64_t edge,
                     std::vector<int64_t>& out) {
  if (dim == shape.size()) { out.push_back(base); return; }
  int64_t block = 1;
  for (size_t d = dim + 1; d < shape.size(); ++d) block *= shape[d];
  const int64_t n = shape[dim];
  for (int64_t k = 0; k < n; ++k) {
    if (summarize && n > 2 * edge && k == edge) k = n - edge;
    printed_indices(shape, dim + 1, base + k * block, summarize, edge, out);
  }
}

std::string format_fixed(double v, int precision, char conv) {
  if (std::isnan(v)) return "nan";   // never "-nan": Python prints every NaN as nan
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[512];
  const char fmt[] = {'%', '.', '*', conv, 0};
  std::snprintf(buf, sizeof buf, fmt, precision, v);
  return buf;
}

// PyTorch's _Formatter, over the printed elements.
class Formatter {
 public:
  Formatter(const Values& v, const std::vector<int64_t>& printed, const PrintOptions& o) : precision_(o.precision) {
    if (!v.floating) {
      for (int64_t k : printed) width_ = std::max(width_, raw(v, k).size());
      return;
    }
    floating_ = true;
    std::vector<double> nz;   // nonzero finite printed values
    for (int64_t k : printed)
      if (std::isfinite(v.f[k]) && v.f[k] != 0) nz.push_back(v.f[k]);
    if (nz.empty()) return;
    double lo = INFINITY, hi = 0;
    for (double x : nz) {
      lo = std::min(lo, std::fabs(x));
      hi = std::max(hi, std::fabs(x));
      if (x != std::ceil(x)) int_mode_ = false;
    }
    sci_ = hi / lo > 1000. || hi > 1.e8 || (!int_mode_ && lo < 1.e-4);
    if (sci_) int_mode_ = false;
    grow_precision(nz);
    for (double x : nz) width_ = std::max(width_, body(x).size() + (int_mode_ ? 1 : 0));
  }

  size_t width() const { return width_; }

  std::string format(const Values& v, int64_t k) const {
    std::string s = raw(v, k);
    return s.size() < width_ ? std::string(width_ - s.size(), ' ') + s : s;
  }

 private:
  std::string body(double x) const {
    if (sci_) return format_fixed(x, precision_, 'e');
    if (int_mode_) return format_fixed(x, 0, 'f');
    return format_fixed(x, precision_, 'f');
  }
  std::string raw(const Values& v, int64_t k) const {
    if (!floating_) return v.boolean ? (v.i[k] ? "True" : "False") : std::to_string(v.i[k]);
    const double x = v.f[k];
    std::string s = body(x);
    if (int_mode_ && std::isfinite(x)) s += '.';
    return s;
  }
  // Concord's rule: formatting is monotone, so two different values share a
  // string only if neighbours in sorted order do; add digits until none do.
  void grow_precision(std::vector<double> nz) {
    std::sort(nz.begin(), nz.end());
    nz.erase(std::unique(nz.begin(), nz.end()), nz.end());
    if (int_mode_) return;   // distinct integers below 1e8 always differ
    auto collides = [&] {
      for (size_t j = 1; j < nz.size(); ++j)
        if (body(nz[j - 1]) == body(nz[j])) return true;
      return false;
    };
    while (precision_ < 30 && collides()) ++precision_;
  }

  bool floating_ = false, int_mode_ = true, sci_ = false;
  int precision_;
  size_t width_ = 1;
};

struct Printer {
  const Values& v;
  const Formatter& f;
  const PrintOptions& o;
  bool summarize;

  void vector(std::string& out, const Shape& shape, size_t dim, int64_t base, int64_t indent) const {
    const int64_t n = shape[dim];
    const int64_t per_line = std::max<int64_t>(1, (o.linewidth - indent) / static_cast<int64_t>(f.width() + 2));
    std::vector<std::string> items;
    for (int64_t k = 0; k < n; ++k) {
      if (summarize && n > 2 * o.edgeitems && k == o.edgeitems) {
        items.emplace_back(" ...");
        k = n - o.edgeitems;
      }
      items.push_back(f.format(v, base + k));
    }
    out += '[';
    for (size_t j = 0; j < items.size(); ++j) {
      if (j > 0) out += j % per_line == 0 ? ",\n" + std::string(indent + 1, ' ') : ", ";
      out += items[j];
    }
    out += ']';
  }

  void tensor(std::string& out, const Shape& shape, size_t dim, int64_t base, int64_t indent) const {
    const size_t left = shape.size() - dim;
    if (left == 0) { out += f.format(v, base); return; }
    if (left == 1) { vector(out, shape, dim, base, indent); return; }
    int64_t block = 1;
    for (size_t d = dim + 1; d < shape.size(); ++d) block *= shape[d];
    const std::string sep = "," + std::string(left - 1, '\n') + std::string(indent + 1, ' ');
    const int64_t n = shape[dim];
    out += '[';
    for (int64_t k = 0; k < n; ++k) {
      if (k > 0) out += sep;
      if (summarize && n > 2 * o.edgeitems && k == o.edgeitems) {
        out += "..." + sep;
        k = n - o.edgeitems;
      }
      tensor(out, shape, dim + 1, base + k * block, indent + 1);
    }
    out += ']';
  }
};

}  // namespace

void set_print_options(const PrintOptions& o) {
  if (o.precision < 0 || o.precision > 30 || o.threshold < 0 || o.edgeitems < 1 || o.linewidth < 1)
    throw ValueError("[set_print_options] precision " + std::to_string(o.precision) + ", threshold " +
                     std::to_string(o.threshold) + ", edgeitems " + std::to_string(o.edgeitems) + ", linewidth " +
                     std::to_string(o.linewidth) + ": precision must be in [0, 30], threshold >= 0, edgeitems >= 1 "
                     "and linewidth >= 1");
  std::lock_guard<std::mutex> lock(g_options_mutex);
  g_options = o;
}

PrintOptions print_options() {
  std::lock_guard<std::mutex> lock(g_options_mutex);
  return g_options;
}

void reset_print_options() { set_print_options(PrintOptions{}); }

std::string Tensor::str() const {
  if (!defined()) return "tensor(undefined)";
  const PrintOptions o = print_options();
  std::string out = "tensor(";
  if (numel_ == 0) {
    out += "[]";
  } else {
    Values v;
    v.floating = is_floating(dtype_);
    v.boolean = dtype_ == bool_;
    if (v.floating) v.f = to_vector<double>();
    else v.i = to_vector<int64_t>();
    const bool summarize = numel_ > o.threshold;
    std::vector<int64_t> printed;
    printed_indices(shape_, 0, 0, summarize, o.edgeitems, printed);
    const Formatter f(v, printed, o);
    Printer{v, f, o, summarize}.tensor(out, shape_, 0, 0, 7);
  }
  out += ", dtype=";
  out += name(dtype_);
  if (numel_ == 0 || ndim() != 1) out += ", shape=" + shape_str(shape_);
  if (!device().is_cpu()) out += ", device=" + device().str();
  out += ")";
  return out;
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << t.str(); }
std::ostream& operator<<(std::ostream& os, Dtype t) { return os << name(t); }
std::ostream& operator<<(std::ostream& os, const Shape& s) { return os << shape_str(s); }

}  // namespace concord
