// Tensor::index (libtorch's terms: integers, Slice, None, Ellipsis), the
// writes through it (index_put_, masked_fill_) and element access, on every
// device, against host index arithmetic.
#include <functional>

#include "support/devices.h"

namespace {

using namespace concord;
using namespace concord::indexing;

class Indexing : public concord::test::DeviceTest {};

// x[i, j, k] = 100 i + 10 j + k, shape [3, 4, 5], float32.
Tensor numbered(const Device& d) {
  std::vector<float> v;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 5; ++k) v.push_back(static_cast<float>(100 * i + 10 * j + k));
  return from_vector(v, {3, 4, 5}, d);
}

TEST_P(Indexing, SlicesIntegersNoneEllipsisAreViews) {
  const Tensor x = numbered(device());
  // x[1::2, 3] -> [1, 5]: i = 1, j = 3
  Tensor a = x.index({Slice(1, None, 2), 3});
  EXPECT_EQ(a.shape(), (Shape{1, 5}));
  EXPECT_EQ(a.to_vector<float>(), (std::vector<float>{130, 131, 132, 133, 134}));
  // x[..., -1] -> [3, 4]: k = 4
  Tensor b = x.index({Ellipsis, -1});
  EXPECT_EQ(b.shape(), (Shape{3, 4}));
  std::vector<float> ref;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) ref.push_back(static_cast<float>(100 * i + 10 * j + 4));
  EXPECT_EQ(b.to_vector<float>(), ref);
  // x[None, 2, ..., 1:4:2] -> [1, 4, 2]
  Tensor c = x.index({None, 2, Ellipsis, Slice(1, 4, 2)});
  EXPECT_EQ(c.shape(), (Shape{1, 4, 2}));
  ref.clear();
  for (int j = 0; j < 4; ++j)
    for (int k = 1; k < 4; k += 2) ref.push_back(static_cast<float>(200 + 10 * j + k));
  EXPECT_EQ(c.to_vector<float>(), ref);
  // x[:, -2:, None] -> [3, 2, 1, 5]; out-of-range bounds clamp, as Python.
  EXPECT_EQ(x.index({Slice(), Slice(-2, None), None}).shape(), (Shape{3, 2, 1, 5}));
  EXPECT_EQ(x.index({Slice(None, 100)}).shape(), (Shape{3, 4, 5}));
  // A view: writing through it is seen by x.
  Tensor v = x.index({0, Slice(), 0});
  EXPECT_EQ(v.storage(), x.storage());
}

TEST_P(Indexing, BadIndicesRaiseTyped) {
  const Tensor x = numbered(device());
  EXPECT_THROW(x.index({3}), ShapeError);
  EXPECT_THROW(x.index({0, -5}), ShapeError);
  EXPECT_THROW(x.index({0, 0, 0, 0}), ShapeError);
  EXPECT_THROW(x.index({Ellipsis, 0, Ellipsis}), ValueError);
  EXPECT_THROW(x.index({Slice(0, 2, 0)}), ValueError);
  try { x.index({1, 7}); ADD_FAILURE(); } catch (const ShapeError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("[index] index 7", 0), 0u) << e.what();
  }
}

// Terms built at run time (the Python binding's path): the same views and errors.
TEST_P(Indexing, VectorOfTermsEqualsTheLiteralList) {
  Tensor x = numbered(device());
  const std::vector<TensorIndex> terms{None, 2, Ellipsis, Slice(1, 4, 2)};
  const Tensor a = x.index(terms), b = x.index({None, 2, Ellipsis, Slice(1, 4, 2)});
  EXPECT_EQ(a.shape(), b.shape());
  EXPECT_EQ(a.offset(), b.offset());
  EXPECT_EQ(a.strides(), b.strides());
  EXPECT_EQ(a.to_vector<float>(), b.to_vector<float>());
  EXPECT_THROW(x.index(std::vector<TensorIndex>{0, 0, 0, 0}), ShapeError);
  x.index_put_(std::vector<TensorIndex>{1, Slice(), 0}, -1.0);
  EXPECT_EQ(x.index({1, Slice(), 0}).to_vector<float>(), (std::vector<float>{-1, -1, -1, -1}));
  EXPECT_EQ(x.index({0, 0, 0}).item<float>(), 0.0f);   // nothing else written
  x.index_put_(std::vector<TensorIndex>{2, 3}, x.index({0, 1}));
  EXPECT_EQ(x.index({2, 3}).to_vector<float>(), (std::vector<float>{10, 11, 12, 13, 14}));
}

TEST_P(Indexing, IndexPutWritesOnlyTheSelection) {
  Tensor x = zeros({3, 4}, float32, device());
  x.index_put_({1, Slice(1, 3)}, 7.0);
  x.index_put_({Slice(), -1}, from_vector(std::vector<double>{1, 2, 3}, {3}));   // float64 from the CPU, converted
  const std::vector<float> ref = {0, 0, 0, 1, 0, 7, 7, 2, 0, 0, 0, 3};
  EXPECT_EQ(x.to_vector<float>(), ref);
  // A value that does not broadcast: ShapeError, nothing written.
  try { x.index_put_({0}, ones({3}, float32, device())); ADD_FAILURE(); } catch (const ShapeError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("[index_put_] the value float32[3]", 0), 0u) << e.what();
  }
  EXPECT_EQ(x.to_vector<float>(), ref);
}

TEST_P(Indexing, MaskedFillComposesWhere) {
  Tensor x = from_vector(std::vector<int32_t>{-2, 5, 0, 9, -1, 3}, {2, 3}, device());
  x.masked_fill_(x < 0, 100);
  EXPECT_EQ(x.to_vector<int32_t>(), (std::vector<int32_t>{100, 5, 0, 9, 100, 3}));
  // A row mask broadcasts down the rows; a float value is converted to the dtype.
  x.masked_fill_(from_vector(std::vector<bool>{true, false, false}, {3}, device()), 2.9);
  EXPECT_EQ(x.to_vector<int32_t>(), (std::vector<int32_t>{2, 5, 0, 2, 100, 3}));
  const std::vector<int32_t> before = x.to_vector<int32_t>();
  EXPECT_THROW(x.masked_fill_(ones({2, 3}, int32, device()), 1), DtypeError);         // not bool
  EXPECT_THROW(x.masked_fill_(ones({4, 2, 3}, bool_, device()), 1), ShapeError);      // would grow x
  try { x.masked_fill_(ones({3, 3}, bool_, device()), 1); ADD_FAILURE(); } catch (const ShapeError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("[masked_fill_] the mask bool[3, 3]", 0), 0u) << e.what();
  }
  EXPECT_THROW(x.masked_fill_(x > 0, ones({3}, int32, device())), ShapeError);        // value not 0-dim
  EXPECT_EQ(x.to_vector<int32_t>(), before);
}

TEST_P(Indexing, ItemReadsOneElementAnywhere) {
  const Tensor x = numbered(device());
  EXPECT_EQ(x.item<double>({2, 1, 3}), 213.0);
  EXPECT_EQ(x.item<int64_t>({-1, -1, -1}), 234);
  EXPECT_THROW(x.item<double>({0, 0}), ShapeError);
  EXPECT_THROW(x.item<double>({0, 4, 0}), ShapeError);
}

TEST_P(Indexing, AtIsAHostReference) {
  Tensor x = numbered(device());
  if (memory_space(device()) != MemorySpace::host) {
    try { x.at<float>(0, 0, 0); ADD_FAILURE() << "at<T> on " << device(); } catch (const DeviceError& e) {
      EXPECT_NE(std::string(e.what()).find("item<T>"), std::string::npos) << e.what();
    }
    return;
  }
  EXPECT_EQ(x.at<float>(1, 2, 3), 123.f);
  Tensor t = x.transpose(0, 2);   // strides are followed
  EXPECT_EQ(t.at<float>(3, 2, 1), 123.f);
  t.at<float>(3, 2, 1) = -1.f;
  EXPECT_EQ(x.item<float>({1, 2, 3}), -1.f);
  EXPECT_THROW(x.at<double>(0, 0, 0), DtypeError);
  EXPECT_THROW(x.at<float>(0, 4, 0), ShapeError);
  EXPECT_THROW(x.at<float>(0, 0), ShapeError);
}

TEST_P(Indexing, NestedLiteralsLayOutRowMajor) {
  const Tensor a = tensor({1.f, 2.f}, device());
  EXPECT_EQ(a.dtype(), float32);
  EXPECT_EQ(a.shape(), (Shape{2}));
  const Tensor b = tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}, device());
  EXPECT_EQ(b.shape(), (Shape{2, 3}));
  EXPECT_EQ(b.item<double>({1, 0}), 4.0);
  const Tensor c = tensor({{{1, 2}}, {{3, 4}}, {{5, 6}}}, device());
  EXPECT_EQ(c.dtype(), int32);
  EXPECT_EQ(c.shape(), (Shape{3, 1, 2}));
  EXPECT_EQ(c.to_vector<int32_t>(), (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(c.item<int64_t>({2, 0, 1}), 6);
  EXPECT_EQ(tensor({true, false}).dtype(), bool_);
  EXPECT_EQ(tensor({int64_t{1} << 40}).item<int64_t>(), int64_t{1} << 40);
}

TEST(Literals, RaggedRowsNameTheRow) {
  try { tensor({{1.f, 2.f}, {3.f, 4.f}, {5.f}}); ADD_FAILURE(); } catch (const ShapeError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("[tensor] ragged literal: row 2 has 1 elements but row 0 has 2", 0), 0u)
        << e.what();
  }
  try { tensor({{{1, 2}}, {{3, 4}, {5, 6}}}); ADD_FAILURE(); } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("block 1 has 2"), std::string::npos) << e.what();
  }
  try { tensor({{{1, 2}, {3, 4}}, {{5, 6}, {7}}}); ADD_FAILURE(); } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("block 1, row 1 has 1"), std::string::npos) << e.what();
  }
}

CONCORD_INSTANTIATE_DEVICES(Indexing);

}  // namespace
