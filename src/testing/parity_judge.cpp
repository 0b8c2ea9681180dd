// Judging a parity case (concord/parity.h): reference on the CPU in float64
// (or in the dtype, for exact ops), the device's result, and the op's error model.
#include <cmath>
#include <cstring>
#include <cstdio>

#include "concord/creation.h"
#include "concord/parity.h"
#include "concord/policy.h"
#include "concord/testing.h"

namespace concord::testing {

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::pass: return "PASS";
    case Verdict::fail: return "FAIL";
    case Verdict::fallback: return "FALLBACK";
    case Verdict::downcast: return "DOWNCAST";
    default: return "UNSUPPORTED";
  }
}

namespace {

using Ts = std::vector<Tensor>;

Tensor generate(OpId op, Dtype t, const Device& d) {
  if (op == OpId::rand) return rand({10007}, t, d, 11);
  if (op == OpId::randn) return randn({10007}, t, d, 11);
  return randint(0, 100, {10007}, t, d, 11);  // a range every numeric dtype holds
}

// |a - e| <= c·n·u·(|e| + S) + ulp_out(e)/2, S = max|e| + max|x|, u the accumulation's roundoff.
std::string relative_check(const Tensor& actual, const Tensor& ref, const Tensor& x0, double c, double n, double u,
                           double* ratio) {
  auto a = actual.to_vector<double>(), e = ref.to_vector<double>();
  double s = 0, xmax = 0;
  for (double v : e) if (std::isfinite(v)) s = std::max(s, std::fabs(v));
  if (x0.defined() && is_floating(x0.dtype()))
    for (double v : x0.to_vector<double>()) if (std::isfinite(v)) xmax = std::max(xmax, std::fabs(v));
  s += xmax;
  *ratio = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(e[i]) && std::isnan(a[i])) continue;
    if (std::isinf(e[i]) && a[i] == e[i]) continue;
    // A finite result beyond the dtype's range rounds to infinity: that is the right answer.
    if (std::isinf(a[i]) && round_to(actual.dtype(), e[i]) == a[i]) continue;
    const double bound = c * n * u * (std::fabs(e[i]) + s) + ulp(actual.dtype(), e[i]) / 2;
    const double err = std::fabs(a[i] - e[i]);
    const double r = bound > 0 ? err / bound : (err > 0 ? INFINITY : 0);
    if (!(r <= *ratio)) *ratio = r;
    if (!(err <= bound)) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "element %zu: %.9g vs reference %.9g (error %.3g, bound %.3g)", i, a[i], e[i], err, bound);
      return buf;
    }
  }
  return "";
}

// Subnormals of the compute dtype as signed zeros (what a device that flushes
// them to zero computes with and returns). Tensors of other dtypes unchanged.
Tensor flush_subnormals(const Tensor& x, Dtype compute) {
  if (!x.defined() || !is_floating(x.dtype()) || x.numel() == 0) return x;
  const double tiny = compute == float64 ? 0x1p-1022 : 0x1p-126;  // halves compute in float32
  std::vector<double> v = x.to_vector<double>();
  bool any = false;
  for (double& e : v)
    if (e != 0 && std::fabs(e) < tiny) e = std::copysign(0.0, e), any = true;
  if (!any) return x;
  return from_host(v.data(), x.shape(), float64, kCPU).to(x.dtype()).to(x.device());
}

// "" when a and b hold the same bits, else the first element that differs.
std::string bits_difference(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || !(a.shape() == b.shape()))
    return "reproducible mode: " + std::string(name(a.dtype())) + shape_str(a.shape()) + " against the CPU's " +
           std::string(name(b.dtype())) + shape_str(b.shape());
  const Tensor x = a.to(kCPU).contiguous(), y = b.to(kCPU).contiguous();
  const size_t isz = itemsize(a.dtype());
  const auto* p = static_cast<const unsigned char*>(x.raw_data());
  const auto* q = static_cast<const unsigned char*>(y.raw_data());
  for (size_t i = 0; i < x.nbytes(); i += isz) {
    if (std::memcmp(p + i, q + i, isz) == 0) continue;
    uint64_t u = 0, v = 0;
    std::memcpy(&u, p + i, isz);
    std::memcpy(&v, q + i, isz);
    char buf[160];
    std::snprintf(buf, sizeof buf, "reproducible mode: element %zu has bits 0x%llx, the CPU's 0x%llx", i / isz,
                  static_cast<unsigned long long>(u), static_cast<unsigned long long>(v));
    return buf;
  }
  return "";
}

}  // namespace

ParityResult judge(const ParityCase& c, const Device& device, Dtype t, uint64_t seed, bool inject, bool bits) {
  ParityResult r;
  r.op = c.op;
  r.variant = c.variant;
  r.dtype = t;
  const Support s = support(c.op, device, t);
  if (!s.defined) { r.applicable = false; return r; }
  if (!s.runs) { r.verdict = Verdict::unsupported; r.detail = s.reason; return r; }
  const Dtype compute = s.compute;

  Tensor actual, ref, x0;
  Ts inputs;
  std::string device_error, ref_error;
  try {
    if (c.model == ErrorModel::same_bits) {
      actual = generate(c.op, t, device).to(kCPU);
      ref = generate(c.op, actual.dtype(), kCPU);
    } else {
      inputs = c.make(t, seed);
      Ts on_device, on_cpu;
      for (const auto& x : inputs) on_device.push_back(x.to(device));
      // The reference sees the inputs the device computes with (rounded to the compute dtype).
      const bool f64 = c.float_inputs && is_floating(compute) && c.model != ErrorModel::exact;
      for (const auto& x : inputs) {
        Tensor v = is_floating(x.dtype()) ? x.to(compute) : x;
        on_cpu.push_back(f64 && is_floating(v.dtype()) ? v.to(float64) : v);
      }
      if (!on_cpu.empty()) x0 = on_cpu[0];
      try { actual = c.run(on_device).to(kCPU); } catch (const Error& e) { device_error = e.what(); }
      try { ref = c.run(on_cpu); } catch (const Error& e) { ref_error = e.what(); }
    }
  } catch (const Error& e) {
    r.verdict = Verdict::fail;
    r.detail = std::string("setup failed: ") + e.what();
    return r;
  }
  if (!device_error.empty() || !ref_error.empty()) {
    // Raising the same typed error everywhere is agreement.
    if (!device_error.empty() && !ref_error.empty()) {
      r.verdict = s.path == Path::fallback ? Verdict::fallback : s.path == Path::downcast ? Verdict::downcast : Verdict::pass;
      r.detail = "raises on every device: " + device_error.substr(0, device_error.find('.'));
      return r;
    }
    r.verdict = Verdict::fail;
    r.detail = device_error.empty() ? "the CPU reference raised: " + ref_error : "raised: " + device_error;
    return r;
  }
  if (inject && actual.numel() > 0) actual = add(actual.to(float64), 1000.0).to(actual.dtype());

  // Judges actual against ref (x0 and the inputs feed the bound models);
  // returns what is wrong, or "" and the worst error/bound ratio.
  // A float16 kernel that computes in float16 (Path::native_f16) is judged by float16 accumulation.
  ModelOptions acc;
  if (s.path == Path::native_f16) acc.accumulate = float16;
  auto check = [&](const Tensor& actual, const Tensor& ref, const Tensor& x0, const Ts& inputs, double* ratio) {
    std::string problem;
    const bool exact = c.model == ErrorModel::exact || c.model == ErrorModel::same_bits || !is_floating(compute) ||
                       !is_floating(actual.dtype());
    if (exact) {
      CompareOptions opt;
      opt.rtol = 0;
      opt.atol = 0;
      opt.equal_nan = true;
      opt.check_dtype = false;
      auto cmp = compare(actual, ref.to(actual.dtype()), opt);
      if (!cmp.ok) problem = cmp.problem.empty() ? cmp.message() : cmp.problem;
    } else {
      const double n = actual.numel() > 0 && x0.defined() ? std::max(1.0, double(x0.numel()) / double(actual.numel())) : 1.0;
      switch (c.model) {
        case ErrorModel::rounded:
        case ErrorModel::ulp: {
          // Halves compute in float32 and round once: within one ULP of the dtype.
          const double bound = c.model == ErrorModel::rounded ? (is_half(actual.dtype()) ? 1.0 : 0.5)
                                                              : (is_half(actual.dtype()) ? 1.0 : c.bound);
          auto m = check_elementwise(actual, ref, bound);
          *ratio = m.worst_ratio;
          if (!m.ok) problem = m.str();
          break;
        }
        case ErrorModel::sum: {
          auto m = check_reduction(actual, x0, Shape(c.dims), c.keepdim, c.bound, acc);
          *ratio = m.worst_ratio;
          if (!m.ok) problem = m.str();
          break;
        }
        case ErrorModel::matmul: {
          Tensor a = x0, b = inputs.size() > 1 ? inputs[1].to(compute).to(float64) : x0;
          if (c.op == OpId::outer) a = a.unsqueeze(-1), b = b.unsqueeze(0);
          auto m = check_matmul(actual, a, b, c.bound, acc);
          *ratio = m.worst_ratio;
          if (!m.ok) problem = m.str();
          break;
        }
        case ErrorModel::solve: {
          Tensor a = inputs[0].to(compute).to(float64);
          auto m = check_solve(actual, a, inputs[1].to(compute).to(float64), c.bound);
          *ratio = m.worst_ratio;
          if (!m.ok) problem = m.str();
          break;
        }
        default:
          problem = relative_check(actual, ref, x0, c.bound, n, acc.accumulate ? unit_roundoff(*acc.accumulate) : accumulation_roundoff(compute), ratio);
      }
    }
    return problem;
  };
  std::string problem = check(actual, ref, x0, inputs, &r.ratio);
  // A device that does not promise to keep subnormals may flush them (NVIDIA's
  // float32): then it is judged against the reference of flushed inputs, its
  // subnormal results read as zero, and counted as such.
  if (!problem.empty() && c.model != ErrorModel::same_bits && is_floating(compute) && s.path != Path::fallback &&
      !capabilities(device).keeps_subnormals) {
    try {
      Ts flushed_cpu;
      for (const auto& x : inputs) {
        Tensor v = is_floating(x.dtype()) ? flush_subnormals(x.to(compute), compute) : x;
        const bool f64 = c.float_inputs && c.model != ErrorModel::exact;
        flushed_cpu.push_back(f64 && is_floating(v.dtype()) ? v.to(float64) : v);
      }
      const Tensor ref2 = flush_subnormals(c.run(flushed_cpu), compute);
      const Tensor x02 = flushed_cpu.empty() ? Tensor() : flushed_cpu[0];
      Ts inputs2;
      for (const auto& x : inputs) inputs2.push_back(flush_subnormals(x, compute));
      double ratio2 = 0;
      if (check(flush_subnormals(actual, compute), ref2, x02, inputs2, &ratio2).empty()) {
        problem.clear();
        r.ratio = ratio2;
        r.flushed = true;
      }
    } catch (const Error&) {
      // the flushed reference raised: keep the first verdict
    }
  }
  // The reproducible mode promises more: the CPU's bits in the same dtype, every NaN canonical.
  // Where the device cannot hold the dtype (float64 downcast) the dtype policy decides, not the mode.
  if (problem.empty() && c.model == ErrorModel::same_bits) r.cpu_bits = true;  // judged on the bits already
  const bool repro = reproducible() && capabilities(device).can_store(t);
  if (problem.empty() && (repro || bits) && c.model != ErrorModel::same_bits) {
    try {
      const Tensor cpu = c.run(inputs);
      if (cpu.dtype() == actual.dtype()) {  // else a result downcast
        const std::string diff = bits_difference(actual, cpu);
        r.cpu_bits = diff.empty();
        if (repro) problem = diff;
      }
    } catch (const Error& e) {
      if (repro) problem = std::string("the CPU raised in the reproducible mode: ") + e.what();
    }
  }
  if (!problem.empty()) {
    r.verdict = Verdict::fail;
    r.detail = problem;
  } else {
    r.verdict = s.path == Path::fallback ? Verdict::fallback : s.path == Path::downcast ? Verdict::downcast : Verdict::pass;
  }
  return r;
}

}  // namespace concord::testing
