// src/dist/exact_sliced.cpp — the reproducible sum as a reduce-scatter of raw
// values (sum_paths.h). Integer addition is exact, so neither the slicing nor
// the chunking nor the order of the contributions changes the integer that
// round_exact rounds: the bits are those of the correctly rounded sum.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include "concord/creation.h"
#include "concord/half.h"
#include "dist/comm.h"
#include "dist/sum_paths.h"

namespace concord::dist::detail {
namespace {

// A dtype's storage and its exact reading as a double; put() stores a double
// that round_exact (or a single rounding) already fits to the format.
struct F32 {
  using S = float;
  static double get(S v) { return v; }
  static S put(double d) { return static_cast<float>(d); }   // one rounding, to nearest even
};
struct F64 {
  using S = double;
  static double get(S v) { return v; }
  static S put(double d) { return d; }
};

// Rounds an exact double to p bits (subnormals below 2^emin), ties to even;
// +-inf beyond max. Used for float16/bfloat16, which the CPU cannot round into.
double round_to(double d, Format f, double max) {
  if (d == 0 || !std::isfinite(d)) return d;
  const int q = std::max(std::ilogb(d) - (f.p - 1), f.emin);
  const double r = std::ldexp(std::nearbyint(std::ldexp(d, -q)), q);
  return std::fabs(r) > max ? std::copysign(INFINITY, d) : r;
}
struct F16 {
  using S = uint16_t;
  static double get(S v) { return concord::detail::f16_bits_to_f32(v); }
  static S put(double d) { return concord::detail::f32_to_f16_bits(static_cast<float>(round_to(d, {11, -24}, 65504.0))); }
};
struct BF16 {
  using S = uint16_t;
  static double get(S v) { return concord::detail::bf16_bits_to_f32(v); }
  static S put(double d) {
    return concord::detail::f32_to_bf16_bits(static_cast<float>(round_to(d, {8, -133}, 0x1.fep127)));
  }
};

Format format_of(Dtype t) {
  switch (t) {
    case Dtype::float64: return {53, -1074};
    case Dtype::float32: return {24, -149};
    case Dtype::float16: return {11, -24};
    default: return {8, -133};   // bfloat16
  }
}

// What every rank derives alike from the agreed descriptors.
struct Plan {
  int32_t base = 0;      // the window's lowest bit: every finite value is an integer times 2^base
  int64_t bits = 1;      // the accumulator's width (window, growth, sign)
  size_t limbs = 1;
  uint64_t total = 0;    // contributions over all ranks
  bool mean = false, special = false, nonfinite = false;
  Format fmt{};
  double up1 = 1, up2 = 1;       // 2^-base in two factors (each a finite double)
  double down1 = 1, down2 = 1;   // 2^base in two factors
};

constexpr size_t kBlock = 2048;   // elements per accumulator block (stays in cache)

// acc[i] += x[i] * 2^-base, an exact integer below 2^(bits-1). Non-finite
// values are left to the flags.
template <class Tag, class I>
void add_fixed(const typename Tag::S* x, size_t n, const Plan& pl, I* acc) {
  const double up1 = pl.up1, up2 = pl.up2;
  if (!pl.nonfinite) {   // the usual case: a loop without branches
    for (size_t i = 0; i < n; ++i) acc[i] += static_cast<I>(Tag::get(x[i]) * up1 * up2);
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    const double v = Tag::get(x[i]);
    acc[i] += std::isfinite(v) ? static_cast<I>(v * up1 * up2) : I{0};
  }
}

// The rounded value of an accumulated integer: a direct conversion when the
// integer has at most 53 bits (exact as a double, then rounded once by put),
// else round_exact; a mean and the special cases always go through round_exact.
template <class I>
[[gnu::noinline]] double round_fixed_slow(I s, const Plan& pl, uint8_t flags) {
  uint64_t l[2] = {static_cast<uint64_t>(s), static_cast<uint64_t>(s >> 63 >> 1)};
  return round_exact(l, sizeof(I) / 8, pl.base, pl.mean ? pl.total : 1, pl.fmt, flags);
}
template <class I>
inline double round_fixed(I s, const Plan& pl, uint8_t flags) {
  constexpr I lim = I{1} << 53;
  if (!pl.mean && flags == kNotNegZero && s != 0 && s < lim && s > -lim) [[likely]]
    return static_cast<double>(static_cast<int64_t>(s)) * pl.down1 * pl.down2;
  return round_fixed_slow(s, pl, flags);
}

// The flags of element i when no NaN or inf is present: only the sign of a
// zero sum depends on them (-0 if every contribution is -0).
template <class Tag>
uint8_t zero_flags(const std::vector<const typename Tag::S*>& segs, size_t i) {
  for (const auto* s : segs) {
    const double v = Tag::get(s[i]);
    if (!(v == 0 && std::signbit(v))) return kNotNegZero;
  }
  return 0;
}

template <class Tag, class I>
void reduce_fixed(const std::vector<const typename Tag::S*>& segs, size_t o, size_t b, const Plan& pl,
                  const uint8_t* flags, typename Tag::S* out) {
  I acc[kBlock] = {};
  for (const auto* s : segs) add_fixed<Tag, I>(s + o, b, pl, acc);
  for (size_t i = 0; i < b; ++i) {
    const uint8_t f = flags ? flags[i] : acc[i] == 0 && pl.special ? zero_flags<Tag>(segs, o + i) : uint8_t{kNotNegZero};
    out[i] = Tag::put(round_fixed<I>(acc[i], pl, f));
  }
}

// One rank's slice: segs[j] is contribution j's first element of the slice.
template <class Tag>
void reduce_slice(const std::vector<const typename Tag::S*>& segs, size_t len, const Plan& pl, typename Tag::S* out) {
  std::vector<double> tmp(kBlock);
  std::vector<uint8_t> flags;
  std::vector<uint64_t> acc;
  for (size_t o = 0; o < len; o += kBlock) {
    const size_t b = std::min(kBlock, len - o);
    auto widen = [&](const typename Tag::S* s) {
      for (size_t i = 0; i < b; ++i) tmp[i] = Tag::get(s[o + i]);
    };
    if (pl.nonfinite) {   // NaN and inf: the flags of every element
      flags.assign(b, 0);
      for (const auto* s : segs) widen(s), add_flags(tmp.data(), b, flags.data());
    }
    const uint8_t* f = pl.nonfinite ? flags.data() : nullptr;
    if (pl.bits <= 64) {
      reduce_fixed<Tag, int64_t>(segs, o, b, pl, f, out + o);
    } else if (pl.bits <= 128) {
      reduce_fixed<Tag, __int128>(segs, o, b, pl, f, out + o);
    } else {   // wide windows: the generic limbs
      acc.assign(b * pl.limbs, 0);
      for (const auto* s : segs) widen(s), accumulate(tmp.data(), b, pl.base, pl.limbs, acc.data());
      for (size_t i = 0; i < b; ++i) {
        const uint64_t* a = acc.data() + i * pl.limbs;
        const bool zero = std::all_of(a, a + pl.limbs, [](uint64_t l) { return l == 0; });
        const uint8_t fl = f ? f[i] : zero && pl.special ? zero_flags<Tag>(segs, o + i) : uint8_t{kNotNegZero};
        out[o + i] = Tag::put(round_exact(a, pl.limbs, pl.base, pl.mean ? pl.total : 1, pl.fmt, fl));
      }
    }
  }
}

template <class Tag>
std::vector<const typename Tag::S*> typed(const std::vector<const uint8_t*>& segs) {
  std::vector<const typename Tag::S*> t;
  for (const uint8_t* s : segs) t.push_back(reinterpret_cast<const typename Tag::S*>(s));
  return t;
}

template <class Fn>
void with_format(Dtype dt, Fn fn) {
  switch (dt) {
    case Dtype::float64: return fn(F64{});
    case Dtype::float32: return fn(F32{});
    case Dtype::float16: return fn(F16{});
    default: return fn(BF16{});
  }
}

// prod, max, min of one slice: the contributions folded in (rank, local
// index) order in float64, then rounded once to the dtype (the max and min
// are one of the values: exact).
template <class Tag>
void fold_slice(const std::vector<const typename Tag::S*>& segs, size_t len, ReduceOp op, typename Tag::S* out) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  double acc[kBlock];
  for (size_t o = 0; o < len; o += kBlock) {
    const size_t b = std::min(kBlock, len - o);
    for (size_t i = 0; i < b; ++i) acc[i] = Tag::get(segs[0][o + i]);
    for (size_t j = 1; j < segs.size(); ++j)
      for (size_t i = 0; i < b; ++i) {
        double& a = acc[i];
        const double v = Tag::get(segs[j][o + i]);
        if (op == ReduceOp::prod) { a *= v; continue; }
        if (std::isnan(a) || std::isnan(v)) { a = nan; continue; }
        const bool more = v > a || (v == a && !std::signbit(v) && std::signbit(a));   // +0 above -0
        const bool less = v < a || (v == a && std::signbit(v) && !std::signbit(a));
        if (op == ReduceOp::max ? more : less) a = v;
      }
    for (size_t i = 0; i < b; ++i) out[o + i] = Tag::put(std::isnan(acc[i]) ? nan : acc[i]);
  }
}

// The window of n raw values of a binary format with MB stored significand
// bits and EB exponent bits, read as unsigned integers U: the exponents of the
// lowest and the highest set bit over the finite nonzero values (Window).
template <class U, int MB, int EB>
void scan_bits(const U* x, size_t n, Window& w) {
  constexpr uint64_t sign = uint64_t{1} << (MB + EB), expo = ((uint64_t{1} << EB) - 1) << MB;
  constexpr uint64_t mant = (uint64_t{1} << MB) - 1;
  constexpr int bias = (1 << (EB - 1)) - 1;
  int32_t lsb = w.lsb, top = w.top;
  bool special = w.special, nonfinite = w.nonfinite;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t u = x[i], a = u & ~sign;
    if (a == 0 || (a & expo) == expo) [[unlikely]] {   // zero, inf, NaN
      special = special || a != 0 || u != 0;
      nonfinite = nonfinite || a != 0;
      continue;
    }
    const int ef = static_cast<int>(a >> MB);
    const uint64_t m = (a & mant) | (ef ? mant + 1 : 0);
    const int e = (ef ? ef : 1) - bias - MB;
    lsb = std::min(lsb, e + std::countr_zero(m));
    top = std::max(top, e + 63 - std::countl_zero(m));
  }
  w.lsb = lsb, w.top = top, w.special = special, w.nonfinite = nonfinite;
}

void split_pow2(int32_t e, double& a, double& b) {
  a = std::ldexp(1.0, e / 2);
  b = std::ldexp(1.0, e - e / 2);
}

// The scheme of every sliced reduction (sum_paths.h): chunks of the elements,
// each cut into one slice per rank; an all-to-all brings every contribution of
// this rank's slice here, in (rank, local index) order; `reduce` writes the
// slice's results; an all-gather in place returns every slice to every rank.
using SliceFn = std::function<void(const std::vector<const uint8_t*>& segs, size_t len, uint8_t* out)>;
void by_slices(const std::vector<const void*>& local, size_t n, const std::vector<Desc>& all, size_t isz, void* out,
               const SliceFn& reduce) {
  uint64_t total = 0;
  for (const Desc& d : all) total += static_cast<uint64_t>(d.contributions);
  const size_t N = all.size(), me = static_cast<size_t>(comm_rank()), k = local.size();
  // Chunks keep every MPI count below 2^30 bytes; slices are even splits of a chunk.
  const size_t chunk = std::max<size_t>(1, (size_t{1} << 30) / (isz * std::max<uint64_t>(total, 1)));
  // Scratch memory from the CPU allocator, whose cache of large blocks keeps
  // the pages faulted in from one call to the next (a fresh 64 MiB buffer
  // costs 16k page faults); every byte is written before it is read.
  Tensor pack, recv;
  auto scratch = [](Tensor& t, size_t bytes) -> uint8_t* {
    if (!t.defined() || static_cast<size_t>(t.numel()) < bytes)
      t = empty({static_cast<int64_t>(std::max<size_t>(bytes, 1))}, Dtype::uint8, kCPU);
    return static_cast<uint8_t*>(t.raw_data());
  };
  std::vector<size_t> sc(N), sd(N), rc(N), rd(N), gc(N), gd(N);
  auto* dst = static_cast<uint8_t*>(out);
  for (size_t o = 0; o < n; o += chunk) {
    const size_t c = std::min(chunk, n - o), each = c / N, extra = c % N;
    auto off = [&](size_t s) { return s * each + std::min(s, extra); };
    auto len = [&](size_t s) { return each + (s < extra ? 1 : 0); };
    const uint8_t* send = nullptr;
    if (k == 1) {   // the tensor itself: slice s is already contiguous
      send = static_cast<const uint8_t*>(local[0]) + o * isz;
      for (size_t s = 0; s < N; ++s) sc[s] = len(s) * isz, sd[s] = off(s) * isz;
    } else {        // several contributions: slice s of each, back to back
      uint8_t* packed = scratch(pack, c * k * isz);
      for (size_t s = 0, at = 0; s < N; ++s) {
        sd[s] = at, sc[s] = len(s) * k * isz;
        for (size_t j = 0; j < k; ++j, at += len(s) * isz)
          std::memcpy(packed + at, static_cast<const uint8_t*>(local[j]) + (o + off(s)) * isz, len(s) * isz);
      }
      send = packed;
    }
    size_t at = 0;
    for (size_t q = 0; q < N; ++q)
      rd[q] = at, rc[q] = static_cast<size_t>(all[q].contributions) * len(me) * isz, at += rc[q];
    uint8_t* got = scratch(recv, at);
    comm_alltoallv(send, sc, sd, got, rc, rd);
    std::vector<const uint8_t*> segs;
    for (size_t j = 0; j < total; ++j) segs.push_back(got + j * len(me) * isz);
    reduce(segs, len(me), dst + (o + off(me)) * isz);
    for (size_t s = 0; s < N; ++s) gc[s] = len(s) * isz, gd[s] = off(s) * isz;
    comm_allgatherv_inplace(dst + o * isz, gc, gd);
  }
}

}  // namespace

void scan_raw(const void* data, size_t n, Dtype dt, Window& w) {
  switch (dt) {
    case Dtype::float64: return scan_bits<uint64_t, 52, 11>(static_cast<const uint64_t*>(data), n, w);
    case Dtype::float32: return scan_bits<uint32_t, 23, 8>(static_cast<const uint32_t*>(data), n, w);
    case Dtype::float16: return scan_bits<uint16_t, 10, 5>(static_cast<const uint16_t*>(data), n, w);
    default: return scan_bits<uint16_t, 7, 8>(static_cast<const uint16_t*>(data), n, w);
  }
}


void exact_sum_sliced(const std::vector<const void*>& local, size_t n, const std::vector<Desc>& all, Dtype dt,
                      bool mean, void* out) {
  Plan pl;
  const Window w = global_window(all, &pl.total);
  pl.base = w.empty() ? 0 : w.lsb;
  pl.bits = w.empty() ? 1 : int64_t{w.top} - w.lsb + 1 + std::bit_width(pl.total) + 1;
  pl.limbs = limbs_for(w, pl.total);
  pl.mean = mean, pl.special = w.special, pl.nonfinite = w.nonfinite, pl.fmt = format_of(dt);
  split_pow2(-pl.base, pl.up1, pl.up2);
  split_pow2(pl.base, pl.down1, pl.down2);
  const size_t isz = itemsize(dt);
  with_format(dt, [&](auto tag) {
    using Tag = decltype(tag);
    by_slices(local, n, all, isz, out, [&](const std::vector<const uint8_t*>& segs, size_t len, uint8_t* mine) {
      reduce_slice<Tag>(typed<Tag>(segs), len, pl, reinterpret_cast<typename Tag::S*>(mine));
    });
  });
}

void fold_sliced(const std::vector<const void*>& local, size_t n, const std::vector<Desc>& all, Dtype dt, ReduceOp op,
                 void* out) {
  with_format(dt, [&](auto tag) {
    using Tag = decltype(tag);
    by_slices(local, n, all, itemsize(dt), out, [&](const std::vector<const uint8_t*>& segs, size_t len, uint8_t* mine) {
      fold_slice<Tag>(typed<Tag>(segs), len, op, reinterpret_cast<typename Tag::S*>(mine));
    });
  });
}

}  // namespace concord::dist::detail
