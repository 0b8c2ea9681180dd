// The reproducible mode's NaN rule in the stores of reductions, softmax,
// cumsum and max/min (core/nan_rule.h; OpenCL: reduce.cl's OUT_PUT under
// -DCONCORD_NAN_RULE=1, index.cl's take under -DNAN_CANON). NaN results made from payload NaNs of both signs,
// signalling NaNs and inf - inf give the CPU's bits, every NaN the canonical
// one, in both of OpenCL's layouts (one work-item per output, and blocks then
// a combine) and on strided views; and Report::nan_passes shows that no
// separate pass ran over those results where the kernel applied the rule.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "concord/concord.h"
#include "support/devices.h"

using namespace concord;

namespace {

std::vector<uint8_t> bits(const Tensor& t) {
  Tensor h = t.to(kCPU).contiguous();
  std::vector<uint8_t> b(h.nbytes());
  if (!b.empty()) std::memcpy(b.data(), h.raw_data(), b.size());
  return b;
}

struct NanScan {
  size_t nans = 0;
  std::string bad;  // the first NaN that is not the canonical quiet NaN
};

// NaNs counted and checked on the bits, independently of the library's rule.
NanScan scan_nans(const Tensor& t) {
  NanScan r;
  const auto b = bits(t);
  const size_t isz = itemsize(t.dtype());
  const bool bf = t.dtype() == bfloat16;
  const uint64_t inf = isz == 2 ? (bf ? 0x7f80 : 0x7c00) : isz == 4 ? 0x7f800000ull : 0x7ff0000000000000ull;
  const uint64_t canon = isz == 2 ? (bf ? 0x7fc0 : 0x7e00) : isz == 4 ? 0x7fc00000ull : 0x7ff8000000000000ull;
  const uint64_t abs_mask = (isz == 8 ? ~0ull : (1ull << (8 * isz)) - 1) >> 1;
  for (size_t i = 0; i < b.size(); i += isz) {
    uint64_t u = 0;
    std::memcpy(&u, b.data() + i, isz);
    if ((u & abs_mask) <= inf) continue;
    ++r.nans;
    if (u != canon && r.bad.empty()) r.bad = "element " + std::to_string(i / isz) + " is NaN 0x" + [&] {
      char buf[24];
      std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(u));
      return std::string(buf);
    }();
  }
  return r;
}

// rows x cols float32 bits: finite values, and in most rows a NaN with a
// payload (either sign, quiet or signalling) or +inf and -inf (inf - inf).
Tensor nan_rows(int64_t rows, int64_t cols) {
  std::vector<uint32_t> v(static_cast<size_t>(rows * cols));
  for (size_t i = 0; i < v.size(); ++i) v[i] = 0x3f000000u + static_cast<uint32_t>((i * 2654435761u) % 0x800000u);
  const uint32_t special[] = {0x7fc0beefu, 0xffc00123u, 0x7f800001u, 0xffffffffu};
  for (int64_t r = 0; r < rows; ++r) {
    const size_t at = static_cast<size_t>(r * cols + (r * 37) % cols);
    switch (r % 5) {
      case 4: break;  // a row without NaN
      case 3:
        v[at] = 0x7f800000u;
        v[static_cast<size_t>(r * cols + (r * 37 + cols / 2) % cols)] = 0xff800000u;
        break;
      default: v[at] = special[r % 4];
    }
  }
  return from_host(v.data(), {rows, cols}, float32, kCPU);
}

using Fn = std::function<Tensor(const Tensor&)>;
struct Case { const char* name; Fn fn; OpId op; };

const std::vector<Case>& cases() {
  static const std::vector<Case> c = {
      {"softmax", [](const Tensor& x) { return softmax(x, -1); }, OpId::softmax},
      {"log_softmax", [](const Tensor& x) { return log_softmax(x, -1); }, OpId::log_softmax},
      {"logsumexp", [](const Tensor& x) { return logsumexp(x, {-1}); }, OpId::logsumexp},
      {"sum", [](const Tensor& x) { return sum(x, {-1}); }, OpId::sum},
      {"sum all", [](const Tensor& x) { return sum(x); }, OpId::sum},
      {"mean", [](const Tensor& x) { return mean(x, {-1}); }, OpId::mean},
      {"prod", [](const Tensor& x) { return prod(x, {-1}); }, OpId::prod},
      {"var", [](const Tensor& x) { return var(x, {-1}); }, OpId::var},
      {"std", [](const Tensor& x) { return concord::std(x, {-1}); }, OpId::std},
      {"norm", [](const Tensor& x) { return norm(x, 2.0, {-1}); }, OpId::norm},
      {"cumsum", [](const Tensor& x) { return cumsum(x, -1); }, OpId::cumsum},
      {"amax", [](const Tensor& x) { return amax(x, {-1}); }, OpId::amax},
      {"min", [](const Tensor& x) { return min(x); }, OpId::min},
  };
  return c;
}

// Inputs by layout: OpenCL's one-output-per-item rows (short rows), its
// blocks + combine (few long rows), and a transposed view.
struct Input { const char* name; Tensor x; };
std::vector<Input> inputs() {
  return {{"16x100", nan_rows(16, 100)},
          {"3x9000", nan_rows(3, 9000)},
          {"transposed 16x40", nan_rows(40, 16).transpose(0, 1)}};
}

}  // namespace

class ReproducibleNanStores : public concord::test::DeviceTest {};

TEST_P(ReproducibleNanStores, NanResultsAreCanonicalAndTheCpusBits) {
  ReproducibleGuard mode(true);
  int compared = 0;
  for (Dtype t : {float32, float16, bfloat16, float64}) {
    if (!capabilities(device()).can_store(t)) continue;
    for (const Input& in : inputs()) {
      const Tensor x = in.x.to(t);
      const Tensor xd = x.to(device());
      for (const Case& c : cases()) {
        const Tensor want = c.fn(x), got = c.fn(xd);
        const std::string what = std::string(c.name) + " of " + in.name + " " + std::string(name(t));
        const NanScan s = scan_nans(got);
        EXPECT_GT(s.nans, 0u) << what << ": the case makes no NaN";
        EXPECT_EQ(s.bad, "") << what;
        EXPECT_TRUE(bits(got) == bits(want)) << what << ": not the CPU's bits";
        ++compared;
      }
    }
  }
  EXPECT_GE(compared, 3 * static_cast<int>(cases().size()));
}

// The separate pass is counted (Report::nan_passes). Where OpenCL runs these
// ops itself in the mode, its kernels apply the rule and no pass runs; tril
// (index.cl's tri) still takes the pass, which shows the count works.
TEST_P(ReproducibleNanStores, NoSeparatePassAfterOpenClReductions) {
  if (device().kind().name() != "opencl") GTEST_SKIP() << "OpenCL's kernels only";
  ReproducibleGuard mode(true);
  int native = 0;
  for (Dtype t : {float32, float16, bfloat16, float64}) {
    if (!capabilities(device()).can_store(t)) continue;
    for (const Input& in : inputs()) {
      const Tensor xd = in.x.to(t).to(device());
      for (const Case& c : cases()) {
        if (support(c.op, device(), t).path == Path::fallback) continue;
        reset_report();
        (void)c.fn(xd);
        EXPECT_EQ(report().nan_passes, 0u) << c.name << " of " << in.name << " " << name(t);
        ++native;
      }
    }
  }
  EXPECT_GT(native, 0);
  reset_report();
  (void)tril(nan_rows(4, 10).to(device()));
  EXPECT_EQ(report().nan_passes, 1u);
}

// The count itself: the CPU's row sums take the pass, its softmax rows do not
// (cpu/softmax.cpp applies the rule in its stores); outside the mode, none.
TEST(ReproducibleNanPassCount, CountsOnlySeparatePassesInTheMode) {
  const Tensor x = nan_rows(8, 20);
  reset_report();
  (void)sum(x, {-1});
  EXPECT_EQ(report().nan_passes, 0u);
  ReproducibleGuard mode(true);
  reset_report();
  (void)sum(x, {-1});
  EXPECT_EQ(report().nan_passes, 1u);
  EXPECT_NE(report().json().find("\"nan_passes\":1"), std::string::npos) << report().json();
  reset_report();
  (void)softmax(x, -1);
  EXPECT_EQ(report().nan_passes, 0u);
}

CONCORD_INSTANTIATE_DEVICES(ReproducibleNanStores);
