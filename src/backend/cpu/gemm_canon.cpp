// The reproducible mode's float GEMM on the CPU (gemm_canon.h): the order of
// operations is the header's; this file blocks it for the caches.
//
// Per batch and per block of at most kMc rows: K is walked in blocks of kKc;
// for each, the rows' A block is packed into mr-row panels and the B block into
// nr-column panels (converted to the compute type, zero-padded to whole
// panels), and every mr x nr tile continues its chains in a float32/float64
// accumulator block (the exact partial sums, so blocking never changes a
// bit). The tiles of one K block are spread over the OpenMP threads; each
// element is only ever touched by one tile. Then alpha, beta and the rounding.
#include "backend/cpu/gemm_canon.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "concord/half.h"
#include "core/cpu_isa.h"

namespace concord::detail::cpu {

namespace {

constexpr int64_t kKc = 256;                   // K block: A and B panels of one tile stay in L1/L2
constexpr int64_t kAccBudget = int64_t{1} << 21;  // accumulator elements per row block (8-16 MiB)

// The scalar tile (baseline level, CPUs without FMA): std::fma is correctly
// rounded, so it gives the vector tiles' bits.
template <class T, int MR, int NR>
void tile_scalar(int64_t kc, const T* Ap, const T* Bp, T* C, int64_t ldc) {
  T acc[MR][NR];
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NR; ++j) acc[i][j] = C[i * ldc + j];
  for (int64_t k = 0; k < kc; ++k)
    for (int i = 0; i < MR; ++i)
      for (int j = 0; j < NR; ++j) acc[i][j] = std::fma(Ap[k * MR + i], Bp[k * NR + j], acc[i][j]);
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NR; ++j) C[i * ldc + j] = acc[i][j];
}

const CanonKernels& kernels() {
  static const CanonKernels generic{4, 8, 4, 8, tile_scalar<float, 4, 8>, tile_scalar<double, 4, 8>};
  static const CanonKernels* k = [] {
    const CanonKernels* v = nullptr;
#if defined(__x86_64__)  // the register tiles are built only for x86-64 (CMakeLists.txt)
    const CpuIsa isa = cpu_isa();
    if (isa >= CpuIsa::avx512) v = canon_kernels_avx512();
    if (!v && isa >= CpuIsa::avx2) v = canon_kernels_avx2();
#endif
    return v ? v : &generic;
  }();
  return *k;
}

// Element (r, c) of matrix `bt` of an operand [B, R, C], as the compute type.
template <class S>
struct View {
  const S* p;
  int64_t sb, sr, sc;
  auto at(int64_t bt, int64_t r, int64_t c) const { return p[bt * sb + r * sr + c * sc]; }
};
template <class S>
View<S> view_of(const Tensor& t) {
  return {static_cast<const S*>(t.raw_data()), t.size(0) == 1 ? 0 : t.stride(0), t.stride(1), t.stride(2)};
}

template <class T, class S>
T widen(S v) {
  if constexpr (std::is_same_v<S, T>) return v;
  else return static_cast<T>(static_cast<float>(v));  // the halves: exact
}
template <class S, class T>
S narrow(T v) {
  if constexpr (std::is_same_v<S, T>) return v;
  else return S(static_cast<float>(v));  // float -> half: one rounding to nearest even
}

template <class S, class T>
void run(const Tensor& a, const Tensor& b, const Tensor& out, T alpha, T beta, int mr, int nr, CanonMicro<T> tile) {
  const int64_t B = out.size(0), M = out.size(1), N = out.size(2), K = a.size(2);
  const View<S> va = view_of<S>(a), vb = view_of<S>(b);
  S* c = static_cast<S*>(out.raw_data());
  const int64_t nb = (N + nr - 1) / nr, np = nb * nr;
  const int64_t mc = std::max<int64_t>(mr, std::min<int64_t>((M + mr - 1) / mr * mr, kAccBudget / np / mr * mr));
  const int64_t kc_max = std::min(K, kKc);
  std::vector<T> Ap(static_cast<size_t>(mc * kc_max)), Bp(static_cast<size_t>(np * kc_max)),
      acc(static_cast<size_t>(mc * np));
  const bool use_beta = beta != T(0);
  for (int64_t bt = 0; bt < B; ++bt) {
    for (int64_t m0 = 0; m0 < M; m0 += mc) {
      const int64_t rows = std::min(mc, M - m0), mb = (rows + mr - 1) / mr;
      std::fill(acc.begin(), acc.begin() + mb * mr * np, -T(0));
      for (int64_t k0 = 0; k0 < K; k0 += kKc) {
        const int64_t kc = std::min(kKc, K - k0);
#pragma omp parallel
        {
#pragma omp for schedule(static) nowait
          for (int64_t p = 0; p < mb; ++p)
            for (int64_t k = 0; k < kc; ++k)
              for (int i = 0; i < mr; ++i) {
                const int64_t r = p * mr + i;
                Ap[static_cast<size_t>((p * kc + k) * mr + i)] = r < rows ? widen<T>(va.at(bt, m0 + r, k0 + k)) : T(0);
              }
#pragma omp for schedule(static)
          for (int64_t q = 0; q < nb; ++q)
            for (int64_t k = 0; k < kc; ++k)
              for (int j = 0; j < nr; ++j) {
                const int64_t col = q * nr + j;
                Bp[static_cast<size_t>((q * kc + k) * nr + j)] = col < N ? widen<T>(vb.at(bt, k0 + k, col)) : T(0);
              }
          // Tiles: consecutive ones share a B panel (kept warm), rows vary fastest.
#pragma omp for schedule(static)
          for (int64_t t = 0; t < mb * nb; ++t) {
            const int64_t p = t % mb, q = t / mb;
            tile(kc, Ap.data() + p * kc * mr, Bp.data() + q * kc * nr, acc.data() + p * mr * np + q * nr, np);
          }
        }
      }
#pragma omp parallel for schedule(static)
      for (int64_t r = 0; r < rows; ++r) {
        S* row = c + (bt * M + m0 + r) * N;
        const T* ar = acc.data() + r * np;
        for (int64_t j = 0; j < N; ++j) {
          T v = alpha * ar[j];
          if (use_beta) v = v + beta * widen<T>(row[j]);
          row[j] = narrow<S>(v);
        }
      }
    }
  }
}

}  // namespace

void gemm_canon(const Tensor& a, const Tensor& b, const Tensor& out, double alpha, double beta) {
  const CanonKernels& k = kernels();
  const float af = static_cast<float>(alpha), bf = static_cast<float>(beta);
  switch (out.dtype()) {
    case Dtype::float32: run<float, float>(a, b, out, af, bf, k.mr32, k.nr32, k.f32); break;
    case Dtype::float16: run<float16_t, float>(a, b, out, af, bf, k.mr32, k.nr32, k.f32); break;
    case Dtype::bfloat16: run<bfloat16_t, float>(a, b, out, af, bf, k.mr32, k.nr32, k.f32); break;
    case Dtype::float64: run<double, double>(a, b, out, alpha, beta, k.mr64, k.nr64, k.f64); break;
    default: break;  // the caller sends floating dtypes only
  }
}

}  // namespace concord::detail::cpu
