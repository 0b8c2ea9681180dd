#include <gtest/gtest.h>

#include "concord/concord.h"
#include "support/devices.h"

using namespace concord;

TEST(Smoke, Zeros) {
  auto z = zeros({2, 3});
  EXPECT_EQ(z.numel(), 6);
  auto v = z.to_vector<float>();
  for (float x : v) EXPECT_EQ(x, 0.0f);
}
