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
#include <cstring>
#include <limits>
#include <mutex>
#include <type_traits>
#include <vector>

#include "backend/cpu/convert.h"
#include "backend/opencl/opencl_backend.h"

namespace concord::detail::ocl {

namespace {

const char* suffix(Dtype t) {
  switch (t) {
    case Dtype::bool_: return "b";
    case Dtype::uint8: return "u8";
    case Dtype::int8: return "i8";
    case Dtype::int16: return "i16";
    case Dtype::int32: return "i32";
    case Dtype::int64: return "i64";
    case Dtype::float16: return "f16";
    case Dtype::bfloat16: return "bf16";
    case Dtype::float32: return "f32";
    default: return "f64";
  }
}

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
cl_kernel ew_kernel(OpenClBackend& be, const std::string& name) {
  return be.kernel("elementwise.cl", name.c_str(), op_defines());
}

// Kernel launches with Geom arguments (Context::launch takes scalars and
// buffers only). Each kernel object here is used by this file alone, so one
// lock keeps every argument-set + enqueue pair atomic.
std::mutex g_launch_mu;

template <class T>
void set_arg(Context& c, cl_kernel k, cl_uint i, const T& v) {
  static_assert(std::is_trivially_copyable_v<T> && !std::is_same_v<T, bool>);
  cl_int err = clSetKernelArg(k, i, sizeof(T), &v);
  if (err != CL_SUCCESS) check(err, ("clSetKernelArg(argument " + std::to_string(i) + ")").c_str(), &c);
}

// One work-item per element over a 1-D range rounded up to a whole number of
// groups (kernels test i < n), so the driver can always pick a good group size.
constexpr size_t kRound = 256;

template <class... Args>
void run(OpenClBackend& be, cl_kernel k, int64_t n, const Args&... args) {  // n: work-items
  if (n <= 0) return;
  Context& c = be.ctx();
  const size_t global = (static_cast<size_t>(n) + kRound - 1) / kRound * kRound;
  std::lock_guard lock(g_launch_mu);
  cl_uint i = 0;
  (set_arg(c, k, i++, args), ...);
  cl_int err = clEnqueueNDRangeKernel(c.queue(), k, 1, nullptr, &global, nullptr, 0, nullptr, nullptr);
  if (err != CL_SUCCESS) {
    char name[128] = {0};
    clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof name - 1, name, nullptr);
    check(err, ("clEnqueueNDRangeKernel('" + std::string(name) + "', " + std::to_string(global) + " items)").c_str(), &c);
  }
}

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

// A value in dtype T's storage bits, widened to 8 bytes (little end first).
template <class T>
uint64_t bits_of(T v) {
  uint64_t u = 0;
  std::memcpy(&u, &v, sizeof(T));
  return u;
}

uint64_t scalar_bits(Dtype t, const Scalar& v) {
  return visit_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    if (v.is_floating()) return bits_of(cpu::convert<T>(v.to_double()));
    if (v.is_bool()) return bits_of(cpu::convert<T>(v.to_bool()));
    return bits_of(cpu::convert<T>(v.to_int()));
  });
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
    run(*this, copy_kernel(*this, sized("bits", dst.dtype())), n, gd, gs, buffer(dst), buffer(src), n);
    return;
  }
  const std::string pair = std::string(suffix(dst.dtype())) + "_" + suffix(src.dtype());
  if (gd.contiguous && gs.contiguous) {
    run(*this, copy_kernel(*this, "copyc_" + pair), n, buffer(dst), static_cast<int64_t>(dst.offset()), buffer(src),
        static_cast<int64_t>(src.offset()), n);
    return;
  }
  run(*this, copy_kernel(*this, "copy_" + pair), n, gd, gs, buffer(dst), buffer(src), n);
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
    case 1: return run(*this, k, n, gd, buffer(dst), static_cast<uint8_t>(bits), n);
    case 2: return run(*this, k, n, gd, buffer(dst), static_cast<uint16_t>(bits), n);
    case 4: return run(*this, k, n, gd, buffer(dst), static_cast<uint32_t>(bits), n);
    default: return run(*this, k, n, gd, buffer(dst), bits, n);
  }
}

void OpenClBackend::iota(const Tensor& dst, double start, double step) {
  const int64_t n = dst.numel();
  if (n == 0) return;
  // The value is computed in double and rounded once. Without float64 on the
  // device (or under a no-fp64 profile) the host computes it, with the same
  // conversion, and uploads it.
  if (ctx_.info().fp64 && concord::capabilities(device()).can_store(float64)) {
    run(*this, copy_kernel(*this, std::string("iota_") + suffix(dst.dtype())), n, buffer(dst),
        static_cast<int64_t>(dst.offset()), start, step, n);
    return;
  }
  visit_dtype(dst.dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::vector<char> host(static_cast<size_t>(n) * sizeof(T));
    for (int64_t i = 0; i < n; ++i) {
      const T v = cpu::convert<T>(start + static_cast<double>(i) * step);
      std::memcpy(host.data() + static_cast<size_t>(i) * sizeof(T), &v, sizeof(T));
    }
    ctx_.write(buffer(dst), static_cast<size_t>(dst.offset()) * sizeof(T), host.size(), host.data());
  });
}

void OpenClBackend::unary(OpId op, const Tensor& x, const Tensor& out) {
  const int64_t n = out.numel();
  if (n == 0) return;
  const std::string family = is_predicate(op) ? "upred" : "unary";
  const std::string sfx = std::string("_") + suffix(x.dtype());
  const cl_int code = static_cast<cl_int>(op);
  const Geom gx = geom_as(x, out.shape()), go = geom(out);
  if (gx.contiguous && go.contiguous) {
    run(*this, ew_kernel(*this, family + "c" + sfx), flat_items(family, x.dtype(), n), code, buffer(x), static_cast<int64_t>(x.offset()),
        buffer(out), static_cast<int64_t>(out.offset()), n);
    return;
  }
  run(*this, ew_kernel(*this, family + sfx), n, code, gx, go, buffer(x), buffer(out), n);
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
  if (go.contiguous && flat(ga) && flat(gb)) {
    const int64_t sa = ga.ndim == 0 ? 0 : 1, sb = gb.ndim == 0 ? 0 : 1;
    run(*this, ew_kernel(*this, family + "c" + sfx), flat_items(family, a.dtype(), n), code, buffer(a), static_cast<int64_t>(a.offset()), sa,
        buffer(b), static_cast<int64_t>(b.offset()), sb, buffer(out), static_cast<int64_t>(out.offset()), n);
    return;
  }
  run(*this, ew_kernel(*this, family + sfx), n, code, ga, gb, go, buffer(a), buffer(b), buffer(out), n);
}

void OpenClBackend::where(const Tensor& c, const Tensor& a, const Tensor& b, const Tensor& out) {
  const int64_t n = out.numel();
  if (n == 0) return;
  const Shape& s = out.shape();
  run(*this, copy_kernel(*this, sized("where", out.dtype())), n, geom_as(c, s), geom_as(a, s), geom_as(b, s),
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
      run(*this, ew_kernel(*this, std::string("clamp_") + suffix(x.dtype())), n, gx, go, buffer(x), buffer(out), lo,
          hi, n);
    }
  });
}

}  // namespace concord::detail::ocl
