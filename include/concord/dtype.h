// concord/dtype.h — element types, their properties, and type promotion.
//
// Promotion follows PyTorch: categories bool < integer < floating; among
// operands of one op, dimensioned tensors outrank 0-dim tensors, which outrank
// Python-like scalars. A lower-priority operand only matters if its category
// is higher, and then it contributes the default dtype of that category
// (int64 for integers, float32 for floats), e.g.
//   int32 tensor + 2.5           -> float32
//   float16 tensor + 1.0         -> float16
//   int64 tensor + float32 tensor -> float32
//   float32 tensor + float64 tensor -> float64
//   uint8 tensor + int8 tensor   -> int16
#pragma once

#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <string>
#include <string_view>

#include "concord/half.h"

namespace concord {

enum class Dtype : uint8_t {
  bool_, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64,
};
inline constexpr int kNumDtypes = 10;

inline constexpr Dtype bool_ = Dtype::bool_;
inline constexpr Dtype uint8 = Dtype::uint8;
inline constexpr Dtype int8 = Dtype::int8;
inline constexpr Dtype int16 = Dtype::int16;
inline constexpr Dtype int32 = Dtype::int32;
inline constexpr Dtype int64 = Dtype::int64;
inline constexpr Dtype float16 = Dtype::float16;
inline constexpr Dtype bfloat16 = Dtype::bfloat16;
inline constexpr Dtype float32 = Dtype::float32;
inline constexpr Dtype float64 = Dtype::float64;

inline constexpr Dtype kAllDtypes[kNumDtypes] = {bool_, uint8, int8, int16, int32,
                                                 int64, float16, bfloat16, float32, float64};

constexpr size_t itemsize(Dtype t) {
  switch (t) {
    case Dtype::bool_: case Dtype::uint8: case Dtype::int8: return 1;
    case Dtype::int16: case Dtype::float16: case Dtype::bfloat16: return 2;
    case Dtype::int32: case Dtype::float32: return 4;
    default: return 8;
  }
}
constexpr bool is_floating(Dtype t) { return t >= Dtype::float16; }
constexpr bool is_integral(Dtype t) { return t >= Dtype::uint8 && t <= Dtype::int64; }  // excludes bool
constexpr bool is_half(Dtype t) { return t == Dtype::float16 || t == Dtype::bfloat16; }
constexpr bool is_signed(Dtype t) { return t != Dtype::bool_ && t != Dtype::uint8; }

std::string_view name(Dtype t);                 // "float32", "bool", ...
Dtype parse_dtype(std::string_view s);          // accepts "float32", "f32", "half", "bf16"...; throws DtypeError
std::string to_string(Dtype t);
std::ostream& operator<<(std::ostream& os, Dtype t);   // its name: "float32"

// A small set of dtypes (bit i = Dtype i).
struct DtypeSet {
  uint16_t bits = 0;
  constexpr DtypeSet() = default;
  constexpr DtypeSet(std::initializer_list<Dtype> l) { for (Dtype t : l) bits |= bit(t); }
  static constexpr DtypeSet all() { DtypeSet s; s.bits = (1u << kNumDtypes) - 1; return s; }
  static constexpr uint16_t bit(Dtype t) { return static_cast<uint16_t>(1u << static_cast<int>(t)); }
  constexpr bool has(Dtype t) const { return bits & bit(t); }
  constexpr DtypeSet& add(Dtype t) { bits |= bit(t); return *this; }
  constexpr DtypeSet& remove(Dtype t) { bits &= static_cast<uint16_t>(~bit(t)); return *this; }
  constexpr DtypeSet operator&(DtypeSet o) const { DtypeSet s; s.bits = bits & o.bits; return s; }
  constexpr DtypeSet operator|(DtypeSet o) const { DtypeSet s; s.bits = bits | o.bits; return s; }
  constexpr DtypeSet operator-(DtypeSet o) const { DtypeSet s; s.bits = bits & ~o.bits; return s; }
  constexpr bool empty() const { return bits == 0; }
  constexpr bool operator==(const DtypeSet&) const = default;
};
inline constexpr DtypeSet kFloatingDtypes{float16, bfloat16, float32, float64};
inline constexpr DtypeSet kIntegralDtypes{uint8, int8, int16, int32, int64};

// Promotion of two dtypes of the same priority (PyTorch's promote_types).
Dtype promote_types(Dtype a, Dtype b);

// The operands of one op, in priority order: dimensioned tensors, 0-dim tensors, scalars.
struct ResultTypeState {
  Dtype dim_result = Dtype::bool_, zero_dim_result = Dtype::bool_, scalar_result = Dtype::bool_;
  bool has_dim = false, has_zero_dim = false, has_scalar = false;
  void add_tensor(Dtype t, bool zero_dim);
  void add_scalar(Dtype t);   // bool, int64 or float64 (from the C++ literal)
  Dtype result() const;
};

// C++ type <-> Dtype.
template <class T> struct dtype_of;
template <> struct dtype_of<bool> { static constexpr Dtype value = Dtype::bool_; };
template <> struct dtype_of<uint8_t> { static constexpr Dtype value = Dtype::uint8; };
template <> struct dtype_of<int8_t> { static constexpr Dtype value = Dtype::int8; };
template <> struct dtype_of<int16_t> { static constexpr Dtype value = Dtype::int16; };
template <> struct dtype_of<int32_t> { static constexpr Dtype value = Dtype::int32; };
template <> struct dtype_of<int64_t> { static constexpr Dtype value = Dtype::int64; };
template <> struct dtype_of<float16_t> { static constexpr Dtype value = Dtype::float16; };
template <> struct dtype_of<bfloat16_t> { static constexpr Dtype value = Dtype::bfloat16; };
template <> struct dtype_of<float> { static constexpr Dtype value = Dtype::float32; };
template <> struct dtype_of<double> { static constexpr Dtype value = Dtype::float64; };
template <class T> inline constexpr Dtype dtype_v = dtype_of<T>::value;

// Calls f(T{}) with the C++ type of t: visit_dtype(t, [&](auto tag){ using T = decltype(tag); ... }).
template <class F>
decltype(auto) visit_dtype(Dtype t, F&& f) {
  switch (t) {
    case Dtype::bool_: return f(bool{});
    case Dtype::uint8: return f(uint8_t{});
    case Dtype::int8: return f(int8_t{});
    case Dtype::int16: return f(int16_t{});
    case Dtype::int32: return f(int32_t{});
    case Dtype::int64: return f(int64_t{});
    case Dtype::float16: return f(float16_t{});
    case Dtype::bfloat16: return f(bfloat16_t{});
    case Dtype::float32: return f(float{});
    default: return f(double{});
  }
}

}  // namespace concord
