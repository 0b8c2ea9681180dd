// concord/creation.h — making tensors: constants, ranges, host data, random numbers.
//
// Every creation function takes the dtype and device last-but-one; on a device
// that cannot store the dtype the dtype policy applies (downcast float64 to
// float32 with one warning, or UnsupportedDtypeError under strict).
//
// Random numbers come from Philox 4x32-10, a counter-based generator: element i
// of a tensor made with seed s is a pure function of (s, i), so the same seed
// gives the same bits whatever the thread count and on every device.
//
//   auto a = concord::zeros({2, 3});                           // float32 on cpu
//   auto r = concord::randn({4, 4}, concord::float16, "emu:0", 7);
//   double buf[6] = {1, 2, 3, 4, 5, 6};
//   auto h = concord::from_host(buf, {2, 3}, concord::float64);
#pragma once

#include <initializer_list>
#include <optional>
#include <vector>

#include "concord/tensor.h"

namespace concord {

Tensor empty(Shape shape, Dtype dtype = float32, const Device& device = kCPU);
Tensor zeros(Shape shape, Dtype dtype = float32, const Device& device = kCPU);
Tensor ones(Shape shape, Dtype dtype = float32, const Device& device = kCPU);
Tensor full(Shape shape, Scalar value, Dtype dtype = float32, const Device& device = kCPU);
Tensor zeros_like(const Tensor& t);
Tensor ones_like(const Tensor& t);
Tensor full_like(const Tensor& t, Scalar value);
Tensor empty_like(const Tensor& t);

// Values start, start+step, ... < end (> end for negative step). The dtype
// defaults to int64 when start, end and step are all integers, else float32.
// step == 0 raises ValueError.
Tensor arange(Scalar end, std::optional<Dtype> dtype = {}, const Device& device = kCPU);
Tensor arange(Scalar start, Scalar end, Scalar step = 1, std::optional<Dtype> dtype = {}, const Device& device = kCPU);
// steps evenly spaced values from start to end inclusive (steps >= 0).
Tensor linspace(double start, double end, int64_t steps, Dtype dtype = float32, const Device& device = kCPU);
// n x m identity (m defaults to n).
Tensor eye(int64_t n, std::optional<int64_t> m = {}, Dtype dtype = float32, const Device& device = kCPU);

// Copies numel(shape) elements of `dtype` from host memory at `data`. The
// caller guarantees that `data` holds that many elements: a raw pointer
// carries no length. Prefer the overload with `count` (or from_vector), which
// checks it.
Tensor from_host(const void* data, Shape shape, Dtype dtype, const Device& device = kCPU);
// The same, for `count` elements at `data`: count != numel(shape) raises
// ShapeError naming both (nothing is read).
//   std::vector<double> v(6);
//   auto t = concord::from_host(v.data(), v.size(), {2, 3}, concord::float64);
Tensor from_host(const void* data, size_t count, Shape shape, Dtype dtype, const Device& device = kCPU);
namespace detail {
// from_host with a count, its errors prefixed "[op]" (from_vector's own name).
Tensor from_host_counted(const char* op, const void* data, size_t count, Shape shape, Dtype dtype, const Device& device);
}
// A tensor of `shape` from a vector of exactly numel(shape) elements (else
// ShapeError: from_vector(v5, {2, 3}) names 5 and [2, 3]).
template <class T>
Tensor from_vector(const std::vector<T>& v, Shape shape, const Device& device = kCPU) {
  if constexpr (std::is_same_v<T, bool>) {
    std::vector<uint8_t> b(v.begin(), v.end());
    return detail::from_host_counted("from_vector", b.data(), b.size(), std::move(shape), Dtype::bool_, device);
  } else {
    return detail::from_host_counted("from_vector", v.data(), v.size(), std::move(shape), dtype_v<T>, device);
  }
}
// A 1-D tensor from a vector.
template <class T>
Tensor tensor(const std::vector<T>& v, const Device& device = kCPU) {
  return from_vector(v, Shape{static_cast<int64_t>(v.size())}, device);
}
// Literals of 1, 2 or 3 dims from nested braces, without a template argument;
// the dtype is the element's C++ type (float -> float32, double -> float64,
// int -> int32, int64_t -> int64, bool -> bool):
//   auto a = concord::tensor({1.f, 2.f});                        // float32 [2]
//   auto b = concord::tensor({{1.0, 2.0}, {3.0, 4.0}});          // float64 [2, 2]
//   auto c = concord::tensor({{{1, 2}}, {{3, 4}}}, "emu:0");     // int32 [2, 1, 2]
// Ragged rows raise ShapeError naming the first row that differs.
namespace detail {
// block < 0: a 2-D literal; row < 0: a whole block of a 3-D literal is ragged.
[[noreturn]] void ragged_literal(int64_t block, int64_t row, size_t got, size_t want);
template <class T>
void append_row(std::vector<T>& out, std::initializer_list<T> row, size_t want, int64_t block, int64_t r) {
  if (row.size() != want) ragged_literal(block, r, row.size(), want);
  out.insert(out.end(), row.begin(), row.end());
}
}  // namespace detail
template <class T>
Tensor tensor(std::initializer_list<T> v, const Device& device = kCPU) {
  return tensor(std::vector<T>(v), device);
}
template <class T>
Tensor tensor(std::initializer_list<std::initializer_list<T>> v, const Device& device = kCPU) {
  std::vector<T> flat;
  const size_t cols = v.size() ? v.begin()->size() : 0;
  int64_t r = 0;
  for (const auto& row : v) detail::append_row(flat, row, cols, -1, r++);
  return from_vector(flat, Shape{static_cast<int64_t>(v.size()), static_cast<int64_t>(cols)}, device);
}
template <class T>
Tensor tensor(std::initializer_list<std::initializer_list<std::initializer_list<T>>> v, const Device& device = kCPU) {
  std::vector<T> flat;
  const size_t rows = v.size() ? v.begin()->size() : 0;
  const size_t cols = rows ? v.begin()->begin()->size() : 0;
  int64_t b = 0;
  for (const auto& block : v) {
    if (block.size() != rows) detail::ragged_literal(b, -1, block.size(), rows);
    int64_t r = 0;
    for (const auto& row : block) detail::append_row(flat, row, cols, b, r++);
    ++b;
  }
  return from_vector(flat, Shape{static_cast<int64_t>(v.size()), static_cast<int64_t>(rows), static_cast<int64_t>(cols)},
                     device);
}
// A 0-dim tensor.
Tensor scalar_tensor(Scalar v, Dtype dtype = float32, const Device& device = kCPU);

// Sets the seed of the global generator (and resets its counter). Calls
// without an explicit seed draw consecutive, non-overlapping streams from it;
// without manual_seed the seed is 0, so every run gives the same numbers.
void manual_seed(uint64_t seed);
// Uniform in [0, 1). float16/bfloat16 never return 1.0 (a value that would
// round up to 1 becomes the largest value below 1).
Tensor rand(Shape shape, Dtype dtype = float32, const Device& device = kCPU, std::optional<uint64_t> seed = {});
// Standard normal (Box-Muller on Philox output).
Tensor randn(Shape shape, Dtype dtype = float32, const Device& device = kCPU, std::optional<uint64_t> seed = {});
// Integers uniform in [low, high). For floating dtypes the range must hold
// exact integers (|x| <= 2048 for float16, 256 for bfloat16, 2^24 for
// float32, 2^53 for float64), else ValueError.
Tensor randint(int64_t low, int64_t high, Shape shape, Dtype dtype = int64, const Device& device = kCPU,
               std::optional<uint64_t> seed = {});

}  // namespace concord
