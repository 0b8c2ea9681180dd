// Tensor's op methods: one-line forwards to the free functions of ops.h (so
// tensor.h need not include ops.h, and each op keeps one front end), and the
// in-place fills.
#include "concord/creation.h"
#include "concord/ops.h"
#include "concord/tensor.h"

namespace concord {

Tensor Tensor::sum(Dims dims, bool keepdim) const { return concord::sum(*this, std::move(dims), keepdim); }
Tensor Tensor::mean(Dims dims, bool keepdim) const { return concord::mean(*this, std::move(dims), keepdim); }
Tensor Tensor::prod(Dims dims, bool keepdim) const { return concord::prod(*this, std::move(dims), keepdim); }
Tensor Tensor::amax(Dims dims, bool keepdim) const { return concord::amax(*this, std::move(dims), keepdim); }
Tensor Tensor::amin(Dims dims, bool keepdim) const { return concord::amin(*this, std::move(dims), keepdim); }
Tensor Tensor::max() const { return concord::max(*this); }
Tensor Tensor::min() const { return concord::min(*this); }
ValuesIndices Tensor::max(int64_t dim, bool keepdim) const { return concord::max(*this, dim, keepdim); }
ValuesIndices Tensor::min(int64_t dim, bool keepdim) const { return concord::min(*this, dim, keepdim); }
Tensor Tensor::argmax(std::optional<int64_t> dim, bool keepdim) const { return concord::argmax(*this, dim, keepdim); }
Tensor Tensor::argmin(std::optional<int64_t> dim, bool keepdim) const { return concord::argmin(*this, dim, keepdim); }
Tensor Tensor::var(Dims dims, int64_t correction, bool keepdim) const {
  return concord::var(*this, std::move(dims), correction, keepdim);
}
Tensor Tensor::std(Dims dims, int64_t correction, bool keepdim) const {
  return concord::std(*this, std::move(dims), correction, keepdim);
}
Tensor Tensor::norm(double p, Dims dims, bool keepdim) const { return concord::norm(*this, p, std::move(dims), keepdim); }
Tensor Tensor::all(Dims dims, bool keepdim) const { return concord::all(*this, std::move(dims), keepdim); }
Tensor Tensor::any(Dims dims, bool keepdim) const { return concord::any(*this, std::move(dims), keepdim); }
Tensor Tensor::softmax(int64_t dim) const { return concord::softmax(*this, dim); }
Tensor Tensor::log_softmax(int64_t dim) const { return concord::log_softmax(*this, dim); }
Tensor Tensor::cumsum(int64_t dim) const { return concord::cumsum(*this, dim); }
Tensor Tensor::matmul(const Tensor& other) const { return concord::matmul(*this, other); }
Tensor Tensor::mm(const Tensor& other) const { return concord::mm(*this, other); }
Tensor Tensor::mv(const Tensor& vec) const { return concord::mv(*this, vec); }
Tensor Tensor::dot(const Tensor& other) const { return concord::dot(*this, other); }
Tensor Tensor::neg() const { return concord::neg(*this); }
Tensor Tensor::abs() const { return concord::abs(*this); }
Tensor Tensor::sign() const { return concord::sign(*this); }
Tensor Tensor::exp() const { return concord::exp(*this); }
Tensor Tensor::log() const { return concord::log(*this); }
Tensor Tensor::sqrt() const { return concord::sqrt(*this); }
Tensor Tensor::rsqrt() const { return concord::rsqrt(*this); }
Tensor Tensor::sin() const { return concord::sin(*this); }
Tensor Tensor::cos() const { return concord::cos(*this); }
Tensor Tensor::tanh() const { return concord::tanh(*this); }
Tensor Tensor::sigmoid() const { return concord::sigmoid(*this); }
Tensor Tensor::relu() const { return concord::relu(*this); }
Tensor Tensor::floor() const { return concord::floor(*this); }
Tensor Tensor::ceil() const { return concord::ceil(*this); }
Tensor Tensor::round() const { return concord::round(*this); }
Tensor Tensor::reciprocal() const { return concord::reciprocal(*this); }
Tensor Tensor::logical_not() const { return concord::logical_not(*this); }
Tensor Tensor::pow(Scalar exponent) const { return concord::pow(*this, exponent); }
Tensor Tensor::clamp(std::optional<Scalar> lo, std::optional<Scalar> hi) const { return concord::clamp(*this, lo, hi); }
Tensor Tensor::flip(Dims dims) const { return concord::flip(*this, std::move(dims)); }

// A 0-dim tensor of the value in this dtype, broadcast by copy_: the value is
// converted once on the host (as PyTorch's fill_), and nothing is written
// before every check has passed.
Tensor& Tensor::fill_(Scalar value) {
  if (!defined()) throw ValueError("[fill_] the tensor is undefined (default-constructed); create it with empty/zeros/... first");
  return copy_(scalar_tensor(value, dtype_, kCPU));
}

Tensor& Tensor::zero_() { return fill_(0); }

}  // namespace concord
