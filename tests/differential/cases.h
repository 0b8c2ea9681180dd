// The differential suite's cases: read from torch_cases.py's records, run through concord.
//
// A case is one op on a few operands (tensors given as raw bits plus a view, or
// Python numbers), with PyTorch's outcome: its result tensors (dtype, shape,
// raw bits) or the exception type it raised, and, for ops judged by an error
// model, a float64 reference with a per-element scale. run_case() builds the
// operands on a device, runs the op there and returns concord's outcome.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "concord/concord.h"

namespace concord::differential {

struct Operand {
  bool is_scalar = false;
  Dtype dtype = Dtype::float32;   // tensor operands
  Shape shape;
  std::string view = "c";         // c, t (transposed view), s (stride-2 slice), b:SHAPE (expanded)
  std::vector<uint64_t> bits;     // row-major raw bits of the logical values
  Scalar scalar;                  // scalar operands
};

struct Result {                   // one output tensor, on the host
  Dtype dtype = Dtype::float32;
  Shape shape;
  std::vector<uint64_t> bits;
};

struct Case {
  std::string id, op, params, tag;
  std::vector<Operand> args;
  std::optional<std::string> torch_error;   // PyTorch raised this type
  std::vector<Result> torch_out;
  std::vector<double> ref, scale;           // float64 reference and scale (error-model ops)
  int64_t reduced = 1;                      // n of the error model
  std::optional<std::string> torch_msg;     // assert_close cases: PyTorch's message ("" when close)
  std::string param(const std::string& key, const std::string& dflt = "") const;
};

// Parses the records; throws std::runtime_error naming the line on a malformed one.
std::vector<Case> parse_cases(const std::string& text);

// Concord's outcome for one case on one device.
struct Outcome {
  std::optional<std::string> error;   // what() of the concord::Error raised
  std::vector<Result> out;
  std::string message;                // assert_close cases: concord's message
};
Outcome run_case(const Case& c, const Device& device);

// Value of raw bits of dtype t as a double (exact), and the dtypes a case touches.
double bits_value(Dtype t, uint64_t bits);
std::vector<Dtype> dtypes_of(const Case& c);
std::string shape_text(const Shape& s);

}  // namespace concord::differential
