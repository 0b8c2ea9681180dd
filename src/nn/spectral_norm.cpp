// nn::SpectralNorm: PyTorch's spectral_norm parametrization with concord ops.
//
// Every step is an ordinary op in the weight's dtype on its device: mv, dot
// and norm accumulate in float32 for float16/bfloat16 and round once, which is
// what lets the float16 case run at all (and agree with a float64 reference).
#include <string>

#include "concord/nn.h"
#include "core/dispatch.h"

namespace concord::nn {

namespace {
constexpr int64_t kWarmupIterations = 15;

// Inside an autocast scope mv runs in the lower dtype; u and v stay in the
// weight's dtype (as PyTorch's buffers, written with out=). No-op otherwise.
Tensor as_dtype(const Tensor& t, Dtype dtype) { return t.dtype() == dtype ? t : t.to(dtype); }
}  // namespace

SpectralNorm::SpectralNorm(const Tensor& weight, int64_t n_power_iterations, int64_t dim, double eps,
                           std::optional<uint64_t> seed)
    : weight_(weight), iterations_(n_power_iterations), eps_(eps) {
  if (!weight.defined())
    throw ValueError("[SpectralNorm] the weight is undefined (default-constructed); create it first");
  const std::string w = detail::describe(weight) + " on " + weight.device().str();
  if (weight.ndim() == 0)
    throw ShapeError("[SpectralNorm] the weight must have at least 1 dim, got " + w);
  if (!is_floating(weight.dtype()))
    throw DtypeError("[SpectralNorm] needs a floating weight, got " + w + "; convert it with .to(concord::float32)");
  if (n_power_iterations <= 0)
    throw ValueError("[SpectralNorm] n_power_iterations must be positive, got " + std::to_string(n_power_iterations) +
                     " for " + w);
  if (!(eps > 0))
    throw ValueError("[SpectralNorm] eps must be positive, got " + std::to_string(eps) + " for " + w);
  dim_ = wrap_dim(dim, weight.ndim(), "SpectralNorm");
  if (weight.ndim() == 1) return;
  const Tensor m = weight_matrix();
  const int64_t h = m.size(0), wd = m.size(1);
  // One draw of h + w normals (host, float64): the same u, v on every device.
  const Tensor r = randn(Shape{h + wd}, float64, kCPU, seed).to(weight.device(), weight.dtype());
  u_ = normalize(r.narrow(0, 0, h));
  v_ = normalize(r.narrow(0, h, wd));
  power_method(m, kWarmupIterations);
}

Tensor SpectralNorm::weight_matrix() const {
  if (weight_.ndim() == 1) return weight_;
  Tensor w = weight_;
  if (dim_ != 0) {
    Shape perm{dim_};
    for (int64_t d = 0; d < w.ndim(); ++d)
      if (d != dim_) perm.push_back(d);
    w = w.permute(perm);
  }
  return w.reshape(Shape{w.size(0), -1});
}

// A copy of t for u or v: checked first, so a bad one leaves the module as it was.
Tensor SpectralNorm::checked_estimate(const Tensor& t, const char* which, int64_t size) const {
  const std::string op = std::string("[SpectralNorm.set_") + which + "] ";
  const std::string w = detail::describe(weight_) + " on " + weight_.device().str();
  if (weight_.ndim() == 1)
    throw ValueError(op + "a 1-D weight " + w + " is normalised directly and has no u, v; nothing to set");
  if (!t.defined()) throw ValueError(op + "got an undefined tensor; pass a [" + std::to_string(size) + "] tensor");
  const std::string got = detail::describe(t) + " on " + t.device().str();
  if (!is_floating(t.dtype()))
    throw DtypeError(op + "needs a floating tensor, got " + got + "; convert it with .to(concord::float32)");
  if (t.shape() != Shape{size})
    throw ShapeError(op + which + " must have shape [" + std::to_string(size) + "] for the weight " + w +
                     " viewed as " + shape_str(weight_matrix().shape()) + " (dim " + std::to_string(dim_) +
                     " first), got " + got);
  // A copy (clone when nothing converts or moves): later writes to t do not reach the module.
  Tensor r = t.to(weight_.device(), weight_.dtype());
  return r.storage() == t.storage() ? r.clone() : r;
}

void SpectralNorm::set_u(const Tensor& u) {
  u_ = checked_estimate(u, "u", weight_.ndim() == 1 ? 0 : weight_matrix().size(0));
}
void SpectralNorm::set_v(const Tensor& v) {
  v_ = checked_estimate(v, "v", weight_.ndim() == 1 ? 0 : weight_matrix().size(1));
}

// t / max(‖t‖₂, eps), the norm clamped in t's dtype (as F.normalize).
Tensor SpectralNorm::normalize(const Tensor& t) const { return div(t, clamp(norm(t), Scalar(eps_), std::nullopt)); }

void SpectralNorm::power_method(const Tensor& w, int64_t iterations) {
  const Tensor wt = w.t();
  for (int64_t i = 0; i < iterations; ++i) {
    u_ = as_dtype(normalize(mv(w, v_)), weight_.dtype());
    v_ = as_dtype(normalize(mv(wt, u_)), weight_.dtype());
  }
}

Tensor SpectralNorm::forward() {
  if (weight_.ndim() == 1) return normalize(weight_);
  const Tensor w = weight_matrix();
  if (training_) power_method(w, iterations_);
  const Tensor sigma = dot(u_, as_dtype(mv(w, v_), weight_.dtype()));
  return div(weight_, sigma);
}

std::vector<std::pair<std::string, Tensor>> SpectralNorm::named_parameters() const { return {{"weight", weight_}}; }

std::vector<Tensor> SpectralNorm::parameters() const { return {weight_}; }

std::vector<std::pair<std::string, Tensor>> SpectralNorm::named_buffers() const {
  if (!u_.defined()) return {};
  return {{"_u", u_}, {"_v", v_}};
}

}  // namespace concord::nn
