// Shape helpers: element counts with overflow checks, strides, broadcasting.
#include "concord/shape.h"

#include "concord/error.h"

namespace concord {

int64_t numel(std::span<const int64_t> shape) {
  int64_t n = 1;
  for (int64_t s : shape) {
    if (s < 0) throw ShapeError("[shape] negative size in shape " + shape_str(shape) + "; sizes must be >= 0");
    if (__builtin_mul_overflow(n, s, &n))
      throw ShapeError("[shape] the element count of shape " + shape_str(shape) +
                       " overflows int64; use smaller sizes");
  }
  return n;
}

Strides contiguous_strides(std::span<const int64_t> shape) {
  Strides st(shape.size());
  int64_t acc = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    st[i] = acc;
    acc *= shape[i] > 0 ? shape[i] : 1;
  }
  return st;
}

std::string shape_str(std::span<const int64_t> shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

Shape broadcast_shapes(std::span<const int64_t> a, std::span<const int64_t> b, const char* op) {
  const size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1)
      throw ShapeError(std::string("[") + op + "] shapes " + shape_str(a) + " and " + shape_str(b) +
                       " cannot be broadcast together (dim " + std::to_string(i) + ": " + std::to_string(da) +
                       " vs " + std::to_string(db) + "); make the sizes equal or 1");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op) {
  const int64_t n = ndim > 0 ? ndim : 1;  // a 0-dim tensor accepts dim 0 and -1
  if (dim < -n || dim >= n)
    throw ShapeError(std::string("[") + op + "] dim " + std::to_string(dim) + " is out of range for a tensor with " +
                     std::to_string(ndim) + " dims; use a dim in [" + std::to_string(-n) + ", " +
                     std::to_string(n - 1) + "]");
  return dim < 0 ? dim + n : dim;
}

}  // namespace concord
