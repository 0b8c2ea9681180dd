// nn::linear and nn::Linear: the linear op (x · weightᵀ + bias) with PyTorch's initialisation.
#include <cmath>
#include <string>

#include "concord/nn.h"

namespace concord::nn {

namespace {

// U[-bound, bound) in float64 on the host, then one rounding to dtype on device.
Tensor uniform(Shape shape, double bound, Dtype dtype, const Device& device, std::optional<uint64_t> seed) {
  Tensor u = rand(shape, float64, kCPU, seed);
  return sub(mul(u, 2.0 * bound), bound).to(device, dtype);
}

}  // namespace

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

std::vector<std::pair<std::string, Tensor>> Linear::named_parameters() const {
  std::vector<std::pair<std::string, Tensor>> out{{"weight", weight_}};
  if (bias_.defined()) out.emplace_back("bias", bias_);
  return out;
}

std::map<std::string, Tensor> Linear::state_dict() const {
  std::map<std::string, Tensor> m;
  for (auto& [n, t] : named_parameters()) m.emplace(n, t);
  return m;
}

void Linear::load_state_dict(const std::map<std::string, Tensor>& state) {
  auto want = state_dict();  // handles sharing the layer's storage
  const std::string layer = "Linear(" + std::to_string(in_) + ", " + std::to_string(out_) +
                            (bias_.defined() ? "" : ", bias=false") + ")";
  // Every check before the first write: a mismatch leaves the layer as it was.
  for (const auto& [k, t] : state)
    if (!want.count(k))
      throw ValueError("[load_state_dict] unexpected tensor '" + k + "' for a " + layer + ", which holds only " +
                       (bias_.defined() ? "'weight' and 'bias'" : "'weight'") + "; drop it or build the layer to match");
  for (const auto& [k, t] : want) {
    const auto it = state.find(k);
    if (it == state.end())
      throw ValueError("[load_state_dict] no tensor '" + k + "' for a " + layer + "; pass the layer's state_dict()");
    if (!(it->second.shape() == t.shape()))
      throw ShapeError("[load_state_dict] '" + k + "' has shape " + shape_str(it->second.shape()) + " but the " + layer +
                       "'s is " + shape_str(t.shape()) + "; build the layer with the saved sizes");
    if (!is_floating(it->second.dtype()))
      throw DtypeError("[load_state_dict] '" + k + "' is " + std::string(name(it->second.dtype())) +
                       "; a Linear layer's parameters are floating");
  }
  for (auto& [k, t] : want) t.copy_(state.at(k));  // in place
}

std::vector<Tensor> Linear::parameters() const {
  std::vector<Tensor> out;
  for (auto& [n, t] : named_parameters()) out.push_back(t);
  return out;
}

}  // namespace concord::nn
