// OpenCL index_select, gather and tril/triu (kernels/index.cl). Items are
// moved as raw 1/2/4/8-byte words, so one program per item size serves every
// dtype. Index values are checked by the kernel, which raises a flag instead
// of writing; the host reads the flag after the launch and raises the CPU
// backend's ShapeError (naming the first bad index in row-major order).
#include <string>

#include "backend/kernel_errors.h"
#include "backend/opencl/opencl_backend.h"
#include "core/nan_rule.h"

namespace concord::detail::ocl {
namespace {

// The reproducible mode's NaN rule in take's stores, for a floating out: the
// item's bits compared as integers (as canonicalize_nan does), so max/min
// (argmax, then gather), gather and index_select need no second pass.
std::string nan_rule_opts(Dtype t) {
  switch (t) {
    case Dtype::float16: return " -DNAN_ABS=0x7fff -DNAN_INF=0x7c00 -DNAN_CANON=0x7e00";
    case Dtype::bfloat16: return " -DNAN_ABS=0x7fff -DNAN_INF=0x7f80 -DNAN_CANON=0x7fc0";
    case Dtype::float32: return " -DNAN_ABS=0x7fffffffu -DNAN_INF=0x7f800000u -DNAN_CANON=0x7fc00000u";
    default:
      return " -DNAN_ABS=0x7ffffffffffffffful -DNAN_INF=0x7ff0000000000000ul -DNAN_CANON=0x7ff8000000000000ul";
  }
}

// out = x gathered along dim by `iv` (the index viewed with out's shape).
void take(OpenClBackend& be, const char* op, const Tensor& x, int64_t dim, const Tensor& index, const Tensor& iv,
          const Tensor& out) {
  if (out.numel() == 0) {
    if (index.numel() > 0) check_indices_on_host(op, index, x, dim);
    return;
  }
  Strides xs = x.strides();
  xs[dim] = 0;
  const Geom xg = kernel_geom_of(out.shape(), xs, x.offset(), "opencl", x.device());
  const Geom ig = kernel_geom_of(iv.shape(), iv.strides(), iv.offset(), "opencl", x.device());
  const bool rule = is_floating(out.dtype()) && nan_rule_in_stores();
  const std::string opts = std::string("-DE=") + item_type(x.dtype()) + " -DIT=" +
                           (index.dtype() == int32 ? "int" : "long") + (rule ? nan_rule_opts(out.dtype()) : "");
  Context& c = be.ctx();
  auto err = be.allocate(sizeof(cl_int), be.device());
  const cl_int zero = 0;
  c.write(static_cast<cl_mem>(err->ptr), 0, sizeof zero, &zero);
  be.run(be.kernel("index.cl", "take", opts), out.numel(), 64, buffer(x), xg, x.stride(dim),
      x.size(dim), buffer(index), ig, out.numel(), buffer(out), out.offset(), static_cast<cl_mem>(err->ptr));
  cl_int flag = 0;
  c.read(static_cast<cl_mem>(err->ptr), 0, sizeof flag, &flag);
  if (flag) check_indices_on_host(op, index, x, dim);
  if (rule) nan_rule_fused(out);  // every element of out went through the rule
}

}  // namespace

void OpenClBackend::index_select(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& out) {
  // The 1-D index spread over out's shape: its stride along dim, 0 elsewhere.
  Strides is(static_cast<size_t>(out.ndim()), 0);
  is[dim] = index.stride(0);
  const Tensor iv(index.storage(), out.shape(), is, index.offset(), index.dtype());
  take(*this, "index_select", x, dim, index, iv, out);
}

void OpenClBackend::gather(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& out) {
  take(*this, "gather", x, dim, index, index, out);
}

void OpenClBackend::tri(OpId op, const Tensor& x, int64_t diagonal, const Tensor& out) {
  if (out.numel() == 0) return;
  const int64_t nd = x.ndim();
  const int64_t R = x.size(nd - 2), C = x.size(nd - 1);
  const Geom xg = geom(x);
  const std::string opts = std::string("-DE=") + item_type(x.dtype());
  run(kernel("index.cl", "tri", opts), out.numel(), 64, buffer(x), xg, R, C, diagonal,
      static_cast<cl_int>(op == OpId::tril), out.numel(), buffer(out), out.offset());
}

}  // namespace concord::detail::ocl
