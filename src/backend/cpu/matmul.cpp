// matmul on the CPU.
//   float32/float64    CBLAS (gemm, or gemv when one side is a vector), reading
//                      transposed views in place through the transpose flags.
//   float16/bfloat16   row panels widened to float32, sgemm, one rounding on store.
//   integers           exact blocked i-k-j loop in the type's unsigned twin (wraps).
#include <cblas.h>

#include <climits>
#include <cstring>
#include <memory>
#include <type_traits>

#include "backend/cpu/convert.h"
#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/loops.h"

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
void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int M, int N, int K, const float* A, int lda, const float* B, int ldb,
          float* C) {
  cblas_sgemm(CblasRowMajor, ta, tb, M, N, K, 1.0f, A, lda, B, ldb, 0.0f, C, N);
}
void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int M, int N, int K, const double* A, int lda, const double* B,
          int ldb, double* C) {
  cblas_dgemm(CblasRowMajor, ta, tb, M, N, K, 1.0, A, lda, B, ldb, 0.0, C, N);
}
void gemv(CBLAS_TRANSPOSE t, int R, int C, const float* A, int lda, const float* x, int incx, float* y) {
  cblas_sgemv(CblasRowMajor, t, R, C, 1.0f, A, lda, x, incx, 0.0f, y, 1);
}
void gemv(CBLAS_TRANSPOSE t, int R, int C, const double* A, int lda, const double* x, int incx, double* y) {
  cblas_dgemv(CblasRowMajor, t, R, C, 1.0, A, lda, x, incx, 0.0, y, 1);
}

// C[M, N] (contiguous) = op(A) op(B); gemv when either side is a single vector
// (packing a vector for gemm costs more than the product).
template <class T>
void blas_mm(int64_t M, int64_t N, int64_t K, const T* A, Layout la, const T* B, Layout lb, T* C) {
  const int m = static_cast<int>(M), n = static_cast<int>(N), k = static_cast<int>(K);
  const int lda = static_cast<int>(la.ld), ldb = static_cast<int>(lb.ld);
  if (N == 1) {
    const int incx = lb.trans == CblasNoTrans ? ldb : 1;
    if (la.trans == CblasNoTrans) gemv(CblasNoTrans, m, k, A, lda, B, incx, C);
    else gemv(CblasTrans, k, m, A, lda, B, incx, C);
  } else if (M == 1) {
    const int incx = la.trans == CblasNoTrans ? 1 : lda;
    if (lb.trans == CblasNoTrans) gemv(CblasTrans, k, n, B, ldb, A, incx, C);
    else gemv(CblasNoTrans, n, k, B, ldb, A, incx, C);
  } else {
    gemm(la.trans, lb.trans, m, n, k, A, lda, B, ldb, C);
  }
}

template <class T>
void matmul_blas(CpuBackend& be, const Tensor& a, const Tensor& b, const Tensor& out) {
  const int64_t batch = out.size(0), M = out.size(1), N = out.size(2), K = a.size(2);
  Mat ma = mat_of(a), mb = mat_of(b);
  Layout la = layout_of(M, K, ma.sr, ma.sc), lb = layout_of(K, N, mb.sr, mb.sc);
  Packed pa, pb;
  if (!la.ok) { pa = pack(be, a, ma, batch); ma = pa.m; la = layout_of(M, K, ma.sr, ma.sc); }
  if (!lb.ok) { pb = pack(be, b, mb, batch); mb = pb.m; lb = layout_of(K, N, mb.sr, mb.sc); }
  T* c = out.data<T>();
  // A shared right operand and row-major left matrices whose rows continue
  // across the batch make one tall product: [batch*M, K] x [K, N].
  const int64_t row = M == 1 ? ma.sb : ma.sr;
  if (batch > 1 && mb.sb == 0 && (K == 1 || ma.sc == 1) && (M == 1 || ma.sb == M * ma.sr) && row >= std::max<int64_t>(1, K) &&
      row <= INT_MAX && batch * M <= INT_MAX) {
    blas_mm<T>(batch * M, N, K, reinterpret_cast<const T*>(ma.base), {true, CblasNoTrans, row},
               reinterpret_cast<const T*>(mb.base), lb, c);
    return;
  }
  auto one = [&](int64_t i) {
    blas_mm<T>(M, N, K, reinterpret_cast<const T*>(ma.at(i)), la, reinterpret_cast<const T*>(mb.at(i)), lb, c + i * M * N);
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

// Widens the R x C matrix at src (element strides sr, sc) into dst, keeping
// a column-major source column-major so that the conversion streams; returns
// how BLAS should read dst.
template <class H>
Layout widen(const H* src, int64_t R, int64_t C, int64_t sr, int64_t sc, float* dst) {
  // Conversion is memory-bound and would otherwise run on one thread while sgemm uses all.
  if (sr == 1 && sc != 1 && R > 1 && C > 1) {
    parallel_for(C, std::max<int64_t>(1, kParallelGrain / R), [&](int64_t j0, int64_t j1) {
      for (int64_t j = j0; j < j1; ++j) widen_run(src + j * sc, dst + j * R, R);
    });
    return {true, CblasTrans, R};
  }
  parallel_for(R, std::max<int64_t>(1, kParallelGrain / C), [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      const H* s = src + i * sr;
      float* d = dst + i * C;
      if (sc == 1 || C == 1) widen_run(s, d, C);
      else for (int64_t j = 0; j < C; ++j) d[j] = static_cast<float>(s[j * sc]);
    }
  });
  return {true, CblasNoTrans, std::max<int64_t>(1, C)};
}

template <class H>
void matmul_half(const Tensor& a, const Tensor& b, const Tensor& out) {
  const int64_t batch = out.size(0), M = out.size(1), N = out.size(2), K = a.size(2);
  const Mat ma = mat_of(a), mb = mat_of(b);
  // Rows of A (and of C) per panel: all of them unless the panel would exceed the budget.
  int64_t rows = M;
  if (M * (K + N) > kWidenBudget) rows = std::max<int64_t>(64, kWidenBudget / (K + N)) & ~int64_t{15};
  rows = std::min(rows, M);
  const bool per_thread = batch > 1 && M * N * K <= kSmallGemm && omp_get_max_threads() > 1 && !omp_in_parallel();
  auto run = [&](int64_t i0, int64_t i1) {
    auto fb = std::make_unique_for_overwrite<float[]>(static_cast<size_t>(K * N));
    auto fa = std::make_unique_for_overwrite<float[]>(static_cast<size_t>(rows * K));
    auto fc = std::make_unique_for_overwrite<float[]>(static_cast<size_t>(rows * N));
    const char* widened_b = nullptr;
    Layout lb{};
    for (int64_t i = i0; i < i1; ++i) {
      if (widened_b != mb.at(i)) {  // a broadcast right operand is widened once
        widened_b = mb.at(i);
        lb = widen(reinterpret_cast<const H*>(widened_b), K, N, mb.sr, mb.sc, fb.get());
      }
      const H* ai = reinterpret_cast<const H*>(ma.at(i));
      H* ci = out.data<H>() + i * M * N;
      for (int64_t r0 = 0; r0 < M; r0 += rows) {
        const int64_t r = std::min(rows, M - r0);
        Layout la = widen(ai + r0 * ma.sr, r, K, ma.sr, ma.sc, fa.get());
        blas_mm<float>(r, N, K, fa.get(), la, fb.get(), lb, fc.get());
        parallel_for(r * N, kParallelGrain, [&](int64_t e0, int64_t e1) { narrow_run(fc.get() + e0, ci + r0 * N + e0, e1 - e0); });
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

// ---- integers ----
// Exact in the type: products and sums wrap modulo 2^bits (done in the
// unsigned twin, where wrapping is defined). Blocked so a K x N panel of B
// stays in cache while a block of rows of C accumulates.
template <class T>
void matmul_int(CpuBackend& be, const Tensor& a, const Tensor& b, const Tensor& out) {
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
  // Threads only when the product has at least 2^18 multiply-adds in all.
  const int64_t work_per_task = std::min(M, kRows) * std::min(N * K, int64_t{1} << 40);
  parallel_for(batch * row_blocks, std::max<int64_t>(1, (int64_t{1} << 18) / work_per_task),
               [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t bi = t / row_blocks, i0 = (t % row_blocks) * kRows, i1 = std::min(M, i0 + kRows);
      const T* ab = reinterpret_cast<const T*>(ma.at(bi));
      const T* bb = reinterpret_cast<const T*>(mb.at(bi));
      U* cb = c + bi * M * N;
      std::memset(cb + i0 * N, 0, static_cast<size_t>((i1 - i0) * N) * sizeof(U));
      for (int64_t j0 = 0; j0 < N; j0 += kCols) {
        const int64_t j1 = std::min(N, j0 + kCols);
        for (int64_t k0 = 0; k0 < K; k0 += kDepth) {
          const int64_t k1 = std::min(K, k0 + kDepth);
          for (int64_t i = i0; i < i1; ++i) {
            U* __restrict crow = cb + i * N;
            for (int64_t k = k0; k < k1; ++k) {
              const W av = static_cast<U>(ab[i * ma.sr + k * ma.sc]);
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

}  // namespace

void CpuBackend::matmul(const Tensor& a, const Tensor& b, const Tensor& out) {
  const int64_t M = out.size(1), N = out.size(2), K = a.size(2);
  if (out.numel() == 0) return;
  if (K == 0) {  // an empty sum: zeros (all-zero bytes in every dtype)
    std::memset(out.raw_data(), 0, out.nbytes());
    return;
  }
  if (std::max({M, N, K}) > INT_MAX)
    throw ShapeError("[matmul] " + shape_str(a.shape()) + " x " + shape_str(b.shape()) +
                     ": BLAS takes dims up to 2^31-1; split the product into smaller blocks");
  switch (out.dtype()) {
    case Dtype::float32: matmul_blas<float>(*this, a, b, out); break;
    case Dtype::float64: matmul_blas<double>(*this, a, b, out); break;
    case Dtype::float16: matmul_half<float16_t>(a, b, out); break;
    case Dtype::bfloat16: matmul_half<bfloat16_t>(a, b, out); break;
    case Dtype::uint8: matmul_int<uint8_t>(*this, a, b, out); break;
    case Dtype::int8: matmul_int<int8_t>(*this, a, b, out); break;
    case Dtype::int16: matmul_int<int16_t>(*this, a, b, out); break;
    case Dtype::int32: matmul_int<int32_t>(*this, a, b, out); break;
    case Dtype::int64: matmul_int<int64_t>(*this, a, b, out); break;
    default:
      throw DtypeError("[matmul] no cpu kernel for " + std::string(name(out.dtype())) + "; convert to a numeric dtype");
  }
}

}  // namespace concord::detail::cpu
