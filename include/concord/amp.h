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
// nn::Linear calls the linear op, so it follows the table. The dispatcher
// applies the table to every op the same way (core/dispatch.h, step 1): each
// input is cast on its own before the op's checks, as in PyTorch.
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
#include <optional>
#include <string_view>

#include "concord/device.h"
#include "concord/dtype.h"
#include "concord/op_table.h"

namespace concord {

// The op's autocast class: the autocast column of the op table (concord/op_table.h).
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
// For the dispatcher's autocast step (core/dispatch.h): whether a scope is
// enabled on this thread (one thread-local read), and the dtype a scope gives
// an input of dtype t on device d of op (t itself when nothing applies).
bool autocast_active();
Dtype autocast_target(OpId op, const Device& d, Dtype t);
}  // namespace detail

}  // namespace concord
