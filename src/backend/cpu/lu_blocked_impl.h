// The small LU of lu_avx512.h and lu_avx2.h, written once over a vector type
// S (the contract, the order of operations and why it gives the bits of
// linalg_small.h's lu_small: lu_avx512.h). Include inside an anonymous
// namespace, after defining LU_TARGET (the function attribute of the ISA) and
// the S types; needs <immintrin.h>, <algorithm>, <cmath>, <limits>, <utility>.
//
// S provides, for element type T in vectors V of kW lanes with masks M:
//   set1, load(p), store(p, v), mul_sub(y, l, x) = y - l*x (no FMA), div,
//   mask(c) (the first c lanes, clamped to [0, kW]), load(m, p) (masked lanes
//   0), store(p, m, v), bits(m) (lane l as bit l), blend(m, a, b) (b in m's
//   lanes, else a), and_mask(m, v) (0 outside m), abs, max(a, b) (b where a
//   is NaN), reduce_max, eq(a, b) (a lane bitmask), gather(m, p, stride)
//   (lane l = p[l * stride]), kR, the rows of one register tile, kBlockFrom,
//   the size from which the LU is blocked, and
//   kPanelTranspose: whether S copies full panels (kPanel columns) between
//   a's rows and the column-major copy itself, panel_in(P, ldp, a, n, rows)
//   and panel_out(a, n, P, ldp, rows), each returning the rows it did (a
//   multiple of kW; gathers do the rest).
//
// The including files are built for plain x86-64, each function marked with
// LU_TARGET: the std:: helpers instantiated here stay baseline code, safe for
// the linker to merge with any other copy.

constexpr int kPanel = 8;  // the blocked LU's panel width (lu_blocked)
constexpr int64_t kMaxN = 128;

// y -= l * x on m elements (the product rounded, then the difference: no
// FMA). No masked stores: one does not forward to the next column's loads.
// The tail is an unmasked vector ending at y + m, computed from the values
// before the update, so its overlap with the last full vector gets the same bits.
template <class S>
LU_TARGET inline __attribute__((always_inline)) void axpy_sub(typename S::T* y, const typename S::T* x, typename S::T l, int64_t m) {
  if (m < S::kW) {
    for (int64_t j = 0; j < m; ++j) y[j] -= l * x[j];
    return;
  }
  const typename S::V vl = S::set1(l);
  const typename S::V tail = S::mul_sub(S::load(y + m - S::kW), vl, S::load(x + m - S::kW));
  for (int64_t j = 0; j + S::kW <= m; j += S::kW) S::store(y + j, S::mul_sub(S::load(y + j), vl, S::load(x + j)));
  S::store(y + m - S::kW, tail);  // overlaps the last full vector with the same values
}

template <class V>
LU_TARGET int32_t lu_unblocked(typename V::T* a, int64_t n, int32_t* piv) {
  using T = typename V::T;
  int32_t info = 0;
  bool found = false;  // the pivot of column k was found while updating column k-1
  int64_t p = 0;
  for (int64_t k = 0; k < n; ++k) {
    if (!found) {
      p = k;
      T best = std::abs(a[k * n + k]);
      for (int64_t i = k + 1; i < n; ++i) {
        const T v = std::abs(a[i * n + k]);
        if (v > best) best = v, p = i;
      }
    }
    found = false;
    piv[k] = static_cast<int32_t>(p + 1);
    if (a[p * n + k] == T(0)) {
      if (info == 0) info = static_cast<int32_t>(k + 1);
      continue;  // the column below is zero too: nothing to eliminate
    }
    if (p != k)
      for (int64_t j = 0; j < n; ++j) std::swap(a[k * n + j], a[p * n + j]);
    const T* rk = a + k * n;
    const int64_t m = n - k - 1;
    T best = 0;
    for (int64_t i = k + 1; i < n; ++i) {
      T* ri = a + i * n;
      const T l = ri[k] / rk[k];
      ri[k] = l;
      if (m == 0) continue;
      axpy_sub<V>(ri + k + 1, rk + k + 1, l, m);
      const T v = std::abs(ri[k + 1]);
      if (i == k + 1 || v > best) best = v, p = i;  // the first largest, as the separate search
    }
    found = m > 0;
  }
  return info;
}

// Swaps x[0, m) and y[0, m).
template <class S>
LU_TARGET void swap_range(typename S::T* x, typename S::T* y, int64_t m) {
  int64_t j = 0;
  for (; j + S::kW <= m; j += S::kW) {
    const typename S::V a = S::load(x + j), b = S::load(y + j);
    S::store(x + j, b);
    S::store(y + j, a);
  }
  if (j == m) return;
  const typename S::M k = S::mask(m - j);  // AVX2's masked stores are slow: only the last, partial vector
  const typename S::V a = S::load(k, x + j), b = S::load(k, y + j);
  S::store(x + j, k, b);
  S::store(y + j, k, a);
}

// The pivot row of a contiguous column below and at c: the first largest |v|,
// as the scalar search (v > best, best starting at |col[c]|: a NaN never
// wins, and a NaN at c keeps c). mx: the largest non-NaN |v| below c (or
// anything not above it when there is none; NaN when unknown, then searched).
template <class S>
LU_TARGET int64_t pivot_row(const typename S::T* col, int64_t c, int64_t rows, typename S::T mx) {
  using T = typename S::T;
  const T b0 = std::abs(col[c]);
  if (b0 != b0) return c;
  if (mx != mx) {
    typename S::V m = S::set1(b0);
    for (int64_t r = c + 1; r < rows; r += S::kW) m = S::max(S::abs(S::load(S::mask(rows - r), col + r)), m);
    mx = S::reduce_max(m);
  }
  if (!(mx > b0)) return c;
  const typename S::V vm = S::set1(mx);
  for (int64_t r = c + 1;; r += S::kW)
    if (const unsigned hit = S::eq(S::abs(S::load(S::mask(rows - r), col + r)), vm) & S::bits(S::mask(rows - r)))
      return r + __builtin_ctz(hit);
}

// Step c of the panel (the pivot at row c, rows [0, rows) of columns P[c..b)),
// in one pass over vectors of rows: the column below c divided by the
// pivot, then each column right of it takes -= u·l (u its row-c element),
// the same operations as the unblocked loop. Lanes at or above row c keep
// their values (a blend, not a masked store, which would not forward to the
// next step's loads); lanes past `rows` are scratch. Returns the largest
// non-NaN |v| of column c + 1 below row c (0 if none): its pivot search's
// first pass, done on the values as they are stored.
// One vector of rows from r of panel_step with NC columns right of c (First:
// the vector holding row c, whose lanes at or above it keep their values).
template <class S, int NC, bool First>
LU_TARGET inline __attribute__((always_inline)) void panel_vec(typename S::T (*P)[kMaxN], int64_t c, int64_t r,
                                                               int64_t rows, typename S::V piv,
                                                               const typename S::V* u, typename S::M keep,
                                                               typename S::V& mx) {
  using V = typename S::V;
  const V x = S::load(P[c] + r);
  V l = S::div(x, piv);
  if (First) l = S::blend(keep, l, x);
  S::store(P[c] + r, l);
#pragma GCC unroll 8
  for (int j = 0; j < NC; ++j) {
    const V y = S::load(P[c + 1 + j] + r);
    V z = S::mul_sub(y, u[j], l);
    if (First) z = S::blend(keep, z, y);
    S::store(P[c + 1 + j] + r, z);
    if (j == 0) {
      V v = S::and_mask(S::mask(rows - r), S::abs(z));
      if (First) v = S::blend(keep, v, S::set1(0));
      mx = S::max(v, mx);
    }
  }
}

// panel_step with NC = b - c - 1 known when compiled: the columns' loop
// unrolled and their multipliers in registers (with NC a run-time bound,
// the multipliers were reloaded from the stack and each column paid a loop
// branch: the AVX2 float64 64 x 64 LU was 1.08x slower).
template <class S, int NC>
LU_TARGET typename S::T panel_step_n(typename S::T (*P)[kMaxN], int64_t c, int64_t rows) {
  using V = typename S::V;
  const V piv = S::set1(P[c][c]);
  V u[NC > 0 ? NC : 1];
#pragma GCC unroll 8
  for (int j = 0; j < NC; ++j) u[j] = S::set1(P[c + 1 + j][c]);
  V mx = S::set1(0);
  int64_t r = (c + 1) / S::kW * S::kW;
  const typename S::M keep = S::mask(c + 1 - r);  // rows <= c in the first vector
  if (r < rows) panel_vec<S, NC, true>(P, c, r, rows, piv, u, keep, mx);
  for (r += S::kW; r < rows; r += S::kW) panel_vec<S, NC, false>(P, c, r, rows, piv, u, keep, mx);
  return S::reduce_max(mx);
}

// Step c of the panel (the pivot at row c, rows [0, rows) of columns P[c..b)),
// in one pass over vectors of rows: the column below c divided by the
// pivot, then each column right of it takes -= u·l (u its row-c element),
// the same operations as the unblocked loop. Lanes at or above row c keep
// their values (a blend, not a masked store, which would not forward to the
// next step's loads); lanes past `rows` are scratch. Returns the largest
// non-NaN |v| of column c + 1 below row c (0 if none): its pivot search's
// first pass, done on the values as they are stored.
template <class S>
LU_TARGET typename S::T panel_step(typename S::T (*P)[kMaxN], int64_t c, int64_t b, int64_t rows) {
  static_assert(kPanel == 8, "panel_step dispatches on up to 7 columns right of the pivot");
  switch (b - c - 1) {
    case 0: return panel_step_n<S, 0>(P, c, rows);
    case 1: return panel_step_n<S, 1>(P, c, rows);
    case 2: return panel_step_n<S, 2>(P, c, rows);
    case 3: return panel_step_n<S, 3>(P, c, rows);
    case 4: return panel_step_n<S, 4>(P, c, rows);
    case 5: return panel_step_n<S, 5>(P, c, rows);
    case 6: return panel_step_n<S, 6>(P, c, rows);
    default: return panel_step_n<S, 7>(P, c, rows);
  }
}

// The trailing update of R rows from row i, NV vectors of columns from j
// (masked by m[v] unless Full): each element, held in a register, takes
// -= l·u for the panel's steps ks in ascending order (product rounded, then
// the difference): the operations the unblocked loop does to it, in the same
// order, with one load and one store per element per panel instead of one
// per step. Full blocks use plain loads and stores (AVX2 has no cheap masks).
template <class S, int R, int NV, bool Full>
LU_TARGET void tile_update(typename S::T* a, int64_t n, int64_t i, int64_t j, const int64_t* ks, int nk,
                           const typename S::M* m) {
  using V = typename S::V;
  V acc[NV][R];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) {
      const typename S::T* p = a + (i + r) * n + j + v * S::kW;
      acc[v][r] = Full ? S::load(p) : S::load(m[v], p);
    }
  for (int q = 0; q < nk; ++q) {
    const int64_t k = ks[q];
    V u[NV];
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) u[v] = Full ? S::load(a + k * n + j + v * S::kW) : S::load(m[v], a + k * n + j + v * S::kW);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const V l = S::set1(a[(i + r) * n + k]);
#pragma GCC unroll 2
      for (int v = 0; v < NV; ++v) acc[v][r] = S::mul_sub(acc[v][r], l, u[v]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) {
      typename S::T* p = a + (i + r) * n + j + v * S::kW;
      if (Full) S::store(p, acc[v][r]);
      else S::store(p, m[v], acc[v][r]);
    }
}

// The panel's rows right of it (U12), one vector of columns from j (masked
// by m unless Full): row r takes -= l·(row c) for the panel's steps c < r in
// ascending order, row c already final, as the unblocked loop does to each
// element; the kPanel rows stay in registers for all the steps.
template <class S, bool Full>
LU_TARGET void u12_block(typename S::T* a, int64_t n, int64_t k0, int64_t j, unsigned live, typename S::M m) {
  using V = typename S::V;
  V x[kPanel];
#pragma GCC unroll 8
  for (int r = 0; r < kPanel; ++r) x[r] = Full ? S::load(a + (k0 + r) * n + j) : S::load(m, a + (k0 + r) * n + j);
#pragma GCC unroll 8
  for (int r = 1; r < kPanel; ++r) {
    const typename S::T* lr = a + (k0 + r) * n + k0;
#pragma GCC unroll 8
    for (int c = 0; c < r; ++c)
      if (live >> c & 1u) x[r] = S::mul_sub(x[r], S::set1(lr[c]), x[c]);
    if (Full) S::store(a + (k0 + r) * n + j, x[r]);
    else S::store(a + (k0 + r) * n + j, m, x[r]);
  }
}

// Rows [i0, n) of the column block at j, S::kR rows per tile.
template <class S, int NV, bool Full>
LU_TARGET void tile_rows(typename S::T* a, int64_t n, int64_t i0, int64_t j, const int64_t* ks, int nk,
                         const typename S::M* m) {
  int64_t i = i0;
  for (; i + S::kR <= n; i += S::kR) tile_update<S, S::kR, NV, Full>(a, n, i, j, ks, nk, m);
  if constexpr (S::kR > 4)
    for (; i + 4 <= n; i += 4) tile_update<S, 4, NV, Full>(a, n, i, j, ks, nk, m);
  for (; i < n; ++i) tile_update<S, 1, NV, Full>(a, n, i, j, ks, nk, m);
}

// Blocked right-looking LU in panels of kPanel columns. Every element still
// gets the unblocked loop's operations in its order (each step's multiplier
// is a division by the pivot; each update a rounded product, then the
// difference; steps in ascending order), so the bits are the same; only the
// order across elements changes:
//   1. the panel (rows k0.., its columns) is factored in a column-major copy,
//      where the pivot search, the divisions and the updates run down
//      contiguous columns, one pass per step (panel_step); its row swaps are
//      applied to the rest of the rows;
//   2. the panel's rows right of it take the panel's steps in registers (U12,
//      u12_block);
//   3. the rows below take all the panel's steps per element at once
//      (tile_update), the GEMM-shaped bulk of the work.
// Steps with a zero pivot do nothing, as in the unblocked loop.

template <class S>
LU_TARGET int32_t lu_blocked(typename S::T* a, int64_t n, int32_t* piv) {
  using T = typename S::T;
  alignas(64) T P[kPanel][kMaxN];
  int32_t info = 0;
  for (int64_t k0 = 0; k0 < n; k0 += kPanel) {
    const int64_t b = std::min<int64_t>(kPanel, n - k0), rows = n - k0, k1 = k0 + b;
    int64_t r0 = 0;  // rows copied by S's transposes (full panels only), the rest gathered
    if constexpr (S::kPanelTranspose)
      if (b == kPanel) r0 = S::panel_in(P[0], kMaxN, a + k0 * n + k0, n, rows);
    for (int64_t c = 0; c < b; ++c)
      for (int64_t r = r0; r < rows; r += S::kW) S::store(P[c] + r, S::gather(S::mask(rows - r), a + (k0 + r) * n + k0 + c, n));
    int64_t ks[kPanel];
    int nk = 0;
    T mx = std::numeric_limits<T>::quiet_NaN();  // column c's first search pass, from step c - 1
    for (int64_t c = 0; c < b; ++c) {
      T* col = P[c];
      const int64_t p = pivot_row<S>(col, c, rows, mx);
      mx = std::numeric_limits<T>::quiet_NaN();
      piv[k0 + c] = static_cast<int32_t>(k0 + p + 1);
      if (col[p] == T(0)) {
        if (info == 0) info = static_cast<int32_t>(k0 + c + 1);
        continue;
      }
      if (p != c) {
        for (int64_t cc = 0; cc < b; ++cc) std::swap(P[cc][c], P[cc][p]);
        T* x = a + (k0 + c) * n;
        T* y = a + (k0 + p) * n;
        swap_range<S>(x, y, k0);
        swap_range<S>(x + k1, y + k1, n - k1);
      }
      ks[nk++] = k0 + c;
      if (c + 1 < rows) {
        const T m = panel_step<S>(P, c, b, rows);
        if (c + 1 < b) mx = m;
      }
    }
    r0 = 0;
    if constexpr (S::kPanelTranspose)
      if (b == kPanel) r0 = S::panel_out(a + k0 * n + k0, n, P[0], kMaxN, rows);
    for (int64_t c0 = 0; c0 < b; c0 += S::kW) {  // back to the rows, S::kW panel columns at a time
      const typename S::M bm = S::mask(b - c0);
      if (b - c0 >= S::kW)
        for (int64_t r = r0; r < rows; ++r) S::store(a + (k0 + r) * n + k0 + c0, S::gather(bm, P[c0] + r, kMaxN));
      else
        for (int64_t r = r0; r < rows; ++r) S::store(a + (k0 + r) * n + k0 + c0, bm, S::gather(bm, P[c0] + r, kMaxN));
    }
    if (nk == 0 || k1 == n) continue;
    unsigned live = 0;  // bit c: step k0 + c had a pivot (b == kPanel here: only the last panel is narrower)
    for (int q = 0; q < nk; ++q) live |= 1u << (ks[q] - k0);
    for (int64_t j = k1; j < n; j += S::kW) {
      if (n - j >= S::kW) u12_block<S, true>(a, n, k0, j, live, S::mask(S::kW));
      else u12_block<S, false>(a, n, k0, j, live, S::mask(n - j));
    }
    for (int64_t j = k1; j < n; j += 2 * S::kW) {
      const int64_t c = n - j;
      const typename S::M m[2] = {S::mask(c), S::mask(c - S::kW)};
      if (c >= 2 * S::kW) tile_rows<S, 2, true>(a, n, k1, j, ks, nk, m);
      else if (c > S::kW) tile_rows<S, 2, false>(a, n, k1, j, ks, nk, m);
      else if (c == S::kW) tile_rows<S, 1, true>(a, n, k1, j, ks, nk, m);
      else tile_rows<S, 1, false>(a, n, k1, j, ks, nk, m);
    }
  }
  return info;
}

template <class S>
LU_TARGET int32_t lu(typename S::T* a, int64_t n, int32_t* piv) {
  // Below S::kBlockFrom the panel copies cost more than the blocking saves
  // (AVX-512, against the unblocked loop: 0.7x at n = 16, 0.9x at 32,
  // 1.1-1.4x at 64, 1.3-1.5x at 100-128; AVX2, with transposed copies and
  // 6-row tiles, on a Zen 5 EPYC: float32 1.4x at 24 and 32, 1.8x at 64;
  // float64 1.1x at 24, 1.5x at 64).
  return n >= S::kBlockFrom && n <= kMaxN ? lu_blocked<S>(a, n, piv) : lu_unblocked<S>(a, n, piv);
}

