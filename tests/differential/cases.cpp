// Reading torch_cases.py's records and running each case through concord.
#include "cases.h"

#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "concord/half.h"
#include "concord/linalg.h"
#include "concord/testing.h"

namespace concord::differential {

namespace {

Shape parse_shape(const std::string& s) {
  Shape out;
  if (s == "()") return out;
  std::stringstream ss(s);
  std::string d;
  while (std::getline(ss, d, 'x')) out.push_back(std::stoll(d));
  return out;
}

std::vector<uint64_t> parse_bits(const std::string& s) {
  std::vector<uint64_t> out;
  if (s == "-") return out;
  std::stringstream ss(s);
  std::string b;
  while (std::getline(ss, b, ',')) out.push_back(std::stoull(b, nullptr, 16));
  return out;
}

std::vector<double> parse_doubles(const std::string& s) {
  std::vector<double> out;
  if (s == "-") return out;
  std::stringstream ss(s);
  std::string b;
  while (std::getline(ss, b, ',')) out.push_back(std::strtod(b.c_str(), nullptr));  // hex floats, inf, nan
  return out;
}

// Raw bits into a contiguous host tensor of dtype t.
Tensor host_tensor(Dtype t, const Shape& shape, const std::vector<uint64_t>& bits) {
  const size_t w = itemsize(t);
  std::vector<unsigned char> buf(bits.size() * w + 1);
  for (size_t i = 0; i < bits.size(); ++i) std::memcpy(buf.data() + i * w, &bits[i], w);  // little-endian
  return from_host(buf.data(), shape, t);
}

Tensor transpose_bits_2d(Dtype t, const Shape& s, const std::vector<uint64_t>& bits, Shape* tshape) {
  std::vector<uint64_t> tb(bits.size());
  for (int64_t i = 0; i < s[0]; ++i)
    for (int64_t j = 0; j < s[1]; ++j) tb[static_cast<size_t>(j * s[0] + i)] = bits[static_cast<size_t>(i * s[1] + j)];
  *tshape = Shape{s[1], s[0]};
  return host_tensor(t, *tshape, tb);
}

// The operand on `device`, in the view the record names (views are taken on the device).
Tensor build(const Operand& a, const Device& device) {
  if (a.view == "t") {
    Shape ts;
    return transpose_bits_2d(a.dtype, a.shape, a.bits, &ts).to(device).t();
  }
  if (a.view == "s") {  // every second element of a tensor twice as wide in the last dim
    Shape w = a.shape;
    w.back() *= 2;
    std::vector<uint64_t> wb(a.bits.size() * 2, 0);
    for (size_t i = 0; i < a.bits.size(); ++i) wb[2 * i] = a.bits[i];
    return host_tensor(a.dtype, w, wb).to(device).slice(-1, 0, std::nullopt, 2);
  }
  Tensor t = host_tensor(a.dtype, a.shape, a.bits).to(device);
  if (a.view.rfind("b:", 0) == 0) return t.expand(parse_shape(a.view.substr(2)));
  return t;
}

Result to_result(const Tensor& t) {
  Result r{t.dtype(), t.shape(), {}};
  const size_t w = itemsize(t.dtype());
  std::vector<unsigned char> buf(static_cast<size_t>(t.numel()) * w + 1);
  detail::to_host_as(t, t.dtype(), buf.data());
  r.bits.resize(static_cast<size_t>(t.numel()));
  for (size_t i = 0; i < r.bits.size(); ++i) std::memcpy(&r.bits[i], buf.data() + i * w, w);
  return r;
}

std::optional<OpId> op_by_name(const std::string& name) {
  for (int i = 0; i < kNumOps; ++i)
    if (op_def(static_cast<OpId>(i)).name == name) return static_cast<OpId>(i);
  return std::nullopt;
}

Dims dims_of(const Case& c) {
  Dims d;
  const std::string s = c.param("dims");
  std::stringstream ss(s);
  std::string x;
  while (std::getline(ss, x, ',')) if (!x.empty()) d.push_back(std::stoll(x));
  return d;
}

double num(const std::string& s) { return s == "inf" ? INFINITY : std::strtod(s.c_str(), nullptr); }

std::vector<Tensor> run_op(const Case& c, const std::vector<Tensor>& t, const std::vector<Operand>& args) {
  auto operand = [&](size_t i) -> concord::Operand {
    return args[i].is_scalar ? concord::Operand(args[i].scalar) : concord::Operand(t[i]);
  };
  const std::string& op = c.op;
  const bool keep = c.param("keepdim") == "1";
  const std::optional<OpId> id = op_by_name(op);
  if (id && op_def(*id).family == OpFamily::unary) return {unary(*id, t[0])};
  if (id && op_def(*id).family == OpFamily::binary) return {binary(*id, operand(0), operand(1))};
  if (op == "cast") return {cast(t[0], parse_dtype(c.param("dtype")))};
  if (op == "sum") return {sum(t[0], dims_of(c), keep)};
  if (op == "mean") return {mean(t[0], dims_of(c), keep)};
  if (op == "prod") return {prod(t[0], dims_of(c), keep)};
  if (op == "amax") return {amax(t[0], dims_of(c), keep)};
  if (op == "amin") return {amin(t[0], dims_of(c), keep)};
  if (op == "all") return {all(t[0], dims_of(c), keep)};
  if (op == "any") return {any(t[0], dims_of(c), keep)};
  if (op == "logsumexp") return {logsumexp(t[0], dims_of(c), keep)};
  if (op == "var" || op == "std") {
    const int64_t corr = std::stoll(c.param("correction", "1"));
    return {op == "var" ? var(t[0], dims_of(c), corr, keep) : concord::std(t[0], dims_of(c), corr, keep)};
  }
  if (op == "max" || op == "min") {
    if (c.param("dim").empty()) return {op == "max" ? max(t[0]) : min(t[0])};
    auto r = op == "max" ? max(t[0], std::stoll(c.param("dim")), keep) : min(t[0], std::stoll(c.param("dim")), keep);
    return {r.values, r.indices};
  }
  if (op == "argmax" || op == "argmin") {
    std::optional<int64_t> dim;
    if (!c.param("dim").empty()) dim = std::stoll(c.param("dim"));
    return {op == "argmax" ? argmax(t[0], dim, keep) : argmin(t[0], dim, keep)};
  }
  if (op == "softmax") return {softmax(t[0], std::stoll(c.param("dim")))};
  if (op == "log_softmax") return {log_softmax(t[0], std::stoll(c.param("dim")))};
  if (op == "cumsum") return {cumsum(t[0], std::stoll(c.param("dim")))};
  if (op == "norm") return {norm(t[0], num(c.param("p")))};
  if (op == "vector_norm") return {linalg::vector_norm(t[0], num(c.param("ord")))};
  if (op == "clamp") {
    auto bound = [&](const char* k) -> std::optional<Scalar> {
      const std::string v = c.param(k, "-");
      if (v == "-") return std::nullopt;
      if (is_floating(t[0].dtype())) return Scalar(num(v));
      return Scalar(static_cast<int64_t>(num(v)));
    };
    return {clamp(t[0], bound("lo"), bound("hi"))};
  }
  if (op == "where") return {where(t[0], operand(1), operand(2))};
  if (op == "matmul") return {matmul(t[0], t[1])};
  if (op == "mm") return {mm(t[0], t[1])};
  if (op == "mv") return {mv(t[0], t[1])};
  if (op == "dot") return {dot(t[0], t[1])};
  if (op == "addmm") {
    const std::string b = c.param("beta");
    const Scalar beta = b.find('.') != std::string::npos ? Scalar(num(b)) : Scalar(static_cast<int64_t>(num(b)));
    return {addmm(t[0], t[1], t[2], beta)};
  }
  if (op == "matrix_norm")
    return {c.param("ord") == "fro" ? linalg::matrix_norm(t[0], "fro") : linalg::matrix_norm(t[0], num(c.param("ord")))};
  if (op == "inv") return {linalg::inv(t[0])};
  if (op == "det") return {linalg::det(t[0])};
  if (op == "solve") return {linalg::solve(t[0], t[1])};
  throw std::runtime_error("differential: no runner for op " + op);
}

}  // namespace

std::string Case::param(const std::string& key, const std::string& dflt) const {
  std::stringstream ss(params);
  std::string kv;
  while (std::getline(ss, kv, ';')) {
    const size_t eq = kv.find('=');
    if (eq != std::string::npos && kv.substr(0, eq) == key) return kv.substr(eq + 1);
  }
  return dflt;
}

std::vector<Case> parse_cases(const std::string& text) {
  std::vector<Case> cases;
  std::stringstream in(text);
  std::string line;
  int lineno = 0;
  Case cur;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty()) continue;
    std::stringstream ls(line);
    std::string kind;
    ls >> kind;
    try {
      if (kind == "case") {
        cur = Case{};
        ls >> cur.id >> cur.op >> cur.params;
        ls >> cur.tag;
      } else if (kind == "tensor") {
        Operand a;
        std::string dt, shape, bits;
        ls >> dt >> shape >> a.view >> bits;
        a.dtype = parse_dtype(dt);
        a.shape = parse_shape(shape);
        a.bits = parse_bits(bits);
        cur.args.push_back(a);
      } else if (kind == "scalar") {
        Operand a;
        std::string k, v;
        ls >> k >> v;
        a.is_scalar = true;
        a.scalar = k == "bool" ? Scalar(v == "1") : k == "int" ? Scalar(static_cast<int64_t>(std::stoll(v)))
                                                                : Scalar(std::strtod(v.c_str(), nullptr));
        cur.args.push_back(a);
      } else if (kind == "out") {
        Result r;
        std::string dt, shape, bits;
        ls >> dt >> shape >> bits;
        r.dtype = parse_dtype(dt);
        r.shape = parse_shape(shape);
        r.bits = parse_bits(bits);
        cur.torch_out.push_back(r);
      } else if (kind == "ref") {
        std::string ref, scale;
        ls >> ref >> scale >> cur.reduced;
        cur.ref = parse_doubles(ref);
        cur.scale = parse_doubles(scale);
      } else if (kind == "err") {
        std::string e;
        ls >> e;
        cur.torch_error = e;
      } else if (kind == "msg") {
        std::string m = line.size() > 4 ? line.substr(4) : "";
        std::string u;
        for (size_t i = 0; i < m.size(); ++i) {
          if (m[i] == '\\' && i + 1 < m.size()) {
            u += m[i + 1] == 'n' ? '\n' : m[i + 1];
            ++i;
          } else {
            u += m[i];
          }
        }
        cur.torch_msg = u == "-" ? "" : u;
      } else if (kind == "end") {
        cases.push_back(cur);
      } else {
        throw std::runtime_error("unknown record");
      }
    } catch (const std::exception& e) {
      throw std::runtime_error("differential cases, line " + std::to_string(lineno) + ": " + e.what() + ": " + line);
    }
  }
  return cases;
}

Outcome run_case(const Case& c, const Device& device) {
  Outcome o;
  std::vector<Tensor> t;
  for (const Operand& a : c.args) t.push_back(a.is_scalar ? Tensor() : build(a, device));
  if (c.op == "assert_close") {
    testing::CompareOptions opt;
    if (!c.param("rtol").empty()) opt.rtol = num(c.param("rtol"));
    if (!c.param("atol").empty()) opt.atol = num(c.param("atol"));
    opt.check_dtype = c.param("check_dtype") != "0";
    o.message = testing::compare(t[0], t[1], opt).message();
    return o;
  }
  try {
    for (const Tensor& r : run_op(c, t, c.args)) o.out.push_back(to_result(r.to(kCPU)));
  } catch (const concord::Error& e) {
    o.error = e.what();
  }
  return o;
}

double bits_value(Dtype t, uint64_t b) {
  switch (t) {
    case Dtype::bool_: return b ? 1.0 : 0.0;
    case Dtype::uint8: return static_cast<double>(static_cast<uint8_t>(b));
    case Dtype::int8: return static_cast<double>(static_cast<int8_t>(b));
    case Dtype::int16: return static_cast<double>(static_cast<int16_t>(b));
    case Dtype::int32: return static_cast<double>(static_cast<int32_t>(b));
    case Dtype::int64: return static_cast<double>(static_cast<int64_t>(b));
    case Dtype::float16: return detail::f16_bits_to_f32(static_cast<uint16_t>(b));
    case Dtype::bfloat16: return detail::bf16_bits_to_f32(static_cast<uint16_t>(b));
    case Dtype::float32: {
      float f;
      const uint32_t u = static_cast<uint32_t>(b);
      std::memcpy(&f, &u, 4);
      return f;
    }
    default: {
      double d;
      std::memcpy(&d, &b, 8);
      return d;
    }
  }
}

std::vector<Dtype> dtypes_of(const Case& c) {
  std::vector<Dtype> d;
  for (const Operand& a : c.args) if (!a.is_scalar) d.push_back(a.dtype);
  for (const Result& r : c.torch_out) d.push_back(r.dtype);
  if (c.op == "cast") d.push_back(parse_dtype(c.param("dtype")));
  return d;
}

std::string shape_text(const Shape& s) { return shape_str(s); }

}  // namespace concord::differential
