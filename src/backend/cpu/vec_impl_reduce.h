// Part of vec_impl.h's per-ISA body (included from it, inside its namespace,
// with its macros and vector types): block reductions in the reduction
// engine's order and the softmax output pass. Not a standalone header.
// ---------------- reductions in the engine's order ----------------

constexpr int L = kRedLanes;  // lanes of one block
constexpr int K = L / W;      // vectors holding the lanes
static_assert(L % W == 0, "a block's lanes fill whole vectors");

// The engine's max/min: NaN propagates, and once a lane holds a NaN it keeps
// that NaN; on ties the later element wins.
VEC_INLINE vf max_v(vf a, vf b) { return ((a > b) | (a != a)) ? a : b; }
VEC_INLINE vf min_v(vf a, vf b) { return ((a < b) | (a != a)) ? a : b; }

VEC_INLINE vi lane_index() {
  vi v;
  for (int j = 0; j < W; ++j) v[j] = j;
  return v;
}

// Lane j of v moved to lane j - w (the upper lanes wrap; the tree ignores them).
template <int w>
VEC_INLINE vf lanes_down(vf v) {
  return __builtin_shuffle(v, (lane_index() + w) & (W - 1));
}

// The lane tree of a block: lane l = op(lane l, lane l + w) for w = L/2 ... 1,
// first across the K vectors, then inside the first one with shuffles. Vector
// operations on the lanes the scalar tree combines, so the same bits, without
// its 15 data-dependent branches (max/min) or its round trip through memory.
template <RedOp OP>
VEC_INLINE vf tree_op(vf a, vf b) {
  if constexpr (OP == RedOp::max) return max_v(a, b);
  else if constexpr (OP == RedOp::min) return min_v(a, b);
  else return a + b;
}
template <RedOp OP>
VEC_INLINE float lane_tree(vf (&acc)[K]) {
  for (int v = K / 2; v >= 1; v /= 2)
    for (int k = 0; k < v; ++k) acc[k] = tree_op<OP>(acc[k], acc[k + v]);
  vf a = acc[0];
  if constexpr (W >= 16) a = tree_op<OP>(a, lanes_down<8>(a));
  if constexpr (W >= 8) a = tree_op<OP>(a, lanes_down<4>(a));
  a = tree_op<OP>(a, lanes_down<2>(a));
  a = tree_op<OP>(a, lanes_down<1>(a));
  return a[0];
}

// Whether any lane of m is nonzero (an or-tree, as lane_tree).
VEC_INLINE bool any_lane(vi m) {
  vf a = as<vf>(m);
  if constexpr (W >= 16) a = as<vf>(as<vi>(a) | as<vi>(lanes_down<8>(a)));
  if constexpr (W >= 8) a = as<vf>(as<vi>(a) | as<vi>(lanes_down<4>(a)));
  a = as<vf>(as<vi>(a) | as<vi>(lanes_down<2>(a)));
  a = as<vf>(as<vi>(a) | as<vi>(lanes_down<1>(a)));
  return as<vi>(a)[0] != 0;
}

// One block (len <= kRedBlock): lane l of vector k is lane k*W + l of the
// engine; a partial last group of L is padded with a value that leaves every
// lane unchanged. The lane tree runs once per block (lane_tree).
template <Ty T, RedOp OP, bool STORE, bool FAST = false>
float red_block(const typename Io<T>::E* x, int64_t len, float shift, float* e) {
  using E = typename Io<T>::E;
  constexpr bool kExp = OP == RedOp::exp_sum || OP == RedOp::exp_sum_max;
  const float inf = __builtin_inff();
  const float id = OP == RedOp::max ? -inf : OP == RedOp::min ? inf : -0.0f;
  const vf idv = splat<vf>(id), sh = splat<vf>(shift);
  vf acc[K];
  for (int k = 0; k < K; ++k) acc[k] = idv;
  vi nan = splat<vi>(0);
  auto step = [&](vf& a, vf v, float* ep, vi keep) {
    if constexpr (OP == RedOp::sum) {
      a = a + (keep ? v : idv);
    } else if constexpr (FAST) {
      nan |= as<vi>(v != v);
      a = OP == RedOp::max ? max_x86(a, keep ? v : idv) : min_x86(a, keep ? v : idv);
    } else if constexpr (OP == RedOp::max) {
      a = max_v(a, keep ? v : idv);
    } else if constexpr (OP == RedOp::min) {
      a = min_v(a, keep ? v : idv);
    } else {
      const vf ex = ExpOf<OP == RedOp::exp_sum_max>::f(v - sh);
      if constexpr (STORE) store(ep, ex);
      a = a + (keep ? ex : idv);
    }
  };
  const vi all = splat<vi>(-1);
  int64_t i = 0;
  if constexpr (kExp) {
    // Groups of four vectors per step (two groups on AVX2, four on AVX-512):
    // their exps are independent, so the core works on all while one waits on
    // its latency (ExpLe::many interleaves them); the sums still run in
    // element order.
    constexpr int G = K >= 4 ? 1 : 4 / K;
    for (; i + G * L <= len; i += G * L) {
      vf ex[G * K];
#pragma GCC unroll 8
      for (int u = 0; u < G * K; ++u) ex[u] = Io<T>::get(x + i + u * W) - sh;
      ExpOf<OP == RedOp::exp_sum_max>::many(ex);
      if constexpr (STORE)
#pragma GCC unroll 8
        for (int u = 0; u < G * K; ++u) store(e + i + u * W, ex[u]);
#pragma GCC unroll 8
      for (int u = 0; u < G * K; ++u) acc[u % K] = acc[u % K] + ex[u];
    }
  }
  for (; i + L <= len; i += L)
#pragma GCC unroll 4
    for (int k = 0; k < K; ++k) step(acc[k], Io<T>::get(x + i + k * W), STORE ? e + i + k * W : nullptr, all);
  if (i < len) {
    const int m = static_cast<int>(len - i);
    E xt[L] = {};
    float et[L];
    std::memcpy(xt, x + i, m * sizeof(E));
    const vi idx = lane_index();
    for (int k = 0; k < K; ++k) step(acc[k], Io<T>::get(xt + k * W), et + k * W, idx + k * W < m);
    if constexpr (STORE) std::memcpy(e + i, et, m * sizeof(float));
  }
  if constexpr (FAST) {
    if (any_lane(nan)) return red_block<T, OP, STORE, false>(x, len, shift, e);
  }
  return lane_tree<kExp ? RedOp::sum : OP>(acc);
}

template <Ty T, RedOp OP, bool STORE>
void red_run(const void* xp, int64_t n, float shift, float* part, float* e) {
  const auto* x = static_cast<const typename Io<T>::E*>(xp);
  for (int64_t b = 0, i0 = 0; i0 < n; ++b, i0 += kRedBlock) {
    const int64_t len = n - i0 < kRedBlock ? n - i0 : kRedBlock;
    part[b] = red_block<T, OP, STORE, OP == RedOp::max || OP == RedOp::min>(x + i0, len, shift, STORE ? e + i0 : nullptr);
  }
}

template <Ty T>
void reduce_ty(RedOp op, const void* x, int64_t n, float shift, float* part, float* e) {
  switch (op) {
    case RedOp::sum: return red_run<T, RedOp::sum, false>(x, n, shift, part, e);
    case RedOp::max: return red_run<T, RedOp::max, false>(x, n, shift, part, e);
    case RedOp::min: return red_run<T, RedOp::min, false>(x, n, shift, part, e);
    case RedOp::exp_sum:
      if (e) return red_run<T, RedOp::exp_sum, true>(x, n, shift, part, e);
      return red_run<T, RedOp::exp_sum, false>(x, n, shift, part, e);
    case RedOp::exp_sum_max:
      if (e) return red_run<T, RedOp::exp_sum_max, true>(x, n, shift, part, e);
      return red_run<T, RedOp::exp_sum_max, false>(x, n, shift, part, e);
  }
}

void reduce_blocks(RedOp op, Ty ty, const void* x, int64_t n, float shift, float* part, float* e) {
  switch (ty) {
    case Ty::f32: return reduce_ty<Ty::f32>(op, x, n, shift, part, e);
    case Ty::f16: return reduce_ty<Ty::f16>(op, x, n, shift, part, e);
    case Ty::bf16: return reduce_ty<Ty::bf16>(op, x, n, shift, part, e);
  }
}

#if VEC_W >= 8
// max_any (vec_math.h) over one block: four chains of the x86 max side by
// side. The tail is padded with x[0], which leaves the max unchanged.
template <Ty T>
float max_any_block(const typename Io<T>::E* x, int64_t len) {
  using E = typename Io<T>::E;
  constexpr int U = 4;
  vf a[U];
  for (int u = 0; u < U; ++u) a[u] = splat<vf>(-__builtin_inff());
  int64_t i = 0;
  for (; i + U * W <= len; i += U * W)
#pragma GCC unroll 4
    for (int u = 0; u < U; ++u) a[u] = max_x86(a[u], Io<T>::get(x + i + u * W));
  for (; i + W <= len; i += W) a[0] = max_x86(a[0], Io<T>::get(x + i));
  if (i < len) {
    E xt[W];
    for (int j = 0; j < W; ++j) xt[j] = x[0];
    std::memcpy(xt, x + i, (len - i) * sizeof(E));
    a[1] = max_x86(a[1], Io<T>::get(xt));
  }
  vf m = max_x86(max_x86(a[0], a[1]), max_x86(a[2], a[3]));
  if constexpr (W >= 16) m = max_x86(m, lanes_down<8>(m));
  m = max_x86(m, lanes_down<4>(m));
  m = max_x86(m, lanes_down<2>(m));
  m = max_x86(m, lanes_down<1>(m));
  return m[0];
}

template <Ty T>
void max_any_ty(const void* xp, int64_t n, float* part) {
  const auto* x = static_cast<const typename Io<T>::E*>(xp);
  for (int64_t b = 0, i0 = 0; i0 < n; ++b, i0 += kRedBlock) part[b] = max_any_block<T>(x + i0, n - i0 < kRedBlock ? n - i0 : kRedBlock);
}

void max_any(Ty ty, const void* x, int64_t n, float* part) {
  switch (ty) {
    case Ty::f32: return max_any_ty<Ty::f32>(x, n, part);
    case Ty::f16: return max_any_ty<Ty::f16>(x, n, part);
    case Ty::bf16: return max_any_ty<Ty::bf16>(x, n, part);
  }
}
#endif

// ---------------- softmax output pass ----------------

// e * b, and e's NaN where both are NaN (a NaN row: e from x - max, b from
// 1 / sum). x86 returns the first operand's NaN, and the compiler may put
// either operand first, so the order is written out: every level keeps e's.
VEC_INLINE vf times_keep_nan(vf e, vf b) { return e != e ? e : e * b; }

template <Ty T, RowOut OP>
VEC_INLINE vf row_value(const void* x, int64_t i, vf a, vf b) {
  if constexpr (OP == RowOut::scale) return load<vf>(static_cast<const float*>(x) + i) * a;
  else if constexpr (OP == RowOut::exp_scale) return times_keep_nan(Exp::f(Io<T>::get(static_cast<const typename Io<T>::E*>(x) + i) - a), b);
  else if constexpr (OP == RowOut::exp_scale_max) return times_keep_nan(ExpLe::f(Io<T>::get(static_cast<const typename Io<T>::E*>(x) + i) - a), b);
  else return (Io<T>::get(static_cast<const typename Io<T>::E*>(x) + i) - a) - b;
}

template <Ty T, RowOut OP, bool C>
void row_run(void* out, const void* x, int64_t n, float a, float b) {
  using E = typename Io<T>::E;
  using In = std::conditional_t<OP == RowOut::scale, float, E>;
  E* o = static_cast<E*>(out);
  const vf av = splat<vf>(a), bv = splat<vf>(b);
  int64_t i = 0;
  auto value = [&](const void* p, int64_t k) {
    const vf r = row_value<T, OP>(p, k, av, bv);
    if constexpr (C) return canon_nan(r);
    else return r;
  };
  for (; i + W <= n; i += W) Io<T>::put(o + i, value(x, i));
  if (i < n) {
    const int64_t m = n - i;
    In xt[W] = {};
    E ot[W];
    std::memcpy(xt, static_cast<const In*>(x) + i, m * sizeof(In));
    Io<T>::put(ot, value(xt, 0));
    std::memcpy(o + i, ot, m * sizeof(E));
  }
}

template <Ty T, bool C>
void row_out_ty(RowOut op, void* o, const void* x, int64_t n, float a, float b) {
  switch (op) {
    case RowOut::scale: return row_run<T, RowOut::scale, C>(o, x, n, a, b);
    case RowOut::exp_scale: return row_run<T, RowOut::exp_scale, C>(o, x, n, a, b);
    case RowOut::exp_scale_max: return row_run<T, RowOut::exp_scale_max, C>(o, x, n, a, b);
    case RowOut::log: return row_run<T, RowOut::log, C>(o, x, n, a, b);
  }
}

template <bool C>
void row_out_c(RowOut op, Ty ty, void* o, const void* x, int64_t n, float a, float b) {
  switch (ty) {
    case Ty::f32: return row_out_ty<Ty::f32, C>(op, o, x, n, a, b);
    case Ty::f16: return row_out_ty<Ty::f16, C>(op, o, x, n, a, b);
    case Ty::bf16: return row_out_ty<Ty::bf16, C>(op, o, x, n, a, b);
  }
}
