// cat, stack, split, chunk, index_select, gather, flip, tril, triu on every
// device configuration and several dtypes (bool included), against expected
// values built here with loops.
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "concord/concord.h"
#include "support/devices.h"

namespace concord {
// Readable test parameters ("float16" rather than a byte dump).
inline void PrintTo(Dtype t, std::ostream* os) { *os << name(t); }

namespace {

using test::DeviceConfig;
using Param = std::tuple<DeviceConfig, Dtype>;

// The value of element i for a dtype: exact in every dtype (bools alternate irregularly).
double val(Dtype t, int64_t i, int64_t seed = 0) {
  const int64_t k = (i * 7 + seed * 13) % 17;
  return t == bool_ ? (k % 3 != 0 ? 1.0 : 0.0) : static_cast<double>(k - 5);
}

// Row-major strides helper for expected-value loops.
int64_t flat(const std::vector<int64_t>& idx, const Shape& s) {
  int64_t f = 0;
  for (size_t d = 0; d < s.size(); ++d) f = f * s[d] + idx[d];
  return f;
}

// Calls f(multi-index, flat index) for every element of shape s in row-major order.
template <class F>
void for_all(const Shape& s, F&& f) {
  const int64_t n = numel(s);
  std::vector<int64_t> idx(s.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    f(idx, i);
    for (size_t d = s.size(); d-- > 0;) {
      if (++idx[d] < s[d]) break;
      idx[d] = 0;
    }
  }
}

class ShapeOpsTest : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override {
    scope_ = std::make_unique<test::ConfigScope>(std::get<0>(GetParam()));
    if (!capabilities(device()).can_store(dtype()))
      GTEST_SKIP() << name(dtype()) << " cannot be stored on " << std::get<0>(GetParam()).label;
  }
  void TearDown() override { scope_.reset(); }
  const Device& device() const { return std::get<0>(GetParam()).device; }
  Dtype dtype() const { return std::get<1>(GetParam()); }
  // Host values of a tensor made by make(shape, seed), in row-major order.
  std::vector<double> host(const Shape& s, int64_t seed) const {
    std::vector<double> v(static_cast<size_t>(numel(s)));
    for (size_t i = 0; i < v.size(); ++i) v[i] = val(dtype(), static_cast<int64_t>(i), seed);
    return v;
  }
  Tensor make(const Shape& s, int64_t seed = 0) const {
    std::vector<double> v = host(s, seed);
    return from_host(v.data(), s, float64, kCPU).to(dtype()).to(device());
  }
  void expect_values(const Tensor& got, const Shape& shape, const std::vector<double>& want) const {
    ASSERT_EQ(shape_str(got.shape()), shape_str(shape));
    EXPECT_EQ(got.dtype(), dtype());
    EXPECT_EQ(got.device(), device());
    EXPECT_EQ(got.to_vector<double>(), want);
  }
  std::unique_ptr<test::ConfigScope> scope_;
};

TEST_P(ShapeOpsTest, Cat) {
  // [2, 3] + [4, 3] along 0; [2, 3] + [2, 5] along 1 (and -1).
  Tensor a = make({2, 3}, 1), b = make({4, 3}, 2), c = make({2, 5}, 3);
  std::vector<double> want = host({2, 3}, 1), hb = host({4, 3}, 2);
  want.insert(want.end(), hb.begin(), hb.end());
  expect_values(cat({a, b}, 0), {6, 3}, want);
  std::vector<double> w1;
  const std::vector<double> ha = host({2, 3}, 1), hc = host({2, 5}, 3);
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 3; ++j) w1.push_back(ha[i * 3 + j]);
    for (int64_t j = 0; j < 5; ++j) w1.push_back(hc[i * 5 + j]);
  }
  expect_values(cat({a, c}, 1), {2, 8}, w1);
  expect_values(cat({a, c}, -1), {2, 8}, w1);
  // Non-contiguous inputs: a transposed view, three inputs along the middle dim of 3-D tensors.
  Tensor t = make({3, 2}, 4).t();  // logical [2, 3]: t[i][j] = h4[j * 2 + i]
  const std::vector<double> h4 = host({3, 2}, 4);
  std::vector<double> w2 = ha;
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j) w2.push_back(h4[j * 2 + i]);
  expect_values(cat({a, t}, 0), {4, 3}, w2);
  Tensor x = make({2, 1, 3}, 5), y = make({2, 2, 3}, 6), z = make({2, 3, 3}, 7);
  std::vector<double> w3;
  const std::vector<double> hx = host({2, 1, 3}, 5), hy = host({2, 2, 3}, 6), hz = host({2, 3, 3}, 7);
  for (int64_t i = 0; i < 2; ++i) {
    w3.insert(w3.end(), hx.begin() + i * 3, hx.begin() + i * 3 + 3);
    w3.insert(w3.end(), hy.begin() + i * 6, hy.begin() + i * 6 + 6);
    w3.insert(w3.end(), hz.begin() + i * 9, hz.begin() + i * 9 + 9);
  }
  expect_values(cat({x, y, z}, 1), {2, 6, 3}, w3);
  // Legacy empty 1-D tensors are skipped whatever the other shapes; a single input is copied.
  Tensor e = make({0});
  expect_values(cat({e, a, e, b}, 0), {6, 3}, want);
  expect_values(cat({a}, 1), {2, 3}, ha);
  expect_values(cat({e, e}, 0), {0}, {});
  // Empty along the cat dim or another dim.
  expect_values(cat({a, make({0, 3})}, 0), {2, 3}, ha);
  expect_values(cat({make({0, 2}), make({0, 3})}, 1), {0, 5}, {});
}

TEST_P(ShapeOpsTest, Stack) {
  Tensor a = make({2, 3}, 1), b = make({3, 2}, 2).t();  // b is a non-contiguous [2, 3]
  const std::vector<double> ha = host({2, 3}, 1), h2 = host({3, 2}, 2);
  auto at = [&](int which, int64_t i, int64_t j) { return which == 0 ? ha[i * 3 + j] : h2[j * 2 + i]; };
  for (int64_t dim : {0, 1, 2, -1}) {
    SCOPED_TRACE("dim " + std::to_string(dim));
    const int64_t d = dim < 0 ? dim + 3 : dim;
    Shape s = {2, 3};
    s.insert(static_cast<size_t>(d), 2);
    std::vector<double> want(12);
    for_all(s, [&](const std::vector<int64_t>& idx, int64_t f) {
      std::vector<int64_t> rest;
      for (size_t k = 0; k < 3; ++k)
        if (static_cast<int64_t>(k) != d) rest.push_back(idx[k]);
      want[static_cast<size_t>(f)] = at(static_cast<int>(idx[d]), rest[0], rest[1]);
    });
    expect_values(stack({a, b}, dim), s, want);
  }
  // 0-dim tensors stack into a vector.
  Tensor s0 = make({1}, 3).squeeze(), s1 = make({1}, 4).squeeze();
  expect_values(stack({s0, s1}), {2}, {host({1}, 3)[0], host({1}, 4)[0]});
}

TEST_P(ShapeOpsTest, SplitAndChunk) {
  Tensor x = make({7, 4}, 1);
  const std::vector<double> hx = host({7, 4}, 1);
  auto rows = [&](int64_t r0, int64_t n) { return std::vector<double>(hx.begin() + r0 * 4, hx.begin() + (r0 + n) * 4); };
  auto parts = split(x, 3);
  ASSERT_EQ(parts.size(), 3u);
  expect_values(parts[0], {3, 4}, rows(0, 3));
  expect_values(parts[1], {3, 4}, rows(3, 3));
  expect_values(parts[2], {1, 4}, rows(6, 1));
  EXPECT_EQ(parts[1].storage(), x.storage());  // views, no copy
  auto byl = split(x, std::vector<int64_t>{2, 0, 5});
  ASSERT_EQ(byl.size(), 3u);
  expect_values(byl[0], {2, 4}, rows(0, 2));
  expect_values(byl[1], {0, 4}, {});
  expect_values(byl[2], {5, 4}, rows(2, 5));
  // Along the last dim of a non-contiguous tensor.
  auto cols = split(x.t(), 4, 1);  // x.t() is [4, 7]
  ASSERT_EQ(cols.size(), 2u);
  std::vector<double> w;
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 4; j < 7; ++j) w.push_back(hx[j * 4 + i]);
  expect_values(cols[1], {4, 3}, w);
  // chunk: ceil(7 / 3) = 3 rows per chunk; 4 chunks of 7 rows give only [2, 2, 2, 1].
  auto ch = chunk(x, 3);
  ASSERT_EQ(ch.size(), 3u);
  expect_values(ch[2], {1, 4}, rows(6, 1));
  auto ch4 = chunk(x, 4);
  ASSERT_EQ(ch4.size(), 4u);
  expect_values(ch4[3], {1, 4}, rows(6, 1));
  EXPECT_EQ(chunk(x, 6).size(), 4u);  // chunks of 2 rows
  EXPECT_EQ(chunk(make({0, 3}), 3).size(), 3u);
  EXPECT_EQ(split(make({0, 3}), 2).size(), 1u);
  // Errors.
  EXPECT_THROW(split(x, 0), ValueError);
  EXPECT_THROW(split(x, -1), ValueError);
  EXPECT_THROW(split(x, std::vector<int64_t>{3, 3}), ShapeError);
  EXPECT_THROW(split(x, std::vector<int64_t>{8, -1}), ValueError);
  EXPECT_THROW(split(x, 2, 2), ShapeError);
  EXPECT_THROW(chunk(x, 0), ValueError);
  EXPECT_THROW(chunk(make({1}).squeeze(), 2), ShapeError);
}

TEST_P(ShapeOpsTest, IndexSelect) {
  Tensor x = make({4, 5}, 1);
  const std::vector<double> hx = host({4, 5}, 1);
  for (Dtype it : {int32, int64}) {
    SCOPED_TRACE(std::string(name(it)));
    const std::vector<double> iv = {3, 0, 3, 1};
    Tensor idx = from_host(iv.data(), {4}, float64, kCPU).to(it).to(device());
    std::vector<double> w0, w1;
    for (double r : iv)
      for (int64_t j = 0; j < 5; ++j) w0.push_back(hx[static_cast<int64_t>(r) * 5 + j]);
    expect_values(index_select(x, 0, idx), {4, 5}, w0);
    for (int64_t i = 0; i < 4; ++i)
      for (double c : iv) w1.push_back(hx[i * 5 + static_cast<int64_t>(c)]);
    expect_values(index_select(x, 1, idx), {4, 4}, w1);
    expect_values(index_select(x, -1, idx), {4, 4}, w1);
    // Non-contiguous input and index: x.t() is [5, 4]; every other index element.
    const std::vector<double> iv2 = {4, 9, 0, 9, 2};
    Tensor idx2 = from_host(iv2.data(), {5}, float64, kCPU).to(it).to(device()).slice(0, 0, std::nullopt, 2);  // 4, 0, 2
    std::vector<double> w2;
    for (int64_t r : {4, 0, 2})
      for (int64_t j = 0; j < 4; ++j) w2.push_back(hx[j * 5 + r]);
    expect_values(index_select(x.t(), 0, idx2), {3, 4}, w2);
    // Empty index.
    expect_values(index_select(x, 1, zeros({0}, it, device())), {4, 0}, {});
    // Out of range: the error names the index and the size; nothing is written.
    const std::vector<double> bad = {1, 5, 0};
    Tensor ib = from_host(bad.data(), {3}, float64, kCPU).to(it).to(device());
    try {
      index_select(x, 1, ib);
      ADD_FAILURE() << "no error";
    } catch (const ShapeError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("[index_select]"), std::string::npos) << m;
      EXPECT_NE(m.find("index 5"), std::string::npos) << m;
      EXPECT_NE(m.find("size 5"), std::string::npos) << m;
    }
    const std::vector<double> neg = {-1};
    EXPECT_THROW(index_select(x, 0, from_host(neg.data(), {1}, float64, kCPU).to(it).to(device())), ShapeError);
    EXPECT_THROW(index_select(x, 0, zeros({2, 2}, it, device())), ShapeError);
    EXPECT_THROW(index_select(x, 2, idx), ShapeError);
  }
  EXPECT_THROW(index_select(x, 0, zeros({2}, float32, device())), DtypeError);
  EXPECT_EQ(x.to_vector<double>(), hx);
  // A 0-dim index keeps the dim (size 1).
  expect_values(index_select(x, 0, scalar_tensor(2, int64, device())), {1, 5},
                std::vector<double>(hx.begin() + 10, hx.begin() + 15));
}

TEST_P(ShapeOpsTest, Gather) {
  Tensor x = make({3, 4}, 1);
  const std::vector<double> hx = host({3, 4}, 1);
  // dim 1 with an index smaller than x in dim 0; dim 0 with a larger gathered dim.
  const std::vector<double> i1 = {3, 0, 1, 1, 2, 2};  // [2, 3]
  Tensor idx1 = from_host(i1.data(), {2, 3}, float64, kCPU).to(int64).to(device());
  std::vector<double> w1;
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j) w1.push_back(hx[i * 4 + static_cast<int64_t>(i1[i * 3 + j])]);
  expect_values(gather(x, 1, idx1), {2, 3}, w1);
  const std::vector<double> i0 = {2, 0, 1, 2, 0, 0, 0, 1, 1, 1, 2, 0, 2, 2, 1, 0, 0, 1, 2, 1};  // [5, 4]
  Tensor idx0 = from_host(i0.data(), {5, 4}, float64, kCPU).to(int64).to(device());
  std::vector<double> w0;
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t j = 0; j < 4; ++j) w0.push_back(hx[static_cast<int64_t>(i0[i * 4 + j]) * 4 + j]);
  expect_values(gather(x, 0, idx0), {5, 4}, w0);
  // Non-contiguous input and index (transposes), 3-D.
  Tensor x3 = make({2, 3, 4}, 2).transpose(0, 2);  // [4, 3, 2]: x3[a][b][c] = h[c][b][a]
  const std::vector<double> h3 = host({2, 3, 4}, 2);
  const std::vector<double> i3 = {0, 2, 1, 1, 0, 2, 2, 2, 0, 1, 1, 0};  // stored [2, 3, 2], used transposed(0, 2)
  Tensor idx3 = from_host(i3.data(), {2, 3, 2}, float64, kCPU).to(int64).to(device()).transpose(0, 2);  // [2, 3, 2]
  std::vector<double> w3;
  for_all({2, 3, 2}, [&](const std::vector<int64_t>& p, int64_t) {
    const int64_t g = static_cast<int64_t>(i3[(p[2] * 3 + p[1]) * 2 + p[0]]);  // idx3[a][b][c] = i3[c][b][a]
    w3.push_back(h3[(p[2] * 3 + g) * 4 + p[0]]);                               // x3[a][g][c]
  });
  expect_values(gather(x3, 1, idx3), {2, 3, 2}, w3);
  // Errors.
  const std::vector<double> bad = {0, 4};
  try {
    gather(x, 1, from_host(bad.data(), {1, 2}, float64, kCPU).to(int64).to(device()));
    ADD_FAILURE() << "no error";
  } catch (const ShapeError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("index 4"), std::string::npos) << m;
    EXPECT_NE(m.find("size 4"), std::string::npos) << m;
  }
  const std::vector<double> neg = {-1};
  EXPECT_THROW(gather(x, 0, from_host(neg.data(), {1, 1}, float64, kCPU).to(int64).to(device())), ShapeError);
  EXPECT_THROW(gather(x, 1, zeros({2, 2}, int32, device())), DtypeError);
  EXPECT_THROW(gather(x, 1, zeros({2}, int64, device())), ShapeError);
  EXPECT_THROW(gather(x, 1, zeros({4, 2}, int64, device())), ShapeError);  // 4 > 3 in dim 0
  EXPECT_EQ(x.to_vector<double>(), hx);
  expect_values(gather(x, 1, zeros({3, 0}, int64, device())), {3, 0}, {});
}

TEST_P(ShapeOpsTest, Flip) {
  const Shape s = {2, 3, 4};
  const std::vector<double> h = host(s, 1);
  Tensor x = make(s, 1);
  const std::vector<std::vector<int64_t>> cases = {{0}, {1}, {2}, {-1}, {0, 2}, {0, 1, 2}, {}};
  for (const auto& dims : cases) {
    std::vector<bool> fl(3, false);
    std::string label;
    for (int64_t d : dims) { fl[d < 0 ? d + 3 : d] = true; label += std::to_string(d) + " "; }
    SCOPED_TRACE("dims " + label);
    std::vector<double> want;
    for_all(s, [&](const std::vector<int64_t>& p, int64_t) {
      std::vector<int64_t> q = p;
      for (size_t d = 0; d < 3; ++d)
        if (fl[d]) q[d] = s[d] - 1 - p[d];
      want.push_back(h[static_cast<size_t>(flat(q, s))]);
    });
    Dims dd(dims.begin(), dims.end());
    expect_values(flip(x, dd), s, want);
  }
  // A non-contiguous input: x.transpose(0, 2) is [4, 3, 2]; flip dim 0.
  std::vector<double> wt;
  for_all({4, 3, 2}, [&](const std::vector<int64_t>& p, int64_t) { wt.push_back(h[flat({p[2], p[1], 3 - p[0]}, s)]); });
  expect_values(flip(x.transpose(0, 2), {0}), {4, 3, 2}, wt);
  // 0-dim and empty inputs.
  Tensor z = make({1}, 2).squeeze();
  expect_values(flip(z, {0}), {}, host({1}, 2));
  expect_values(flip(make({0, 3}), {0, 1}), {0, 3}, {});
  // Flipping twice restores the input.
  expect_values(flip(flip(x, {1, 2}), {2, 1}), s, h);
  EXPECT_THROW(flip(x, {1, -2}), ShapeError);
  EXPECT_THROW(flip(x, {3}), ShapeError);
}

TEST_P(ShapeOpsTest, TrilTriu) {
  const Shape s = {2, 3, 5};
  const std::vector<double> h = host(s, 1);
  Tensor x = make(s, 1);
  for (int64_t k : std::vector<int64_t>{-3, -1, 0, 1, 2, 6, INT64_MAX, INT64_MIN}) {
    SCOPED_TRACE("diagonal " + std::to_string(k));
    std::vector<double> lo, up;
    for_all(s, [&](const std::vector<int64_t>& p, int64_t f) {
      const double v = h[static_cast<size_t>(f)];
      const bool below = static_cast<__int128>(p[2]) - p[1] <= k;
      const bool above = static_cast<__int128>(p[2]) - p[1] >= k;
      lo.push_back(below ? v : 0.0);
      up.push_back(above ? v : 0.0);
    });
    expect_values(tril(x, k), s, lo);
    expect_values(triu(x, k), s, up);
  }
  // A non-contiguous (transposed) matrix: xt[i][j] = h2[j][i].
  const std::vector<double> h2 = host({4, 3}, 2);
  Tensor xt = make({4, 3}, 2).t();  // [3, 4]
  std::vector<double> lo, up;
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 4; ++j) {
      lo.push_back(j - i <= 1 ? h2[j * 3 + i] : 0.0);
      up.push_back(j - i >= 1 ? h2[j * 3 + i] : 0.0);
    }
  expect_values(tril(xt, 1), {3, 4}, lo);
  expect_values(triu(xt, 1), {3, 4}, up);
  expect_values(tril(make({2, 0, 3})), {2, 0, 3}, {});
  EXPECT_THROW(tril(make({3})), ShapeError);
  EXPECT_THROW(triu(make({1}).squeeze()), ShapeError);
}

std::string param_name(const ::testing::TestParamInfo<Param>& info) {
  std::string s = std::get<0>(info.param).label + "_" + std::string(name(std::get<1>(info.param)));
  for (char& c : s)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(DevicesDtypes, ShapeOpsTest,
                         ::testing::Combine(::testing::ValuesIn(test::test_devices()),
                                            ::testing::Values(bool_, int8, int32, int64, float16, bfloat16, float32,
                                                              float64)),
                         param_name);

// ---- dtype promotion, devices and fallbacks ----
class ShapeOpsDeviceTest : public test::DeviceTest {};

Tensor on(const std::vector<double>& v, Shape s, Dtype t, const Device& d) {
  return from_host(v.data(), s, float64, kCPU).to(t).to(d);
}

TEST_P(ShapeOpsDeviceTest, CatPromotes) {
  const Device& d = device();
  struct Case { Dtype a, b, want; };
  const Case cases[] = {{int32, float32, float32}, {uint8, int8, int16}, {bool_, int64, int64},
                        {float16, bfloat16, float32}, {int64, float16, float16}, {bool_, bool_, bool_}};
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(name(c.a)) + " + " + std::string(name(c.b)));
    Tensor x = on({1, 0, 1}, {3}, c.a, d), y = on({0, 1}, {2}, c.b, d);
    Tensor r = cat({x, y});
    EXPECT_EQ(r.dtype(), c.want);
    EXPECT_EQ(r.to_vector<double>(), (std::vector<double>{1, 0, 1, 0, 1}));
  }
  // A legacy empty tensor still takes part in the result dtype.
  EXPECT_EQ(cat({zeros({0}, float32, d), on({1, 2}, {1, 2}, int32, d)}).dtype(), float32);
  EXPECT_EQ(stack({on({1}, {1}, int32, d), on({2.5}, {1}, float32, d)}).dtype(), float32);
}

TEST_P(ShapeOpsDeviceTest, Errors) {
  const Device& d = device();
  Tensor a = zeros({2, 3}, float32, d);
  EXPECT_THROW(cat({}), ValueError);
  EXPECT_THROW(stack({}), ValueError);
  try {
    cat({a, zeros({2, 4}, float32, d)}, 0);
    ADD_FAILURE() << "no error";
  } catch (const ShapeError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("[cat]"), std::string::npos) << m;
    EXPECT_NE(m.find("float32[2, 3]"), std::string::npos) << m;
    EXPECT_NE(m.find("float32[2, 4]"), std::string::npos) << m;
  }
  EXPECT_THROW(cat({a, zeros({3}, float32, d)}), ShapeError);
  EXPECT_THROW(cat({zeros({}, float32, d)}), ShapeError);
  EXPECT_THROW(cat({a}, 2), ShapeError);
  EXPECT_THROW(stack({a, zeros({3, 2}, float32, d)}), ShapeError);
  EXPECT_THROW(stack({a}, 3), ShapeError);
  if (!d.is_cpu()) {
    EXPECT_THROW(cat({a, zeros({2, 3}, float32, kCPU)}), DeviceError);
    EXPECT_THROW(index_select(a, 0, zeros({1}, int64, kCPU)), DeviceError);
    EXPECT_THROW(gather(a, 0, zeros({1, 1}, int64, kCPU)), DeviceError);
  }
}

TEST_P(ShapeOpsDeviceTest, Fallback) {
  if (device().is_cpu()) GTEST_SKIP() << "the cpu is the fallback target itself";
  ProfileGuard g(device(), "no-op:cat,no-op:index_select,no-op:gather,no-op:flip,no-op:tril");
  reset_report();
  Tensor x = on({1, 2, 3, 4, 5, 6}, {2, 3}, float32, device());
  Tensor c = cat({x, x}, 1);
  EXPECT_EQ(c.device(), device());
  EXPECT_EQ(c.to_vector<double>(), (std::vector<double>{1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6}));
  Tensor i = on({2, 0}, {2}, int64, device());
  EXPECT_EQ(index_select(x, 1, i).to_vector<double>(), (std::vector<double>{3, 1, 6, 4}));
  Tensor gi = on({1, 0, 0, 2}, {2, 2}, int64, device());
  EXPECT_EQ(gather(x, 1, gi).to_vector<double>(), (std::vector<double>{2, 1, 4, 6}));
  EXPECT_EQ(flip(x, {1}).to_vector<double>(), (std::vector<double>{3, 2, 1, 6, 5, 4}));
  Tensor t = tril(x);
  EXPECT_EQ(t.device(), device());
  EXPECT_EQ(t.to_vector<double>(), (std::vector<double>{1, 0, 0, 4, 5, 0}));
  for (const char* op : {"cat", "index_select", "gather", "flip", "tril"})
    EXPECT_EQ(report().count(op, device().str(), float32, Path::fallback), 1u) << op;
  // Out-of-range indices are reported from the fallback too.
  EXPECT_THROW(index_select(x, 1, on({3}, {1}, int64, device())), ShapeError);
}

CONCORD_INSTANTIATE_DEVICES(ShapeOpsDeviceTest);

}  // namespace
}  // namespace concord
