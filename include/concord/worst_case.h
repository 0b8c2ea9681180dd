// concord/worst_case.h — the search for the worst error of each elementwise
// op whose error model is a ULP bound, on any device.
//
// A bound is only as good as the search for its worst case: the parity sweep
// (concord/parity.h) samples a few hundred values of an op's domain, which
// can miss the one input that leaves the bound. This search feeds an op
// inputs spread over every exponent of the dtype (all 65536 values of a
// half for unary ops; an even stride through the 2^32 float32 bit patterns;
// random exponents and mantissas for float64 and for pairs), as many drawn
// uniformly from the op's sample domain (its op-table row), and the known
// hard cases (signed zeros, infinities, NaN, subnormals, the edges of
// overflow and underflow, arguments near multiples of pi/2, quotients near
// 1, recorded worst cases), and reports the largest error in ULPs of the
// result dtype against a long double reference computed on the host.
//
//   concord::testing::WorstCaseSearch s(concord::OpId::atan2, concord::float32, {.count = 1 << 20});
//   auto w = s.run(concord::Device("vulkan:0"));   // under the device's current profile
//   if (w.ratio > 1) std::cerr << w.str() << "\n";  // "atan2 float32: 2.23 ULP at (...)"
//
// `concord parity --exhaustive` runs it for every op, dtype and device
// config; the test suite runs a small fixed sample (test_worst_case.cpp).
// Edge cases: a NaN where the reference is a number (or the reverse), or a
// wrong infinity, is an infinite error; a finite reference beyond the
// dtype's range must give the infinity it rounds to. float64 references in
// long double carry up to 2^-10 ULP of their own error, which is subtracted
// before the ratio is taken (so a correctly rounded result is never judged
// above 0.5 ULP).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "concord/device.h"
#include "concord/op_table.h"

namespace concord::testing {

struct WorstCaseOptions {
  int64_t count = int64_t{1} << 20;  // inputs per op and dtype besides the hard cases
  uint64_t seed = 1;
};

struct WorstCase {
  OpId op = OpId::exp;
  Dtype dtype = float32;
  int64_t inputs = 0;      // elements judged
  double bound = 0;        // declared, in ULPs (rounded: 0.5)
  double worst_ulps = 0;   // the largest error, in ULPs of the result dtype (inf: a wrong special value)
  double ratio = 0;        // worst_ulps (less the reference's own error) / bound
  int64_t over = 0;        // elements beyond the bound
  double x = 0, y = 0;     // the worst element's inputs (y: binary ops)
  double got = 0, want = 0;
  std::string path;        // "native", "fallback" (the CPU's kernel ran), or why it did not run
  bool ran = false;
  std::string str() const;  // "atan2 float32 on vulkan:0: worst 0.50 ULP = 0.13 of 4 at atan2(...)"
};

// The ops searched: the unary and binary ops of the table on floating dtypes
// whose model is ulp(k) or rounded, except floor_divide (its reference is the
// floor of the exact quotient, which a long double quotient cannot give).
std::vector<OpId> worst_case_ops();

class WorstCaseSearch {
 public:
  // Builds the inputs (exactly representable in t) and the long double reference.
  WorstCaseSearch(OpId op, Dtype t, const WorstCaseOptions& o = {});
  // Runs the op on `device` in t (its current profile; strict dtype policy, so a
  // dtype the device cannot store is reported as not run, never downcast).
  WorstCase run(const Device& device) const;
  int64_t size() const { return static_cast<int64_t>(x_.size()); }

 private:
  OpId op_;
  Dtype t_;
  std::vector<double> x_, y_;
  std::vector<long double> ref_;
};

// Inputs of the search (x, and y for binary ops), for tests and tools.
void worst_case_inputs(OpId op, Dtype t, const WorstCaseOptions& o, std::vector<double>& x, std::vector<double>& y);
// The long double reference of op (x, y ignored for unary ops).
long double worst_case_reference(OpId op, long double x, long double y);

}  // namespace concord::testing
