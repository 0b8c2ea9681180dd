// concord/tensor.h — the Tensor: shared storage + shape, strides, offset, dtype, device.
//
// Views (reshape/view when possible, permute, transpose, slice, narrow,
// expand, squeeze, unsqueeze, flatten, select) share storage with the tensor
// they come from; writing through one is visible through the other. Strides
// are in elements. Every op accepts non-contiguous views.
//
//   auto x = concord::arange(0, 12).reshape({3, 4});
//   auto c = x.transpose(0, 1);          // a view, shape [4, 3]
//   auto d = c.contiguous();             // a copy, row-major
//   double v = x.to(concord::float64).item<double>();  // throws: not a single element
//   auto host = x.to_vector<int64_t>();  // 0..11
//   auto s = x.sum({1}, true);           // the ops of ops.h as methods
//   using namespace concord::indexing;
//   auto r = x.index({Slice(1, None), -1});   // x[1:, -1], a view (indexing.h)
//   x.index_put_({0, Slice()}, 7);       // x[0, :] = 7
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "concord/device.h"
#include "concord/dtype.h"
#include "concord/error.h"
#include "concord/indexing.h"
#include "concord/scalar.h"
#include "concord/shape.h"

namespace concord {

using Dims = SmallVec<int64_t, 6>;
struct ValuesIndices;

namespace detail {
// Device memory. For cpu and emu, ptr is a host pointer; for opencl it is a cl_mem.
struct Storage {
  void* ptr = nullptr;
  size_t nbytes = 0;
  Device device;
  void (*release)(Storage&) = nullptr;  // set by the allocating backend
  Storage() = default;
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
  ~Storage() { if (release) release(*this); }
};
}  // namespace detail

class Tensor {
 public:
  Tensor() = default;  // an undefined tensor; most calls on it throw
  Tensor(std::shared_ptr<detail::Storage> storage, Shape shape, Strides strides, int64_t offset, Dtype dtype);

  bool defined() const { return storage_ != nullptr; }
  const Shape& shape() const { return shape_; }
  const Strides& strides() const { return strides_; }
  int64_t offset() const { return offset_; }
  int64_t ndim() const { return static_cast<int64_t>(shape_.size()); }
  int64_t dim() const { return ndim(); }
  int64_t size(int64_t dim) const;      // negative dims count from the end
  int64_t stride(int64_t dim) const;
  int64_t numel() const { return numel_; }
  size_t nbytes() const { return static_cast<size_t>(numel_) * itemsize(dtype_); }
  Dtype dtype() const { return dtype_; }
  Device device() const;
  bool is_contiguous() const;

  // --- views (share storage) ---
  Tensor view(Shape shape) const;        // throws ShapeError if strides do not allow it; one dim may be -1
  Tensor reshape(Shape shape) const;     // a view when possible, else a copy
  Tensor permute(Shape dims) const;
  Tensor transpose(int64_t d0, int64_t d1) const;
  Tensor t() const;                      // transpose of a 2-D tensor (1-D and 0-D unchanged)
  Tensor slice(int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step = 1) const;  // Python semantics, clamped
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor select(int64_t dim, int64_t index) const;  // removes dim
  Tensor expand(Shape shape) const;      // -1 keeps a size; new leading dims allowed
  Tensor broadcast_to(Shape shape) const { return expand(std::move(shape)); }
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;

  // --- copies ---
  Tensor contiguous() const;             // self if already contiguous
  Tensor clone() const;
  Tensor to(Dtype dtype) const;          // self if same dtype
  Tensor to(const Device& device) const; // follows the dtype policy for the target device
  // Converted where the data lives when that device holds dtype, then moved
  // (no downcast when dtype is one the target has); else moved, then converted.
  Tensor to(const Device& device, Dtype dtype) const;
  // Copies src (broadcast to this shape, any dtype, any device) into this tensor, in place.
  Tensor& copy_(const Tensor& src);

  // --- host access ---
  template <class T> T item() const;                 // single element, converted to T
  template <class T> std::vector<T> to_vector() const;  // all elements in row-major order, converted to T
  std::string str() const;                           // readable printing (PyTorch-like)

  // --- the common ops as methods: each is the free function of ops.h of the
  // same name applied to this tensor (a.sum({1}, true) is sum(a, {1}, true)),
  // with the same contract, errors and report entries. ---
  Tensor sum(Dims dims = {}, bool keepdim = false) const;
  Tensor mean(Dims dims = {}, bool keepdim = false) const;
  Tensor prod(Dims dims = {}, bool keepdim = false) const;
  Tensor amax(Dims dims = {}, bool keepdim = false) const;
  Tensor amin(Dims dims = {}, bool keepdim = false) const;
  Tensor max() const;
  Tensor min() const;
  ValuesIndices max(int64_t dim, bool keepdim = false) const;   // ValuesIndices: concord/ops.h
  ValuesIndices min(int64_t dim, bool keepdim = false) const;
  Tensor argmax(std::optional<int64_t> dim = {}, bool keepdim = false) const;
  Tensor argmin(std::optional<int64_t> dim = {}, bool keepdim = false) const;
  Tensor var(Dims dims = {}, int64_t correction = 1, bool keepdim = false) const;
  Tensor std(Dims dims = {}, int64_t correction = 1, bool keepdim = false) const;
  Tensor norm(double p = 2.0, Dims dims = {}, bool keepdim = false) const;
  Tensor all(Dims dims = {}, bool keepdim = false) const;
  Tensor any(Dims dims = {}, bool keepdim = false) const;
  Tensor softmax(int64_t dim) const;
  Tensor log_softmax(int64_t dim) const;
  Tensor cumsum(int64_t dim) const;
  Tensor matmul(const Tensor& other) const;
  Tensor mm(const Tensor& other) const;
  Tensor mv(const Tensor& vec) const;
  Tensor dot(const Tensor& other) const;
  Tensor neg() const;
  Tensor abs() const;
  Tensor sign() const;
  Tensor exp() const;
  Tensor log() const;
  Tensor sqrt() const;
  Tensor rsqrt() const;
  Tensor sin() const;
  Tensor cos() const;
  Tensor tanh() const;
  Tensor sigmoid() const;
  Tensor relu() const;
  Tensor floor() const;
  Tensor ceil() const;
  Tensor round() const;
  Tensor reciprocal() const;
  Tensor logical_not() const;
  Tensor pow(Scalar exponent) const;
  Tensor clamp(std::optional<Scalar> lo, std::optional<Scalar> hi) const;
  Tensor flip(Dims dims) const;

  // --- in place (each returns *this; an error leaves the tensor untouched) ---
  Tensor& fill_(Scalar value);   // value converted to the dtype (1.5 into int32 gives 1), as PyTorch
  Tensor& zero_();

  // --- indexing (concord/indexing.h) ---
  // a.index({Slice(1, None, 2), 3, Ellipsis, None}) is a[1::2, 3, ..., None]: a view.
  Tensor index(std::initializer_list<indexing::TensorIndex> idx) const;
  // a[idx] = value: value (a number, or a tensor broadcasting to a.index(idx)'s
  // shape, any dtype and device) is converted to this dtype and copied in.
  Tensor& index_put_(std::initializer_list<indexing::TensorIndex> idx, Scalar value);
  Tensor& index_put_(std::initializer_list<indexing::TensorIndex> idx, const Tensor& value);
  // The same with terms built at run time (bindings): index(std::vector{...}).
  Tensor index(const std::vector<indexing::TensorIndex>& idx) const;
  Tensor& index_put_(const std::vector<indexing::TensorIndex>& idx, Scalar value);
  Tensor& index_put_(const std::vector<indexing::TensorIndex>& idx, const Tensor& value);
  // Where mask (bool, broadcasting to this shape, on this device) is true,
  // value; value is converted to this dtype (a tensor value must be 0-dim).
  Tensor& masked_fill_(const Tensor& mask, Scalar value);
  Tensor& masked_fill_(const Tensor& mask, const Tensor& value);
  // One element, converted to T, on any device (one element is copied):
  //   double v = a.item<double>({1, 2});   // a[1, 2]
  template <class T> T item(std::initializer_list<int64_t> idx) const { return index_element(idx).item<T>(); }
  // A reference to one element in host memory, for small tensors on the CPU
  // (or emu): T must be the dtype, as for data<T>(); an index out of range
  // raises ShapeError, a device tensor DeviceError (use item<T>({i, j}) there).
  //   a.at<float>(0, 1) = 2.5f;
  template <class T, class... I> T& at(I... idx) const {
    const int64_t off = element_offset({static_cast<int64_t>(idx)...});
    return data<T>()[off];
  }

  // --- internals (for kernels) ---
  const std::shared_ptr<detail::Storage>& storage() const { return storage_; }
  // Host pointer to the first element (cpu and emu only; unchecked).
  void* raw_data() const { return static_cast<char*>(storage_->ptr) + offset_ * static_cast<int64_t>(itemsize(dtype_)); }
  // Typed host pointer to the first element (walk it with strides(); it stays
  // valid while a tensor holds the storage). Checked: T must be the tensor's
  // dtype (else DtypeError: call to_vector<T>() for a converted copy, or
  // .to(dtype) first) and the memory must be host memory, cpu or emu (else
  // DeviceError: call .to(kCPU) or to_vector<T>()). An undefined tensor
  // raises ValueError.
  //   auto x = concord::ones({3});                 // float32 on cpu
  //   float* p = x.data<float>();                  // fine
  //   x.data<double>();                            // DtypeError
  template <class T> T* data() const {
    if (!(storage_ && dtype_ == dtype_v<T> && storage_->device.is_cpu())) check_data(dtype_v<T>);
    return reinterpret_cast<T*>(raw_data());
  }

 private:
  Tensor index_element(std::initializer_list<int64_t> idx) const;       // a 0-dim view
  int64_t element_offset(std::initializer_list<int64_t> idx) const;     // in elements from data<T>()
  void check_data(Dtype want) const;  // throws unless data<T>() is valid for T's dtype `want`
  std::shared_ptr<detail::Storage> storage_;
  Shape shape_;
  Strides strides_;
  int64_t offset_ = 0;
  int64_t numel_ = 0;
  Dtype dtype_ = Dtype::float32;
};

std::ostream& operator<<(std::ostream& os, const Tensor& t);

// The result of max/min along a dim: the values and their int64 indices.
struct ValuesIndices { Tensor values, indices; };

namespace detail {
// data<T>() without its checks, for kernels that have already dispatched on
// the dtype and the device (src/backend/cpu).
template <class T> T* host_data(const Tensor& t) { return reinterpret_cast<T*>(t.raw_data()); }
// Copies all elements to host memory as T (row-major).
void to_host_as(const Tensor& t, Dtype as, void* dst);
}

template <class T> std::vector<T> Tensor::to_vector() const {
  std::vector<T> out(static_cast<size_t>(numel_));
  if constexpr (std::is_same_v<T, bool>) {
    std::vector<uint8_t> tmp(out.size());
    detail::to_host_as(*this, Dtype::bool_, tmp.data());
    for (size_t i = 0; i < out.size(); ++i) out[i] = tmp[i] != 0;
  } else {
    detail::to_host_as(*this, dtype_v<T>, out.data());
  }
  return out;
}

template <class T> T Tensor::item() const {
  if (numel_ != 1)
    throw ShapeError("[item] tensor of shape " + shape_str(shape_) + " has " + std::to_string(numel_) +
                     " elements; item() needs exactly one. Index or reduce first.");
  return to_vector<T>()[0];
}

}  // namespace concord
