// The known deviations from PyTorch 1.13, one row per line of docs/PYTORCH_DIFFERENCES.md.
#include "deviations.h"

#include <cmath>

namespace concord::differential {

namespace {

bool first_is(const Case& c, bool (*pred)(Dtype)) { return !c.args.empty() && !c.args[0].is_scalar && pred(c.args[0].dtype); }
bool integral(Dtype t) { return !is_floating(t); }
bool is_bool(Dtype t) { return t == Dtype::bool_; }
bool is_uint8(Dtype t) { return t == Dtype::uint8; }
bool is_half(Dtype t) { return t == Dtype::float16 || t == Dtype::bfloat16; }
bool is_floating_dtype(Dtype t) { return is_floating(t); }
std::pair<double, double> integer_range(Dtype t) {
  switch (t) {
    case Dtype::bool_: return {0, 1};
    case Dtype::uint8: return {0, 255};
    case Dtype::int8: return {-128, 127};
    case Dtype::int16: return {-32768, 32767};
    case Dtype::int32: return {-2147483648.0, 2147483647.0};
    default: return {-9223372036854775808.0, 9223372036854775807.0};
  }
}

}  // namespace

std::string case_key(const Case& c) { return c.id.substr(0, c.id.rfind('.')); }

const std::vector<Deviation>& known_deviations() {
  static const std::vector<Deviation> table = {
      {"all_any_uint8",
       [](const Case& c) { return (c.op == "all" || c.op == "any") && first_is(c, is_uint8); }, nullptr},
      {"gelu_integer", [](const Case& c) { return c.op == "gelu" && first_is(c, integral); }, nullptr},
      {"gelu_neg_inf", nullptr,
       [](const Case& c, double tv, double cv) { return c.op == "gelu" && std::isnan(tv) && cv == 0; }},
      {"argmax_bool",
       [](const Case& c) { return (c.op == "argmax" || c.op == "argmin") && first_is(c, is_bool); }, nullptr},
      {"pow_scalar_range",
       [](const Case& c) {
         return c.op == "pow" && c.torch_error && first_is(c, is_half) && c.args.size() == 2 && c.args[1].is_scalar;
       },
       nullptr},
      {"integer_negative_power",
       [](const Case& c) {
         return c.op == "pow" && c.torch_error && first_is(c, integral) && c.args.size() == 2 && c.args[1].is_scalar &&
                c.args[1].scalar.to_double() < 0;
       },
       nullptr},
      {"pow_c99_specials", nullptr,
       [](const Case& c, double tv, double cv) {
         // PyTorch's NaN (or -inf) where C99 defines the value (+inf, +0).
         return c.op == "pow" && ((std::isnan(tv) && !std::isnan(cv)) || (std::isinf(tv) && std::isinf(cv)));
       }},
      // PyTorch's vectorised CPU kernels overflow inside: pow(DBL_MAX, 1.0), log1p(FLT_MAX)
      // give inf; concord's finite value passed the error model against the float64 reference.
      {"torch_spurious_overflow", nullptr,
       [](const Case& c, double tv, double cv) {
         return (c.op == "pow" || c.op == "log1p") && std::isinf(tv) && std::isfinite(cv);
       }},
      {"cast_saturates", nullptr,
       [](const Case& c, double, double) {
         return c.op == "cast" && first_is(c, is_floating_dtype) && !is_floating(parse_dtype(c.param("dtype")));
       }},
      {"integer_division_by_zero",
       [](const Case& c) {
         return (c.op == "remainder" || c.op == "floor_divide") && c.torch_error.has_value() &&
                !c.torch_out.size() && first_is(c, integral);
       },
       nullptr},
      {"clamp_integer_bounds",
       [](const Case& c) {
         if (c.op != "clamp" || !first_is(c, integral)) return false;
         const auto [lo, hi] = integer_range(c.args[0].dtype);
         for (const char* k : {"lo", "hi"}) {
           const std::string v = c.param(k, "-");
           if (v != "-" && (std::stod(v) < lo || std::stod(v) > hi)) return true;
         }
         return false;
       },
       nullptr},
      {"maximum_signed_zero", nullptr,
       [](const Case& c, double tv, double cv) {
         return (c.op == "maximum" || c.op == "minimum") && tv == 0 && cv == 0;
       }},
      {"remainder_huge_quotient", nullptr,
       [](const Case& c, double tv, double cv) { return c.op == "remainder" && std::isnan(tv) && std::isfinite(cv); }},
      {"floor_divide_overflow", nullptr,
       [](const Case& c, double tv, double cv) { return c.op == "floor_divide" && std::isnan(tv) && std::isinf(cv); }},
      {"sign_nan", nullptr,
       [](const Case& c, double tv, double cv) { return c.op == "sign" && tv == 0 && std::isnan(cv); }},
      {"norm_p", [](const Case& c) { return c.tag == "norm_p"; }, nullptr},
      {"inv_half", [](const Case& c) { return c.op == "inv" && first_is(c, is_half); }, nullptr},
      {"integer_addmm_fractional_beta",
       [](const Case& c) { return c.op == "addmm" && first_is(c, integral) && c.param("beta").find('.') != std::string::npos; },
       nullptr},
      {"float_ops_integer",
       [](const Case& c) {
         return (c.op == "hypot" || c.op == "logaddexp" || c.op == "nextafter") && c.torch_error.has_value() &&
                first_is(c, integral);
       },
       nullptr},
      {"matrix_norm_2_nonfinite",
       [](const Case& c) { return c.op == "matrix_norm" && c.param("ord") == "2" && c.torch_error.has_value(); }, nullptr},
      // assert_close's message: judged by the suite's message comparison itself.
      {"assert_close_spelling", nullptr, nullptr},
      {"assert_close_ulp_line", nullptr, nullptr},
      {"compare_one_tolerance", nullptr, nullptr},
  };
  return table;
}

const std::vector<std::string>& open_defects() {
  // log_softmax in float64: log(s) of s = 1 + (the other terms) rounds s
  // first, so an element near the max (result near 0) is off by ~u / |result|
  // relative (24 ulp on -0.0415); PyTorch's matches the float64 reference.
  // Fix: log1p of the other terms' sum, in every backend's blocked order.
  static const std::vector<std::string> keys = {"log_softmax.float64"};
  return keys;
}

}  // namespace concord::differential
