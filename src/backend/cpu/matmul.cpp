// matmul on the CPU: out = alpha·(a @ b) + beta·out.
//   float32/float64    CBLAS (gemm, or gemv when one side is a vector), reading
//                      transposed views in place through the transpose flags;
//                      alpha and beta go straight to BLAS (the addend costs nothing).
//   float16/bfloat16   row panels widened to float32, sgemm, one rounding on store;
//                      bfloat16 on a CPU with AVX512-BF16 reads its operands as
//                      they are (gemm_bf16.h), summing into float32 the same way.
//   integers           exact blocked i-k-j loop in the type's unsigned twin (wraps).
// In the reproducible mode the floating dtypes run gemm_canon.h instead: one
// fixed chain of fma per output element, which the OpenCL devices repeat.
#include <cblas.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "backend/cpu/convert.h"
#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/gemm_bf16.h"
#include "backend/cpu/gemm_canon.h"
#include "backend/cpu/loops.h"
#include "concord/policy.h"

namespace concord::detail::cpu {

namespace {

// Below this many multiply-adds per matrix OpenBLAS runs single-threaded, so
// batches of such matrices are spread over OpenMP threads instead.
constexpr int64_t kSmallGemm = 64 * 64 * 64;
// Float32 elements of widened panels per thread for float16/bfloat16 (16 MiB).
constexpr int64_t kWidenBudget = int64_t{1} << 22;

// One operand as B matrices of R x C with element strides.
struct Mat {
  char* base;
  int64_t R, C, sb, sr, sc;
  size_t item;
  char* at(int64_t b) const { return base + b * sb * static_cast<int64_t>(item); }
};

Mat mat_of(const Tensor& t) {
  const int64_t sb = t.size(0) == 1 ? 0 : t.stride(0);
  return {static_cast<char*>(t.raw_data()), t.size(1), t.size(2), sb, t.stride(1), t.stride(2), itemsize(t.dtype())};
}

// How BLAS can read an R x C matrix in place: row-major (NoTrans) or as the
// transpose of a row-major C x R matrix (Trans); ok == false means copy it.
struct Layout {
  bool ok;
  CBLAS_TRANSPOSE trans;
  int64_t ld;
};

Layout layout_of(int64_t R, int64_t C, int64_t sr, int64_t sc) {
  const int64_t rmin = std::max<int64_t>(1, C), cmin = std::max<int64_t>(1, R);
  if ((C == 1 || sc == 1) && (R == 1 || (sr >= rmin && sr <= INT_MAX))) return {true, CblasNoTrans, R == 1 ? rmin : sr};
  if ((R == 1 || sr == 1) && (C == 1 || (sc >= cmin && sc <= INT_MAX))) return {true, CblasTrans, C == 1 ? cmin : sc};
  return {false, CblasNoTrans, rmin};
}

// Wraps host memory as a tensor so the copy kernel can fill it.
Tensor host_tensor(void* p, Shape shape, Dtype t) {
  auto st = std::make_shared<Storage>();
  st->ptr = p;
  st->nbytes = static_cast<size_t>(numel(shape)) * itemsize(t);
  st->device = kCPU;
  Strides s = contiguous_strides(shape);
  return Tensor(std::move(st), std::move(shape), std::move(s), 0, t);
}

// A contiguous copy of an operand that BLAS (or the integer loop) cannot read
// in place; a broadcast batch (stride 0) is copied once.
struct Packed {
  std::unique_ptr<char[]> buf;
  Mat m;
};

Packed pack(CpuBackend& be, const Tensor& t, const Mat& m, int64_t batch) {
  const int64_t nb = m.sb == 0 ? 1 : batch;
  Packed p;
  p.buf = std::make_unique_for_overwrite<char[]>(static_cast<size_t>(nb * m.R * m.C) * m.item);
  Tensor src = nb == 1 && batch > 1 ? t.narrow(0, 0, 1) : t;
  be.copy(src, host_tensor(p.buf.get(), Shape{nb, m.R, m.C}, t.dtype()));
  p.m = {p.buf.get(), m.R, m.C, nb == 1 ? 0 : m.R * m.C, m.C, 1, m.item};
  return p;
}

// ---- float32 / float64 ----
// alpha·op(A)·op(B) + beta·C; BLAS reads C only when beta != 0.
void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int M, int N, int K, float alpha, const float* A, int lda,
          const float* B, int ldb, float beta, float* C) {
  cblas_sgemm(CblasRowMajor, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, N);
}
void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int M, int N, int K, double alpha, const double* A, int lda,
          const double* B, int ldb, double beta, double* C) {
  cblas_dgemm(CblasRowMajor, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, N);
}
void gemv(CBLAS_TRANSPOSE t, int R, int C, float alpha, const float* A, int lda, const float* x, int incx, float beta,
          float* y) {
  cblas_sgemv(CblasRowMajor, t, R, C, alpha, A, lda, x, incx, beta, y, 1);
}
void gemv(CBLAS_TRANSPOSE t, int R, int C, double alpha, const double* A, int lda, const double* x, int incx,
          double beta, double* y) {
  cblas_dgemv(CblasRowMajor, t, R, C, alpha, A, lda, x, incx, beta, y, 1);
}

// C[M, N] (contiguous) = alpha·op(A) op(B) + beta·C; gemv when either side is a
// single vector (packing a vector for gemm costs more than the product).
template <class T>
void blas_mm(int64_t M, int64_t N, int64_t K, const T* A, Layout la, const T* B, Layout lb, T* C, T alpha = 1,
             T beta = 0) {
  const int m = static_cast<int>(M), n = static_cast<int>(N), k = static_cast<int>(K);
  const int lda = static_cast<int>(la.ld), ldb = static_cast<int>(lb.ld);
  if (N == 1) {
    const int incx = lb.trans == CblasNoTrans ? ldb : 1;
    if (la.trans == CblasNoTrans) gemv(CblasNoTrans, m, k, alpha, A, lda, B, incx, beta, C);
    else gemv(CblasTrans, k, m, alpha, A, lda, B, incx, beta, C);
  } else if (M == 1) {
    const int incx = la.trans == CblasNoTrans ? 1 : lda;
    if (lb.trans == CblasNoTrans) gemv(CblasTrans, k, n, alpha, B, ldb, A, incx, beta, C);
    else gemv(CblasNoTrans, n, k, alpha, B, ldb, A, incx, beta, C);
  } else {
    gemm(la.trans, lb.trans, m, n, k, alpha, A, lda, B, ldb, beta, C);
  }
}

template <class T>
void matmul_blas(CpuBackend& be, const Tensor& a, const Tensor& b, const Tensor& out, T alpha, T beta) {
  const int64_t batch = out.size(0), M = out.size(1), N = out.size(2), K = a.size(2);
  Mat ma = mat_of(a), mb = mat_of(b);
  Layout la = layout_of(M, K, ma.sr, ma.sc), lb = layout_of(K, N, mb.sr, mb.sc);
  Packed pa, pb;
  if (!la.ok) { pa = pack(be, a, ma, batch); ma = pa.m; la = layout_of(M, K, ma.sr, ma.sc); }
  if (!lb.ok) { pb = pack(be, b, mb, batch); mb = pb.m; lb = layout_of(K, N, mb.sr, mb.sc); }
  T* c = detail::host_data<T>(out);
  // A shared right operand and row-major left matrices whose rows continue
  // across the batch make one tall product: [batch*M, K] x [K, N].
  const int64_t row = M == 1 ? ma.sb : ma.sr;
  if (batch > 1 && mb.sb == 0 && (K == 1 || ma.sc == 1) && (M == 1 || ma.sb == M * ma.sr) && row >= std::max<int64_t>(1, K) &&
      row <= INT_MAX && batch * M <= INT_MAX) {
    blas_mm<T>(batch * M, N, K, reinterpret_cast<const T*>(ma.base), {true, CblasNoTrans, row},
               reinterpret_cast<const T*>(mb.base), lb, c, alpha, beta);
    return;
  }
  auto one = [&](int64_t i) {
    blas_mm<T>(M, N, K, reinterpret_cast<const T*>(ma.at(i)), la, reinterpret_cast<const T*>(mb.at(i)), lb, c + i * M * N,
               alpha, beta);
  };
  if (batch > 1 && M * N * K <= kSmallGemm && omp_get_max_threads() > 1 && !omp_in_parallel()) {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < batch; ++i) one(i);
  } else {
    for (int64_t i = 0; i < batch; ++i) one(i);
  }
}

// ---- float16 / bfloat16 ----
void widen_run(const float16_t* s, float* d, int64_t n) { convert_f16_to_f32(s, d, static_cast<size_t>(n)); }
void widen_run(const bfloat16_t* s, float* d, int64_t n) { convert_bf16_to_f32(s, d, static_cast<size_t>(n)); }
void narrow_run(const float* s, float16_t* d, int64_t n) { convert_f32_to_f16(s, d, static_cast<size_t>(n)); }
void narrow_run(const float* s, bfloat16_t* d, int64_t n) { convert_f32_to_bf16(s, d, static_cast<size_t>(n)); }

// One R x C matrix at src (element strides sr, sc) to widen into dst. A
// column-major source is widened column by column and stays column-major, so
// the conversion streams; layout() says how BLAS should read dst.
template <class H>
struct Widen {
  const H* src;
  int64_t R, C, sr, sc;
  float* dst;
  bool cols;
  Widen(const H* s, int64_t r, int64_t c, int64_t rs, int64_t cs, float* d)
      : src(s), R(r), C(c), sr(rs), sc(cs), dst(d), cols(rs == 1 && cs != 1 && r > 1 && c > 1) {}
  int64_t lines() const { return cols ? C : R; }
  Layout layout() const { return cols ? Layout{true, CblasTrans, R} : Layout{true, CblasNoTrans, std::max<int64_t>(1, C)}; }
  void line(int64_t i) const {
    if (cols) return widen_run(src + i * sc, dst + i * R, R);
    const H* s = src + i * sr;
    float* d = dst + i * C;
    if (sc == 1 || C == 1) widen_run(s, d, C);
    else for (int64_t j = 0; j < C; ++j) d[j] = static_cast<float>(s[j * sc]);
  }
};

// Widens all jobs in one parallel region: conversion is memory-bound and would
// otherwise run on one thread while sgemm uses all, and every region's end
// leaves OpenMP threads spinning next to OpenBLAS's own threads, so fewer is faster.
template <class H>
void widen_all(const std::vector<Widen<H>>& jobs) {
  int64_t lines = 0, elems = 0;
  for (const auto& j : jobs) lines += j.lines(), elems += j.R * j.C;
  if (lines == 0) return;
  const int64_t grain = std::max<int64_t>(1, kParallelGrain * lines / std::max<int64_t>(1, elems));
  parallel_for(lines, grain, [&](int64_t g0, int64_t g1) {
    int64_t base = 0;
    for (const auto& j : jobs) {
      const int64_t n = j.lines(), lo = std::max(g0 - base, int64_t{0}), hi = std::min(g1 - base, n);
      for (int64_t i = lo; i < hi; ++i) j.line(i);
      base += n;
    }
  });
}

// Float32 scratch for the widened panels. Up to 64 MiB it is kept per thread:
// a fresh multi-MiB buffer per call is mmap'd and its pages zeroed by the
// kernel, which measured ~11% of a bfloat16 MLP layer (256 x 1024 x 1024).
class Scratch {
 public:
  explicit Scratch(size_t n) {
    constexpr size_t kKeep = size_t{16} << 20;  // floats
    thread_local std::unique_ptr<float[]> kept;
    thread_local size_t kept_n = 0;
    if (n > kKeep) {
      own_ = std::make_unique_for_overwrite<float[]>(n);
      p_ = own_.get();
      return;
    }
    if (kept_n < n) {
      kept = std::make_unique_for_overwrite<float[]>(n);
      kept_n = n;
    }
    p_ = kept.get();
  }
  float* get() const { return p_; }

 private:
  std::unique_ptr<float[]> own_;
  float* p_ = nullptr;
};

template <class H>
void matmul_half(const Tensor& a, const Tensor& b, const Tensor& out, float alpha, float beta) {
  const int64_t batch = out.size(0), M = out.size(1), N = out.size(2), K = a.size(2);
  const Mat ma = mat_of(a), mb = mat_of(b);
  // Rows of A (and of C) per panel: all of them unless the panel would exceed the budget.
  int64_t rows = M;
  if (M * (K + N) > kWidenBudget) rows = std::max<int64_t>(64, kWidenBudget / (K + N)) & ~int64_t{15};
  rows = std::min(rows, M);
  const bool per_thread = batch > 1 && M * N * K <= kSmallGemm && omp_get_max_threads() > 1 && !omp_in_parallel();
  auto run = [&](int64_t i0, int64_t i1) {
    const Scratch buf(static_cast<size_t>(K * N + rows * K + rows * N));
    float* const fb = buf.get();
    float* const fa = fb + K * N;
    float* const fc = fa + rows * K;
    const char* widened_b = nullptr;
    Layout lb{};
    std::vector<Widen<H>> jobs;
    for (int64_t i = i0; i < i1; ++i) {
      const H* ai = reinterpret_cast<const H*>(ma.at(i));
      H* ci = detail::host_data<H>(out) + i * M * N;
      for (int64_t r0 = 0; r0 < M; r0 += rows) {
        const int64_t r = std::min(rows, M - r0);
        H* co = ci + r0 * N;
        jobs.clear();
        if (widened_b != mb.at(i)) {  // a broadcast right operand is widened once
          widened_b = mb.at(i);
          jobs.emplace_back(reinterpret_cast<const H*>(widened_b), K, N, mb.sr, mb.sc, fb);
          lb = jobs.back().layout();
        }
        jobs.emplace_back(ai + r0 * ma.sr, r, K, ma.sr, ma.sc, fa);
        const Layout la = jobs.back().layout();
        // The addend joins the float32 sum, so the result is rounded once.
        if (beta != 0.0f) jobs.emplace_back(co, r, N, N, 1, fc);
        widen_all(jobs);
        blas_mm<float>(r, N, K, fa, la, fb, lb, fc, alpha, beta);
        parallel_for(r * N, kParallelGrain, [&](int64_t e0, int64_t e1) { narrow_run(fc + e0, co + e0, e1 - e0); });
      }
    }
  };
  if (per_thread) {
    const int64_t threads = std::min<int64_t>(omp_get_max_threads(), batch);
#pragma omp parallel for num_threads(static_cast<int>(threads)) schedule(static)
    for (int64_t t = 0; t < threads; ++t) run(batch * t / threads, batch * (t + 1) / threads);
  } else {
    run(0, batch);
  }
}

// bfloat16 on the dot-product instruction: alpha, the addend and the one
// rounding happen in the kernel's store. Row panels bound its float32 partial
// sums (kept between K blocks) to the widening budget.
void matmul_bf16_native(const Tensor& a, const Tensor& b, const Tensor& out, float alpha, float beta) {
  const int64_t batch = out.size(0), M = out.size(1), N = out.size(2), K = a.size(2);
  const Mat ma = mat_of(a), mb = mat_of(b);
  const int64_t rows = std::min(M, std::max<int64_t>(16, kWidenBudget / N));
  auto run = [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      const auto* ai = reinterpret_cast<const uint16_t*>(ma.at(i));
      const auto* bi = reinterpret_cast<const uint16_t*>(mb.at(i));
      auto* ci = reinterpret_cast<uint16_t*>(detail::host_data<bfloat16_t>(out) + i * M * N);
      for (int64_t r0 = 0; r0 < M; r0 += rows) {
        GemmOut o;
        o.bf16 = ci + r0 * N;
        o.alpha = alpha;
        o.beta = beta;
        gemm_bf16(std::min(rows, M - r0), N, K, {ai + r0 * ma.sr, ma.sr, ma.sc}, {bi, mb.sr, mb.sc}, o);
      }
    }
  };
  if (batch > 1 && M * N * K <= kSmallGemm && omp_get_max_threads() > 1 && !omp_in_parallel()) {
    const int64_t threads = std::min<int64_t>(omp_get_max_threads(), batch);
#pragma omp parallel for num_threads(static_cast<int>(threads)) schedule(static)
    for (int64_t t = 0; t < threads; ++t) run(batch * t / threads, batch * (t + 1) / threads);
  } else {
    run(0, batch);
  }
}

// The dot-product instruction flushes subnormal inputs and partial sums to
// zero; where the operands' exponents allow that (gemm_bf16_exact), the
// widened sgemm path runs instead, which keeps them. The scan reads each
// operand once: O(MK + KN) beside the product's O(MNK).
bool bf16_flush_free(const Tensor& a, const Tensor& b) {
  auto lowest = [](const Tensor& t) {
    const Mat m = mat_of(t);
    const int64_t batch = m.sb == 0 ? 1 : t.size(0);
    int lo = 255;
    for (int64_t i = 0; i < batch && lo > 0; ++i)
      lo = std::min(lo, bf16_min_exponent({reinterpret_cast<const uint16_t*>(m.at(i)), m.sr, m.sc}, m.R, m.C));
    return lo;
  };
  const int ea = lowest(a);
  return ea >= 1 && gemm_bf16_exact(ea, lowest(b));
}

// ---- integers ----
// Exact in the type: products and sums wrap modulo 2^bits (done in the
// unsigned twin, where wrapping is defined). Blocked so a K x N panel of B
// stays in cache while a block of rows of C accumulates.
template <class T>
void matmul_int(CpuBackend& be, const Tensor& a, const Tensor& b, const Tensor& out, Scalar alpha, Scalar beta) {
  using U = std::make_unsigned_t<T>;
  using W = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;  // no promotion to signed int
  const int64_t batch = out.size(0), M = out.size(1), N = out.size(2), K = a.size(2);
  const Mat ma = mat_of(a);
  Mat mb = mat_of(b);
  Packed pb;
  if (mb.sc != 1 && N > 1) { pb = pack(be, b, mb, batch); mb = pb.m; }
  constexpr int64_t kRows = 32, kDepth = 256, kCols = 1024;
  const int64_t row_blocks = (M + kRows - 1) / kRows;
  U* c = reinterpret_cast<U*>(out.raw_data());
  // alpha·Σ a·b = Σ (alpha·a)·b modulo 2^bits, so alpha scales each a element.
  const W al = static_cast<U>(alpha.to_int()), bt = static_cast<U>(beta.to_int());
  // Threads only when the product has at least 2^18 multiply-adds in all.
  const int64_t work_per_task = std::min(M, kRows) * std::min(N * K, int64_t{1} << 40);
  parallel_for(batch * row_blocks, std::max<int64_t>(1, (int64_t{1} << 18) / work_per_task),
               [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t bi = t / row_blocks, i0 = (t % row_blocks) * kRows, i1 = std::min(M, i0 + kRows);
      const T* ab = reinterpret_cast<const T*>(ma.at(bi));
      const T* bb = reinterpret_cast<const T*>(mb.at(bi));
      U* cb = c + bi * M * N;
      if (bt == 0) std::memset(cb + i0 * N, 0, static_cast<size_t>((i1 - i0) * N) * sizeof(U));
      else if (bt != 1)
        for (int64_t e = i0 * N; e < i1 * N; ++e) cb[e] = static_cast<U>(bt * cb[e]);
      for (int64_t j0 = 0; j0 < N; j0 += kCols) {
        const int64_t j1 = std::min(N, j0 + kCols);
        for (int64_t k0 = 0; k0 < K; k0 += kDepth) {
          const int64_t k1 = std::min(K, k0 + kDepth);
          for (int64_t i = i0; i < i1; ++i) {
            U* __restrict crow = cb + i * N;
            for (int64_t k = k0; k < k1; ++k) {
              const W av = static_cast<U>(al * static_cast<U>(ab[i * ma.sr + k * ma.sc]));
              const T* __restrict brow = bb + k * mb.sr;
#pragma omp simd
              for (int64_t j = j0; j < j1; ++j) crow[j] = static_cast<U>(crow[j] + av * static_cast<U>(brow[j]));
            }
          }
        }
      }
    }
  });
}

// out = beta·out for an empty sum (K == 0), in out's compute type.
void scale(const Tensor& out, Scalar beta) {
  const int64_t n = out.numel();
  if (beta.to_double() == 0.0 && beta.to_int() == 0) {  // all-zero bytes in every dtype
    std::memset(out.raw_data(), 0, out.nbytes());
    return;
  }
  visit_dtype(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      // matmul is not defined on bool
    } else if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      using W = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
      const W b = static_cast<U>(beta.to_int());
      U* p = reinterpret_cast<U*>(out.raw_data());
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<U>(b * p[i]);
    } else {
      using C = compute_t<T>;
      const C b = static_cast<C>(beta.to_double());
      T* p = detail::host_data<T>(out);
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(b * static_cast<C>(p[i]));
    }
  });
}

}  // namespace

void CpuBackend::matmul(const Tensor& a, const Tensor& b, const Tensor& out, Scalar alpha, Scalar beta) {
  const int64_t M = out.size(1), N = out.size(2), K = a.size(2);
  if (out.numel() == 0) return;
  if (K == 0) {  // an empty sum
    scale(out, beta);
    return;
  }
  if (std::max({M, N, K}) > INT_MAX)
    throw ShapeError("[matmul] " + shape_str(a.shape()) + " x " + shape_str(b.shape()) +
                     ": BLAS takes dims up to 2^31-1; split the product into smaller blocks");
  const double al = alpha.to_double(), bt = beta.to_double();
  // The reproducible mode: the canonical order every device's mode kernel follows.
  if (reproducible() && is_floating(out.dtype())) {
    gemm_canon(a, b, out, al, bt);
    return;
  }
  switch (out.dtype()) {
    case Dtype::float32: matmul_blas<float>(*this, a, b, out, static_cast<float>(al), static_cast<float>(bt)); break;
    case Dtype::float64: matmul_blas<double>(*this, a, b, out, al, bt); break;
    case Dtype::float16: matmul_half<float16_t>(a, b, out, static_cast<float>(al), static_cast<float>(bt)); break;
    case Dtype::bfloat16:
      if (gemm_bf16_available() && M > 1 && N > 1 && bf16_flush_free(a, b))
        matmul_bf16_native(a, b, out, static_cast<float>(al), static_cast<float>(bt));
      else
        matmul_half<bfloat16_t>(a, b, out, static_cast<float>(al), static_cast<float>(bt));
      break;
    case Dtype::uint8: matmul_int<uint8_t>(*this, a, b, out, alpha, beta); break;
    case Dtype::int8: matmul_int<int8_t>(*this, a, b, out, alpha, beta); break;
    case Dtype::int16: matmul_int<int16_t>(*this, a, b, out, alpha, beta); break;
    case Dtype::int32: matmul_int<int32_t>(*this, a, b, out, alpha, beta); break;
    case Dtype::int64: matmul_int<int64_t>(*this, a, b, out, alpha, beta); break;
    default:
      throw DtypeError("[matmul] no cpu kernel for " + std::string(name(out.dtype())) + "; convert to a numeric dtype");
  }
}

}  // namespace concord::detail::cpu
