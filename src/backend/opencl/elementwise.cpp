// OpenCL copy, fill, iota, unary, binary, where and clamp.
//
// Two programs serve them all: copy.cl (data movement: 100 conversion
// kernels, raw-bit copies, where, fill, iota) and elementwise.cl (unary,
// binary, clamp: the op is a kernel argument, so one program covers every op;
// it is built with -DOP_<name>=<OpId> generated from ops_list.h, which keeps
// the kernel's op numbers in step with the C++ ones). Fully contiguous
// operands take kernels without geometry (one flat index; eight elements per
// work-item for float16/bfloat16, whose conversions only vectorise that way),
// everything else the strided ones (a Geom per operand). Numerics follow the
// CPU kernels; float32 math functions run in float64 when the program has it.
#include <bit>
#include <limits>
#include <string>

#include "backend/cpu/convert.h"
#include "backend/opencl/opencl_backend.h"
#include "core/nan_rule.h"

namespace concord::detail::ocl {

namespace {


const std::string& op_defines() {
  static const std::string s = [] {
    std::string d;
    for (int i = 0; i < kNumOps; ++i) {
      const OpId op = static_cast<OpId>(i);
      const auto fam = op_family(op);
      if (fam == "unary" || fam == "binary" || fam == "ternary")
        d += " -DOP_" + std::string(op_name(op)) + "=" + std::to_string(i);
    }
    return d;
  }();
  return s;
}

cl_kernel copy_kernel(OpenClBackend& be, const std::string& name) { return be.kernel("copy.cl", name.c_str()); }
// canon: the program variant with the reproducible mode's NaN rule in its
// floating stores (common.cl, CONCORD_NAN_RULE; core/nan_rule.h).
cl_kernel ew_kernel(OpenClBackend& be, const std::string& name, bool canon = false) {
  static const std::string canon_defines = op_defines() + " -DCONCORD_NAN_RULE=1";
  return be.kernel("elementwise.cl", name.c_str(), canon ? canon_defines : op_defines());
}

// Floating results in the reproducible mode take the NaN-rule variant.
bool canon_stores(const Tensor& out) { return is_floating(out.dtype()) && nan_rule_in_stores(); }

bool is_predicate(OpId op) {
  switch (op) {
    case OpId::isnan: case OpId::isinf: case OpId::isfinite: case OpId::logical_not:
    case OpId::eq: case OpId::ne: case OpId::lt: case OpId::le: case OpId::gt: case OpId::ge:
    case OpId::logical_and: case OpId::logical_or: case OpId::logical_xor:
      return true;
    default:
      return false;
  }
}

// Work-items of a flat unary/binary kernel: the halves' take 8 elements each.
int64_t flat_items(const std::string& family, Dtype t, int64_t n) {
  return is_half(t) && (family == "unary" || family == "binary") ? (n + 7) / 8 : n;
}

// Fill/where/bit-copy kernels work on items of 1, 2, 4 or 8 bytes.
std::string sized(const char* family, Dtype t) { return std::string(family) + "_" + std::to_string(itemsize(t)); }

bool same_buffer_overlap(const Tensor& a, const Tensor& b) {
  if (buffer(a) != buffer(b)) return false;
  const int64_t isz = static_cast<int64_t>(itemsize(a.dtype()));
  const int64_t a0 = a.offset() * isz, a1 = a0 + static_cast<int64_t>(a.nbytes());
  const int64_t b0 = b.offset() * isz, b1 = b0 + static_cast<int64_t>(b.nbytes());
  return a0 < b1 && b0 < a1;
}

}  // namespace

void OpenClBackend::copy(const Tensor& src, const Tensor& dst) {
  const int64_t n = dst.numel();
  if (n == 0) return;
  const Geom gd = geom(dst), gs = geom_as(src, dst.shape());
  if (src.dtype() == dst.dtype()) {
    const size_t isz = itemsize(dst.dtype());
    if (gd.contiguous && gs.contiguous && !same_buffer_overlap(src, dst)) {
      ctx_.copy(buffer(src), static_cast<size_t>(src.offset()) * isz, buffer(dst),
                static_cast<size_t>(dst.offset()) * isz, static_cast<size_t>(n) * isz);
      return;
    }
    run(copy_kernel(*this, sized("bits", dst.dtype())), n, 0, gd, gs, buffer(dst), buffer(src), n);
    return;
  }
  const std::string pair = std::string(suffix(dst.dtype())) + "_" + suffix(src.dtype());
  if (gd.contiguous && gs.contiguous) {
    run(copy_kernel(*this, "copyc_" + pair), n, 0, buffer(dst), static_cast<int64_t>(dst.offset()), buffer(src),
        static_cast<int64_t>(src.offset()), n);
    return;
  }
  run(copy_kernel(*this, "copy_" + pair), n, 0, gd, gs, buffer(dst), buffer(src), n);
}

void OpenClBackend::fill(const Tensor& dst, Scalar v) {
  const int64_t n = dst.numel();
  if (n == 0) return;
  const uint64_t bits = scalar_bits(dst.dtype(), v);
  const size_t isz = itemsize(dst.dtype());
  const Geom gd = geom(dst);
  if (gd.contiguous) {
    cl_int err = clEnqueueFillBuffer(ctx_.queue(), buffer(dst), &bits, isz, static_cast<size_t>(dst.offset()) * isz,
                                     static_cast<size_t>(n) * isz, 0, nullptr, nullptr);
    check(err, "clEnqueueFillBuffer", &ctx_);
    return;
  }
  cl_kernel k = copy_kernel(*this, sized("fill", dst.dtype()));
  switch (isz) {
    case 1: return run(k, n, 0, gd, buffer(dst), static_cast<uint8_t>(bits), n);
    case 2: return run(k, n, 0, gd, buffer(dst), static_cast<uint16_t>(bits), n);
    case 4: return run(k, n, 0, gd, buffer(dst), static_cast<uint32_t>(bits), n);
    default: return run(k, n, 0, gd, buffer(dst), bits, n);
  }
}

// The reproducible mode's NaN rule (core/backend.h): integer compares on
// the bits, since a driver may rewrite NaNs that pass through float arithmetic.
void OpenClBackend::canonicalize_nan(const Tensor& t) {
  const int64_t n = t.numel();
  if (n == 0 || !is_floating(t.dtype())) return;
  const Geom g = geom(t);
  cl_kernel k = copy_kernel(*this, sized("canon", t.dtype()));
  switch (t.dtype()) {
    case Dtype::float16: return run(k, n, 0, g, buffer(t), uint16_t{0x7c00}, uint16_t{0x7e00}, n);
    case Dtype::bfloat16: return run(k, n, 0, g, buffer(t), uint16_t{0x7f80}, uint16_t{0x7fc0}, n);
    case Dtype::float32: return run(k, n, 0, g, buffer(t), uint32_t{0x7f800000u}, uint32_t{0x7fc00000u}, n);
    default: return run(k, n, 0, g, buffer(t), uint64_t{0x7ff0000000000000ull}, uint64_t{0x7ff8000000000000ull}, n);
  }
}

// start + i * step in double, rounded once (the CPU's values): in hardware
// double (copy.cl), or on the doubles' bits without float64 (iota_xd.cl: the
// floating dtypes, the only ones sent here; float64 needs float64 programs).
void OpenClBackend::iota(const Tensor& dst, double start, double step) {
  const int64_t n = dst.numel();
  if (n == 0) return;
  if (!fp64_programs()) {
    const Dtype t = dst.dtype();
    if (t != float32 && !is_half(t))
      throw NotImplementedError("[arange/linspace] the opencl kernel without float64 fills float32, float16 or bfloat16, got " +
                                std::string(name(t)) + " " + shape_str(dst.shape()) + " on " + device().str() +
                                "; run it on cpu");
    run(kernel("iota_xd.cl", (std::string("iota_xd_") + suffix(t)).c_str()), n, 0, buffer(dst),
        static_cast<int64_t>(dst.offset()), std::bit_cast<uint64_t>(start), std::bit_cast<uint64_t>(step), n);
    return;
  }
  run(copy_kernel(*this, std::string("iota_") + suffix(dst.dtype())), n, 0, buffer(dst),
      static_cast<int64_t>(dst.offset()), start, step, n);
}

void OpenClBackend::iota_int(const Tensor& dst, int64_t start, int64_t step) {
  const int64_t n = dst.numel();
  run(copy_kernel(*this, std::string("iota_int_") + suffix(dst.dtype())), n, 0, buffer(dst),
      static_cast<int64_t>(dst.offset()), start, step, n);
}

void OpenClBackend::unary(OpId op, const Tensor& x, const Tensor& out) {
  const int64_t n = out.numel();
  if (n == 0) return;
  const std::string family = is_predicate(op) ? "upred" : "unary";
  const std::string sfx = std::string("_") + suffix(x.dtype());
  const cl_int code = static_cast<cl_int>(op);
  const Geom gx = geom_as(x, out.shape()), go = geom(out);
  const bool canon = canon_stores(out);
  if (gx.contiguous && go.contiguous) {
    run(ew_kernel(*this, family + "c" + sfx, canon), flat_items(family, x.dtype(), n), 0, code, buffer(x), static_cast<int64_t>(x.offset()),
        buffer(out), static_cast<int64_t>(out.offset()), n);
  } else {
    run(ew_kernel(*this, family + sfx, canon), n, 0, code, gx, go, buffer(x), buffer(out), n);
  }
  if (canon) nan_rule_fused(out);
}

void OpenClBackend::binary(OpId op, const Tensor& a, const Tensor& b, const Tensor& out) {
  const int64_t n = out.numel();
  if (n == 0) return;
  const std::string family = is_predicate(op) ? "bpred" : "binary";
  const std::string sfx = std::string("_") + suffix(a.dtype());
  const cl_int code = static_cast<cl_int>(op);
  const Geom ga = geom_as(a, out.shape()), gb = geom_as(b, out.shape()), go = geom(out);
  // Flat kernel: out contiguous, each input contiguous or one broadcast value (step 0).
  auto flat = [](const Geom& g) { return g.contiguous || g.ndim == 0; };
  const bool canon = canon_stores(out);
  if (go.contiguous && flat(ga) && flat(gb)) {
    const int64_t sa = ga.ndim == 0 ? 0 : 1, sb = gb.ndim == 0 ? 0 : 1;
    run(ew_kernel(*this, family + "c" + sfx, canon), flat_items(family, a.dtype(), n), 0, code, buffer(a), static_cast<int64_t>(a.offset()), sa,
        buffer(b), static_cast<int64_t>(b.offset()), sb, buffer(out), static_cast<int64_t>(out.offset()), n);
  } else {
    run(ew_kernel(*this, family + sfx, canon), n, 0, code, ga, gb, go, buffer(a), buffer(b), buffer(out), n);
  }
  if (canon) nan_rule_fused(out);
}

// kernels/pow.cl. The front end decided float64 or the split scheme (e.wide:
// the device has float64, so this program has the pows64 kernels).
void OpenClBackend::pow_scalar(const Tensor& x, const ScalarExponent& e, const Tensor& out) {
  const int64_t n = out.numel();
  if (n == 0) return;
  const Geom gx = geom_as(x, out.shape()), go = geom(out);
  const std::string sfx = suffix(x.dtype());
  if (nan_rule_in_stores() && x.dtype() != float64 && !fp64_programs()) {
    // The mode without float64: canon_pow.h's pow on bits (xmath.cl), the
    // number passed as its double's bits.
    run(kernel("pow.cl", ("powsx_" + sfx).c_str()), n, 0, gx, go, buffer(x), buffer(out),
        std::bit_cast<cl_ulong>(e.value), n);
    return;
  }
  if (e.wide || x.dtype() == float64) {
    // The mode: canon_pow.h (canon_pow_f64.h for float64), as the CPU there.
    const char* k = nan_rule_in_stores() ? "pows64c_" : "pows64_";
    run(kernel("pow.cl", (k + sfx).c_str()), n, 0, gx, go, buffer(x), buffer(out), e.value, n);
    return;
  }
  const cl_int flags = (e.odd ? 1 : 0) | (e.integer ? 2 : 0);
  run(kernel("pow.cl", ("pows_" + sfx).c_str()), n, 0, gx, go, buffer(x), buffer(out), e.hi, e.lo, flags, n);
}

void OpenClBackend::where(const Tensor& c, const Tensor& a, const Tensor& b, const Tensor& out) {
  const int64_t n = out.numel();
  if (n == 0) return;
  const Shape& s = out.shape();
  run(copy_kernel(*this, sized("where", out.dtype())), n, 0, geom_as(c, s), geom_as(a, s), geom_as(b, s),
      geom(out), buffer(c), buffer(a), buffer(b), buffer(out), n);
}

namespace {
// The bound in the compute type of T, as the CPU kernel computes it: integer
// bounds saturate to T's range, floating bounds convert like a cast.
template <class T>
cpu::compute_t<T> bound(const Scalar& s) {
  if constexpr (std::is_integral_v<T>) {
    if (s.is_floating()) return cpu::convert<T>(s.to_double());
    const int64_t v = s.to_int();
    constexpr int64_t lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
    if constexpr (std::is_same_v<T, int64_t>) return v;
    else return static_cast<T>(v < lo ? lo : v > hi ? hi : v);
  } else {
    const T t = s.is_floating() ? cpu::convert<T>(s.to_double()) : cpu::convert<T>(s.to_int());
    return static_cast<cpu::compute_t<T>>(t);
  }
}
}  // namespace

void OpenClBackend::clamp(const Tensor& x, std::optional<Scalar> lo_s, std::optional<Scalar> hi_s, const Tensor& out) {
  const int64_t n = out.numel();
  if (n == 0) return;
  const Geom gx = geom_as(x, out.shape()), go = geom(out);
  visit_dtype(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      throw NotImplementedError("[clamp] the opencl kernel has no bool variant");  // op_dtypes excludes bool
    } else {
      using V = cpu::compute_t<T>;
      // An absent bound never wins: -inf/+inf, or the type's limits.
      V lo = std::numeric_limits<V>::has_infinity ? -std::numeric_limits<V>::infinity() : std::numeric_limits<V>::lowest();
      V hi = std::numeric_limits<V>::has_infinity ? std::numeric_limits<V>::infinity() : std::numeric_limits<V>::max();
      if (lo_s) lo = bound<T>(*lo_s);
      if (hi_s) hi = bound<T>(*hi_s);
      run(ew_kernel(*this, std::string("clamp_") + suffix(x.dtype())), n, 0, gx, go, buffer(x), buffer(out), lo,
          hi, n);
    }
  });
}

}  // namespace concord::detail::ocl
