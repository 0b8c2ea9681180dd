// Linear front ends: matmul, mm, bmm, mv, dot, outer, addmm, baddbmm, linear.
//
// Every op reduces to one kernel, Backend::matmul(a [B,M,K], b [B,K,N],
// out [B,M,N], alpha, beta): vectors become 1-row / 1-column matrices and
// broadcast batch dims become stride-0 views, so nothing is copied here. The
// addend of addmm/baddbmm/linear is broadcast into out and the kernel adds the
// product to it (beta = 1 for BLAS): one pass over out, one rounding for the
// half types, where composing matmul + add would round twice.
#include <string>
#include <utility>

#include "concord/ops.h"
#include "core/dispatch.h"

namespace concord {

using detail::Arg;
using detail::Plan;

namespace {

std::string pair_str(const Tensor& a, const Tensor& b) { return shape_str(a.shape()) + " and " + shape_str(b.shape()); }

// Same device, same dtype (as in PyTorch: no implicit promotion for products).
Device check_operands(const char* op, const Tensor& a, const Tensor& b) {
  if (!a.defined() || !b.defined())
    throw ValueError(std::string("[") + op + "] an operand is undefined (default-constructed); create it first");
  const Device d = detail::common_device(op, {&a, &b});
  if (a.dtype() != b.dtype()) {
    const std::string wider(name(promote_types(a.dtype(), b.dtype())));
    throw DtypeError(std::string("[") + op + "] operands must have the same dtype, got " + detail::describe(a) +
                     " and " + detail::describe(b) + " on " + d.str() + "; convert one with .to(concord::" + wider +
                     ") (or both to the dtype you want)");
  }
  return d;
}

[[noreturn]] void mismatch(const char* op, const Tensor& a, const Tensor& b, int64_t ka, int64_t kb) {
  throw ShapeError(std::string("[") + op + "] shapes " + pair_str(a, b) + " cannot be multiplied (" + std::to_string(ka) +
                   " != " + std::to_string(kb) + ") for " + std::string(name(a.dtype())) + " on " + a.device().str() +
                   "; the last dim of the first operand must equal the " +
                   (b.ndim() == 1 ? "length of the second" : "second-to-last dim of the second") +
                   " (transpose one of them?)");
}

[[noreturn]] void rank_error(const char* op, const char* want, const Tensor& a, const Tensor& b) {
  throw ShapeError(std::string("[") + op + "] expects " + want + ", got " + detail::describe(a) + " and " +
                   detail::describe(b) + " on " + a.device().str() + "; use matmul() for other ranks");
}

// A [B, R, C] view of t with the batch dims bdims merged into one, if their
// strides allow it (always true for contiguous and stride-0 batches that line up).
bool merge_batch(const Tensor& t, int64_t nb, int64_t* stride) {
  int64_t s = 0;
  bool have = false;
  for (int64_t d = nb - 1; d >= 0; --d) {
    if (t.size(d) == 1) continue;
    if (!have) { s = t.stride(d); have = true; continue; }
    // Walking outward, each dim's stride must be the inner one times the inner size.
    int64_t inner = d + 1;
    while (t.size(inner) == 1) ++inner;
    if (t.stride(d) != t.stride(inner) * t.size(inner)) return false;
  }
  *stride = s;
  return true;
}

Tensor batch3(const Tensor& t, int64_t batch, int64_t bstride) {
  const int64_t n = t.ndim();
  return Tensor(t.storage(), Shape{batch, t.size(n - 2), t.size(n - 1)}, Strides{bstride, t.stride(n - 2), t.stride(n - 1)},
                t.offset(), t.dtype());
}

// Runs the kernel over a [..., M, K] and b [..., K, N] that already have the
// same (broadcast) batch dims; out is contiguous [..., M, N]. Batch dims that
// cannot be merged into one stride are looped over here.
void run_batched(const Plan& p, const Tensor& a, const Tensor& b, const Tensor& out, Scalar alpha, Scalar beta) {
  const int64_t nb = a.ndim() - 2;
  int64_t sa = 0, sb = 0;
  if (merge_batch(a, nb, &sa) && merge_batch(b, nb, &sb)) {
    int64_t batch = 1;
    for (int64_t d = 0; d < nb; ++d) batch *= a.size(d);
    p.backend->matmul(batch3(a, batch, sa), batch3(b, batch, sb), batch3(out, batch, out.size(-1) * out.size(-2)),
                      alpha, beta);
    return;
  }
  for (int64_t i = 0; i < a.size(0); ++i)
    run_batched(p, a.select(0, i), b.select(0, i), out.select(0, i), alpha, beta);
}

bool is_zero(const Scalar& s) { return s.to_double() == 0.0 && s.to_int() == 0; }

// beta·input + alpha·product; input (if any) broadcasts to the product's shape.
struct Addend {
  const Tensor* input = nullptr;
  Scalar beta = 0, alpha = 1;
};

// The shared tail of every op: the dispatcher moves/casts the operands, then
// views(x, y) gives x as [..., M, K] and y as [..., K, N] with equal batch
// dims (built after the move so that a fallback copies only the real elements).
template <class Views>
Tensor multiply(detail::Dispatch& d, const Device& dev, const Tensor& a, const Tensor& b, Shape out_shape, Views views,
                const Addend& add = {}) {
  static const Tensor kNone;
  // beta = 0 never reads input (NaN in it must not show), so it is neither moved nor copied.
  const bool use_input = add.input && !is_zero(add.beta);
  const Tensor& addend = use_input ? *add.input : kNone;
  auto describe = [&] { return add.input ? shape_str(add.input->shape()) + ", " + pair_str(a, b) : pair_str(a, b); };
  return d.run(dev, a.dtype(), describe, {Arg(a), Arg(b), Arg(addend)}, [&](const Plan& p, const detail::Inputs& in) {
    const auto [x, y] = views(in[0], in[1]);
    Shape full = x.shape();
    full.back() = y.size(-1);
    Tensor out = empty(full, p.compute, p.exec);
    if (out.numel() > 0) {
      if (use_input) p.backend->copy(in[2].expand(full), out);
      run_batched(p, x, y, out, add.alpha, use_input ? add.beta : Scalar(0));
    }
    return out.view(std::move(out_shape));
  });
}

using Pair = std::pair<Tensor, Tensor>;

}  // namespace

Tensor matmul(const Tensor& a0, const Tensor& b0) {
  detail::Dispatch d(OpId::matmul, {&a0, &b0});
  const Tensor& a = d.tensor(0);
  const Tensor& b = d.tensor(1);
  const Device dev = check_operands("matmul", a, b);
  if (a.ndim() == 0 || b.ndim() == 0)
    throw ShapeError("[matmul] both operands need at least 1 dim, got " + detail::describe(a) + " and " +
                     detail::describe(b) + " on " + dev.str() + "; use mul() for scalars");
  // 1-D operands become a row (left) or a column (right); the added dim is dropped from the result.
  const int64_t M = a.ndim() == 1 ? 1 : a.size(-2), K = a.size(-1);
  const int64_t Kb = b.ndim() == 1 ? b.size(0) : b.size(-2), N = b.ndim() == 1 ? 1 : b.size(-1);
  if (K != Kb) mismatch("matmul", a, b, K, Kb);
  const Shape ba(a.shape().begin(), a.shape().end() - std::min<int64_t>(2, a.ndim()));
  const Shape bb(b.shape().begin(), b.shape().end() - std::min<int64_t>(2, b.ndim()));
  Shape batch;
  try {
    batch = broadcast_shapes(ba, bb, "matmul");
  } catch (const ShapeError&) {
    throw ShapeError("[matmul] batch dims " + shape_str(ba) + " and " + shape_str(bb) + " of " + pair_str(a, b) +
                     " do not broadcast (" + std::string(name(a.dtype())) + " on " + dev.str() +
                     "); each batch dim must match or be 1");
  }
  Shape ea = batch, eb = batch, out_shape = batch;
  ea.push_back(M); ea.push_back(K);
  eb.push_back(K); eb.push_back(N);
  if (a.ndim() > 1) out_shape.push_back(M);
  if (b.ndim() > 1) out_shape.push_back(N);
  return multiply(d, dev, a, b, std::move(out_shape), [&](const Tensor& x, const Tensor& y) {
    return Pair((x.ndim() == 1 ? x.unsqueeze(0) : x).expand(ea), (y.ndim() == 1 ? y.unsqueeze(1) : y).expand(eb));
  });
}

Tensor mm(const Tensor& a0, const Tensor& b0) {
  detail::Dispatch d(OpId::mm, {&a0, &b0});
  const Tensor& a = d.tensor(0);
  const Tensor& b = d.tensor(1);
  const Device dev = check_operands("mm", a, b);
  if (a.ndim() != 2 || b.ndim() != 2) rank_error("mm", "two 2-D tensors [n, k] and [k, m]", a, b);
  if (a.size(1) != b.size(0)) mismatch("mm", a, b, a.size(1), b.size(0));
  return multiply(d, dev, a, b, Shape{a.size(0), b.size(1)},
                  [](const Tensor& x, const Tensor& y) { return Pair(x, y); });
}

Tensor bmm(const Tensor& a0, const Tensor& b0) {
  detail::Dispatch d(OpId::bmm, {&a0, &b0});
  const Tensor& a = d.tensor(0);
  const Tensor& b = d.tensor(1);
  const Device dev = check_operands("bmm", a, b);
  if (a.ndim() != 3 || b.ndim() != 3) rank_error("bmm", "two 3-D tensors [b, n, k] and [b, k, m]", a, b);
  if (a.size(0) != b.size(0))
    throw ShapeError("[bmm] batch sizes differ: " + pair_str(a, b) + " (" + std::to_string(a.size(0)) + " != " +
                     std::to_string(b.size(0)) + ") for " + std::string(name(a.dtype())) + " on " + dev.str() +
                     "; bmm does not broadcast, use matmul() to broadcast batch dims");
  if (a.size(2) != b.size(1)) mismatch("bmm", a, b, a.size(2), b.size(1));
  return multiply(d, dev, a, b, Shape{a.size(0), a.size(1), b.size(2)},
                  [](const Tensor& x, const Tensor& y) { return Pair(x, y); });
}

Tensor mv(const Tensor& a0, const Tensor& v0) {
  detail::Dispatch d(OpId::mv, {&a0, &v0});
  const Tensor& a = d.tensor(0);
  const Tensor& v = d.tensor(1);
  const Device dev = check_operands("mv", a, v);
  if (a.ndim() != 2 || v.ndim() != 1) rank_error("mv", "a 2-D matrix [n, k] and a 1-D vector [k]", a, v);
  if (a.size(1) != v.size(0)) mismatch("mv", a, v, a.size(1), v.size(0));
  return multiply(d, dev, a, v, Shape{a.size(0)},
                  [](const Tensor& x, const Tensor& y) { return Pair(x, y.unsqueeze(1)); });
}

Tensor dot(const Tensor& a0, const Tensor& b0) {
  detail::Dispatch d(OpId::dot, {&a0, &b0});
  const Tensor& a = d.tensor(0);
  const Tensor& b = d.tensor(1);
  const Device dev = check_operands("dot", a, b);
  if (a.ndim() != 1 || b.ndim() != 1) rank_error("dot", "two 1-D tensors", a, b);
  if (a.size(0) != b.size(0))
    throw ShapeError("[dot] vectors of different lengths: " + pair_str(a, b) + " (" + std::to_string(a.size(0)) +
                     " != " + std::to_string(b.size(0)) + ") for " + std::string(name(a.dtype())) + " on " + dev.str() +
                     "; both need the same number of elements");
  return multiply(d, dev, a, b, Shape{},
                  [](const Tensor& x, const Tensor& y) { return Pair(x.unsqueeze(0), y.unsqueeze(1)); });
}

Tensor outer(const Tensor& a0, const Tensor& b0) {
  detail::Dispatch d(OpId::outer, {&a0, &b0});
  const Tensor& a = d.tensor(0);
  const Tensor& b = d.tensor(1);
  const Device dev = check_operands("outer", a, b);
  if (a.ndim() != 1 || b.ndim() != 1) rank_error("outer", "two 1-D tensors [n] and [m]", a, b);
  // A product with k = 1: each element is one rounded multiplication.
  return multiply(d, dev, a, b, Shape{a.size(0), b.size(0)},
                  [](const Tensor& x, const Tensor& y) { return Pair(x.unsqueeze(1), y.unsqueeze(0)); });
}

// ---- products with an addend ----

namespace {

std::string on(const Tensor& t) { return detail::describe(t) + " on " + t.device().str(); }

// input, mat1, mat2: one device, one dtype; alpha and beta integral for integers.
Device check_addend(const char* op, const Tensor& input, const Tensor& m1, const Tensor& m2, const Scalar& beta,
                    const Scalar& alpha) {
  if (!input.defined())
    throw ValueError(std::string("[") + op + "] input is undefined (default-constructed); create it first");
  const Device d = check_operands(op, m1, m2);
  detail::common_device(op, {&input, &m1, &m2});
  if (input.dtype() != m1.dtype())
    throw DtypeError(std::string("[") + op + "] input " + on(input) + " and the matrices " + detail::describe(m1) +
                     ", " + detail::describe(m2) + " have different dtypes; convert input with .to(concord::" +
                     std::string(name(m1.dtype())) + ")");
  if (!is_floating(m1.dtype()) && (alpha.is_floating() || beta.is_floating()))
    throw ValueError(std::string("[") + op + "] " + std::string(name(m1.dtype())) + " operands on " + d.str() +
                     " take integer alpha and beta, got beta = " + beta.str() + ", alpha = " + alpha.str() +
                     "; pass integers, or convert the operands to a floating dtype");
  return d;
}

void check_broadcast(const char* op, const Tensor& input, const Shape& to, const Tensor& m1, const Tensor& m2) {
  if (input.ndim() <= static_cast<int64_t>(to.size())) {
    bool ok = true;
    for (int64_t i = 1; i <= input.ndim(); ++i) {
      const int64_t s = input.size(-i);
      ok = ok && (s == 1 || s == to[to.size() - static_cast<size_t>(i)]);
    }
    if (ok) return;
  }
  throw ShapeError(std::string("[") + op + "] input " + on(input) + " does not broadcast to the product's shape " +
                   shape_str(to) + " (" + pair_str(m1, m2) + "); give input that shape, or size 1 in the dims to "
                   "repeat it over");
}

}  // namespace

Tensor addmm(const Tensor& input_in, const Tensor& mat1_in, const Tensor& mat2_in, Scalar beta, Scalar alpha) {
  detail::Dispatch d(OpId::addmm, {&input_in, &mat1_in, &mat2_in});
  const Tensor& input = d.tensor(0);
  const Tensor& mat1 = d.tensor(1);
  const Tensor& mat2 = d.tensor(2);
  const Device dev = check_addend("addmm", input, mat1, mat2, beta, alpha);
  if (mat1.ndim() != 2 || mat2.ndim() != 2) rank_error("addmm", "two 2-D matrices [n, k] and [k, m]", mat1, mat2);
  if (mat1.size(1) != mat2.size(0)) mismatch("addmm", mat1, mat2, mat1.size(1), mat2.size(0));
  Shape out_shape{mat1.size(0), mat2.size(1)};
  check_broadcast("addmm", input, out_shape, mat1, mat2);
  return multiply(d, dev, mat1, mat2, std::move(out_shape),
                  [](const Tensor& x, const Tensor& y) { return Pair(x, y); }, {&input, beta, alpha});
}

Tensor baddbmm(const Tensor& input_in, const Tensor& batch1_in, const Tensor& batch2_in, Scalar beta, Scalar alpha) {
  detail::Dispatch d(OpId::baddbmm, {&input_in, &batch1_in, &batch2_in});
  const Tensor& input = d.tensor(0);
  const Tensor& batch1 = d.tensor(1);
  const Tensor& batch2 = d.tensor(2);
  const Device dev = check_addend("baddbmm", input, batch1, batch2, beta, alpha);
  if (batch1.ndim() != 3 || batch2.ndim() != 3)
    rank_error("baddbmm", "two 3-D tensors [b, n, k] and [b, k, m]", batch1, batch2);
  if (batch1.size(0) != batch2.size(0))
    throw ShapeError("[baddbmm] batch sizes differ: " + pair_str(batch1, batch2) + " (" +
                     std::to_string(batch1.size(0)) + " != " + std::to_string(batch2.size(0)) + ") for " +
                     std::string(name(batch1.dtype())) + " on " + dev.str() + "; give both the same batch size");
  if (batch1.size(2) != batch2.size(1)) mismatch("baddbmm", batch1, batch2, batch1.size(2), batch2.size(1));
  Shape out_shape{batch1.size(0), batch1.size(1), batch2.size(2)};
  check_broadcast("baddbmm", input, out_shape, batch1, batch2);
  return multiply(d, dev, batch1, batch2, std::move(out_shape),
                  [](const Tensor& x, const Tensor& y) { return Pair(x, y); }, {&input, beta, alpha});
}

Tensor linear(const Tensor& x0, const Tensor& weight_in, const Tensor& bias_in) {
  detail::Dispatch d(OpId::linear, {&x0, &weight_in, &bias_in});
  const Tensor& x = d.tensor(0);
  const Tensor& weight = d.tensor(1);
  const Tensor& bias = d.tensor(2);
  if (!x.defined() || !weight.defined())
    throw ValueError("[linear] the input or the weight is undefined (default-constructed); create it first");
  const Device dev = detail::common_device("linear", {&x, &weight, &bias});
  if (weight.ndim() != 2)
    throw ShapeError("[linear] the weight must be 2-D [out, in], got " + on(weight) + "; reshape it");
  if (x.ndim() == 0 || x.size(-1) != weight.size(1))
    throw ShapeError("[linear] input " + on(x) + " does not fit the weight " + on(weight) + ": its last dim must be " +
                     std::to_string(weight.size(1)) + " (in_features)");
  if (x.dtype() != weight.dtype())
    throw DtypeError("[linear] input " + on(x) + " and weight " + on(weight) + " have different dtypes; convert the "
                     "input with .to(concord::" + std::string(name(weight.dtype())) + ")");
  if (bias.defined() && !(bias.ndim() == 1 && bias.size(0) == weight.size(0)))
    throw ShapeError("[linear] the bias must be 1-D [" + std::to_string(weight.size(0)) + "] for the weight " +
                     on(weight) + ", got " + on(bias));
  if (bias.defined() && bias.dtype() != weight.dtype())
    throw DtypeError("[linear] bias " + on(bias) + " and weight " + on(weight) + " have different dtypes; convert "
                     "the bias with .to(concord::" + std::string(name(weight.dtype())) + ")");
  // x [..., M, in] times weightᵀ [in, out] shared by every batch (stride 0): the
  // CPU kernel turns a contiguous x into one tall product [batch·M, in] x [in, out].
  Shape out_shape(x.shape().begin(), x.shape().end() - 1);
  out_shape.push_back(weight.size(0));
  return multiply(d, dev, x, weight, std::move(out_shape),
                  [](const Tensor& a, const Tensor& w) {
                    Tensor a2 = a.ndim() == 1 ? a.unsqueeze(0) : a;
                    Shape eb(a2.shape().begin(), a2.shape().end() - 2);
                    eb.push_back(w.size(1));
                    eb.push_back(w.size(0));
                    return Pair(a2, w.t().expand(eb));
                  },
                  bias.defined() ? Addend{&bias, 1, 1} : Addend{});
}

}  // namespace concord
