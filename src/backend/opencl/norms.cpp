// OpenCL determinants from an LU and vector / matrix norms: one work-item per
// output running the CPU's float64 loop, so the results are the CPU's bits
// (the reproducible mode claims them; slogdet's log is the mode's shared
// one). With float64 (fp64_programs()), kernels/norms.cl writes double and
// the copy kernel rounds to the output dtype as the CPU stores (one rounding
// from double). Without it, kernels/norms_xd.cl runs the same loops on the
// doubles' bits and rounds to the output dtype itself.
#include <cmath>
#include <string>

#include "backend/opencl/opencl_backend.h"

namespace concord::detail::ocl {
namespace {

// A contiguous float64 tensor of `count` elements on the backend's device.
Tensor f64_buffer(OpenClBackend& be, int64_t count) {
  const Shape s{count};
  return Tensor(be.allocate(static_cast<size_t>(count) * 8, be.device()), s, contiguous_strides(s), 0, float64);
}

// The input as float32 or float64 (halves widen exactly: the CPU reads them through float).
Tensor readable(OpenClBackend& be, const Tensor& x) {
  if (x.dtype() == float32 || x.dtype() == float64) return x;
  if (!is_half(x.dtype()))
    throw NotImplementedError("[linalg] the opencl norm kernels take floating dtypes, got " +
                              std::string(name(x.dtype())));
  const Shape s = x.shape();
  Tensor w(be.allocate(static_cast<size_t>(x.numel()) * 4, be.device()), s, contiguous_strides(s), 0, float32);
  be.copy(x, w);
  return w;
}

std::string type_opts(Dtype t) {
  return t == float64 ? "-DT=double -DT_IS_DOUBLE=1" : "-DT=float";
}

// norms_xd.cl's output variant: results rounded once to `t`.
std::string out_opts(const OpenClBackend& be, const Tensor& out) {
  const Dtype t = out.dtype();
  if (t != float32 && !is_half(t))
    throw NotImplementedError("[linalg] the opencl norm kernels without float64 write float32, float16 or bfloat16, "
                              "got an output of " + std::string(name(t)) + " " + shape_str(out.shape()) + " on " +
                              be.device().str() + "; run it on cpu");
  return std::string("-DOUT_HALF=") + (t == float16 ? "1" : t == bfloat16 ? "2" : "0");
}

// A contiguous tensor shaped like `like` (the kernels write elements 0..n-1).
Tensor dense_like(OpenClBackend& be, const Tensor& like) {
  const Shape s = like.shape();
  return Tensor(be.allocate(static_cast<size_t>(like.numel()) * itemsize(like.dtype()), be.device()), s,
                contiguous_strides(s), 0, like.dtype());
}

// The ord codes of norms_xd.cl: 0, 1, 2, 3 (inf), 4 (-inf).
int ord_code(double ord) { return std::isinf(ord) ? (ord > 0 ? 3 : 4) : static_cast<int>(ord); }

}  // namespace

void OpenClBackend::lu_det(const Tensor& lu, const Tensor& pivots, const Tensor& det) {
  const int64_t count = lu.size(0), n = lu.size(1);
  if (count == 0) return;
  if (!fp64_programs()) {
    Tensor o = dense_like(*this, det);
    run(kernel("norms_xd.cl", "lu_det", out_opts(*this, det)), count, 0, buffer(lu), int64_t{lu.offset()},
        buffer(pivots), int64_t{pivots.offset()}, buffer(o), count, n);
    copy(o, det);
    return;
  }
  Tensor d = f64_buffer(*this, count);
  cl_kernel k = kernel("norms.cl", "lu_det", type_opts(lu.dtype()));
  run(k, count, 0, buffer(lu), int64_t{lu.offset()}, buffer(pivots), int64_t{pivots.offset()}, buffer(d), count, n);
  copy(d, det);
}

void OpenClBackend::lu_slogdet(const Tensor& lu, const Tensor& pivots, const Tensor& sign, const Tensor& logabsdet) {
  const int64_t count = lu.size(0), n = lu.size(1);
  if (count == 0) return;
  if (!fp64_programs()) {
    if (logabsdet.dtype() != sign.dtype())
      throw NotImplementedError("[linalg.slogdet] the opencl kernel writes sign and logabsdet in one dtype, got " +
                                std::string(name(sign.dtype())) + " and " + std::string(name(logabsdet.dtype())) +
                                " on " + device().str() + "; run it on cpu");
    const std::string opts = out_opts(*this, sign);
    Tensor so = dense_like(*this, sign), lo = dense_like(*this, logabsdet);
    run(kernel("norms_xd.cl", "lu_slogdet", opts), count, 0, buffer(lu), int64_t{lu.offset()}, buffer(pivots),
        int64_t{pivots.offset()}, buffer(so), buffer(lo), count, n);
    copy(so, sign);
    copy(lo, logabsdet);
    return;
  }
  Tensor s = f64_buffer(*this, count), l = f64_buffer(*this, count);
  cl_kernel k = kernel("norms.cl", "lu_slogdet", type_opts(lu.dtype()));
  run(k, count, 0, buffer(lu), int64_t{lu.offset()}, buffer(pivots), int64_t{pivots.offset()}, buffer(s), buffer(l),
      count, n);
  copy(s, sign);
  copy(l, logabsdet);
}

void OpenClBackend::vector_norm_rows(const Tensor& x0, double ord, const Tensor& out) {
  const int64_t rows = x0.size(0), cols = x0.size(1);
  if (rows == 0) return;
  // The front end sends the other orders to the CPU fallback (a pow per element).
  if (!(ord == 0 || ord == 1 || ord == 2 || std::isinf(ord)))
    throw NotImplementedError("[linalg.vector_norm] the opencl kernel takes ord 0, 1, 2, inf and -inf, got " +
                              std::to_string(ord) + "; run it on cpu");
  const Tensor x = readable(*this, x0);
  if (!fp64_programs()) {
    Tensor o = dense_like(*this, out);
    run(kernel("norms_xd.cl", "vector_norm_rows", out_opts(*this, out)), rows, 0, buffer(x), int64_t{x.offset()},
        buffer(o), rows, cols, int32_t{ord_code(ord)});
    copy(o, out);
    return;
  }
  Tensor o = f64_buffer(*this, rows);
  cl_kernel k = kernel("norms.cl", "vector_norm_rows", type_opts(x.dtype()));
  run(k, rows, 0, buffer(x), int64_t{x.offset()}, buffer(o), rows, cols, ord);
  copy(o, out);
}

void OpenClBackend::matrix_abs_sum_norm(const Tensor& x0, double ord, const Tensor& out) {
  const int64_t batch = x0.size(0), r = x0.size(1), c = x0.size(2);
  if (batch == 0) return;
  const Tensor x = readable(*this, x0);
  if (!fp64_programs()) {
    Tensor o = dense_like(*this, out);
    run(kernel("norms_xd.cl", "matrix_abs_sum_norm", out_opts(*this, out)), batch, 0, buffer(x),
        int64_t{x.offset()}, buffer(o), batch, r, c, int32_t{std::fabs(ord) == 1.0}, int32_t{ord > 0.0});
    copy(o, out);
    return;
  }
  Tensor o = f64_buffer(*this, batch);
  cl_kernel k = kernel("norms.cl", "matrix_abs_sum_norm", type_opts(x.dtype()));
  run(k, batch, 0, buffer(x), int64_t{x.offset()}, buffer(o), batch, r, c, ord);
  copy(o, out);
}

}  // namespace concord::detail::ocl
