// Views: new shape/strides/offset over the same storage. No data moves here
// (reshape copies only when no view can express the result).
#include "concord/tensor.h"

#include <algorithm>

namespace concord {

namespace {
std::string desc(const Tensor& t) { return std::string(name(t.dtype())) + shape_str(t.shape()); }

// Resolves one -1 and checks the element count.
Shape infer_shape(const char* op, const Tensor& t, Shape shape) {
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (infer >= 0) throw ShapeError(std::string("[") + op + "] only one dim may be -1 in " + shape_str(shape));
      infer = static_cast<int64_t>(i);
    } else if (shape[i] < 0) {
      throw ShapeError(std::string("[") + op + "] invalid size " + std::to_string(shape[i]) + " in " + shape_str(shape));
    } else if (__builtin_mul_overflow(known, shape[i], &known)) {
      throw ShapeError(std::string("[") + op + "] the element count of " + shape_str(shape) + " overflows int64");
    }
  }
  if (infer >= 0) {
    if (known == 0 || t.numel() % known != 0)
      throw ShapeError(std::string("[") + op + "] cannot infer the -1 in " + shape_str(shape) + " for " + desc(t) +
                       " (" + std::to_string(t.numel()) + " elements)");
    shape[infer] = t.numel() / known;
  } else if (known != t.numel()) {
    throw ShapeError(std::string("[") + op + "] shape " + shape_str(shape) + " has " + std::to_string(known) +
                     " elements but " + desc(t) + " has " + std::to_string(t.numel()) + "; the counts must match");
  }
  return shape;
}

// Strides for viewing (shape, strides) as new_shape without copying, if possible (PyTorch's computeStride).
bool view_strides(const Shape& shape, const Strides& strides, const Shape& new_shape, Strides* out) {
  const int64_t n = numel(shape);
  Strides ns(new_shape.size());
  // Empty and 0-dim tensors can take any shape with the same count.
  if (n == 0 || shape.empty()) { *out = contiguous_strides(new_shape); return true; }
  int64_t view_d = static_cast<int64_t>(new_shape.size()) - 1;
  int64_t chunk_base_stride = strides.size() ? strides.back() : 1;
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    tensor_numel *= shape[d];
    if (d == 0 || (shape[d - 1] != 1 && strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_shape[view_d] == 1)) {
        ns[view_d] = view_numel * chunk_base_stride;
        view_numel *= new_shape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (d > 0) {
        chunk_base_stride = strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return false;
  *out = ns;
  return true;
}
}  // namespace

Tensor Tensor::view(Shape shape) const {
  shape = infer_shape("view", *this, std::move(shape));
  Strides st;
  if (!view_strides(shape_, strides_, shape, &st))
    throw ShapeError("[view] cannot view " + desc(*this) + " (strides " + shape_str(strides_) + ") as " +
                     shape_str(shape) + " without copying; use reshape(), or contiguous() first");
  return Tensor(storage_, shape, st, offset_, dtype_);
}

Tensor Tensor::reshape(Shape shape) const {
  shape = infer_shape("reshape", *this, std::move(shape));
  Strides st;
  if (view_strides(shape_, strides_, shape, &st)) return Tensor(storage_, shape, st, offset_, dtype_);
  return contiguous().view(shape);
}

Tensor Tensor::permute(Shape dims) const {
  if (static_cast<int64_t>(dims.size()) != ndim())
    throw ShapeError("[permute] " + shape_str(dims) + " has " + std::to_string(dims.size()) + " dims but " + desc(*this) +
                     " has " + std::to_string(ndim()) + "; give each dim once");
  Shape s(dims.size());
  Strides st(dims.size());
  std::vector<bool> seen(dims.size(), false);
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = wrap_dim(dims[i], ndim(), "permute");
    if (seen[d]) throw ShapeError("[permute] dim " + std::to_string(d) + " repeats in " + shape_str(dims));
    seen[d] = true;
    s[i] = shape_[d];
    st[i] = strides_[d];
  }
  return Tensor(storage_, s, st, offset_, dtype_);
}

Tensor Tensor::transpose(int64_t d0, int64_t d1) const {
  if (ndim() == 0) return *this;
  d0 = wrap_dim(d0, ndim(), "transpose");
  d1 = wrap_dim(d1, ndim(), "transpose");
  Shape s = shape_;
  Strides st = strides_;
  std::swap(s[d0], s[d1]);
  std::swap(st[d0], st[d1]);
  return Tensor(storage_, s, st, offset_, dtype_);
}

Tensor Tensor::t() const {
  if (ndim() > 2) throw ShapeError("[t] expects a tensor with at most 2 dims, got " + desc(*this) + "; use transpose(d0, d1)");
  return ndim() < 2 ? *this : transpose(0, 1);
}

Tensor Tensor::slice(int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step) const {
  if (ndim() == 0) throw ShapeError("[slice] cannot slice a 0-dim tensor " + desc(*this));
  dim = wrap_dim(dim, ndim(), "slice");
  if (step <= 0) throw ValueError("[slice] step must be positive, got " + std::to_string(step) + "; use flip() to reverse");
  const int64_t n = shape_[dim];
  auto clampi = [n](int64_t v) { if (v < 0) v += n; return std::clamp<int64_t>(v, 0, n); };
  int64_t b = start ? clampi(*start) : 0;
  int64_t e = end ? clampi(*end) : n;
  if (e < b) e = b;
  Shape s = shape_;
  Strides st = strides_;
  s[dim] = (e - b + step - 1) / step;
  st[dim] = strides_[dim] * step;
  return Tensor(storage_, s, st, offset_ + b * strides_[dim], dtype_);
}

Tensor Tensor::narrow(int64_t dim, int64_t start, int64_t length) const {
  if (ndim() == 0) throw ShapeError("[narrow] cannot narrow a 0-dim tensor " + desc(*this));
  dim = wrap_dim(dim, ndim(), "narrow");
  const int64_t n = shape_[dim];
  if (start < 0) start += n;
  if (start < 0 || length < 0 || start > n || start + length > n)
    throw ShapeError("[narrow] start " + std::to_string(start) + " and length " + std::to_string(length) +
                     " do not fit dim " + std::to_string(dim) + " of size " + std::to_string(n) + " in " + desc(*this));
  return slice(dim, start, start + length);
}

Tensor Tensor::select(int64_t dim, int64_t index) const {
  if (ndim() == 0) throw ShapeError("[select] cannot index a 0-dim tensor " + desc(*this));
  dim = wrap_dim(dim, ndim(), "select");
  const int64_t n = shape_[dim];
  if (index < -n || index >= n)
    throw ShapeError("[select] index " + std::to_string(index) + " is out of range for dim " + std::to_string(dim) +
                     " of size " + std::to_string(n) + " in " + desc(*this));
  if (index < 0) index += n;
  Shape s = shape_;
  Strides st = strides_;
  s.erase(dim);
  st.erase(dim);
  return Tensor(storage_, s, st, offset_ + index * strides_[dim], dtype_);
}

Tensor Tensor::expand(Shape shape) const {
  if (shape.size() < shape_.size())
    throw ShapeError("[expand] cannot expand " + desc(*this) + " to fewer dims " + shape_str(shape));
  const size_t lead = shape.size() - shape_.size();
  Strides st(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i < lead) {
      if (shape[i] < 0) throw ShapeError("[expand] new leading dims need a size >= 0, got " + shape_str(shape));
      st[i] = 0;
      continue;
    }
    const int64_t have = shape_[i - lead];
    if (shape[i] == -1) shape[i] = have;
    if (have == shape[i]) {
      st[i] = strides_[i - lead];
    } else if (have == 1 && shape[i] >= 0) {
      st[i] = 0;
    } else {
      throw ShapeError("[expand] cannot expand " + desc(*this) + " to " + shape_str(shape) + ": dim " +
                       std::to_string(i) + " has size " + std::to_string(have) + " (only size-1 dims expand)");
    }
  }
  return Tensor(storage_, shape, st, offset_, dtype_);
}

Tensor Tensor::squeeze() const {
  Shape s;
  Strides st;
  for (size_t i = 0; i < shape_.size(); ++i)
    if (shape_[i] != 1) { s.push_back(shape_[i]); st.push_back(strides_[i]); }
  return Tensor(storage_, s, st, offset_, dtype_);
}

Tensor Tensor::squeeze(int64_t dim) const {
  if (ndim() == 0) return *this;
  dim = wrap_dim(dim, ndim(), "squeeze");
  if (shape_[dim] != 1) return *this;
  Shape s = shape_;
  Strides st = strides_;
  s.erase(dim);
  st.erase(dim);
  return Tensor(storage_, s, st, offset_, dtype_);
}

Tensor Tensor::unsqueeze(int64_t dim) const {
  dim = wrap_dim(dim, ndim() + 1, "unsqueeze");
  Shape s = shape_;
  Strides st = strides_;
  const int64_t stride = dim < ndim() ? strides_[dim] * shape_[dim] : 1;
  s.insert(dim, 1);
  st.insert(dim, stride);
  return Tensor(storage_, s, st, offset_, dtype_);
}

Tensor Tensor::flatten(int64_t start_dim, int64_t end_dim) const {
  if (ndim() == 0) return reshape({1});
  start_dim = wrap_dim(start_dim, ndim(), "flatten");
  end_dim = wrap_dim(end_dim, ndim(), "flatten");
  if (start_dim > end_dim)
    throw ShapeError("[flatten] start_dim " + std::to_string(start_dim) + " is after end_dim " + std::to_string(end_dim));
  Shape s;
  for (int64_t i = 0; i < start_dim; ++i) s.push_back(shape_[i]);
  int64_t m = 1;
  for (int64_t i = start_dim; i <= end_dim; ++i) m *= shape_[i];
  s.push_back(m);
  for (int64_t i = end_dim + 1; i < ndim(); ++i) s.push_back(shape_[i]);
  return reshape(s);
}

}  // namespace concord
