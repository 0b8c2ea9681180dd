// The reproducible mode's reductions, cumsum and softmax on every device,
// the point being Vulkan's exact variants (shaders/reduce_xops.glsl: float32
// or float64 on bits, integer instructions only):
// sum, mean, prod, max/min, amax/amin, argmax/argmin, var/std, norm (1, 2,
// inf), all/any, cumsum, softmax, log_softmax and logsumexp of float16,
// bfloat16, float32 and float64 (the last three of float64 in
// reduce_xs_f64, with the CPU's float64 exp and log on bits; more of them in
// test_reproducible_vulkan_softmax64.cpp) give the CPU's bits for inputs rich in
// subnormals, signed zeros, infinities, NaNs (payloads of both signs), values
// near overflow and near the subnormal boundary; in rows and columns, on
// strided and broadcast views, across the 4096-element block, the subtree
// rounds of the block combine (more than 16 blocks) and argmax's group
// merges (more than 32 blocks), for empty and one-element reductions and
// all-NaN rows. On vulkan the ops run natively in the mode (no fallback in
// the report) with no separate NaN pass.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "concord/concord.h"
#include "support/bits.h"
#include "support/devices.h"

using namespace concord;
using concord::test::first_difference;

namespace {

// A small deterministic generator (splitmix64).
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uni(double lo, double hi) { return lo + (hi - lo) * static_cast<double>(next() >> 11) * 0x1p-53; }
};

float f32_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// The row kinds of edgy(): what each row of an input holds.
enum Kind { kMixed, kSubnormal, kNearOverflow, kBoundary, kExpRange, kNearOne, kAllNan, kZeros, kInfs, kNumKinds };

double f64_bits(uint64_t u) {
  double f;
  std::memcpy(&f, &u, 8);
  return f;
}

// rows x cols values of type V (float: float32 and the halves, rounded to
// their dtype afterwards; double: float64): row r is of kind r % kNumKinds.
// tiny / huge: the dtype's smallest normal and largest finite value, so each
// dtype gets its own subnormals and overflow; nans: four NaN bit patterns.
template <class V>
std::vector<V> edgy_values(int64_t rows, int64_t cols, double tiny, double huge, const V (&nans)[4], uint64_t seed) {
  Rng g{seed};
  std::vector<V> v(static_cast<size_t>(rows * cols));
  for (int64_t r = 0; r < rows; ++r) {
    const Kind k = static_cast<Kind>(r % kNumKinds);
    for (int64_t c = 0; c < cols; ++c) {
      const double u = g.uni(-1, 1);
      double x = 0;
      switch (k) {
        case kMixed: {  // moderate values with a few of everything
          const uint64_t pick = g.next() % 40;
          x = pick == 0 ? tiny * u : pick == 1 ? -0.0 : pick == 2 ? 0.0 : pick == 3 ? tiny * 0x1p-3 : u * 3;
          break;
        }
        case kSubnormal: x = tiny * u * (g.next() % 2 ? 1 : 0x1p-5); break;  // sums stay subnormal or cross tiny
        case kNearOverflow: x = huge * (0.25 + 0.75 * std::fabs(u)) * (g.next() % 3 ? 1 : -1); break;
        case kBoundary: x = tiny * (1 + 0.5 * u); break;  // straddles the smallest normal
        case kExpRange: x = g.uni(-110, 12); break;       // softmax's exp from overflow-free to subnormal
        case kNearOne: x = 1 + 0.25 * u; break;           // prod stays finite for a while
        case kAllNan: x = static_cast<double>(nans[g.next() % 4]); break;
        case kZeros: x = g.next() % 3 ? -0.0 : 0.0; break;
        case kInfs: {
          const uint64_t pick = g.next() % 50;
          x = pick == 0 ? std::numeric_limits<double>::infinity() : pick == 1 ? -std::numeric_limits<double>::infinity()
              : pick == 2 ? static_cast<double>(nans[1]) : u;
          break;
        }
        case kNumKinds: break;
      }
      v[static_cast<size_t>(r * cols + c)] = static_cast<V>(x);
    }
    if (k == kAllNan) continue;
    // One NaN bit pattern kept exactly (payload, sign) in the row kinds that take one.
    if (k == kInfs) v[static_cast<size_t>(r * cols + (r * 7) % cols)] = nans[r % 4];
  }
  return v;
}

// rows x cols values of dtype t (see edgy_values).
Tensor edgy(int64_t rows, int64_t cols, Dtype t, uint64_t seed) {
  if (t == float64) {
    const double nans[] = {f64_bits(0x7ff8000000000000ull), f64_bits(0xfff8000000000123ull),
                           f64_bits(0x7ff4000000000001ull), f64_bits(0x7ff80000beef0000ull)};
    const auto v = edgy_values(rows, cols, 0x1p-1022, std::numeric_limits<double>::max(), nans, seed);
    return from_host(v.data(), {rows, cols}, float64, kCPU);
  }
  const double tiny = t == float16 ? 0x1p-14 : 0x1p-126;
  const double huge = t == float16 ? 65504.0 : t == bfloat16 ? 0x1.fep127 : 0x1.fffffep127;
  const float nans[] = {f32_bits(0x7fc00000u), f32_bits(0xffc00123u), f32_bits(0x7fa00001u), f32_bits(0x7fc0beefu)};
  const auto v = edgy_values(rows, cols, tiny, huge, nans, seed);
  return from_host(v.data(), {rows, cols}, float32, kCPU).to(t);
}

using Fn = std::function<Tensor(const Tensor&)>;
struct Case {
  const char* name;
  OpId op;
  Fn fn;
};

// Reductions over dim `d` (and softmax / cumsum along it).
std::vector<Case> cases(int64_t d) {
  return {
      {"sum", OpId::sum, [d](const Tensor& x) { return sum(x, {d}); }},
      {"mean", OpId::mean, [d](const Tensor& x) { return mean(x, {d}); }},
      {"prod", OpId::prod, [d](const Tensor& x) { return prod(x, {d}); }},
      {"amax", OpId::amax, [d](const Tensor& x) { return amax(x, {d}); }},
      {"amin", OpId::amin, [d](const Tensor& x) { return amin(x, {d}); }},
      {"argmax", OpId::argmax, [d](const Tensor& x) { return argmax(x, d); }},
      {"argmin", OpId::argmin, [d](const Tensor& x) { return argmin(x, d); }},
      {"var", OpId::var, [d](const Tensor& x) { return var(x, {d}); }},
      {"var correction 0", OpId::var, [d](const Tensor& x) { return var(x, {d}, 0); }},
      {"std", OpId::std, [d](const Tensor& x) { return concord::std(x, {d}); }},
      {"norm 1", OpId::norm, [d](const Tensor& x) { return norm(x, 1.0, {d}); }},
      {"norm 2", OpId::norm, [d](const Tensor& x) { return norm(x, 2.0, {d}); }},
      {"norm inf", OpId::norm, [d](const Tensor& x) { return norm(x, std::numeric_limits<double>::infinity(), {d}); }},
      {"all", OpId::all, [d](const Tensor& x) { return all(x, {d}); }},
      {"any", OpId::any, [d](const Tensor& x) { return any(x, {d}); }},
      {"cumsum", OpId::cumsum, [d](const Tensor& x) { return cumsum(x, d); }},
      {"softmax", OpId::softmax, [d](const Tensor& x) { return softmax(x, d); }},
      {"log_softmax", OpId::log_softmax, [d](const Tensor& x) { return log_softmax(x, d); }},
      {"logsumexp", OpId::logsumexp, [d](const Tensor& x) { return logsumexp(x, {d}); }},
  };
}

const Dtype kDtypes[] = {float32, float16, bfloat16, float64};

const auto same = [](const Tensor& v) { return v; };
const auto transposed = [](const Tensor& v) { return v.transpose(0, 1); };

class ReproducibleVulkanReduce : public concord::test::DeviceTest {
 protected:
  // Every case on view(base) over dim d (the view taken on each device):
  // the device's bits are the CPU's, and on vulkan nothing fell back and no
  // separate NaN pass ran. `only`: the names of the cases to run (all when empty).
  void check(const Tensor& base, const std::function<Tensor(const Tensor&)>& view, int64_t d, const std::string& what,
             const std::vector<std::string>& only = {}) {
    const bool vk = device().kind().name() == "vulkan";
    const Tensor x = view(base), xd = view(base.to(device()));
    for (const Case& c : cases(d)) {
      if (!only.empty() && std::find(only.begin(), only.end(), c.name) == only.end()) continue;
      const std::string label = std::string(c.name) + " over dim " + std::to_string(d) + " of " + what + " " +
                                std::string(name(x.dtype())) + " on " + device().str();
      const Tensor want = c.fn(x);
      reset_report();
      const Tensor got = c.fn(xd);
      EXPECT_EQ(first_difference(got, want), "") << label;
      if (vk) {
        EXPECT_EQ(report().count(op_name(c.op), Path::fallback), 0u) << label << ": fell back\n" << report();
        // (amax/amin of floats are argmax/argmin, then a gather of the element,
        // a move whose NaN the dispatcher's pass makes canonical; an empty
        // input's result is the front end's fill, also passed.)
        const bool moved = c.op == OpId::amax || c.op == OpId::amin;
        if (is_floating(got.dtype()) && !moved && x.numel() > 0)
          EXPECT_EQ(report().nan_passes, 0u) << label << ": a separate NaN pass ran";
      }
      ++compared_;
    }
  }
  int compared_ = 0;
};

TEST_P(ReproducibleVulkanReduce, RowsAndColumnsAreTheCpusBits) {
  ReproducibleGuard mode(true);
  for (Dtype t : kDtypes) {
    if (!capabilities(device()).can_store(t)) continue;
    const Tensor x = edgy(2 * kNumKinds, 37, t, 11);
    check(x, same, 1, "rows 18x37");
    check(x, same, 0, "columns 18x37");
    check(edgy(41, kNumKinds, t, 12), transposed, 1, "rows of a transposed 41x9");
    check(edgy(kNumKinds, 64, t, 13), [](const Tensor& v) { return v.slice(1, 1, std::nullopt, 3); }, 1,
          "a stride-3 slice of 9x64");
    // A broadcast view (stride 0) of the near-overflow row, over the broadcast dim and along the row.
    const auto bcast = [](const Tensor& v) { return v.narrow(0, kNearOverflow, 1).expand({5, 37}); };
    check(edgy(kNumKinds, 37, t, 14), bcast, 0, "a broadcast 5x37", {"sum", "mean", "var", "argmax", "cumsum"});
    check(edgy(kNumKinds, 37, t, 14), bcast, 1, "a broadcast 5x37", {"sum", "std", "norm 2", "softmax", "logsumexp"});
  }
  EXPECT_GT(compared_, 0);
}

// One row of 4097 (two blocks), of 70001 (18 blocks: a round of subtrees
// before the combine) and, for argmax, of 140001 (35 blocks: a group merge),
// of every kind in turn so that each crosses the stages.
TEST_P(ReproducibleVulkanReduce, LongRowsCrossTheBlockAndCombineStages) {
  ReproducibleGuard mode(true);
  for (Dtype t : kDtypes) {
    if (!capabilities(device()).can_store(t)) continue;
    check(edgy(kNumKinds, 4097, t, 21), same, 1, "rows of 4097");
    check(edgy(4097, kNumKinds, t, 22), transposed, 1, "strided rows of 4097",
          {"sum", "amax", "argmin", "std", "cumsum", "softmax", "log_softmax"});
    const auto rows12 = [](const Tensor& v) { return v.narrow(0, 1, 2); };  // subnormal and near-overflow rows
    check(edgy(3, 70001, t, 23), rows12, 1, "rows of 70001",
          {"sum", "mean", "amax", "var", "norm 2", "softmax", "logsumexp"});
    const auto rows45 = [](const Tensor& v) { return v.narrow(0, 4, 2); };  // exp-range and near-one rows
    check(edgy(6, 140001, t, 24), rows45, 1, "rows of 140001", {"sum", "argmax", "argmin", "norm 1"});
  }
  EXPECT_GT(compared_, 0);
}

// Reductions over no element (the identity or NaN), over one element, and
// rows that are NaN throughout (every NaN canonical, argmax the first).
TEST_P(ReproducibleVulkanReduce, EmptyOneElementAndAllNanRows) {
  ReproducibleGuard mode(true);
  for (Dtype t : kDtypes) {
    if (!capabilities(device()).can_store(t)) continue;
    check(edgy(3, 0, t, 31), same, 1, "3x0",
          {"sum", "mean", "prod", "var", "std", "norm 1", "norm 2", "all", "any", "cumsum", "softmax",
           "logsumexp"});
    check(edgy(2 * kNumKinds, 1, t, 32), same, 1, "18x1");
    const Tensor nans = edgy(kNumKinds, 50, t, 33);
    const auto nan_row = [](const Tensor& v) { return v.narrow(0, kAllNan, 1); };
    check(nans, nan_row, 1, "an all-NaN row");
    const Tensor got = amax(nan_row(nans).to(device()), {1}).to(kCPU).to(float32);
    EXPECT_TRUE(std::isnan(got.item<float>())) << name(t);
    // Rows of -inf only (logsumexp's shift is then 0, its sum 0, its log
    // -inf), with one +inf, with +inf and -inf.
    const float inf = std::numeric_limits<float>::infinity();
    const float v[] = {-inf, -inf, -inf, -inf, 1.5f, inf, -2.0f, 0.0f, inf, -inf, 3.0f, -1.0f};
    const Tensor infs = from_host(v, {3, 4}, float32, kCPU).to(t);
    check(infs, same, 1, "rows with infinities",
          {"sum", "amax", "argmin", "var", "softmax", "log_softmax", "logsumexp"});
  }
  EXPECT_GT(compared_, 0);
}

// The claim itself: in the mode vulkan runs these ops for the float32 family
// and float64 where it stores float64, whatever its float controls say about
// subnormals.
TEST_P(ReproducibleVulkanReduce, VulkanClaimsTheExactOps) {
  if (device().kind().name() != "vulkan") GTEST_SKIP() << "Vulkan's claims";
  ReproducibleGuard mode(true);
  for (Dtype t : kDtypes) {
    if (!capabilities(device()).can_store(t)) continue;
    for (const Case& c : cases(0)) {
      EXPECT_NE(support(c.op, device(), t).path, Path::fallback) << c.name << " " << name(t);
    }
  }
}

}  // namespace

CONCORD_INSTANTIATE_DEVICES(ReproducibleVulkanReduce);
