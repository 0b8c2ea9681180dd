// Bitwise comparison helpers for tests: a tensor's bytes on the host, and an
// assertion that reports how many bytes differ instead of dumping them.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "concord/tensor.h"

namespace concord::test {

inline std::vector<uint8_t> host_bytes(const Tensor& t) {
  std::vector<uint8_t> b(t.nbytes());
  detail::to_host_as(t, t.dtype(), b.data());
  return b;
}

inline ::testing::AssertionResult same_bytes(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << "size " << got.size() << " vs " << want.size();
  size_t diff = 0, first = got.size();
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i]) first = std::min(first, i), ++diff;
  if (diff == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << diff << " of " << got.size() << " bytes differ, first at " << first;
}

}  // namespace concord::test
