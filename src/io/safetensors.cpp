// safetensors: an 8-byte little-endian header length N, N bytes of JSON
// ({"name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [b, e]}, ...,
// "__metadata__": {...}}), then the data; offsets are relative to the data.
// Tensors whose bytes are aligned to their itemsize load as views of the
// file's private mapping (no copy).
#include <algorithm>
#include <vector>

#include "io/io_common.h"
#include "io/json.h"

namespace concord::io {

namespace {

constexpr uint64_t kMaxHeader = 100u << 20;  // the reference implementation's bound

struct Code { const char* code; Dtype dtype; };
constexpr Code kCodes[] = {{"BOOL", bool_}, {"U8", uint8}, {"I8", int8}, {"I16", int16}, {"I32", int32},
                           {"I64", int64}, {"F16", float16}, {"BF16", bfloat16}, {"F32", float32}, {"F64", float64}};

const char* code_of(Dtype t) {
  for (const Code& c : kCodes) if (c.dtype == t) return c.code;
  return "F32";
}

Dtype dtype_of_code(const std::string& s, const std::string& path, const std::string& name) {
  for (const Code& c : kCodes) if (s == c.code) return c.dtype;
  std::string todo = "convert it to one of BOOL, U8, I8, I16, I32, I64, F16, BF16, F32, F64 before saving";
  if (s == "U16") todo = "convert it to I32 before saving";
  else if (s == "U32" || s == "U64") todo = "convert it to I64 before saving (U64 values above 2^63 do not fit)";
  else if (s.rfind("F8", 0) == 0) todo = "convert it to F16, BF16 or F32 before saving";
  throw DtypeError("[load] " + path + ": tensor '" + name + "' has dtype \"" + s + "\", which concord lacks; " + todo);
}

struct Item {
  std::string name;
  Dtype dtype;
  Shape shape;
  uint64_t begin, end;
};

Item read_item(const std::string& name, const Json& v, const std::string& path, uint64_t data_len) {
  const auto bad = [&](const std::string& what) {
    fail("load", path, "tensor '" + name + "': " + what, "the header is corrupt; write the file again");
  };
  if (v.kind != Json::object) bad("its entry is not an object");
  const Json *dt = nullptr, *shape = nullptr, *offs = nullptr;
  for (const auto& [k, f] : v.fields) {
    if (k == "dtype") dt = &f;
    else if (k == "shape") shape = &f;
    else if (k == "data_offsets") offs = &f;
  }
  if (!dt || !shape || !offs) bad("needs \"dtype\", \"shape\" and \"data_offsets\"");
  if (dt->kind != Json::string) bad("\"dtype\" is not a string");
  Item it{name, dtype_of_code(dt->s, path, name), {}, 0, 0};
  if (shape->kind != Json::array || shape->items.size() > 64) bad("\"shape\" is not a list of at most 64 sizes");
  for (const Json& s : shape->items) {
    if (s.kind != Json::number || !s.is_uint) bad("a size in \"shape\" is not a non-negative integer");
    if (s.u > static_cast<uint64_t>(INT64_MAX))
      throw ShapeError("[load] " + path + ": tensor '" + name + "': a size overflows int64; the file is corrupt");
    it.shape.push_back(static_cast<int64_t>(s.u));
  }
  if (offs->kind != Json::array || offs->items.size() != 2 || !offs->items[0].is_uint || !offs->items[1].is_uint)
    bad("\"data_offsets\" is not [begin, end]");
  it.begin = offs->items[0].u, it.end = offs->items[1].u;
  const size_t need = checked_nbytes("load", path, it.shape, it.dtype);
  if (it.begin > it.end || it.end > data_len)
    fail("load", path, "tensor '" + name + "': data_offsets [" + std::to_string(it.begin) + ", " + std::to_string(it.end) +
                           "] lie outside the " + std::to_string(data_len) + " data bytes",
         "the file is truncated or corrupt; write it again");
  if (it.end - it.begin != need)
    fail("load", path, "tensor '" + name + "': shape " + shape_str(it.shape) + " of " + dt->s + " needs " +
                           std::to_string(need) + " bytes but data_offsets span " + std::to_string(it.end - it.begin),
         "the header is corrupt; write the file again");
  return it;
}

}  // namespace

std::map<std::string, Tensor> load_safetensors_impl(const std::string& path, const Device& device, bool use_map) {
  auto file = std::make_shared<MappedFile>(path, "load");
  const Bytes b{file->data(), file->size(), &path};
  if (b.n < 8) fail("load", path, "truncated: " + std::to_string(b.n) + " bytes, less than the 8-byte header length",
                    "pass a complete safetensors file");
  const uint64_t hlen = b.u64(0, "the header length");
  if (hlen > kMaxHeader || hlen > b.n - 8)
    fail("load", path, "the header length " + std::to_string(hlen) + " exceeds " +
                           (hlen > kMaxHeader ? "100 MiB" : "the file (" + std::to_string(b.n) + " bytes)") +
                           ": truncated, or not a safetensors file",
         "pass a complete safetensors file");
  if (hlen == 0 || b.p[8] != '{')
    fail("load", path, "wrong magic: the header does not start with '{' (not a safetensors file)",
         "pass a file written by safetensors or concord::save_safetensors");
  const Json root = parse_json(std::string_view(reinterpret_cast<const char*>(b.p + 8), hlen), path);
  if (root.kind != Json::object) fail("load", path, "the header is not a JSON object", "write the file again");
  const size_t base = 8 + static_cast<size_t>(hlen);
  const uint64_t data_len = b.n - base;
  std::vector<Item> items;
  for (const auto& [k, v] : root.fields) {
    if (k == "__metadata__") {
      bool ok = v.kind == Json::object;
      for (const auto& f : v.fields) ok = ok && f.second.kind == Json::string;
      if (!ok) fail("load", path, "\"__metadata__\" is not an object of strings", "write the file again");
      continue;
    }
    for (const Item& it : items)
      if (it.name == k) fail("load", path, "two tensors are named '" + k + "'", "write the file again with unique names");
    items.push_back(read_item(k, v, path, data_len));
  }
  // No two tensors may share bytes (writing one would change the other).
  std::vector<const Item*> order;
  for (const Item& it : items) if (it.end > it.begin) order.push_back(&it);
  std::sort(order.begin(), order.end(), [](const Item* a, const Item* x) { return a->begin < x->begin; });
  for (size_t i = 1; i < order.size(); ++i)
    if (order[i]->begin < order[i - 1]->end)
      fail("load", path, "tensors '" + order[i - 1]->name + "' [" + std::to_string(order[i - 1]->begin) + ", " +
                             std::to_string(order[i - 1]->end) + "] and '" + order[i]->name + "' [" +
                             std::to_string(order[i]->begin) + ", " + std::to_string(order[i]->end) + "] overlap",
           "the header is corrupt; write the file again");
  std::map<std::string, Tensor> cpu;
  for (const Item& it : items) {
    const size_t at = base + static_cast<size_t>(it.begin);
    if (it.end > it.begin && at % itemsize(it.dtype) == 0) {
      // A view of the mapping; the storage's owner keeps the mapping alive.
      std::shared_ptr<detail::Storage> st(new detail::Storage, [file](detail::Storage* s) { delete s; });
      st->ptr = file->data() + at;
      st->nbytes = static_cast<size_t>(it.end - it.begin);
      st->device = kCPU;
      Tensor view(std::move(st), it.shape, contiguous_strides(it.shape), 0, it.dtype);
      // Without the mapping kept (mmap = false), or for another device, the
      // bytes are copied out now.
      cpu[it.name] = use_map && device.is_cpu() ? view : device.is_cpu() ? view.clone() : view;
    } else {
      cpu[it.name] = copy_to_cpu(b.p + at, it.shape, it.dtype);
    }
  }
  std::map<std::string, Tensor> out;
  for (auto& [k, t] : cpu) out[k] = to_device(t, device);
  return out;
}

}  // namespace concord::io

namespace concord {

std::map<std::string, Tensor> load_safetensors(const std::string& path, const Device& device, bool mmap) {
  return io::load_safetensors_impl(path, device, mmap);
}

void save_safetensors(const std::string& path, const std::map<std::string, Tensor>& tensors,
                      const std::map<std::string, std::string>& metadata) {
  std::vector<std::pair<std::string, Tensor>> order;
  for (const auto& [k, t] : tensors) {
    if (k.empty() || k == "__metadata__")
      throw ValueError("[save] " + path + ": bad tensor name '" + k + "'; names must be non-empty and not \"__metadata__\"");
    io::check_defined(t, path, k);
    order.emplace_back(k, t);
  }
  // Widest dtype first: with the header padded to 8 bytes, every tensor starts aligned.
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return itemsize(a.second.dtype()) > itemsize(b.second.dtype()); });
  std::string h = "{";
  if (!metadata.empty()) {
    h += "\"__metadata__\":{";
    for (const auto& [k, v] : metadata) h += io::json_quote(k) + ":" + io::json_quote(v) + ",";
    h.back() = '}';
    h += ",";
  }
  uint64_t off = 0;
  for (const auto& [k, t] : order) {
    h += io::json_quote(k) + ":{\"dtype\":\"" + io::code_of(t.dtype()) + "\",\"shape\":[";
    for (size_t i = 0; i < t.shape().size(); ++i) h += (i ? "," : "") + std::to_string(t.shape()[i]);
    h += "],\"data_offsets\":[" + std::to_string(off) + "," + std::to_string(off + t.nbytes()) + "]},";
    off += t.nbytes();
  }
  if (h.size() > 1) h.pop_back();
  h += "}";
  h.append((8 - h.size() % 8) % 8, ' ');
  uint8_t len[8];
  for (int i = 0; i < 8; ++i) len[i] = static_cast<uint8_t>((uint64_t{h.size()} >> (8 * i)) & 0xff);
  io::AtomicWriter w(path);
  w.write(len, 8);
  w.write(h.data(), h.size());
  for (const auto& [k, t] : order) {
    auto bytes = io::host_bytes(t, t.dtype());
    w.write(bytes.get(), t.nbytes());
  }
  w.commit();
}

}  // namespace concord
