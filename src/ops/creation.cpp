// Creation ops: constants, ranges, identity, host data.
#include "concord/creation.h"

#include <cmath>
#include <cstdio>

#include "core/dispatch.h"

namespace concord {

using detail::Inputs;
using detail::Plan;

namespace {
std::string approx(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

// Element count and byte size of a new tensor, checked: a negative size or a
// count that overflows int64 (or a byte size that overflows size_t) is a
// ShapeError naming the creating op, the shape, the dtype and the device.
size_t checked_bytes(const char* op, const Shape& shape, Dtype dtype, const Device& device) {
  // Built only when throwing: this runs on every allocation of every op.
  const auto what = [&] { return " (" + std::string(name(dtype)) + " on " + device.str() + ")"; };
  int64_t n = 1;
  for (int64_t s : shape) {
    if (s < 0)
      throw ShapeError(std::string("[") + op + "] negative size " + std::to_string(s) + " in shape " + shape_str(shape) +
                       what() + "; sizes must be >= 0");
    if (__builtin_mul_overflow(n, s, &n))
      throw ShapeError(std::string("[") + op + "] the element count of shape " + shape_str(shape) + what() +
                       " overflows int64; use smaller sizes");
  }
  size_t bytes;
  if (__builtin_mul_overflow(static_cast<size_t>(n), itemsize(dtype), &bytes))
    throw ShapeError(std::string("[") + op + "] shape " + shape_str(shape) + what() +
                     " needs more bytes than fit in size_t; use smaller sizes");
  return bytes;
}

Tensor empty_for(const char* op, Shape shape, Dtype dtype, const Device& device) {
  size_t bytes = checked_bytes(op, shape, dtype, device);  // first: no warning or record for a bad shape
  const Dtype t = detail::storage_dtype("fill", device, dtype);
  if (t != dtype) bytes = checked_bytes(op, shape, t, device);
  auto st = detail::backend_for(device).allocate(bytes, device);
  Strides strides = contiguous_strides(shape);
  return Tensor(std::move(st), std::move(shape), std::move(strides), 0, t);
}

// The dtype a new tensor gets on the device (float32 for float64 where the
// device cannot store it, under the dtype policy), after checking the shape.
Dtype new_dtype(const char* op, OpId id, const Shape& shape, Dtype dtype, const Device& device) {
  checked_bytes(op, shape, dtype, device);  // first: no warning or record for a bad shape
  return detail::storage_dtype(op_name(id).data(), device, dtype);
}

Tensor full_for(const char* op, Shape shape, Scalar value, Dtype dtype, const Device& device) {
  const Dtype t = new_dtype(op, OpId::fill, shape, dtype, device);
  detail::Dispatch d(OpId::fill);
  return d.run(device, t, [&] { return shape_str(shape); }, {}, [&](const Plan& p, const Inputs&) {
    Tensor out = empty_for(op, shape, p.compute, p.exec);
    if (out.numel() > 0) p.backend->fill(out, value);
    return out;
  });
}
}  // namespace

Tensor empty(Shape shape, Dtype dtype, const Device& device) { return empty_for("empty", std::move(shape), dtype, device); }

Tensor full(Shape shape, Scalar value, Dtype dtype, const Device& device) {
  return full_for("full", std::move(shape), value, dtype, device);
}

Tensor zeros(Shape shape, Dtype dtype, const Device& device) {
  return full_for("zeros", std::move(shape), 0, dtype, device);
}
Tensor ones(Shape shape, Dtype dtype, const Device& device) { return full_for("ones", std::move(shape), 1, dtype, device); }
Tensor zeros_like(const Tensor& t) { return zeros(t.shape(), t.dtype(), t.device()); }
Tensor ones_like(const Tensor& t) { return ones(t.shape(), t.dtype(), t.device()); }
Tensor full_like(const Tensor& t, Scalar v) { return full(t.shape(), v, t.dtype(), t.device()); }
Tensor empty_like(const Tensor& t) { return empty(t.shape(), t.dtype(), t.device()); }
Tensor scalar_tensor(Scalar v, Dtype dtype, const Device& device) { return full(Shape{}, v, dtype, device); }

namespace {
// start + i * step: in double, rounded once (iota); for an integer dtype with
// integral start and step, in exact int64 arithmetic (iota_int: no float64
// needed on any device, and exact beyond 2^53).
Tensor iota(OpId op, int64_t n, Scalar start, Scalar step, Dtype dtype, const Device& device) {
  const char* opn = op_name(op).data();
  const Dtype t = new_dtype(opn, op, Shape{n}, dtype, device);
  const bool exact = !is_floating(t) && !start.is_floating() && !step.is_floating();
  if (op == OpId::arange && !is_floating(t) && !exact) {  // fractional arguments, integer dtype: truncated doubles
    // The doubles are made where float64 exists (the host for a float64-less
    // device) and truncated there: the caller asked for an integer dtype.
    const Device where = capabilities(device).can_store(float64) ? device : kCPU;
    return iota(op, n, start, step, float64, where).to(device, t);
  }
  detail::Dispatch d(op);
  return d.run(device, t, [&] { return "[" + std::to_string(n) + "]"; }, {}, [&](const Plan& p, const Inputs&) {
    Tensor out = empty_for(opn, Shape{n}, p.compute, p.exec);
    if (out.numel() > 0) {
      if (exact) p.backend->iota_int(out, start.to_int(), step.to_int());
      else p.backend->iota(out, start.to_double(), step.to_double());
    }
    return out;
  });
}
}  // namespace

Tensor arange(Scalar end, std::optional<Dtype> dtype, const Device& device) {
  return arange(0, end, 1, dtype, device);
}

Tensor arange(Scalar start, Scalar end, Scalar step, std::optional<Dtype> dtype, const Device& device) {
  const bool all_int = !start.is_floating() && !end.is_floating() && !step.is_floating();
  const Dtype t = dtype ? *dtype : (all_int ? int64 : float32);
  const double a = start.to_double(), b = end.to_double(), s = step.to_double();
  if (s == 0 || !std::isfinite(a) || !std::isfinite(b) || !std::isfinite(s))
    throw ValueError("[arange] needs finite start/end and a non-zero step; got start " + start.str() + ", end " +
                     end.str() + ", step " + step.str());
  if ((s > 0 && b < a) || (s < 0 && b > a))
    throw ValueError("[arange] step " + step.str() + " moves away from end " + end.str() + " (start " + start.str() +
                     "); flip the sign of step");
  int64_t n;
  if (all_int) {
    const int64_t ia = start.to_int(), ib = end.to_int(), is = step.to_int();
    // In 128 bits: end - start overflows int64 for extreme bounds.
    const __int128 span = is > 0 ? __int128{ib} - ia : __int128{ia} - ib, st = is > 0 ? is : -__int128{is};
    const __int128 count = (span + st - 1) / st;
    if (count > INT64_MAX)
      throw ShapeError("[arange] start " + start.str() + ", end " + end.str() + ", step " + step.str() +
                       " gives more elements than int64 can count; use a larger step");
    n = static_cast<int64_t>(count);
  } else {
    const double count = std::ceil((b - a) / s);
    if (!(count < 9.2e18))  // the cast below would overflow int64
      throw ShapeError("[arange] start " + start.str() + ", end " + end.str() + ", step " + step.str() + " gives " +
                       approx(count) + " elements, more than int64 can count; use a larger step");
    n = static_cast<int64_t>(count);
  }
  return iota(OpId::arange, n, start, step, t, device);
}

Tensor linspace(double start, double end, int64_t steps, Dtype dtype, const Device& device) {
  if (steps < 0) throw ValueError("[linspace] steps must be >= 0, got " + std::to_string(steps));
  const double step = steps > 1 ? (end - start) / static_cast<double>(steps - 1) : 0.0;
  Tensor out = iota(OpId::linspace, steps, start, step, dtype, device);
  return out;
}

Tensor eye(int64_t n, std::optional<int64_t> m, Dtype dtype, const Device& device) {
  const int64_t cols = m ? *m : n;
  if (n < 0 || cols < 0)
    throw ShapeError("[eye] sizes must be >= 0, got " + std::to_string(n) + " x " + std::to_string(cols));
  const Dtype t = new_dtype("eye", OpId::eye, Shape{n, cols}, dtype, device);
  detail::Dispatch d(OpId::eye);
  return d.run(device, t, [&] { return "[" + std::to_string(n) + ", " + std::to_string(cols) + "]"; }, {},
               [&](const Plan& p, const Inputs&) {
                 Tensor out = empty_for("eye", {n, cols}, p.compute, p.exec);
                 const int64_t diag = std::min(n, cols);
                 if (out.numel() > 0) {
                   p.backend->fill(out, 0);
                   // The diagonal is a strided view with stride cols + 1.
                   p.backend->fill(Tensor(out.storage(), Shape{diag}, Strides{cols + 1}, 0, out.dtype()), 1);
                 }
                 return out;
               });
}

Tensor from_host(const void* data, Shape shape, Dtype dtype, const Device& device) {
  checked_bytes("from_host", shape, dtype, device);
  const int64_t n = numel(shape);
  if (n > 0 && data == nullptr)
    throw ValueError("[from_host] data is null for shape " + shape_str(shape) + "; pass a pointer to " +
                     std::to_string(n) + " " + std::string(name(dtype)) + " values");
  // Wrap the caller's memory (no copy), then let to(device) apply the device's dtype policy.
  auto st = std::make_shared<detail::Storage>();
  st->ptr = const_cast<void*>(data);
  st->nbytes = static_cast<size_t>(n) * itemsize(dtype);
  st->device = kCPU;
  Tensor wrapped(st, shape, contiguous_strides(shape), 0, dtype);
  if (device.is_cpu()) return wrapped.clone();
  return wrapped.to(device);
}

Tensor detail::from_host_counted(const char* op, const void* data, size_t count, Shape shape, Dtype dtype,
                                 const Device& device) {
  checked_bytes(op, shape, dtype, device);  // a bad shape is named as such first
  const int64_t n = numel(shape);
  // The one check a raw pointer cannot make: reading past the caller's buffer.
  if (static_cast<uint64_t>(n) != count)
    throw ShapeError(std::string("[") + op + "] shape " + shape_str(shape) + " needs " + std::to_string(n) + " " +
                     std::string(name(dtype)) + " elements but " + std::to_string(count) + " were given (for " +
                     device.str() + "); pass a shape whose sizes multiply to " + std::to_string(count) +
                     ", or that many elements");
  return from_host(data, std::move(shape), dtype, device);
}

Tensor from_host(const void* data, size_t count, Shape shape, Dtype dtype, const Device& device) {
  return detail::from_host_counted("from_host", data, count, std::move(shape), dtype, device);
}

// The first row (or block) whose length differs from the first one's.
void detail::ragged_literal(int64_t block, int64_t row, size_t got, size_t want) {
  const std::string where = block < 0 ? "row " + std::to_string(row)
                            : row < 0 ? "block " + std::to_string(block)
                                      : "block " + std::to_string(block) + ", row " + std::to_string(row);
  const std::string first = block < 0 ? "row 0" : row < 0 ? "block 0" : "row 0 of block 0";
  throw ShapeError("[tensor] ragged literal: " + where + " has " + std::to_string(got) + " elements but " + first +
                   " has " + std::to_string(want) + "; every row of a nested literal needs the same length");
}

}  // namespace concord
