// The reproducible mode's NaN rule (every NaN in a floating result is the
// canonical quiet NaN, Backend::canonicalize_nan) fused into the kernels'
// stores, so that the common ops need no second pass over their output.
//
// Dispatch::run_span opens a NanRuleScope around each body: nan_rule_in_stores()
// is true on that thread while the mode is on. A kernel that writes every
// element of a floating output through the rule reads it on the calling thread
// (worker threads do not see it), and afterwards calls nan_rule_fused(out);
// Dispatch then skips the separate pass for that output. A kernel may call it
// only as the body's last writer of out. Everything else keeps the pass.
#pragma once

#include "concord/tensor.h"

namespace concord::detail {

struct NanRuleState {
  bool on = false;
  int n = 0;
  const void* fused[4] = {};  // first element of each output written under the rule
};
inline thread_local NanRuleState tl_nan_rule;

inline bool nan_rule_in_stores() { return tl_nan_rule.on; }

inline void nan_rule_fused(const Tensor& out) {
  NanRuleState& s = tl_nan_rule;
  if (s.on && s.n < 4) s.fused[s.n++] = out.raw_data();
}

inline bool nan_rule_was_fused(const Tensor& out) {
  const NanRuleState& s = tl_nan_rule;
  for (int i = 0; i < s.n; ++i)
    if (s.fused[i] == out.raw_data()) return true;
  return false;
}

struct NanRuleScope {
  explicit NanRuleScope(bool on) : saved(tl_nan_rule) { tl_nan_rule = NanRuleState{on}; }
  ~NanRuleScope() { tl_nan_rule = saved; }
  NanRuleScope(const NanRuleScope&) = delete;
  NanRuleScope& operator=(const NanRuleScope&) = delete;
  NanRuleState saved;
};

}  // namespace concord::detail
