// Device kernels of copies (every dtype conversion pair), fill, iota, where,
// clamp, and elementwise ops over strided, broadcast and negative-stride
// views, on every device whose memory is device memory: bit for bit against
// the CPU backend on the same data (kernel_checks.h).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "backend/cpu/convert.h"
#include "backend/kernel_checks.h"

namespace concord::test {
namespace {

class KernelsCopy : public DeviceKernels {};

TEST_P(KernelsCopy, EveryConversionPairMatchesCpuBitwise) {
  int pairs = 0;
  for (Dtype s : kAllDtypes) {
    if (!storable(s)) continue;
    const auto bits = sample(s, 2048, 17 + static_cast<uint64_t>(s));
    Tensor hs = from_raw(bits, s);
    Tensor ds = hs.to(device());
    ASSERT_EQ(raw_bytes(ds), bits) << "transfer of " << name(s);
    const int64_t n = hs.numel();
    for (Dtype d : kAllDtypes) {
      if (!storable(d)) continue;
      ASSERT_TRUE(native(OpId::copy, d)) << device().str() << " must copy into every dtype it stores";
      ++pairs;
      const std::string what = std::string(name(s)) + " -> " + std::string(name(d));
      const auto want = raw_bytes(hs.to(d));
      // Contiguous source and destination.
      Tensor got = empty({n}, d, device());
      got.copy_(ds);
      expect_same_bits(want, raw_bytes(got), d, &bits, s, what + " (contiguous)");
      // Strided destination: every other element of a wider buffer.
      Tensor wide = zeros({n, 2}, d, device());
      Tensor col = wide.select(1, 1);
      col.copy_(ds);
      expect_same_bits(want, raw_bytes(col), d, &bits, s, what + " (strided dst)");
      // Reversed (negative stride) source.
      Tensor rev_h(hs.storage(), {n}, {-1}, n - 1, s);
      Tensor rev_d(ds.storage(), {n}, {-1}, n - 1, s);
      Tensor want_rev = empty({n}, d);
      want_rev.copy_(rev_h);
      Tensor got_rev = empty({n}, d, device());
      got_rev.copy_(rev_d);
      expect_same_bits(raw_bytes(want_rev), raw_bytes(got_rev), d, nullptr, s, what + " (reversed src)");
    }
  }
  EXPECT_EQ(pairs, storable(float64) ? 100 : 81);
}

TEST_P(KernelsCopy, SameDtypeCopiesAndBroadcast) {
  for (Dtype t : kAllDtypes) {
    if (!storable(t)) continue;
    const auto bits = sample(t, 600, 5);
    const int64_t n = static_cast<int64_t>(bits.size() / itemsize(t)) / 6 * 6;
    Tensor h = from_raw(bits, t).narrow(0, 0, n).reshape({n / 6, 6});
    Tensor d = h.to(device());
    expect_same_bits(raw_bytes(h.clone()), raw_bytes(d.clone()), t, nullptr, t, std::string(name(t)) + " clone");
    expect_same_bits(raw_bytes(h.t().contiguous()), raw_bytes(d.t().contiguous()), t, nullptr, t,
                     std::string(name(t)) + " transpose");
    // A broadcast row into a [5, 6] destination slice.
    Tensor hd = zeros({5, 12}, t), dd = zeros({5, 12}, t, device());
    hd.slice(1, 3, 9).copy_(h.select(0, 1));
    dd.slice(1, 3, 9).copy_(d.select(0, 1));
    expect_same_bits(raw_bytes(hd), raw_bytes(dd), t, nullptr, t, std::string(name(t)) + " broadcast row");
  }
}

// ---------------------------------------------------------------- fill, iota, where, clamp

TEST_P(KernelsCopy, FillAndIotaMatchCpu) {
  for (Dtype t : kAllDtypes) {
    if (!storable(t)) continue;
    for (Scalar v : {Scalar(3.75), Scalar(-1), Scalar(true), Scalar(1e10), Scalar(-0.0), Scalar(int64_t{300})}) {
      Tensor h = zeros({7, 9}, t), d = zeros({7, 9}, t, device());
      cb().fill(h, v);
      be().fill(d, v);
      expect_same_bits(raw_bytes(h), raw_bytes(d), t, nullptr, t, std::string(name(t)) + " fill " + v.str());
      Tensor hs = zeros({7, 9}, t), ds = zeros({7, 9}, t, device());
      cb().fill(hs.slice(1, 1, 9, 3), v);
      be().fill(ds.slice(1, 1, 9, 3), v);
      expect_same_bits(raw_bytes(hs), raw_bytes(ds), t, nullptr, t, std::string(name(t)) + " strided fill " + v.str());
    }
    for (auto [start, step] : {std::pair{0.0, 1.0}, std::pair{-3.25, 0.1}, std::pair{1e6, -7.5}, std::pair{0.5, 1e-3}}) {
      // iota computes start + i * step in float64 (what floating arange and
      // linspace run on): only where the device claims them.
      if (!native(OpId::linspace, t)) break;
      Tensor h = empty({1000}, t), d = empty({1000}, t, device());
      cb().iota(h, start, step);
      be().iota(d, start, step);
      expect_same_bits(raw_bytes(h), raw_bytes(d), t, nullptr, t, std::string(name(t)) + " iota");
    }
    if (is_floating(t) || !native(OpId::arange, t)) continue;
    for (auto [start, step] : {std::pair<int64_t, int64_t>{0, 1}, {-7, 3}, {int64_t{1} << 40, -5}}) {
      Tensor h = empty({1000}, t), d = empty({1000}, t, device());
      cb().iota_int(h, start, step);
      be().iota_int(d, start, step);
      expect_same_bits(raw_bytes(h), raw_bytes(d), t, nullptr, t, std::string(name(t)) + " iota_int");
    }
  }
}

TEST_P(KernelsCopy, WhereAndClampMatchCpu) {
  std::mt19937_64 rng(3);
  std::vector<uint8_t> cond(8 * 5);
  for (auto& c : cond) c = rng() & 1;
  Tensor ch = from_host(cond.data(), {8, 5}, bool_), cd = ch.to(device());
  for (Dtype t : kAllDtypes) {
    if (!native(OpId::where, t)) {
      std::cout << "  " << device().str() << " has no native where/clamp in " << name(t) << ": not called\n";
      continue;
    }
    const auto bits = sample(t, 40, 9);
    Tensor ah = from_raw(bits, t).narrow(0, 0, 40).reshape({5, 8}), ad = ah.to(device());
    Tensor bh = from_raw(bits, t).narrow(0, 1, 5), bd = bh.to(device());
    // a transposed, b a broadcast column, cond as is.
    Tensor oh = empty({8, 5}, t), od = empty({8, 5}, t, device());
    cb().where(ch, ah.t(), bh.expand({8, 5}), oh);
    be().where(cd, ad.t(), bd.expand({8, 5}), od);
    expect_same_bits(raw_bytes(oh), raw_bytes(od), t, nullptr, t, std::string(name(t)) + " where");
    if (t == bool_ || !native(OpId::clamp, t)) continue;
    using B = std::optional<Scalar>;
    for (auto [lo, hi] : {std::pair<B, B>{Scalar(-1.5), Scalar(100)}, std::pair<B, B>{Scalar(0), std::nullopt},
                          std::pair<B, B>{std::nullopt, Scalar(int64_t{1000})}, std::pair<B, B>{Scalar(5), Scalar(-5)},
                          std::pair<B, B>{Scalar(std::nan("")), Scalar(1)}}) {
      Tensor xh = empty({8, 5}, t), xd = empty({8, 5}, t, device());
      cb().clamp(ah.t(), lo, hi, xh);
      be().clamp(ad.t(), lo, hi, xd);
      expect_same_bits(raw_bytes(xh), raw_bytes(xd), t, nullptr, t,
                       std::string(name(t)) + " clamp " + (lo ? lo->str() : "-") + " " + (hi ? hi->str() : "-"));
    }
  }
}

TEST_P(KernelsCopy, StridedBroadcastAndNegativeStrideInputs) {
  for (Dtype t : {float32, int32, float16, bfloat16, int8, float64}) {
    if (!storable(t)) continue;
    Tensor base_h = op_input(t, 12 * 10, 31, -5, 5);
    // Layouts are under test here, not subnormals: a device that does not
    // promise to keep them gets inputs without them.
    if (!capabilities(device()).keeps_subnormals) base_h = flush_subnormals(base_h);
    Tensor base_d = base_h.to(device());
    auto views = [&](const Tensor& base) {
      // [10, 12] transposed from [12, 10]; a reversed [12] row; a [10, 1] column slice.
      std::vector<Tensor> v;
      v.push_back(base.reshape({12, 10}).t());
      v.push_back(Tensor(base.storage(), {12}, {-1}, base.offset() + 11, t).unsqueeze(0).expand({10, 12}));
      v.push_back(base.reshape({12, 10}).slice(0, 2, 12, 1).t().slice(1, 0, 1));  // [10, 1]
      v.push_back(Tensor(base.storage(), {10, 12}, {-12, 1}, base.offset() + 9 * 12, t));
      v.push_back(scalar_tensor(0.0, t).to(base.device()).expand({10, 12}));
      return v;
    };
    auto vh = views(base_h), vd = views(base_d);
    for (size_t i = 0; i < vh.size(); ++i) {
      for (size_t j = 0; j < vh.size(); ++j) {
        const Tensor bh = vh[j].expand({10, 12}), bd = vd[j].expand({10, 12});
        const Tensor ah = vh[i].expand({10, 12}), ad = vd[i].expand({10, 12});
        for (OpId op : {OpId::add, OpId::maximum, OpId::lt}) {
          if (!native(op, t)) continue;
          const Dtype ot = op == OpId::lt ? bool_ : t;
          Tensor oh = empty({10, 12}, ot), od = empty({10, 12}, ot, device());
          cb().binary(op, ah, bh, oh);
          be().binary(op, ad, bd, od);
          expect_same_bits(raw_bytes(oh), raw_bytes(od), ot, nullptr, t,
                           std::string(op_name(op)) + " " + std::string(name(t)) + " views " + std::to_string(i) +
                               "," + std::to_string(j),
                           /*nan_payloads=*/false);
        }
      }
      if (!native(OpId::neg, t)) continue;
      Tensor oh = empty({10, 12}, t), od = empty({10, 12}, t, device());
      cb().unary(OpId::neg, vh[i].expand({10, 12}), oh);
      be().unary(OpId::neg, vd[i].expand({10, 12}), od);
      expect_same_bits(raw_bytes(oh), raw_bytes(od), t, nullptr, t, "neg " + std::string(name(t)) + " view " + std::to_string(i),
                       /*nan_payloads=*/false);
    }
  }
}

CONCORD_INSTANTIATE_DEVICE_KERNELS(KernelsCopy);

}  // namespace
}  // namespace concord::test
