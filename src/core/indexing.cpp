// Tensor::index and the writes through it (index_put_, masked_fill_), and
// element access: all built from views, copy_ and where.
#include <string>

#include "concord/creation.h"
#include "concord/ops.h"
#include "concord/tensor.h"

namespace concord {

using indexing::TensorIndex;

namespace {
std::string desc(const Tensor& t) { return std::string(name(t.dtype())) + shape_str(t.shape()) + " on " + t.device().str(); }

// True if `from` broadcasts to exactly `to` (an in-place write cannot grow its target).
bool broadcasts_to(const Shape& from, const Shape& to) {
  if (from.size() > to.size()) return false;
  const size_t lead = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i)
    if (from[i] != 1 && from[i] != to[lead + i]) return false;
  return true;
}
}  // namespace

// Left to right over the terms, one view each; `dim` is the dim of the
// result the next term applies to. Ellipsis expands to the dims that the
// terms after it do not consume.
Tensor Tensor::index(std::initializer_list<TensorIndex> idx) const { return index(std::vector<TensorIndex>(idx)); }

Tensor Tensor::index(const std::vector<TensorIndex>& idx) const {
  if (!defined()) throw ValueError("[index] the tensor is undefined (default-constructed)");
  int64_t consumed = 0, ellipses = 0;
  for (const TensorIndex& i : idx) {
    if (i.kind() == TensorIndex::Kind::integer || i.kind() == TensorIndex::Kind::slice) ++consumed;
    if (i.kind() == TensorIndex::Kind::ellipsis) ++ellipses;
  }
  if (ellipses > 1) throw ValueError("[index] an index can hold only one Ellipsis, got " + std::to_string(ellipses));
  if (consumed > ndim())
    throw ShapeError("[index] too many indices for " + desc(*this) + ": " + std::to_string(consumed) +
                     " integers and slices for " + std::to_string(ndim()) + " dims");
  Tensor r = *this;
  int64_t dim = 0, term = 0;
  for (const TensorIndex& i : idx) {
    switch (i.kind()) {
      case TensorIndex::Kind::integer: {
        const int64_t n = r.size(dim);
        if (i.integer() < -n || i.integer() >= n)
          throw ShapeError("[index] index " + std::to_string(i.integer()) + " (term " + std::to_string(term) +
                           ") is out of range for dim " + std::to_string(dim) + " of size " + std::to_string(n) +
                           " in " + desc(*this) + "; valid: " + std::to_string(-n) + " .. " + std::to_string(n - 1));
        r = r.select(dim, i.integer());
        break;
      }
      case TensorIndex::Kind::slice: {
        const auto& s = i.slice();
        if (s.step() <= 0)
          throw ValueError("[index] slice step must be positive, got " + std::to_string(s.step()) + " (term " +
                           std::to_string(term) + ") for " + desc(*this) + "; use flip() to reverse");
        r = r.slice(dim, s.start(), s.stop(), s.step());
        ++dim;
        break;
      }
      case TensorIndex::Kind::none:
        r = r.unsqueeze(dim);
        ++dim;
        break;
      case TensorIndex::Kind::ellipsis:
        dim += ndim() - consumed;
        break;
    }
    ++term;
  }
  return r;
}

// A view, then copy_: copy_ converts the value's dtype, moves it from its
// device and broadcasts it, and checks everything before writing.
Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> idx, const Tensor& value) {
  return index_put_(std::vector<TensorIndex>(idx), value);
}

Tensor& Tensor::index_put_(const std::vector<TensorIndex>& idx, const Tensor& value) {
  if (!value.defined()) throw ValueError("[index_put_] the value tensor is undefined");
  Tensor dst = index(idx);
  if (!broadcasts_to(value.shape(), dst.shape()))
    throw ShapeError("[index_put_] the value " + desc(value) + " does not broadcast to the indexed shape " +
                     shape_str(dst.shape()) + " of " + desc(*this) + "; reshape the value or index differently");
  dst.copy_(value);
  return *this;
}

Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> idx, Scalar value) {
  return index_put_(std::vector<TensorIndex>(idx), value);
}

Tensor& Tensor::index_put_(const std::vector<TensorIndex>& idx, Scalar value) {
  Tensor dst = index(idx);
  dst.fill_(value);
  return *this;
}

Tensor& Tensor::masked_fill_(const Tensor& mask, const Tensor& value) {
  if (!defined()) throw ValueError("[masked_fill_] the tensor is undefined (default-constructed)");
  if (!mask.defined() || !value.defined()) throw ValueError("[masked_fill_] the mask or the value is undefined");
  if (mask.dtype() != bool_)
    throw DtypeError("[masked_fill_] the mask must be bool, got " + desc(mask) + " for " + desc(*this) +
                     "; make it with a comparison (x > 0) or .to(concord::bool_)");
  if (value.ndim() != 0)
    throw ShapeError("[masked_fill_] the value must be a 0-dim tensor, got " + desc(value) + " for " + desc(*this) +
                     "; use where(mask, values, x) for a tensor of values");
  if (!broadcasts_to(mask.shape(), shape_))
    throw ShapeError("[masked_fill_] the mask " + desc(mask) + " does not broadcast to the tensor " + desc(*this) +
                     "; an in-place op cannot grow its tensor");
  // The value in this dtype, as a 0-dim CPU tensor (it goes with any device):
  // where() then promotes to this dtype and nothing is written until it succeeded.
  const Tensor v = value.to(kCPU).to(dtype_);
  copy_(where(mask, v, *this));
  return *this;
}

Tensor& Tensor::masked_fill_(const Tensor& mask, Scalar value) { return masked_fill_(mask, scalar_tensor(value, dtype_, kCPU)); }

Tensor Tensor::index_element(std::initializer_list<int64_t> idx) const {
  if (!defined()) throw ValueError("[item] the tensor is undefined (default-constructed)");
  if (static_cast<int64_t>(idx.size()) != ndim())
    throw ShapeError("[item] " + std::to_string(idx.size()) + " indices for " + desc(*this) + "; give one per dim (" +
                     std::to_string(ndim()) + ")");
  Tensor r = *this;
  int64_t d = 0;
  for (int64_t i : idx) {
    const int64_t n = shape_[d];
    if (i < -n || i >= n)
      throw ShapeError("[item] index " + std::to_string(i) + " is out of range for dim " + std::to_string(d) +
                       " of size " + std::to_string(n) + " in " + desc(*this));
    r = r.select(0, i);
    ++d;
  }
  return r;
}

int64_t Tensor::element_offset(std::initializer_list<int64_t> idx) const {
  if (!defined()) throw ValueError("[at] the tensor is undefined (default-constructed)");
  if (static_cast<int64_t>(idx.size()) != ndim())
    throw ShapeError("[at] " + std::to_string(idx.size()) + " indices for " + desc(*this) + "; give one per dim (" +
                     std::to_string(ndim()) + ")");
  if (memory_space(storage_->device) != MemorySpace::host)
    throw DeviceError("[at] at<T>() reads host memory, but the tensor is " + desc(*this) +
                      "; use item<T>({i, j, ...}) to read one element, or .to(concord::kCPU) first");
  int64_t off = 0, d = 0;
  for (int64_t i : idx) {
    const int64_t n = shape_[d];
    if (i < -n || i >= n)
      throw ShapeError("[at] index " + std::to_string(i) + " is out of range for dim " + std::to_string(d) +
                       " of size " + std::to_string(n) + " in " + desc(*this));
    off += (i < 0 ? i + n : i) * strides_[d];
    ++d;
  }
  return off;
}

}  // namespace concord
