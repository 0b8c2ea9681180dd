// The dispatcher: the single path every op takes.
//
//   1. autocast     the op's table class (op_def(op).autocast) and the
//                   thread's scopes decide the inputs' dtypes
//   2. plan         the device's capabilities (after its profile) and the
//                   dtype and fallback policies decide where and in which
//                   dtype the kernel runs: native, widened, downcast or a
//                   counted CPU fallback, or a typed error under strict
//                   policies; adaptations are warned once per key
//   3. inputs       moved to the execution device, cast to the compute dtype
//   4. kernel       the front end's body calls the Backend's kernels there
//   5. results      moved back to the operands' device
//   6. record       the run is counted in the report
//
// A front end is a declaration, its argument checks and a body:
//
//   Tensor exp(const Tensor& x0) {
//     detail::Dispatch d(OpId::exp, {&x0});          // step 1
//     const Tensor& x = d.tensor(0);                 // x0 after autocast
//     ...checks, result dtype t...
//     return d.run(x.device(), t, [&] { return describe(x); }, {detail::Arg(x)},
//                  [&](const Plan& p, const detail::Inputs& in) {
//                    Tensor out = empty(x.shape(), p.compute, p.exec);
//                    if (out.numel() > 0) p.backend->unary(OpId::exp, in[0], out);
//                    return out;
//                  });                                // steps 2-6
//   }
//
// Nothing outside this header and dispatch.cpp calls plan() or record() for
// an op run. An op made of several kernels (linalg's factor-then-solve)
// calls them all in one body: it is one op, planned and recorded once.
#pragma once

#include <array>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "concord/amp.h"
#include "concord/op_table.h"
#include "concord/ops.h"
#include "concord/policy.h"
#include "concord/report.h"
#include "core/backend.h"
#include "core/nan_rule.h"

namespace concord::detail {

struct Plan {
  OpId op;
  Device device;      // where the operands live and the results go
  Device exec;        // where the kernel runs: device, or cpu on fallback
  Dtype dtype;        // the dtype asked for (after promotion and autocast)
  Dtype compute;      // the dtype the kernel gets (float32 when float64 was downcast)
  Path path;
  Backend* backend;   // backend of exec
  bool fallback() const { return path == Path::fallback; }
};

// How the dispatcher hands an input to the body.
enum class Prep : uint8_t {
  compute,  // on the exec device, in the compute dtype (the operands of the arithmetic)
  move,     // on the exec device, its own dtype (indices, conditions, pivots)
  none,     // untouched: the body moves what it needs itself (cat's inputs)
};

// One input of a run: a tensor or a number (a number becomes a 0-dim tensor
// on the exec device, in the compute dtype), how to prepare it, and an
// optional shape to broadcast it to (a stride-0 view, never a copy).
struct Arg {
  Arg(const Operand& o, Prep p = Prep::compute, const Shape* expand = nullptr)
      : tensor(o.is_tensor() ? &o.tensor() : nullptr), number(&o.scalar()), prep(p), shape(expand) {}
  Arg(const Tensor& t, Prep p = Prep::compute, const Shape* expand = nullptr)
      : tensor(&t), number(nullptr), prep(p), shape(expand) {}
  const Tensor* tensor;   // or, when null, the number
  const Scalar* number;
  Prep prep;
  const Shape* shape;
};

// The prepared inputs, in the order of the Args (references stay valid for the body).
class Inputs {
 public:
  const Tensor& operator[](size_t i) const { return *ptr_[i]; }
  size_t size() const { return n_; }

 private:
  friend class Dispatch;
  static constexpr size_t kMax = 4;
  const Tensor* ptr_[kMax] = {};
  std::optional<Tensor> store_[kMax];  // only inputs that were moved, cast or expanded
  size_t n_ = 0;
};

// The operands for messages ("float32[2, 3] and float32[3]"), built only
// when a message needs them (a callable and its context, not owned).
struct Describer {
  std::string (*fn)(const void*) = nullptr;
  const void* ctx = nullptr;
  std::string operator()() const { return fn ? fn(ctx) : std::string(); }
};
template <class F>
Describer describer(const F& f) {
  return {[](const void* c) { return std::string((*static_cast<const F*>(c))()); }, &f};
}

// Throws DtypeError when the op is not defined for dtype at all (no CPU kernel),
// UnsupportedDtypeError / NotImplementedError under strict policies, naming
// the operands. n >= 0: the matrix size of a linear-algebra op; above what the
// device's native kernels take (Backend::linalg_max_n) it runs through the
// counted CPU fallback.
// host_only: what makes this call need host memory ("ord = 3"), or null: on
// a device whose memory is not host memory it runs through the counted CPU
// fallback (warned once per reason; an error under strict).
Plan plan(OpId op, const Device& device, Dtype dtype, Describer operands = {}, int64_t n = -1,
          const char* host_only = nullptr);

// Counts one run in the report: by the dispatcher for every op run, and for a
// downcast made by a transfer or an allocation (storage_dtype), an autocast.
void record(OpId op, const Device& d, Dtype t, Path path);

class Dispatch {
 public:
  // Step 1, autocast: inside a scope for an input's device kind, a `lower` op
  // gets its float32 inputs in the scope's lower dtype and a `float32` op its
  // float16/bfloat16 inputs in float32 (each input on its own, before the
  // front end's checks, as PyTorch does); the change is counted once with
  // Path::autocast. explicit_dtype: the caller named the dtype (sum(x, {},
  // false, float16)): left alone. Outside a scope this is one thread-local read.
  Dispatch(OpId op, std::initializer_list<const Operand*> inputs, bool explicit_dtype = false) : op_(op) {
    size_t i = 0;
    for (const Operand* o : inputs) {
      if (i == kMaxAutocast) too_many();
      op_in_[i] = o;
      t_in_[i++] = o->is_tensor() ? &o->tensor() : nullptr;
    }
    if (!explicit_dtype && op_def(op).autocast != AutocastPolicy::none && autocast_active()) autocast(i);
  }
  Dispatch(OpId op, std::initializer_list<const Tensor*> inputs, bool explicit_dtype = false) : op_(op) {
    size_t i = 0;
    for (const Tensor* t : inputs) {
      if (i == kMaxAutocast) too_many();
      t_in_[i++] = t;
    }
    if (!explicit_dtype && op_def(op).autocast != AutocastPolicy::none && autocast_active()) autocast(i);
  }
  // An op without tensor inputs (creation, random), or one that takes its
  // inputs as they are (cat: its autocast class changes nothing; copy_).
  explicit Dispatch(OpId op);
  ~Dispatch();
  Dispatch(const Dispatch&) = delete;
  Dispatch& operator=(const Dispatch&) = delete;

  OpId op() const { return op_; }
  // Input i after autocast (the caller's own object when autocast left it
  // alone). operand(i): for the Operand constructor only.
  const Operand& operand(size_t i) const { return *op_in_[i]; }
  const Tensor& tensor(size_t i) const { return *t_in_[i]; }

  // Steps 2-6. device: where the operands live; dtype: the dtype the op runs
  // in; describe(): the operands for messages (called only when an error or
  // warning may need it); body(plan, inputs) runs the kernels on plan.exec and
  // returns the results there: a Tensor, a std::array of Tensors, or nothing.
  template <class Describe, class Body>
  auto run(const Device& device, Dtype dtype, Describe&& describe, std::initializer_list<Arg> args, Body&& body,
           int64_t n = -1, const char* host_only = nullptr) {
    return run_span(device, dtype, describe, args.begin(), args.size(), body, n, host_only);
  }
  template <class Describe, class Body>
  auto run_span(const Device& device, Dtype dtype, Describe&& describe, const Arg* args, size_t count, Body&& body,
                int64_t n = -1, const char* host_only = nullptr) {
    const Plan p = plan(op_, device, dtype, describer(describe), n, host_only);
    Inputs in;
    prepare(p, args, count, in);
    const NativeF16Scope f16(p.path == Path::native_f16);
    const bool repro = reproducible();
    const NanRuleScope nan_rule(repro);  // kernels may fuse the mode's NaN rule into their stores
    try {
      if constexpr (std::is_void_v<decltype(body(p, in))>) {
        body(p, in);
        record(p.op, p.device, p.dtype, p.path);
      } else {
        auto out = body(p, in);
        if (repro) canonical_nans(p, in, out);
        if (p.exec != p.device) move_back(p, out);  // results are on exec: only a fallback moves them
        record(p.op, p.device, p.dtype, p.path);
        return out;
      }
    } catch (const Error&) {
      if (p.exec != p.device) rethrow_from_fallback(p);
      throw;
    }
  }

 private:
  // Inputs that are already what the kernel needs (the common case) are
  // passed by reference, decided here inline; the rest go to prepare_slow.
  void prepare(const Plan& p, const Arg* args, size_t count, Inputs& in) const {
    in.n_ = count;
    for (size_t i = 0; i < count; ++i) {
      const Arg& a = args[i];
      const Tensor* t = a.tensor;
      if (t && (a.prep == Prep::none ||
                (t->defined() && t->storage()->device == p.exec &&
                 (a.prep == Prep::move || t->dtype() == p.compute) &&
                 (!a.shape || &t->shape() == a.shape || t->shape() == *a.shape)))) {
        in.ptr_[i] = t;
        continue;
      }
      prepare_slow(p, a, i, in);
    }
  }
  void prepare_slow(const Plan& p, const Arg& a, size_t i, Inputs& in) const;
  void move_back(const Plan& p, Tensor& t) const;
  // A kernel that ran on the CPU for another device threw: the same error
  // type again, its message naming the user's device (the kernel saw CPU
  // copies and names "cpu").
  [[noreturn]] static void rethrow_from_fallback(const Plan& p);
  template <size_t K>
  void move_back(const Plan& p, std::array<Tensor, K>& outs) const {
    for (Tensor& t : outs) move_back(p, t);
  }
  // The reproducible mode's NaN rule: every NaN in a floating result is the
  // canonical quiet NaN (Backend::canonicalize_nan, on exec), since which NaN
  // an op makes (0/0 is -NaN on x86, +NaN elsewhere) and whether a payload
  // survives differ by device. A result that shares an input's storage (a
  // view) is left alone: its bits are the input's; so is one a kernel wrote
  // with the rule in its stores (nan_rule.h).
  static void canonical_nans(const Plan& p, const Inputs& in, Tensor& out);
  template <size_t K>
  static void canonical_nans(const Plan& p, const Inputs& in, std::array<Tensor, K>& outs) {
    for (Tensor& t : outs) canonical_nans(p, in, t);
  }
  void autocast(size_t n);
  [[noreturn]] void too_many() const;

  OpId op_;
  static constexpr size_t kMaxAutocast = 4;
  const Operand* op_in_[kMaxAutocast] = {};
  const Tensor* t_in_[kMaxAutocast] = {};
  // The inputs autocast replaced: allocated only inside an autocast scope
  // when something changes, so the common path stores pointers and nothing else.
  struct Cast;
  Cast* cast_ = nullptr;  // owned (a raw pointer: the constructors are inline, Cast is not)
};

// t on device `to` in `dtype`; dims t broadcasts (stride 0) stay broadcast:
// only the unexpanded data is moved and converted. The inputs' one path.
Tensor moved_cast(const Tensor& t, const Device& to, Dtype dtype);

// For bodies that take an input with Prep::none: t moved to the plan's exec
// device and cast to its compute dtype (t itself when both already match).
Tensor prepare_input(const Plan& p, const Tensor& t);

// Counts bytes moved between two devices.
void record_transfer(const Device& from, const Device& to, uint64_t bytes);
void record_nan_pass();  // Report::nan_passes

// Dtype a tensor gets on a device (for creation and to(device)): the dtype
// itself, or float32 for float64 on a device that cannot store it (policy
// downcast, warned once and counted); throws UnsupportedDtypeError under strict.
Dtype storage_dtype(const char* op, const Device& device, Dtype dtype);

// Gives a warning once per key; the key is usually "op|device|dtype".
void warn_once(const std::string& key, const std::string& message);

// "float32[2, 3]" for messages.
std::string describe(const Tensor& t);
// Throws DeviceError unless all defined tensors are on one device; returns it.
Device common_device(const char* op, std::initializer_list<const Tensor*> ts);

}  // namespace concord::detail
