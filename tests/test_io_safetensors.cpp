// safetensors (checked against the format with Python's json and struct,
// and files written by hand), memory-mapped zero-copy loading, from_blob
// host views, and a Linear layer's parameters as a file.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "concord/concord.h"
#include "io_checks.h"
#include "support/devices.h"

using namespace concord;
using concord::test::ScratchDir;

namespace {

bool mapped(const std::string& file) {
  std::ifstream maps("/proc/self/maps");
  std::stringstream s;
  s << maps.rdbuf();
  return s.str().find(file) != std::string::npos;
}

Tensor values(Dtype t, Shape shape) {
  // i / 4 - 1 (floats), i - 3 (signed), i (uint8), odd (bool): exact in every dtype.
  Tensor i = arange(0, numel(shape), 1, float64).reshape(shape);
  if (t == bool_) return remainder(i, 2.0).to(bool_);
  if (is_floating(t)) return (i / 4.0 - 1.0).to(t);
  return (t == uint8 ? i : i - 3.0).to(t);
}

TEST(IoSafetensors, RoundTripEveryDtype) {
  ScratchDir d;
  std::map<std::string, Tensor> m;
  for (Dtype t : kAllDtypes) m[std::string(name(t))] = values(t, {2, 3});
  m["scalar"] = scalar_tensor(1.5, float64);
  m["empty"] = zeros({0, 4}, float16);
  m["view"] = values(int32, {3, 4}).t();
  save_safetensors(d.path("a.safetensors"), m, {{"format", "pt"}, {"note", "quote \" and \\ and \n"}});
  for (bool use_map : {true, false}) {
    auto back = load_safetensors(d.path("a.safetensors"), kCPU, use_map);
    ASSERT_EQ(back.size(), m.size());
    for (const auto& [k, t] : m) {
      ASSERT_EQ(back.at(k).dtype(), t.dtype()) << k;
      ASSERT_EQ(back.at(k).shape(), t.shape()) << k;
      EXPECT_EQ(back.at(k).to_vector<double>(), t.to_vector<double>()) << k;
    }
  }
}

TEST(IoSafetensors, FormatCheckedByPython) {
  CONCORD_NEED_NUMPY();
  ScratchDir d;
  save_safetensors(d.path("f.safetensors"), {{"b", values(bfloat16, {2, 3})}, {"h", values(float16, {3})},
                                             {"w", values(float32, {2, 2})}, {"k", values(int8, {5})}},
                   {{"format", "pt"}});
  ASSERT_EQ(concord::test::run_python(d, R"(
raw = open(D + '/f.safetensors', 'rb').read()
n, = struct.unpack('<Q', raw[:8])
assert (8 + n) % 8 == 0, n
h = json.loads(raw[8:8 + n].decode('utf-8'))
assert h.pop('__metadata__') == {'format': 'pt'}
data = raw[8 + n:]
assert {k: v['dtype'] for k, v in h.items()} == {'b': 'BF16', 'h': 'F16', 'w': 'F32', 'k': 'I8'}, h
assert h['b']['shape'] == [2, 3] and h['k']['shape'] == [5]
spans = sorted(tuple(v['data_offsets']) for v in h.values())
assert spans[0][0] == 0 and spans[-1][1] == len(data)
assert all(a[1] == b[0] for a, b in zip(spans, spans[1:])), spans  # contiguous, no holes
def arr(k, dt):
    b, e = h[k]['data_offsets']
    return np.frombuffer(data[b:e], dtype=dt)
for k, dt in [('b', '<u2'), ('h', '<f2'), ('w', '<f4')]:
    b, e = h[k]['data_offsets']
    assert b % np.dtype(dt).itemsize == 0, (k, b)  # aligned
bf = (arr('b', '<u2').astype('<u4') << 16).view('<f4')
assert (bf == np.arange(6) / 4 - 1).all(), bf
assert (arr('h', '<f2') == np.arange(3) / 4 - 1).all()
assert (arr('w', '<f4') == np.arange(4) / 4 - 1).all()
assert (arr('k', '<i1') == np.arange(5) - 3).all()
)"),
            0);
}

TEST(IoSafetensors, ReadsHandWrittenFilesIncludingUnaligned) {
  CONCORD_NEED_NUMPY();
  ScratchDir d;
  // A one-byte tensor first puts the F32 and BF16 tensors at odd offsets (copied, not mapped).
  ASSERT_EQ(concord::test::run_python(d, R"(
f32 = (np.arange(4) / 4 - 1).astype('<f4')
bf = (f32.view('<u4') >> 16).astype('<u2')          # exact: these values are bfloat16
i8 = np.array([-7], '<i1')
parts = [('k', 'I8', [1], i8), ('w', 'F32', [2, 2], f32), ('b', 'BF16', [4], bf), ('z', 'F64', [], np.array(2.5))]
h, off, blob = {'__metadata__': {'x': 'y'}}, 0, b''
for name, dt, shape, a in parts:
    b = a.tobytes(); h[name] = {'dtype': dt, 'shape': shape, 'data_offsets': [off, off + len(b)]}; off += len(b); blob += b
hs = json.dumps(h).encode()
open(D + '/h.safetensors', 'wb').write(struct.pack('<Q', len(hs)) + hs + blob)
)"),
            0);
  auto m = load_safetensors(d.path("h.safetensors"));
  EXPECT_EQ(m.at("k").to_vector<int64_t>(), std::vector<int64_t>{-7});
  EXPECT_EQ(m.at("w").shape(), (Shape{2, 2}));
  EXPECT_EQ(m.at("w").to_vector<double>(), (std::vector<double>{-1, -0.75, -0.5, -0.25}));
  EXPECT_EQ(m.at("b").dtype(), bfloat16);
  EXPECT_EQ(m.at("b").to_vector<double>(), (std::vector<double>{-1, -0.75, -0.5, -0.25}));
  EXPECT_EQ(m.at("z").ndim(), 0);
  EXPECT_EQ(m.at("z").item<double>(), 2.5);
}

TEST(IoSafetensors, MappedViewsKeepTheMappingAndNeverWriteTheFile) {
  ScratchDir d;
  const std::string file = d.path("m.safetensors");
  save_safetensors(file, {{"a", values(float32, {4})}, {"b", values(int64, {3})}});
  {
    Tensor a = load_safetensors(file).at("a");  // the map and "b" are gone; "a" holds the mapping
    EXPECT_TRUE(mapped(file));
    a.copy_(full({4}, 9.0));                    // copy-on-write pages: the file keeps its bytes
    EXPECT_EQ(a.to_vector<double>(), (std::vector<double>(4, 9.0)));
    EXPECT_EQ(load_safetensors(file).at("a").to_vector<double>(), (std::vector<double>{-1, -0.75, -0.5, -0.25}));
  }
  EXPECT_FALSE(mapped(file));  // the last view let go
  Tensor c = load_safetensors(file, kCPU, /*mmap=*/false).at("a");
  EXPECT_FALSE(mapped(file));
  Tensor e = load_safetensors(file, Device("emu:0")).at("a");
  EXPECT_FALSE(mapped(file));  // another device gets a copy
  EXPECT_EQ(e.to_vector<double>(), c.to_vector<double>());
}

TEST(IoSafetensors, SaveRefusesBadNames) {
  ScratchDir d;
  EXPECT_THROW(save_safetensors(d.path("x.safetensors"), {{"__metadata__", ones({1})}}), ValueError);
  EXPECT_THROW(save_safetensors(d.path("x.safetensors"), {{"", ones({1})}}), ValueError);
  EXPECT_FALSE(std::filesystem::exists(d.path("x.safetensors")));
}

TEST(IoFromBlob, WritesShowThroughBothWaysAndTheDeleterRunsOnce) {
  auto* buf = new float[6]{0, 1, 2, 3, 4, 5};
  int deleted = 0;
  {
    Tensor t = from_blob(buf, {2, 3}, float32, [&](void* p) { ++deleted; delete[] static_cast<float*>(p); });
    Tensor v = t.t();  // a view shares the storage
    EXPECT_EQ(v.to_vector<float>(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
    buf[4] = 40;       // memory -> tensor
    EXPECT_EQ(t.to_vector<float>()[4], 40.0f);
    t.select(0, 0).copy_(full({3}, -1.0));  // tensor -> memory
    EXPECT_EQ(buf[0], -1.0f);
    EXPECT_EQ(buf[2], -1.0f);
    EXPECT_EQ(t.data<float>(), buf);
    t = Tensor();
    EXPECT_EQ(deleted, 0);  // v still holds it
  }
  EXPECT_EQ(deleted, 1);
}

TEST(IoFromBlob, StridesAndCallerOwnedMemory) {
  std::vector<double> col{0, 1, 2, 3, 4, 5};  // a column-major [2, 3]
  Tensor t = from_blob(col.data(), {2, 3}, {1, 2}, float64);
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_EQ(t.to_vector<double>(), (std::vector<double>{0, 2, 4, 1, 3, 5}));
  EXPECT_EQ(sum(t).item<double>(), 15.0);
  Tensor e = from_blob(col.data(), {3}, {0}, float64);  // stride 0: an expanded value
  EXPECT_EQ(e.to_vector<double>(), (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(from_blob(nullptr, {0, 3}, float32).numel(), 0);
}

TEST(IoFromBlob, BadArgumentsRaiseAndNeverCallTheDeleter) {
  int calls = 0;
  auto del = [&](void*) { ++calls; };
  float x[4];
  EXPECT_THROW(from_blob(nullptr, {2}, float32, del), ValueError);
  EXPECT_THROW(from_blob(x, {2, -1}, float32, del), ShapeError);
  EXPECT_THROW(from_blob(x, {2, 2}, {2}, float32, del), ShapeError);
  EXPECT_THROW(from_blob(x, {2, 2}, {-1, 1}, float32, del), ValueError);
  EXPECT_THROW(from_blob(x, {int64_t{1} << 40, int64_t{1} << 40}, float32, del), ShapeError);
  // Row-major strides of an empty shape would overflow too: refused before they are computed.
  EXPECT_THROW(from_blob(x, {0, int64_t{1} << 40, int64_t{1} << 40}, float32, del), ShapeError);
  try {
    from_blob(nullptr, {2, 3}, float32);
  } catch (const ValueError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("[from_blob]", 0), 0u) << e.what();
  }
  EXPECT_EQ(calls, 0);
}

class IoLinear : public concord::test::DeviceTest {};

TEST_P(IoLinear, StateRoundTripsAndMismatchesLeaveTheLayer) {
  ScratchDir d;
  nn::Linear a(4, 3, true, float32, device(), 1), b(4, 3, true, float32, device(), 2);
  nn::save(a, d.path("lin.safetensors"));
  auto m = load_safetensors(d.path("lin.safetensors"));
  EXPECT_EQ(m.size(), 2u);
  EXPECT_EQ(m.at("weight").shape(), (Shape{3, 4}));
  nn::load(b, d.path("lin.safetensors"));
  EXPECT_EQ(b.weight().to_vector<float>(), a.weight().to_vector<float>());
  EXPECT_EQ(b.bias().to_vector<float>(), a.bias().to_vector<float>());
  EXPECT_EQ(b.weight().device(), device());
  nn::Linear wrong(5, 3, true, float32, device(), 3), nobias(4, 3, false, float32, device(), 4);
  const auto before = wrong.weight().to_vector<float>(), nb = nobias.weight().to_vector<float>();
  EXPECT_THROW(nn::load(wrong, d.path("lin.safetensors")), ShapeError);
  EXPECT_THROW(nn::load(nobias, d.path("lin.safetensors")), ValueError);  // an extra "bias"
  EXPECT_EQ(wrong.weight().to_vector<float>(), before);
  EXPECT_EQ(nobias.weight().to_vector<float>(), nb);
}

CONCORD_INSTANTIATE_DEVICES(IoLinear);

}  // namespace
