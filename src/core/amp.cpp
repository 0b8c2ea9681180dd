// Autocast: the op table, the per-thread scopes and the dispatcher hook.
#include "concord/amp.h"

#include <string>

#include "concord/error.h"
#include "core/dispatch.h"
#include "core/registry.h"

namespace concord {

std::string_view name(AutocastPolicy p) {
  switch (p) {
    case AutocastPolicy::lower: return "lower";
    case AutocastPolicy::float32: return "float32";
    case AutocastPolicy::widest: return "widest";
    default: return "none";
  }
}

// The ops PyTorch's autocast lists that concord has, in the same categories.
AutocastPolicy autocast_policy(OpId op) {
  switch (op) {
    case OpId::matmul: case OpId::mm: case OpId::bmm: case OpId::mv:
    case OpId::addmm: case OpId::baddbmm: case OpId::linear:
      return AutocastPolicy::lower;
    case OpId::exp: case OpId::log: case OpId::pow: case OpId::sum: case OpId::prod:
    case OpId::softmax: case OpId::log_softmax: case OpId::logsumexp: case OpId::cumsum:
    case OpId::norm: case OpId::vector_norm: case OpId::matrix_norm:
    case OpId::solve: case OpId::lu_factor: case OpId::lu_solve: case OpId::inv: case OpId::det:
    case OpId::slogdet: case OpId::cholesky: case OpId::solve_triangular:
      return AutocastPolicy::float32;
    case OpId::cat: case OpId::stack: case OpId::where:
      return AutocastPolicy::widest;
    default:
      return AutocastPolicy::none;
  }
}

namespace {

constexpr int kKinds = detail::kMaxDeviceKinds;

// Per thread: which kinds have an enabled scope, and the dtype each asked for.
struct State {
  bool enabled[kKinds] = {};
  std::optional<Dtype> dtype[kKinds];
  int active = 0;  // number of kinds enabled: the hook's fast path
};
thread_local State t_state;

int slot(DeviceKind k) { return k.id(); }

void set(DeviceKind k, bool on, std::optional<Dtype> dtype) {
  State& s = t_state;
  const int i = slot(k);
  s.active += static_cast<int>(on) - static_cast<int>(s.enabled[i]);
  s.enabled[i] = on;
  s.dtype[i] = dtype;
}

// What autocast makes of dtype for op on d (no counting).
Dtype target(OpId op, const Device& d, Dtype dtype) {
  const State& s = t_state;
  if (s.active == 0) return dtype;
  const int i = slot(d.kind());
  if (!s.enabled[i]) return dtype;
  switch (autocast_policy(op)) {
    case AutocastPolicy::lower:
      return dtype == float32 ? (s.dtype[i] ? *s.dtype[i] : default_autocast_dtype(d)) : dtype;
    case AutocastPolicy::float32:
      return is_half(dtype) ? float32 : dtype;
    default:
      return dtype;
  }
}

}  // namespace

autocast::autocast(DeviceKind kind, std::optional<Dtype> dtype, bool enabled) : kind_(kind) {
  if (dtype && !is_half(*dtype))
    throw ValueError("[autocast] the lower-precision dtype must be float16 or bfloat16, got " +
                     std::string(name(*dtype)) + "; leave it out for the device's default");
  const int i = slot(kind);
  saved_enabled_ = t_state.enabled[i];
  saved_dtype_ = t_state.dtype[i];
  // A nested scope without a dtype keeps the enclosing scope's choice.
  set(kind, enabled, dtype ? dtype : saved_dtype_);
}

autocast::~autocast() { set(kind_, saved_enabled_, saved_dtype_); }

bool is_autocast_enabled(DeviceKind kind) { return t_state.enabled[slot(kind)]; }

// float16 where the device computes it natively (its arithmetic units are
// what autocast is for), else bfloat16 (float32's range, stored in half the bytes).
Dtype default_autocast_dtype(const Device& d) {
  return capabilities(d).can_compute(float16) ? float16 : bfloat16;
}

std::optional<Dtype> autocast_lower_dtype(const Device& d) {
  const int i = slot(d.kind());
  if (!t_state.enabled[i]) return std::nullopt;
  return t_state.dtype[i] ? *t_state.dtype[i] : default_autocast_dtype(d);
}

namespace detail {

Dtype autocast_dtype(OpId op, const Device& d, Dtype dtype) {
  if (t_state.active == 0) return dtype;
  const Dtype t = target(op, d, dtype);
  if (t != dtype) record(op, d, dtype, Path::autocast);
  return t;
}

std::optional<std::vector<Tensor>> autocast_inputs(OpId op, std::initializer_list<const Tensor*> inputs) {
  if (t_state.active == 0) return std::nullopt;
  std::vector<Tensor> out;
  out.reserve(inputs.size());
  const Tensor* first_changed = nullptr;
  for (const Tensor* t : inputs) {
    if (!t->defined()) { out.push_back(*t); continue; }
    const Dtype to = target(op, t->device(), t->dtype());
    if (to != t->dtype() && !first_changed) first_changed = t;
    out.push_back(to == t->dtype() ? *t : t->to(to));
  }
  if (!first_changed) return std::nullopt;
  record(op, first_changed->device(), first_changed->dtype(), Path::autocast);
  return out;
}

}  // namespace detail

}  // namespace concord
