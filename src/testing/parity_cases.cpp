// The parity sweep's cases (concord/parity.h): the elementwise ones from the
// op table's rows, the others by family. Inputs are seeded and built on the
// CPU; the sweep moves them to each device.
#include <algorithm>
#include <cmath>
#include <limits>

#include "concord/creation.h"
#include "concord/linalg.h"
#include "concord/parity.h"

namespace concord::testing {

namespace {

using Ts = std::vector<Tensor>;
const DtypeSet kFloat = kFloatingDtypes;
const DtypeSet kNum = kFloatingDtypes | kIntegralDtypes;
const DtypeSet kAll = DtypeSet::all();

// Uniform values in [lo, hi) of dtype t (integers: randint in the same range, clipped to the dtype).
Tensor uniform(Shape s, Dtype t, uint64_t seed, double lo, double hi) {
  if (t == bool_) return randint(0, 2, s, int64, kCPU, seed).to(bool_);
  if (!is_floating(t)) {
    int64_t l = static_cast<int64_t>(lo), h = static_cast<int64_t>(hi);
    if (t == uint8) l = std::max<int64_t>(l, 0);
    if (h <= l) h = l + 1;
    return randint(l, h, s, int64, kCPU, seed).to(t);
  }
  return add(mul(rand(s, float64, kCPU, seed), hi - lo), lo).to(t);
}

// Values every float op must survive: signed zeros, infinities, NaN, extremes,
// subnormals (of float32, float64 and the halves), ties, ordinary values. 5x5
// so that a binary case can pair it with its own transpose.
Tensor specials(Dtype t) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> v = {0.0,  -0.0,   inf,    -inf,  NAN,     1.0,    -1.0,     0.5,     -2.5,
                           3.0,  1e-3,   -7.25,  100.0, 1e4,     -6e4,   65504.0,  1e-40,   -3e-39,
                           6e-8, -1e-310, 1e-300, 2.5,  1e30,    -0.75,  0.1};
  return from_vector(v, {5, 5}).to(t);
}

// A row of the op table as a case's model and bound.
void table_model(ParityCase& c) {
  const OpDef& d = op_def(c.op);
  c.model = d.model;
  c.bound = d.bound;
}

Ts one(Tensor a) { return {std::move(a)}; }

struct Builder {
  std::vector<ParityCase>& out;
  bool quick;

  ParityCase make(OpId op, std::string variant, DtypeSet dts, std::function<Ts(Dtype, uint64_t)> mk,
                  std::function<Tensor(const Ts&)> run) {
    ParityCase c;
    c.op = op;
    c.variant = std::move(variant);
    c.dtypes = dts & op_def(op).dtypes;
    c.make = std::move(mk);
    c.run = std::move(run);
    table_model(c);
    return c;
  }
  void add(ParityCase c) { out.push_back(std::move(c)); }

  // Every unary op of the table, from its row.
  void unary(OpId op) {
    const OpDef& d = op_def(op);
    const double lo = d.lo, hi = d.hi;
    auto run = [op](const Ts& x) { return concord::unary(op, x[0]); };
    const DtypeSet all = d.dtypes;
    add(make(op, "odd 37x53", all, [=](Dtype t, uint64_t s) { return one(uniform({37, 53}, t, s, lo, hi)); }, run));
    add(make(op, "transposed", all, [=](Dtype t, uint64_t s) { return one(uniform({29, 31}, t, s, lo, hi).t()); }, run));
    add(make(op, "empty", all, [=](Dtype t, uint64_t) { return one(zeros({0, 5}, t)); }, run));
    if (!quick) add(make(op, "one", all, [=](Dtype t, uint64_t s) { return one(uniform({1}, t, s, lo, hi)); }, run));
    add(make(op, "special", kFloat, [](Dtype t, uint64_t) { return one(specials(t)); }, run));
  }

  // Every binary op of the table, from its row (the second operand has its own range).
  void binary(OpId op) {
    const OpDef& d = op_def(op);
    const double lo = d.lo, hi = d.hi, blo = d.lo2, bhi = d.hi2;
    auto run = [op](const Ts& x) { return concord::binary(op, x[0], x[1]); };
    const DtypeSet all = d.dtypes;
    add(make(op, "odd 37x53", all, [=](Dtype t, uint64_t s) {
      return Ts{uniform({37, 53}, t, s, lo, hi), uniform({37, 53}, t, s + 1, blo, bhi)}; }, run));
    add(make(op, "broadcast", all, [=](Dtype t, uint64_t s) {
      return Ts{uniform({37, 1}, t, s, lo, hi), uniform({53}, t, s + 1, blo, bhi)}; }, run));
    add(make(op, "transposed", all, [=](Dtype t, uint64_t s) {
      return Ts{uniform({23, 19}, t, s, lo, hi).t(), uniform({19, 23}, t, s + 1, blo, bhi)}; }, run));
    add(make(op, "empty", all, [=](Dtype t, uint64_t) { return Ts{zeros({0, 3}, t), zeros({1, 3}, t)}; }, run));
    add(make(op, "special", kFloat, [](Dtype t, uint64_t) { return Ts{specials(t), specials(t).t()}; }, run));
  }

  void reduction(OpId op, std::function<Tensor(const Tensor&, const Dims&)> f, double lo = -1, double hi = 1) {
    for (auto [variant, shape, dims, transpose] :
         std::vector<std::tuple<std::string, Shape, std::vector<int64_t>, bool>>{
             {"all 10001", {10001}, {}, false}, {"dim 1 of 37x53", {37, 53}, {1}, false},
             {"dim 0 of 37x53", {37, 53}, {0}, false}, {"transposed dim 1", {41, 23}, {1}, true},
             {"empty", {0, 4}, {0}, false}}) {
      if (quick && variant == "transposed dim 1") continue;
      auto run = [f, d = dims](const Ts& x) { return f(x[0], Dims(d)); };
      ParityCase pc = make(op, variant, DtypeSet::all(), [=](Dtype t, uint64_t s) {
        Tensor x = uniform(shape, t, s, lo, hi);
        return one(transpose ? x.t() : x); }, run);
      pc.dims = dims;
      add(std::move(pc));
    }
  }
};

}  // namespace

std::vector<ParityCase> parity_cases(bool quick) {
  std::vector<ParityCase> out;
  Builder b{out, quick};

  // ---- elementwise: every unary and binary op, from its row ----
  for (int i = 0; i < kNumOps; ++i) {
    const OpId op = static_cast<OpId>(i);
    if (op_def(op).family == OpFamily::unary) b.unary(op);
    if (op_def(op).family == OpFamily::binary) b.binary(op);
  }
  b.add(b.make(OpId::where, "broadcast", kAll, [](Dtype t, uint64_t s) {
    return Ts{uniform({37, 1}, bool_, s, 0, 2), uniform({53}, t, s + 1, -9, 9), uniform({37, 53}, t, s + 2, -9, 9)}; },
    [](const Ts& x) { return where(x[0], x[1], x[2]); }));
  b.add(b.make(OpId::clamp, "odd 37x53", kNum, [](Dtype t, uint64_t s) { return one(uniform({37, 53}, t, s, -20, 20)); },
               [](const Ts& x) { return clamp(x[0], Scalar(-5), Scalar(7)); }));
  // Casts: float values (with specials) to every dtype, and every dtype to float32.
  for (Dtype to : kAllDtypes) {
    ParityCase c = b.make(OpId::copy, "to " + std::string(name(to)), kFloat, [](Dtype t, uint64_t s) {
      return Ts{cat({uniform({61}, t, s, -300, 300), specials(t).flatten()}, 0)}; },
      [to](const Ts& x) { return x[0].to(to); });
    c.float_inputs = false;
    b.add(std::move(c));
  }
  b.add(b.make(OpId::copy, "from every dtype to float32", kAll, [](Dtype t, uint64_t s) {
    return one(uniform({7, 11}, t, s, -100, 100).t()); }, [](const Ts& x) { return x[0].to(float32); }));

  // ---- creation and random: the same bits on every device ----
  auto created = [&](OpId op, std::function<Tensor(Dtype, const Device&)> f) {
    // The inputs are empty: run() gets the device through a 0-element tensor of the dtype.
    b.add(b.make(op, "on the device", op_def(op).dtypes, [](Dtype t, uint64_t) { return one(zeros({0}, t)); },
                 [f](const Ts& x) { return f(x[0].dtype(), x[0].device()); }));
  };
  created(OpId::fill, [](Dtype t, const Device& d) { return full({9, 7}, 3, t, d); });
  created(OpId::arange, [](Dtype t, const Device& d) { return arange(-3, 40, 2, t, d); });
  created(OpId::linspace, [](Dtype t, const Device& d) { return linspace(-1.5, 7.25, 33, t, d); });
  created(OpId::eye, [](Dtype t, const Device& d) { return eye(9, 13, t, d); });
  for (OpId op : {OpId::rand, OpId::randn, OpId::randint}) {
    ParityCase c = b.make(op, "seed 11, 10007", op_def(op).dtypes, [](Dtype, uint64_t) { return Ts{}; }, nullptr);
    if (op == OpId::randint) c.dtypes = kNum;
    b.add(std::move(c));
  }

  // ---- reductions ----
  using D = const Dims&;
  b.reduction(OpId::sum, [](const Tensor& x, D d) { return sum(x, d); });
  b.reduction(OpId::mean, [](const Tensor& x, D d) { return mean(x, d); });
  b.reduction(OpId::prod, [](const Tensor& x, D d) { return prod(x, d); }, 0.999, 1.001);
  b.reduction(OpId::amax, [](const Tensor& x, D d) { return amax(x, d); }, -100, 100);
  b.reduction(OpId::amin, [](const Tensor& x, D d) { return amin(x, d); }, -100, 100);
  b.reduction(OpId::var, [](const Tensor& x, D d) { return var(x, d); });
  b.reduction(OpId::std, [](const Tensor& x, D d) { return std(x, d); });
  b.reduction(OpId::norm, [](const Tensor& x, D d) { return norm(x, 2.0, d); });
  b.reduction(OpId::all, [](const Tensor& x, D d) { return all(x, d); }, 0, 2);
  b.reduction(OpId::any, [](const Tensor& x, D d) { return any(x, d); }, 0, 2);
  b.reduction(OpId::logsumexp, [](const Tensor& x, D d) { return logsumexp(x, d.empty() ? Dims{0} : d); }, -5, 5);
  // max/min over all elements, and along a dim (values; their indices are argmax/argmin).
  b.add(b.make(OpId::max, "all of 37x53", kNum, [](Dtype t, uint64_t s) { return one(uniform({37, 53}, t, s, -100, 100)); },
               [](const Ts& x) { return max(x[0]); }));
  b.add(b.make(OpId::min, "dim 0 of 37x53", kNum, [](Dtype t, uint64_t s) { return one(uniform({37, 53}, t, s, -100, 100)); },
               [](const Ts& x) { return min(x[0], 0).values; }));
  for (OpId op : {OpId::argmax, OpId::argmin, OpId::softmax, OpId::log_softmax, OpId::cumsum}) {
    auto run = [op](const Ts& x) {
      switch (op) {
        case OpId::argmax: return argmax(x[0], int64_t{1});
        case OpId::argmin: return argmin(x[0], int64_t{0});
        case OpId::softmax: return softmax(x[0], 1);
        case OpId::log_softmax: return log_softmax(x[0], 1);
        default: return cumsum(x[0], 1);
      }
    };
    b.add(b.make(op, "dim 1 of 37x53", kAll, [](Dtype t, uint64_t s) { return one(uniform({37, 53}, t, s, -5, 5)); }, run));
    b.add(b.make(op, "transposed", kAll, [](Dtype t, uint64_t s) { return one(uniform({41, 23}, t, s, -5, 5).t()); }, run));
  }

  // ---- linear ----
  auto mm_case = [&](OpId op, const std::string& variant, Shape sa, Shape sb, bool ta,
                     std::function<Tensor(const Tensor&, const Tensor&)> f) {
    ParityCase c = b.make(op, variant, kNum, [=](Dtype t, uint64_t s) {
      Tensor a = uniform(sa, t, s, -2, 2), bb = uniform(sb, t, s + 1, -2, 2);
      return Ts{ta ? a.transpose(-1, -2) : a, bb}; }, [f](const Ts& x) { return f(x[0], x[1]); });
    c.model = ErrorModel::matmul;
    c.bound = 2;
    b.add(std::move(c));
  };
  mm_case(OpId::matmul, "odd 37x29 @ 29x41", {37, 29}, {29, 41}, false, [](const Tensor& a, const Tensor& c) { return matmul(a, c); });
  mm_case(OpId::matmul, "transposed A", {29, 37}, {29, 41}, true, [](const Tensor& a, const Tensor& c) { return matmul(a, c); });
  mm_case(OpId::matmul, "batch broadcast", {2, 1, 8, 5}, {3, 5, 7}, false, [](const Tensor& a, const Tensor& c) { return matmul(a, c); });
  mm_case(OpId::matmul, "k = 0", {4, 0}, {0, 3}, false, [](const Tensor& a, const Tensor& c) { return matmul(a, c); });
  mm_case(OpId::mm, "37x29 @ 29x41", {37, 29}, {29, 41}, false, [](const Tensor& a, const Tensor& c) { return mm(a, c); });
  mm_case(OpId::bmm, "4 x 16x33 @ 33x9", {4, 16, 33}, {4, 33, 9}, false, [](const Tensor& a, const Tensor& c) { return bmm(a, c); });
  mm_case(OpId::mv, "37x101 @ 101", {37, 101}, {101}, false, [](const Tensor& a, const Tensor& c) { return mv(a, c); });
  mm_case(OpId::dot, "1001", {1001}, {1001}, false, [](const Tensor& a, const Tensor& c) { return dot(a, c); });
  mm_case(OpId::outer, "17 x 23", {17}, {23}, false, [](const Tensor& a, const Tensor& c) { return outer(a, c); });
  // Products with an addend. With beta = 0 (over a NaN input, which must not
  // show) or no bias the result is the product alone: the matmul model applies.
  auto nan_like = [](const Tensor& a, Shape shape) {
    return full(std::move(shape), is_floating(a.dtype()) ? std::nan("") : 7.0, a.dtype(), a.device());
  };
  mm_case(OpId::addmm, "beta 0 over NaN 37x29 @ 29x41", {37, 29}, {29, 41}, false,
          [nan_like](const Tensor& a, const Tensor& c) { return addmm(nan_like(a, {a.size(0), c.size(1)}), a, c, 0); });
  mm_case(OpId::baddbmm, "beta 0 over NaN 4 x 16x33 @ 33x9", {4, 16, 33}, {4, 33, 9}, false,
          [nan_like](const Tensor& a, const Tensor& c) { return baddbmm(nan_like(a, {a.size(0), a.size(1), c.size(2)}), a, c, 0); });
  mm_case(OpId::linear, "no bias [2, 5, 29] x [41, 29]^T", {2, 5, 29}, {29, 41}, false,
          [](const Tensor& x, const Tensor& wt) { return linear(x, wt.t()); });
  // With the addend: |C - Ĉ| <= c·n·u·(|Ĉ| + S), n = k / m, values in [-2, 2].
  auto add_case = [&](OpId op, const std::string& variant, Shape sa, Shape sb, Shape si, std::function<Tensor(const Ts&)> f) {
    ParityCase c = b.make(op, variant, kNum, [=](Dtype t, uint64_t s) {
      return Ts{uniform(sa, t, s, -2, 2), uniform(sb, t, s + 1, -2, 2), uniform(si, t, s + 2, -2, 2)}; }, f);
    c.model = ErrorModel::relative;
    c.bound = 8;
    b.add(std::move(c));
  };
  add_case(OpId::addmm, "broadcast row 33x64 @ 64x16 + 16", {33, 64}, {64, 16}, {16}, [](const Ts& x) { return addmm(x[2], x[0], x[1]); });
  add_case(OpId::addmm, "beta 3 alpha -2", {33, 64}, {64, 16}, {33, 16}, [](const Ts& x) { return addmm(x[2], x[0], x[1], 3, -2); });
  add_case(OpId::baddbmm, "3 x 9x40 @ 40x10 + 9x10", {3, 9, 40}, {3, 40, 10}, {9, 10}, [](const Ts& x) { return baddbmm(x[2], x[0], x[1]); });
  add_case(OpId::linear, "bias [2, 6, 64] x [16, 64]^T + 16", {2, 6, 64}, {16, 64}, {16}, [](const Ts& x) { return linear(x[0], x[1], x[2]); });

  // ---- shape ----
  auto shape_case = [&](OpId op, std::function<Tensor(const Ts&)> f, int inputs) {
    b.add(b.make(op, "mixed", kAll, [inputs](Dtype t, uint64_t s) {
      Ts v;
      for (int i = 0; i < inputs; ++i) v.push_back(uniform({7, 9}, t, s + i, -9, 9));
      return v; }, f));
  };
  shape_case(OpId::cat, [](const Ts& x) { return cat({x[0], x[1].t().contiguous().t()}, 1); }, 2);
  shape_case(OpId::stack, [](const Ts& x) { return stack({x[0], x[1]}, 2); }, 2);
  shape_case(OpId::flip, [](const Ts& x) { return flip(x[0].t(), {0, 1}); }, 1);
  shape_case(OpId::tril, [](const Ts& x) { return tril(x[0], 1); }, 1);
  shape_case(OpId::triu, [](const Ts& x) { return triu(x[0].t(), -2); }, 1);
  b.add(b.make(OpId::index_select, "dim 1", kAll, [](Dtype t, uint64_t s) {
    return Ts{uniform({7, 9}, t, s, -9, 9), from_vector(std::vector<int64_t>{8, 0, 3, 3}, {4})}; },
    [](const Ts& x) { return index_select(x[0], 1, x[1]); }));
  b.add(b.make(OpId::gather, "dim 0", kAll, [](Dtype t, uint64_t s) {
    return Ts{uniform({7, 9}, t, s, -9, 9), randint(0, 7, {5, 9}, int64, kCPU, s + 3)}; },
    [](const Ts& x) { return gather(x[0], 0, x[1]); }));

  // ---- linear algebra, on well-conditioned (symmetric positive definite) matrices ----
  auto spd = [](Dtype t, uint64_t s, Shape shape) {
    Tensor a = uniform(shape, float64, s, -1, 1);
    const int64_t n = shape.back();
    return add(matmul(a, a.transpose(-1, -2)), mul(eye(n, {}, float64), double(n))).to(t);
  };
  auto la_case = [&](OpId op, const std::string& variant, std::function<Ts(Dtype, uint64_t)> mk,
                     std::function<Tensor(const Ts&)> run, ErrorModel m, double c) {
    ParityCase pc = b.make(op, variant, kFloat, std::move(mk), std::move(run));
    pc.model = m;
    pc.bound = c;
    b.add(std::move(pc));
  };
  la_case(OpId::solve, "batch 16 of 24x24", [spd](Dtype t, uint64_t s) {
    return Ts{spd(t, s, {16, 24, 24}), uniform({16, 24, 3}, t, s + 1, -1, 1)}; },
    [](const Ts& x) { return linalg::solve(x[0], x[1]); }, ErrorModel::solve, 4);
  la_case(OpId::lu_solve, "batch 8 of 16x16", [spd](Dtype t, uint64_t s) {
    return Ts{spd(t, s, {8, 16, 16}), uniform({8, 16, 2}, t, s + 1, -1, 1)}; },
    [](const Ts& x) { auto f = linalg::lu_factor(x[0]); return linalg::lu_solve(f.LU, f.pivots, x[1]); },
    ErrorModel::solve, 4);
  la_case(OpId::solve_triangular, "lower 8 of 16x16", [spd](Dtype t, uint64_t s) {
    return Ts{linalg::cholesky(spd(float64, s, {8, 16, 16})).to(t), uniform({8, 16, 3}, t, s + 1, -1, 1)}; },
    [](const Ts& x) { return linalg::solve_triangular(x[0], x[1], /*upper=*/false); }, ErrorModel::solve, 4);
  la_case(OpId::lu_factor, "batch 4 of 12x12, L U", [spd](Dtype t, uint64_t s) { return one(spd(t, s, {4, 12, 12})); },
    [](const Ts& x) { return linalg::lu_factor(x[0]).LU; }, ErrorModel::relative, 16);
  la_case(OpId::inv, "batch 4 of 12x12", [spd](Dtype t, uint64_t s) { return one(spd(t, s, {4, 12, 12})); },
    [](const Ts& x) { return linalg::inv(x[0]); }, ErrorModel::relative, 16);
  la_case(OpId::cholesky, "batch 4 of 16x16", [spd](Dtype t, uint64_t s) { return one(spd(t, s, {4, 16, 16})); },
    [](const Ts& x) { return linalg::cholesky(x[0]); }, ErrorModel::relative, 8);
  la_case(OpId::det, "batch 8 of 6x6", [spd](Dtype t, uint64_t s) { return one(spd(t, s, {8, 6, 6})); },
    [](const Ts& x) { return linalg::det(x[0]); }, ErrorModel::relative, 16);
  la_case(OpId::slogdet, "batch 8 of 6x6, log|det|", [spd](Dtype t, uint64_t s) { return one(spd(t, s, {8, 6, 6})); },
    [](const Ts& x) { return linalg::slogdet(x[0]).logabsdet; }, ErrorModel::relative, 16);
  la_case(OpId::vector_norm, "ord 2 over dim 1", [](Dtype t, uint64_t s) { return one(uniform({9, 40}, t, s, -1, 1)); },
    [](const Ts& x) { return linalg::vector_norm(x[0], 2.0, {1}); }, ErrorModel::relative, 2);
  la_case(OpId::matrix_norm, "fro of 3 x 9x7", [](Dtype t, uint64_t s) { return one(uniform({3, 9, 7}, t, s, -1, 1)); },
    [](const Ts& x) { return linalg::matrix_norm(x[0]); }, ErrorModel::relative, 4);
  return out;
}

std::vector<OpId> ops_without_cases() {
  const auto cases = parity_cases(false);
  std::vector<OpId> missing;
  for (int i = 0; i < kNumOps; ++i) {
    const OpId op = static_cast<OpId>(i);
    if (std::none_of(cases.begin(), cases.end(), [op](const ParityCase& c) { return c.op == op; })) missing.push_back(op);
  }
  return missing;
}

}  // namespace concord::testing
