// compare()/assert_close(): PyTorch's assert_close semantics and message, plus ULP distances.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "concord/half.h"
#include "concord/testing.h"

namespace concord::testing {

namespace {

std::vector<int64_t> unravel(int64_t flat, const Shape& shape) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    const int64_t s = shape[d];
    idx[d] = s > 0 ? flat % s : 0;
    flat = s > 0 ? flat / s : 0;
  }
  return idx;
}

// A value's position among the values of dtype t ordered along the real line
// (+0 and -0 share position 0): the ULP distance of two values is the
// difference of their positions. Works on the bit patterns of the dtype.
int64_t ordinal(Dtype t, double v) {
  uint64_t mag = 0;
  bool neg = false;
  switch (t) {
    case Dtype::float64: {
      uint64_t u;
      std::memcpy(&u, &v, 8);
      neg = u >> 63;
      mag = u & 0x7fffffffffffffffull;
      break;
    }
    case Dtype::float32: {
      const uint32_t u = detail::f32_bits(static_cast<float>(v));
      neg = u >> 31;
      mag = u & 0x7fffffffu;
      break;
    }
    default: {  // float16 / bfloat16: round in one step (no double rounding through float)
      const float f = static_cast<float>(round_to(t, v));  // exact: the value is a half
      const uint16_t u = t == Dtype::float16 ? detail::f32_to_f16_bits(f) : detail::f32_to_bf16_bits(f);
      neg = u >> 15;
      mag = u & 0x7fffu;
      break;
    }
  }
  return neg ? -static_cast<int64_t>(mag) : static_cast<int64_t>(mag);
}

uint64_t ulp_distance(Dtype t, double a, double e) {
  const __int128 d = static_cast<__int128>(ordinal(t, a)) - ordinal(t, e);
  return static_cast<uint64_t>(d < 0 ? -d : d);
}

// "Greatest" as torch.max: NaN wins, the first occurrence wins ties.
struct Greatest {
  double value = 0;
  int64_t index = -1;
  void add(double v, int64_t i) {
    if (index < 0 || (std::isnan(v) && !std::isnan(value)) || v > value) { value = v; index = i; }
  }
};
struct GreatestU {
  uint64_t value = 0;
  int64_t index = -1;
  void add(uint64_t v, int64_t i) {
    if (index < 0 || v > value) { value = v; index = i; }
  }
};

// Statistics over one set of elements (all, or only the mismatched ones).
struct Stats {
  Greatest abs, rel;
  GreatestU ulp;
  void add(double absd, double reld, std::optional<uint64_t> ulp_d, int64_t i) {
    abs.add(absd, i);
    rel.add(reld, i);
    if (ulp_d) ulp.add(*ulp_d, i);
  }
};

std::string attribute_problem(const char* attr, const std::string& a, const std::string& e) {
  return "The values for attribute '" + std::string(attr) + "' do not match: " + a + " != " + e + ".";
}

}  // namespace

Tolerances default_tolerances(Dtype t) {
  switch (t) {
    case Dtype::float16: return {1e-3, 1e-5};
    case Dtype::bfloat16: return {1.6e-2, 1e-5};
    case Dtype::float32: return {1.3e-6, 1e-5};
    case Dtype::float64: return {1e-7, 1e-7};
    default: return {0.0, 0.0};
  }
}

Tolerances default_tolerances(Dtype a, Dtype b) {
  const Tolerances ta = default_tolerances(a), tb = default_tolerances(b);
  return {std::max(ta.rtol, tb.rtol), std::max(ta.atol, tb.atol)};
}

std::string float_repr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  // The fewest significant digits that read back as v (Python's repr).
  char buf[48];
  for (int p = 1; p <= 17; ++p) {
    std::snprintf(buf, sizeof buf, "%.*e", p - 1, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  std::string s(buf);
  const bool neg = s[0] == '-';
  if (neg) s.erase(0, 1);
  const size_t epos = s.find('e');
  const int exp10 = std::atoi(s.c_str() + epos + 1);
  std::string digits;
  for (size_t i = 0; i < epos; ++i)
    if (s[i] != '.') digits += s[i];
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  // Python switches to exponent notation below 1e-4 and from 1e16 on.
  const int decpt = exp10 + 1;  // v = 0.digits * 10^decpt
  std::string out;
  if (decpt <= -4 || decpt > 16) {
    out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char e[16];
    std::snprintf(e, sizeof e, "e%c%02d", exp10 < 0 ? '-' : '+', std::abs(exp10));
    out += e;
  } else if (decpt <= 0) {
    out = "0." + std::string(static_cast<size_t>(-decpt), '0') + digits;
  } else if (static_cast<size_t>(decpt) >= digits.size()) {
    out = digits + std::string(static_cast<size_t>(decpt) - digits.size(), '0') + ".0";
  } else {
    out = digits.substr(0, static_cast<size_t>(decpt)) + "." + digits.substr(static_cast<size_t>(decpt));
  }
  return neg ? "-" + out : out;
}

std::string index_str(const std::vector<int64_t>& index) {
  std::string s = "(";
  for (size_t i = 0; i < index.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(index[i]);
  }
  if (index.size() == 1) s += ",";
  return s + ")";
}

Comparison compare(const Tensor& actual, const Tensor& expected, const CompareOptions& options) {
  if (!actual.defined() || !expected.defined())
    throw ValueError(std::string("[compare] the ") + (actual.defined() ? "expected" : "actual") +
                     " tensor is undefined (default-constructed); pass tensors made by concord");
  Comparison c;
  c.shape = actual.shape();
  c.total = actual.numel();
  const Dtype da = actual.dtype(), de = expected.dtype();
  c.dtype = da == de ? da : promote_types(da, de);
  const Tolerances def = default_tolerances(da, de);
  c.rtol = options.rtol.value_or(def.rtol);
  c.atol = options.atol.value_or(def.atol);

  // Attributes first, in PyTorch's order: shape, device, dtype.
  if (!(actual.shape() == expected.shape())) {
    c.problem = attribute_problem("shape", shape_str(actual.shape()), shape_str(expected.shape()));
  } else if (options.check_device && !(actual.device() == expected.device())) {
    c.problem = attribute_problem("device", actual.device().str(), expected.device().str());
  } else if (options.check_dtype && da != de) {
    c.problem = attribute_problem("dtype", std::string(name(da)), std::string(name(de)));
  }
  if (!c.problem.empty()) {
    c.ok = false;
    return c;
  }
  const int64_t n = c.total;
  if (n == 0) return c;

  Stats all, bad;
  const Tensor ha = actual.device().is_cpu() ? actual : actual.to(kCPU);
  const Tensor he = expected.device().is_cpu() ? expected : expected.to(kCPU);
  if (!is_floating(da) && !is_floating(de)) {
    // Integers and bool: exact, in int64 (values beyond 2^53 do not survive float64).
    const auto va = ha.to_vector<int64_t>(), ve = he.to_vector<int64_t>();
    for (int64_t i = 0; i < n; ++i) {
      const int64_t a = va[static_cast<size_t>(i)], e = ve[static_cast<size_t>(i)];
      const __int128 d = static_cast<__int128>(a) - e;
      const double absd = static_cast<double>(d < 0 ? -d : d);
      const double mag_e = std::fabs(static_cast<double>(e));
      const bool close = a == e || absd <= c.atol + c.rtol * mag_e;
      // PyTorch divides integer tensors in float32 (true division's default dtype);
      // a 0-dim comparison divides Python numbers, i.e. in float64.
      const double reld = absd == 0            ? 0.0
                          : c.shape.empty()   ? absd / mag_e
                                              : static_cast<double>(static_cast<float>(absd) / static_cast<float>(mag_e));
      all.add(absd, reld, std::nullopt, i);
      if (!close) {
        ++c.mismatched;
        bad.add(absd, reld, std::nullopt, i);
      }
    }
  } else {
    const bool fl = is_floating(c.dtype);
    const auto va = ha.to_vector<double>(), ve = he.to_vector<double>();
    for (int64_t i = 0; i < n; ++i) {
      const double a = va[static_cast<size_t>(i)], e = ve[static_cast<size_t>(i)];
      bool close;
      if (std::isnan(a) || std::isnan(e)) {
        close = options.equal_nan && std::isnan(a) && std::isnan(e);
        if (!close) ++c.nan_mismatch;
      } else if (std::isinf(a) || std::isinf(e)) {
        close = a == e;
        if (!close) ++c.inf_mismatch;
      } else {
        close = std::fabs(a - e) <= c.atol + c.rtol * std::fabs(e);
      }
      // Equal values (including equal infinities) differ by 0, not inf - inf.
      const double absd = a == e ? 0.0 : std::fabs(a - e);
      const double reld = absd == 0 ? 0.0 : absd / std::fabs(e);
      std::optional<uint64_t> ud;
      if (fl && !std::isnan(a) && !std::isnan(e)) ud = ulp_distance(c.dtype, a, e);
      all.add(absd, reld, ud, i);
      if (!close) {
        ++c.mismatched;
        bad.add(absd, reld, ud, i);
      }
    }
  }
  c.ok = c.mismatched == 0;
  const Stats& s = c.ok ? all : bad;
  c.max_abs_diff = s.abs.value;
  c.max_abs_index = unravel(s.abs.index, c.shape);
  c.max_rel_diff = s.rel.value;
  c.max_rel_index = unravel(s.rel.index, c.shape);
  if (s.ulp.index >= 0) {
    c.has_ulp = true;
    c.max_ulp = s.ulp.value;
    c.max_ulp_index = unravel(s.ulp.index, c.shape);
  }
  return c;
}

std::string Comparison::message() const {
  if (ok) return "";
  if (!problem.empty()) return problem;
  // PyTorch says "equal" and leaves out the allowed tolerances when both are 0.
  const bool equality = rtol == 0 && atol == 0;
  const bool integral = !is_floating(dtype);
  // 0-dim inputs: PyTorch's scalar message, without element count or index.
  const bool scalar = shape.empty();
  std::string m = std::string(scalar ? "Scalars" : "Tensor-likes") + " are not " + (equality ? "equal" : "close") + "!\n\n";
  if (!scalar) {
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.1f%%", static_cast<double>(mismatched) / static_cast<double>(total) * 100.0);
    m += "Mismatched elements: " + std::to_string(mismatched) + " / " + std::to_string(total) + " (" + pct + ")\n";
  }
  // "Greatest absolute difference: D at index (i, j)" or, for scalars, "Absolute difference: D".
  auto head = [&](const char* type, const char* title) {
    return scalar ? std::string(title) + " difference: " : std::string("Greatest ") + type + " difference: ";
  };
  auto at = [&](const std::vector<int64_t>& idx) { return scalar ? std::string() : " at index " + index_str(idx); };
  auto line = [&](const char* type, const char* title, const std::string& diff, const std::vector<int64_t>& idx,
                  double tol) {
    m += head(type, title) + diff + at(idx);
    if (!equality) m += " (up to " + float_repr(tol) + " allowed)";
    m += "\n";
  };
  char absbuf[48];
  std::snprintf(absbuf, sizeof absbuf, "%.0f", max_abs_diff);  // int64 differences print as integers
  line("absolute", "Absolute", integral ? std::string(absbuf) : float_repr(max_abs_diff), max_abs_index, atol);
  line("relative", "Relative", float_repr(max_rel_diff), max_rel_index, rtol);
  if (!integral && has_ulp)
    m += std::string(scalar ? "" : "Greatest ") + "ULP distance: " + std::to_string(max_ulp) + at(max_ulp_index) + "\n";
  m.pop_back();
  return m;
}

void assert_close(const Tensor& actual, const Tensor& expected, const CompareOptions& options) {
  const Comparison c = compare(actual, expected, options);
  if (!c.ok) throw AssertionError(c.message());
}

}  // namespace concord::testing
