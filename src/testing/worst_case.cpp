// The worst-case search (concord/worst_case.h): run an op on many inputs on
// a device and keep the element furthest from the long double reference, in
// ULPs of the result dtype.
#include "concord/worst_case.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "concord/creation.h"
#include "concord/ops.h"
#include "concord/policy.h"
#include "concord/report.h"
#include "concord/testing.h"

namespace concord::testing {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The declared bound in ULPs: the op's ulp(k), or 0.5 for a correctly rounded op.
double bound_of(OpId op) {
  const OpDef& d = op_def(op);
  return d.model == ErrorModel::rounded ? 0.5 : d.bound;
}

// |got - ref| in ULPs of t at ref (in the reference's binade, as check_elementwise).
double ulps(Dtype t, double got, long double ref) {
  if (std::isnan(ref) || std::isnan(got)) return std::isnan(ref) && std::isnan(got) ? 0.0 : kInf;
  const double r = static_cast<double>(ref);  // an out-of-range float64 reference becomes inf here
  if (std::isinf(got) || std::isinf(r)) return got == round_to(t, r) ? 0.0 : kInf;
  const double rr = round_to(t, r);
  if (std::isinf(rr)) return got == rr ? 0.0 : kInf;  // beyond t's range: must be the infinity
  return static_cast<double>(std::fabs(static_cast<long double>(got) - ref)) / ulp(t, r);
}

std::string num(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.9g", v);
  return b;
}

}  // namespace

std::vector<OpId> worst_case_ops() {
  std::vector<OpId> ops;
  for (int i = 0; i < kNumOps; ++i) {
    const OpDef& d = op_def(static_cast<OpId>(i));
    if ((d.family != OpFamily::unary && d.family != OpFamily::binary) || !d.dtypes.has(float32)) continue;
    if (d.model != ErrorModel::ulp && d.model != ErrorModel::rounded) continue;
    if (d.id == OpId::floor_divide) continue;
    ops.push_back(d.id);
  }
  return ops;
}

WorstCaseSearch::WorstCaseSearch(OpId op, Dtype t, const WorstCaseOptions& o) : op_(op), t_(t) {
  if (!is_floating(t))
    throw DtypeError("[worst_case] " + std::string(name(t)) + " is not a floating dtype; the search judges ULP "
                     "bounds of float16, bfloat16, float32 and float64");
  worst_case_inputs(op, t, o, x_, y_);
  ref_.resize(x_.size());
  const bool binary = op_def(op).arity == 2;
  const int64_t n = size();
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i)
    ref_[static_cast<size_t>(i)] = worst_case_reference(op, x_[static_cast<size_t>(i)],
                                                        binary ? y_[static_cast<size_t>(i)] : 0.0);
}

WorstCase WorstCaseSearch::run(const Device& device) const {
  WorstCase w;
  w.op = op_, w.dtype = t_, w.bound = bound_of(op_);
  const OpDef& d = op_def(op_);
  if (!capabilities(device).can_store(t_)) {
    w.path = "not run: " + device.str() + " does not store " + std::string(name(t_)) + " under its profile";
    return w;
  }
  const std::string op_key(d.name);
  const uint64_t fallbacks = report().count(op_key, device.str(), t_, Path::fallback);
  std::vector<double> got;
  try {
    DtypePolicyGuard strict(DtypePolicy::strict);
    const Shape s{size()};
    Tensor x = from_vector(x_, s).to(t_).to(device);
    Tensor r = d.arity == 2 ? binary(op_, x, from_vector(y_, s).to(t_).to(device)) : unary(op_, x);
    got = r.to(kCPU).to_vector<double>();
  } catch (const Error& e) {
    w.path = std::string("not run: ") + e.what();
    return w;
  }
  w.ran = true;
  w.path = report().count(op_key, device.str(), t_, Path::fallback) > fallbacks ? "fallback" : "native";
  // float64 references in long double carry up to ~2^-10 ULP of their own.
  const double slack = t_ == float64 ? 0x1p-10 : 0.0;
  int64_t worst = -1;
  for (size_t i = 0; i < got.size(); ++i) {
    const double e = ulps(t_, got[i], ref_[i]);
    const double ratio = std::isinf(e) ? kInf : std::max(0.0, e - slack) / w.bound;
    if (ratio > 1) ++w.over;
    if (worst < 0 || ratio > w.ratio) worst = static_cast<int64_t>(i), w.ratio = ratio, w.worst_ulps = e;
  }
  w.inputs = static_cast<int64_t>(got.size());
  if (worst >= 0) {
    const size_t i = static_cast<size_t>(worst);
    w.x = x_[i], w.y = d.arity == 2 ? y_[i] : 0.0, w.got = got[i], w.want = static_cast<double>(ref_[i]);
  }
  return w;
}

std::string WorstCase::str() const {
  const std::string at = std::string(op_name(op)) + "(" + num(x) + (op_def(op).arity == 2 ? ", " + num(y) : "") + ")";
  if (!ran) return std::string(op_name(op)) + " " + std::string(name(dtype)) + ": " + path;
  char b[96];
  std::snprintf(b, sizeof b, "worst %.3g ULP = %.3g of the bound %g", worst_ulps, ratio, bound);
  return std::string(op_name(op)) + " " + std::string(name(dtype)) + " (" + path + ", " + std::to_string(inputs) +
         " inputs): " + b + " at " + at + " = " + num(got) + ", reference " + num(want) +
         (over ? " (" + std::to_string(over) + " beyond the bound)" : "");
}

}  // namespace concord::testing
