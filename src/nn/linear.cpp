// nn::linear and nn::Linear: a matmul with the transposed weight plus a bias.
#include <cmath>
#include <string>

#include "concord/nn.h"
#include "core/dispatch.h"

namespace concord::nn {

namespace {

std::string on(const Tensor& t) { return detail::describe(t) + " on " + t.device().str(); }

void check_linear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  if (!x.defined() || !weight.defined())
    throw ValueError("[linear] the input or the weight is undefined (default-constructed); create it first");
  detail::common_device("linear", {&x, &weight, &bias});
  if (weight.ndim() != 2)
    throw ShapeError("[linear] the weight must be 2-D [out, in], got " + on(weight) + "; reshape it");
  if (x.ndim() == 0 || x.size(-1) != weight.size(1))
    throw ShapeError("[linear] input " + on(x) + " does not fit the weight " + on(weight) + ": its last dim must be " +
                     std::to_string(weight.size(1)) + " (in_features)");
  if (x.dtype() != weight.dtype())
    throw DtypeError("[linear] input " + on(x) + " and weight " + on(weight) + " have different dtypes; convert the "
                     "input with .to(concord::" + std::string(name(weight.dtype())) + ")");
  if (bias.defined() && !(bias.ndim() == 1 && bias.size(0) == weight.size(0)))
    throw ShapeError("[linear] the bias must be 1-D [" + std::to_string(weight.size(0)) + "] for the weight " +
                     on(weight) + ", got " + on(bias));
  if (bias.defined() && bias.dtype() != weight.dtype())
    throw DtypeError("[linear] bias " + on(bias) + " and weight " + on(weight) + " have different dtypes; convert "
                     "the bias with .to(concord::" + std::string(name(weight.dtype())) + ")");
}

// U[-bound, bound) in float64 on the host, then one rounding to dtype on device.
Tensor uniform(Shape shape, double bound, Dtype dtype, const Device& device, std::optional<uint64_t> seed) {
  Tensor u = rand(shape, float64, kCPU, seed);
  return sub(mul(u, 2.0 * bound), bound).to(device, dtype);
}

}  // namespace

Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  check_linear(x, weight, bias);
  Tensor y = matmul(x, weight.t());
  if (!bias.defined()) return y;
  // Under autocast y has the lower dtype: add the bias in it (as PyTorch's linear).
  return add(y, bias.dtype() == y.dtype() ? bias : bias.to(y.dtype()));
}

Linear::Linear(int64_t in_features, int64_t out_features, bool bias, Dtype dtype, const Device& device,
               std::optional<uint64_t> seed)
    : in_(in_features), out_(out_features) {
  if (in_features <= 0 || out_features <= 0)
    throw ValueError("[Linear] in_features and out_features must be positive, got " + std::to_string(in_features) +
                     " and " + std::to_string(out_features));
  if (!is_floating(dtype))
    throw DtypeError("[Linear] needs a floating dtype, got " + std::string(name(dtype)) + " for " + device.str() +
                     "; use float32 (or float16, bfloat16, float64)");
  const double bound = 1.0 / std::sqrt(static_cast<double>(in_features));
  weight_ = uniform(Shape{out_features, in_features}, bound, dtype, device, seed);
  if (bias) bias_ = uniform(Shape{out_features}, bound, dtype, device, seed ? std::optional<uint64_t>(*seed + 1) : seed);
}

}  // namespace concord::nn
