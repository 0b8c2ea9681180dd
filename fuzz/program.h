// A small tensor program decoded from fuzzer bytes, and its interpreter.
//
// A program is a list of instructions over a register file of tensors. The
// same decoded program runs on every device: decoding never depends on a
// device, so a disagreement between devices is about the library, not about
// the fuzzer. Arguments are taken raw (dims in -5..5, sizes in 0..64) so that
// invalid calls are generated as often as valid ones: both must behave alike
// on every device (a valid call agrees under the op's error model, an invalid
// one raises the same typed concord error).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <fuzzer/FuzzedDataProvider.h>

#include "concord/concord.h"

namespace concord::fuzz {

enum class Kind : uint8_t { make, view, unary, binary, where, clamp, reduce, linear, shape, copy_into };

// How a result is judged against the CPU reference (see judge.h).
enum class Model : uint8_t {
  exact,      // bitwise (NaN == NaN): views, casts, comparisons, integer math, correctly rounded ops
  ulp,        // transcendental: a few ULPs from the reference
  sum,        // sum of the reduced elements: check_reduction
  relative,   // other reductions: c·n·u·(|e| + max|e| + max|x|)
  product,    // prod: relative to |e|, only where both sides are finite and non-zero
  matmul,     // check_matmul
};

struct Instr {
  Kind kind = Kind::make;
  int op = 0;                  // index into the kind's op table
  int a = 0, b = -1, c = -1;   // input registers (-1: none / a scalar operand)
  int out = 0;                 // the register the (first) result goes to
  int64_t p[6] = {0, 0, 0, 0, 0, 0};  // raw integer arguments (dims, sizes, steps)
  double s0 = 0, s1 = 0;       // scalar operands
  uint8_t s0_kind = 0, s1_kind = 0;  // 0 float, 1 integer, 2 bool, 3 absent
  bool flag = false;           // keepdim / alpha present / ...
  bool has_dtype = false;
  Dtype dtype = Dtype::float32;
  Shape shape;                 // make: the shape; view: target shape
  Dims dims;                   // reduce/flip: dims
  std::vector<double> values;  // make: values (tiled over the shape)
  std::vector<int64_t> index;  // index_select / gather
};

struct Program {
  std::vector<Instr> code;
  std::string str() const;  // readable listing, printed with every finding
};

constexpr int kMaxRegisters = 8;
constexpr int64_t kMaxDim = 64;
constexpr int64_t kMaxNumel = 4096;

Program decode(FuzzedDataProvider& in, int max_instructions);

// Runs one instruction on its input tensors (already on the device), creating
// new tensors (index tensors, made tensors) on `device`. Returns the outputs.
// copy_into writes into inputs[0]'s storage and returns inputs[0].
std::vector<Tensor> execute(const Instr& ins, const std::vector<Tensor>& inputs, const Device& device);

// The two operands of a linear instruction (with `flag`, b derives from a so the shapes fit).
std::pair<Tensor, Tensor> linear_operands(const Instr& ins, const std::vector<Tensor>& inputs);

// Input registers of an instruction, in order.
std::vector<int> inputs_of(const Instr& ins);
// The error model the instruction's result is judged by.
Model model_of(const Instr& ins);
// The op's ULP bound for Model::ulp (of one device against the exact result).
double ulp_bound(const Instr& ins);
// "exp", "slice", ... for messages.
std::string op_label(const Instr& ins);

}  // namespace concord::fuzz
