// bfloat16 GEMM on VDPBF16PS (contract in gemm_bf16.h).
//
// Blocked like a BLAS: each thread owns a fixed block of C, packs KC-deep
// blocks of its columns of B and MC x KC blocks of its rows of A, and runs an
// MR x NR register-tile kernel over them. Packed operands hold bfloat16 pairs
// (k, k+1) as one 32-bit word — the unit the instruction multiplies — so A's
// word is broadcast and B's are loaded 16 at a time.
//
// Only the functions marked CONCORD_BF16 use AVX-512; the file is compiled for
// plain x86-64 so nothing here can run an unsupported instruction by accident.
// Where the compiler does not target x86-64, gemm_bf16_available() is false.
#include "backend/cpu/gemm_bf16.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <new>

#include "backend/cpu/vec_math.h"

// GCC 12 flags the intrinsics' own deliberately undefined vectors inside target() functions.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

#define CONCORD_BF16 __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16")))

namespace concord::detail::cpu {

#if defined(__x86_64__)
namespace {

constexpr int kMR = 14;             // rows of the register tile: 28 accumulators of 32 registers
constexpr int kNR = 32;             // columns: two vectors of 16 float32
constexpr int64_t kKC = 1024;       // deepest block: K <= 1024 needs no partial sums (best measured of 256..1024)
constexpr int64_t kMC = kMR * 12;   // rows per packed A block: up to 252 KiB, in L2
constexpr int64_t kNC = 2048;       // columns per packed B block (up to 1.5 MiB)

int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

uint32_t load_pair(const uint16_t* p, int64_t step, bool second) {
  return static_cast<uint32_t>(p[0]) | (second ? static_cast<uint32_t>(p[step]) << 16 : 0u);
}

// ---- packing ----
// Up to 16 lines, each a run of bfloat16 pairs (line c starts at line[c],
// nullptr = a line of zeros), turned so that pair x of every line lands in
// dst[x * stride + c] for x < n: a 16 x 16 transpose of 32-bit words in
// registers (unpack 32, unpack 64, then two 128-bit lane shuffles), which
// streams where a gather would touch 16 cache lines per vector.
CONCORD_BF16 void transpose_pairs(const uint16_t* const line[16], int n, uint32_t* dst, int64_t stride,
                                  __mmask16 store) {
  const __mmask16 m = static_cast<__mmask16>(n >= 16 ? 0xFFFF : (1u << n) - 1);
  __m512i r[16], t[16];
#pragma GCC unroll 16
  for (int c = 0; c < 16; ++c) r[c] = line[c] ? _mm512_maskz_loadu_epi32(m, line[c]) : _mm512_setzero_si512();
#pragma GCC unroll 8
  for (int c = 0; c < 16; c += 2) {
    t[c] = _mm512_unpacklo_epi32(r[c], r[c + 1]);
    t[c + 1] = _mm512_unpackhi_epi32(r[c], r[c + 1]);
  }
#pragma GCC unroll 4
  for (int c = 0; c < 16; c += 4) {  // r[c + x]: lines c..c+3 at pair 4·lane + x
    r[c] = _mm512_unpacklo_epi64(t[c], t[c + 2]);
    r[c + 1] = _mm512_unpackhi_epi64(t[c], t[c + 2]);
    r[c + 2] = _mm512_unpacklo_epi64(t[c + 1], t[c + 3]);
    r[c + 3] = _mm512_unpackhi_epi64(t[c + 1], t[c + 3]);
  }
#pragma GCC unroll 4
  for (int x = 0; x < 4; ++x) {
    const __m512i lo0 = _mm512_shuffle_i32x4(r[x], r[4 + x], 0x88), hi0 = _mm512_shuffle_i32x4(r[x], r[4 + x], 0xDD);
    const __m512i lo1 = _mm512_shuffle_i32x4(r[8 + x], r[12 + x], 0x88), hi1 = _mm512_shuffle_i32x4(r[8 + x], r[12 + x], 0xDD);
    t[x] = _mm512_shuffle_i32x4(lo0, lo1, 0x88);       // pair x
    t[4 + x] = _mm512_shuffle_i32x4(hi0, hi1, 0x88);   // pair 4 + x
    t[8 + x] = _mm512_shuffle_i32x4(lo0, lo1, 0xDD);   // pair 8 + x
    t[12 + x] = _mm512_shuffle_i32x4(hi0, hi1, 0xDD);  // pair 12 + x
  }
#pragma GCC unroll 16
  for (int x = 0; x < 16; ++x)
    if (x < n) _mm512_mask_storeu_epi32(dst + x * stride, store, t[x]);
}

// B block rows [k0, k0+kc) x columns [j0, j0+nc) into strips of kNR columns:
// strip s holds kp = ceil(kc/2) rows of kNR words, zero past the edges.
CONCORD_BF16 void pack_b_strip(const Bf16Mat& b, int64_t K, int64_t k0, int64_t kc, int64_t j, int64_t w,
                               uint32_t* dst) {
  const int64_t kp = ceil_div(kc, 2);
  if (b.cs == 1) {  // rows contiguous: interleave row k and row k+1
    const __mmask16 m0 = static_cast<__mmask16>(w >= 16 ? 0xFFFF : (1u << w) - 1);
    const __mmask16 m1 = static_cast<__mmask16>(w >= 32 ? 0xFFFF : w <= 16 ? 0 : (1u << (w - 16)) - 1);
    for (int64_t p = 0; p < kp; ++p) {
      const int64_t k = k0 + 2 * p;
      const uint16_t* r0 = b.p + k * b.rs + j;
      const bool two = k + 1 < K && 2 * p + 1 < kc;
      for (int h = 0; h < 2; ++h) {
        const __mmask16 m = h ? m1 : m0;
        const __m512i lo = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, r0 + 16 * h));
        const __m512i hi = two ? _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, r0 + b.rs + 16 * h))
                               : _mm512_setzero_si512();
        _mm512_store_si512(dst + p * kNR + 16 * h, _mm512_or_si512(lo, _mm512_slli_epi32(hi, 16)));
      }
    }
    return;
  }
  if (b.rs == 1) {  // columns contiguous: a pair is one 32-bit word, so the strip is a transpose
    const int64_t full = (min64(kc, K - k0)) / 2;  // pairs with both elements inside the matrix
    for (int h = 0; h < 2; ++h) {
      const uint16_t* line[16];
      for (int c = 0; c < 16; ++c) line[c] = 16 * h + c < w ? b.p + (j + 16 * h + c) * b.cs + k0 : nullptr;
      for (int64_t q = 0; q < full; q += 16) {
        transpose_pairs(line, static_cast<int>(min64(16, full - q)), dst + q * kNR + 16 * h, kNR, 0xFFFF);
        for (auto& l : line) l = l ? l + 32 : nullptr;
      }
    }
    for (int64_t p = full; p < kp; ++p)  // an odd last row
      for (int64_t c = 0; c < kNR; ++c)
        dst[p * kNR + c] = c < w && k0 + 2 * p < K ? load_pair(b.p + (k0 + 2 * p) + (j + c) * b.cs, 1, false) : 0u;
    return;
  }
  for (int64_t p = 0; p < kp; ++p) {  // any other strides
    const int64_t k = k0 + 2 * p;
    const bool two = k + 1 < K && 2 * p + 1 < kc;
    for (int64_t c = 0; c < kNR; ++c)
      dst[p * kNR + c] = c < w ? load_pair(b.p + k * b.rs + (j + c) * b.cs, b.rs, two) : 0u;
  }
}

// A rows [i, i+h) x [k0, k0+kc) into kp rows of kMR words, zero past the edges.
CONCORD_BF16 void pack_a_strip(const Bf16Mat& a, int64_t K, int64_t k0, int64_t kc, int64_t i, int64_t h,
                               uint32_t* dst) {
  const int64_t kp = ceil_div(kc, 2), full = min64(kc, K - k0) / 2;
  const __mmask16 m = static_cast<__mmask16>((1u << h) - 1);
  if (a.cs == 1) {  // rows contiguous: a pair is one 32-bit word, so the strip is a transpose
    const uint16_t* line[16];
    for (int r = 0; r < 16; ++r) line[r] = r < h ? a.p + (i + r) * a.rs + k0 : nullptr;
    for (int64_t q = 0; q < full; q += 16) {
      transpose_pairs(line, static_cast<int>(min64(16, full - q)), dst + q * kMR, kMR,
                      static_cast<__mmask16>((1u << kMR) - 1));
      for (auto& l : line) l = l ? l + 32 : nullptr;
    }
  } else if (a.rs == 1) {  // columns contiguous: interleave column k and column k+1
    for (int64_t p = 0; p < full; ++p) {
      const uint16_t* c0 = a.p + i + (k0 + 2 * p) * a.cs;
      const __m512i lo = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, c0));
      const __m512i hi = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, c0 + a.cs));
      _mm512_mask_storeu_epi32(dst + p * kMR, static_cast<__mmask16>((1u << kMR) - 1),
                               _mm512_or_si512(lo, _mm512_slli_epi32(hi, 16)));
    }
  } else {
    for (int64_t p = 0; p < full; ++p)
      for (int64_t r = 0; r < kMR; ++r)
        dst[p * kMR + r] = r < h ? load_pair(a.p + (i + r) * a.rs + (k0 + 2 * p) * a.cs, a.cs, true) : 0u;
  }
  for (int64_t p = full; p < kp; ++p) {  // an odd last column
    const bool in = k0 + 2 * p < K;
    for (int64_t r = 0; r < kMR; ++r)
      dst[p * kMR + r] = r < h && in ? load_pair(a.p + (i + r) * a.rs + (k0 + 2 * p) * a.cs, a.cs, false) : 0u;
  }
}

// ---- the register tile ----
// float32 -> bfloat16 bits, round to nearest even, NaN kept quiet: the same
// integer steps as f32_to_bf16_bits (concord/half.h), so the same bits.
CONCORD_BF16 __m256i to_bf16(__m512 v) {
  const __m512i u = _mm512_castps_si512(v);
  const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
  __m512i r = _mm512_srli_epi32(_mm512_add_epi32(u, _mm512_add_epi32(_mm512_set1_epi32(0x7fff), lsb)), 16);
  const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  r = _mm512_mask_or_epi32(r, nan, _mm512_srli_epi32(u, 16), _mm512_set1_epi32(0x40));
  return _mm512_cvtepi32_epi16(r);
}

CONCORD_BF16 __m512 from_bf16(__mmask16 m, const uint16_t* p) {
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, p)), 16));
}

// The kMR x kNR product of one A strip and one B strip over kp pairs, added
// to the partial sums of earlier K blocks unless first; stored as partial
// sums unless last, and then as the result (only mr rows and nr columns).
CONCORD_BF16 void tile(int64_t kp, const uint32_t* __restrict a, const uint32_t* __restrict b, const GemmOut& d,
                       int64_t i, int64_t j, int mr, int nr, bool first, bool last) {
  __m512 acc[kMR][2];
#pragma GCC unroll 14
  for (int r = 0; r < kMR; ++r) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
  for (int64_t p = 0; p < kp; ++p) {
    const __m512bh b0 = (__m512bh)_mm512_load_si512(b + p * kNR);
    const __m512bh b1 = (__m512bh)_mm512_load_si512(b + p * kNR + 16);
#pragma GCC unroll 14
    for (int r = 0; r < kMR; ++r) {
      const __m512bh x = (__m512bh)_mm512_set1_epi32(static_cast<int>(a[p * kMR + r]));
      acc[r][0] = _mm512_dpbf16_ps(acc[r][0], x, b0);
      acc[r][1] = _mm512_dpbf16_ps(acc[r][1], x, b1);
    }
  }
  const __mmask16 m0 = static_cast<__mmask16>(nr >= 16 ? 0xFFFF : (1u << nr) - 1);
  const __mmask16 m1 = static_cast<__mmask16>(nr >= 32 ? 0xFFFF : nr <= 16 ? 0 : (1u << (nr - 16)) - 1);
  const bool to_out = last && d.bf16 != nullptr;
  const __m512 alpha = _mm512_set1_ps(d.alpha), beta = _mm512_set1_ps(d.beta);
#pragma GCC unroll 14
  for (int r = 0; r < kMR; ++r) {
    if (r >= mr) break;
    float* const part = d.part != nullptr ? d.part + (i + r) * d.ld + j : nullptr;  // null: one K block
    __m512 v0 = acc[r][0], v1 = acc[r][1];
    if (!first) {
      v0 = _mm512_add_ps(v0, _mm512_maskz_loadu_ps(m0, part));
      v1 = _mm512_add_ps(v1, _mm512_maskz_loadu_ps(m1, part + 16));
    }
    if (!to_out) {
      _mm512_mask_storeu_ps(part, m0, v0);
      _mm512_mask_storeu_ps(part + 16, m1, v1);
      continue;
    }
    // alpha·sum + beta·out in float32 (products rounded, no FMA), then one rounding.
    uint16_t* o = d.bf16 + (i + r) * d.ld + j;
    if (d.beta != 0.0f) {
      v0 = _mm512_add_ps(_mm512_mul_ps(alpha, v0), _mm512_mul_ps(beta, from_bf16(m0, o)));
      v1 = _mm512_add_ps(_mm512_mul_ps(alpha, v1), _mm512_mul_ps(beta, from_bf16(m1, o + 16)));
    } else if (d.alpha != 1.0f) {
      v0 = _mm512_mul_ps(alpha, v0);
      v1 = _mm512_mul_ps(alpha, v1);
    }
    _mm256_mask_storeu_epi16(o, m0, to_bf16(v0));
    _mm256_mask_storeu_epi16(o + 16, m1, to_bf16(v1));
  }
}

// 64-byte aligned scratch kept per thread (a fresh multi-MiB buffer costs page faults).
uint32_t* scratch(int slot, size_t words) {
  struct Free { void operator()(void* p) const { std::free(p); } };
  thread_local std::unique_ptr<uint32_t, Free> kept[3];
  thread_local size_t kept_n[3] = {0, 0, 0};
  if (words == 0) words = 1;
  if (kept_n[slot] < words) {
    kept[slot].reset();
    const size_t bytes = (words * sizeof(uint32_t) + 63) & ~size_t{63};
    kept[slot].reset(static_cast<uint32_t*>(std::aligned_alloc(64, bytes)));
    if (!kept[slot]) throw std::bad_alloc();
    kept_n[slot] = words;
  }
  return kept[slot].get();
}

}  // namespace
#endif

int bf16_min_exponent(Bf16Mat m, int64_t R, int64_t C) {
  // A zero has exponent field 0 too: give it 255 so that min() skips it.
  auto field = [](uint16_t x) { return (x & 0x7fff) == 0 ? 255 : (x >> 7) & 0xff; };
  int lo = 255;
  if (m.cs == 1) {  // rows contiguous (or a vector): a loop the compiler vectorizes
    for (int64_t i = 0; i < R && lo > 0; ++i) {
      const uint16_t* row = m.p + i * m.rs;
      int r = 255;
      for (int64_t j = 0; j < C; ++j) r = std::min(r, field(row[j]));
      lo = std::min(lo, r);
    }
    return lo;
  }
  for (int64_t j = 0; j < C && lo > 0; ++j) {  // columns contiguous (a transposed view) or any strides
    const uint16_t* col = m.p + j * m.cs;
    int r = 255;
    for (int64_t i = 0; i < R; ++i) r = std::min(r, field(col[i * m.rs]));
    lo = std::min(lo, r);
  }
  return lo;
}

#if !defined(__x86_64__)
bool gemm_bf16_available() { return false; }
void gemm_bf16(int64_t, int64_t, int64_t, Bf16Mat, Bf16Mat, GemmOut) { std::abort(); }  // never called: not available
#else
bool gemm_bf16_available() {
  static const bool ok = cpu_features().avx512_bf16 && cpu_isa() == CpuIsa::avx512;
  return ok;
}

void gemm_bf16(int64_t M, int64_t N, int64_t K, Bf16Mat a, Bf16Mat b, GemmOut d) {
  if (M <= 0 || N <= 0 || K <= 0) return;  // K == 0 is the caller's (an empty sum)
  const int64_t strips_m = ceil_div(M, kMR), strips_n = ceil_div(N, kNR);
  // Threads only when each gets about 2M multiply-adds (in double: M·N·K may pass 2^63).
  const double most = omp_in_parallel() ? 1 : omp_get_max_threads();
  const int threads = static_cast<int>(std::max(1.0, std::min(most, double(M) * double(N) * double(K) / (1 << 21))));
  // The threads form a tm x tn grid over the strips of C, each packing its own
  // operands: no thread waits for another. Pick the grid with the least work
  // on the busiest thread, in tiles (a packed B strip costs ~1.4 tiles, an A strip ~0.6).
  int64_t tm = 1, best = -1;
  for (int64_t m = 1; m <= threads; ++m) {
    if (threads % m != 0) continue;
    const int64_t pm = ceil_div(strips_m, m), pn = ceil_div(strips_n, threads / m);
    const int64_t cost = 10 * pm * pn + 14 * pn + 6 * pm;
    if (best < 0 || cost < best) best = cost, tm = m;
  }
  const int64_t tn = threads / tm;
  // K in equal even blocks: a short last block would pay the C round trip for little work.
  const int64_t kc_max = ceil_div(ceil_div(K, ceil_div(K, kKC)), 2) * 2;
  // Partial sums between K blocks: in the float32 output, else in scratch of
  // the calling thread (threads write disjoint blocks of it).
  d.ld = N;
  if (d.bf16 != nullptr && K > kc_max) d.part = reinterpret_cast<float*>(scratch(2, static_cast<size_t>(M * N)));

  std::atomic<bool> no_memory{false};  // an exception must not leave the parallel region
#pragma omp parallel num_threads(threads) if (threads > 1)
  try {
    // This thread's block of C: fixed by the grid, and every element is summed
    // by one thread in the same order, so the bits do not depend on the grid.
    const int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
    const int64_t gm = nt == threads ? tm : 1, gn = nt == threads ? tn : 1;  // fewer threads than asked: one block
    const int64_t im = t / gn, in = t % gn;
    const int64_t m0 = strips_m * im / gm * kMR, m1 = min64(M, strips_m * (im + 1) / gm * kMR);
    const int64_t n0 = strips_n * in / gn * kNR, n1 = min64(N, strips_n * (in + 1) / gn * kNR);
    uint32_t* const bp = scratch(0, static_cast<size_t>(ceil_div(min64(n1 - n0, kNC), kNR) * kNR * (kc_max / 2)));
    uint32_t* const ap = scratch(1, static_cast<size_t>(kMC * (kc_max / 2)));
    for (int64_t j0 = n0; j0 < n1 && t < gm * gn; j0 += kNC) {
      const int64_t nc = min64(kNC, n1 - j0), sn_count = ceil_div(nc, kNR);
      for (int64_t k0 = 0; k0 < K; k0 += kc_max) {
        const int64_t kc = min64(kc_max, K - k0), kp = ceil_div(kc, 2);
        for (int64_t sn = 0; sn < sn_count; ++sn)
          pack_b_strip(b, K, k0, kc, j0 + sn * kNR, min64(kNR, nc - sn * kNR), bp + sn * kp * kNR);
        for (int64_t i0 = m0; i0 < m1; i0 += kMC) {
          const int64_t mc = min64(kMC, m1 - i0), sm = ceil_div(mc, kMR);
          for (int64_t s = 0; s < sm; ++s)
            pack_a_strip(a, K, k0, kc, i0 + s * kMR, min64(kMR, mc - s * kMR), ap + s * kp * kMR);
          for (int64_t sn = 0; sn < sn_count; ++sn)
            for (int64_t s = 0; s < sm; ++s)
              tile(kp, ap + s * kp * kMR, bp + sn * kp * kNR, d, i0 + s * kMR, j0 + sn * kNR,
                   static_cast<int>(min64(kMR, mc - s * kMR)), static_cast<int>(min64(kNR, nc - sn * kNR)), k0 == 0,
                   k0 + kc >= K);
        }
      }
    }
  } catch (const std::bad_alloc&) {
    no_memory = true;
  }
  if (no_memory) throw std::bad_alloc();
}

#endif

}  // namespace concord::detail::cpu
