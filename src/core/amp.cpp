// Autocast: the per-thread scopes and what they do to an op's inputs.
#include "concord/amp.h"

#include <string>

#include "concord/error.h"
#include "core/dispatch.h"
#include "core/registry.h"

namespace concord {

// The one autocast table: the op table's column.
AutocastPolicy autocast_policy(OpId op) { return op_def(op).autocast; }

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
bool autocast_active() { return t_state.active != 0; }
Dtype autocast_target(OpId op, const Device& d, Dtype t) { return target(op, d, t); }
}  // namespace detail

}  // namespace concord
