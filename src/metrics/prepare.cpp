// Validation of metric inputs. Everything that can fail is checked here,
// before any count changes, so a throwing update() leaves the metric as it was.
#include <cmath>
#include <limits>
#include <string>

#include "concord/ops.h"
#include "core/dispatch.h"
#include "metrics/metrics_internal.h"

namespace concord::metrics::detail {

std::string where(const Tensor& t) { return concord::detail::describe(t) + " on " + t.device().str(); }

std::string prefix(const Config& cfg) { return "[" + cfg.metric + "] "; }

namespace {

// amin/amax of integer tensors, run on their device; one transfer for all of them.
std::vector<int64_t> extremes(const std::vector<const Tensor*>& ts) {
  std::vector<Tensor> parts;
  for (const Tensor* t : ts) {
    parts.push_back(amin(*t).to(int64));
    parts.push_back(amax(*t).to(int64));
  }
  return stack(parts).to_vector<int64_t>();
}

// The largest value of the scores' dtype that is <= t. For any score v of that
// dtype, v > t exactly iff v > round_down(t), and round_down(t) converts to the
// dtype without rounding, so the device comparison is exact on every path.
template <class H>
double round_down_half(double t) {
  auto val = [](H x) { return static_cast<double>(static_cast<float>(x)); };
  auto down = [](H x) { return H::from_bits(x.bits == 0 ? 0x8001 : (x.bits & 0x8000) ? x.bits + 1 : x.bits - 1); };
  auto up = [](H x) { return H::from_bits(x.bits == 0x8000 ? 1 : (x.bits & 0x8000) ? x.bits - 1 : x.bits + 1); };
  H c(static_cast<float>(t));
  while (val(c) > t) c = down(c);
  for (H u = up(c); val(u) <= t; u = up(u)) c = u;  // NaN compares false and stops
  return val(c);
}

double round_down(double t, Dtype scores) {
  switch (scores) {
    case Dtype::float16: return round_down_half<float16_t>(t);
    case Dtype::bfloat16: return round_down_half<bfloat16_t>(t);
    case Dtype::float32: {
      constexpr float inf = std::numeric_limits<float>::infinity();
      float c = static_cast<float>(t);
      while (static_cast<double>(c) > t) c = std::nextafter(c, -inf);
      while (static_cast<double>(std::nextafter(c, inf)) <= t) c = std::nextafter(c, inf);
      return static_cast<double>(c);
    }
    default: return t;
  }
}

void check_range(const Config& cfg, const char* what, const Tensor& t, int64_t lo, int64_t hi, int64_t limit) {
  if (lo >= 0 && hi < limit) return;
  const bool binary_like = cfg.task != Task::multiclass;
  throw ValueError(prefix(cfg) + what + " " + where(t) + " holds values from " + std::to_string(lo) + " to " +
                   std::to_string(hi) + ", but " +
                   (binary_like ? std::string("binary and multilabel labels must be 0 or 1")
                                : "class labels must lie in [0, " + std::to_string(limit) + ") for num_classes=" +
                                      std::to_string(limit)) +
                   "; fix the labels" + (binary_like ? " (or pass floating scores to threshold)" : " or num_classes"));
}

Prepared prepare_multiclass(const Config& cfg, const Device& dev, const Tensor& pred, const Tensor& target) {
  const int64_t c = cfg.classes;
  if (!is_integral(target.dtype()))
    throw DtypeError(prefix(cfg) + "multiclass target must hold integer class labels (uint8, int8, int16, int32 "
                     "or int64); got " + where(target) + ". Convert it with target.to(concord::int64)");
  if (pred.dtype() == bool_)
    throw DtypeError(prefix(cfg) + "multiclass pred must be integer class labels or floating scores [N, C, ...]; "
                     "got " + where(pred) + ". Convert labels with pred.to(concord::int64)");
  const bool scores = is_floating(pred.dtype());
  if (scores) {
    Shape expect = target.shape();
    if (target.ndim() == 0)
      throw ShapeError(prefix(cfg) + "multiclass scores need a target with a batch dim [N, ...]; got target " +
                       where(target) + " and pred " + where(pred) + ". Reshape target to [1] and pred to [1, " +
                       std::to_string(c) + "]");
    expect.insert(1, c);
    if (pred.shape() != expect)
      throw ShapeError(prefix(cfg) + "multiclass scores must have shape [N, num_classes, ...] = " +
                       shape_str(expect) + " for target " + where(target) + " and num_classes=" + std::to_string(c) +
                       "; got pred " + where(pred) + ". Pass scores with the class dim at 1, or integer labels "
                       "of target's shape");
  } else if (pred.shape() != target.shape()) {
    throw ShapeError(prefix(cfg) + "multiclass label pred must have target's shape; got pred " + where(pred) +
                     " and target " + where(target) + ". Pass labels of the same shape, or floating scores [N, " +
                     std::to_string(c) + ", ...]");
  }
  Prepared out{dev, {}, {}, target.numel()};
  if (out.samples == 0) return out;
  std::vector<const Tensor*> checked = {&target};
  if (!scores) checked.push_back(&pred);
  const std::vector<int64_t> ext = extremes(checked);
  check_range(cfg, "target", target, ext[0], ext[1], c);
  if (!scores) check_range(cfg, "pred", pred, ext[2], ext[3], c);
  out.target = target.reshape(Shape{-1});
  out.pred = (scores ? argmax(pred, 1) : pred).reshape(Shape{-1});
  return out;
}

Prepared prepare_binary_like(const Config& cfg, const Device& dev, const Tensor& pred, const Tensor& target) {
  const bool multilabel = cfg.task == Task::multilabel;
  const char* task = multilabel ? "multilabel" : "binary";
  if (is_floating(target.dtype()))
    throw DtypeError(prefix(cfg) + task + " target must hold 0/1 labels as bool or integers; got " + where(target) +
                     ". Convert it with target.to(concord::int64), or gt(target, 0.5) for soft labels");
  if (multilabel && (target.ndim() < 2 || target.shape()[1] != cfg.classes))
    throw ShapeError(prefix(cfg) + "multilabel target must have shape [N, num_labels, ...] with num_labels=" +
                     std::to_string(cfg.classes) + " at dim 1; got target " + where(target) +
                     ". Check num_labels or transpose the labels to [N, L]");
  if (pred.shape() != target.shape())
    throw ShapeError(prefix(cfg) + task + " pred and target must have the same shape; got pred " + where(pred) +
                     " and target " + where(target) + ". Pass one prediction (label or score) per target element");
  const int64_t k = multilabel ? cfg.classes : 1;
  Prepared out{dev, {}, {}, target.numel() / k};
  if (out.samples == 0) return out;
  std::vector<const Tensor*> checked;
  if (target.dtype() != bool_) checked.push_back(&target);
  const bool pred_labels = is_integral(pred.dtype());
  if (pred_labels) checked.push_back(&pred);
  if (!checked.empty()) {
    const std::vector<int64_t> ext = extremes(checked);
    size_t i = 0;
    if (target.dtype() != bool_) check_range(cfg, "target", target, ext[0], ext[1], 2), i = 2;
    if (pred_labels) check_range(cfg, "pred", pred, ext[i], ext[i + 1], 2);
  }
  // [N, K, R]: samples x labels x extra positions (binary: [M, 1, 1]).
  const int64_t n = multilabel ? target.shape()[0] : target.numel();
  const Shape shape{n, k, -1};
  out.target = (target.dtype() == bool_ ? target : ne(target, 0)).reshape(shape);
  Tensor p = pred;
  if (is_floating(pred.dtype())) p = gt(pred, round_down(cfg.threshold, pred.dtype()));
  else if (pred_labels) p = ne(pred, 0);
  out.pred = p.reshape(shape);
  return out;
}

}  // namespace

Prepared prepare(const Config& cfg, const std::optional<Device>& bound, const Tensor& pred, const Tensor& target) {
  if (!pred.defined() || !target.defined())
    throw ValueError(prefix(cfg) + "update() got an undefined " + std::string(pred.defined() ? "target" : "pred") +
                     " tensor; pass tensors made with concord's creation functions");
  // Floating scores may stay on the CPU with a target on a device: they are
  // thresholded (or argmax'ed) where they are, in their own dtype, and only
  // the labels move, so float64 scores keep float64's comparison on a device
  // without float64.
  const bool host_scores = is_floating(pred.dtype()) && pred.device().is_cpu() && !target.device().is_cpu();
  const Device dev =
      host_scores ? target.device() : concord::detail::common_device(cfg.metric.c_str(), {&pred, &target});
  if (bound && *bound != dev)
    throw DeviceError(prefix(cfg) + "update() got pred " + where(pred) + " and target " + where(target) +
                      ", but this metric's counts live on " + bound->str() + " since its first update. Move the "
                      "inputs with .to(\"" + bound->str() + "\"), or use one metric per device and merge() them");
  Prepared out = cfg.task == Task::multiclass ? prepare_multiclass(cfg, dev, pred, target)
                                               : prepare_binary_like(cfg, dev, pred, target);
  if (host_scores && out.pred.defined()) out.pred = out.pred.to(dev);
  return out;
}

}  // namespace concord::metrics::detail
