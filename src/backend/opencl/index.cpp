// OpenCL index_select, gather and tril/triu (kernels/index.cl). Items are
// moved as raw 1/2/4/8-byte words, so one program per item size serves every
// dtype. Index values are checked by the kernel, which raises a flag instead
// of writing; the host reads the flag after the launch and raises the CPU
// backend's ShapeError (naming the first bad index in row-major order).
#include <mutex>
#include <type_traits>
#include <vector>

#include "backend/opencl/opencl_backend.h"

namespace concord::detail::ocl {
namespace {

// Kernels take Geom by value, which Context::launch does not accept: the
// arguments are set here, under this file's lock (its kernels are used only here).
std::mutex launch_mu;

template <class T>
void set_arg(Context& c, cl_kernel k, cl_uint i, const T& v) {
  static_assert(std::is_trivially_copyable_v<T> && !std::is_same_v<T, bool>);
  check(clSetKernelArg(k, i, sizeof(T), &v), "clSetKernelArg (index.cl)", &c);
}

template <class... Args>
void run(Context& c, cl_kernel k, size_t global, const Args&... args) {
  if (global == 0) return;
  const size_t local = 64;
  global = (global + local - 1) / local * local;
  std::lock_guard lock(launch_mu);
  cl_uint i = 0;
  (set_arg(c, k, i++, args), ...);
  check(clEnqueueNDRangeKernel(c.queue(), k, 1, nullptr, &global, &local, 0, nullptr, nullptr),
        "clEnqueueNDRangeKernel (index.cl)", &c);
}

// Geometry of the view (shape, strides, offset): size-1 dims dropped, dims
// merged where the outer one continues the inner one.
Geom view_geom(const char* op, const Shape& shape, const Strides& strides, int64_t offset) {
  std::vector<int64_t> s, st;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    if (!s.empty() && st.back() == strides[d] * shape[d]) {
      s.back() *= shape[d];
      st.back() = strides[d];
      continue;
    }
    s.push_back(shape[d]);
    st.push_back(strides[d]);
  }
  if (s.size() > static_cast<size_t>(kMaxDims))
    throw ShapeError(std::string("[") + op + "] a view of shape " + shape_str(shape) +
                     " needs more than 8 dims on opencl after merging; make the input contiguous first");
  Geom g{};
  const int nd = static_cast<int>(s.size());
  for (int d = 0; d < kMaxDims; ++d) g.shape[d] = 1, g.strides[d] = 0;
  for (int j = 0; j < nd; ++j) g.shape[kMaxDims - nd + j] = s[j], g.strides[kMaxDims - nd + j] = st[j];
  g.offset = offset;
  g.ndim = nd;
  g.contiguous = nd == 0 || (nd == 1 && st[0] == 1);
  return g;
}

const char* item_type(Dtype t) {
  switch (itemsize(t)) {
    case 1: return "uchar";
    case 2: return "ushort";
    case 4: return "uint";
    default: return "ulong";
  }
}

// The CPU backend's error for the first index (row-major) outside [0, size).
void check_indices_on_host(const char* op, const Tensor& index, const Tensor& x, int64_t dim) {
  const int64_t size = x.size(dim);
  for (int64_t v : index.to_vector<int64_t>()) {
    if (v >= 0 && v < size) continue;
    throw ShapeError(std::string("[") + op + "] index " + std::to_string(v) + " is out of range for dim " +
                     std::to_string(dim) + " of size " + std::to_string(size) + " (input " +
                     std::string(name(x.dtype())) + shape_str(x.shape()) + " on " + x.device().str() +
                     "); indices must be in [0, " + std::to_string(size) + ") and negative indices are not allowed");
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
  const Geom xg = view_geom(op, out.shape(), xs, x.offset());
  const Geom ig = view_geom(op, iv.shape(), iv.strides(), iv.offset());
  const std::string opts = std::string("-DE=") + item_type(x.dtype()) + " -DIT=" +
                           (index.dtype() == int32 ? "int" : "long");
  Context& c = be.ctx();
  auto err = be.allocate(sizeof(cl_int), be.device());
  const cl_int zero = 0;
  c.write(static_cast<cl_mem>(err->ptr), 0, sizeof zero, &zero);
  run(c, be.kernel("index.cl", "take", opts), static_cast<size_t>(out.numel()), buffer(x), xg, x.stride(dim),
      x.size(dim), buffer(index), ig, out.numel(), buffer(out), out.offset(), static_cast<cl_mem>(err->ptr));
  cl_int flag = 0;
  c.read(static_cast<cl_mem>(err->ptr), 0, sizeof flag, &flag);
  if (flag) check_indices_on_host(op, index, x, dim);
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
  const Geom xg = view_geom(std::string(op_name(op)).c_str(), x.shape(), x.strides(), x.offset());
  const std::string opts = std::string("-DE=") + item_type(x.dtype());
  run(ctx_, kernel("index.cl", "tri", opts), static_cast<size_t>(out.numel()), buffer(x), xg, R, C, diagonal,
      static_cast<cl_int>(op == OpId::tril), out.numel(), buffer(out), out.offset());
}

}  // namespace concord::detail::ocl
