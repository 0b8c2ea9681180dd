// .npy: NumPy's one-array format. A magic string, a version, a Python dict
// literal ({'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }) padded
// to 64 bytes, then the raw elements.
#include <cctype>

#include "concord/creation.h"
#include "io/io_common.h"

namespace concord::io {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the .npy/.safetensors readers assume a little-endian host");

namespace {

constexpr char kMagic[] = "\x93NUMPY";

struct Header {
  std::string descr;
  bool fortran = false;
  Shape shape;
};

// A parser for the restricted dict literal NumPy writes (and older writers:
// double quotes, "L" suffixes on integers).
class DictParser {
 public:
  DictParser(std::string_view s, const std::string& path) : s_(s), path_(path) {}

  Header parse() {
    Header h;
    bool seen_descr = false, seen_fortran = false, seen_shape = false;
    expect('{');
    while (true) {
      skip();
      if (peek() == '}') { ++i_; break; }
      const std::string key = quoted();
      expect(':');
      skip();
      if (key == "descr") {
        if (peek() == '[')
          throw DtypeError("[load] " + path_ + ": the .npy dtype is structured (a record of fields), which concord "
                           "lacks; save each field as its own array");
        h.descr = quoted();
        seen_descr = true;
      } else if (key == "fortran_order") {
        h.fortran = boolean();
        seen_fortran = true;
      } else if (key == "shape") {
        h.shape = tuple();
        seen_shape = true;
      } else {
        bad("unknown key '" + key + "' in the header", "write the file with numpy.save");
      }
      skip();
      if (peek() == ',') { ++i_; continue; }
      expect('}');
      break;
    }
    if (!seen_descr || !seen_fortran || !seen_shape)
      bad("the header lacks one of 'descr', 'fortran_order', 'shape'", "write the file with numpy.save");
    return h;
  }

 private:
  [[noreturn]] void bad(const std::string& what, const std::string& todo) {
    std::string shown(s_.substr(0, 120));
    for (char& c : shown) if (!std::isprint(static_cast<unsigned char>(c))) c = '?';  // the header may be binary junk
    fail("load", path_, "bad .npy header (" + what + ") in \"" + shown + "\"", todo);
  }
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void skip() { while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_; }
  void expect(char c) {
    skip();
    if (peek() != c) bad(std::string("expected '") + c + "' at offset " + std::to_string(i_), "write the file with numpy.save");
    ++i_;
  }
  std::string quoted() {
    skip();
    const char q = peek();
    if (q != '\'' && q != '"') bad("expected a quoted string at offset " + std::to_string(i_), "write the file with numpy.save");
    const size_t end = s_.find(q, ++i_);
    if (end == std::string_view::npos) bad("unterminated string", "write the file with numpy.save");
    std::string out(s_.substr(i_, end - i_));
    i_ = end + 1;
    return out;
  }
  bool boolean() {
    if (s_.substr(i_, 4) == "True") { i_ += 4; return true; }
    if (s_.substr(i_, 5) == "False") { i_ += 5; return false; }
    bad("'fortran_order' is not True or False", "write the file with numpy.save");
  }
  Shape tuple() {
    Shape shape;
    expect('(');
    while (true) {
      skip();
      if (peek() == ')') { ++i_; return shape; }
      if (!std::isdigit(static_cast<unsigned char>(peek())))
        bad("a size in 'shape' is not a non-negative integer", "write the file with numpy.save");
      int64_t v = 0;
      while (std::isdigit(static_cast<unsigned char>(peek()))) {
        if (__builtin_mul_overflow(v, int64_t{10}, &v) || __builtin_add_overflow(v, int64_t{peek() - '0'}, &v))
          throw ShapeError("[load] " + path_ + ": a size in the .npy shape overflows int64; the file is corrupt");
        ++i_;
      }
      if (peek() == 'L') ++i_;
      if (shape.size() >= 64) bad("more than 64 dims", "the file is corrupt");
      shape.push_back(v);
      skip();
      if (peek() == ',') { ++i_; continue; }
      expect(')');
      return shape;
    }
  }

  std::string_view s_;
  const std::string& path_;
  size_t i_ = 0;
};

// descr ("<f8", "|b1", ">i4") -> concord dtype and whether the bytes need swapping.
Dtype parse_descr(const std::string& descr, const std::string& path, bool* swap) {
  std::string_view d = descr;
  char order = '=';
  if (!d.empty() && (d[0] == '<' || d[0] == '>' || d[0] == '|' || d[0] == '=')) order = d[0], d.remove_prefix(1);
  const char kind = d.empty() ? '?' : d[0];
  int size = 0;
  for (char c : d.substr(d.empty() ? 0 : 1)) {
    if (!std::isdigit(static_cast<unsigned char>(c)) || size > 1000) { size = -1; break; }
    size = size * 10 + (c - '0');
  }
  *swap = order == '>' && size > 1;
  Dtype t = Dtype::float32;
  bool ok = true;
  switch (kind) {
    case 'b': ok = size == 1; t = bool_; break;
    case 'u': ok = size == 1; t = uint8; break;
    case 'i': ok = size == 1 || size == 2 || size == 4 || size == 8;
      t = size == 1 ? int8 : size == 2 ? int16 : size == 4 ? int32 : int64; break;
    case 'f': ok = size == 2 || size == 4 || size == 8; t = size == 2 ? float16 : size == 4 ? float32 : float64; break;
    default: ok = false;
  }
  if (ok) return t;
  std::string todo = "convert it in NumPy to one of bool, uint8, int8, int16, int32, int64, float16, float32, float64";
  if (kind == 'u' && size == 2) todo = "convert it in NumPy first: a.astype(np.int32)";
  else if (kind == 'u' && (size == 4 || size == 8)) todo = "convert it in NumPy first: a.astype(np.int64) (uint64 values above 2^63 do not fit)";
  else if (kind == 'c') todo = "save the real and imaginary parts as two arrays (a.real, a.imag)";
  else if (kind == 'O') todo = "object arrays hold Python objects, not numbers: convert to a numeric dtype (a.astype(np.float64)) and save with allow_pickle=False";
  else if (kind == 'f') todo = "convert it in NumPy first: a.astype(np.float64)";
  else if (kind == 'M' || kind == 'm') todo = "convert the dates/durations to integers first: a.astype(np.int64)";
  throw DtypeError("[load] " + path + ": the .npy dtype '" + descr + "' has no concord dtype; " + todo);
}

std::string descr_of(Dtype t) {
  switch (t) {
    case Dtype::bool_: return "|b1";
    case Dtype::uint8: return "|u1";
    case Dtype::int8: return "|i1";
    case Dtype::int16: return "<i2";
    case Dtype::int32: return "<i4";
    case Dtype::int64: return "<i8";
    case Dtype::float16: return "<f2";
    case Dtype::float64: return "<f8";
    default: return "<f4";  // float32, and bfloat16 saved as float32
  }
}

}  // namespace

Tensor parse_npy(const Bytes& b) {
  const std::string& path = *b.path;
  if (b.n == 0) fail("load", path, "the file is empty", "pass a file written by numpy.save or concord::save_npy");
  if (b.n < 6 || std::memcmp(b.p, kMagic, 6) != 0)
    fail("load", path, "wrong magic: not a .npy file (it must start with \\x93NUMPY)", "pass a file written by numpy.save or concord::save_npy");
  const uint8_t major = *b.at(6, 1, "the .npy version"), minor = *b.at(7, 1, "the .npy version");
  size_t start, hlen;
  if (major == 1) hlen = b.u16(8, "the .npy header length"), start = 10;
  else if (major == 2 || major == 3) hlen = b.u32(8, "the .npy header length"), start = 12;
  else fail("load", path, "unsupported .npy version " + std::to_string(major) + "." + std::to_string(minor),
            "concord reads versions 1.0, 2.0 and 3.0; save it again with numpy.save");
  const auto* h = reinterpret_cast<const char*>(b.at(start, hlen, "the .npy header"));
  Header hd = DictParser(std::string_view(h, hlen), path).parse();
  bool swap = false;
  const Dtype t = parse_descr(hd.descr, path, &swap);
  const size_t need = checked_nbytes("load", path, hd.shape, t);
  const size_t have = b.n - (start + hlen);
  if (need != have)
    fail("load", path, "the header says shape " + shape_str(hd.shape) + " of " + hd.descr + " (" + std::to_string(need) +
                           " bytes), but " + std::to_string(have) + " bytes of data follow it",
         "the file is truncated or its header is wrong; write it again");
  const uint8_t* data = b.p + start + hlen;
  if (!hd.fortran) {
    Tensor out = copy_to_cpu(data, hd.shape, t);
    if (swap) swap_bytes(out.raw_data(), static_cast<size_t>(out.numel()), itemsize(t));
    return out;
  }
  // Fortran order: the bytes are the row-major layout of the reversed shape;
  // its reversed view is the array, made row-major by one copy.
  Shape rev;
  for (size_t d = hd.shape.size(); d-- > 0;) rev.push_back(hd.shape[d]);
  Tensor raw = copy_to_cpu(data, rev, t);
  if (swap) swap_bytes(raw.raw_data(), static_cast<size_t>(raw.numel()), itemsize(t));
  Shape perm;
  for (int64_t d = raw.ndim() - 1; d >= 0; --d) perm.push_back(d);
  return raw.permute(perm).contiguous();
}

std::string npy_header(const Tensor& t, Dtype* saved) {
  *saved = t.dtype() == bfloat16 ? float32 : t.dtype();
  std::string dict = "{'descr': '" + descr_of(*saved) + "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < t.shape().size(); ++i) dict += std::to_string(t.shape()[i]) + (t.ndim() == 1 || i + 1 < t.shape().size() ? ", " : "");
  if (t.ndim() == 1) dict.pop_back();  // "(3,)"
  dict += "), }";
  // Version 1.0 while the header length fits 16 bits, else 2.0; the whole
  // header is padded with spaces to a multiple of 64 and ends with '\n'.
  const bool v2 = dict.size() + 1 + 12 > 65535;
  const size_t pre = v2 ? 12 : 10;
  const size_t total = (pre + dict.size() + 1 + 63) / 64 * 64;
  dict.append(total - pre - dict.size() - 1, ' ');
  dict += '\n';
  std::string out(kMagic, 6);
  out += static_cast<char>(v2 ? 2 : 1);
  out += '\0';
  const size_t n = dict.size();
  out += static_cast<char>(n & 0xff);
  out += static_cast<char>((n >> 8) & 0xff);
  if (v2) out += static_cast<char>((n >> 16) & 0xff), out += static_cast<char>((n >> 24) & 0xff);
  return out + dict;
}

void check_defined(const Tensor& t, const std::string& path, const std::string& name) {
  if (!t.defined())
    throw ValueError("[save] " + path + ": tensor" + (name.empty() ? "" : " '" + name + "'") +
                     " is undefined (default-constructed); pass a tensor made with empty/zeros/...");
}

Tensor load_npy_impl(const std::string& path, const Device& device) {
  MappedFile m(path, "load");
  return to_device(parse_npy(Bytes{m.data(), m.size(), &path}), device);
}

}  // namespace concord::io

namespace concord {

Tensor load_npy(const std::string& path, const Device& device) { return io::load_npy_impl(path, device); }

void save_npy(const std::string& path, const Tensor& t) {
  io::check_defined(t, path, "");
  Dtype saved;
  const std::string header = io::npy_header(t, &saved);
  auto bytes = io::host_bytes(t, saved);
  io::AtomicWriter w(path);
  w.write(header.data(), header.size());
  w.write(bytes.get(), static_cast<size_t>(t.numel()) * itemsize(saved));
  w.commit();
}

}  // namespace concord
