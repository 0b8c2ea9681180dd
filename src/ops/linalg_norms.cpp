// Vector and matrix norms (linalg::vector_norm, linalg::matrix_norm).
//
// The reduced dims are moved last and the input read as rows [R, C] (or
// matrices [B, r, c]) by the backend's norm kernels, which accumulate in
// float64 (Backend::vector_norm_rows, matrix_abs_sum_norm); singular values
// come from LAPACK's gesdd on the host. What a device lacks (general p, the
// SVD orders, on devices without host memory) goes to the CPU once, counted.
#include <cmath>
#include <string>
#include <vector>

#include "backend/cpu/linalg_host.h"
#include "ops/linalg_common.h"

namespace concord::linalg {

using detail::Plan;
namespace la = detail::la;

namespace {

std::string ord_str(double ord) {
  if (std::isinf(ord)) return ord > 0 ? "inf" : "-inf";
  std::string s = std::to_string(ord);
  s.erase(s.find_last_not_of('0') + 1);
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

// Reduced dims of x, wrapped, in order, each once ({} = all).
std::vector<bool> reduced_dims(const char* op, const Tensor& x, const Dims& dims) {
  const int64_t nd = x.ndim();
  std::vector<bool> red(static_cast<size_t>(nd), dims.empty());
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, std::max<int64_t>(nd, 1), ("linalg." + std::string(op)).c_str());
    if (nd == 0) continue;  // a 0-dim tensor accepts dim 0 / -1 and reduces its one element
    if (red[static_cast<size_t>(w)])
      throw ShapeError(la::tag(op) + " dim " + std::to_string(d) + " appears twice in dims " + shape_str(dims) +
                       " for " + la::desc(x) + "; give each dim once");
    red[static_cast<size_t>(w)] = true;
  }
  return red;
}

// x permuted to [kept..., reduced...] (a view); kept/out shapes for the result.
struct Layout {
  Shape perm, kept, out_shape;
  int64_t outer = 1, inner = 1;
};

Layout layout_of(const Tensor& x, const std::vector<bool>& red, bool keepdim) {
  Layout l;
  for (int64_t d = 0; d < x.ndim(); ++d)
    if (!red[static_cast<size_t>(d)]) { l.perm.push_back(d); l.kept.push_back(x.size(d)); l.outer *= x.size(d); }
  for (int64_t d = 0; d < x.ndim(); ++d)
    if (red[static_cast<size_t>(d)]) { l.perm.push_back(d); l.inner *= x.size(d); }
  for (int64_t d = 0; d < x.ndim(); ++d) {
    if (!red[static_cast<size_t>(d)]) l.out_shape.push_back(x.size(d));
    else if (keepdim) l.out_shape.push_back(1);
  }
  return l;
}

// The input as a contiguous [kept..., reduced...] tensor on `where` (the exec device).
Tensor exec_input(const Plan& p, const Tensor& x, const Layout& l, Dtype dt, bool fresh, const Device& where) {
  Shape shape = l.kept;
  for (size_t i = l.kept.size(); i < l.perm.size(); ++i) shape.push_back(x.size(l.perm[i]));
  // Move first (unpermuted, one transfer), then permute where the data is.
  Tensor moved = x;
  if (moved.device() != where) moved = moved.to(where);
  Tensor v = moved.permute(l.perm);
  if (fresh) return la::working_copy(p, v, shape, dt, where, /*cast_first=*/false);
  return la::read_copy(p, v, shape, dt, where, /*cast_first=*/false);
}

// d.tensor(0) is x after autocast.
Tensor vector_norm_impl(detail::Dispatch& d, const char* op, const Tensor& x, double ord, const Dims& dims,
                        bool keepdim) {
  const OpId id = d.op();
  la::check_floating(op, id == OpId::vector_norm ? "x" : "A", x);
  if (std::isnan(ord))
    throw ValueError(la::tag(op) + " ord is NaN for " + la::desc(x) + "; pass a number, inf or -inf");
  std::vector<bool> red = reduced_dims(op, x, dims);
  // A 0-dim tensor is read as one element [1] (its result stays 0-dim).
  const bool scalar = x.ndim() == 0;
  const Tensor xs = scalar ? x.unsqueeze(0) : x;
  if (scalar) red = {true};
  Layout l = layout_of(xs, red, keepdim);
  if (scalar) l.out_shape = Shape{};
  // As in PyTorch: inf and negative orders have no identity over zero elements
  // (min of nothing, or a sum of 0 raised to a negative power), so they raise.
  if ((std::isinf(ord) || ord < 0) && l.inner == 0 && l.outer > 0)
    throw ShapeError(la::tag(op) + " ord = " + ord_str(ord) + " over zero elements has no value (" + la::desc(x) +
                     ", dims " + shape_str(dims) + "); use ord 0 or a positive finite ord, or reduce a non-empty dim");
  // General p needs pow per element, which only the host loops have.
  const bool device_ord = ord == 0 || ord == 1 || ord == 2 || std::isinf(ord);
  const std::string host_only = device_ord ? std::string() : "ord = " + ord_str(ord);
  return d.run(
      x.device(), x.dtype(), [&] { return shape_str(x.shape()); }, {detail::Arg(xs, detail::Prep::none)},
      [&](const Plan& p, const detail::Inputs&) {
        Tensor in = exec_input(p, xs, l, x.dtype(), false, p.exec).view(Shape{l.outer, l.inner});
        Tensor out = empty(Shape{l.outer}, x.dtype(), in.device());
        if (l.outer > 0) p.backend->vector_norm_rows(in, ord, out);
        return la::deliver(out, x.dtype(), l.out_shape);
      },
      -1, device_ord ? nullptr : host_only.c_str());
}

// The two matrix dims of A, wrapped and distinct.
std::vector<bool> matrix_dims(const Tensor& A, const Dims& dims) {
  const char* op = "matrix_norm";
  if (A.ndim() < 2)
    throw ShapeError(la::tag(op) + " A must have at least 2 dims, got " + la::desc(A) +
                     "; use vector_norm for vectors");
  if (dims.size() != 2)
    throw ShapeError(la::tag(op) + " dims must name 2 dims, got " + shape_str(dims) + " for " + la::desc(A));
  const char* wop = "linalg.matrix_norm";
  const int64_t d0 = wrap_dim(dims[0], A.ndim(), wop), d1 = wrap_dim(dims[1], A.ndim(), wop);
  if (d0 == d1)
    throw ShapeError(la::tag(op) + " dims " + shape_str(dims) + " name the same dim twice for " + la::desc(A));
  std::vector<bool> red(static_cast<size_t>(A.ndim()), false);
  red[static_cast<size_t>(d0)] = red[static_cast<size_t>(d1)] = true;
  return red;
}

// matrix_norm for the orders other than "fro": rows and columns in the order of dims.
Tensor matrix_norm_impl(detail::Dispatch& d, const Tensor& A, double ord, bool nuc, const Dims& dims, bool keepdim) {
  const char* op = "matrix_norm";
  la::check_floating(op, "A", A);
  const std::vector<bool> red = matrix_dims(A, dims);
  Layout l = layout_of(A, red, keepdim);
  // Rows are dims[0], columns dims[1] (the layout put them in increasing order).
  const int64_t d0 = wrap_dim(dims[0], A.ndim(), op), d1 = wrap_dim(dims[1], A.ndim(), op);
  l.perm[l.perm.size() - 2] = d0;
  l.perm[l.perm.size() - 1] = d1;
  const int64_t r = A.size(d0), c = A.size(d1), k = std::min(r, c);
  const bool svd = nuc || std::fabs(ord) == 2;
  const bool empty_extreme = svd ? (!nuc && k == 0) : (std::fabs(ord) == 1 ? c == 0 : r == 0);
  if (empty_extreme && l.outer > 0)
    throw ShapeError(la::tag(op) + " ord = " + (nuc ? std::string("nuc") : ord_str(ord)) + " of an empty matrix " +
                     la::desc(A) + " has no value (a max or min over zero elements)");
  // Singular values come from LAPACK on the host.
  const std::string host_only = nuc ? "ord = nuc" : "ord = " + ord_str(ord) + " (singular values)";
  return d.run(
      A.device(), A.dtype(), [&] { return shape_str(A.shape()); }, {detail::Arg(A, detail::Prep::none)},
      [&](const Plan& p, const detail::Inputs&) {
        Tensor out;
        if (!svd) {
          Tensor in = exec_input(p, A, l, A.dtype(), false, p.exec).view(Shape{l.outer, r, c});
          out = empty(Shape{l.outer}, A.dtype(), in.device());
          if (l.outer > 0) p.backend->matrix_abs_sum_norm(in, ord, out);
        } else {
          // gesdd overwrites its input: a fresh copy in the kernel dtype.
          const Dtype kd = la::kernel_dtype(p);
          Tensor in = exec_input(p, A, l, kd, true, la::host_exec(p)).view(Shape{l.outer, r, c});
          Tensor s = empty(Shape{l.outer, k}, kd, in.device());
          if (l.outer > 0 && k > 0) detail::cpu::singular_values(in, s);
          // Reduce the singular values on the host with the vector-norm loops:
          // nuc = sum (ord 1), 2 = max (ord inf), -2 = min (ord -inf).
          out = empty(Shape{l.outer}, kd, in.device());
          const double vord = nuc ? 1.0 : (ord > 0 ? INFINITY : -INFINITY);
          if (l.outer > 0) detail::cpu::vector_norm_rows(s, vord, out);
        }
        return la::deliver(out, A.dtype(), l.out_shape);
      },
      -1, svd ? host_only.c_str() : nullptr);
}

}  // namespace

Tensor vector_norm(const Tensor& x, double ord, Dims dims, bool keepdim) {
  detail::Dispatch d(OpId::vector_norm, {&x});
  return vector_norm_impl(d, "vector_norm", d.tensor(0), ord, dims, keepdim);
}

Tensor matrix_norm(const Tensor& A0, std::string_view ord, Dims dims, bool keepdim) {
  detail::Dispatch d(OpId::matrix_norm, {&A0});
  const Tensor& A = d.tensor(0);
  if (ord == "fro") {
    la::check_floating("matrix_norm", "A", A);
    const std::vector<bool> red = matrix_dims(A, dims);
    Dims both;
    for (int64_t i = 0; i < A.ndim(); ++i)
      if (red[static_cast<size_t>(i)]) both.push_back(i);
    return vector_norm_impl(d, "matrix_norm", A, 2.0, both, keepdim);
  }
  if (ord == "nuc") return matrix_norm_impl(d, A, 0, true, dims, keepdim);
  throw ValueError("[linalg.matrix_norm] ord \"" + std::string(ord) +
                   "\" is not a matrix norm; use \"fro\", \"nuc\", 1, -1, 2, -2, inf or -inf");
}

Tensor matrix_norm(const Tensor& A0, double ord, Dims dims, bool keepdim) {
  detail::Dispatch d(OpId::matrix_norm, {&A0});
  const Tensor& A = d.tensor(0);
  const double a = std::fabs(ord);
  if (!(a == 1 || a == 2 || std::isinf(a)))
    throw ValueError("[linalg.matrix_norm] ord = " + ord_str(ord) + " is not a matrix norm for " + la::desc(A) +
                     "; use 1, -1, 2, -2, inf, -inf, \"fro\" or \"nuc\" (vector_norm takes any p)");
  return matrix_norm_impl(d, A, ord, false, dims, keepdim);
}

}  // namespace concord::linalg
