// Readable printing, PyTorch-like: tensor([[1., 2.], [3., 4.]], dtype=float64, device=emu:0)
#include <cmath>
#include <cstdio>
#include <ostream>
#include <sstream>

#include "concord/tensor.h"

namespace concord {

namespace {
std::string fmt_value(double v, Dtype t) {
  char buf[48];
  if (t == bool_) return v != 0 ? "True" : "False";
  if (!is_floating(t)) { std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v)); return buf; }
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == std::floor(v) && std::fabs(v) < 1e8) { std::snprintf(buf, sizeof buf, "%.0f.", v); return buf; }
  std::snprintf(buf, sizeof buf, "%.4g", v);
  std::string s = buf;
  return s;
}

void print_rec(std::ostringstream& os, const std::vector<double>& v, const Shape& shape, size_t dim, int64_t& pos,
               Dtype t, int indent) {
  if (dim == shape.size()) { os << fmt_value(v[pos++], t); return; }
  os << "[";
  const int64_t n = shape[dim];
  const bool elide = n > 8;
  for (int64_t i = 0; i < n; ++i) {
    if (elide && i == 3) {
      os << "...";
      // skip the middle block
      int64_t block = 1;
      for (size_t d = dim + 1; d < shape.size(); ++d) block *= shape[d];
      pos += (n - 6) * block;
      i = n - 3;
      os << (dim + 1 == shape.size() ? ", " : ",\n" + std::string(indent + 1, ' '));
    }
    print_rec(os, v, shape, dim + 1, pos, t, indent + 1);
    if (i + 1 < n) os << (dim + 1 == shape.size() ? ", " : ",\n" + std::string(indent + 1, ' '));
  }
  os << "]";
}
}  // namespace

std::string Tensor::str() const {
  if (!defined()) return "tensor(undefined)";
  std::vector<double> v = to_vector<double>();
  std::ostringstream os;
  os << "tensor(";
  int64_t pos = 0;
  print_rec(os, v, shape_, 0, pos, dtype_, 7);
  os << ", dtype=" << name(dtype_);
  if (numel_ == 0 || ndim() != 1) os << ", shape=" << shape_str(shape_);
  if (!device().is_cpu()) os << ", device=" << device().str();
  os << ")";
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << t.str(); }

}  // namespace concord
