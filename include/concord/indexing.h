// concord/indexing.h — the index terms of Tensor::index and index_put_, as libtorch spells them.
//
//   using namespace concord::indexing;
//   auto v = a.index({Slice(1, None, 2), 3});        // a[1::2, 3], a view
//   auto w = a.index({Ellipsis, None});              // a[..., None], a view
//   a.index_put_({0, Slice()}, 7.0);                 // a[0, :] = 7
//
// Terms: an integer (selects, removing the dim; negative counts from the end;
// out of range raises ShapeError), Slice(start, stop, step) with None for an
// absent bound (Python semantics, clamped; step must be positive), None (a new
// dim of size 1) and Ellipsis (as many full slices as needed; at most one).
// Every result is a view sharing storage. Tensor indices (gather by an index
// tensor, boolean masks) are not terms: use index_select, gather,
// masked_select/nonzero or masked_fill_/where.
#pragma once

#include <cstdint>
#include <optional>
#include <type_traits>

namespace concord::indexing {

struct NoneType { constexpr bool operator==(const NoneType&) const = default; };
struct EllipsisType {};
inline constexpr NoneType None{};
inline constexpr EllipsisType Ellipsis{};

class Slice {
 public:
  // An absent bound is None (or std::nullopt).
  Slice(std::optional<int64_t> start = std::nullopt, std::optional<int64_t> stop = std::nullopt,  // NOLINT
        std::optional<int64_t> step = std::nullopt)
      : start_(start), stop_(stop), step_(step.value_or(1)) {}
  Slice(NoneType) : Slice() {}  // NOLINT
  template <class A, class B>
  Slice(A start, B stop, std::optional<int64_t> step = std::nullopt) : Slice(bound(start), bound(stop), step) {}
  std::optional<int64_t> start() const { return start_; }
  std::optional<int64_t> stop() const { return stop_; }
  int64_t step() const { return step_; }

 private:
  static std::optional<int64_t> bound(NoneType) { return std::nullopt; }
  static std::optional<int64_t> bound(std::nullopt_t) { return std::nullopt; }
  static std::optional<int64_t> bound(std::optional<int64_t> v) { return v; }
  template <class T> static std::optional<int64_t> bound(T v) { return static_cast<int64_t>(v); }
  std::optional<int64_t> start_, stop_;
  int64_t step_;
};

class TensorIndex {
 public:
  enum class Kind : uint8_t { integer, slice, none, ellipsis };
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  TensorIndex(T i) : kind_(Kind::integer), i_(static_cast<int64_t>(i)) {}  // NOLINT
  TensorIndex(Slice s) : kind_(Kind::slice), s_(s) {}                       // NOLINT
  TensorIndex(NoneType) : kind_(Kind::none) {}                              // NOLINT
  TensorIndex(EllipsisType) : kind_(Kind::ellipsis) {}                      // NOLINT
  Kind kind() const { return kind_; }
  int64_t integer() const { return i_; }
  const Slice& slice() const { return s_; }

 private:
  Kind kind_;
  int64_t i_ = 0;
  Slice s_;
};

}  // namespace concord::indexing
