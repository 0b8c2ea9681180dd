// The reproducible mode's float64 softmax, log_softmax and logsumexp on
// Vulkan: the "reduce_xs_f64" variant (shaders/reduce_xops.glsl with
// -DXD=1 -DXMATH=1) computes them on float64 bits with the CPU's order (the max,
// the sum of concord_exp_f64(x - max) in the blocked order, then 1 / sum or
// concord_log_f64(sum); logsumexp shifts by the max, 0 when infinite) and the
// CPU's exp and log (xmath64.glsl, xmath64_log.glsl), so vulkan:0 claims
// them whatever its float controls and gives the CPU's bits.
//
// reduce_xops.glsl (float64, XD) is also compiled as C++ here and driven in reduce.comp's
// order (lanes, lane tree, block halving) over some 700,000 elements
// in rows of every kind, against the CPU backend's ops; the device
// part then checks the shader on a few small tensors (lavapipe is slow with
// integer-emulated doubles). The wider layouts (long rows, strided and
// broadcast views) run in test_reproducible_vulkan_reduce.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "concord/concord.h"
#include "support/bits.h"
#include "support/devices.h"
#include "support/native_run.h"

// reduce_xops.glsl's environment in reduce.comp: the reducer and post
// step codes (reduce.comp's), the argument block's fields it reads, and
// loads and stores on host addresses.
namespace rx64_glsl {
#include "support/glsl_shim.h"
inline int clamp(int v, int lo, int hi) { return std::min(std::max(v, lo), hi); }
uint64_t ld64(uint64_t a, int64_t i) { return reinterpret_cast<const uint64_t*>(a)[i]; }
void st64(uint64_t a, int64_t i, uint64_t v) { reinterpret_cast<uint64_t*>(a)[i] = v; }
void st8(uint64_t a, int64_t i, uint v) { reinterpret_cast<uint8_t*>(a)[i] = static_cast<uint8_t>(v); }
struct Args {
  uint64_t src, dst;
  int omode;
};
struct Push {
  Args args;
} pc;
enum { R_SUM = 1, R_PROD, R_MAX, R_MIN, R_ABSMAX, R_ABSSUM, R_SQSUM, R_SQDEV, R_EXPSUM, R_ALL, R_ANY, R_SCSUM };
enum { P_NONE = 0, P_DIV, P_DIV_SQRT, P_SQRT, P_ADD_LOG, P_LOG, P_FINITE, P_RECIP, P_SCALE, P_VAR, P_STD };
#define XD 1
#define XMATH 1
#include "backend/vulkan/shaders/reduce_xops.glsl"
#undef A
#undef AS
#undef XD
#undef XMATH
}  // namespace rx64_glsl

using namespace concord;

namespace {

using concord::test::first_difference;
namespace g = rx64_glsl;

constexpr int64_t kLanes = 16, kBlock = 4096;  // reduce.comp's LANES, BLOCK

// Reducer r over the row at pc.args.src (n elements, parameter p) in
// reduce.comp's order: lane l of a block takes its elements i = l mod 16 in
// turn, the lanes combine as a tree, the blocks by recursive halving.
uint64_t reduce_row(int r, int64_t n, uint64_t p) {
  std::vector<uint64_t> blocks;
  for (int64_t i0 = 0; i0 < std::max<int64_t>(n, 1); i0 += kBlock) {
    uint64_t lanes[kLanes];
    for (int64_t l = 0; l < kLanes; ++l) {
      lanes[l] = g::identity(r);
      for (int64_t i = l; i < std::min(kBlock, n - i0); i += kLanes)
        lanes[l] = g::combine(r, lanes[l], g::map_x(r, g::load_x(i0 + i), p, 0));
    }
    for (int64_t w = kLanes / 2; w >= 1; w /= 2)
      for (int64_t l = 0; l < w; ++l) lanes[l] = g::combine(r, lanes[l], lanes[l + w]);
    blocks.push_back(lanes[0]);
  }
  auto tree = [&](auto&& self, size_t s, size_t len) -> uint64_t {
    if (len == 1) return blocks[s];
    return g::combine(r, self(self, s, len / 2), self(self, s + len / 2, len - len / 2));
  };
  return tree(tree, 0, blocks.size());
}

enum class Op { softmax, log_softmax, logsumexp };

// The shader's functions on rows x cols (contiguous), one op, as reduce.cpp
// sequences the passes; out: cols values per row (1 for logsumexp).
Tensor on_bits(const std::vector<double>& x, int64_t rows, int64_t cols, Op op) {
  const int64_t w = op == Op::logsumexp ? 1 : cols;
  std::vector<double> out(static_cast<size_t>(rows * w));
  g::pc.args.omode = 0;
  for (int64_t r = 0; r < rows; ++r) {
    g::pc.args.src = reinterpret_cast<uint64_t>(x.data() + r * cols);
    g::pc.args.dst = reinterpret_cast<uint64_t>(out.data() + r * w);
    const uint64_t m = reduce_row(g::R_MAX, cols, 0);
    if (op == Op::logsumexp) {
      const uint64_t shift = g::post_step(g::P_FINITE, m, 0, 0);
      g::store_x(0, g::post_step(g::P_ADD_LOG, reduce_row(g::R_EXPSUM, cols, shift), 0, shift));
      continue;
    }
    const bool lg = op == Op::log_softmax;
    const uint64_t s = g::post_step(lg ? g::P_LOG : g::P_RECIP, reduce_row(g::R_EXPSUM, cols, m), 0, 0);
    for (int64_t i = 0; i < cols; ++i) g::store_x(i, g::softmax_out(g::load_x(i), m, s, lg));
  }
  return op == Op::logsumexp ? from_host(out.data(), {rows}, float64, kCPU)
                             : from_host(out.data(), {rows, w}, float64, kCPU);
}

Tensor run_op(Op op, const Tensor& x, int64_t d) {
  switch (op) {
    case Op::softmax: return softmax(x, d);
    case Op::log_softmax: return log_softmax(x, d);
    case Op::logsumexp: return logsumexp(x, {d});
  }
  return x;
}
const char* op_str(Op op) { return op == Op::softmax ? "softmax" : op == Op::log_softmax ? "log_softmax" : "logsumexp"; }
constexpr Op kOps[] = {Op::softmax, Op::log_softmax, Op::logsumexp};

// Row r of kind r % kKinds: moderate values; a spread over ±800 (exp(x - max)
// overflow-free down to zero); differences at exp's subnormal cut (-708 ..
// -746); a -inf, a +inf, NaNs (payloads, both signs) among moderate values;
// all -inf; near ±DBL_MAX (x - max overflows); all near -1e300; subnormals;
// any bit pattern; signed zeros.
constexpr int kKinds = 12;
std::vector<double> rows_of_kinds(int64_t rows, int64_t cols, uint64_t seed) {
  const double inf = std::numeric_limits<double>::infinity(), big = std::numeric_limits<double>::max();
  const double nans[] = {std::bit_cast<double>(0x7ff8000000000000ull), std::bit_cast<double>(0xfff8000000000123ull),
                         std::bit_cast<double>(0x7ff4000000000001ull)};
  concord::test::Lcg rng{seed};
  std::vector<double> v(static_cast<size_t>(rows * cols));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      const double u = rng.uniform();
      const uint32_t pick = rng.next();
      double x = 3 * u;
      switch (r % kKinds) {
        case 1: x = 800 * u; break;
        case 2: x = c == 0 ? 0.0 : -708.0 - 38.0 * std::fabs(u); break;
        case 3: x = pick % 5 == 0 ? -inf : x; break;
        case 4: x = c == (r * 5) % cols ? inf : x; break;
        case 5: x = pick % 7 == 0 ? nans[pick % 3] : x; break;
        case 6: x = -inf; break;
        case 7: x = big * (0.5 + 0.5 * std::fabs(u)) * (pick % 2 ? 1 : -1); break;
        case 8: x = -1e300 * (1.5 + u); break;
        case 9: x = 0x1p-1022 * u * (pick % 2 ? 1 : 0x1p-30); break;
        case 10: x = std::bit_cast<double>((uint64_t{rng.next()} << 33) ^ (uint64_t{rng.next()} << 2) ^ pick); break;
        case 11: x = pick % 2 ? 0.0 : -0.0; break;
        default: break;
      }
      v[static_cast<size_t>(r * cols + c)] = x;
    }
  return v;
}

// The shader's arithmetic as C++ against the CPU backend in the mode: rows
// of every kind, of 1 to 300 elements, and rows of 4097 (two blocks).
TEST(ReduceXops64, SoftmaxFamilySameBitsAsTheCpuAsCpp) {
  ReproducibleGuard mode(true);
  int64_t elements = 0;
  for (int64_t cols : {1, 2, 3, 15, 16, 17, 31, 64, 100, 255, 300, 4097}) {
    const int64_t rows = cols > 300 ? kKinds : std::max<int64_t>(kKinds, 60000 / cols / kKinds * kKinds);
    const std::vector<double> v = rows_of_kinds(rows, cols, 1000 + cols);
    const Tensor x = from_host(v.data(), {rows, cols}, float64, kCPU);
    elements += rows * cols;
    for (Op op : kOps)
      EXPECT_EQ(first_difference(on_bits(v, rows, cols, op), run_op(op, x, 1)), "")
          << op_str(op) << " of rows of " << cols;
  }
  EXPECT_GT(elements, 250000);
}

class ReproducibleVulkanSoftmax64 : public concord::test::DeviceTest {
 protected:
  // fn on x and on x moved to the device: the CPU's bits, and on Vulkan run
  // natively with no fallback and no separate NaN pass.
  void check(const char* opname, const std::function<Tensor(const Tensor&)>& fn, const Tensor& x,
             const std::function<Tensor(const Tensor&)>& view, const std::string& what) {
    const std::string label = std::string(opname) + " of " + what + " on " + GetParam().label;
    const Tensor want = fn(view(x));
    const Tensor xd = x.to(device());
    reset_report();
    const Tensor got = fn(view(xd));
    if (device().kind().name() == "vulkan") concord::test::expect_ran_on_device(opname, device(), float64, label, true);
    EXPECT_EQ(first_difference(got, want), "") << label;
  }
};

TEST_P(ReproducibleVulkanSoftmax64, ClaimedOnVulkan) {
  if (device().kind().name() != "vulkan" || !concord::test::can_store(GetParam(), float64))
    GTEST_SKIP() << "needs Vulkan with float64 storage";
  ReproducibleGuard mode(true);
  for (OpId op : {OpId::softmax, OpId::log_softmax, OpId::logsumexp})
    EXPECT_TRUE(capabilities(device()).has_reproducible_kernel(op, float64)) << op_name(op);
}

// Rows of every kind (odd length 13) along each dim, a transposed view, and
// a 3-D tensor over each dim and logsumexp over two dims at once.
TEST_P(ReproducibleVulkanSoftmax64, SameBitsAsTheCpu) {
  if (!concord::test::can_store(GetParam(), float64)) GTEST_SKIP() << "no float64 on " << GetParam().label;
  ReproducibleGuard mode(true);
  const std::vector<double> v = rows_of_kinds(kKinds, 13, 7);
  const Tensor x = from_host(v.data(), {kKinds, 13}, float64, kCPU);
  const auto same = [](const Tensor& t) { return t; };
  const auto tr = [](const Tensor& t) { return t.transpose(0, 1); };
  const auto cube = [](const Tensor& t) { return t.narrow(0, 0, 9).reshape({3, 3, 13}); };
  for (int64_t d : {0, 1}) {
    const std::string dim = " over dim " + std::to_string(d);
    check("softmax", [d](const Tensor& t) { return softmax(t, d); }, x, same, "12x13" + dim);
    check("log_softmax", [d](const Tensor& t) { return log_softmax(t, d); }, x, same, "12x13" + dim);
    check("logsumexp", [d](const Tensor& t) { return logsumexp(t, {d}); }, x, same, "12x13" + dim);
  }
  check("softmax", [](const Tensor& t) { return softmax(t, 1); }, x, tr, "a transposed 13x12");
  check("log_softmax", [](const Tensor& t) { return log_softmax(t, 1); }, x, tr, "a transposed 13x12");
  check("logsumexp", [](const Tensor& t) { return logsumexp(t, {1}); }, x, tr, "a transposed 13x12");
  for (int64_t d : {0, 2}) {
    const std::string dim = "3x3x13 over dim " + std::to_string(d);
    check("softmax", [d](const Tensor& t) { return softmax(t, d); }, x, cube, dim);
    check("log_softmax", [d](const Tensor& t) { return log_softmax(t, d); }, x, cube, dim);
  }
  check("logsumexp", [](const Tensor& t) { return logsumexp(t, {0, 2}); }, x, cube, "3x3x13 over dims 0, 2");
}

CONCORD_INSTANTIATE_DEVICES(ReproducibleVulkanSoftmax64);

}  // namespace
