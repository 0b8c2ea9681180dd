// Bad files: every loader gives a typed error that starts with "[load]",
// names the file and says what is wrong, never a crash (docs/BAD_INPUT.md,
// "Files"). Set CONCORD_BAD_INPUT_PRINT=1 to print every message.
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <iostream>

#include "concord/concord.h"
#include "io_checks.h"

using namespace concord;
using concord::test::ScratchDir;
using Bytes = std::vector<uint8_t>;

namespace {

enum class Kind { file, dtype, shape };

Bytes npy(const std::string& dict, size_t data_bytes, uint8_t major = 1) {
  Bytes b{0x93, 'N', 'U', 'M', 'P', 'Y', major, 0};
  const size_t n = dict.size();
  b.push_back(n & 0xff), b.push_back((n >> 8) & 0xff);
  if (major >= 2) b.push_back(0), b.push_back(0);
  b.insert(b.end(), dict.begin(), dict.end());
  b.resize(b.size() + data_bytes, 0);
  return b;
}

Bytes st(const std::string& json, size_t data_bytes) {
  Bytes b(8);
  for (int i = 0; i < 8; ++i) b[i] = static_cast<uint8_t>((uint64_t{json.size()} >> (8 * i)) & 0xff);
  b.insert(b.end(), json.begin(), json.end());
  b.resize(b.size() + data_bytes, 0);
  return b;
}

std::string f4(const std::string& shape) { return "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }\n"; }

struct Case {
  std::string name;
  std::function<Bytes(const ScratchDir&)> bytes;
  std::string ext;
  Kind kind;
  std::vector<std::string> says;
};

void expect_error(const std::string& path, const std::string& ext, Kind kind, const std::vector<std::string>& says,
                  const std::string& label) {
  std::string msg;
  try {
    if (ext == ".npy") load_npy(path);
    else if (ext == ".npz") load_npz(path);
    else load_safetensors(path);
    ADD_FAILURE() << label << ": loaded without an error";
    return;
  } catch (const FileError& e) {
    EXPECT_EQ(kind, Kind::file) << label << ": FileError " << e.what();
    msg = e.what();
  } catch (const DtypeError& e) {
    EXPECT_EQ(kind, Kind::dtype) << label << ": DtypeError " << e.what();
    msg = e.what();
  } catch (const ShapeError& e) {
    EXPECT_EQ(kind, Kind::shape) << label << ": ShapeError " << e.what();
    msg = e.what();
  }
  if (std::getenv("CONCORD_BAD_INPUT_PRINT")) std::cout << label << ": " << msg << "\n";
  EXPECT_EQ(msg.rfind("[load] ", 0), 0u) << label << ": " << msg;
  EXPECT_NE(msg.find(path), std::string::npos) << label << ": the message does not name the file: " << msg;
  for (const auto& s : says) EXPECT_NE(msg.find(s), std::string::npos) << label << ": no '" << s << "' in: " << msg;
}

Bytes saved(const ScratchDir& d, const std::string& ext) {
  const std::string p = d.path("good" + ext);
  if (ext == ".npy") save_npy(p, arange(0, 12, 1, float32).reshape({3, 4}));
  else if (ext == ".npz") save_npz(p, {{"a", arange(0, 12, 1, float32)}, {"b", ones({2}, int64)}});
  else save_safetensors(p, {{"a", arange(0, 12, 1, float32)}, {"b", ones({2}, int64)}});
  return concord::test::read_bytes(p);
}

std::vector<Case> cases() {
  const auto lit = [](Bytes b) { return [b](const ScratchDir&) { return b; }; };
  const auto text = [](const std::string& s) { return Bytes(s.begin(), s.end()); };
  return {
      // .npy
      {"npy empty file", lit({}), ".npy", Kind::file, {"empty"}},
      {"npy wrong magic", lit(text("PK\x03\x04 not numpy")), ".npy", Kind::file, {"wrong magic", "numpy.save"}},
      {"npy truncated header", [](const ScratchDir& d) { Bytes b = saved(d, ".npy"); b.resize(30); return b; }, ".npy",
       Kind::file, {"truncated"}},
      {"npy truncated data", [](const ScratchDir& d) { Bytes b = saved(d, ".npy"); b.resize(b.size() - 4); return b; },
       ".npy", Kind::file, {"[3, 4]", "48 bytes", "44 bytes"}},
      {"npy header lies about the shape", lit(npy(f4("(100,)"), 48)), ".npy", Kind::file, {"[100]", "400 bytes", "48 bytes"}},
      {"npy extra bytes after the data", lit(npy(f4("(2,)"), 12)), ".npy", Kind::file, {"[2]", "12 bytes"}},
      {"npy element count overflows int64", lit(npy(f4("(4611686018427387904, 4611686018427387904)"), 0)), ".npy",
       Kind::shape, {"overflows int64"}},
      {"npy size overflows int64", lit(npy(f4("(99999999999999999999,)"), 0)), ".npy", Kind::shape, {"overflows int64"}},
      {"npy bytes overflow size_t", lit(npy(f4("(4611686018427387904,)"), 0)), ".npy", Kind::shape, {"size_t"}},
      {"npy uint16", lit(npy("{'descr': '<u2', 'fortran_order': False, 'shape': (2,), }", 4)), ".npy", Kind::dtype,
       {"'<u2'", "astype(np.int32)"}},
      {"npy uint64", lit(npy("{'descr': '<u8', 'fortran_order': False, 'shape': (1,), }", 8)), ".npy", Kind::dtype,
       {"'<u8'", "int64"}},
      {"npy complex", lit(npy("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", 8)), ".npy", Kind::dtype,
       {"'<c8'", "a.real"}},
      {"npy object array", lit(npy("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", 8)), ".npy", Kind::dtype,
       {"'|O'", "object arrays"}},
      {"npy structured dtype", lit(npy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", 4)), ".npy",
       Kind::dtype, {"structured"}},
      {"npy version 9.0", lit(npy(f4("(1,)"), 4, 9)), ".npy", Kind::file, {"version 9.0", "1.0, 2.0 and 3.0"}},
      {"npy bad fortran_order", lit(npy("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (1,), }", 4)), ".npy",
       Kind::file, {"fortran_order"}},
      {"npy missing key", lit(npy("{'descr': '<f4', 'shape': (1,), }", 4)), ".npy", Kind::file, {"lacks"}},
      {"npy negative size", lit(npy(f4("(-1,)"), 0)), ".npy", Kind::file, {"non-negative"}},
      {"npy unterminated header", lit(npy("{'descr': '<f4", 0)), ".npy", Kind::file, {"unterminated"}},
      // .npz
      {"npz wrong magic", lit(text("this is not a zip archive at all, just text")), ".npz", Kind::file, {"wrong magic"}},
      {"npz truncated", [](const ScratchDir& d) { Bytes b = saved(d, ".npz"); b.resize(b.size() / 2); return b; }, ".npz",
       Kind::file, {"truncated"}},
      {"npz corrupt data (CRC)", [](const ScratchDir& d) { Bytes b = saved(d, ".npz"); b[150] ^= 0x40; return b; }, ".npz",
       Kind::file, {"CRC-32", "'a.npy'"}},
      {"npz directory offset out of range",
       [](const ScratchDir& d) { Bytes b = saved(d, ".npz"); b[b.size() - 5] = 0x7f; return b; }, ".npz", Kind::file,
       {"outside the file"}},
      // safetensors
      {"safetensors under 8 bytes", lit({1, 2, 3}), ".safetensors", Kind::file, {"truncated"}},
      {"safetensors header longer than the file", [](const ScratchDir&) { Bytes b = st("{}", 0); b[1] = 4; return b; },
       ".safetensors", Kind::file, {"1026", "exceeds the file"}},
      {"safetensors not JSON", lit(st("<html>", 0)), ".safetensors", Kind::file, {"wrong magic"}},
      {"safetensors bad JSON", lit(st("{\"a\": {\"dtype\": \"F32\", ", 0)), ".safetensors", Kind::file, {"bad JSON"}},
      {"safetensors nested too deep", lit(st("{\"a\":" + std::string(100, '['), 0)), ".safetensors", Kind::file, {"deeper than 64"}},
      {"safetensors U16", lit(st(R"({"a":{"dtype":"U16","shape":[2],"data_offsets":[0,4]}})", 4)), ".safetensors",
       Kind::dtype, {"\"U16\"", "I32"}},
      {"safetensors unknown dtype", lit(st(R"({"a":{"dtype":"Q7","shape":[1],"data_offsets":[0,1]}})", 1)),
       ".safetensors", Kind::dtype, {"\"Q7\""}},
      {"safetensors offsets out of range", lit(st(R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", 8)),
       ".safetensors", Kind::file, {"outside", "[0, 16]"}},
      {"safetensors offsets reversed", lit(st(R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[8,0]}})", 8)),
       ".safetensors", Kind::file, {"outside"}},
      {"safetensors shape disagrees with offsets", lit(st(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", 8)),
       ".safetensors", Kind::file, {"[3]", "12 bytes"}},
      {"safetensors overlapping",
       lit(st(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})", 12)),
       ".safetensors", Kind::file, {"overlap", "'a'", "'b'"}},
      {"safetensors overflowing shape",
       lit(st(R"({"a":{"dtype":"F32","shape":[4611686018427387904,4],"data_offsets":[0,0]}})", 0)), ".safetensors",
       Kind::shape, {"overflows int64"}},
      {"safetensors negative size", lit(st(R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,0]}})", 0)),
       ".safetensors", Kind::file, {"non-negative"}},
      {"safetensors duplicate names",
       lit(st(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})", 2)),
       ".safetensors", Kind::file, {"two tensors are named 'a'"}},
      {"safetensors bad metadata", lit(st(R"({"__metadata__":{"n":1}})", 0)), ".safetensors", Kind::file, {"__metadata__"}},
      {"safetensors missing data_offsets", lit(st(R"({"a":{"dtype":"F32","shape":[1]}})", 4)), ".safetensors", Kind::file,
       {"data_offsets"}},
  };
}

TEST(IoBadFiles, TypedErrorsNamingTheFile) {
  ScratchDir d;
  int i = 0;
  for (const Case& c : cases()) {
    const std::string path = d.path("bad" + std::to_string(i++) + c.ext);
    concord::test::write_bytes(path, c.bytes(d));
    expect_error(path, c.ext, c.kind, c.says, c.name);
  }
}

TEST(IoBadFiles, MissingFilesAndDirectories) {
  ScratchDir d;
  for (const std::string ext : {".npy", ".npz", ".safetensors"}) {
    expect_error(d.path("none" + ext), ext, Kind::file, {"cannot open", "check the path"}, "missing" + ext);
    std::filesystem::create_directory(d.path("dir" + ext));
    expect_error(d.path("dir" + ext), ext, Kind::file, {"not a regular file"}, "directory" + ext);
  }
  EXPECT_THROW(load(d.path("x.txt")), ValueError);
}

TEST(IoBadFiles, OneBadTensorLoadsNothing) {
  // "a" is fine, "b" lies about its size: the call raises and returns nothing.
  ScratchDir d;
  concord::test::write_bytes(
      d.path("half.safetensors"),
      st(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[9],"data_offsets":[4,8]}})", 8));
  std::map<std::string, Tensor> m{{"old", ones({1})}};
  EXPECT_THROW(m = load_safetensors(d.path("half.safetensors")), FileError);
  EXPECT_EQ(m.size(), 1u);
  // A failed save leaves an existing file as it was, and no temporary beside it.
  save_npy(d.path("keep.npy"), ones({2}));
  EXPECT_THROW(save_npy(d.path("keep.npy"), Tensor()), ValueError);
  EXPECT_EQ(load_npy(d.path("keep.npy")).to_vector<float>(), (std::vector<float>{1, 1}));
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(d.str())) files += e.is_regular_file();
  EXPECT_EQ(files, 2);
}

}  // namespace
