// concord/shape.h — Shape and Strides: small vectors of int64 kept inline.
//
// Up to 6 dimensions live inside the object (no heap allocation: small ops
// stay cheap); more dimensions spill to the heap transparently.
//
//   concord::Shape s{2, 3, 4};
//   s.size() == 3; s[1] == 3; numel(s) == 24;
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iosfwd>
#include <span>
#include <string>
#include <vector>

namespace concord {

template <class T, size_t N>
class SmallVec {
 public:
  SmallVec() = default;
  SmallVec(std::initializer_list<T> l) { assign(l.begin(), l.size()); }
  explicit SmallVec(size_t n, T v = T{}) { resize(n, v); }
  SmallVec(std::span<const T> s) { assign(s.data(), s.size()); }  // NOLINT: implicit by design
  SmallVec(const std::vector<T>& v) { assign(v.data(), v.size()); }  // NOLINT
  template <class It, class = decltype(*std::declval<It>())>
  SmallVec(It b, It e) { for (; b != e; ++b) push_back(static_cast<T>(*b)); }
  SmallVec(const SmallVec& o) { assign(o.data(), o.size()); }
  SmallVec(SmallVec&& o) noexcept { move_from(std::move(o)); }
  SmallVec& operator=(const SmallVec& o) { if (this != &o) { size_ = 0; assign(o.data(), o.size()); } return *this; }
  SmallVec& operator=(SmallVec&& o) noexcept { if (this != &o) { heap_.clear(); heap_.shrink_to_fit(); move_from(std::move(o)); } return *this; }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() { return size_ > N || !heap_.empty() ? heap_.data() : inline_; }
  const T* data() const { return size_ > N || !heap_.empty() ? heap_.data() : inline_; }
  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  T& back() { return data()[size_ - 1]; }
  const T& back() const { return data()[size_ - 1]; }
  operator std::span<const T>() const { return {data(), size_}; }  // NOLINT
  std::vector<T> vec() const { return std::vector<T>(begin(), end()); }

  void push_back(T v) {
    if (heap_.empty() && size_ < N) { inline_[size_++] = v; return; }
    if (heap_.empty()) heap_.assign(inline_, inline_ + size_);
    heap_.push_back(v); ++size_;
  }
  void resize(size_t n, T v = T{}) { while (size_ > n) pop_back(); while (size_ < n) push_back(v); }
  void pop_back() { if (!heap_.empty()) heap_.pop_back(); --size_; }
  void insert(size_t pos, T v) {
    push_back(v);
    T* d = data();
    for (size_t i = size_ - 1; i > pos; --i) d[i] = d[i - 1];
    d[pos] = v;
  }
  void erase(size_t pos) {
    T* d = data();
    for (size_t i = pos; i + 1 < size_; ++i) d[i] = d[i + 1];
    pop_back();
  }
  bool operator==(const SmallVec& o) const { return size_ == o.size_ && std::equal(begin(), end(), o.begin()); }

 private:
  void assign(const T* p, size_t n) { for (size_t i = 0; i < n; ++i) push_back(p[i]); }
  void move_from(SmallVec&& o) {
    size_ = o.size_;
    if (!o.heap_.empty()) { heap_ = std::move(o.heap_); } else { std::memcpy(inline_, o.inline_, sizeof(T) * size_); }
    o.size_ = 0; o.heap_.clear();
  }
  T inline_[N]{};
  size_t size_ = 0;
  std::vector<T> heap_;
};

using Shape = SmallVec<int64_t, 6>;
using Strides = SmallVec<int64_t, 6>;

// Number of elements; throws ShapeError on a negative size or int64 overflow.
int64_t numel(std::span<const int64_t> shape);
// Row-major contiguous strides (in elements).
Strides contiguous_strides(std::span<const int64_t> shape);
// "[2, 3, 4]"
std::string shape_str(std::span<const int64_t> shape);
std::ostream& operator<<(std::ostream& os, const Shape& s);   // shape_str: "[2, 3]" (also Strides, Dims)
// NumPy broadcasting of two shapes; throws ShapeError naming op and both shapes.
Shape broadcast_shapes(std::span<const int64_t> a, std::span<const int64_t> b, const char* op = "broadcast");
// Wraps a possibly negative dim into [0, ndim); throws ShapeError if out of range.
int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op = "dim");

}  // namespace concord
