// The backend conformance suite: every registered device (and, per kind, its
// contrasting profile) runs every op of the op table, in every dtype, on the
// parity cases (normal, transposed, broadcast, empty and special inputs:
// signed zeros, infinities, NaN, subnormals). Each result is judged against
// the float64 reference by the op's declared error model (bitwise where the op
// promises bits), and what the device claims (support(), the report, the
// transfers) must agree with what ran. A new backend passes this suite.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "concord/concord.h"
#include "concord/parity.h"
#include "concord/testing.h"
#include "support/devices.h"

namespace concord {
namespace {

using testing::ParityCase;
using testing::Verdict;

constexpr uint64_t kSeed = 20261125;

class Conformance : public test::DeviceTest {};

// A new op is one table row: it must come with parity cases, or this suite cannot judge it.
TEST(OpTable, EveryOpHasParityCases) {
  for (OpId op : testing::ops_without_cases()) ADD_FAILURE() << op_name(op) << " has no parity case";
}

TEST(OpTable, RowsAreConsistent) {
  for (int i = 0; i < kNumOps; ++i) {
    const OpDef& d = op_def(static_cast<OpId>(i));
    EXPECT_EQ(static_cast<int>(d.id), i);
    OpId parsed;
    ASSERT_TRUE(parse_op(d.name, &parsed)) << d.name;
    EXPECT_EQ(parsed, d.id);
    EXPECT_FALSE(d.dtypes.empty()) << d.name;
    EXPECT_LE(d.lo, d.hi) << d.name;
    if (d.model == ErrorModel::ulp) EXPECT_GE(d.bound, 1) << d.name;
    if (d.family == OpFamily::unary) EXPECT_EQ(d.arity, 1) << d.name;
    if (d.family == OpFamily::binary) EXPECT_EQ(d.arity, 2) << d.name;
  }
}

// Every case, every dtype: within the op's error model, through the path support() announces.
TEST_P(Conformance, EveryOpAgreesWithTheReference) {
  const auto saved = set_warning_handler([](const std::string&) {});  // adaptations are verdicts here
  int judged = 0;
  for (const ParityCase& c : testing::parity_cases(/*quick=*/false)) {
    for (Dtype t : kAllDtypes) {
      if (!c.dtypes.has(t)) continue;
      const Support s = support(c.op, device(), t);
      const testing::ParityResult r = testing::judge(c, device(), t, kSeed);
      if (!r.applicable) continue;
      ++judged;
      const std::string what = std::string(c.op_name()) + " | " + c.variant + " in " + std::string(name(t));
      EXPECT_NE(r.verdict, Verdict::fail) << what << ": " << r.detail;
      const Verdict expected = !s.runs                      ? Verdict::unsupported
                               : s.path == Path::fallback   ? Verdict::fallback
                               : s.path == Path::downcast   ? Verdict::downcast
                                                            : Verdict::pass;
      if (r.verdict != Verdict::fail) EXPECT_EQ(r.verdict, expected) << what << " (support(): " << name(s.path) << ")";
    }
  }
  set_warning_handler(saved);
  EXPECT_GT(judged, 1000);
}

// What a device claims is what runs: an op counted as native (or widened)
// moves no data to the CPU while it runs (a "native" op computed on the host
// would), and the report counts the run under the path support() announced.
TEST_P(Conformance, TheReportAndTheTransfersMatchTheClaims) {
  const auto saved = set_warning_handler([](const std::string&) {});
  const bool device_memory = memory_space(device()) == MemorySpace::device;
  std::map<OpId, bool> seen;
  for (const ParityCase& c : testing::parity_cases(/*quick=*/true)) {
    if (!c.run || seen[c.op]) continue;  // one case per op is enough here
    for (Dtype t : {float32, int32, float16}) {
      if (!c.dtypes.has(t)) continue;
      const Support s = support(c.op, device(), t);
      if (!s.runs || s.path == Path::downcast) continue;
      std::vector<Tensor> inputs;
      for (const Tensor& x : c.make(t, kSeed)) inputs.push_back(x.to(device()));
      reset_report();
      Tensor out;
      try {
        out = c.run(inputs);
      } catch (const Error&) {
        continue;  // an input this case does not fit (the agreement test judges errors)
      }
      const Report r = report();
      seen[c.op] = true;
      const std::string what = std::string(c.op_name()) + " | " + c.variant + " in " + std::string(name(t));
      // The run is counted on this device, as a fallback exactly when support() said so
      // (the dtype it is counted under is the one it ran in: int64 for a sum of int32).
      uint64_t fallbacks = 0, others = 0;
      for (const auto& e : r.entries)
        if (e.op == c.op_name() && e.device == device().str()) (e.path == Path::fallback ? fallbacks : others) += e.count;
      if (s.path == Path::fallback) EXPECT_GE(fallbacks, 1u) << what << ": support() says fallback\n" << r.str();
      else EXPECT_TRUE(fallbacks == 0 && others >= 1) << what << ": support() says " << name(s.path) << "\n" << r.str();
      // The throwing linear-algebra variants read their int32 status (one per
      // matrix) to raise LinAlgError: that much may come back, no more.
      uint64_t allowed = 0;
      if (op_def(c.op).family == OpFamily::linalg && inputs[0].ndim() >= 2)
        allowed = 4 * static_cast<uint64_t>(inputs[0].numel() / std::max<int64_t>(1, inputs[0].size(-1) * inputs[0].size(-2)));
      if (device_memory && s.path != Path::fallback)
        EXPECT_LE(r.bytes(device().str(), "cpu"), allowed) << what << " is claimed " << name(s.path)
                                                           << " but moved data to the CPU\n" << r.str();
      if (s.path == Path::fallback) EXPECT_GT(r.bytes("cpu", device().str()), 0u) << what << "\n" << r.str();
      (void)out;
    }
  }
  set_warning_handler(saved);
}

// The capability table is coherent: native kernels only for dtypes the op is
// defined for and the device stores; a device computes only what it stores.
TEST_P(Conformance, CapabilitiesAreCoherent) {
  const Capabilities& c = capabilities(device());
  for (Dtype t : kAllDtypes)
    if (c.can_compute(t)) EXPECT_TRUE(c.can_store(t)) << name(t);
  for (int i = 0; i < kNumOps; ++i) {
    const OpId op = static_cast<OpId>(i);
    for (Dtype t : kAllDtypes) {
      if (!c.has_kernel(op, t)) continue;
      EXPECT_TRUE(op_def(op).dtypes.has(t)) << op_name(op) << " claims " << name(t) << ", outside its dtypes";
      EXPECT_TRUE(c.can_store(t)) << op_name(op) << " claims " << name(t) << ", which the device cannot store";
    }
  }
  EXPECT_TRUE(c.has_kernel(OpId::copy, float32)) << "every device needs copy";
}

CONCORD_INSTANTIATE_DEVICES(Conformance);

}  // namespace
}  // namespace concord
