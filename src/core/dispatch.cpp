// The dispatcher: capability check + policy for every op, in one place.
#include "core/dispatch.h"

#include "concord/creation.h"
#include "concord/error.h"

namespace concord::detail {

std::string describe(const Tensor& t) {
  return std::string(name(t.dtype())) + shape_str(t.shape());
}

Device common_device(const char* op, std::initializer_list<const Tensor*> ts) {
  const Tensor* first = nullptr;
  for (const Tensor* t : ts) {
    if (!t || !t->defined()) continue;
    if (!first) { first = t; continue; }
    if (t->device() != first->device())
      throw DeviceError(std::string("[") + op + "] operands are on different devices: " + describe(*first) + " on " +
                        first->device().str() + " and " + describe(*t) + " on " + t->device().str() +
                        "; move one with .to(\"" + first->device().str() + "\")");
  }
  return first ? first->device() : kCPU;
}

namespace {
std::string dtype_list(DtypeSet s) {
  std::string out;
  for (Dtype t : kAllDtypes)
    if (s.has(t)) out += (out.empty() ? "" : ", ") + std::string(name(t));
  return out;
}
std::string profile_note(const Device& d) {
  if (d.is_cpu()) return "";
  return " (profile " + profile(d).str() + ")";
}
std::string key(OpId op, const Device& d, Dtype t, Path p) {
  return std::string(op_name(op)) + "|" + d.str() + "|" + std::string(name(t)) + "|" + std::string(name(p));
}
}  // namespace

}  // namespace concord::detail

namespace concord {

Support support(OpId op, const Device& device, Dtype dtype) {
  Support s;
  s.compute = dtype;
  s.exec = device;
  if (!detail::op_dtypes(op).has(dtype)) {
    s.defined = false;
    s.reason = "not defined for " + std::string(name(dtype));
    return s;
  }
  const Capabilities& caps = capabilities(device);
  if (!caps.can_store(dtype)) {
    if (dtype_policy() == DtypePolicy::strict) {
      s.reason = std::string(name(dtype)) + " is not supported on " + device.str() + " and the dtype policy is strict";
      return s;
    }
    s.compute = float32;
    s.path = Path::downcast;
  }
  if (!caps.has_kernel(op, s.compute)) {
    if (fallback_policy() == FallbackPolicy::strict) {
      s.reason = "no " + std::string(name(s.compute)) + " kernel on " + device.str() + " and the fallback policy is strict";
      return s;
    }
    s.exec = kCPU;
    s.path = Path::fallback;
  } else if (s.path == Path::native && !caps.can_compute(s.compute)) {
    s.path = Path::widened;  // stored in the dtype, computed in float32, rounded once
  }
  s.runs = true;
  return s;
}

}  // namespace concord

namespace concord::detail {

Plan plan(OpId op, const Device& device, Dtype dtype, const std::string& shapes) {
  const Support s = support(op, device, dtype);
  if (s.runs && s.path == Path::native) return Plan{op, device, device, dtype, dtype, Path::native, &backend_for(device)};
  const std::string opn(op_name(op));
  const std::string where = shapes.empty() ? "" : " (inputs " + shapes + ")";
  if (!s.defined)
    throw DtypeError("[" + opn + "] is not defined for " + std::string(name(dtype)) + where + " on " + device.str() +
                     "; convert with .to(dtype) to one of: " + dtype_list(op_dtypes(op)));
  const Capabilities& caps = capabilities(device);
  if (!caps.can_store(dtype)) {
    if (!s.runs)
      throw UnsupportedDtypeError("[" + opn + "] " + std::string(name(dtype)) + " is not supported on " + device.str() +
                                  profile_note(device) + where + ". Use float32, or set CONCORD_DTYPE_POLICY=downcast "
                                  "to compute in float32 automatically.");
    warn_once(key(op, device, dtype, Path::downcast),
              "[" + opn + "] " + std::string(name(dtype)) + " is not supported on " + device.str() + profile_note(device) +
                  "; computing in float32 instead. Set CONCORD_DTYPE_POLICY=strict to make this an error.");
  }
  if (!s.runs)
    throw NotImplementedError("[" + opn + "] has no " + std::string(name(s.compute)) + " kernel on " + device.str() +
                              profile_note(device) + where + ". Set CONCORD_FALLBACK=cpu to run it on the CPU "
                              "(inputs are copied there and back), or move the tensors to cpu with .to(\"cpu\").");
  if (s.path == Path::fallback)
    warn_once(key(op, device, s.compute, Path::fallback),
              "[" + opn + "] has no " + std::string(name(s.compute)) + " kernel on " + device.str() + profile_note(device) +
                  "; running it on the CPU (inputs copied there and back). Set CONCORD_FALLBACK=strict to make "
                  "this an error.");
  // A downcast op that also falls back reports the downcast too (the fallback is the path).
  Plan p{op, device, s.exec, dtype, s.compute, s.path, &backend_for(s.exec)};
  return p;
}

Plan plan_sized(OpId op, const Device& device, Dtype dtype, int64_t n, const std::string& shapes) {
  Plan p = plan(op, device, dtype, shapes);
  if (p.fallback() || p.exec.is_cpu()) return p;
  const int64_t limit = p.backend->linalg_max_n(device);
  if (n <= limit) return p;
  const std::string opn(op_name(op));
  const std::string what = "[" + opn + "] the native kernels on " + device.str() + " take n <= " +
                           std::to_string(limit) + "; these " + std::string(name(dtype)) + " matrices have n = " + std::to_string(n) +
                           (shapes.empty() ? "" : " (inputs " + shapes + ")");
  if (fallback_policy() == FallbackPolicy::strict)
    throw NotImplementedError(what + ". Set CONCORD_FALLBACK=cpu to run it on the CPU (inputs are copied there and "
                                     "back), or move the tensors to cpu with .to(\"cpu\").");
  warn_once(key(op, device, p.compute, Path::fallback) + "|n>" + std::to_string(limit),
            what + "; running it on the CPU (inputs copied there and back). Set CONCORD_FALLBACK=strict to make "
                   "this an error.");
  p.exec = kCPU;
  p.path = Path::fallback;
  p.backend = &cpu_backend();
  return p;
}

void record(const Plan& p) { record(p.op, p.device, p.dtype, p.path); }

Dtype storage_dtype(const char* op, const Device& device, Dtype dtype) {
  const Capabilities& caps = capabilities(device);
  if (caps.can_store(dtype)) return dtype;
  const std::string opn(op);
  if (dtype_policy() == DtypePolicy::strict)
    throw UnsupportedDtypeError("[" + opn + "] " + std::string(name(dtype)) + " is not supported on " + device.str() +
                                profile_note(device) + "; nothing was allocated. Use float32, or set "
                                "CONCORD_DTYPE_POLICY=downcast to convert to float32 automatically.");
  OpId id = OpId::copy;
  parse_op(op, &id);
  warn_once(key(id, device, dtype, Path::downcast),
            "[" + opn + "] " + std::string(name(dtype)) + " is not supported on " + device.str() + profile_note(device) +
                "; the tensor becomes float32 there. Set CONCORD_DTYPE_POLICY=strict to make this an error.");
  record(id, device, dtype, Path::downcast);
  return float32;
}

Tensor prepare_input(const Plan& p, const Tensor& t) {
  Tensor r = t;
  if (r.device() != p.exec) r = r.to(p.exec);
  if (r.dtype() != p.compute) r = r.to(p.compute);
  return r;
}

Tensor finish_output(const Plan& p, const Tensor& out) {
  return out.device() == p.device ? out : out.to(p.device);
}

}  // namespace concord::detail
