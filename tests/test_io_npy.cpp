// .npy and .npz: against NumPy (files NumPy writes, read by concord; files
// concord writes, checked by NumPy), concord's own round trip, and loading
// onto every test device under the dtype policy.
#include <gtest/gtest.h>

#include "concord/concord.h"
#include "io_checks.h"
#include "support/devices.h"

using namespace concord;
using concord::test::ScratchDir;

namespace {

// The values every test file holds at flat index i (row-major), as NumPy makes them below.
double expected(char kind, int64_t i) {
  if (kind == 'b') return i % 2 == 1;
  if (kind == 'f') return static_cast<double>(i) / 4 - 1;
  return static_cast<double>(i);
}

const char* kMakeFiles = R"(
base = np.arange(12).reshape(3, 4)
def values(code):
    k = np.dtype(code).kind
    return (base % 2 == 1) if k == 'b' else (base if k in 'iu' else base / 4 - 1).astype(code)
for code in ['|b1', '|u1', '|i1', '<i2', '<i4', '<i8', '<f2', '<f4', '<f8', '>i2', '>i4', '>i8', '>f2', '>f4', '>f8']:
    tag = {'<': 'le', '>': 'be', '|': 'na'}[code[0]] + '_' + code[1:]
    a = values(code)
    np.save(D + '/' + tag + '.npy', a)
    np.save(D + '/F' + tag + '.npy', np.asfortranarray(a))
np.save(D + '/scalar.npy', np.float64(2.5))
np.save(D + '/empty.npy', np.zeros((0, 3), '<i4'))
np.save(D + '/F3d.npy', np.asfortranarray(np.arange(24, dtype='>f8').reshape(2, 3, 4)))
for v in [(2, 0), (3, 0)]:
    with open(D + '/v%d.npy' % v[0], 'wb') as f:
        np.lib.format.write_array(f, values('<f4'), version=v)
np.savez(D + '/two.npz', w=values('<f4'), idx=values('<i8'))
np.savez_compressed(D + '/packed.npz', w=values('<f4'))
assert np.load(D + '/Fle_f8.npy', mmap_mode='r').flags.f_contiguous
)";

void check_values(const Tensor& t, char kind, Dtype want, const std::string& what) {
  ASSERT_EQ(t.dtype(), want) << what;
  ASSERT_EQ(t.shape(), (Shape{3, 4})) << what;
  const auto v = t.to_vector<double>();
  for (int64_t i = 0; i < 12; ++i) EXPECT_EQ(v[i], expected(kind, i)) << what << " at " << i;
}

TEST(IoNpy, ReadsEveryDtypeNumpyWrites) {
  CONCORD_NEED_NUMPY();
  ScratchDir d;
  ASSERT_EQ(concord::test::run_python(d, kMakeFiles), 0);
  const struct { const char* code; Dtype t; } cases[] = {
      {"b1", bool_}, {"u1", uint8}, {"i1", int8}, {"i2", int16}, {"i4", int32},
      {"i8", int64}, {"f2", float16}, {"f4", float32}, {"f8", float64}};
  for (const auto& c : cases) {
    const bool one_byte = c.code[1] == '1';
    for (std::string order : one_byte ? std::vector<std::string>{"na"} : std::vector<std::string>{"le", "be"})
      for (std::string f : {"", "F"}) {
        const std::string file = d.path(f + order + "_" + c.code + ".npy");
        check_values(load_npy(file), c.code[0], c.t, file);
      }
  }
}

TEST(IoNpy, ReadsFortranOrderZeroDimEmptyAndHeaderVersions) {
  CONCORD_NEED_NUMPY();
  ScratchDir d;
  ASSERT_EQ(concord::test::run_python(d, kMakeFiles), 0);
  Tensor f = load_npy(d.path("F3d.npy"));  // big-endian and Fortran at once
  ASSERT_EQ(f.shape(), (Shape{2, 3, 4}));
  EXPECT_TRUE(f.is_contiguous());
  const auto fv = f.to_vector<double>();
  for (int64_t i = 0; i < 24; ++i) EXPECT_EQ(fv[i], static_cast<double>(i));
  Tensor s = load_npy(d.path("scalar.npy"));
  EXPECT_EQ(s.ndim(), 0);
  EXPECT_EQ(s.dtype(), float64);
  EXPECT_EQ(s.item<double>(), 2.5);
  Tensor e = load_npy(d.path("empty.npy"));
  EXPECT_EQ(e.shape(), (Shape{0, 3}));
  EXPECT_EQ(e.dtype(), int32);
  check_values(load_npy(d.path("v2.npy")), 'f', float32, "version 2.0");
  check_values(load_npy(d.path("v3.npy")), 'f', float32, "version 3.0");
  check_values(load(d.path("v3.npy")), 'f', float32, "load() by extension");
}

TEST(IoNpy, NumpyReadsWhatConcordWrites) {
  CONCORD_NEED_NUMPY();
  ScratchDir d;
  for (Dtype t : kAllDtypes) {
    // i / 4 - 1 for floats, i for integers, i odd for bool: exact in every dtype.
    Tensor x = arange(0, 12, 1, float64).reshape({3, 4});
    if (t == bool_) x = remainder(x, 2.0);
    else if (is_floating(t)) x = x / 4.0 - 1.0;
    save_npy(d.path("c_" + std::string(name(t)) + ".npy"), x.to(t));
  }
  // A transposed view, a 0-dim and a 1-D tensor, a tensor saved from another device.
  save_npy(d.path("c_t.npy"), arange(0, 6, 1, int64).reshape({2, 3}).t());
  save_npy(d.path("c_0d.npy"), scalar_tensor(-3.25, float32));
  save_npy(d.path("c_1d.npy"), arange(0, 5, 1, int16));
  save_npy(d.path("c_emu.npy"), arange(0, 4, 1, float32, Device("emu:0")));
  // bfloat16 arrives as float32 with the same values (1 + 2^-7 is a bfloat16).
  save_npy(d.path("c_bf.npy"), full({2}, 1.0078125, bfloat16));
  ASSERT_EQ(concord::test::run_python(d, R"(
base = np.arange(12).reshape(3, 4)
for name, dt in [('bool', 'bool'), ('uint8', 'u1'), ('int8', 'i1'), ('int16', 'i2'), ('int32', 'i4'),
                 ('int64', 'i8'), ('float16', 'f2'), ('bfloat16', 'f4'), ('float32', 'f4'), ('float64', 'f8')]:
    a = np.load(D + '/c_' + name + '.npy', allow_pickle=False)
    assert a.dtype == np.dtype(dt), (name, a.dtype)
    k = a.dtype.kind
    want = (base % 2 == 1) if k == 'b' else (base if k in 'iu' else base / 4 - 1)
    assert a.shape == (3, 4) and (a == want).all(), (name, a)
t = np.load(D + '/c_t.npy'); assert t.shape == (3, 2) and (t == np.arange(6).reshape(2, 3).T).all(), t
z = np.load(D + '/c_0d.npy'); assert z.shape == () and z.dtype == np.float32 and z == -3.25, z
o = np.load(D + '/c_1d.npy'); assert o.shape == (5,) and o.dtype == np.int16 and (o == np.arange(5)).all(), o
m = np.load(D + '/c_emu.npy'); assert (m == np.arange(4)).all() and m.dtype == np.float32, m
b = np.load(D + '/c_bf.npy'); assert b.dtype == np.float32 and (b == 1.0078125).all(), b
)"),
            0);
}

TEST(IoNpy, RoundTripEveryDtypeAndLayout) {
  ScratchDir d;
  for (Dtype t : kAllDtypes) {
    Tensor x = randint(t == uint8 ? 0 : -50, 50, {4, 5}, int64, kCPU, 3).to(t);
    for (const Tensor& v : {x, x.t(), x.slice(1, 1, 5, 2), x.select(0, 2)}) {
      save_npy(d.path("r.npy"), v);
      Tensor back = load_npy(d.path("r.npy"));
      const Dtype saved = t == bfloat16 ? float32 : t;
      ASSERT_EQ(back.dtype(), saved) << name(t);
      ASSERT_EQ(back.shape(), v.shape());
      EXPECT_EQ(back.to_vector<double>(), v.to_vector<double>()) << name(t);
      if (t == bfloat16) EXPECT_EQ(back.to(bfloat16).to_vector<double>(), v.to_vector<double>());
    }
  }
}

TEST(IoNpz, ReadsNumpySavezAndRefusesCompressed) {
  CONCORD_NEED_NUMPY();
  ScratchDir d;
  ASSERT_EQ(concord::test::run_python(d, kMakeFiles), 0);
  auto m = load_npz(d.path("two.npz"));
  ASSERT_EQ(m.size(), 2u);
  check_values(m.at("w"), 'f', float32, "two.npz w");
  check_values(m.at("idx"), 'i', int64, "two.npz idx");
  try {
    load_npz(d.path("packed.npz"));
    FAIL() << "a deflated entry loaded";
  } catch (const FileError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("[load] ", 0), 0u) << msg;
    EXPECT_NE(msg.find("packed.npz"), std::string::npos) << msg;
    EXPECT_NE(msg.find("savez_compressed"), std::string::npos) << msg;
    EXPECT_NE(msg.find("numpy.savez"), std::string::npos) << msg;
  }
  EXPECT_THROW(load(d.path("two.npz")), ValueError);  // two tensors: load_npz is the call
}

TEST(IoNpz, NumpyReadsWhatConcordWrites) {
  CONCORD_NEED_NUMPY();
  ScratchDir d;
  save_npz(d.path("c.npz"), {{"w", arange(0, 6, 1, float64).reshape({2, 3})},
                             {"mask", from_vector<bool>({true, false, true}, {3})},
                             {"s", scalar_tensor(7, int32)}, {"gr\xc3\xb6\xc3\x9f" "e", ones({1})}});
  ASSERT_EQ(concord::test::run_python(d, R"(
z = np.load(D + '/c.npz', allow_pickle=False)
assert sorted(z.files) == ['gr\u00f6\u00dfe', 'mask', 's', 'w'], z.files
assert z['w'].dtype == np.float64 and (z['w'] == np.arange(6).reshape(2, 3)).all()
assert z['mask'].dtype == np.bool_ and list(z['mask']) == [True, False, True]
assert z['s'].shape == () and z['s'] == 7 and z['s'].dtype == np.int32
import zipfile
assert all(i.compress_type == zipfile.ZIP_STORED for i in zipfile.ZipFile(D + '/c.npz').infolist())
)"),
            0);
  auto back = load_npz(d.path("c.npz"));
  EXPECT_EQ(back.at("w").to_vector<double>(), (std::vector<double>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(back.at("s").item<int64_t>(), 7);
}

TEST(IoNpz, SaveRefusesBadNamesAndLeavesNoFile) {
  ScratchDir d;
  EXPECT_THROW(save_npz(d.path("b.npz"), {{"a/b", ones({1})}}), ValueError);
  EXPECT_THROW(save_npz(d.path("b.npz"), {{"x", Tensor()}}), ValueError);
  EXPECT_FALSE(std::filesystem::exists(d.path("b.npz")));
  EXPECT_THROW(save_npy("/no/such/dir/x.npy", ones({1})), FileError);
}

class IoLoadToDevice : public concord::test::DeviceTest {};

TEST_P(IoLoadToDevice, Float64FollowsTheDtypePolicy) {
  ScratchDir d;
  const std::vector<double> vals{0.5, -1.25, 3.0, 1e10};
  save_npy(d.path("f8.npy"), from_vector(vals, {2, 2}));
  save_npz(d.path("f8.npz"), {{"a", from_vector(vals, {2, 2})}, {"i", arange(0, 3, 1, int32)}});
  save_safetensors(d.path("f8.safetensors"), {{"a", from_vector(vals, {2, 2})}});
  const bool has64 = concord::test::can_store(GetParam(), float64);
  for (const std::string file : {"f8.npy", "f8.npz", "f8.safetensors"}) {
    std::vector<std::string> warned;
    reset_warnings();
    reset_report();
    auto prev = set_warning_handler([&](const std::string& m) { warned.push_back(m); });
    Tensor a = file == "f8.npz" ? load_npz(d.path(file), device()).at("a") : load(d.path(file), device());
    Tensor b = file == "f8.npz" ? load_npz(d.path(file), device()).at("a") : load(d.path(file), device());
    set_warning_handler(prev);
    EXPECT_EQ(a.device(), device());
    EXPECT_EQ(a.dtype(), has64 ? float64 : float32) << file;
    EXPECT_EQ(a.to_vector<double>(), vals) << file;  // all exact in float32
    EXPECT_EQ(b.to_vector<double>(), vals) << file;
    EXPECT_EQ(warned.size(), has64 ? 0u : 1u) << file;  // once, for two loads
    EXPECT_EQ(report().count("copy", device().str(), float64, Path::downcast), has64 ? 0u : 2u) << file;
    DtypePolicyGuard strict(DtypePolicy::strict);
    if (has64) EXPECT_EQ(load(d.path(file == "f8.npz" ? "f8.npy" : file), device()).dtype(), float64);
    else if (file == "f8.npz") EXPECT_THROW(load_npz(d.path(file), device()), UnsupportedDtypeError);
    else EXPECT_THROW(load(d.path(file), device()), UnsupportedDtypeError);
  }
}

TEST_P(IoLoadToDevice, EveryDtypeArrivesWithItsValues) {
  ScratchDir d;
  for (Dtype t : kAllDtypes) {
    Tensor x = arange(0, 6, 1, int64).reshape({2, 3}).to(t);
    save_npy(d.path("x.npy"), x);
    const Dtype saved = t == bfloat16 ? float32 : t;
    if (!concord::test::can_store(GetParam(), saved)) continue;  // the policy case is above
    Tensor y = load_npy(d.path("x.npy"), device());
    EXPECT_EQ(y.device(), device());
    EXPECT_EQ(y.dtype(), saved);
    EXPECT_EQ(y.to_vector<double>(), x.to_vector<double>()) << name(t);
  }
}

CONCORD_INSTANTIATE_DEVICES(IoLoadToDevice);

}  // namespace
