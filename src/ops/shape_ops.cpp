// Shape front ends: cat, stack, split, chunk, index_select, gather, flip, tril, triu.
//
// cat/stack and flip have no kernels of their own: cat copies each input into
// a slice view of the output, flip copies a negative-stride view. split and
// chunk only make views. Index values are bounds-checked by the kernels (where
// the data is), not here.
#include <string>
#include <vector>

#include "concord/ops.h"
#include "core/dispatch.h"

namespace concord {

using detail::Arg;
using detail::Inputs;
using detail::Plan;
using detail::Prep;

namespace {

std::string at_pos(const Tensor& t, size_t i) { return detail::describe(t) + " at position " + std::to_string(i); }

void require_defined(const char* op, const Tensor& t, const char* what) {
  if (!t.defined())
    throw ValueError(std::string("[") + op + "] " + what + " is undefined (default-constructed); create it first");
}

// PyTorch keeps accepting 1-D empty tensors ([0]) in cat whatever the other shapes are.
bool legacy_empty(const Tensor& t) { return t.ndim() == 1 && t.size(0) == 0; }

Tensor moved(const Plan& p, const Tensor& t) { return t.device() == p.exec ? t : t.to(p.exec); }

// cat (and stack, which calls it with unsqueezed inputs under its own name).
Tensor concat(OpId op, const std::vector<Tensor>& xs, int64_t dim) {
  const std::string opn(op_name(op));
  const char* o = opn.c_str();
  if (xs.empty()) throw ValueError("[" + opn + "] expects a non-empty list of tensors");
  for (size_t i = 0; i < xs.size(); ++i) require_defined(o, xs[i], ("the tensor at position " + std::to_string(i)).c_str());
  for (size_t i = 1; i < xs.size(); ++i) detail::common_device(o, {&xs[0], &xs[i]});
  const Device dev = xs[0].device();
  // Result dtype over every input (skipped empty ones included, as in PyTorch).
  Dtype dtype = xs[0].dtype();
  for (const Tensor& x : xs) dtype = promote_types(dtype, x.dtype());
  const Tensor* ref = nullptr;
  size_t ref_pos = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    if (xs[i].ndim() == 0)
      throw ShapeError("[" + opn + "] cannot concatenate the 0-dim tensor " + at_pos(xs[i], i) + " on " + dev.str() +
                       "; unsqueeze it to 1-D first (or use stack)");
    if (!ref && !legacy_empty(xs[i])) { ref = &xs[i]; ref_pos = i; }
  }
  std::string shapes;
  for (size_t i = 0; i < xs.size() && i < 8; ++i) shapes += (i ? ", " : "") + shape_str(xs[i].shape());
  if (xs.size() > 8) shapes += ", ...";
  // widest: autocast changes nothing. The body moves the inputs one at a time (copy converts the dtype).
  detail::Dispatch d(op);
  auto describe = [&] { return shapes; };
  if (!ref)  // only legacy empty tensors: the result is one too
    return d.run_span(dev, dtype, describe, nullptr, 0,
                      [&](const Plan& p, const Inputs&) { return empty({0}, p.compute, p.exec); });
  const int64_t nd = ref->ndim();
  dim = wrap_dim(dim, nd, o);
  Shape shape = ref->shape();
  shape[dim] = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const Tensor& x = xs[i];
    if (legacy_empty(x) && nd != 1) continue;
    if (x.ndim() != nd)
      throw ShapeError("[" + opn + "] tensors must have the same number of dims: " + at_pos(*ref, ref_pos) + " and " +
                       at_pos(x, i) + " on " + dev.str() + "; reshape or unsqueeze them to match");
    for (int64_t d = 0; d < nd; ++d)
      if (d != dim && x.size(d) != ref->size(d))
        throw ShapeError("[" + opn + "] sizes must match except in dim " + std::to_string(dim) + ": " +
                         at_pos(*ref, ref_pos) + " and " + at_pos(x, i) + " differ in dim " + std::to_string(d) + " (" +
                         std::to_string(ref->size(d)) + " != " + std::to_string(x.size(d)) + ") on " + dev.str());
    shape[dim] += x.size(dim);
  }
  return d.run_span(dev, dtype, describe, nullptr, 0, [&](const Plan& p, const Inputs&) {
    Tensor out = empty(shape, p.compute, p.exec);
    int64_t off = 0;
    for (const Tensor& x : xs) {
      if (legacy_empty(x) && nd != 1) continue;
      const int64_t n = x.size(dim);
      if (n > 0 && out.numel() > 0) p.backend->copy(moved(p, x), out.narrow(dim, off, n));  // converts the dtype too
      off += n;
    }
    return out;
  });
}

}  // namespace

Tensor cat(const std::vector<Tensor>& xs, int64_t dim) { return concat(OpId::cat, xs, dim); }

Tensor stack(const std::vector<Tensor>& xs, int64_t dim) {
  if (xs.empty()) throw ValueError("[stack] expects a non-empty list of tensors");
  for (size_t i = 0; i < xs.size(); ++i)
    require_defined("stack", xs[i], ("the tensor at position " + std::to_string(i)).c_str());
  for (size_t i = 1; i < xs.size(); ++i)
    if (!(xs[i].shape() == xs[0].shape()))
      throw ShapeError("[stack] expects tensors of equal shape, got " + at_pos(xs[0], 0) + " and " + at_pos(xs[i], i) +
                       " on " + xs[0].device().str() + "; reshape them to one shape (or use cat)");
  dim = wrap_dim(dim, xs[0].ndim() + 1, "stack");
  std::vector<Tensor> us;
  us.reserve(xs.size());
  for (const Tensor& x : xs) us.push_back(x.unsqueeze(dim));
  return concat(OpId::stack, us, dim);
}

std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t dim) {
  require_defined("split", x, "the tensor");
  if (x.ndim() == 0) throw ShapeError("[split] cannot split the 0-dim tensor " + detail::describe(x));
  dim = wrap_dim(dim, x.ndim(), "split");
  const int64_t n = x.size(dim);
  if (split_size < 0 || (split_size == 0 && n > 0))
    throw ValueError("[split] split_size must be positive, got " + std::to_string(split_size) + " for dim " +
                     std::to_string(dim) + " of size " + std::to_string(n) + " in " + detail::describe(x));
  const int64_t parts = split_size == 0 ? 1 : std::max<int64_t>(1, (n + split_size - 1) / split_size);
  std::vector<Tensor> out;
  out.reserve(static_cast<size_t>(parts));
  for (int64_t i = 0; i < parts; ++i) {
    const int64_t start = i * split_size;
    out.push_back(x.narrow(dim, start, std::min(split_size, n - start)));
  }
  return out;
}

std::vector<Tensor> split(const Tensor& x, const std::vector<int64_t>& sizes, int64_t dim) {
  require_defined("split", x, "the tensor");
  if (x.ndim() == 0) throw ShapeError("[split] cannot split the 0-dim tensor " + detail::describe(x));
  dim = wrap_dim(dim, x.ndim(), "split");
  const int64_t n = x.size(dim);
  int64_t total = 0;
  std::string list;
  for (int64_t s : sizes) {
    list += (list.empty() ? "" : ", ") + std::to_string(s);
    if (s < 0) throw ValueError("[split] sizes must be >= 0, got [" + list + "...] for " + detail::describe(x));
    total += s;
  }
  if (total != n)
    throw ShapeError("[split] sizes [" + list + "] sum to " + std::to_string(total) + " but dim " + std::to_string(dim) +
                     " of " + detail::describe(x) + " has size " + std::to_string(n) + "; they must add up to it");
  std::vector<Tensor> out;
  out.reserve(sizes.size());
  int64_t start = 0;
  for (int64_t s : sizes) {
    out.push_back(x.narrow(dim, start, s));
    start += s;
  }
  return out;
}

std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim) {
  require_defined("chunk", x, "the tensor");
  if (chunks <= 0) throw ValueError("[chunk] chunks must be positive, got " + std::to_string(chunks));
  if (x.ndim() == 0) throw ShapeError("[chunk] cannot split the 0-dim tensor " + detail::describe(x));
  dim = wrap_dim(dim, x.ndim(), "chunk");
  const int64_t n = x.size(dim);
  // Like PyTorch: equal chunks of ceil(n / chunks), so fewer than `chunks` may come back.
  if (n == 0) return split(x, std::vector<int64_t>(static_cast<size_t>(chunks), 0), dim);
  return split(x, (n + chunks - 1) / chunks, dim);
}

Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index) {
  require_defined("index_select", x, "the input");
  require_defined("index_select", index, "the index");
  const Device dev = detail::common_device("index_select", {&x, &index});
  if (index.dtype() != int32 && index.dtype() != int64)
    throw DtypeError("[index_select] the index must be int32 or int64, got " + detail::describe(index) + " on " +
                     dev.str() + "; convert it with .to(concord::int64)");
  if (index.ndim() > 1)
    throw ShapeError("[index_select] the index must be 1-D, got " + detail::describe(index) + " for input " +
                     detail::describe(x) + " on " + dev.str() + "; flatten it (and reshape the result)");
  const int64_t n = index.numel();
  dim = wrap_dim(dim, std::max<int64_t>(1, x.ndim()), "index_select");
  if (x.ndim() == 0 && n != 1)
    throw ShapeError("[index_select] a 0-dim input takes exactly one index, got " + detail::describe(index) + " on " +
                     dev.str());
  const Tensor x1 = x.ndim() == 0 ? x.unsqueeze(0) : x;
  Shape shape = x1.shape();
  shape[dim] = n;
  const Tensor i1 = index.ndim() == 0 ? index.unsqueeze(0) : index;
  detail::Dispatch d(OpId::index_select, {&x1, &i1});
  return d.run(dev, x.dtype(), [&] { return detail::describe(x) + " and index " + detail::describe(index); },
               {Arg(x1), Arg(i1, Prep::move)}, [&](const Plan& p, const Inputs& in) {
                 Tensor out = empty(shape, p.compute, p.exec);
                 if (n > 0) p.backend->index_select(in[0], dim, in[1], out);  // checks every index, even when out is empty
                 return x.ndim() == 0 ? out.view({}) : out;
               });
}

Tensor gather(const Tensor& x, int64_t dim, const Tensor& index) {
  require_defined("gather", x, "the input");
  require_defined("gather", index, "the index");
  const Device dev = detail::common_device("gather", {&x, &index});
  if (index.dtype() != int64)
    throw DtypeError("[gather] the index must be int64, got " + detail::describe(index) + " on " + dev.str() +
                     "; convert it with .to(concord::int64)");
  if (index.ndim() != x.ndim())
    throw ShapeError("[gather] the index must have as many dims as the input: " + detail::describe(index) + " and " +
                     detail::describe(x) + " on " + dev.str() + "; unsqueeze the index");
  const int64_t nd = std::max<int64_t>(1, x.ndim());
  dim = wrap_dim(dim, nd, "gather");
  for (int64_t d = 0; d < x.ndim(); ++d)
    if (d != dim && index.size(d) > x.size(d))
      throw ShapeError("[gather] index " + detail::describe(index) + " is larger than input " + detail::describe(x) +
                       " in dim " + std::to_string(d) + " (" + std::to_string(index.size(d)) + " > " +
                       std::to_string(x.size(d)) + ") on " + dev.str() + "; only the gathered dim " +
                       std::to_string(dim) + " may be larger");
  const Tensor x1 = x.ndim() == 0 ? x.unsqueeze(0) : x;
  const Tensor i1 = index.ndim() == 0 ? index.unsqueeze(0) : index;
  detail::Dispatch d(OpId::gather, {&x1, &i1});
  return d.run(dev, x.dtype(), [&] { return detail::describe(x) + " and index " + detail::describe(index); },
               {Arg(x1), Arg(i1, Prep::move)}, [&](const Plan& p, const Inputs& in) {
                 Tensor out = empty(i1.shape(), p.compute, p.exec);
                 if (out.numel() > 0) p.backend->gather(in[0], dim, in[1], out);
                 return index.ndim() == 0 ? out.view({}) : out;
               });
}

Tensor flip(const Tensor& x, Dims dims) {
  require_defined("flip", x, "the input");
  const int64_t nd = x.ndim();
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(1, nd)), false);
  for (int64_t& d : dims) {
    d = wrap_dim(d, std::max<int64_t>(1, nd), "flip");
    if (seen[d])
      throw ShapeError("[flip] dim " + std::to_string(d) + " appears more than once in dims " + shape_str(dims) +
                       " for " + detail::describe(x) + "; list each dim once");
    seen[d] = true;
  }
  detail::Dispatch disp(OpId::flip, {&x});
  return disp.run(x.device(), x.dtype(), [&] { return detail::describe(x); }, {Arg(x)},
                  [&](const Plan& p, const Inputs& in) {
                    const Tensor& xx = in[0];
                    // A view that walks the flipped dims backwards; copying it gives the result.
                    Strides st = xx.strides();
                    int64_t offset = xx.offset();
                    for (int64_t d : dims) {
                      if (nd == 0 || xx.size(d) <= 1) continue;
                      offset += (xx.size(d) - 1) * st[d];
                      st[d] = -st[d];
                    }
                    const Tensor reversed(xx.storage(), xx.shape(), st, offset, xx.dtype());
                    Tensor out = empty(xx.shape(), xx.dtype(), p.exec);
                    if (out.numel() > 0) p.backend->copy(reversed, out);
                    return out;
                  });
}

namespace {
Tensor triangle(OpId op, const Tensor& x, int64_t diagonal) {
  const std::string opn(op_name(op));
  require_defined(opn.c_str(), x, "the input");
  if (x.ndim() < 2)
    throw ShapeError("[" + opn + "] expects at least 2 dims (a matrix or a batch of them), got " + detail::describe(x) +
                     " on " + x.device().str() + "; unsqueeze a vector first");
  detail::Dispatch d(op, {&x});
  return d.run(x.device(), x.dtype(), [&] { return detail::describe(x); }, {Arg(x)},
               [&](const Plan& p, const Inputs& in) {
                 Tensor out = empty(in[0].shape(), in[0].dtype(), p.exec);
                 if (out.numel() > 0) p.backend->tri(op, in[0], diagonal, out);
                 return out;
               });
}
}  // namespace

Tensor tril(const Tensor& x, int64_t diagonal) { return triangle(OpId::tril, x, diagonal); }
Tensor triu(const Tensor& x, int64_t diagonal) { return triangle(OpId::triu, x, diagonal); }

}  // namespace concord
