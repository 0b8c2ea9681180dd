// Reduction front ends: sum, mean, prod, amax/amin, max/min, argmax/argmin, all/any.
// They resolve dims and dtypes (PyTorch's rules) and hand the kernel an input
// already in the accumulation-input dtype; the kernels fix the evaluation order.
#include <algorithm>
#include <limits>

#include "concord/amp.h"
#include "ops/reduce_common.h"

namespace concord {

namespace detail {

std::string describe_on(const Tensor& x) { return describe(x) + " on " + x.device().str(); }

Tensor as_1d(const Tensor& x) {
  if (x.ndim() > 0) return x;
  return Tensor(x.storage(), Shape{1}, Strides{1}, x.offset(), x.dtype());
}

ReduceDims reduce_dims(const char* op, const Tensor& x, const Dims& dims, bool keepdim) {
  ReduceDims r;
  const int64_t nd = x.ndim();
  Dims d;
  for (int64_t v : dims) {
    const int64_t w = wrap_dim(v, nd, op);
    if (std::find(d.begin(), d.end(), w) != d.end())
      throw ShapeError(std::string("[") + op + "] dim " + std::to_string(w) + " appears more than once in dims " +
                       shape_str(dims) + " for " + describe_on(x) + "; list each dim once");
    d.push_back(w);
  }
  std::sort(d.begin(), d.end());
  if (nd == 0) {
    // A 0-dim tensor reduces its single element; it stays 0-dim even with keepdim.
    r.x = as_1d(x);
    r.dims = Dims{0};
    r.keep_shape = Shape{1};
    r.out_shape = Shape{};
    return r;
  }
  if (d.empty())
    for (int64_t i = 0; i < nd; ++i) d.push_back(i);
  r.x = x;
  r.dims = d;
  r.keep_shape = x.shape();
  for (int64_t i : d) {
    r.count *= x.shape()[i];
    r.keep_shape[i] = 1;
  }
  if (keepdim) {
    r.out_shape = r.keep_shape;
  } else {
    for (int64_t i = 0; i < nd; ++i)
      if (!std::binary_search(d.begin(), d.end(), i)) r.out_shape.push_back(x.shape()[i]);
  }
  return r;
}

Tensor run_reduce(Dispatch& d, const Dims& dims, bool keepdim, Dtype dtype, std::optional<Dtype> out_dtype,
                  const ReduceArgs& args, EmptyRule on_empty) {
  const Tensor& x = d.tensor(0);
  const OpId op = d.op();
  const char* opn = op_name(op).data();
  const Device dev = common_device(opn, {&x});
  const ReduceDims rd = reduce_dims(opn, x, dims, keepdim);
  return d.run(dev, dtype, [&] { return describe(x); }, {Arg(rd.x)}, [&](const Plan& p, const Inputs& in) {
    Tensor out = empty(rd.keep_shape, out_dtype ? *out_dtype : p.compute, p.exec);
    if (rd.count == 0) {
      if (!on_empty.has_identity)
        throw ShapeError("[" + std::string(opn) + "] of " + describe_on(x) + " over dims " + shape_str(rd.dims) +
                         " reduces 0 elements, and " + opn + " has no identity; reduce over non-empty dims "
                         "(check numel() first)");
      if (out.numel() > 0) p.backend->fill(out, on_empty.value);
    } else if (out.numel() > 0) {
      p.backend->reduce(op, in[0], rd.dims, out, args);
    }
    return out.view(rd.out_shape);
  });
}

}  // namespace detail

using detail::EmptyRule;
using detail::ReduceArgs;

namespace {

// Sums and products of bool and integers are int64, as in PyTorch.
Dtype int_widened(const Tensor& x, std::optional<Dtype> dtype) {
  if (dtype) return *dtype;
  return is_floating(x.dtype()) ? x.dtype() : int64;
}

// Floating amax/amin/max/min: the first extreme element in row-major order of
// the reduced dims (its bits: +0 vs -0, the NaN's payload), found by the
// device's argmax/argmin (first occurrence, NaN first) and read back by
// gather. A value-only reduction cannot say which of two equal zeros came
// first once the device splits the work, so this is the one rule on every
// device and thread count, and max(x, dim)'s value is x at its index.
Tensor first_extreme(detail::Dispatch& d, OpId op, const Dims& dims, bool keepdim) {
  const Tensor& x = d.tensor(0);
  const char* opn = op_name(op).data();
  const Device dev = detail::common_device(opn, {&x});
  const detail::ReduceDims rd = detail::reduce_dims(opn, x, dims, keepdim);
  const OpId arg = (op == OpId::amax || op == OpId::max) ? OpId::argmax : OpId::argmin;
  return d.run(dev, x.dtype(), [&] { return detail::describe(x); }, {detail::Arg(rd.x)},
               [&](const detail::Plan& p, const detail::Inputs& in) {
                 if (rd.count == 0)
                   throw ShapeError("[" + std::string(opn) + "] of " + detail::describe_on(x) + " over dims " +
                                    shape_str(rd.dims) + " reduces 0 elements, and " + opn +
                                    " has no identity; reduce over non-empty dims (check numel() first)");
                 Tensor out = empty(rd.keep_shape, in[0].dtype(), p.exec);
                 if (out.numel() == 0) return out.view(rd.out_shape);
                 const Tensor& xi = in[0];
                 const int64_t nd = xi.ndim();
                 Tensor src = xi;  // reduced dims as one dim (the last, unless a single dim)
                 int64_t rdim = rd.dims[0];
                 if (rd.dims.size() > 1) {
                   Dims perm;
                   Shape flat;
                   for (int64_t k = 0; k < nd; ++k)
                     if (std::find(rd.dims.begin(), rd.dims.end(), k) == rd.dims.end()) {
                       perm.push_back(k);
                       flat.push_back(xi.shape()[static_cast<size_t>(k)]);
                     }
                   for (int64_t k : rd.dims) perm.push_back(k);
                   const Tensor pv = xi.permute(perm);
                   Tensor c = empty(pv.shape(), xi.dtype(), p.exec);
                   p.backend->copy(pv, c);
                   flat.push_back(rd.count);
                   src = c.view(flat);
                   rdim = static_cast<int64_t>(flat.size()) - 1;
                 }
                 Shape ks = src.shape();
                 ks[static_cast<size_t>(rdim)] = 1;
                 Tensor idx = empty(ks, int64, p.exec);
                 p.backend->arg_reduce(arg, src, rdim, idx);
                 p.backend->gather(src, rdim, idx, out.view(ks));
                 return out.view(rd.out_shape);
               });
}

// Orderings are defined on numbers; bool compares as uint8 and converts back.
Tensor extreme(OpId op, const Tensor& x0, Dims dims, bool keepdim) {
  detail::Dispatch d(op, {&x0});
  if (is_floating(d.tensor(0).dtype())) return first_extreme(d, op, dims, keepdim);
  const bool is_bool = d.tensor(0).dtype() == bool_;
  Tensor r = detail::run_reduce(d, dims, keepdim, is_bool ? uint8 : d.tensor(0).dtype(), std::nullopt, {},
                                EmptyRule::error());
  return is_bool ? r.to(bool_) : r;
}

Tensor arg_extreme(OpId op, const Tensor& x0, std::optional<int64_t> dim, bool keepdim) {
  detail::Dispatch disp(op, {&x0});
  const Tensor& x = disp.tensor(0);
  const char* opn = op_name(op).data();
  const Device dev = detail::common_device(opn, {&x});
  Tensor xs;
  int64_t d = 0;
  Shape out_shape;
  if (!dim) {
    xs = detail::as_1d(x).reshape(Shape{-1});  // flat index over the row-major order
    if (keepdim) out_shape = Shape(static_cast<size_t>(x.ndim()), 1);
  } else {
    d = wrap_dim(*dim, x.ndim(), opn);
    xs = detail::as_1d(x);
    if (x.ndim() > 0) {
      out_shape = x.shape();
      if (keepdim) out_shape[d] = 1;
      else out_shape.erase(static_cast<size_t>(d));
    }
  }
  const Dtype t = x.dtype() == bool_ ? uint8 : x.dtype();
  return disp.run(dev, t, [&] { return detail::describe(x); }, {detail::Arg(xs)},
                  [&](const detail::Plan& p, const detail::Inputs& in) {
                    if (xs.shape()[d] == 0)
                      throw ShapeError("[" + std::string(opn) + "] of " + detail::describe_on(x) +
                                       (dim ? " along dim " + std::to_string(d) : "") + " reduces 0 elements, and " +
                                       opn + " has no identity; reduce over a non-empty dim (check numel() first)");
                    Shape keep = xs.shape();
                    keep[d] = 1;
                    Tensor out = empty(keep, int64, p.exec);
                    if (out.numel() > 0) p.backend->arg_reduce(op, in[0], d, out);
                    return out.view(out_shape);
                  });
}

}  // namespace

Tensor sum(const Tensor& x, Dims dims, bool keepdim, std::optional<Dtype> dtype) {
  detail::Dispatch d(OpId::sum, {&x}, dtype.has_value());
  return detail::run_reduce(d, dims, keepdim, int_widened(d.tensor(0), dtype), std::nullopt, {}, EmptyRule::identity(0));
}

Tensor prod(const Tensor& x, Dims dims, bool keepdim, std::optional<Dtype> dtype) {
  detail::Dispatch d(OpId::prod, {&x}, dtype.has_value());
  return detail::run_reduce(d, dims, keepdim, int_widened(d.tensor(0), dtype), std::nullopt, {}, EmptyRule::identity(1));
}

Tensor mean(const Tensor& x, Dims dims, bool keepdim, std::optional<Dtype> dtype) {
  if (!dtype && !is_floating(x.dtype()))
    throw DtypeError("[mean] could not infer the output dtype of " + detail::describe_on(x) +
                     ": mean needs a floating input. Pass dtype=float32 (mean(x, dims, keepdim, concord::float32)) "
                     "or convert with x.to(concord::float32)");
  detail::Dispatch d(OpId::mean, {&x}, dtype.has_value());
  return detail::run_reduce(d, dims, keepdim, dtype ? *dtype : x.dtype(), std::nullopt, {},
                            EmptyRule::identity(std::numeric_limits<double>::quiet_NaN()));
}

Tensor amax(const Tensor& x, Dims dims, bool keepdim) { return extreme(OpId::amax, x, dims, keepdim); }
Tensor amin(const Tensor& x, Dims dims, bool keepdim) { return extreme(OpId::amin, x, dims, keepdim); }
Tensor max(const Tensor& x) { return extreme(OpId::max, x, {}, false); }
Tensor min(const Tensor& x) { return extreme(OpId::min, x, {}, false); }

ValuesIndices max(const Tensor& x, int64_t dim, bool keepdim) {
  Tensor idx = arg_extreme(OpId::argmax, x, dim, keepdim);  // validates dim and emptiness first
  return {extreme(OpId::max, x, {dim}, keepdim), idx};  // floating: the element at idx (first_extreme)
}

ValuesIndices min(const Tensor& x, int64_t dim, bool keepdim) {
  Tensor idx = arg_extreme(OpId::argmin, x, dim, keepdim);
  return {extreme(OpId::min, x, {dim}, keepdim), idx};
}

Tensor argmax(const Tensor& x, std::optional<int64_t> dim, bool keepdim) { return arg_extreme(OpId::argmax, x, dim, keepdim); }
Tensor argmin(const Tensor& x, std::optional<int64_t> dim, bool keepdim) { return arg_extreme(OpId::argmin, x, dim, keepdim); }

Tensor all(const Tensor& x, Dims dims, bool keepdim) {
  detail::Dispatch d(OpId::all, {&x});
  return detail::run_reduce(d, dims, keepdim, x.dtype(), bool_, {}, EmptyRule::identity(true));
}

Tensor any(const Tensor& x, Dims dims, bool keepdim) {
  detail::Dispatch d(OpId::any, {&x});
  return detail::run_reduce(d, dims, keepdim, x.dtype(), bool_, {}, EmptyRule::identity(false));
}

}  // namespace concord
