// Autocast: the op table, which ops change dtype inside a scope on every
// device (and which do not), float64/integers untouched, explicit dtypes left
// alone, nesting and exit, disabled scopes, per-thread scopes, the default
// lower dtype per device, and the Path::autocast count in the report.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "concord/concord.h"
#include "concord/linalg.h"
#include "concord/testing.h"
#include "support/devices.h"

namespace concord {
inline void PrintTo(Dtype t, std::ostream* os) { *os << name(t); }

namespace {

// ---- the expected table, written out here (not read from the code under test) ----
const std::set<std::string> kLower = {"matmul", "mm", "bmm", "mv", "addmm", "baddbmm", "linear"};
const std::set<std::string> kFloat32 = {"exp", "log", "pow", "sum", "prod", "softmax", "log_softmax", "logsumexp",
                                        "cumsum", "norm", "vector_norm", "matrix_norm", "solve", "lu_factor",
                                        "lu_solve", "inv", "det", "slogdet", "cholesky", "solve_triangular"};
const std::set<std::string> kWidest = {"cat", "stack", "where"};

AutocastPolicy expected_policy(OpId op) {
  const std::string n(op_name(op));
  if (kLower.count(n)) return AutocastPolicy::lower;
  if (kFloat32.count(n)) return AutocastPolicy::float32;
  if (kWidest.count(n)) return AutocastPolicy::widest;
  return AutocastPolicy::none;
}

TEST(AutocastTable, EveryOpHasTheExpectedPolicy) {
  for (int i = 0; i < kNumOps; ++i) {
    const OpId op = static_cast<OpId>(i);
    EXPECT_EQ(autocast_policy(op), expected_policy(op)) << op_name(op);
  }
  EXPECT_EQ(name(AutocastPolicy::lower), "lower");
  EXPECT_EQ(name(AutocastPolicy::float32), "float32");
  EXPECT_EQ(name(AutocastPolicy::widest), "widest");
  EXPECT_EQ(name(AutocastPolicy::none), "none");
}

TEST(AutocastTable, OnlyHalfDtypesCanBeTheLowerDtype) {
  EXPECT_THROW((autocast{DeviceKind::cpu, float32}), ValueError);
  EXPECT_THROW((autocast{DeviceKind::cpu, int8}), ValueError);
  EXPECT_FALSE(is_autocast_enabled(DeviceKind::cpu));  // a failed scope leaves nothing behind
  EXPECT_NO_THROW((autocast{DeviceKind::cpu, float16}));
}

// ---- inputs ----
// A well-conditioned symmetric positive definite 3x3 matrix (exact in every dtype).
const std::vector<double> kSpd = {4, 1, 0.5, 1, 3, 0.25, 0.5, 0.25, 2};

Tensor host(const std::vector<double>& v, Shape shape, Dtype t, const Device& d) {
  return from_host(v.data(), shape, float64, kCPU).to(t).to(d);
}
Tensor matrix(Dtype t, const Device& d) { return host(kSpd, {3, 3}, t, d); }
Tensor vec(Dtype t, const Device& d) { return host({0.5, 1, 2}, {3}, t, d); }

// Runs op on inputs of dtype t on device d (every op of the list). Creation
// ops get t as their explicit dtype.
using Runner = std::function<Tensor(Dtype, const Device&)>;

std::map<std::string, Runner> runners() {
  std::map<std::string, Runner> r;
  const Shape s{3};
  r["copy"] = [](Dtype t, const Device& d) { return vec(t, d).clone(); };
  r["fill"] = [s](Dtype t, const Device& d) { return full(s, 1, t, d); };
  r["arange"] = [](Dtype t, const Device& d) { return arange(0, 3, 1, t, d); };
  r["linspace"] = [](Dtype t, const Device& d) { return linspace(0, 1, 3, t, d); };
  r["eye"] = [](Dtype t, const Device& d) { return eye(3, {}, t, d); };
  r["rand"] = [s](Dtype t, const Device& d) { return rand(s, t, d, 1); };
  r["randn"] = [s](Dtype t, const Device& d) { return randn(s, t, d, 1); };
  r["randint"] = [s](Dtype t, const Device& d) { return randint(0, 4, s, t, d, 1); };
  using U = Tensor (*)(const Tensor&);
  const std::map<std::string, U> unary = {
      {"neg", neg}, {"abs", abs}, {"sign", sign}, {"exp", exp}, {"expm1", expm1}, {"log", log},
      {"log1p", log1p}, {"log2", log2}, {"sqrt", sqrt}, {"rsqrt", rsqrt}, {"sin", sin}, {"cos", cos},
      {"tan", tan}, {"tanh", tanh}, {"sigmoid", sigmoid}, {"relu", relu}, {"gelu", gelu}, {"erf", erf},
      {"floor", floor}, {"ceil", ceil}, {"round", round}, {"trunc", trunc}, {"reciprocal", reciprocal},
      {"isnan", isnan}, {"isinf", isinf}, {"isfinite", isfinite}, {"logical_not", logical_not}};
  for (const auto& [n, f] : unary) r[n] = [f = f](Dtype t, const Device& d) { return f(vec(t, d)); };
  using B = Tensor (*)(const Operand&, const Operand&);
  const std::map<std::string, B> binary = {
      {"add", add}, {"sub", sub}, {"mul", mul}, {"div", div}, {"pow", pow}, {"maximum", maximum},
      {"minimum", minimum}, {"remainder", remainder}, {"floor_divide", floor_divide}, {"atan2", atan2},
      {"hypot", hypot}, {"logaddexp", logaddexp}, {"copysign", copysign}, {"nextafter", nextafter}, {"eq", eq}, {"ne", ne}, {"lt", lt},
      {"le", le}, {"gt", gt}, {"ge", ge}, {"logical_and", logical_and}, {"logical_or", logical_or},
      {"logical_xor", logical_xor}};
  for (const auto& [n, f] : binary)
    r[n] = [f = f](Dtype t, const Device& d) { Tensor x = vec(t, d); return f(x, x); };
  r["where"] = [](Dtype t, const Device& d) { Tensor x = vec(t, d); return where(gt(x, 1), x, x); };
  r["clamp"] = [](Dtype t, const Device& d) { return clamp(vec(t, d), Scalar(0), Scalar(1)); };
  r["sum"] = [](Dtype t, const Device& d) { return sum(vec(t, d)); };
  r["mean"] = [](Dtype t, const Device& d) { return mean(vec(t, d)); };
  r["prod"] = [](Dtype t, const Device& d) { return prod(vec(t, d)); };
  r["max"] = [](Dtype t, const Device& d) { return max(vec(t, d)); };
  r["min"] = [](Dtype t, const Device& d) { return min(vec(t, d)); };
  r["amax"] = [](Dtype t, const Device& d) { return amax(vec(t, d)); };
  r["amin"] = [](Dtype t, const Device& d) { return amin(vec(t, d)); };
  r["argmax"] = [](Dtype t, const Device& d) { return argmax(vec(t, d)); };
  r["argmin"] = [](Dtype t, const Device& d) { return argmin(vec(t, d)); };
  r["var"] = [](Dtype t, const Device& d) { return var(vec(t, d)); };
  r["std"] = [](Dtype t, const Device& d) { return concord::std(vec(t, d)); };
  r["norm"] = [](Dtype t, const Device& d) { return norm(vec(t, d)); };
  r["all"] = [](Dtype t, const Device& d) { return all(vec(t, d)); };
  r["any"] = [](Dtype t, const Device& d) { return any(vec(t, d)); };
  r["logsumexp"] = [](Dtype t, const Device& d) { return logsumexp(vec(t, d), {0}); };
  r["softmax"] = [](Dtype t, const Device& d) { return softmax(vec(t, d), 0); };
  r["log_softmax"] = [](Dtype t, const Device& d) { return log_softmax(vec(t, d), 0); };
  r["cumsum"] = [](Dtype t, const Device& d) { return cumsum(vec(t, d), 0); };
  r["matmul"] = [](Dtype t, const Device& d) { return matmul(matrix(t, d), vec(t, d)); };
  r["mm"] = [](Dtype t, const Device& d) { Tensor a = matrix(t, d); return mm(a, a); };
  r["bmm"] = [](Dtype t, const Device& d) { Tensor a = matrix(t, d).unsqueeze(0); return bmm(a, a); };
  r["mv"] = [](Dtype t, const Device& d) { return mv(matrix(t, d), vec(t, d)); };
  r["dot"] = [](Dtype t, const Device& d) { Tensor v = vec(t, d); return dot(v, v); };
  r["outer"] = [](Dtype t, const Device& d) { Tensor v = vec(t, d); return outer(v, v); };
  r["addmm"] = [](Dtype t, const Device& d) { Tensor a = matrix(t, d); return addmm(vec(t, d), a, a); };
  r["baddbmm"] = [](Dtype t, const Device& d) {
    Tensor a = matrix(t, d).unsqueeze(0);
    return baddbmm(a, a, a);
  };
  r["linear"] = [](Dtype t, const Device& d) { return linear(matrix(t, d), matrix(t, d), vec(t, d)); };
  r["cat"] = [](Dtype t, const Device& d) { Tensor v = vec(t, d); return cat({v, v}); };
  r["stack"] = [](Dtype t, const Device& d) { Tensor v = vec(t, d); return stack({v, v}); };
  r["index_select"] = [](Dtype t, const Device& d) {
    return index_select(vec(t, d), 0, tensor(std::vector<int64_t>{2, 0}, d));
  };
  r["gather"] = [](Dtype t, const Device& d) { return gather(vec(t, d), 0, tensor(std::vector<int64_t>{1, 1}, d)); };
  r["flip"] = [](Dtype t, const Device& d) { return flip(vec(t, d), {0}); };
  r["tril"] = [](Dtype t, const Device& d) { return tril(matrix(t, d)); };
  r["triu"] = [](Dtype t, const Device& d) { return triu(matrix(t, d)); };
  r["solve"] = [](Dtype t, const Device& d) { return linalg::solve(matrix(t, d), vec(t, d)); };
  r["lu_factor"] = [](Dtype t, const Device& d) { return linalg::lu_factor(matrix(t, d)).LU; };
  r["lu_solve"] = [](Dtype t, const Device& d) {
    linalg::LUFactor f;
    {
      autocast off(d.kind(), {}, false);  // the factors in t itself
      f = linalg::lu_factor(matrix(t, d));
    }
    return linalg::lu_solve(f.LU, f.pivots, vec(t, d));
  };
  r["inv"] = [](Dtype t, const Device& d) { return linalg::inv(matrix(t, d)); };
  r["det"] = [](Dtype t, const Device& d) { return linalg::det(matrix(t, d)); };
  r["slogdet"] = [](Dtype t, const Device& d) { return linalg::slogdet(matrix(t, d)).logabsdet; };
  r["cholesky"] = [](Dtype t, const Device& d) { return linalg::cholesky(matrix(t, d)); };
  r["solve_triangular"] = [](Dtype t, const Device& d) {
    return linalg::solve_triangular(matrix(t, d), matrix(t, d), /*upper=*/false);
  };
  r["vector_norm"] = [](Dtype t, const Device& d) { return linalg::vector_norm(vec(t, d)); };
  r["matrix_norm"] = [](Dtype t, const Device& d) { return linalg::matrix_norm(matrix(t, d)); };
  return r;
}

TEST(AutocastTable, EveryOpHasARunnerInThisTest) {
  const auto r = runners();
  for (int i = 0; i < kNumOps; ++i) EXPECT_TRUE(r.count(std::string(op_name(static_cast<OpId>(i))))) << op_name(static_cast<OpId>(i));
}

// What autocast should make of an op whose natural result dtype is t.
Dtype expected_dtype(AutocastPolicy p, Dtype t, Dtype lower) {
  if (p == AutocastPolicy::lower && t == float32) return lower;
  if (p == AutocastPolicy::float32 && is_half(t)) return float32;
  return t;
}

class AutocastTest : public test::DeviceTest {
 protected:
  Dtype lower() const { return default_autocast_dtype(device()); }
  // The dtypes to try on this device (float64 only where it is stored).
  std::vector<Dtype> dtypes() const {
    std::vector<Dtype> v = {float32, bfloat16, float16, int32, int64};
    if (capabilities(device()).can_store(float64)) v.push_back(float64);
    return v;
  }
};

// The whole table on this device: every op, every dtype, outside and inside a scope.
TEST_P(AutocastTest, EveryOpFollowsTheTable) {
  const auto r = runners();
  int checked = 0, changed = 0;
  for (int i = 0; i < kNumOps; ++i) {
    const OpId op = static_cast<OpId>(i);
    const std::string n(op_name(op));
    const bool creation = op_family(op) == "creation" || op_family(op) == "random";
    for (Dtype t : dtypes()) {
      Tensor plain;
      try {
        plain = r.at(n)(t, device());
      } catch (const DtypeError&) {
        continue;  // the op is not defined for t: nothing to autocast
      } catch (const ValueError&) {
        continue;  // e.g. linspace/randint ranges an integer dtype cannot hold
      }
      Tensor inside;
      {
        autocast ac(device().kind());
        inside = r.at(n)(t, device());
      }
      // Creation ops take the dtype explicitly: left alone.
      const Dtype want = creation ? plain.dtype() : expected_dtype(expected_policy(op), plain.dtype(), lower());
      EXPECT_EQ(inside.dtype(), want) << n << " on " << name(t) << " (outside: " << name(plain.dtype()) << ")";
      EXPECT_EQ(inside.shape(), plain.shape()) << n;
      changed += inside.dtype() != plain.dtype();
      ++checked;
    }
  }
  // 7 lower ops x float32 + 20 float32 ops x 2 half dtypes.
  EXPECT_EQ(changed, 7 + 20 * 2);
  EXPECT_GT(checked, 300);
}

// pow takes numbers too: a half tensor with a number runs in float32 as well.
TEST_P(AutocastTest, PowFollowsTheTable) {
  autocast ac(device().kind());
  const Tensor h = vec(bfloat16, device()), f = vec(float16, device());
  EXPECT_EQ(pow(h, h).dtype(), float32);
  EXPECT_EQ(pow(2.0, h).dtype(), float32);
  EXPECT_EQ(pow(f, 2).dtype(), float32);
  EXPECT_EQ(pow(vec(float32, device()), 2).dtype(), float32);
  EXPECT_EQ(pow(vec(int32, device()), 2).dtype(), int32);
}

TEST_P(AutocastTest, Float64AndIntegersAreUntouched) {
  autocast ac(device().kind());
  const Tensor i32 = tensor(std::vector<int32_t>{1, 2, 3, 4}, device()).view({2, 2});
  EXPECT_EQ(matmul(i32, i32).dtype(), int32);
  EXPECT_EQ(sum(i32).dtype(), int64);
  EXPECT_EQ(cumsum(i32, 0).dtype(), int64);
  EXPECT_EQ(exp(i32).dtype(), float32);
  if (!capabilities(device()).can_store(float64)) GTEST_SKIP() << device().str() << " cannot store float64";
  const Tensor f64 = matrix(float64, device());
  EXPECT_EQ(matmul(f64, f64).dtype(), float64);
  EXPECT_EQ(exp(f64).dtype(), float64);
  EXPECT_EQ(linalg::inv(f64).dtype(), float64);
}

TEST_P(AutocastTest, ExplicitDtypesAndInPlaceCopiesAreLeftAlone) {
  autocast ac(device().kind());
  const Tensor h = vec(bfloat16, device());
  EXPECT_EQ(sum(h, {}, false, bfloat16).dtype(), bfloat16);
  EXPECT_EQ(prod(h, {}, false, float16).dtype(), float16);
  EXPECT_EQ(softmax(h, 0, bfloat16).dtype(), bfloat16);
  EXPECT_EQ(log_softmax(h, 0, float16).dtype(), float16);
  EXPECT_EQ(cumsum(h, 0, bfloat16).dtype(), bfloat16);
  EXPECT_EQ(h.to(float16).dtype(), float16);
  Tensor y = zeros({3}, float32, device());
  y.copy_(h);
  EXPECT_EQ(y.dtype(), float32);
  Tensor z = zeros({3}, bfloat16, device());
  z.copy_(vec(float32, device()));
  EXPECT_EQ(z.dtype(), bfloat16);
}

TEST_P(AutocastTest, LowerPrecisionMatchesAnExplicitCast) {
  // Inside the scope matmul is exactly matmul of the inputs rounded to the lower dtype
  // (float32 accumulation, one rounding), on this device.
  const Tensor a = randn({5, 7}, float32, device(), 3), b = randn({7, 4}, float32, device(), 4);
  const Dtype lo = lower();
  Tensor in_scope;
  {
    autocast ac(device().kind());
    in_scope = matmul(a, b);
  }
  const Tensor by_hand = matmul(a.to(lo), b.to(lo));
  ASSERT_EQ(in_scope.dtype(), lo);
  EXPECT_TENSOR_CLOSE(in_scope, by_hand, {.rtol = 0, .atol = 0});
  const auto m = testing::check_matmul(in_scope, a.to(lo), b.to(lo));
  EXPECT_TRUE(m.ok) << m.str();
}

TEST_P(AutocastTest, LinearAndNnLinearRunInTheLowerDtype) {
  // linear (and nn::Linear, which calls it) is the op with the lower dtype on
  // every operand, the bias included: the same bits as linear on cast inputs.
  const Tensor x = randn({6, 8}, float32, device(), 5);
  const nn::Linear lin(8, 3, true, float32, device(), 11);
  const Dtype lo = lower();
  Tensor op_in_scope, layer_in_scope, add_in_scope;
  {
    autocast ac(device().kind());
    op_in_scope = linear(x, lin.weight(), lin.bias());
    layer_in_scope = lin(x);
    add_in_scope = addmm(lin.bias(), x, lin.weight().t());
  }
  const Tensor by_hand = linear(x.to(lo), lin.weight().to(lo), lin.bias().to(lo));
  ASSERT_EQ(op_in_scope.dtype(), lo);
  ASSERT_EQ(layer_in_scope.dtype(), lo);
  ASSERT_EQ(add_in_scope.dtype(), lo);
  EXPECT_TENSOR_CLOSE(op_in_scope, by_hand, {.rtol = 0, .atol = 0});
  EXPECT_TENSOR_CLOSE(layer_in_scope, by_hand, {.rtol = 0, .atol = 0});
  EXPECT_TENSOR_CLOSE(add_in_scope, by_hand, {.rtol = 0, .atol = 0});
}

TEST_P(AutocastTest, NestingAndExitRestore) {
  const DeviceKind k = device().kind();
  const Tensor a = matrix(float32, device());
  EXPECT_FALSE(is_autocast_enabled(k));
  {
    autocast outer(k, bfloat16);
    EXPECT_TRUE(is_autocast_enabled(k));
    EXPECT_EQ(mm(a, a).dtype(), bfloat16);
    {
      autocast inner(k, float16);
      EXPECT_EQ(mm(a, a).dtype(), float16);
      EXPECT_EQ(autocast_lower_dtype(device()), float16);
    }
    EXPECT_EQ(mm(a, a).dtype(), bfloat16);
    {
      autocast inherit(k);  // no dtype: keeps the enclosing choice
      EXPECT_EQ(mm(a, a).dtype(), bfloat16);
    }
    {
      autocast off(k, {}, false);
      EXPECT_FALSE(is_autocast_enabled(k));
      EXPECT_EQ(mm(a, a).dtype(), float32);
      EXPECT_EQ(autocast_lower_dtype(device()), std::nullopt);
      {
        autocast on_again(k, float16);
        EXPECT_EQ(mm(a, a).dtype(), float16);
      }
      EXPECT_EQ(mm(a, a).dtype(), float32);
    }
    EXPECT_EQ(mm(a, a).dtype(), bfloat16);
  }
  EXPECT_FALSE(is_autocast_enabled(k));
  EXPECT_EQ(mm(a, a).dtype(), float32);
  EXPECT_EQ(exp(vec(bfloat16, device())).dtype(), bfloat16);
}

TEST_P(AutocastTest, DisabledScopeChangesNothing) {
  autocast off(device().kind(), bfloat16, false);
  const Tensor a = matrix(float32, device());
  EXPECT_EQ(mm(a, a).dtype(), float32);
  EXPECT_EQ(exp(vec(float16, device())).dtype(), float16);
  EXPECT_EQ(sum(vec(bfloat16, device())).dtype(), bfloat16);
}

TEST_P(AutocastTest, OnlyTheScopesDeviceKindIsAffected) {
  const DeviceKind other = device().kind() == DeviceKind::cpu ? DeviceKind("emu") : DeviceKind::cpu;
  autocast ac(other);
  const Tensor a = matrix(float32, device());
  EXPECT_EQ(mm(a, a).dtype(), float32);
  EXPECT_EQ(exp(vec(bfloat16, device())).dtype(), bfloat16);
}

TEST_P(AutocastTest, ScopesArePerThread) {
  autocast ac(device().kind());
  const Tensor a = matrix(float32, device());
  Dtype seen = bool_;
  std::thread th([&] { seen = mm(a, a).dtype(); });
  th.join();
  EXPECT_EQ(seen, float32);
  EXPECT_EQ(mm(a, a).dtype(), lower());
}

TEST_P(AutocastTest, DefaultLowerDtypeOfTheDevice) {
  const Device& d = device();
  EXPECT_EQ(default_autocast_dtype(d), capabilities(d).can_compute(float16) ? float16 : bfloat16);
  if (d.is_cpu()) return;  // cpu takes no profile
  ProfileGuard g(d, "no-fp16");
  EXPECT_EQ(default_autocast_dtype(d), bfloat16);
  autocast ac(d.kind());
  const Tensor a = matrix(float32, d);
  EXPECT_EQ(mm(a, a).dtype(), bfloat16);
}

// Counted once per changed run with Path::autocast under the dtype it was given,
// in addition to the run itself under the dtype it ran in.
uint64_t runs(const Report& r, const std::string& op, const Device& d, Dtype t) {
  uint64_t n = 0;
  for (const auto& e : r.entries)
    if (e.op == op && e.device == d.str() && e.dtype == t && e.path != Path::autocast) n += e.count;
  return n;
}

TEST_P(AutocastTest, CountedInTheReport) {
  const Device& d = device();
  const Tensor a = matrix(float32, d), h = vec(float16, d);
  Tensor dummy = mm(a, a);  // warm-up (one-time warnings, kernels)
  reset_report();
  {
    autocast ac(d.kind());
    mm(a, a);
    mm(a, a);
    exp(h);
    sum(h);
    linalg::inv(matrix(bfloat16, d));
    mm(a.to(float16), a.to(float16));  // not changed: not counted
    exp(vec(float32, d));              // not changed
    sum(h, {}, false, float16);        // explicit dtype: not changed
  }
  mm(a, a);  // outside: not counted
  const Report r = report();
  EXPECT_EQ(r.count("mm", d.str(), float32, Path::autocast), 2u) << r;
  EXPECT_EQ(runs(r, "mm", d, lower()), 2u) << r;
  EXPECT_EQ(runs(r, "mm", d, float32), 1u) << r;
  EXPECT_EQ(r.count("exp", d.str(), float16, Path::autocast), 1u) << r;
  EXPECT_EQ(runs(r, "exp", d, float32), 2u) << r;
  EXPECT_EQ(r.count("sum", d.str(), float16, Path::autocast), 1u) << r;
  EXPECT_EQ(runs(r, "sum", d, float32), 1u) << r;
  EXPECT_EQ(runs(r, "sum", d, float16), 1u) << r;
  EXPECT_EQ(r.count("inv", d.str(), bfloat16, Path::autocast), 1u) << r;
  EXPECT_EQ(runs(r, "inv", d, float32), 1u) << r;
  EXPECT_EQ(r.count("mm", Path::autocast), 2u);
  EXPECT_EQ(r.count("exp", Path::autocast), 1u);
  uint64_t total = 0;
  for (const auto& e : r.entries) total += e.path == Path::autocast ? e.count : 0;
  EXPECT_EQ(total, 5u) << r;
}

TEST_P(AutocastTest, Float32OpsGiveFloat32ValuesOfTheHalfInputs) {
  // exp of a bfloat16 input inside a scope is exp of its float32 conversion.
  const Tensor h = randn({64}, bfloat16, device(), 9);
  Tensor in_scope;
  {
    autocast ac(device().kind());
    in_scope = exp(h);
  }
  EXPECT_EQ(in_scope.dtype(), float32);
  EXPECT_TENSOR_CLOSE(in_scope, exp(h.to(float32)), {.rtol = 0, .atol = 0});
}

CONCORD_INSTANTIATE_DEVICES(AutocastTest);

TEST(AutocastCli, OpsAutocastPrintsTheTable) {
  const std::string cmd = std::string(CONCORD_CLI) + " ops --autocast";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  ASSERT_EQ(pclose(p), 0) << out;
  for (int i = 0; i < kNumOps; ++i) {
    const OpId op = static_cast<OpId>(i);
    const std::string line_start = "\n" + std::string(op_name(op)) + " ";
    const size_t at = out.find(line_start);
    ASSERT_NE(at, std::string::npos) << op_name(op) << " missing from:\n" << out;
    const std::string line = out.substr(at + 1, out.find('\n', at + 1) - at - 1);
    EXPECT_NE(line.find(std::string(name(expected_policy(op)))), std::string::npos) << line;
  }
}

}  // namespace
}  // namespace concord
