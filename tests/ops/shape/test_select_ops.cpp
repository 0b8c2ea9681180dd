// nonzero and masked_select on every device configuration and several dtypes,
// against positions found here with a plain loop over the host values.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "concord/concord.h"
#include "support/devices.h"

namespace concord {
namespace {

class SelectOpsTest : public test::DeviceTest {};

Tensor on(const std::vector<double>& v, Shape s, Dtype t, const Device& d) {
  return from_host(v.data(), v.size(), s, float64, kCPU).to(t).to(d);
}

// Values with zeros, negatives and (for floats) -0, NaN and inf mixed in.
std::vector<double> values(int64_t n, bool floating) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<double>((i * 7 + 3) % 5) - 2;
  if (floating && n > 5) {
    v[1] = -0.0;
    v[3] = std::numeric_limits<double>::quiet_NaN();
    v[4] = -std::numeric_limits<double>::infinity();
  }
  return v;
}

TEST_P(SelectOpsTest, NonzeroGivesRowMajorIndices) {
  const Device& d = device();
  const Shape s{3, 4, 5};
  for (Dtype t : {bool_, int8, int32, int64, float16, bfloat16, float32, float64}) {
    if (!capabilities(d).can_store(t)) continue;
    SCOPED_TRACE(std::string(name(t)));
    const std::vector<double> v = values(numel(s), is_floating(t));
    std::vector<int64_t> want;
    for (int64_t i = 0; i < numel(s); ++i)
      if (v[static_cast<size_t>(i)] != 0) {   // NaN counts as nonzero, -0 does not
        want.push_back(i / 20);
        want.push_back(i / 5 % 4);
        want.push_back(i % 5);
      }
    const Tensor x = on(v, s, t, d);
    const Tensor r = nonzero(x);
    EXPECT_EQ(r.dtype(), int64);
    EXPECT_EQ(r.device(), d);
    EXPECT_EQ(r.shape(), (Shape{static_cast<int64_t>(want.size() / 3), 3}));
    EXPECT_EQ(r.to_vector<int64_t>(), want);
  }
  // A transposed view counts in its own row-major order; empty and 0-dim inputs.
  const Tensor m = on({0, 1, 1, 0, 0, 1}, {2, 3}, bool_, d).t();   // [[0,0],[1,0],[1,1]]
  EXPECT_EQ(nonzero(m).to_vector<int64_t>(), (std::vector<int64_t>{1, 0, 2, 0, 2, 1}));
  EXPECT_EQ(nonzero(zeros({0, 4}, float32, d)).shape(), (Shape{0, 2}));
  EXPECT_EQ(nonzero(full({}, 2.0, float32, d)).shape(), (Shape{1, 0}));
  EXPECT_EQ(nonzero(zeros({}, float32, d)).shape(), (Shape{0, 0}));
}

TEST_P(SelectOpsTest, MaskedSelectTakesTrueElementsOfTheBroadcast) {
  const Device& d = device();
  const Tensor x = on({1, 2, 3, 4, 5, 6}, {2, 3}, float32, d);
  const Tensor mask = on({1, 0, 1, 0, 0, 1}, {2, 3}, bool_, d);
  EXPECT_EQ(masked_select(x, mask).to_vector<double>(), (std::vector<double>{1, 3, 6}));
  EXPECT_EQ(masked_select(x, x > 2.5).to_vector<double>(), (std::vector<double>{3, 4, 5, 6}));
  // The mask broadcasts over rows, x over a size-1 dim of the mask.
  const Tensor row = on({0, 1, 1}, {3}, bool_, d);
  EXPECT_EQ(masked_select(x, row).to_vector<double>(), (std::vector<double>{2, 3, 5, 6}));
  const Tensor col = on({1, 0, 1}, {3, 1}, bool_, d);
  const Tensor xr = on({10, 20}, {2}, int32, d);
  const Tensor r = masked_select(xr, col);   // broadcast [3, 2]: rows 0 and 2
  EXPECT_EQ(r.dtype(), int32);
  EXPECT_EQ(r.to_vector<int64_t>(), (std::vector<int64_t>{10, 20, 10, 20}));
  EXPECT_EQ(masked_select(x, zeros({2, 3}, bool_, d)).shape(), (Shape{0}));
  // A view of x.
  EXPECT_EQ(masked_select(x.t(), mask.t()).to_vector<double>(), (std::vector<double>{1, 3, 6}));
}

TEST_P(SelectOpsTest, BadInputRaisesAndLeavesInputs) {
  const Device& d = device();
  const Tensor x = on({1, 2, 3, 4, 5, 6}, {2, 3}, float32, d);
  try {
    masked_select(x, x);
    ADD_FAILURE() << "a float mask was taken";
  } catch (const DtypeError& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("[masked_select]", 0), 0u) << m;
    EXPECT_NE(m.find("float32[2, 3]"), std::string::npos) << m;
    EXPECT_NE(m.find(d.str()), std::string::npos) << m;
  }
  EXPECT_THROW(masked_select(x, zeros({4}, bool_, d)), ShapeError);
  EXPECT_THROW(nonzero(Tensor()), ValueError);
  EXPECT_EQ(x.to_vector<double>(), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  if (!d.is_cpu()) EXPECT_THROW(masked_select(x, zeros({2, 3}, bool_, kCPU)), DeviceError);
}

CONCORD_INSTANTIATE_DEVICES(SelectOpsTest);

}  // namespace
}  // namespace concord
