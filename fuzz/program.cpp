// Decoding fuzzer bytes into a program, and running one instruction.
#include "program.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace concord::fuzz {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Values that find edge cases: signed zeros, halves' and floats' limits, subnormals,
// integer boundaries, ties for rounding, non-finite values.
constexpr double kPalette[] = {0.0,     -0.0,   1.0,    -1.0,   2.0,     -2.0,   0.5,     -0.5,   3.0,
                               -7.0,    0.1,    1e-3,   100.0,  127.0,   128.0,  255.0,   256.0,  -129.0,
                               1.5,     2.5,    -2.5,   65504., 65520.,  1e5,    -3e4,    3.4e38, 1e39,
                               1e-40,   1e-8,   6e-8,   2147483648.0, -2147483649.0, 9.3e18, 1e300, kInf, -kInf,
                               kNaN,    0.49999997};
constexpr int kPaletteSize = sizeof(kPalette) / sizeof(kPalette[0]);
constexpr int64_t kDimSizes[] = {0, 1, 1, 2, 3, 4, 5, 7, 8, 16, 33, 64};

const char* const kViewOps[] = {"slice", "transpose", "permute", "expand", "unsqueeze", "squeeze", "squeeze_dim",
                                "select", "narrow", "flatten", "view", "reshape", "t", "contiguous", "clone"};
// The elementwise ops come from the op table (every unary and binary row),
// plus two forms that are not rows of their own: cast and add with alpha.
const std::vector<OpId>& family(OpFamily f) {
  static const auto of = [](OpFamily want) {
    std::vector<OpId> v;
    for (int i = 0; i < kNumOps; ++i)
      if (op_def(static_cast<OpId>(i)).family == want) v.push_back(static_cast<OpId>(i));
    return v;
  };
  static const std::vector<OpId> unary = of(OpFamily::unary), binary = of(OpFamily::binary);
  return f == OpFamily::unary ? unary : binary;
}
int unary_count() { return static_cast<int>(family(OpFamily::unary).size()) + 1; }    // + cast
int binary_count() { return static_cast<int>(family(OpFamily::binary).size()) + 1; }  // + add_alpha
const char* const kReduceOps[] = {"sum", "mean", "prod", "amax", "amin", "max", "min", "max_dim", "min_dim",
                                  "argmax", "argmin", "var", "std", "norm", "all", "any", "logsumexp", "softmax",
                                  "log_softmax", "cumsum"};
const char* const kLinearOps[] = {"matmul", "mm", "bmm", "mv", "dot", "outer"};
const char* const kShapeOps[] = {"cat", "stack", "flip", "tril", "triu", "index_select", "gather", "split", "chunk"};

template <class T, size_t N> constexpr int count(const T (&)[N]) { return static_cast<int>(N); }

double pick_value(FuzzedDataProvider& in) {
  const int k = in.ConsumeIntegralInRange(0, kPaletteSize + 7);
  if (k < kPaletteSize) return kPalette[k];
  if (k < kPaletteSize + 4) return static_cast<double>(in.ConsumeIntegralInRange<int>(-20, 20));
  return in.ConsumeFloatingPointInRange<double>(-8.0, 8.0);
}

Dtype pick_dtype(FuzzedDataProvider& in) { return static_cast<Dtype>(in.ConsumeIntegralInRange(0, kNumDtypes - 1)); }

Shape pick_shape(FuzzedDataProvider& in, int max_rank) {
  Shape s;
  const int rank = in.ConsumeIntegralInRange(0, max_rank);
  for (int i = 0; i < rank; ++i) s.push_back(kDimSizes[in.ConsumeIntegralInRange(0, count(kDimSizes) - 1)]);
  for (;;) {  // keep it small: halve the largest dim
    int64_t n = 1;
    for (int64_t d : s) n *= d;
    if (n <= kMaxNumel) break;
    *std::max_element(s.begin(), s.end()) /= 2;
  }
  return s;
}

void pick_scalar(FuzzedDataProvider& in, double* v, uint8_t* kind) {
  *kind = in.ConsumeIntegralInRange<uint8_t>(0, 2);
  if (*kind == 0) *v = pick_value(in);
  else if (*kind == 1) *v = static_cast<double>(in.ConsumeIntegralInRange<int>(-9, 300));
  else *v = in.ConsumeBool() ? 1 : 0;
}

Scalar scalar_of(double v, uint8_t kind) {
  if (kind == 1) return Scalar(static_cast<int64_t>(v));
  if (kind == 2) return Scalar(v != 0);
  return Scalar(v);
}

std::string scalar_str(double v, uint8_t kind) {
  std::ostringstream os;
  if (kind == 1) os << static_cast<int64_t>(v);
  else if (kind == 2) os << (v != 0 ? "true" : "false");
  else os << v;
  return os.str();
}

std::string dims_str(const Dims& d) {
  std::string s = "{";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s + "}";
}

std::optional<int64_t> opt(int64_t v) { return v == 99 ? std::nullopt : std::optional<int64_t>(v); }

// Resolves a view instruction's target shape against the input's shape: mode 0 takes
// the decoded shape raw (often invalid), the others derive a valid one.
Shape view_target(const Instr& ins, const Tensor& x) {
  const int64_t n = x.numel();
  switch (ins.p[4]) {
    case 1: return Shape{-1};
    case 2: {
      const int64_t k = std::max<int64_t>(1, ins.p[3]);
      return n % k == 0 ? Shape{k, -1} : Shape{-1, 1};
    }
    case 3: {  // expand: new leading dim, size-1 dims grow
      Shape s{std::max<int64_t>(0, ins.p[3])};
      for (int64_t d : x.shape()) s.push_back(d == 1 ? std::max<int64_t>(1, ins.p[3]) : -1);
      return s;
    }
    default: return ins.shape;
  }
}

Tensor apply_view(const Instr& ins, int op, const Tensor& x) {
  const int64_t* p = ins.p;
  switch (op) {
    case 0: return x.slice(p[0], opt(p[1]), opt(p[2]), p[3]);
    case 1: return x.transpose(p[0], p[1]);
    case 2: {
      Shape perm;
      for (int64_t i = 0; i < x.ndim(); ++i) perm.push_back((i + p[0]) % std::max<int64_t>(1, x.ndim()));
      if (p[1] != 0 && !perm.empty()) perm[0] = p[1];  // sometimes invalid
      return x.permute(perm);
    }
    case 3: return x.expand(view_target(ins, x));
    case 4: return x.unsqueeze(p[0]);
    case 5: return x.squeeze();
    case 6: return x.squeeze(p[0]);
    case 7: return x.select(p[0], p[1]);
    case 8: return x.narrow(p[0], p[1], p[2]);
    case 9: return x.flatten(p[0], p[1]);
    case 10: return x.view(view_target(ins, x));
    case 11: return x.reshape(view_target(ins, x));
    case 12: return x.t();
    case 13: return x.contiguous();
    default: return x.clone();
  }
}

std::optional<Dtype> opt_dtype(const Instr& ins) { return ins.has_dtype ? std::optional<Dtype>(ins.dtype) : std::nullopt; }

}  // namespace

std::string op_label(const Instr& ins) {
  switch (ins.kind) {
    case Kind::make: return "make";
    case Kind::view: return kViewOps[ins.op];
    case Kind::unary: {
      const auto& ops = family(OpFamily::unary);
      return ins.op < static_cast<int>(ops.size()) ? std::string(op_name(ops[ins.op])) : "cast";
    }
    case Kind::binary: {
      const auto& ops = family(OpFamily::binary);
      return ins.op < static_cast<int>(ops.size()) ? std::string(op_name(ops[ins.op])) : "add_alpha";
    }
    case Kind::where: return "where";
    case Kind::clamp: return "clamp";
    case Kind::reduce: return kReduceOps[ins.op];
    case Kind::linear: return kLinearOps[ins.op];
    case Kind::shape: return kShapeOps[ins.op];
    default: return std::string("copy_ into ") + kViewOps[ins.op];
  }
}

Program decode(FuzzedDataProvider& in, int max_instructions) {
  Program prog;
  int regs = 0;
  const int n = in.ConsumeIntegralInRange(1, max_instructions);
  for (int i = 0; i < n && in.remaining_bytes() > 0; ++i) {
    Instr ins;
    ins.kind = regs == 0 ? Kind::make : static_cast<Kind>(in.ConsumeIntegralInRange(0, 9));
    auto reg = [&] { return in.ConsumeIntegralInRange(0, regs - 1); };
    for (auto& v : ins.p) v = in.ConsumeIntegralInRange<int64_t>(-4, 4);
    switch (ins.kind) {
      case Kind::make: {
        ins.shape = pick_shape(in, 4);
        ins.dtype = pick_dtype(in);
        const int nv = in.ConsumeIntegralInRange(1, 16);
        for (int k = 0; k < nv; ++k) ins.values.push_back(pick_value(in));
        break;
      }
      case Kind::view:
      case Kind::copy_into:
        ins.op = in.ConsumeIntegralInRange(0, count(kViewOps) - 1);
        ins.a = reg();
        if (ins.kind == Kind::copy_into) ins.b = reg();
        if (ins.op == 0) {  // slice: start/end may be absent (99) or beyond the size
          ins.p[1] = in.ConsumeBool() ? 99 : in.ConsumeIntegralInRange<int64_t>(-70, 70);
          ins.p[2] = in.ConsumeBool() ? 99 : in.ConsumeIntegralInRange<int64_t>(-70, 70);
          ins.p[3] = in.ConsumeIntegralInRange<int64_t>(-1, 5);
        }
        if (ins.op == 8) ins.p[2] = in.ConsumeIntegralInRange<int64_t>(-1, 64);
        ins.p[4] = in.ConsumeIntegralInRange<int64_t>(0, 3);
        if (ins.p[4] == 0) ins.shape = pick_shape(in, 4);
        break;
      case Kind::unary:
        ins.op = in.ConsumeIntegralInRange(0, unary_count() - 1);
        ins.a = reg();
        ins.dtype = pick_dtype(in);
        break;
      case Kind::binary:
        ins.op = in.ConsumeIntegralInRange(0, binary_count() - 1);
        ins.a = reg();
        if (in.ConsumeBool()) ins.b = reg();
        else pick_scalar(in, &ins.s0, &ins.s0_kind);
        pick_scalar(in, &ins.s1, &ins.s1_kind);  // alpha
        ins.flag = in.ConsumeBool();             // scalar on the left
        break;
      case Kind::where:
        ins.a = reg();
        ins.b = reg();
        if (in.ConsumeBool()) ins.c = reg();
        else pick_scalar(in, &ins.s0, &ins.s0_kind);
        ins.flag = in.ConsumeBool();  // condition used as is (often not bool: DtypeError)
        break;
      case Kind::clamp:
        ins.a = reg();
        pick_scalar(in, &ins.s0, &ins.s0_kind);
        pick_scalar(in, &ins.s1, &ins.s1_kind);
        if (in.ConsumeBool()) ins.s0_kind = 3;
        else if (in.ConsumeBool()) ins.s1_kind = 3;
        break;
      case Kind::reduce: {
        ins.op = in.ConsumeIntegralInRange(0, count(kReduceOps) - 1);
        ins.a = reg();
        const int nd = in.ConsumeIntegralInRange(0, 2);
        for (int k = 0; k < nd; ++k) ins.dims.push_back(in.ConsumeIntegralInRange<int64_t>(-4, 4));
        ins.flag = in.ConsumeBool();
        ins.has_dtype = in.ConsumeIntegralInRange(0, 3) == 0;
        ins.dtype = pick_dtype(in);
        break;
      }
      case Kind::linear:
        ins.op = in.ConsumeIntegralInRange(0, count(kLinearOps) - 1);
        ins.a = reg();
        ins.b = reg();
        ins.flag = in.ConsumeBool();  // b derived from a (a @ aᵀ): shapes that fit
        break;
      case Kind::shape: {
        ins.op = in.ConsumeIntegralInRange(0, count(kShapeOps) - 1);
        ins.a = reg();
        if (ins.op <= 1) ins.b = reg();
        const int nd = in.ConsumeIntegralInRange(0, 2);
        for (int k = 0; k < nd; ++k) ins.dims.push_back(in.ConsumeIntegralInRange<int64_t>(-4, 4));
        ins.shape = pick_shape(in, 4);  // gather's index shape
        const int ni = in.ConsumeIntegralInRange(1, 16);
        for (int k = 0; k < ni; ++k)
          ins.index.push_back(in.ConsumeIntegralInRange(0, 7) ? in.ConsumeIntegralInRange<int64_t>(0, 4)
                                                              : in.ConsumeIntegralInRange<int64_t>(-2, 70));
        ins.flag = in.ConsumeBool();  // index_select: int32 index
        break;
      }
    }
    ins.out = regs < kMaxRegisters ? regs : i % kMaxRegisters;
    prog.code.push_back(std::move(ins));
    if (regs < kMaxRegisters) ++regs;
  }
  return prog;
}

std::pair<Tensor, Tensor> linear_operands(const Instr& ins, const std::vector<Tensor>& in) {
  if (!ins.flag) return {in[0], in[1]};
  const Tensor& a = in[0];
  if (op_label(ins) == "mv" && a.ndim() == 2 && a.size(0) > 0) return {a, a.select(0, 0)};
  return {a, a.ndim() >= 2 ? a.transpose(-1, -2) : a};
}

std::vector<int> inputs_of(const Instr& ins) {
  std::vector<int> r;
  if (ins.kind == Kind::make) return r;
  for (int x : {ins.a, ins.b, ins.c})
    if (x >= 0) r.push_back(x);
  return r;
}

// From the op table's error model. The fuzzer compares devices that share the
// CPU's arithmetic (and opencl:0 on request), so correctly rounded ops are exact here.
Model model_of(const Instr& ins) {
  const std::string op = op_label(ins);
  OpId id;
  if (op == "max_dim" || op == "min_dim") return Model::exact;
  if (op == "add_alpha") return Model::exact;
  if (ins.kind == Kind::linear) return Model::matmul;
  if (!parse_op(op, &id)) return Model::exact;  // views, make, cast, split/chunk
  if (id == OpId::prod) return Model::product;
  switch (op_def(id).model) {
    case ErrorModel::ulp: return Model::ulp;
    case ErrorModel::sum: return Model::sum;
    case ErrorModel::relative: return Model::relative;
    case ErrorModel::matmul: return Model::matmul;
    default: return Model::exact;
  }
}

double ulp_bound(const Instr& ins) {
  OpId id;
  return parse_op(op_label(ins), &id) && op_def(id).model == ErrorModel::ulp ? op_def(id).bound : 4.0;
}

std::vector<Tensor> execute(const Instr& ins, const std::vector<Tensor>& in, const Device& device) {
  const std::string op = op_label(ins);
  switch (ins.kind) {
    case Kind::make: {
      int64_t n = 1;
      for (int64_t d : ins.shape) n *= d;
      std::vector<double> v(static_cast<size_t>(n));
      for (size_t i = 0; i < v.size(); ++i) v[i] = ins.values[i % ins.values.size()];
      // Host values are converted by the CPU's cast (the documented conversion), then handed to the device.
      Tensor host = from_vector(v, ins.shape).to(ins.dtype);
      return {from_host(host.raw_data(), ins.shape, ins.dtype, device)};
    }
    case Kind::view: return {apply_view(ins, ins.op, in[0])};
    case Kind::copy_into: {
      Tensor dst = apply_view(ins, ins.op, in[0]);
      dst.copy_(in[1]);
      return {in[0]};
    }
    case Kind::unary: {
      if (op == "cast") return {cast(in[0], ins.dtype)};
      return {unary(family(OpFamily::unary)[ins.op], in[0])};
    }
    case Kind::binary: {
      const Scalar s = scalar_of(ins.s0, ins.s0_kind);
      const Operand x = in[0];
      const Operand y = ins.b >= 0 ? Operand(in[1]) : Operand(s);
      const Operand& l = ins.flag && ins.b < 0 ? y : x;
      const Operand& r = ins.flag && ins.b < 0 ? x : y;
      if (op == "add_alpha") return {add(l, r, scalar_of(ins.s1, ins.s1_kind))};
      return {binary(family(OpFamily::binary)[ins.op], l, r)};
    }
    case Kind::where: {
      const Tensor cond = ins.flag ? in[0] : ne(in[0], 0);
      if (ins.c >= 0) return {where(cond, in[1], in[2])};
      return {where(cond, in[1], scalar_of(ins.s0, ins.s0_kind))};
    }
    case Kind::clamp: {
      std::optional<Scalar> lo, hi;
      if (ins.s0_kind != 3) lo = scalar_of(ins.s0, ins.s0_kind);
      if (ins.s1_kind != 3) hi = scalar_of(ins.s1, ins.s1_kind);
      return {clamp(in[0], lo, hi)};
    }
    case Kind::reduce: {
      const Tensor& x = in[0];
      const Dims& d = ins.dims;
      const bool k = ins.flag;
      const int64_t d0 = d.empty() ? ins.p[0] : d[0];
      const auto dt = opt_dtype(ins);
      if (op == "sum") return {sum(x, d, k, dt)};
      if (op == "mean") return {mean(x, d, k, dt)};
      if (op == "prod") return {prod(x, d, k, dt)};
      if (op == "amax") return {amax(x, d, k)};
      if (op == "amin") return {amin(x, d, k)};
      if (op == "max") return {max(x)};
      if (op == "min") return {min(x)};
      if (op == "max_dim" || op == "min_dim") {
        auto r = op == "max_dim" ? max(x, d0, k) : min(x, d0, k);
        return {r.values, r.indices};
      }
      if (op == "argmax") return {argmax(x, d.empty() ? std::nullopt : std::optional<int64_t>(d0), k)};
      if (op == "argmin") return {argmin(x, d.empty() ? std::nullopt : std::optional<int64_t>(d0), k)};
      if (op == "var") return {var(x, d, ins.p[1], k)};
      if (op == "std") return {concord::std(x, d, ins.p[1], k)};
      if (op == "norm") {
        const double ps[] = {1.0, 2.0, kInf, 3.0, 0.0};
        return {norm(x, ps[(ins.p[2] + 4) % 5], d, k)};
      }
      if (op == "all") return {all(x, d, k)};
      if (op == "any") return {any(x, d, k)};
      if (op == "logsumexp") return {logsumexp(x, d, k)};
      if (op == "softmax") return {softmax(x, d0, dt)};
      if (op == "log_softmax") return {log_softmax(x, d0, dt)};
      return {cumsum(x, d0, dt)};
    }
    case Kind::linear: {
      static Tensor (*const fns[])(const Tensor&, const Tensor&) = {matmul, mm, bmm, mv, dot, outer};
      const auto [a, b] = linear_operands(ins, in);
      return {fns[ins.op](a, b)};
    }
    case Kind::shape: {
      const Tensor& x = in[0];
      const int64_t d0 = ins.dims.empty() ? ins.p[0] : ins.dims[0];
      if (op == "cat") return {cat({x, in[1]}, d0)};
      if (op == "stack") return {stack({x, in[1]}, d0)};
      if (op == "flip") return {flip(x, ins.dims)};
      if (op == "tril") return {tril(x, ins.p[1])};
      if (op == "triu") return {triu(x, ins.p[1])};
      if (op == "index_select") {
        Tensor idx = from_vector(ins.index, Shape{static_cast<int64_t>(ins.index.size())}, device);
        if (ins.flag) idx = idx.to(int32);
        return {index_select(x, d0, idx)};
      }
      if (op == "gather") {
        // Index shaped like x (clipped to ins.shape), values tiled from ins.index.
        Shape s = x.shape();
        for (size_t i = 0; i < s.size() && i < ins.shape.size(); ++i) s[i] = std::min(s[i], ins.shape[i]);
        int64_t n = 1;
        for (int64_t v : s) n *= v;
        std::vector<int64_t> v(static_cast<size_t>(n));
        for (size_t i = 0; i < v.size(); ++i) v[i] = ins.index[i % ins.index.size()] % 8;
        return {gather(x, d0, from_vector(v, s, device))};
      }
      auto parts = op == "split" ? split(x, ins.p[1], d0) : chunk(x, ins.p[1], d0);
      if (parts.empty()) return {};
      return {parts[static_cast<size_t>(ins.p[2] + 4) % parts.size()]};
    }
  }
  return {};
}

std::string Program::str() const {
  std::ostringstream os;
  for (const Instr& ins : code) {
    os << "  r" << ins.out << " = " << op_label(ins) << "(";
    if (ins.kind == Kind::make) {
      os << shape_str(ins.shape) << ", " << name(ins.dtype) << ", values {";
      for (size_t k = 0; k < ins.values.size(); ++k) os << (k ? "," : "") << ins.values[k];
      os << "} tiled";
    } else {
      for (int r : inputs_of(ins)) os << "r" << r << ", ";
      if (ins.b < 0 && (ins.kind == Kind::binary || ins.kind == Kind::where || ins.kind == Kind::clamp))
        os << "s0=" << (ins.s0_kind == 3 ? "none" : scalar_str(ins.s0, ins.s0_kind)) << ", ";
      if (ins.kind == Kind::binary || ins.kind == Kind::clamp)
        os << "s1=" << (ins.s1_kind == 3 ? "none" : scalar_str(ins.s1, ins.s1_kind)) << ", ";
      os << "p={" << ins.p[0] << "," << ins.p[1] << "," << ins.p[2] << "," << ins.p[3] << "," << ins.p[4] << "}";
      os << ", dims=" << dims_str(ins.dims) << ", flag=" << ins.flag;
      if (ins.kind == Kind::unary || ins.has_dtype) os << ", dtype=" << name(ins.dtype);
      if (ins.kind == Kind::view || ins.kind == Kind::copy_into || ins.kind == Kind::shape)
        os << ", shape=" << shape_str(ins.shape);
      if (ins.kind == Kind::shape) {
        os << ", index={";
        for (size_t k = 0; k < ins.index.size(); ++k) os << (k ? "," : "") << ins.index[k];
        os << "}";
      }
    }
    os << ")\n";
  }
  return os.str();
}

}  // namespace concord::fuzz
