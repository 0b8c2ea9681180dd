// Vulkan unary, binary, where and clamp (shaders/elementwise.comp,
// elementwise_where.comp; the op functions per compute class in
// shaders/elementwise_{float,int,bool}.glsl and math.glsl).
//
// One shader variant per dtype and kind ("ew_unary_f32", "ew_bpred_i64"),
// the op passed as its OpId (the shaders get the same numbers from the op
// table at build time). Every operand is addressed through its Geom, so
// broadcast (stride 0), transposed and offset views need no copies.
// Semantics are the CPU kernels' (src/backend/cpu/unary.cpp, binary.cpp,
// ternary.cpp): halves compute in float32 and round once; integers wrap.
// In the reproducible mode float32, the halves and float64 take the "_x"
// variants (shaders/elementwise_xf.glsl, one source for both widths) for the
// ops they compute on bits.
#include <algorithm>
#include <bit>
#include <limits>
#include <type_traits>

#include "backend/cpu/convert.h"
#include "backend/shared_ops.h"
#include "backend/vulkan/vulkan_backend.h"
#include "concord/op_table.h"
#include "concord/policy.h"
#include "core/nan_rule.h"

namespace concord::detail::vk {

namespace {

// Mirrors Args in shaders/elementwise.comp.
struct EwArgs {
  uint64_t dst, a, b;
  int64_t n;
  int32_t op, pad;
  uint64_t lo, hi;
  Geom go, ga, gb;
};
// Mirrors Args in shaders/elementwise_where.comp.
struct WhereArgs {
  uint64_t dst, cond, a, b;
  int64_t n, pad;
  Geom go, gc, ga, gb;
};

bool is_predicate(OpId op) { return op_def(op).result == ResultRule::boolean; }

// The ops whose results are exact or correctly rounded in every dtype (the
// shaders' own division, sqrt and fmod; the rest is exact arithmetic).
constexpr OpId kExactUnary[] = {OpId::neg,   OpId::abs,   OpId::sign,       OpId::relu,   OpId::floor,
                                OpId::ceil,  OpId::round, OpId::trunc,      OpId::sqrt,   OpId::rsqrt,
                                OpId::reciprocal, OpId::isnan, OpId::isinf, OpId::isfinite, OpId::logical_not};
constexpr OpId kExactBinary[] = {OpId::add, OpId::sub, OpId::mul, OpId::div, OpId::maximum, OpId::minimum,
                                 OpId::remainder, OpId::floor_divide, OpId::eq, OpId::ne, OpId::lt, OpId::le,
                                 OpId::gt, OpId::ge, OpId::logical_and, OpId::logical_or, OpId::logical_xor};
// Math functions: float32 and the halves computed in it (shaders/math.glsl,
// math_special.glsl), float64 where the device has it (math64*.glsl; GLSL
// has no double exp, log or sin).
constexpr OpId kMath[] = {OpId::exp, OpId::expm1, OpId::log,     OpId::log1p, OpId::log2, OpId::sin,   OpId::cos,
                          OpId::tan, OpId::tanh,  OpId::sigmoid, OpId::gelu,  OpId::erf,  OpId::atan2, OpId::pow};

// The ops whose "_x" variants (float bits, integer operations only) give
// the CPU's bits for float32, the halves and float64 whatever the device's
// float controls do with subnormals (log, tanh, sigmoid, expm1, log1p, log2:
// float64 on bits inside, common/xmath32.glsl; erf, gelu: xmath32_erf.glsl;
// sin, cos, tan: xmath32_trig.glsl; pow, atan2 and pow(x, number):
// xmath32_pow.glsl);
// float64's exp, log, tanh, sigmoid, expm1, log1p, log2, erf, gelu, sin,
// cos, tan, pow, atan2 and pow(x, number): the CPU's canon_f64*.h,
// canon_trig_f64.h and canon_pow_f64.h on bits, common/xmath64*.glsl).
constexpr OpId kXOps[] = {OpId::neg,   OpId::abs,     OpId::sign,     OpId::relu,      OpId::floor,
                          OpId::ceil,  OpId::round,   OpId::trunc,    OpId::sqrt,      OpId::rsqrt,
                          OpId::reciprocal, OpId::exp, OpId::log,     OpId::tanh,      OpId::sigmoid,
                          OpId::expm1, OpId::log1p,   OpId::log2,     OpId::isnan,     OpId::isinf,
                          OpId::isfinite, OpId::logical_not, OpId::add, OpId::sub,     OpId::mul,
                          OpId::div,   OpId::maximum, OpId::minimum,  OpId::remainder, OpId::floor_divide,
                          OpId::eq,    OpId::ne,      OpId::lt,       OpId::le,        OpId::gt,
                          OpId::ge,    OpId::logical_and, OpId::logical_or, OpId::logical_xor, OpId::clamp,
                          OpId::erf,   OpId::gelu,    OpId::sin,      OpId::cos,       OpId::tan,
                          OpId::pow,   OpId::atan2};
const DtypeSet kXDtypes{float32, float16, bfloat16, float64};

// The float64-inside ones (xmath32.glsl) have their own variants,
// "ew_xmath_<dtype>_x": the other unary ops keep a small shader. float64's
// "ew_xmath_f64_x" (xmath64*.glsl) has exp too (float32's exp is small,
// elementwise_xf.glsl's base variant).
constexpr OpId kXMath[] = {OpId::log, OpId::tanh, OpId::sigmoid, OpId::expm1, OpId::log1p, OpId::log2};
bool is_xmath(OpId op, Dtype d) {
  return (op == OpId::exp && d == float64) ||
         std::find(std::begin(kXMath), std::end(kXMath), op) != std::end(kXMath);
}
// erf and gelu (a series, a continued fraction): "ew_xerf_<dtype>_x" (float64's
// too, xmath64_erf.glsl), apart so that neither large shader slows the
// other's pipeline creation.
bool is_xerf(OpId op) { return op == OpId::erf || op == OpId::gelu; }
// sin, cos, tan (an integer reduction, two polynomials): "ew_xtrig_<dtype>_x",
// float64's included.
bool is_xtrig(OpId op) { return op == OpId::sin || op == OpId::cos || op == OpId::tan; }
// pow and atan2 (double-double log2 / log, exp2 / exp, an atan table):
// "ew_xpow_<dtype>_x", and pow(x, number) "ew_xpows_<dtype>_x" (the number's
// double bits), float64's included (xmath64_pow.glsl).
bool is_xpow(OpId op) { return op == OpId::pow || op == OpId::atan2; }

// The dtypes whose "_x" variant computes `op` as the CPU does: float64 for
// every op of kXOps (each float64 one is the CPU's canon_*f64*.h on bits),
// and the shared ops (common/canon_ops.inc through xops.glsl).
DtypeSet x_dtypes(OpId op) {
  if (!is_shared_op(op) && std::find(std::begin(kXOps), std::end(kXOps), op) == std::end(kXOps)) return DtypeSet{};
  return kXDtypes;
}

// The one decision: in the mode, an op on a dtype of x_dtypes(op) runs its
// "_x" variant.
// Outside the mode too, float32 and half atan2 run the "_x" variant: the
// CPU's own algorithm in both modes (canon_pow.h, correctly rounded in
// practice), where the shaders' float atan2 (math_special.glsl) reached 2.2
// ULP through its rounded quotient and (t - 1)/(t + 1) step.
// The shared ops run on bits in both modes too: their one body is the CPU's.
bool on_bits(OpId op, Dtype d) {
  if (is_shared_op(op) || (op == OpId::atan2 && d != float64)) return x_dtypes(op).has(d);
  return reproducible() && x_dtypes(op).has(d);
}

// "ew_<kind>_<dtype>[_x]".
std::string variant(const char* kind, Dtype d, bool x) {
  return std::string("ew_") + kind + "_" + suffix(d) + (x ? "_x" : "");
}

// An "_x" variant returns the canonical NaN for every NaN (xf32.glsl,
// xf64.glsl): its floating output needs no separate NaN pass
// (core/nan_rule.h).
void fused_if(bool x, const Tensor& out) {
  if (x && is_floating(out.dtype())) nan_rule_fused(out);
}

// The bound of clamp as the compute type's bits, as the CPU converts it:
// integer bounds saturate to T's range, floating bounds convert like a cast.
template <class T>
uint64_t bound_bits(const Scalar& s) {
  if constexpr (std::is_integral_v<T>) {
    int64_t v;
    if (s.is_floating()) {
      v = static_cast<int64_t>(cpu::convert<T>(s.to_double()));
    } else {
      v = s.to_int();
      if constexpr (!std::is_same_v<T, int64_t>) {
        constexpr int64_t lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
        v = v < lo ? lo : v > hi ? hi : v;
      }
    }
    return static_cast<uint64_t>(v);
  } else {
    const T t = s.is_floating() ? cpu::convert<T>(s.to_double()) : cpu::convert<T>(s.to_int());
    if constexpr (std::is_same_v<T, double>) return std::bit_cast<uint64_t>(t);
    else return std::bit_cast<uint32_t>(static_cast<float>(t));
  }
}

// An absent bound never wins: -inf/+inf, or the type's limits.
template <class T>
uint64_t open_bound(bool upper) {
  using V = cpu::compute_t<T>;
  if constexpr (std::is_integral_v<V>) {
    return static_cast<uint64_t>(static_cast<int64_t>(upper ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min()));
  } else {
    const V v = upper ? std::numeric_limits<V>::infinity() : -std::numeric_limits<V>::infinity();
    if constexpr (std::is_same_v<V, double>) return std::bit_cast<uint64_t>(v);
    else return std::bit_cast<uint32_t>(v);
  }
}

}  // namespace

void claims_elementwise(Claims& c) {
  const DtypeSet all = c.caps.storable;
  const DtypeSet f32ish{float32, float16, bfloat16};
  for (OpId op : kExactUnary) c.claim(op, all);
  for (OpId op : kExactBinary) c.claim(op, all);
  c.claim(OpId::pow, all - kFloatingDtypes);  // integer powers by squaring; floats: kMath
  for (OpId op : kMath) c.claim(op, f32ish);
  if (c.info.fp64)
    for (OpId op : kMath) c.claim(op, DtypeSet{float64});
  for (OpId op : kSharedOps) c.claim(op, all & kXDtypes);
  c.claim(OpId::where, all);
  c.claim(OpId::clamp, all);
  for (Dtype d : kAllDtypes) {
    if (!all.has(d)) continue;
    for (const char* kind : {"unary", "upred", "binary", "bpred", "clamp"})
      if (!(d == bool_ && std::string(kind) == "clamp")) c.need(std::string("ew_") + kind + "_" + suffix(d));
    if (is_floating(d)) c.need(std::string("ew_pows_") + suffix(d));
    if (kXDtypes.has(d))
      for (const char* kind : {"unary", "upred", "binary", "bpred", "clamp"}) c.need(variant(kind, d, true));
    if (kXDtypes.has(d))
      for (const char* kind : {"xmath", "xerf", "xtrig", "xpow", "xpows", "xops"}) c.need(variant(kind, d, true));
  }
  for (int n : {1, 2, 4, 8}) c.need("ew_where_" + std::to_string(n));
}

// Every claimed unary and binary op must have its `case OP_<name>:` in the
// op file its dtype's variant includes (elementwise.comp: an op without one
// writes NaN or 0), natively and on bits in the mode. Checked when a device
// registers, against the cases vulkan.cmake read from the shader sources.
void check_elementwise_cases(const Capabilities& c) {
  const auto& cases = embedded_op_cases();
  auto need = [&](OpId op, Dtype d, const char* file) {
    const auto it = cases.find(file);
    if (it == cases.end() || !it->second.count(std::string(op_name(op))))
      throw DeviceError("[vulkan] " + std::string(op_name(op)) + " is claimed for " + to_string(d) +
                        " but shaders/" + file + " has no case for it (OP_" + std::string(op_name(op)) +
                        "); add its case or stop claiming it");
  };
  for (int i = 0; i < kNumOps; ++i) {
    const OpId op = static_cast<OpId>(i);
    const OpFamily f = op_def(op).family;
    if (f != OpFamily::unary && f != OpFamily::binary) continue;
    for (Dtype d : kAllDtypes) {
      if (is_shared_op(op)) {  // on bits in both modes, from canon_ops.inc's list
        if (c.native[i].has(d) || c.reproducible[i].has(d)) need(op, d, "canon_ops.inc");
        continue;
      }
      if (c.native[i].has(d))
        need(op, d, d == bool_ ? "elementwise_bool.glsl" : is_floating(d) ? "elementwise_float.glsl"
                                                                           : "elementwise_int.glsl");
      if (c.reproducible[i].has(d) && x_dtypes(op).has(d))
        need(op, d, "elementwise_xf.glsl");  // both widths: one source
    }
  }
}

// The mode's claim for kXOps: any device, whatever its float controls (the
// rule in core/registry.cpp refuses floating dtypes without kept subnormals).
void claim_reproducible_elementwise(Capabilities& c) {
  auto claim = [&](OpId op) {
    const int i = static_cast<int>(op);
    c.reproducible[i] = c.reproducible[i] | (c.native[i] & x_dtypes(op));
  };
  for (OpId op : kXOps) claim(op);
  for (OpId op : kSharedOps) claim(op);
}

void VulkanBackend::unary(OpId op, const Tensor& x, const Tensor& out) {
  const int64_t n = out.numel();
  if (n == 0) return;
  const Geom go = geom(out);
  const bool xb = on_bits(op, x.dtype());
  const char* kind = is_predicate(op)        ? "upred"
                     : xb && is_xmath(op, x.dtype()) ? "xmath"
                     : xb && is_xerf(op)  ? "xerf"
                     : xb && is_xtrig(op) ? "xtrig"
                                          : "unary";
  launch(variant(kind, x.dtype(), xb), static_cast<uint64_t>(n),
         EwArgs{address(out), address(x), address(x), n, static_cast<int32_t>(op), 0, 0, 0, go,
                geom_as(x, out.shape()), go});
  fused_if(xb, out);
}

void VulkanBackend::binary(OpId op, const Tensor& a, const Tensor& b, const Tensor& out) {
  const int64_t n = out.numel();
  if (n == 0) return;
  const Shape& s = out.shape();
  const bool xb = on_bits(op, a.dtype());
  const char* kind = is_predicate(op)          ? "bpred"
                     : xb && is_xpow(op)       ? "xpow"
                     : xb && is_shared_op(op)  ? "xops"
                                               : "binary";
  launch(variant(kind, a.dtype(), xb), static_cast<uint64_t>(n),
         EwArgs{address(out), address(a), address(b), n, static_cast<int32_t>(op), 0, 0, 0, geom(out), geom_as(a, s),
                geom_as(b, s)});
  fused_if(xb, out);
}

// pow(x, number): float32 and the halves always take the split scheme (the
// shaders' float32 math has no float64 variant), whatever e.wide says; in
// the mode, the CPU's concord_pow_f32(x, e.value) / concord_pow_f64 on bits
// (the "_x" variant gets the double's bits in lo, as the CPU and OpenCL pass
// e.value).
void VulkanBackend::pow_scalar(const Tensor& x, const ScalarExponent& e, const Tensor& out) {
  const int64_t n = out.numel();
  if (n == 0) return;
  if (on_bits(OpId::pow, x.dtype())) {
    const Geom go = geom(out);
    launch(variant("xpows", x.dtype(), true), static_cast<uint64_t>(n),
           EwArgs{address(out), address(x), address(x), n, 0, 0, std::bit_cast<uint64_t>(e.value), 0, go,
                  geom_as(x, out.shape()), go});
    fused_if(true, out);
    return;
  }
  const uint64_t pair = std::bit_cast<uint32_t>(e.hi) | (uint64_t{std::bit_cast<uint32_t>(e.lo)} << 32);
  const int32_t flags = (e.odd ? 1 : 0) | (e.integer ? 2 : 0);
  const Geom go = geom(out);
  launch(std::string("ew_pows_") + suffix(x.dtype()), static_cast<uint64_t>(n),
         EwArgs{address(out), address(x), address(x), n, flags, 0, std::bit_cast<uint64_t>(e.value), pair, go,
                geom_as(x, out.shape()), go});
}

void VulkanBackend::where(const Tensor& cond, const Tensor& a, const Tensor& b, const Tensor& out) {
  const int64_t n = out.numel();
  if (n == 0) return;
  const Shape& s = out.shape();
  launch("ew_where_" + std::to_string(itemsize(out.dtype())), static_cast<uint64_t>(n),
         WhereArgs{address(out), address(cond), address(a), address(b), n, 0, geom(out), geom_as(cond, s),
                   geom_as(a, s), geom_as(b, s)});
}

void VulkanBackend::clamp(const Tensor& x, std::optional<Scalar> lo, std::optional<Scalar> hi, const Tensor& out) {
  const int64_t n = out.numel();
  if (n == 0) return;
  visit_dtype(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      throw NotImplementedError("[clamp] the vulkan kernel has no bool variant (input bool" + shape_str(x.shape()) +
                                " on " + device().str() + "); clamp is not defined for bool: convert to an integer dtype first");
    } else {
      const uint64_t l = lo ? bound_bits<T>(*lo) : open_bound<T>(false);
      const uint64_t h = hi ? bound_bits<T>(*hi) : open_bound<T>(true);
      const Geom go = geom(out);
      const bool xb = on_bits(OpId::clamp, x.dtype());
      launch(variant("clamp", x.dtype(), xb), static_cast<uint64_t>(n),
             EwArgs{address(out), address(x), address(x), n, 0, 0, l, h, go, geom_as(x, out.shape()), go});
      fused_if(xb, out);
    }
  });
}

}  // namespace concord::detail::vk
