// The differential suite: a seeded set of ops x dtypes x edge values, views, 0-dim
// and empty tensors, run through PyTorch 1.13 (torch_cases.py, by /usr/bin/python3,
// at test time) and through concord on every device config. Per case it checks
// the errors raised (both or neither), result dtype and shape, values (bitwise
// for exact and correctly rounded ops, else by the op's error model against a
// float64 reference) and assert_close's message. Known deviations
// (deviations.cpp, docs/PYTORCH_DIFFERENCES.md) are named, counted exceptions.
// Skips, saying why, only where /usr/bin/python3 cannot import torch and numpy.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sys/wait.h>
#include <unistd.h>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "cases.h"
#include "concord/testing.h"
#include "deviations.h"
#include "support/devices.h"

namespace cd = concord::differential;
using concord::Dtype;

namespace {

struct Loaded {
  std::vector<cd::Case> cases;
  std::string skip;   // why the suite cannot run here
  std::string error;  // the generator failed
};

// Runs the generator once per process.
const Loaded& loaded() {
  static const Loaded l = [] {
    Loaded r;
    const std::string err = ::testing::TempDir() + "concord_torch_cases." + std::to_string(getpid()) + ".err";
    const char* py = std::getenv("CONCORD_TORCH_PYTHON");  // default: /usr/bin/python3 (CMake cache)
    const std::string cmd = std::string(py && *py ? py : CONCORD_TORCH_PYTHON) + " " + CONCORD_TORCH_CASES + " 2>" + err;
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) { r.skip = "cannot run " + cmd; return r; }
    std::string text;
    char buf[1 << 16];
    for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) text.append(buf, n);
    const int st = pclose(p);
    std::string why;
    if (FILE* e = fopen(err.c_str(), "r")) {
      for (size_t n; (n = fread(buf, 1, sizeof buf, e)) > 0;) why.append(buf, n);
      fclose(e);
    }
    std::remove(err.c_str());
    // Status 3: torch/numpy cannot be imported, 127: no /usr/bin/python3 (the reasons to
    // skip); any other failure is a broken generator.
    const bool missing = WIFEXITED(st) && (WEXITSTATUS(st) == 3 || WEXITSTATUS(st) == 127);
    if (st != 0 && !missing) {
      r.error = "torch_cases.py failed (" + cmd + ", status " + std::to_string(st) + "):\n" + why;
      return r;
    }
    if (st != 0) {
      r.skip = "PyTorch's side of the suite cannot run: " + why +
               "Install python3-torch and python3-numpy (make test does).";
      return r;
    }
    r.cases = cd::parse_cases(text);
    return r;
  }();
  return l;
}

double ulps(Dtype t, double a, double b) {
  return std::fabs(a - b) / concord::testing::ulp(t, b);
}

double min_normal(Dtype t) {
  return std::ldexp(1.0, t == Dtype::float16 ? -14 : t == Dtype::float64 ? -1022 : -126);
}

struct Discrepancy {
  bool whole = true;      // error/dtype/shape/message, else one element
  double tv = 0, cv = 0;  // element values (PyTorch's or the reference's, concord's)
  std::string text;
};

std::string val(double v) { return concord::testing::float_repr(v); }

// Values of one output: bitwise for exact ops, else the error model vs the float64 reference.
void judge_values(const cd::Case& c, size_t k, const cd::Result& t, const cd::Result& o, bool subnormals,
                  std::vector<Discrepancy>* d) {
  std::optional<concord::OpId> id;
  for (int i = 0; i < concord::kNumOps; ++i)
    if (concord::op_def(static_cast<concord::OpId>(i)).name == c.op) id = static_cast<concord::OpId>(i);
  const bool model = id && k == 0 && concord::is_floating(o.dtype) && !c.ref.empty() &&
                     c.ref.size() == o.bits.size();
  const concord::ErrorModel m = id ? concord::op_def(*id).model : concord::ErrorModel::exact;
  const double bound = id ? concord::op_def(*id).bound : 0;
  const bool bitwise = !model || m == concord::ErrorModel::exact || m == concord::ErrorModel::rounded;
  for (size_t i = 0; i < o.bits.size(); ++i) {
    const double cv = cd::bits_value(o.dtype, o.bits[i]);
    const double tv = cd::bits_value(t.dtype, t.bits[i]);
    bool ok;
    double rv = tv;
    if (bitwise) {
      ok = o.bits[i] == t.bits[i] || (std::isnan(cv) && std::isnan(tv));
    } else {
      rv = c.ref[i];
      const double r = concord::testing::round_to(o.dtype, rv);
      if (std::isnan(rv) || std::isinf(r)) {
        ok = (std::isnan(rv) && std::isnan(cv)) || cv == r;
      } else if (!std::isfinite(cv)) {
        ok = false;
      } else if (!subnormals && std::fabs(r) < min_normal(o.dtype) && cv == 0) {
        ok = true;  // a device that flushes subnormals (Capabilities::keeps_subnormals false)
      } else if (m == concord::ErrorModel::ulp) {
        ok = ulps(o.dtype, cv, rv) <= bound;
      } else {
        const double u = concord::testing::accumulation_roundoff(o.dtype);
        const double tol = bound * static_cast<double>(c.reduced) * u * c.scale[i] +
                           0.5 * concord::testing::ulp(o.dtype, rv);
        ok = std::fabs(cv - rv) <= tol;
      }
    }
    // Judged by the model, values still meet PyTorch's special values: NaN, the infinities.
    if (ok && !bitwise && (std::isnan(tv) != std::isnan(cv) || (std::isinf(tv) || std::isinf(cv)) && tv != cv)) {
      d->push_back({false, tv, cv, "output " + std::to_string(k) + " element " + std::to_string(i) + ": concord " +
                                       val(cv) + ", PyTorch " + val(tv) + " (special value)"});
      continue;
    }
    if (!ok)
      d->push_back({false, tv, cv,
                    "output " + std::to_string(k) + " element " + std::to_string(i) + ": concord " + val(cv) +
                        (bitwise ? ", PyTorch " : ", float64 reference ") + val(rv) +
                        (bitwise ? "" : " (" + std::string(concord::name(m)) + " model, bound " + val(bound) + ")")});
  }
}

std::string strip_ulp_line(const std::string& m) {
  std::string out;
  std::stringstream ss(m);
  for (std::string line; std::getline(ss, line);)
    if (line.find("ULP distance") == std::string::npos) out += (out.empty() ? "" : "\n") + line;
  return out;
}

// PyTorch's spelling of shapes and dtypes in attribute mismatches, in concord's.
std::string concord_spelling(std::string m) {
  for (auto [from, to] : {std::pair{"torch.Size([", "["}, {"])", "]"}, {"torch.", ""}})
    for (size_t p; (p = m.find(from)) != std::string::npos;) m.replace(p, std::string(from).size(), to);
  return m;
}

// Discrepancies of one case, and the deviation the suite's message comparison named.
std::vector<Discrepancy> judge(const cd::Case& c, const cd::Outcome& o, bool subnormals, std::string* named) {
  std::vector<Discrepancy> d;
  if (c.op == "assert_close") {
    const std::string& tm = *c.torch_msg;
    if (tm.rfind("!", 0) == 0) { *named = "compare_one_tolerance"; return d; }
    if (o.message == tm) return d;
    if (strip_ulp_line(o.message) == tm) { *named = "assert_close_ulp_line"; return d; }
    if (o.message == concord_spelling(tm)) { *named = "assert_close_spelling"; return d; }
    d.push_back({true, 0, 0, "assert_close message:\nconcord: " + o.message + "\nPyTorch: " + tm});
    return d;
  }
  if (c.torch_error) {
    if (!o.error) {
      std::string got;
      for (const cd::Result& r : o.out) got += std::string(concord::name(r.dtype)) + " " + cd::shape_text(r.shape) + " ";
      d.push_back({true, 0, 0, "PyTorch raises " + *c.torch_error + ", concord returns " + got});
    }
    return d;
  }
  if (o.error) { d.push_back({true, 0, 0, "concord raises where PyTorch does not: " + *o.error}); return d; }
  if (o.out.size() != c.torch_out.size()) { d.push_back({true, 0, 0, "number of outputs differs"}); return d; }
  for (size_t k = 0; k < o.out.size(); ++k) {
    const cd::Result &t = c.torch_out[k], &r = o.out[k];
    if (t.dtype != r.dtype || !(t.shape == r.shape)) {
      d.push_back({true, 0, 0, "result " + std::to_string(k) + ": concord " + std::string(concord::name(r.dtype)) +
                                   " " + cd::shape_text(r.shape) + ", PyTorch " + std::string(concord::name(t.dtype)) +
                                   " " + cd::shape_text(t.shape)});
      continue;
    }
    judge_values(c, k, t, r, subnormals, &d);
  }
  return d;
}

std::string describe(const cd::Case& c) {
  std::string s = c.id + " " + c.op + (c.params == "-" ? "" : "(" + c.params + ")") + " on";
  for (const cd::Operand& a : c.args)
    s += a.is_scalar ? " scalar " + std::to_string(a.scalar.to_double())
                     : " " + std::string(concord::name(a.dtype)) + cd::shape_text(a.shape) + (a.view == "c" ? "" : "/" + a.view);
  return s;
}

class Differential : public concord::test::DeviceTest {};

TEST_P(Differential, AgainstPyTorch) {
  const Loaded& l = loaded();
  ASSERT_TRUE(l.error.empty()) << l.error;
  if (!l.skip.empty()) GTEST_SKIP() << l.skip;
  ASSERT_GT(l.cases.size(), 1000u) << "the generator produced too few cases";
  const auto& devs = cd::known_deviations();
  std::map<std::string, int> fired, open_failed;
  const auto& open = cd::open_defects();
  std::map<Dtype, bool> storable;
  const bool subnormals = concord::capabilities(device()).keeps_subnormals;
  int run = 0, skipped = 0, agreed = 0, failed = 0;
  std::string failures;
  for (const cd::Case& c : l.cases) {
    bool can = true;
    for (Dtype t : cd::dtypes_of(c)) {
      auto it = storable.find(t);
      if (it == storable.end()) it = storable.emplace(t, concord::test::can_store(GetParam(), t)).first;
      can = can && it->second;
    }
    if (!can) { ++skipped; continue; }
    ++run;
    cd::Outcome o;
    try {
      o = cd::run_case(c, device());
    } catch (const std::exception& e) {
      o.error = std::string("(not a concord::Error) ") + e.what();
    }
    std::string named;
    std::vector<Discrepancy> d = judge(c, o, subnormals, &named);
    if (!named.empty()) ++fired[named];
    if (d.empty()) { ++agreed; continue; }
    // Known deviations explain a whole case, or single elements.
    std::set<std::string> names;
    std::erase_if(d, [&](const Discrepancy& x) {
      for (const cd::Deviation& dv : devs)
        if ((dv.whole_case && dv.whole_case(c)) || (!x.whole && dv.element && dv.element(c, x.tv, x.cv))) {
          names.insert(dv.name);
          return true;
        }
      return false;
    });
    for (const std::string& n : names) ++fired[n];
    if (d.empty()) continue;
    if (std::find(open.begin(), open.end(), cd::case_key(c)) != open.end()) {
      ++open_failed[cd::case_key(c)];
      continue;
    }
    if (++failed <= 25) {
      failures += describe(c) + ":\n";
      for (size_t i = 0; i < d.size() && i < 4; ++i) failures += "  " + d[i].text + "\n";
    }
  }
  std::string summary = GetParam().label + ": " + std::to_string(run) + " cases run, " + std::to_string(agreed) +
                        " agree with PyTorch, " + std::to_string(skipped) + " skipped (dtype not stored here)\n";
  for (const auto& [n, k] : fired) summary += "  known deviation " + n + ": " + std::to_string(k) + " cases\n";
  for (const auto& [n, k] : open_failed) summary += "  open defect " + n + ": " + std::to_string(k) + " cases wrong here\n";
  std::printf("%s", summary.c_str());
  EXPECT_EQ(failed, 0) << failed << " cases differ from PyTorch (first 25):\n" << failures << summary;
  if (GetParam().label == "cpu") {
    for (const std::string& k : open)
      EXPECT_TRUE(open_failed.count(k)) << "open defect " << k << " now agrees with PyTorch on cpu: remove it from "
                                           "open_defects() in deviations.cpp";
    // Every row of the table must be exercised, or the table (and the doc) are stale.
    for (const cd::Deviation& dv : devs)
      EXPECT_TRUE(fired.count(dv.name)) << "known deviation " << dv.name
                                        << " no longer occurs on cpu: remove it from deviations.cpp and "
                                           "docs/PYTORCH_DIFFERENCES.md, or restore its case";
  }
}

CONCORD_INSTANTIATE_DEVICES(Differential);

}  // namespace
