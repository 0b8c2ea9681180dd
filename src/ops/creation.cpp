// Creation ops: constants, ranges, identity, host data.
#include "concord/creation.h"

#include <cmath>

#include "core/dispatch.h"

namespace concord {

using detail::Plan;

Tensor empty(Shape shape, Dtype dtype, const Device& device) {
  const int64_t n = numel(shape);
  const Dtype t = detail::storage_dtype("fill", device, dtype);
  size_t bytes;
  if (__builtin_mul_overflow(static_cast<size_t>(n), itemsize(t), &bytes))
    throw ShapeError("[empty] shape " + shape_str(shape) + " needs more bytes than fit in size_t; use smaller sizes");
  auto st = detail::backend_for(device).allocate(bytes, device);
  Strides strides = contiguous_strides(shape);
  return Tensor(std::move(st), std::move(shape), std::move(strides), 0, t);
}

Tensor full(Shape shape, Scalar value, Dtype dtype, const Device& device) {
  Tensor out = empty(std::move(shape), dtype, device);
  Plan p = detail::plan(OpId::fill, device, out.dtype(), shape_str(out.shape()));
  if (p.fallback()) {
    Tensor h = full(out.shape(), value, out.dtype(), kCPU);
    out.copy_(h);
  } else if (out.numel() > 0) {
    p.backend->fill(out, value);
  }
  detail::record(p);
  return out;
}

Tensor zeros(Shape shape, Dtype dtype, const Device& device) { return full(std::move(shape), 0, dtype, device); }
Tensor ones(Shape shape, Dtype dtype, const Device& device) { return full(std::move(shape), 1, dtype, device); }
Tensor zeros_like(const Tensor& t) { return zeros(t.shape(), t.dtype(), t.device()); }
Tensor ones_like(const Tensor& t) { return ones(t.shape(), t.dtype(), t.device()); }
Tensor full_like(const Tensor& t, Scalar v) { return full(t.shape(), v, t.dtype(), t.device()); }
Tensor empty_like(const Tensor& t) { return empty(t.shape(), t.dtype(), t.device()); }
Tensor scalar_tensor(Scalar v, Dtype dtype, const Device& device) { return full(Shape{}, v, dtype, device); }

namespace {
Tensor iota(OpId op, int64_t n, double start, double step, Dtype dtype, const Device& device) {
  Tensor out = empty(Shape{n}, dtype, device);
  Plan p = detail::plan(op, device, out.dtype(), "[" + std::to_string(n) + "]");
  if (out.numel() > 0) {
    if (p.fallback()) {
      Tensor h = empty(Shape{n}, out.dtype(), kCPU);
      detail::cpu_backend().iota(h, start, step);
      out.copy_(h);
    } else {
      p.backend->iota(out, start, step);
    }
  }
  detail::record(p);
  return out;
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
    n = is > 0 ? (ib - ia + is - 1) / is : (ia - ib + (-is) - 1) / (-is);
  } else {
    n = static_cast<int64_t>(std::ceil((b - a) / s));
  }
  return iota(OpId::arange, n, a, s, t, device);
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
  Tensor out = zeros({n, cols}, dtype, device);
  const int64_t d = std::min(n, cols);
  if (d > 0) {
    // The diagonal is a strided view with stride cols + 1.
    Tensor diag(out.storage(), Shape{d}, Strides{cols + 1}, 0, out.dtype());
    Plan p = detail::plan(OpId::eye, device, out.dtype(), "[" + std::to_string(n) + ", " + std::to_string(cols) + "]");
    if (p.fallback()) diag.copy_(ones({d}, out.dtype(), kCPU));
    else p.backend->fill(diag, 1);
    detail::record(p);
  }
  return out;
}

Tensor from_host(const void* data, Shape shape, Dtype dtype, const Device& device) {
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

}  // namespace concord
