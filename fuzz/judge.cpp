// Error models for the op-sequence fuzzer (see judge.h for what is not a finding).
#include "judge.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "concord/testing.h"

namespace concord::fuzz {

namespace {

using testing::CompareOptions;

double max_finite(Dtype t) {
  switch (t) {
    case Dtype::float16: return 65504.0;
    case Dtype::bfloat16:
    case Dtype::float32: return 3.4028234663852886e38;
    default: return std::numeric_limits<double>::max();
  }
}

// The accumulator of float computations on t (half types accumulate in float32).
Dtype accumulator(Dtype t) { return t == Dtype::float64 ? Dtype::float64 : Dtype::float32; }

struct Mass { double sum = 0, max = 0, sum_sq = 0; };
Mass mass_of(const Tensor& x) {
  Mass m;
  if (!x.defined()) return m;
  for (double v : x.to_vector<double>()) {
    if (!std::isfinite(v)) continue;
    m.sum += std::fabs(v);
    m.max = std::max(m.max, std::fabs(v));
    m.sum_sq += v * v;
  }
  return m;
}

std::string exact(const Tensor& actual, const Tensor& ref) {
  CompareOptions o;
  o.rtol = 0;
  o.atol = 0;
  o.equal_nan = true;
  o.check_dtype = false;
  auto c = testing::compare(actual, ref.dtype() == actual.dtype() ? ref : ref.to(actual.dtype()), o);
  return c.ok ? "" : (c.problem.empty() ? c.message() : c.problem);
}

std::string ulps(const Tensor& actual, const Tensor& ref, double bound) {
  auto m = testing::check_elementwise(actual, ref.to(Dtype::float64), bound);
  return m.ok ? "" : "error model (" + std::to_string(bound) + " ULP): " + m.str();
}

// |a - e| <= c·n·u·(|e| + S) + ulp(e)/2 per element; `sq` judges a² against e² (std).
std::string relative(const Tensor& actual, const Tensor& ref, double n, double s, bool risky, bool sq, double c) {
  const auto a = actual.to_vector<double>(), e = ref.to_vector<double>();
  const Dtype t = actual.dtype();
  const double u = testing::accumulation_roundoff(t);
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) && std::isnan(e[i])) continue;
    if (a[i] == e[i]) continue;
    if (std::isinf(a[i]) && testing::round_to(t, e[i]) == a[i]) continue;
    if (!std::isfinite(a[i]) || !std::isfinite(e[i])) {
      if (risky) continue;
    } else {
      double err = std::fabs(a[i] - e[i]);
      double bound = c * n * u * (std::fabs(e[i]) + s) + testing::ulp(t, e[i]);
      if (sq) {
        err = std::fabs(a[i] * a[i] - e[i] * e[i]);
        bound = c * n * u * (e[i] * e[i] + s) + 2 * std::fabs(e[i]) * testing::ulp(t, e[i]) +
                testing::ulp(t, e[i]) * testing::ulp(t, e[i]);
      }
      if (err <= bound) continue;
      char buf[200];
      std::snprintf(buf, sizeof buf, "element %zu: %.9g vs reference %.9g (error %.3g, bound %.3g)", i, a[i], e[i], err,
                    bound);
      return std::string("relative error model: ") + buf;
    }
    char buf[160];
    std::snprintf(buf, sizeof buf, "element %zu: %.9g vs reference %.9g", i, a[i], e[i]);
    return std::string("non-finite mismatch: ") + buf;
  }
  return "";
}

std::string product(const Tensor& actual, const Tensor& ref, double n) {
  const auto a = actual.to_vector<double>(), e = ref.to_vector<double>();
  const Dtype t = actual.dtype();
  const double u = testing::accumulation_roundoff(t);
  for (size_t i = 0; i < a.size(); ++i) {
    if (!std::isfinite(a[i]) || !std::isfinite(e[i]) || a[i] == 0 || e[i] == 0) continue;  // over/underflow: order
    const double bound = 4 * n * u * std::fabs(e[i]) + n * testing::ulp(t, e[i]);
    if (std::fabs(a[i] - e[i]) <= bound) continue;
    char buf[160];
    std::snprintf(buf, sizeof buf, "element %zu: %.9g vs reference %.9g (bound %.3g)", i, a[i], e[i], bound);
    return std::string("prod error model: ") + buf;
  }
  return "";
}

}  // namespace

std::string judge(const Instr& ins, const Tensor& actual, const Tensor& ref, const std::vector<Tensor>& ref_inputs,
                  const Device& device) {
  if (!(actual.shape() == ref.shape()))
    return "shape " + shape_str(actual.shape()) + " but the reference has " + shape_str(ref.shape());
  bool downcast = false;
  if (actual.dtype() != ref.dtype()) {
    downcast = ref.dtype() == Dtype::float64 && actual.dtype() == Dtype::float32 &&
               !capabilities(device).can_store(Dtype::float64);
    if (!downcast)
      return "dtype " + std::string(name(actual.dtype())) + " but the reference has " + std::string(name(ref.dtype()));
  }
  const Dtype t = actual.dtype();
  if (!is_floating(t)) return exact(actual, ref);
  const Model m = model_of(ins);
  Tensor x = ref_inputs.empty() ? Tensor() : ref_inputs[0];
  // An op's dtype= argument converts the input first (PyTorch's rule): judge against that input.
  const double acc_max = max_finite(accumulator(t));
  const std::string op = op_label(ins);
  for (const char* o : {"sum", "mean", "prod", "softmax", "log_softmax", "cumsum"})
    if (op == o && ins.has_dtype && x.defined() && x.dtype() != ins.dtype) x = x.to(ins.dtype);
  switch (m) {
    case Model::exact:
      return downcast ? ulps(actual, ref, 1.0) : exact(actual, ref);
    case Model::ulp:
      return ulps(actual, ref, is_half(t) ? 1.0 : 2 * ulp_bound(ins));
    case Model::sum: {
      const Mass ms = mass_of(x);
      if (ms.sum > acc_max / 4) return "";  // an intermediate may overflow: the order decides
      testing::ModelOptions o;
      o.accumulate = accumulator(t);
      auto r = testing::check_reduction(actual, x, ins.dims, ins.flag, 2.0, o);
      return r.ok ? "" : "sum error model: " + r.str();
    }
    case Model::product: {
      const double n = std::max<double>(1, double(x.numel()) / std::max<int64_t>(1, actual.numel()));
      return product(actual, ref, n);
    }
    case Model::matmul: {
      const auto [xa, b] = linear_operands(ins, ref_inputs);
      const Mass ma = mass_of(x), mb = mass_of(b);
      const double k = std::max<double>(1, x.ndim() ? double(x.size(-1)) : 1);
      if (ma.max * mb.max * k > acc_max / 4) return "";
      if (!std::isfinite(ma.sum) || !std::isfinite(mb.sum)) return "";
      Tensor aa = xa, bb = b;
      if (op == "outer") aa = xa.unsqueeze(-1), bb = b.unsqueeze(0);
      testing::ModelOptions o;
      o.accumulate = accumulator(t);
      auto r = testing::check_matmul(actual, aa, bb, 2.0, o);
      return r.ok ? "" : "matmul error model: " + r.str();
    }
    case Model::relative: {
      const Mass ms = mass_of(x);
      const Mass me = mass_of(ref);
      const bool variance = op == "var" || op == "std";
      const bool norm = op == "norm";
      const double n = std::max<double>({1.0, double(x.numel()) / std::max<int64_t>(1, actual.numel()),
                                         double(x.ndim() ? *std::max_element(x.shape().begin(), x.shape().end()) : 1)});
      const bool risky = ms.sum > acc_max / 4 || ms.max * ms.max * n > acc_max / 4;
      double s = me.max + ms.max;
      if (variance) s = me.max * me.max + ms.max * (1 + ms.max);
      if (norm) s = me.max + ms.max * n;
      return relative(actual, ref, n, s, risky || norm, op == "std", 8.0);
    }
  }
  return "";
}

}  // namespace concord::fuzz
