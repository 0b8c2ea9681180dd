// concord/nn.h — layers and loops built from concord ops (no autograd).
//
// Everything here is composed of the public ops, so it runs on every device
// and dtype those ops do, follows the dtype and fallback policies, shows up op
// by op in report(), and obeys autocast scopes.
//
//   concord::nn::Linear lin(64, 32, true, concord::float32, "opencl:0", /*seed=*/7);
//   auto y = lin(x);                                    // x [..., 64] -> y [..., 32]
//
//   concord::nn::SpectralNorm sn(lin.weight());         // W / sigma_max(W), estimated
//   auto w = sn();                                      // one power iteration (training)
//
//   auto [h, ys] = concord::nn::scan(
//       [&](const Tensor& h, const Tensor& x) {
//         auto n = concord::tanh(lin(x) + h);
//         return std::pair{n, n};
//       },
//       h0, xs);                                        // xs [T, ..., 64] -> ys [T, ..., 32]
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "concord/creation.h"
#include "concord/ops.h"
#include "concord/tensor.h"

namespace concord::nn {

// y = x · weightᵀ + bias for x [..., in], weight [out, in], bias [out] (or
// undefined for none): concord::linear (ops.h), one op with the bias folded
// into the product. Operands need the weight's device and dtype. Inside an
// autocast scope float32 operands (bias included) run in the lower dtype with
// float32 accumulation and one rounding, so the result has the lower dtype,
// as PyTorch's linear.
using concord::linear;

class Linear {
 public:
  // weight [out, in] and bias [out] drawn uniformly from [-1/sqrt(in), 1/sqrt(in))
  // (PyTorch's default initialisation): rand(..., float64, cpu, seed) for the
  // weight and seed + 1 for the bias, scaled on the host in float64, then
  // rounded once to dtype and moved to device. The same seed gives the same
  // layer on every device. Without a seed the global generator is used.
  // dtype must be floating (DtypeError); in and out must be positive (ValueError).
  Linear(int64_t in_features, int64_t out_features, bool bias = true, Dtype dtype = float32,
         const Device& device = kCPU, std::optional<uint64_t> seed = {});

  Tensor forward(const Tensor& x) const { return linear(x, weight_, bias_); }
  Tensor operator()(const Tensor& x) const { return forward(x); }

  // The parameters (shared storage: writing into them changes the layer).
  // All accessors are const: they hand out the tensors, never a way to
  // rebind them, so a const Linear keeps its parameters' shapes and dtypes.
  const Tensor& weight() const { return weight_; }
  const Tensor& bias() const { return bias_; }  // undefined without bias
  // In a fixed order: "weight", then "bias" (absent without bias), as
  // PyTorch's named_parameters(); parameters() is the same tensors.
  //   for (const auto& [name, p] : lin.named_parameters()) std::cout << name << " " << p.shape() << "\n";
  std::vector<std::pair<std::string, Tensor>> named_parameters() const;
  std::vector<Tensor> parameters() const;
  // The parameters by name ("weight", "bias"), sharing storage, as PyTorch's
  // state_dict(); save_safetensors(path, lin.state_dict()) writes them
  // (nn::save in io.h does). load_state_dict copies each into the layer in
  // place, converted to its dtype and moved to its device. A missing or
  // extra name (ValueError), another shape (ShapeError) or a non-floating
  // tensor (DtypeError) raises before anything is written: the layer is
  // left as it was.
  //   lin.load_state_dict(concord::load_safetensors("lin.safetensors"));
  std::map<std::string, Tensor> state_dict() const;
  void load_state_dict(const std::map<std::string, Tensor>& state);
  int64_t in_features() const { return in_; }
  int64_t out_features() const { return out_; }

 private:
  int64_t in_, out_;
  Tensor weight_, bias_;
};

// Spectral normalisation of a weight, as PyTorch's
// torch.nn.utils.parametrizations.spectral_norm: forward() returns
// weight / sigma, sigma the largest singular value of the weight viewed as a
// matrix W [h, w] (dim `dim` first, the rest flattened), estimated by power
// iteration with normalize(t) = t / max(‖t‖₂, eps):
//   u = normalize(W v), v = normalize(Wᵀ u)      (per iteration)
//   sigma = dot(u, W v)
// At construction u [h] and v [w] are the first h and the next w values of
// randn([h + w], float64, cpu, seed), rounded to the weight's dtype, moved to
// its device and normalised; then 15 iterations run. forward() in training
// mode (the default) runs n_power_iterations first; in eval mode none.
// All steps run in the weight's dtype with concord ops (mv, dot and norm
// accumulate in float32 for float16/bfloat16), on the weight's device.
// A 1-D weight is simply normalize(weight). The weight is held by reference
// (shared storage), so updates to it are seen by the next forward().
// Errors: a 0-dim or non-floating weight, n_power_iterations <= 0, a dim out
// of range or eps <= 0 raise ValueError/DtypeError/ShapeError.
class SpectralNorm {
 public:
  explicit SpectralNorm(const Tensor& weight, int64_t n_power_iterations = 1, int64_t dim = 0, double eps = 1e-12,
                        std::optional<uint64_t> seed = {});

  Tensor forward();
  Tensor operator()() { return forward(); }

  void train(bool on = true) { training_ = on; }
  void eval() { training_ = false; }
  bool training() const { return training_; }

  const Tensor& weight() const { return weight_; }
  // The one parameter, {"weight", weight} (the tensor it normalises, shared);
  // the estimates are buffers, {"_u", u}, {"_v", v} as PyTorch names them
  // (none for a 1-D weight).
  std::vector<std::pair<std::string, Tensor>> named_parameters() const;
  std::vector<Tensor> parameters() const;
  std::vector<std::pair<std::string, Tensor>> named_buffers() const;
  // The current estimates, PyTorch's _u [h] and _v [w] buffers (undefined for
  // a 1-D weight). Each iteration makes new tensors: a reference read here
  // keeps the value it had.
  const Tensor& u() const { return u_; }
  const Tensor& v() const { return v_; }
  // Sets the estimates as they are (not normalised), to continue from a known
  // state such as a PyTorch model's _u and _v: the values are copied, rounded
  // once to the weight's dtype and moved to its device (any source device and
  // floating dtype; float64 host data is converted on the host). The next
  // forward() starts its iterations from them (eval mode: sigma = dot(u, W v)
  // directly).
  //   sn.eval(); sn.set_u(u_from_torch); sn.set_v(v_from_torch);
  //   auto w = sn();                      // weight / dot(u, W v)
  // Errors, leaving the module unchanged: a 1-D weight (ValueError: it has no
  // u, v), an undefined or non-floating tensor (ValueError/DtypeError), a
  // shape other than [h] / [w] (ShapeError).
  void set_u(const Tensor& u);
  void set_v(const Tensor& v);
  // W [h, w] as the iteration sees it (a view of the weight when possible).
  Tensor weight_matrix() const;

 private:
  void power_method(const Tensor& w, int64_t iterations);
  Tensor normalize(const Tensor& t) const;
  Tensor checked_estimate(const Tensor& t, const char* which, int64_t size) const;

  Tensor weight_, u_, v_;
  int64_t iterations_, dim_;
  double eps_;
  bool training_ = true;
};

// scan(fn, init, xs): a loop over the leading dim of xs, carrying a state.
//   carry = init
//   for t in 0 .. T-1:  (carry, y_t) = fn(carry, xs[t])
//   return {carry, stack(y_0 .. y_{T-1})}
// xs[t] is a view (select(0, t)); the steps run one after another with
// exactly the ops fn calls, so the result has the same bits as the same loop
// written by hand, on every device. fn may return an undefined y_t at every
// step (then ys is undefined). T = 0, a 0-dim xs, or (for several xs)
// different leading sizes raise ShapeError; fn's errors propagate unchanged.
struct ScanResult {
  Tensor carry;
  Tensor ys;
};
using ScanFn = std::function<std::pair<Tensor, Tensor>(const Tensor& carry, const Tensor& x)>;
using ScanFnMulti = std::function<std::pair<Tensor, Tensor>(const Tensor& carry, const std::vector<Tensor>& x)>;

ScanResult scan(const ScanFn& fn, const Tensor& init, const Tensor& xs);
// Several sequences of one length T: fn gets xs[0][t], xs[1][t], ...
ScanResult scan(const ScanFnMulti& fn, const Tensor& init, const std::vector<Tensor>& xs);

}  // namespace concord::nn
