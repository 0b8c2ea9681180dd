// Shared steps of the linear algebra front ends (see linalg_common.h).
#include "ops/linalg_common.h"

#include <vector>

namespace concord::detail::la {

// The op table's label for a table op; the _ex variants and helpers share the prefix.
std::string tag(const char* op) {
  OpId id;
  return "[" + (parse_op(op, &id) ? op_label(id) : std::string("linalg.") + op) + "]";
}

std::string desc(const Tensor& t) { return describe(t) + " on " + t.device().str(); }

void check_floating(const char* op, const char* arg, const Tensor& t) {
  if (!t.defined())
    throw ValueError(tag(op) + " " + arg + " is undefined (default-constructed); create it first");
  if (!is_floating(t.dtype()))
    throw DtypeError(tag(op) + " is not defined for " + std::string(name(t.dtype())) + " (" + arg + " is " + desc(t) +
                     "); convert with " + arg + ".to(concord::float32) (or float64 for more accuracy)");
}

void check_same_dtype(const char* op, const char* an, const Tensor& a, const char* bn, const Tensor& b) {
  if (a.dtype() == b.dtype()) return;
  const std::string wider(name(promote_types(a.dtype(), b.dtype())));
  throw DtypeError(tag(op) + " " + an + " and " + bn + " must have the same dtype, got " + an + " " + desc(a) +
                   " and " + bn + " " + desc(b) + "; convert one with .to(concord::" + wider + ")");
}

int64_t check_square(const char* op, const char* arg, const Tensor& t) {
  if (t.ndim() < 2)
    throw ShapeError(tag(op) + " " + arg + " must be a (batch of) square matrices [*, n, n], got " + desc(t) +
                     "; a single matrix needs 2 dims");
  if (t.size(-1) != t.size(-2))
    throw ShapeError(tag(op) + " " + arg + " must be square in its last two dims, got " + desc(t) + " (" +
                     std::to_string(t.size(-2)) + " x " + std::to_string(t.size(-1)) + "); pass [*, n, n]");
  return t.size(-1);
}

Shape leading(const Shape& s, int64_t last) {
  return Shape(s.begin(), s.end() - std::min<int64_t>(last, static_cast<int64_t>(s.size())));
}

Shape concat(const Shape& a, std::initializer_list<int64_t> tail) {
  Shape s = a;
  for (int64_t v : tail) s.push_back(v);
  return s;
}

Shape broadcast_batch(const char* op, const Shape& ba, const Tensor& a, const Shape& bb, const Tensor& b) {
  try {
    return broadcast_shapes(ba, bb, op);
  } catch (const ShapeError&) {
    throw ShapeError(tag(op) + " batch dims " + shape_str(ba) + " of " + desc(a) + " and " + shape_str(bb) + " of " +
                     desc(b) + " do not broadcast; each batch dim must match or be 1");
  }
}

Dtype kernel_dtype(const Plan& p) { return p.compute == float64 ? float64 : float32; }

Device host_exec(const Plan& p) {
  if (memory_space(p.exec) != MemorySpace::host)
    throw NotImplementedError("[" + op_label(p.op) + "] the " + std::string(p.backend->kind_name()) +
                              " backend claims this op but it runs on host memory only; run it on cpu");
  return p.exec;
}

namespace {
Tensor move_to(const Plan& p, const Tensor& t, const Device& where, bool cast_first) {
  Tensor x = cast_first ? prepare_input(p, t) : t;
  return x.device() == where ? x : x.to(where);
}
bool fits(const Tensor& x, const Shape& shape, Dtype dt) {
  return x.dtype() == dt && x.shape() == shape && x.is_contiguous();
}
}  // namespace

Tensor working_copy(const Plan& p, const Tensor& t, const Shape& shape, Dtype dt, const Device& where,
                    bool cast_first) {
  Tensor x = move_to(p, t, where, cast_first);
  // A copy made just now by the move belongs to nobody else: the kernel may overwrite it.
  if (x.storage() != t.storage() && fits(x, shape, dt)) return x;
  Tensor w = empty(shape, dt, where);
  if (w.numel() > 0) w.copy_(x);
  return w;
}

Tensor read_copy(const Plan& p, const Tensor& t, const Shape& shape, Dtype dt, const Device& where, bool cast_first) {
  Tensor x = move_to(p, t, where, cast_first);
  if (fits(x, shape, dt)) return x;
  Tensor w = empty(shape, dt, where);
  if (w.numel() > 0) w.copy_(x);
  return w;
}

Tensor as3(const Tensor& t, int64_t count, int64_t r, int64_t c) { return t.view(Shape{count, r, c}); }

Tensor new_info(const Plan& p, int64_t count, bool zero) {
  Tensor info = empty(Shape{count}, int32, p.exec);
  if (zero && count > 0) p.backend->fill(info, 0);
  return info;
}

Tensor deliver(const Tensor& out, Dtype dtype, const Shape& shape) {
  Tensor r = out.view(shape);
  if (r.dtype() != dtype) r = r.to(dtype);  // rounded once, where the result is
  return r;
}

void check_info(const char* op, const Tensor& info, const Tensor& A, bool batched,
                const std::function<std::string(int32_t)>& what, const char* advice) {
  if (info.numel() == 0) return;
  const std::vector<int32_t> v = info.to_vector<int32_t>();
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] == 0) continue;
    const std::string where = batched ? " (batch element " + std::to_string(i) + ")" : "";
    throw LinAlgError(tag(op) + where + " " + what(v[i]) + "; A is " + desc(A) + ". " + advice);
  }
}

std::string singular_what(int32_t k) {
  const std::string s = std::to_string(k);
  return "the matrix is singular: U[" + s + "," + s + "] is zero (1-based, from the LU with partial pivoting)";
}

LU factor_inputs(const Plan& p, const Tensor& A) {
  const int64_t n = A.size(-1);
  const Shape batch = leading(A.shape(), 2);
  const int64_t count = numel(batch);
  LU r;
  r.count = count;
  r.n = n;
  r.lu = as3(working_copy(p, A, A.shape(), kernel_dtype(p), p.exec), count, n, n);
  r.pivots = empty(Shape{count, n}, int32, p.exec);
  r.info = new_info(p, count, !(count > 0 && n > 0));
  return r;
}

LU factor_outputs(const Plan& p, const Tensor& A, Tensor& src) {
  const int64_t n = A.size(-1);
  const int64_t count = numel(leading(A.shape(), 2));
  LU r;
  r.count = count;
  r.n = n;
  src = as3(read_copy(p, A, A.shape(), kernel_dtype(p), p.exec), count, n, n);
  // A fresh copy made by the move or the cast belongs to nobody else: the LU may overwrite it.
  r.lu = src.storage() != A.storage() ? src : empty(Shape{count, n, n}, kernel_dtype(p), p.exec);
  r.pivots = empty(Shape{count, n}, int32, p.exec);
  r.info = new_info(p, count, !(count > 0 && n > 0));
  return r;
}

LU factor(const Plan& p, const Tensor& A) {
  LU r = factor_inputs(p, A);
  if (r.count > 0 && r.n > 0) p.backend->lu_factor(r.lu, r.pivots, r.info);
  return r;
}

}  // namespace concord::detail::la
