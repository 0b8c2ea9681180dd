// The parity sweep's cases, by family. Inputs are seeded and built on the CPU;
// the sweep moves them to each device.
#include "parity_cases.h"

#include <cmath>
#include <limits>

#include "concord/linalg.h"

namespace concord::cli {

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

// Values every float op must survive: signed zeros, infinities, NaN, extremes, tiny, ordinary.
Tensor specials(Dtype t) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> v = {0.0, -0.0, inf, -inf, NAN, 1.0, -1.0, 0.5, -2.5, 3.0, 1e-3, -7.25, 100.0, 1e4, -6e4, 65504.0};
  return from_vector(v, {4, 4}).to(t);
}

Ts one(Tensor a) { return {std::move(a)}; }

struct Builder {
  std::vector<ParityCase>& out;
  bool quick;

  void unary(const std::string& op, DtypeSet dts, Model m, double lo, double hi, std::function<Tensor(const Tensor&)> f,
             double ulps = 4) {
    auto run = [f](const Ts& x) { return f(x[0]); };
    out.push_back({op, "odd 37x53", dts, [=](Dtype t, uint64_t s) { return one(uniform({37, 53}, t, s, lo, hi)); }, run, m, ulps});
    out.push_back({op, "transposed", dts, [=](Dtype t, uint64_t s) { return one(uniform({29, 31}, t, s, lo, hi).t()); }, run, m, ulps});
    out.push_back({op, "empty", dts, [=](Dtype t, uint64_t) { return one(zeros({0, 5}, t)); }, run, m, ulps});
    if (!quick) out.push_back({op, "one", dts, [=](Dtype t, uint64_t s) { return one(uniform({1}, t, s, lo, hi)); }, run, m, ulps});
    ParityCase sp{op, "special", dts & kFloat, [](Dtype t, uint64_t) { return one(specials(t)); }, run, m, ulps};
    out.push_back(sp);
  }

  void binary(const std::string& op, DtypeSet dts, Model m, double lo, double hi, double blo, double bhi,
              std::function<Tensor(const Tensor&, const Tensor&)> f, double ulps = 4) {
    auto run = [f](const Ts& x) { return f(x[0], x[1]); };
    out.push_back({op, "odd 37x53", dts, [=](Dtype t, uint64_t s) {
                     return Ts{uniform({37, 53}, t, s, lo, hi), uniform({37, 53}, t, s + 1, blo, bhi)}; }, run, m, ulps});
    out.push_back({op, "broadcast", dts, [=](Dtype t, uint64_t s) {
                     return Ts{uniform({37, 1}, t, s, lo, hi), uniform({53}, t, s + 1, blo, bhi)}; }, run, m, ulps});
    out.push_back({op, "transposed", dts, [=](Dtype t, uint64_t s) {
                     return Ts{uniform({23, 19}, t, s, lo, hi).t(), uniform({19, 23}, t, s + 1, blo, bhi)}; }, run, m, ulps});
    out.push_back({op, "empty", dts, [=](Dtype t, uint64_t) { return Ts{zeros({0, 3}, t), zeros({1, 3}, t)}; }, run, m, ulps});
    out.push_back({op, "special", dts & kFloat, [](Dtype t, uint64_t) {
                     return Ts{specials(t), specials(t).t()}; }, run, m, ulps});
  }

  void reduction(const std::string& op, DtypeSet dts, Model m, std::function<Tensor(const Tensor&, const Dims&)> f,
                 double lo = -1, double hi = 1, double c = 2) {
    for (auto [variant, shape, dims, transpose] :
         std::vector<std::tuple<std::string, Shape, std::vector<int64_t>, bool>>{
             {"all 10001", {10001}, {}, false}, {"dim 1 of 37x53", {37, 53}, {1}, false},
             {"dim 0 of 37x53", {37, 53}, {0}, false}, {"transposed dim 1", {41, 23}, {1}, true},
             {"empty", {0, 4}, {0}, false}}) {
      if (quick && variant == "transposed dim 1") continue;
      auto run = [f, d = dims](const Ts& x) { return f(x[0], Dims(d)); };
      ParityCase pc{op, variant, dts, [=](Dtype t, uint64_t s) {
                      Tensor x = uniform(shape, t, s, lo, hi);
                      return one(transpose ? x.t() : x); }, run, m, 4, c, dims, false};
      out.push_back(pc);
    }
  }
};

}  // namespace

std::vector<ParityCase> parity_cases(bool quick) {
  std::vector<ParityCase> out;
  Builder b{out, quick};
  const double inf = std::numeric_limits<double>::infinity();

  // ---- elementwise unary ----
  b.unary("neg", kNum, Model::rounded, -5, 5, [](const Tensor& x) { return neg(x); });
  b.unary("abs", kNum, Model::rounded, -5, 5, [](const Tensor& x) { return abs(x); });
  b.unary("sign", kNum, Model::exact, -5, 5, [](const Tensor& x) { return sign(x); });
  b.unary("sqrt", kFloat, Model::rounded, 0, 100, [](const Tensor& x) { return sqrt(x); });
  b.unary("reciprocal", kFloat, Model::rounded, 0.5, 8, [](const Tensor& x) { return reciprocal(x); });
  b.unary("exp", kFloat, Model::ulp, -10, 10, [](const Tensor& x) { return exp(x); });
  b.unary("expm1", kFloat, Model::ulp, -2, 2, [](const Tensor& x) { return expm1(x); });
  b.unary("log", kFloat, Model::ulp, 0.01, 100, [](const Tensor& x) { return log(x); });
  b.unary("log1p", kFloat, Model::ulp, -0.9, 10, [](const Tensor& x) { return log1p(x); });
  b.unary("log2", kFloat, Model::ulp, 0.01, 100, [](const Tensor& x) { return log2(x); });
  b.unary("rsqrt", kFloat, Model::ulp, 0.01, 100, [](const Tensor& x) { return rsqrt(x); });
  b.unary("sin", kFloat, Model::ulp, -6, 6, [](const Tensor& x) { return sin(x); });
  b.unary("cos", kFloat, Model::ulp, -6, 6, [](const Tensor& x) { return cos(x); });
  b.unary("tan", kFloat, Model::ulp, -1.4, 1.4, [](const Tensor& x) { return tan(x); });
  b.unary("tanh", kFloat, Model::ulp, -5, 5, [](const Tensor& x) { return tanh(x); });
  b.unary("sigmoid", kFloat, Model::ulp, -10, 10, [](const Tensor& x) { return sigmoid(x); });
  b.unary("gelu", kFloat, Model::ulp, -5, 5, [](const Tensor& x) { return gelu(x); }, 8);
  b.unary("erf", kFloat, Model::ulp, -3, 3, [](const Tensor& x) { return erf(x); });
  b.unary("relu", kNum, Model::rounded, -5, 5, [](const Tensor& x) { return relu(x); });
  b.unary("floor", kNum, Model::rounded, -50, 50, [](const Tensor& x) { return floor(x); });
  b.unary("ceil", kNum, Model::rounded, -50, 50, [](const Tensor& x) { return ceil(x); });
  b.unary("round", kNum, Model::rounded, -50, 50, [](const Tensor& x) { return round(x); });
  b.unary("trunc", kNum, Model::rounded, -50, 50, [](const Tensor& x) { return trunc(x); });
  b.unary("isnan", kAll, Model::exact, -5, 5, [](const Tensor& x) { return isnan(x); });
  b.unary("isinf", kAll, Model::exact, -5, 5, [](const Tensor& x) { return isinf(x); });
  b.unary("isfinite", kAll, Model::exact, -5, 5, [](const Tensor& x) { return isfinite(x); });
  b.unary("logical_not", kAll, Model::exact, -2, 2, [](const Tensor& x) { return logical_not(x); });

  // ---- elementwise binary ----
  b.binary("add", kNum, Model::rounded, -100, 100, -100, 100, [](const Tensor& x, const Tensor& y) { return add(x, y); });
  b.binary("sub", kNum, Model::rounded, -100, 100, -100, 100, [](const Tensor& x, const Tensor& y) { return sub(x, y); });
  b.binary("mul", kNum, Model::rounded, -10, 10, -10, 10, [](const Tensor& x, const Tensor& y) { return mul(x, y); });
  b.binary("div", kFloat, Model::rounded, -10, 10, 0.5, 10, [](const Tensor& x, const Tensor& y) { return div(x, y); });
  b.binary("maximum", kNum, Model::exact, -10, 10, -10, 10, [](const Tensor& x, const Tensor& y) { return maximum(x, y); });
  b.binary("minimum", kNum, Model::exact, -10, 10, -10, 10, [](const Tensor& x, const Tensor& y) { return minimum(x, y); });
  b.binary("pow", kFloat, Model::ulp, 0.1, 4, -3, 3, [](const Tensor& x, const Tensor& y) { return pow(x, y); }, 8);
  b.binary("atan2", kFloat, Model::ulp, -5, 5, -5, 5, [](const Tensor& x, const Tensor& y) { return atan2(x, y); });
  b.binary("remainder", kIntegralDtypes, Model::exact, -100, 100, 1, 9,
           [](const Tensor& x, const Tensor& y) { return remainder(x, y); });
  b.binary("eq", kAll, Model::exact, -3, 3, -3, 3, [](const Tensor& x, const Tensor& y) { return eq(x, y); });
  b.binary("lt", kNum, Model::exact, -3, 3, -3, 3, [](const Tensor& x, const Tensor& y) { return lt(x, y); });
  b.binary("ge", kNum, Model::exact, -3, 3, -3, 3, [](const Tensor& x, const Tensor& y) { return ge(x, y); });
  b.binary("logical_and", kAll, Model::exact, -2, 2, -2, 2,
           [](const Tensor& x, const Tensor& y) { return logical_and(x, y); });
  b.binary("logical_xor", kAll, Model::exact, -2, 2, -2, 2,
           [](const Tensor& x, const Tensor& y) { return logical_xor(x, y); });
  out.push_back({"where", "broadcast", kAll, [](Dtype t, uint64_t s) {
                   return Ts{uniform({37, 1}, bool_, s, 0, 2), uniform({53}, t, s + 1, -9, 9), uniform({37, 53}, t, s + 2, -9, 9)}; },
                 [](const Ts& x) { return where(x[0], x[1], x[2]); }, Model::exact});
  out.push_back({"clamp", "odd 37x53", kNum, [](Dtype t, uint64_t s) { return one(uniform({37, 53}, t, s, -20, 20)); },
                 [](const Ts& x) { return clamp(x[0], Scalar(-5), Scalar(7)); }, Model::exact});
  // Casts: float64 values (with specials) to every dtype, and every dtype to float32.
  for (Dtype to : kAllDtypes)
    out.push_back({"copy", "to " + std::string(name(to)), kFloat, [](Dtype t, uint64_t s) {
                     return Ts{cat({uniform({61}, t, s, -300, 300), specials(t).flatten()}, 0)}; },
                   [to](const Ts& x) { return x[0].to(to); }, Model::exact, 0, 0, {}, false, false});

  // ---- reductions ----
  using D = const Dims&;
  b.reduction("sum", kNum, Model::reduction, [](const Tensor& x, D d) { return sum(x, d); });
  b.reduction("mean", kFloat, Model::relative, [](const Tensor& x, D d) { return mean(x, d); });
  b.reduction("prod", kFloat, Model::relative, [](const Tensor& x, D d) { return prod(x, d); }, 0.999, 1.001);
  b.reduction("amax", kNum, Model::exact, [](const Tensor& x, D d) { return amax(x, d); }, -100, 100);
  b.reduction("amin", kNum, Model::exact, [](const Tensor& x, D d) { return amin(x, d); }, -100, 100);
  b.reduction("var", kFloat, Model::relative, [](const Tensor& x, D d) { return var(x, d); }, -1, 1, 8);
  b.reduction("norm", kFloat, Model::relative, [](const Tensor& x, D d) { return norm(x, 2.0, d); });
  b.reduction("all", kAll, Model::exact, [](const Tensor& x, D d) { return all(x, d); }, 0, 2);
  b.reduction("any", kAll, Model::exact, [](const Tensor& x, D d) { return any(x, d); }, 0, 2);
  b.reduction("logsumexp", kFloat, Model::relative, [](const Tensor& x, D d) { return logsumexp(x, d.empty() ? Dims{0} : d); }, -5, 5);
  for (const char* op : {"argmax", "softmax", "log_softmax", "cumsum"}) {
    const std::string o = op;
    const Model m = o == "argmax" ? Model::exact : Model::relative;
    const DtypeSet dts = o == "argmax" || o == "cumsum" ? kNum : kFloat;
    auto run = [o](const Ts& x) {
      if (o == "argmax") return argmax(x[0], int64_t{1});
      if (o == "softmax") return softmax(x[0], 1);
      if (o == "log_softmax") return log_softmax(x[0], 1);
      return cumsum(x[0], 1);
    };
    out.push_back({o, "dim 1 of 37x53", dts, [](Dtype t, uint64_t s) { return one(uniform({37, 53}, t, s, -5, 5)); }, run, m, 4, 4});
    out.push_back({o, "transposed", dts, [](Dtype t, uint64_t s) { return one(uniform({41, 23}, t, s, -5, 5).t()); }, run, m, 4, 4});
  }

  // ---- linear ----
  auto mm_case = [&](const std::string& op, const std::string& variant, Shape sa, Shape sb, bool ta,
                     std::function<Tensor(const Tensor&, const Tensor&)> f) {
    out.push_back({op, variant, kNum, [=](Dtype t, uint64_t s) {
                     Tensor a = uniform(sa, t, s, -2, 2), bb = uniform(sb, t, s + 1, -2, 2);
                     return Ts{ta ? a.transpose(-1, -2) : a, bb}; },
                   [f](const Ts& x) { return f(x[0], x[1]); }, Model::matmul, 4, 2});
  };
  mm_case("matmul", "odd 37x29 @ 29x41", {37, 29}, {29, 41}, false, [](const Tensor& a, const Tensor& c) { return matmul(a, c); });
  mm_case("matmul", "transposed A", {29, 37}, {29, 41}, true, [](const Tensor& a, const Tensor& c) { return matmul(a, c); });
  mm_case("matmul", "batch broadcast", {2, 1, 8, 5}, {3, 5, 7}, false, [](const Tensor& a, const Tensor& c) { return matmul(a, c); });
  mm_case("matmul", "k = 0", {4, 0}, {0, 3}, false, [](const Tensor& a, const Tensor& c) { return matmul(a, c); });
  mm_case("bmm", "4 x 16x33 @ 33x9", {4, 16, 33}, {4, 33, 9}, false, [](const Tensor& a, const Tensor& c) { return bmm(a, c); });
  mm_case("mv", "37x101 @ 101", {37, 101}, {101}, false, [](const Tensor& a, const Tensor& c) { return mv(a, c); });
  mm_case("dot", "1001", {1001}, {1001}, false, [](const Tensor& a, const Tensor& c) { return dot(a, c); });
  mm_case("outer", "17 x 23", {17}, {23}, false, [](const Tensor& a, const Tensor& c) { return outer(a, c); });
  // Products with an addend. With beta = 0 (over a NaN input, which must not
  // show) or no bias the result is the product alone: the matmul model applies.
  auto nan_like = [](const Tensor& a, Shape shape) {
    return full(std::move(shape), is_floating(a.dtype()) ? std::nan("") : 7.0, a.dtype(), a.device());
  };
  mm_case("addmm", "beta 0 over NaN 37x29 @ 29x41", {37, 29}, {29, 41}, false,
          [nan_like](const Tensor& a, const Tensor& c) { return addmm(nan_like(a, {a.size(0), c.size(1)}), a, c, 0); });
  mm_case("baddbmm", "beta 0 over NaN 4 x 16x33 @ 33x9", {4, 16, 33}, {4, 33, 9}, false,
          [nan_like](const Tensor& a, const Tensor& c) { return baddbmm(nan_like(a, {a.size(0), a.size(1), c.size(2)}), a, c, 0); });
  mm_case("linear", "no bias [2, 5, 29] x [41, 29]^T", {2, 5, 29}, {29, 41}, false,
          [](const Tensor& x, const Tensor& wt) { return linear(x, wt.t()); });
  // With the addend: |C - Ĉ| <= c·n·u·(|Ĉ| + S), n = k / m, values in [-2, 2].
  auto add_case = [&](const std::string& op, const std::string& variant, Shape sa, Shape sb, Shape si,
                      std::function<Tensor(const Ts&)> f) {
    out.push_back({op, variant, kNum, [=](Dtype t, uint64_t s) {
                     return Ts{uniform(sa, t, s, -2, 2), uniform(sb, t, s + 1, -2, 2), uniform(si, t, s + 2, -2, 2)}; },
                   f, Model::relative, 4, 8});
  };
  add_case("addmm", "broadcast row 33x64 @ 64x16 + 16", {33, 64}, {64, 16}, {16},
           [](const Ts& x) { return addmm(x[2], x[0], x[1]); });
  add_case("addmm", "beta 3 alpha -2", {33, 64}, {64, 16}, {33, 16},
           [](const Ts& x) { return addmm(x[2], x[0], x[1], 3, -2); });
  add_case("baddbmm", "3 x 9x40 @ 40x10 + 9x10", {3, 9, 40}, {3, 40, 10}, {9, 10},
           [](const Ts& x) { return baddbmm(x[2], x[0], x[1]); });
  add_case("linear", "bias [2, 6, 64] x [16, 64]^T + 16", {2, 6, 64}, {16, 64}, {16},
           [](const Ts& x) { return linear(x[0], x[1], x[2]); });

  // ---- shape ----
  auto shape_case = [&](const std::string& op, std::function<Tensor(const Ts&)> f, int inputs) {
    out.push_back({op, "mixed", kAll, [inputs](Dtype t, uint64_t s) {
                     Ts v;
                     for (int i = 0; i < inputs; ++i) v.push_back(uniform({7, 9}, t, s + i, -9, 9));
                     return v; }, f, Model::exact});
  };
  shape_case("cat", [](const Ts& x) { return cat({x[0], x[1].t().contiguous().t()}, 1); }, 2);
  shape_case("stack", [](const Ts& x) { return stack({x[0], x[1]}, 2); }, 2);
  shape_case("flip", [](const Ts& x) { return flip(x[0].t(), {0, 1}); }, 1);
  shape_case("tril", [](const Ts& x) { return tril(x[0], 1); }, 1);
  shape_case("triu", [](const Ts& x) { return triu(x[0].t(), -2); }, 1);
  out.push_back({"index_select", "dim 1", kAll, [](Dtype t, uint64_t s) {
                   return Ts{uniform({7, 9}, t, s, -9, 9), from_vector(std::vector<int64_t>{8, 0, 3, 3}, {4})}; },
                 [](const Ts& x) { return index_select(x[0], 1, x[1]); }, Model::exact});
  out.push_back({"gather", "dim 0", kAll, [](Dtype t, uint64_t s) {
                   return Ts{uniform({7, 9}, t, s, -9, 9), randint(0, 7, {5, 9}, int64, kCPU, s + 3)}; },
                 [](const Ts& x) { return gather(x[0], 0, x[1]); }, Model::exact});

  // ---- random: the same seed gives the same bits on every device ----
  for (const char* op : {"rand", "randn"})
    out.push_back({op, "seed 11, 10007", kFloat, [](Dtype, uint64_t) { return Ts{}; }, nullptr, Model::same_bits});
  out.push_back({"randint", "seed 11, 10007", kNum, [](Dtype, uint64_t) { return Ts{}; }, nullptr, Model::same_bits});

  // ---- linear algebra ----
  auto spd = [](Dtype t, uint64_t s, Shape shape) {
    Tensor a = uniform(shape, float64, s, -1, 1);
    const int64_t n = shape.back();
    return add(matmul(a, a.transpose(-1, -2)), mul(eye(n, {}, float64), double(n))).to(t);
  };
  out.push_back({"solve", "batch 16 of 24x24", kFloat, [spd](Dtype t, uint64_t s) {
                   return Ts{spd(t, s, {16, 24, 24}), uniform({16, 24, 3}, t, s + 1, -1, 1)}; },
                 [](const Ts& x) { return linalg::solve(x[0], x[1]); }, Model::solve, 4, 4});
  out.push_back({"cholesky", "batch 4 of 16x16", kFloat, [spd](Dtype t, uint64_t s) { return one(spd(t, s, {4, 16, 16})); },
                 [](const Ts& x) { return linalg::cholesky(x[0]); }, Model::relative, 4, 8});
  out.push_back({"det", "batch 8 of 6x6", kFloat, [spd](Dtype t, uint64_t s) { return one(spd(t, s, {8, 6, 6})); },
                 [](const Ts& x) { return linalg::det(x[0]); }, Model::relative, 4, 16});
  (void)inf;
  return out;
}

}  // namespace concord::cli
