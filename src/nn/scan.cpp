// nn::scan: the loop, exactly as it would be written by hand.
//
// The steps are not batched or reordered: step t runs fn on a select(0, t)
// view after step t-1 finished, so every op sees the inputs (and produces the
// bits) it would in the hand-written loop.
#include <string>

#include "concord/nn.h"
#include "core/dispatch.h"

namespace concord::nn {

namespace {

// The common leading size T of the sequences; ShapeError for none, a 0-dim one, T = 0 or different sizes.
int64_t steps_of(const std::vector<Tensor>& xs) {
  if (xs.empty()) throw ShapeError("[scan] xs is an empty list; pass at least one sequence [T, ...]");
  int64_t T = -1;
  for (size_t i = 0; i < xs.size(); ++i) {
    const Tensor& x = xs[i];
    if (!x.defined()) throw ValueError("[scan] sequence " + std::to_string(i) + " is undefined; create it first");
    const std::string w = detail::describe(x) + " on " + x.device().str();
    if (x.ndim() == 0)
      throw ShapeError("[scan] sequence " + std::to_string(i) + " is 0-dim (" + w +
                       "); scan runs over dim 0, so unsqueeze it to [1] or pass a sequence [T, ...]");
    if (x.size(0) == 0)
      throw ShapeError("[scan] sequence " + std::to_string(i) + " " + w + " has no steps (T = 0); pass at least "
                       "one step (the shape of ys is unknown without a step)");
    if (T < 0) {
      T = x.size(0);
    } else if (x.size(0) != T) {
      throw ShapeError("[scan] sequences have different lengths: sequence 0 has " + std::to_string(T) +
                       " steps and sequence " + std::to_string(i) + " " + w + " has " + std::to_string(x.size(0)) +
                       "; every sequence needs the same leading size");
    }
  }
  return T;
}

ScanResult finish(Tensor carry, std::vector<Tensor>& ys) {
  size_t defined = 0;
  for (const Tensor& y : ys) defined += y.defined() ? 1 : 0;
  if (defined == 0) return {std::move(carry), Tensor()};
  if (defined != ys.size())
    throw ValueError("[scan] fn returned an output at some steps and none at others (" + std::to_string(defined) +
                     " of " + std::to_string(ys.size()) + " steps); return a y_t at every step or at none");
  return {std::move(carry), stack(ys, 0)};
}

}  // namespace

ScanResult scan(const ScanFn& fn, const Tensor& init, const Tensor& xs) {
  const int64_t T = steps_of({xs});
  Tensor carry = init;
  std::vector<Tensor> ys;
  ys.reserve(static_cast<size_t>(T));
  for (int64_t t = 0; t < T; ++t) {
    auto [next, y] = fn(carry, xs.select(0, t));
    carry = std::move(next);
    ys.push_back(std::move(y));
  }
  return finish(std::move(carry), ys);
}

ScanResult scan(const ScanFnMulti& fn, const Tensor& init, const std::vector<Tensor>& xs) {
  const int64_t T = steps_of(xs);
  Tensor carry = init;
  std::vector<Tensor> ys;
  ys.reserve(static_cast<size_t>(T));
  std::vector<Tensor> step(xs.size());
  for (int64_t t = 0; t < T; ++t) {
    for (size_t i = 0; i < xs.size(); ++i) step[i] = xs[i].select(0, t);
    auto [next, y] = fn(carry, step);
    carry = std::move(next);
    ys.push_back(std::move(y));
  }
  return finish(std::move(carry), ys);
}

}  // namespace concord::nn
