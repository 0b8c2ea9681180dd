// Judging one device's result against the CPU reference computed from the same inputs.
//
// The reference runs the same instruction on the CPU, on copies of the device's
// own input tensors (so a device that downcast float64 to float32 is judged
// against a float32 computation), and the difference must be explained by the
// op's error model (program.h, Model). Legitimate differences, not findings:
//   - result dtype float32 where the reference has float64, on a device that
//     cannot store float64 (the downcast policy): judged with 1 ULP of slack;
//   - values that depend on the order of a reduction once an intermediate can
//     overflow (the finite mass of the inputs exceeds a quarter of the
//     accumulator's range): only elements finite on both sides are judged;
//   - prod elements that overflowed or underflowed on either side.
#pragma once

#include <string>
#include <vector>

#include "program.h"

namespace concord::fuzz {

// "" when `actual` (a result, on the CPU) agrees with `ref`; else what differs.
// `ref_inputs` are the CPU copies the reference was computed from.
std::string judge(const Instr& ins, const Tensor& actual, const Tensor& ref, const std::vector<Tensor>& ref_inputs,
                  const Device& device);

}  // namespace concord::fuzz
