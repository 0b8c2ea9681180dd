// The reproducible mode (policy.h): every op, every dtype, on every device
// gives the CPU's bits, every NaN the canonical quiet NaN; ops whose kernel on a device
// is not built to give them take the counted CPU fallback, and the mode is
// never silently weaker. Checked over the parity cases (odd sizes,
// transposed and broadcast views, NaN/inf/±0/subnormal inputs), the
// scan-over-Linear case, and 1 against 2 threads.
#include <gtest/gtest.h>
#include <omp.h>

#include <bit>
#include <cmath>
#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "concord/concord.h"
#include "concord/nn.h"
#include "concord/op_table.h"
#include "concord/parity.h"
#include "support/bits.h"
#include "support/devices.h"
#include "support/threads.h"

using namespace concord;

namespace {

using concord::test::first_difference;

std::vector<uint8_t> bits(const Tensor& t) {
  Tensor h = t.to(kCPU).contiguous();
  std::vector<uint8_t> b(h.nbytes());
  if (!b.empty()) std::memcpy(b.data(), h.raw_data(), b.size());
  return b;
}

// The first NaN that is not the canonical quiet NaN (positive, top mantissa
// bit only), checked on the bits independently of the library's own rule.
std::string non_canonical_nan(const Tensor& t) {
  if (!is_floating(t.dtype())) return "";
  const auto b = bits(t);
  const size_t isz = itemsize(t.dtype());
  const bool bf = t.dtype() == bfloat16;
  const uint64_t inf = isz == 2 ? (bf ? 0x7f80 : 0x7c00) : isz == 4 ? 0x7f800000ull : 0x7ff0000000000000ull;
  const uint64_t canon = isz == 2 ? (bf ? 0x7fc0 : 0x7e00) : isz == 4 ? 0x7fc00000ull : 0x7ff8000000000000ull;
  const uint64_t abs_mask = (isz == 8 ? ~0ull : (1ull << (8 * isz)) - 1) >> 1;
  for (size_t i = 0; i < b.size(); i += isz) {
    uint64_t u = 0;
    std::memcpy(&u, b.data() + i, isz);
    if ((u & abs_mask) > inf && u != canon) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "element %zu is NaN 0x%llx, not the canonical 0x%llx", i / isz,
                    static_cast<unsigned long long>(u), static_cast<unsigned long long>(canon));
      return buf;
    }
  }
  return "";
}

using concord::test::ThreadCount;

}  // namespace

TEST(Reproducible, SwitchGuardAndReport) {
  EXPECT_FALSE(reproducible());
  const Tensor x = ones({3});
  {
    ReproducibleGuard g(true);
    EXPECT_TRUE(reproducible());
    reset_report();
    (void)add(x, 1.0);
    const Report r = report();
    EXPECT_EQ(r.reproducible_runs, 1u) << r;
    EXPECT_NE(r.str().find("reproducible mode: on"), std::string::npos) << r;
    EXPECT_NE(r.json().find("\"reproducible_runs\":1"), std::string::npos) << r.json();
  }
  EXPECT_FALSE(reproducible());
  reset_report();
  (void)add(x, 1.0);
  EXPECT_EQ(report().reproducible_runs, 0u);
}

class ReproducibleDevices : public concord::test::DeviceTest {};

// The plan in the mode: native only where the kernel gives the CPU's bits,
// the counted fallback (or, strict, NotImplementedError naming the mode) elsewhere.
TEST_P(ReproducibleDevices, PlanTakesOnlyReproducibleKernels) {
  const Capabilities& caps = capabilities(device());
  ReproducibleGuard g(true);
  for (int i = 0; i < kNumOps; ++i) {
    const OpId op = static_cast<OpId>(i);
    for (Dtype t : kAllDtypes) {
      const Support s = support(op, device(), t);
      if (!s.runs || s.path == Path::downcast) continue;
      const bool own = caps.has_reproducible_kernel(op, s.compute);
      EXPECT_EQ(s.path == Path::fallback, !own) << op_name(op) << " " << name(t);
    }
  }
  // Exact ops on integers never need the fallback.
  EXPECT_NE(support(OpId::add, device(), int32).path, Path::fallback);
  // Under strict fallback the refusal names the mode.
  if (caps.has_kernel(OpId::exp, float32) && !caps.has_reproducible_kernel(OpId::exp, float32)) {
    const Tensor x = ones({4}, float32, device());
    FallbackPolicyGuard strict(FallbackPolicy::strict);
    try {
      (void)exp(x);
      FAIL() << "no error under strict fallback";
    } catch (const NotImplementedError& e) {
      EXPECT_NE(std::string(e.what()).find("reproducible"), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).rfind("[exp]", 0), 0u) << e.what();
    }
  }
}

// Every parity case, every dtype the device stores: the CPU's bits, NaN payloads included.
TEST_P(ReproducibleDevices, EveryOpGivesTheCpusBits) {
  ReproducibleGuard g(true);
  std::map<std::string, int> paths;
  int compared = 0;
  for (const auto& c : concord::testing::parity_cases(true)) {
    if (!c.run) continue;  // random ops: the same bits are the conformance suite's same_bits model
    for (Dtype t : kAllDtypes) {
      if (!op_def(c.op).dtypes.has(t) || !concord::test::can_store(GetParam(), t)) continue;
      const Support s = support(c.op, device(), t);
      if (!s.runs) continue;
      const auto inputs = c.make(t, 11);
      std::vector<Tensor> on_device;
      for (const auto& x : inputs) on_device.push_back(x.to(device()));
      Tensor want, got;
      std::string want_err, got_err;
      try { want = c.run(inputs); } catch (const Error& e) { want_err = e.what(); }
      try { got = c.run(on_device); } catch (const Error& e) { got_err = e.what(); }
      const std::string what = std::string(c.op_name()) + " | " + c.variant + " | " + std::string(name(t));
      EXPECT_EQ(want_err.empty(), got_err.empty()) << what << ": cpu '" << want_err << "', device '" << got_err << "'";
      if (!want_err.empty() || !got_err.empty()) continue;
      // The same bits are promised in the same dtype: a result the device holds in another
      // (float64 downcast on a device without it) is the dtype policy's business.
      if (got.dtype() != want.dtype()) {
        ++paths["other dtype"];
        continue;
      }
      ++compared;
      ++paths[std::string(name(s.path))];
      const std::string diff = first_difference(got, want);
      EXPECT_TRUE(diff.empty()) << what << " (" << name(s.path) << "): " << diff;
      EXPECT_EQ(non_canonical_nan(got), "") << what << " (" << name(s.path) << ")";
    }
  }
  std::string summary;
  for (const auto& [p, n] : paths) summary += " " + p + "=" + std::to_string(n);
  RecordProperty("paths", summary);
  std::printf("[ reproducible ] %s: %d cases,%s\n", GetParam().label.c_str(), compared, summary.c_str());
  EXPECT_GT(compared, 500);
  EXPECT_GT(paths["native"] + paths["widened"], 0) << "every case fell back: the mode proves nothing here";
}

// Where a device claims a reproducible float32 exp, every float32 over the
// range where exp is neither 0 nor inf (a million, all exponents), the edges
// beyond it and the special values give the CPU's bits.
TEST_P(ReproducibleDevices, Float32ExpOverItsRange) {
  if (!capabilities(device()).has_reproducible_kernel(OpId::exp, float32))
    GTEST_SKIP() << GetParam().label << " has no reproducible float32 exp: it runs on the CPU in the mode";
  std::vector<float> v;
  for (uint32_t i = 0; i < (1u << 20); ++i) {
    const float f = -104.0f + 194.0f * (static_cast<float>(i) / static_cast<float>(1u << 20));
    v.push_back(f);
    v.push_back(std::ldexp(1.0f, static_cast<int>(i % 256) - 150) * (i & 1 ? -1.0f : 1.0f));  // tiny ones, subnormals
  }
  for (float f : {0.0f, -0.0f, 88.72283f, 88.72284f, -87.33655f, -103.97208f, -104.0f, 200.0f, -200.0f,
                  std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                  std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN()})
    v.push_back(f);
  const Tensor x = from_host(v.data(), {static_cast<int64_t>(v.size())}, float32, kCPU);
  ReproducibleGuard g(true);
  EXPECT_EQ(first_difference(exp(x.to(device())), exp(x)), "");
}

// log, tanh and sigmoid where a device claims them (OpenCL with float64 runs
// the CPU's float64-inside algorithms): a million float32 bit patterns spread
// over every exponent and sign, subnormals, and the special values.
TEST_P(ReproducibleDevices, Float32LogTanhSigmoidOverEveryExponent) {
  std::vector<float> v;
  for (uint32_t i = 0; i < (1u << 20); ++i) v.push_back(std::bit_cast<float>(i * 4099u + 0x9e3779b9u * (i & 1)));
  for (float f : {0.0f, -0.0f, 1.0f, -1.0f, 1.4142135f, 0.70710677f, 1e-45f, -1e-45f, 20.0f, -20.0f, 9.011f,
                  88.7f, -88.7f, 160.0f, -160.0f, std::numeric_limits<float>::infinity(),
                  -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()})
    v.push_back(f);
  const Tensor x = from_host(v.data(), {static_cast<int64_t>(v.size())}, float32, kCPU);
  const Tensor xd = x.to(device());
  ReproducibleGuard g(true);
  int checked = 0;
  for (OpId op : {OpId::log, OpId::tanh, OpId::sigmoid}) {
    if (!capabilities(device()).has_reproducible_kernel(op, float32)) continue;
    ++checked;
    auto f = [op](const Tensor& t) { return op == OpId::log ? log(t) : op == OpId::tanh ? tanh(t) : sigmoid(t); };
    EXPECT_EQ(first_difference(f(xd), f(x)), "") << op_name(op);
    EXPECT_EQ(first_difference(f(xd.to(bfloat16)), f(x.to(bfloat16))), "") << op_name(op) << " bfloat16";
  }
  if (checked == 0) GTEST_SKIP() << GetParam().label << " claims none of them: they run on the CPU in the mode";
}

// softmax where a device claims it: rows longer than one 4096-block, columns
// of a transposed view, float32 and the halves.
TEST_P(ReproducibleDevices, SoftmaxOverLongRowsAndViews) {
  if (!capabilities(device()).has_reproducible_kernel(OpId::softmax, float32))
    GTEST_SKIP() << GetParam().label << " has no reproducible softmax: it runs on the CPU in the mode";
  ReproducibleGuard g(true);
  for (Dtype t : {float32, float16, bfloat16}) {
    const Tensor x = mul(randn({3, 10007}, float32, kCPU, 9), 6.0).to(t);
    const Tensor xd = x.to(device());
    EXPECT_EQ(first_difference(softmax(xd, 1), softmax(x, 1)), "") << name(t);
    EXPECT_EQ(first_difference(softmax(xd.t(), 0), softmax(x.t(), 0)), "") << name(t);
    EXPECT_EQ(first_difference(softmax(xd, 0), softmax(x, 0)), "") << name(t);
  }
}

// log_softmax and logsumexp where a device claims them (they end with the
// CPU's log): rows longer than one block, a transposed view, the halves, and
// rows of -inf (logsumexp's shift is then 0).
TEST_P(ReproducibleDevices, LogSoftmaxAndLogsumexpOverLongRows) {
  if (!capabilities(device()).has_reproducible_kernel(OpId::log_softmax, float32))
    GTEST_SKIP() << GetParam().label << " has no reproducible log_softmax: it runs on the CPU in the mode";
  ReproducibleGuard g(true);
  for (Dtype t : {float32, float16, bfloat16}) {
    Tensor x = mul(randn({3, 10007}, float32, kCPU, 19), 8.0);
    std::vector<float> v = x.to_vector<float>();
    for (int64_t i = 0; i < 10007; ++i) v[static_cast<size_t>(2 * 10007 + i)] = -std::numeric_limits<float>::infinity();
    x = from_host(v.data(), {3, 10007}, float32, kCPU).to(t);
    const Tensor xd = x.to(device());
    EXPECT_EQ(first_difference(log_softmax(xd, 1), log_softmax(x, 1)), "") << name(t);
    EXPECT_EQ(first_difference(log_softmax(xd.t(), 0), log_softmax(x.t(), 0)), "") << name(t);
    EXPECT_EQ(first_difference(logsumexp(xd, {1}), logsumexp(x, {1})), "") << name(t);
    EXPECT_EQ(first_difference(logsumexp(xd, {0}), logsumexp(x, {0})), "") << name(t);
  }
}

// A scan of four Linear(128, 128) layers over [3, 4, 5, 128]: the same bits on
// every device in the mode, and the same as the loop written by hand on the CPU.
TEST_P(ReproducibleDevices, ScanOverLinearMatchesTheHandWrittenLoop) {
  ReproducibleGuard g(true);
  const Tensor xs = randn({3, 4, 5, 128}, float32, kCPU, 21);
  std::vector<Tensor> w, b;
  for (int l = 0; l < 4; ++l) {
    w.push_back(mul(randn({128, 128}, float32, kCPU, 100 + l), 0.09));
    b.push_back(mul(randn({128}, float32, kCPU, 200 + l), 0.1));
  }
  auto step = [](const std::vector<Tensor>& ws, const std::vector<Tensor>& bs) {
    return [ws, bs](const Tensor& carry, const Tensor& x) {
      Tensor h = add(x, carry);
      for (size_t l = 0; l < ws.size(); ++l) h = tanh(linear(h, ws[l], bs[l]));
      return std::pair<Tensor, Tensor>{h, h};
    };
  };
  std::vector<Tensor> wd, bd;
  for (int l = 0; l < 4; ++l) wd.push_back(w[l].to(device())), bd.push_back(b[l].to(device()));
  const Tensor init = zeros({4, 5, 128}, float32, device());
  const auto r = nn::scan(step(wd, bd), init, xs.to(device()));
  // The loop by hand, on the CPU.
  Tensor h = zeros({4, 5, 128});
  std::vector<Tensor> ys;
  for (int64_t t = 0; t < 3; ++t) {
    h = add(xs.select(0, t), h);
    for (int l = 0; l < 4; ++l) h = tanh(linear(h, w[l], b[l]));
    ys.push_back(h);
  }
  EXPECT_EQ(first_difference(r.ys, stack(ys, 0)), "");
  EXPECT_EQ(first_difference(r.carry, h), "");
}

// The CPU's bits do not depend on the thread count.
TEST(Reproducible, SameBitsOnOneAndTwoThreads) {
  ReproducibleGuard g(true);
  int compared = 0;
  for (const auto& c : concord::testing::parity_cases(true)) {
    if (!c.run) continue;
    for (Dtype t : {float32, float64, float16, int32}) {
      if (!op_def(c.op).dtypes.has(t)) continue;
      const auto inputs = c.make(t, 5);
      Tensor one, two;
      try {
        { ThreadCount tc(1); one = c.run(inputs); }
        { ThreadCount tc(2); two = c.run(inputs); }
      } catch (const Error&) { continue; }
      ++compared;
      EXPECT_EQ(first_difference(two, one), "") << c.op_name() << " | " << c.variant << " | " << name(t);
    }
  }
  EXPECT_GT(compared, 300);
  // Products large enough for the BLAS to split the work between threads.
  const Tensor a = randn({300, 400}, float32, kCPU, 1), b = randn({400, 500}, float32, kCPU, 2);
  Tensor one, two;
  { ThreadCount tc(1); one = matmul(a, b); }
  { ThreadCount tc(2); two = matmul(a, b); }
  EXPECT_EQ(first_difference(two, one), "") << "matmul 300x400 @ 400x500";
}

// The NaN rule fused into the kernels' stores (core/nan_rule.h: the CPU's
// elementwise kernels and softmax rows, OpenCL's elementwise program variant)
// gives the bits of the CPU's default-mode result with every NaN replaced by
// the canonical one, the rule applied here on the bits: elementwise
// (vectorised, strided and broadcast runs) and softmax rows, float32 and the
// halves, NaN payloads of both signs and NaNs made from numbers (inf - inf).
TEST_P(ReproducibleDevices, FusedNanRuleGivesTheSeparatePassBits) {
  auto canonicalized = [](const Tensor& t) {
    auto b = bits(t);
    const size_t isz = itemsize(t.dtype());
    const bool bf = t.dtype() == bfloat16;
    const uint64_t inf = isz == 2 ? (bf ? 0x7f80 : 0x7c00) : 0x7f800000ull;
    const uint64_t canon = isz == 2 ? (bf ? 0x7fc0 : 0x7e00) : 0x7fc00000ull;
    const uint64_t abs_mask = ((1ull << (8 * isz)) - 1) >> 1;
    for (size_t i = 0; i < b.size(); i += isz) {
      uint64_t u = 0;
      std::memcpy(&u, b.data() + i, isz);
      if ((u & abs_mask) > inf) std::memcpy(b.data() + i, &canon, isz);
    }
    return b;
  };
  const uint32_t pattern[] = {0x3fc00000u, 0xffc00123u, 0x7f800001u, 0x7f800000u, 0xff800000u,
                              0x80000000u, 0x00000000u, 0x40500000u, 0x7fc0beefu, 0xbf000000u};
  std::vector<uint32_t> xb(1003), yb(1003);
  for (size_t i = 0; i < xb.size(); ++i) {
    xb[i] = pattern[i % 10];
    yb[i] = pattern[(i * 7 + 3) % 10];
  }
  const Tensor x32 = from_host(xb.data(), {1003}, float32, kCPU), y32 = from_host(yb.data(), {1003}, float32, kCPU);
  using Fn = Tensor (*)(const Tensor&, const Tensor&);
  const std::pair<const char*, Fn> ops[] = {
      {"add", [](const Tensor& a, const Tensor& b) { return add(a, b); }},
      {"sub", [](const Tensor& a, const Tensor& b) { return sub(a, b); }},
      {"mul", [](const Tensor& a, const Tensor& b) { return mul(a, b); }},
      {"div", [](const Tensor& a, const Tensor& b) { return div(a, b); }},
      {"maximum", [](const Tensor& a, const Tensor& b) { return maximum(a, b); }},
      {"add broadcast", [](const Tensor& a, const Tensor& b) { return add(a.narrow(0, 0, 1000).reshape({40, 25}), b.narrow(0, 0, 25)); }},
      {"mul transposed", [](const Tensor& a, const Tensor& b) { return mul(a.narrow(0, 0, 1000).reshape({40, 25}).transpose(0, 1), b.narrow(0, 0, 25).unsqueeze(1)); }},
      {"exp", [](const Tensor& a, const Tensor&) { return exp(a); }},
      {"log", [](const Tensor& a, const Tensor&) { return log(a); }},
      {"tanh transposed", [](const Tensor& a, const Tensor&) { return tanh(a.narrow(0, 0, 1000).reshape({40, 25}).transpose(0, 1)); }},
      {"neg", [](const Tensor& a, const Tensor&) { return neg(a); }},
      {"softmax", [](const Tensor& a, const Tensor&) { return softmax(a.narrow(0, 0, 1000).reshape({8, 125}), -1); }},
      {"log_softmax", [](const Tensor& a, const Tensor&) { return log_softmax(a.narrow(0, 0, 1000).reshape({8, 125}), -1); }},
      {"pow number", [](const Tensor& a, const Tensor&) { return pow(a, 1.0 / 3); }},
  };
  for (Dtype t : {float32, float16, bfloat16}) {
    if (!capabilities(device()).can_store(t)) continue;
    const Tensor x = x32.to(t), y = y32.to(t);
    const Tensor xd = x.to(device()), yd = y.to(device());
    for (const auto& [what, fn] : ops) {
      const Tensor plain = fn(x, y);
      Tensor repro;
      {
        ReproducibleGuard g(true);
        repro = fn(xd, yd);
      }
      const auto got = bits(repro), want = canonicalized(plain);
      ASSERT_EQ(got.size(), want.size()) << what;
      const auto diff = std::mismatch(got.begin(), got.end(), want.begin());
      EXPECT_TRUE(diff.first == got.end()) << what << " in " << name(t) << ": byte "
                                           << (diff.first - got.begin()) << " differs from the separate pass's";
      EXPECT_EQ(non_canonical_nan(repro), "") << what << " in " << name(t);
    }
  }
}

CONCORD_INSTANTIATE_DEVICES(ReproducibleDevices);
