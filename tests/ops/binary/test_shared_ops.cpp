// hypot, logaddexp, copysign and nextafter (the shared ops: one body for
// every backend, backend/common/canon_ops.inc) on every device config and
// floating dtype, in both modes:
//   - native everywhere (no fallback, no downcast);
//   - against independent references: long double hypot and log1p/exp,
//     std::copysign, and nextafter as a step of one on the dtype's own bit
//     pattern (read back through the library's conversions), over special
//     values (±0, subnormals, ±inf, NaN, the largest finite) and a spread;
//   - the CPU's bits on every device, in the default mode and the
//     reproducible one.
#include <bit>
#include <cstring>

#include "elementwise_checks.h"

namespace {

using BinFn = Tensor (*)(const Operand&, const Operand&);
struct SharedOp {
  OpId op;
  BinFn fn;
};
const SharedOp kOps[] = {{OpId::hypot, hypot}, {OpId::logaddexp, logaddexp},
                         {OpId::copysign, copysign}, {OpId::nextafter, nextafter}};

// The dtype's largest finite value and smallest subnormal.
double largest(Dtype t) {
  return t == float64 ? std::numeric_limits<double>::max() : t == float32 ? std::numeric_limits<float>::max()
       : t == float16 ? 65504.0 : 0x1.fep127;
}
double tiniest(Dtype t) {
  return t == float64 ? 0x1p-1074 : t == float32 ? 0x1p-149 : t == float16 ? 0x1p-24 : 0x1p-133;
}

// Operand pairs: every special value against every other, then a spread.
void operands(Dtype t, std::vector<double>* a, std::vector<double>* b) {
  const double big = largest(t), tiny = tiniest(t);
  const std::vector<double> s = {0.0, -0.0, tiny, -tiny, 1.0, -1.0, 0.5, -0.6931471805599453, big, -big,
                                 kInf, -kInf, kNaN, 3.0, -4.0, 100.0};
  for (double x : s)
    for (double y : s) a->push_back(round_to(x, t)), b->push_back(round_to(y, t));
  const auto u = spread(600, -30, 30, t, 7), v = spread(600, -30, 30, t, 8);
  a->insert(a->end(), u.begin(), u.end());
  b->insert(b->end(), v.begin(), v.end());
}

// The dtype's bit pattern of a value it holds, and back (through the library).
uint64_t bits_of(double v, Dtype t) {
  const Tensor x = make1({v}, t, kCPU);
  uint64_t u = 0;
  std::memcpy(&u, x.raw_data(), itemsize(t));
  return u;
}
double value_of(uint64_t u, Dtype t) {
  const Tensor x = from_host(&u, Shape{1}, t, kCPU);
  return x.to_vector<double>()[0];
}

// nextafter: one step on the sign-magnitude pattern of the dtype itself.
double ref_nextafter(double x, double y, Dtype t) {
  if (std::isnan(x) || std::isnan(y)) return kNaN;
  if (x == y) return y;
  const int w = static_cast<int>(itemsize(t)) * 8;
  const uint64_t sign = uint64_t{1} << (w - 1);
  if (x == 0) return value_of((std::signbit(y) ? sign : 0) | 1, t);
  const uint64_t u = bits_of(x, t);
  const bool away = (x < y) == (x > 0);
  return value_of(away ? u + 1 : u - 1, t);
}

double ref(OpId op, double x, double y, Dtype t) {
  const long double X = x, Y = y;
  switch (op) {
    case OpId::hypot:
      if (std::isinf(x) || std::isinf(y)) return kInf;
      return round_to(static_cast<double>(std::sqrt(X * X + Y * Y)), t);
    case OpId::logaddexp: {
      if (std::isnan(x) || std::isnan(y)) return kNaN;
      if (x == y && std::isinf(x)) return x;
      const long double m = std::max(X, Y);
      return round_to(static_cast<double>(m + std::log1p(std::exp(-std::fabs(X - Y)))), t);
    }
    case OpId::copysign: return std::copysign(x, y);
    default: return ref_nextafter(x, y, t);
  }
}

// The error allowed against the reference: exact for copysign and nextafter;
// hypot within one ulp of the dtype (correctly rounded in practice; the
// halves round twice); logaddexp likewise, plus 2 ulp of |max| + ln 2 in
// float64, where the function is ill-conditioned near a zero result.
double allowed(OpId op, double x, double y, double want, Dtype t) {
  if (op == OpId::copysign || op == OpId::nextafter) return 0;
  double tol = ulp(want, t);
  if (op == OpId::logaddexp && t == float64) tol += 2 * ulp(std::max(std::fabs(x), std::fabs(y)) + 0.7, t);
  return tol;
}

class SharedOps : public test::DeviceTest {};

TEST_P(SharedOps, NativeAndAgainstReferences) {
  for (Dtype t : kFloats) {
    if (!capabilities(device()).can_store(t)) continue;
    std::vector<double> a, b;
    operands(t, &a, &b);
    const Tensor ta = make1(a, t, device()), tb = make1(b, t, device());
    for (const SharedOp& o : kOps) {
      const std::string what = std::string(op_name(o.op)) + " " + std::string(name(t)) + " on " + GetParam().label;
      const Support s = support(o.op, device(), t);
      ASSERT_TRUE(s.runs) << what << ": " << s.reason;
      EXPECT_TRUE(s.path == Path::native || s.path == Path::widened) << what << ": " << name(s.path);
      const Tensor r = o.fn(ta, tb);
      ASSERT_EQ(r.dtype(), t) << what;
      const auto got = values(r);
      for (size_t i = 0; i < a.size(); ++i) {
        const double want = ref(o.op, a[i], b[i], t);
        const std::string at = what + " at (" + std::to_string(a[i]) + ", " + std::to_string(b[i]) + ")";
        if (std::isnan(want)) {
          EXPECT_TRUE(std::isnan(got[i])) << at << ": got " << got[i];
        } else if (std::isinf(want) || allowed(o.op, a[i], b[i], want, t) == 0) {
          EXPECT_EQ(got[i], want) << at;
          EXPECT_EQ(std::signbit(got[i]), std::signbit(want)) << at;
        } else {
          EXPECT_LE(std::fabs(got[i] - want), allowed(o.op, a[i], b[i], want, t)) << at << ": got " << got[i] << ", want " << want;
        }
      }
    }
  }
}

// One body everywhere: the CPU's bits on every device, in both modes.
TEST_P(SharedOps, CpuBitsInBothModes) {
  for (bool mode : {false, true}) {
    ReproducibleGuard guard(mode);
    for (Dtype t : kFloats) {
      if (!capabilities(device()).can_store(t)) continue;
      std::vector<double> a, b;
      operands(t, &a, &b);
      for (const SharedOp& o : kOps) {
        if (mode && !support(o.op, device(), t).runs) continue;
        const Tensor here = o.fn(make1(a, t, device()), make1(b, t, device())).to(kCPU);
        const Tensor cpu = o.fn(make1(a, t, kCPU), make1(b, t, kCPU));
        const size_t n = here.nbytes();
        ASSERT_EQ(n, cpu.nbytes());
        const auto* p = static_cast<const unsigned char*>(here.raw_data());
        const auto* q = static_cast<const unsigned char*>(cpu.raw_data());
        const auto hv = values(here), cv = values(cpu);
        for (size_t i = 0; i < a.size(); ++i) {
          const size_t k = i * itemsize(t);
          const bool nan = std::isnan(hv[i]) && std::isnan(cv[i]);
          if (!mode && nan) continue;  // outside the mode a NaN's bits are free
          EXPECT_EQ(std::memcmp(p + k, q + k, itemsize(t)), 0)
              << op_name(o.op) << " " << name(t) << (mode ? " (reproducible)" : "") << " on " << GetParam().label
              << " at (" << a[i] << ", " << b[i] << "): " << hv[i] << " vs the CPU's " << cv[i];
        }
      }
    }
  }
}

// Integers promote to float32; the Python-style number operand works too.
TEST_P(SharedOps, PromotionAndNumbers) {
  const Tensor i = make1({3, -4}, int32, device());
  const Tensor r = hypot(i, 4.0);
  EXPECT_EQ(r.dtype(), float32);
  EXPECT_EQ(values(r)[0], 5.0);
  EXPECT_EQ(values(r)[1], static_cast<float>(std::sqrt(32.0)));
  EXPECT_EQ(values(copysign(i, -1.0))[0], -3.0);
  EXPECT_EQ(values(nextafter(make1({1.0}, float32, device()), 2.0))[0], 1.0 + 0x1p-23);
}

CONCORD_INSTANTIATE_DEVICES(SharedOps);

}  // namespace
