// The dispatcher (core/dispatch.h): autocast, capability check + policy,
// transfers, results and the report, in one place for every op.
#include "core/dispatch.h"

#include <cstring>

#include "backend/cpu/convert.h"
#include "concord/amp.h"
#include "concord/creation.h"
#include "concord/error.h"
#include "core/cpu_isa.h"

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
const char* const kFallbackFix =
    ". Set CONCORD_FALLBACK=cpu to run it on the CPU (inputs are copied there and back), or move the tensors "
    "to cpu with .to(\"cpu\").";
// The float-control bits that flush subnormals, and how to clear them.
#if defined(__x86_64__)
const char* const kFlushBits = "MXCSR FTZ/DAZ";
const char* const kFlushClear = "_mm_setcsr(_mm_getcsr() & ~0x8040u)";
#else
const char* const kFlushBits = "FPCR.FZ";
const char* const kFlushClear = "clear FPCR bit 24 (msr fpcr)";
#endif
const char* const kFallbackNote =
    "; running it on the CPU (inputs copied there and back). Set CONCORD_FALLBACK=strict to make this an error.";
}  // namespace

}  // namespace concord::detail

namespace concord {

Support support(OpId op, const Device& device, Dtype dtype) {
  Support s;
  s.compute = dtype;
  s.exec = device;
  if (!op_def(op).dtypes.has(dtype)) {
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
  // The reproducible mode takes only kernels that give the CPU's bits (policy.h).
  const bool kernel = reproducible() ? caps.has_reproducible_kernel(op, s.compute) : caps.has_kernel(op, s.compute);
  if (!kernel) {
    if (fallback_policy() == FallbackPolicy::strict) {
      s.reason = "no " + std::string(reproducible() ? "reproducible " : "") + std::string(name(s.compute)) +
                 " kernel on " + device.str() + " and the fallback policy is strict";
      return s;
    }
    s.exec = kCPU;
    s.path = Path::fallback;
  } else if (s.path == Path::native && !caps.can_compute(s.compute)) {
    // Stored in the dtype, computed in float32, rounded once; or, where the
    // user declared it, computed in float16 by the device's own float16 kernel.
    const bool f16 = s.compute == float16 && float16_policy() == Float16Policy::native && !reproducible() &&
                     caps.has_f16_kernel(op);
    s.path = f16 ? Path::native_f16 : Path::widened;
  }
  s.runs = true;
  return s;
}

}  // namespace concord

namespace concord::detail {

Plan plan(OpId op, const Device& device, Dtype dtype, Describer operands, int64_t n, const char* host_only) {
  const Support s = support(op, device, dtype);
  Plan p{op, device, s.exec, dtype, s.compute, s.path, nullptr};
  const std::string opn = op_label(op);
  auto where_str = [&] {
    const std::string shapes = operands();
    return shapes.empty() ? std::string() : " (inputs " + shapes + ")";
  };
  if (!(s.runs && s.path == Path::native)) {
    const std::string where = s.runs ? std::string() : where_str();
    if (!s.defined)
      throw DtypeError("[" + std::string(opn) + "] is not defined for " + std::string(name(dtype)) + where + " on " +
                       device.str() + "; convert with .to(dtype) to one of: " + dtype_list(op_def(op).dtypes));
    const Capabilities& caps = capabilities(device);
    if (!caps.can_store(dtype)) {
      if (!s.runs)
        throw UnsupportedDtypeError("[" + std::string(opn) + "] " + std::string(name(dtype)) + " is not supported on " +
                                    device.str() + profile_note(device) + where +
                                    ". Use float32, or set CONCORD_DTYPE_POLICY=downcast to compute in float32 "
                                    "automatically.");
      warn_once(key(op, device, dtype, Path::downcast),
                "[" + std::string(opn) + "] " + std::string(name(dtype)) + " is not supported on " + device.str() +
                    profile_note(device) + "; computing in float32 instead. Set CONCORD_DTYPE_POLICY=strict to make "
                    "this an error.");
    }
    // In the reproducible mode a kernel that does not give the CPU's bits counts as none.
    const bool repro = reproducible() && caps.has_kernel(op, s.compute);
    const std::string missing = "[" + std::string(opn) + "] has no " + (repro ? "reproducible " : "") +
                                std::string(name(s.compute)) + " kernel on " + device.str() + profile_note(device) +
                                (repro ? " (reproducible mode: its kernel does not give the CPU's bits)" : "");
    if (!s.runs) throw NotImplementedError(missing + where + kFallbackFix);
    if (s.path == Path::fallback)
      warn_once(key(op, device, s.compute, Path::fallback) + (repro ? "|reproducible" : ""), missing + kFallbackNote);
  }
  p.backend = &backend_for(p.exec);
  // Linear algebra above the size the device's native kernels take runs through the CPU fallback.
  if (n >= 0 && !p.fallback() && !p.exec.is_cpu()) {
    const int64_t limit = p.backend->linalg_max_n(device);
    if (n > limit) {
      const std::string where = where_str();
      const std::string what = "[" + std::string(opn) + "] the native kernels on " + device.str() + " take n <= " +
                               std::to_string(limit) + "; these " + std::string(name(dtype)) +
                               " matrices have n = " + std::to_string(n) + where;
      if (fallback_policy() == FallbackPolicy::strict) throw NotImplementedError(what + kFallbackFix);
      warn_once(key(op, device, p.compute, Path::fallback) + "|n>" + std::to_string(limit), what + kFallbackNote);
      p.exec = kCPU;
      p.path = Path::fallback;
      p.backend = &cpu_backend();
    }
  }
  // A variant of the op that only the host loops run (a norm order the device kernels lack).
  if (host_only && !p.fallback() && memory_space(p.exec) != MemorySpace::host) {
    const std::string what = "[" + std::string(opn) + "] " + host_only + " has no " + std::string(name(p.compute)) +
                             " kernel on " + device.str() + where_str();
    if (fallback_policy() == FallbackPolicy::strict) throw NotImplementedError(what + kFallbackFix);
    warn_once(key(op, device, p.compute, Path::fallback) + "|" + host_only, what + kFallbackNote);
    p.exec = kCPU;
    p.path = Path::fallback;
    p.backend = &cpu_backend();
  }
  // The host kernels inherit the calling thread's float controls (x86's MXCSR,
  // aarch64's FPCR): said once, since no
  // config promises a flushed subnormal and the reproducible mode's bits assume none.
  if (is_floating(p.compute) && memory_space(p.exec) == MemorySpace::host && host_flushes_subnormals())
    warn_once("host|ftz-daz",
              "[" + opn + "] the calling thread flushes subnormals to zero (" + kFlushBits +
                  " set, as a program linked with -ffast-math does at start-up): on " + p.exec.str() +
                  " every float kernel (" + std::string(name(p.compute)) + " here) reads and writes "
              "subnormals as 0, and the reproducible mode no longer gives the CPU's usual bits. Clear them (" +
                  kFlushClear + ") or link without -ffast-math");
  return p;
}

Dtype storage_dtype(const char* op, const Device& device, Dtype dtype) {
  const Capabilities& caps = capabilities(device);
  if (caps.can_store(dtype)) return dtype;
  OpId id = OpId::copy;
  const std::string opn = parse_op(op, &id) ? op_label(id) : std::string(op);
  if (dtype_policy() == DtypePolicy::strict)
    throw UnsupportedDtypeError("[" + opn + "] " + std::string(name(dtype)) + " is not supported on " + device.str() +
                                profile_note(device) + "; nothing was allocated. Use float32, or set "
                                "CONCORD_DTYPE_POLICY=downcast to convert to float32 automatically.");
  warn_once(key(id, device, dtype, Path::downcast),
            "[" + opn + "] " + std::string(name(dtype)) + " is not supported on " + device.str() + profile_note(device) +
                "; the tensor becomes float32 there. Set CONCORD_DTYPE_POLICY=strict to make this an error.");
  record(id, device, dtype, Path::downcast);
  return float32;
}

// ---- Dispatch ----

struct Dispatch::Cast {
  Tensor tensors[kMaxAutocast];
  std::optional<Operand> operands[kMaxAutocast];
};

Dispatch::Dispatch(OpId op) : op_(op) {}
Dispatch::~Dispatch() { delete cast_; }

void Dispatch::too_many() const {
  throw ValueError("[" + op_label(op_) + "] internal: more than 4 autocast inputs");
}

// Each tensor input on its own: counted once, under the first changed input's dtype.
void Dispatch::autocast(size_t n) {
  const Tensor* first = nullptr;
  for (size_t i = 0; i < n; ++i) {
    const Tensor* t = t_in_[i];
    if (!t || !t->defined()) continue;
    const Dtype to = autocast_target(op_, t->device(), t->dtype());
    if (to == t->dtype()) continue;
    if (!first) first = t;
    if (!cast_) cast_ = new Cast;
    cast_->tensors[i] = t->to(to);
    t_in_[i] = &cast_->tensors[i];
    if (op_in_[i]) op_in_[i] = &cast_->operands[i].emplace(cast_->tensors[i]);
  }
  if (first) record(op_, first->device(), first->dtype(), Path::autocast);
}


namespace {
// A 0-dim tensor holding s in dtype t on the plan's execution device. It is
// written straight into fresh device memory (not through fill): a number is
// part of the op, so it must not add a fill to the report or fall back itself.
Tensor scalar_input(const Plan& p, const Scalar& s, Dtype t) {
  unsigned char buf[8] = {};
  visit_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    T v;
    if (s.is_floating()) v = cpu::convert<T>(s.to_double());
    else if (s.is_bool()) v = cpu::convert<T>(s.to_bool());
    else v = cpu::convert<T>(s.to_int());
    std::memcpy(buf, &v, sizeof(T));
  });
  auto st = p.backend->allocate(itemsize(t), p.exec);
  p.backend->write(*st, 0, buf, itemsize(t));
  return Tensor(std::move(st), Shape{}, Strides{}, 0, t);
}
}  // namespace

void Dispatch::prepare_slow(const Plan& p, const Arg& a, size_t i, Inputs& in) const {
  if (i >= Inputs::kMax)
    throw ValueError("[" + op_label(op_) + "] internal: more than 4 prepared inputs; use Prep::none");
  if (!a.tensor) {
    Tensor& st = in.store_[i].emplace(scalar_input(p, *a.number, p.compute));
    if (a.shape) st = st.expand(*a.shape);
    in.ptr_[i] = &st;
    return;
  }
  const Tensor& t = *a.tensor;
  in.ptr_[i] = &t;
  if (!t.defined()) return;
  const bool move = t.storage()->device != p.exec;
  const bool cast = a.prep == Prep::compute && t.dtype() != p.compute;
  const bool expand = a.shape && !(t.shape() == *a.shape);
  Tensor& st = in.store_[i].emplace(move || cast ? moved_cast(t, p.exec, cast ? p.compute : t.dtype()) : t);
  if (expand) st = st.expand(*a.shape);
  in.ptr_[i] = &st;
}

Tensor moved_cast(const Tensor& t, const Device& to, Dtype dtype) {
  // A broadcast (stride-0) dim is moved and converted once, then expanded
  // again where the kernel runs: a fallback of x + y.expand(...) moves y's
  // own bytes, not the expansion's.
  Shape small = t.shape();
  bool expanded = false;
  for (size_t d = 0; d < small.size(); ++d)
    if (t.strides()[d] == 0 && small[d] > 1) small[d] = 1, expanded = true;
  Tensor r = expanded ? Tensor(t.storage(), small, t.strides(), t.offset(), t.dtype()) : t;
  // Converted where it lives when that device holds the dtype (a float64 0-dim
  // host operand of a float32 op reaches a float64-less device as float32).
  if (r.device() != to) r = r.to(to, dtype);
  else if (r.dtype() != dtype) r = r.to(dtype);
  return expanded ? r.expand(t.shape()) : r;
}

Tensor prepare_input(const Plan& p, const Tensor& t) {
  if (t.device() == p.exec && t.dtype() == p.compute) return t;
  return moved_cast(t, p.exec, p.compute);
}

void Dispatch::rethrow_from_fallback(const Plan& p) {
  const auto amend = [&](const Error& e) {
    return std::string(e.what()) + " (raised by the CPU fallback that ran " + op_label(p.op) + " for " +
           p.device.str() + ")";
  };
  try {
    throw;
  } catch (const ShapeError& e) { throw ShapeError(amend(e));
  } catch (const UnsupportedDtypeError& e) { throw UnsupportedDtypeError(amend(e));
  } catch (const DtypeError& e) { throw DtypeError(amend(e));
  } catch (const NotImplementedError& e) { throw NotImplementedError(amend(e));
  } catch (const OutOfMemoryError& e) { throw OutOfMemoryError(amend(e));
  } catch (const LinAlgError& e) { throw LinAlgError(amend(e));
  } catch (const ValueError& e) { throw ValueError(amend(e));
  } catch (const DeviceError& e) { throw DeviceError(amend(e));
  }
  throw;  // an Error of a type not listed here: unchanged
}

void Dispatch::canonical_nans(const Plan& p, const Inputs& in, Tensor& out) {
  if (!out.defined() || !is_floating(out.dtype()) || out.numel() == 0 || nan_rule_was_fused(out)) return;
  for (size_t i = 0; i < in.size(); ++i)
    if (in.ptr_[i] && in.ptr_[i]->defined() && in.ptr_[i]->storage() == out.storage()) return;
  p.backend->canonicalize_nan(out);
  record_nan_pass();
}

void Dispatch::move_back(const Plan& p, Tensor& t) const {
  if (t.defined() && t.device() != p.device) t = t.to(p.device);
}

}  // namespace concord::detail
