// Dtype names, parsing and promotion (PyTorch's rules).
#include "concord/dtype.h"

#include <array>

#include "concord/error.h"
#include "concord/scalar.h"

namespace concord {

namespace {
constexpr std::array<std::string_view, kNumDtypes> kNames = {
    "bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"};
}

std::string_view name(Dtype t) { return kNames[static_cast<int>(t)]; }
std::string to_string(Dtype t) { return std::string(name(t)); }

Dtype parse_dtype(std::string_view s) {
  for (int i = 0; i < kNumDtypes; ++i)
    if (kNames[i] == s) return static_cast<Dtype>(i);
  struct Alias { std::string_view a; Dtype t; };
  static constexpr Alias aliases[] = {
      {"f16", float16}, {"half", float16}, {"bf16", bfloat16}, {"f32", float32}, {"float", float32},
      {"f64", float64}, {"double", float64}, {"i8", int8}, {"u8", uint8}, {"i16", int16},
      {"i32", int32}, {"int", int32}, {"i64", int64}, {"long", int64}, {"bool_", bool_}};
  for (const auto& a : aliases)
    if (a.a == s) return a.t;
  throw DtypeError("[dtype] unknown dtype '" + std::string(s) +
                   "'; use one of bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64");
}

Dtype promote_types(Dtype a, Dtype b) {
  if (a == b) return a;
  if (a == bool_) return b;
  if (b == bool_) return a;
  const bool fa = is_floating(a), fb = is_floating(b);
  if (fa && fb) {
    if ((a == float16 && b == bfloat16) || (a == bfloat16 && b == float16)) return float32;
    return a > b ? a : b;  // the enum is ordered float16 < bfloat16 < float32 < float64
  }
  if (fa) return a;
  if (fb) return b;
  // Both integral. uint8 with a signed type needs a signed type that holds 0..255.
  if (a == uint8 || b == uint8) {
    Dtype other = a == uint8 ? b : a;
    return other == int8 ? int16 : other;
  }
  return a > b ? a : b;
}

namespace {
// PyTorch's combine_categories: a lower-priority operand matters only if its category is higher.
Dtype combine(Dtype higher, bool has_higher, Dtype lower, bool has_lower) {
  if (!has_higher) return lower;
  if (!has_lower) return higher;
  if (is_floating(higher)) return higher;
  if (higher == bool_ || is_floating(lower)) return promote_types(higher, lower);
  return higher;
}
}  // namespace

void ResultTypeState::add_tensor(Dtype t, bool zero_dim) {
  if (zero_dim) {
    zero_dim_result = has_zero_dim ? promote_types(zero_dim_result, t) : t;
    has_zero_dim = true;
  } else {
    dim_result = has_dim ? promote_types(dim_result, t) : t;
    has_dim = true;
  }
}

void ResultTypeState::add_scalar(Dtype t) {
  // A floating C++ number counts as the default floating dtype, float32.
  if (is_floating(t)) t = float32;
  scalar_result = has_scalar ? promote_types(scalar_result, t) : t;
  has_scalar = true;
}

Dtype ResultTypeState::result() const {
  Dtype low = combine(zero_dim_result, has_zero_dim, scalar_result, has_scalar);
  return combine(dim_result, has_dim, low, has_zero_dim || has_scalar);
}

std::string Scalar::str() const {
  switch (kind_) {
    case Kind::boolean: return i_ ? "true" : "false";
    case Kind::integer: return std::to_string(i_);
    default: {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.17g", d_);
      return buf;
    }
  }
}

}  // namespace concord
