// OpenCL matmul (out = alpha·(a @ b) + beta·out): float32/float64 through
// CLBlast (which takes alpha and beta itself), float16/bfloat16 through float32
// buffers and CLBlast (rounded once on the way back), integers with the tiled
// kernel of kernels/linear.cl. In the reproducible mode floats run
// matmul_canon there (the CPU's canonical chain, bit for bit).
#include <clblast.h>

#include <algorithm>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>

#include "backend/opencl/opencl_backend.h"
#include "concord/policy.h"

namespace concord::detail::ocl {
namespace {

// How CLBlast sees one operand [B, R, C]: row-major or transposed, with a
// leading dimension, an element offset and a batch stride (0: one matrix for all).
struct BlasView {
  bool ok = false;
  bool trans = false;
  size_t ld = 0, offset = 0, batch_stride = 0;
};

BlasView blas_view(const Tensor& t) {
  const int64_t B = t.size(0), R = t.size(1), C = t.size(2);
  int64_t sb = B == 1 ? 0 : t.stride(0), sr = t.stride(1), sc = t.stride(2);
  BlasView v;
  if (sb < 0) return v;
  // A stride of a size-1 dim is never used: give it the value that makes the layout valid.
  if (R == 1) sr = std::max<int64_t>(C, 1);
  if (C == 1) sc = 1;
  if (sc == 1 && sr >= std::max<int64_t>(C, 1)) {
    v = {true, false, static_cast<size_t>(sr), static_cast<size_t>(t.offset()), static_cast<size_t>(sb)};
    return v;
  }
  sr = t.stride(1), sc = t.stride(2);
  if (C == 1) sc = std::max<int64_t>(R, 1);
  if (R == 1) sr = 1;
  if (sr == 1 && sc >= std::max<int64_t>(R, 1))
    v = {true, true, static_cast<size_t>(sc), static_cast<size_t>(t.offset()), static_cast<size_t>(sb)};
  return v;
}

const char* status_name(clblast::StatusCode s) {
  using S = clblast::StatusCode;
  switch (s) {
    case S::kOpenCLCompilerNotAvailable: return "kOpenCLCompilerNotAvailable";
    case S::kTempBufferAllocFailure: return "kTempBufferAllocFailure";
    case S::kOpenCLOutOfResources: return "kOpenCLOutOfResources";
    case S::kOpenCLOutOfHostMemory: return "kOpenCLOutOfHostMemory";
    case S::kOpenCLBuildProgramFailure: return "kOpenCLBuildProgramFailure";
    case S::kInvalidValue: return "kInvalidValue";
    case S::kInvalidLocalThreadsTotal: return "kInvalidLocalThreadsTotal";
    case S::kNotImplemented: return "kNotImplemented";
    case S::kInvalidDimension: return "kInvalidDimension";
    case S::kInvalidLeadDimA: return "kInvalidLeadDimA";
    case S::kInvalidLeadDimB: return "kInvalidLeadDimB";
    case S::kInvalidLeadDimC: return "kInvalidLeadDimC";
    case S::kInsufficientMemoryA: return "kInsufficientMemoryA";
    case S::kInsufficientMemoryB: return "kInsufficientMemoryB";
    case S::kInsufficientMemoryC: return "kInsufficientMemoryC";
    case S::kInvalidBatchCount: return "kInvalidBatchCount";
    case S::kInvalidLocalMemUsage: return "kInvalidLocalMemUsage";
    case S::kNoHalfPrecision: return "kNoHalfPrecision";
    case S::kNoDoublePrecision: return "kNoDoublePrecision";
    case S::kDatabaseError: return "kDatabaseError";
    case S::kUnknownError: return "kUnknownError";
    case S::kUnexpectedError: return "kUnexpectedError";
    default: return "status";
  }
}

std::string mm_shapes(const Tensor& a, const Tensor& b) {
  return std::string(name(a.dtype())) + shape_str(a.shape()) + " x " + std::string(name(b.dtype())) +
         shape_str(b.shape());
}


// CLBlast's default GEMM parameters target GPUs; on a CPU OpenCL device (PoCL)
// they give ~3 GFLOP/s for sgemm 1024^2. The direct kernel with small
// work-groups (4x4 items) and 8x8 outputs per item in 8-wide vectors measured
// ~7x faster there, for float32 and float64, and it compiles faster than the
// indirect one; so CPU devices always use it. Set once per device and precision.
void tune_for_cpu(Context& c, clblast::Precision prec) {
  if (c.info().type != "cpu") return;
  static std::mutex mu;
  static std::set<std::pair<cl_device_id, int>> done;
  std::lock_guard lock(mu);
  if (!done.insert({c.id(), static_cast<int>(prec)}).second) return;
  const std::unordered_map<std::string, size_t> direct = {
      {"WGD", 32}, {"MDIMCD", 4}, {"NDIMCD", 4}, {"MDIMAD", 4}, {"NDIMBD", 4},
      {"KWID", 2}, {"VWMD", 8},   {"VWND", 8},   {"PADA", 0},   {"PADB", 0}};
  // Failure only loses speed: CLBlast keeps its defaults.
  if (clblast::OverrideParameters(c.id(), "XgemmDirect", prec, direct) == clblast::StatusCode::kSuccess)
    clblast::OverrideParameters(c.id(), "GemmRoutine", prec, {{"XGEMM_MIN_INDIRECT_SIZE", size_t{100000}}});
}

}  // namespace

void OpenClBackend::matmul(const Tensor& a, const Tensor& b, const Tensor& out, Scalar alpha, Scalar beta) {
  const int64_t B = out.size(0), M = out.size(1), N = out.size(2), K = a.size(2);
  if (B == 0 || M == 0 || N == 0) return;
  const Dtype dt = out.dtype();
  const bool use_beta = beta.to_double() != 0.0 || beta.to_int() != 0;
  if (K == 0) {  // an empty sum: beta·out
    if (!use_beta) {
      fill(out, Scalar(0));
    } else if (beta.to_double() != 1.0) {
      // Halves multiply in float32 with beta in float32 and round once, as
      // the CPU does (beta rounded to the half first would differ).
      const bool half = dt == Dtype::float16 || dt == Dtype::bfloat16;
      const Dtype ct = half ? Dtype::float32 : dt;
      Tensor s(allocate(itemsize(ct), device()), Shape{}, Strides{}, 0, ct);
      fill(s, beta);
      if (!half) {
        binary(OpId::mul, out, s.expand(out.shape()), out);
      } else {
        const Shape sh = out.shape();
        Tensor w(allocate(static_cast<size_t>(out.numel()) * itemsize(ct), device()), sh, contiguous_strides(sh), 0, ct);
        copy(out, w);  // exact widening
        binary(OpId::mul, w, s.expand(sh), w);
        copy(w, out);  // one rounding
      }
    }
    return;
  }
  // A contiguous copy of t in dtype `as` ([1, R, C] when every batch is the same matrix).
  auto materialize = [&](const Tensor& t, Dtype as) {
    Tensor src = t.size(0) > 1 && t.stride(0) == 0 ? t.narrow(0, 0, 1) : t;
    Shape s = src.shape();
    Tensor dst(allocate(static_cast<size_t>(numel(s)) * itemsize(as), device()), s, contiguous_strides(s), 0, as);
    copy(src, dst);
    return dst;
  };

  if (!is_floating(dt)) {
    const int ts = ctx_.info().max_work_group >= 256 ? 16 : 8;
    const std::string opts = std::string("-DT=") + cl_type(dt) + " -DU=" + (dt == int64 ? "ulong" : "uint") +
                             " -DTS=" + std::to_string(ts);
    cl_kernel k = kernel("linear.cl", "matmul_int", opts);
    auto up = [ts](int64_t n) { return static_cast<size_t>((n + ts - 1) / ts * ts); };
    ctx_.launch(k, {up(N), up(M), static_cast<size_t>(B)}, {size_t(ts), size_t(ts), 1}, 3,
                buffer(a), a.offset(), a.stride(0), a.stride(1), a.stride(2),
                buffer(b), b.offset(), b.stride(0), b.stride(1), b.stride(2),
                buffer(out), out.offset(), M, N, K, alpha.to_int(), use_beta ? beta.to_int() : int64_t{0});
    return;
  }

  // The reproducible mode: the canonical chain (kernels/linear.cl, matmul_canon;
  // backend/cpu/gemm_canon.h), never CLBlast, whose order is its own.
  if (reproducible()) {
    const int ts = ctx_.info().max_work_group >= 256 ? 16 : 8;
    const std::string opts = std::string("-DX=") + suffix(dt) + " -DTS=" + std::to_string(ts);
    cl_kernel k = kernel("linear.cl", "matmul_canon", opts);
    auto up = [ts](int64_t n) { return static_cast<size_t>((n + ts - 1) / ts * ts); };
    // As the CPU's gemm_canon: beta is rounded to the compute type first, and
    // one that rounds to 0 (1e-50 in float32) does not read out (0·inf is NaN).
    const bool beta_used = use_beta && (dt == float64 || static_cast<float>(beta.to_double()) != 0.0f);
    const int use = beta_used ? 1 : 0;
    auto go = [&](auto al, auto be) {
      ctx_.launch(k, {up(N), up(M), static_cast<size_t>(B)}, {size_t(ts), size_t(ts), 1}, 3,
                  buffer(a), a.offset(), a.size(0) == 1 ? int64_t{0} : a.stride(0), a.stride(1), a.stride(2),
                  buffer(b), b.offset(), b.size(0) == 1 ? int64_t{0} : b.stride(0), b.stride(1), b.stride(2),
                  buffer(out), out.offset(), M, N, K, al, be, use);
    };
    if (dt == float64) go(alpha.to_double(), beta_used ? beta.to_double() : 0.0);
    else go(static_cast<float>(alpha.to_double()), beta_used ? static_cast<float>(beta.to_double()) : 0.0f);
    return;
  }

  // Floating: CLBlast on float32/float64 buffers. CLBlast refuses half
  // precision without cl_khr_fp16, and bfloat16 has no BLAS at all, so the half
  // types are widened to float32 (exact) and the float32 result rounded once.
  const bool half = is_half(dt);
  const Dtype ct = half ? float32 : dt;
  Tensor ta = a, tb = b, tc = out;
  BlasView va = blas_view(a), vb = blas_view(b);
  if (half || !va.ok) ta = materialize(a, ct), va = blas_view(ta);
  if (half || !vb.ok) tb = materialize(b, ct), vb = blas_view(tb);
  if (half) {
    Shape s = out.shape();
    tc = Tensor(allocate(static_cast<size_t>(out.numel()) * 4, device()), s, contiguous_strides(s), 0, float32);
    if (use_beta) copy(out, tc);  // the addend, widened exactly
  }
  // A single broadcast matrix may have batch stride 0; the batched call accepts it.
  using clblast::Transpose;
  cl_command_queue q = ctx_.queue();
  auto run = [&](auto one) {
    using T = decltype(one);
    const Transpose at = va.trans ? Transpose::kYes : Transpose::kNo;
    const Transpose btr = vb.trans ? Transpose::kYes : Transpose::kNo;
    const T al = static_cast<T>(alpha.to_double()), bt = use_beta ? static_cast<T>(beta.to_double()) : T(0);
    clblast::StatusCode st;
    if (B == 1) {
      st = clblast::Gemm<T>(clblast::Layout::kRowMajor, at, btr, size_t(M), size_t(N), size_t(K), al,
                            buffer(ta), va.offset, va.ld, buffer(tb), vb.offset, vb.ld, bt, buffer(tc),
                            static_cast<size_t>(tc.offset()), size_t(N), &q, nullptr);
    } else {
      st = clblast::GemmStridedBatched<T>(
          clblast::Layout::kRowMajor, at, btr, size_t(M), size_t(N), size_t(K), al, buffer(ta), va.offset,
          va.ld, va.batch_stride, buffer(tb), vb.offset, vb.ld, vb.batch_stride, bt, buffer(tc),
          static_cast<size_t>(tc.offset()), size_t(N), size_t(M * N), size_t(B), &q, nullptr);
    }
    if (st != clblast::StatusCode::kSuccess)
      throw DeviceError("[matmul] CLBlast " + std::string(B == 1 ? "Gemm" : "GemmStridedBatched") +
                        " failed with " + status_name(st) + " (" + std::to_string(static_cast<int>(st)) +
                        ") for " + mm_shapes(a, b) + " on " + ctx_.device_string() +
                        ". Check the OpenCL driver, or run matmul on the cpu device.");
  };
  tune_for_cpu(ctx_, ct == float64 ? clblast::Precision::kDouble : clblast::Precision::kSingle);
  if (ct == float64) run(double{});
  else run(float{});
  if (half) copy(tc, out);
}

}  // namespace concord::detail::ocl
