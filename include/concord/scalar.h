// concord/scalar.h — a C++ number handed to an op (bool, integer or floating).
//
// Scalars take part in type promotion with the lowest priority: an integer
// scalar never widens an integer tensor, a floating scalar turns an integer
// tensor into float32 but leaves float16 as float16.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "concord/dtype.h"

namespace concord {

class Scalar {
 public:
  enum class Kind : uint8_t { boolean, integer, floating };
  Scalar() : Scalar(int64_t{0}) {}
  Scalar(bool b) : kind_(Kind::boolean), i_(b), d_(b) {}  // NOLINT
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T v) : kind_(Kind::integer), i_(static_cast<int64_t>(v)), d_(static_cast<double>(v)) {}  // NOLINT
  template <class T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  Scalar(T v) : kind_(Kind::floating), i_(0), d_(static_cast<double>(v)) {  // NOLINT
    if (d_ == d_ && d_ > -9.2e18 && d_ < 9.2e18) i_ = static_cast<int64_t>(d_);
  }
  Scalar(float16_t v) : Scalar(static_cast<float>(v)) {}    // NOLINT
  Scalar(bfloat16_t v) : Scalar(static_cast<float>(v)) {}   // NOLINT

  Kind kind() const { return kind_; }
  bool is_floating() const { return kind_ == Kind::floating; }
  bool is_integer() const { return kind_ == Kind::integer; }
  bool is_bool() const { return kind_ == Kind::boolean; }
  // The dtype the scalar contributes to promotion: bool, int64 or float64.
  Dtype dtype() const { return kind_ == Kind::boolean ? Dtype::bool_ : kind_ == Kind::integer ? Dtype::int64 : Dtype::float64; }
  double to_double() const { return d_; }
  int64_t to_int() const { return i_; }
  bool to_bool() const { return kind_ == Kind::floating ? d_ != 0.0 : i_ != 0; }
  template <class T> T to() const {
    if constexpr (std::is_same_v<T, bool>) return to_bool();
    else if constexpr (std::is_integral_v<T>) return kind_ == Kind::floating ? static_cast<T>(d_) : static_cast<T>(i_);
    else return static_cast<T>(d_);
  }
  std::string str() const;

 private:
  Kind kind_;
  int64_t i_;
  double d_;
};

}  // namespace concord
