// concord/amp.h — automatic mixed precision (autocast scopes).
//
// Inside an autocast scope for a device kind, ops on tensors of a device of
// that kind pick their precision from one table (autocast_policy):
//   lower    float32 inputs run in the scope's lower-precision dtype (matmul,
//            mm, bmm, mv, addmm, baddbmm, linear; the addend/bias too): the
//            kernels accumulate in float32 and round once, so the result is a
//            bfloat16/float16 tensor. float64, half and integer inputs are
//            left alone.
//   float32  float16/bfloat16 inputs are cast up to float32 and the result is
//            float32 (exp, log, pow, sum, prod, softmax, log_softmax,
//            logsumexp, cumsum, norms and all of linalg). Others left alone.
//   widest   mixed inputs run in the widest input type (cat, stack, where):
//            these ops promote their inputs anyway, so autocast adds nothing.
//   none     unchanged.
// Ops given an explicit dtype (sum(x, dims, keepdim, float16), softmax(x, d,
// bfloat16), creation functions) and in-place ops (copy_) are left alone.
// nn::Linear calls the linear op, so it follows the table. pow is in the
// table, but its front end (src/ops/binary.cpp) does not call the hook yet.
//
// The lower dtype, unless the scope names one: float16 on a device that
// computes float16 natively (capabilities(d).can_compute(float16), e.g. an
// OpenCL device with cl_khr_fp16 or a Vulkan device with shaderFloat16), else
// bfloat16 (cpu, emu). Decided per device, after its profile, when the op runs.
//
// A scope is for a device kind (autocast ac("opencl") or autocast ac(DeviceKind::cpu)).
// Scopes are per thread and nest; leaving one restores what was active before.
// A nested scope without a dtype keeps the enclosing scope's choice;
// enabled = false switches autocast off for the kind inside the scope.
//
//   {
//     concord::autocast ac(concord::DeviceKind::cpu);
//     auto y = concord::matmul(a, b);   // float32 a, b -> bfloat16 y
//     auto s = concord::softmax(y, -1); // bfloat16 y -> float32 s
//   }
//
// Report: every op run whose dtype an autocast scope changed is counted once
// with Path::autocast under the dtype it was given (e.g. "matmul cpu float32
// autocast 1"), in addition to the usual count of the run itself under the
// dtype it ran in ("matmul cpu bfloat16 native 1"). The autocast count is made
// when the op picks the new dtype, so an op that raises afterwards (a bad dim,
// a singular matrix, a strict policy) may have been counted. linalg ops cast
// their half inputs to float32 before validating them, so their error
// messages name float32 operands inside a scope.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <vector>

#include "concord/device.h"
#include "concord/dtype.h"
#include "concord/ops_list.h"
#include "concord/tensor.h"

namespace concord {

enum class AutocastPolicy : uint8_t { none, lower, float32, widest };
std::string_view name(AutocastPolicy p);

// The one autocast table.
AutocastPolicy autocast_policy(OpId op);

class autocast {
 public:
  // dtype must be float16 or bfloat16 (ValueError otherwise).
  explicit autocast(DeviceKind kind, std::optional<Dtype> dtype = {}, bool enabled = true);
  ~autocast();
  autocast(const autocast&) = delete;
  autocast& operator=(const autocast&) = delete;

 private:
  DeviceKind kind_;
  bool saved_enabled_;
  std::optional<Dtype> saved_dtype_;
};

// Whether an enabled autocast scope for the kind is active on this thread.
bool is_autocast_enabled(DeviceKind kind);
// The lower dtype ops on d would get now, or nullopt outside an enabled scope.
std::optional<Dtype> autocast_lower_dtype(const Device& d);
// The lower dtype a scope without an explicit dtype uses on d.
Dtype default_autocast_dtype(const Device& d);

namespace detail {
// The dispatcher's autocast step: the dtype op should run in on device d,
// given the dtype the front end decided. Returns dtype unchanged outside a
// scope (one thread-local read). When the dtype changes, counts the run with
// Path::autocast under the original dtype.
Dtype autocast_dtype(OpId op, const Device& d, Dtype dtype);
// For front ends that cast their inputs themselves: the inputs converted as
// autocast wants them (each on its own dtype), or nullopt when none changes.
// Counts the run once with Path::autocast when something changes.
std::optional<std::vector<Tensor>> autocast_inputs(OpId op, std::initializer_list<const Tensor*> inputs);
}  // namespace detail

}  // namespace concord
