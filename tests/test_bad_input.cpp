// Bad input, table-driven: every row of docs/BAD_INPUT.md is a row here. A row
// either raises a typed error whose message starts with "[op]" and names the
// shapes, dtypes and device involved, or gives the documented result.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "concord/concord.h"
#include "support/devices.h"

namespace concord {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// One error row: the call, the error type, the op prefix, what the message must name.
struct ErrorRow {
  std::string input;
  std::function<void()> call;
  std::function<bool(const std::exception&)> is_type;
  std::string type_name;
  std::string op;
  std::vector<std::string> names;
};

template <class E>
ErrorRow row(std::string input, const char* type_name, std::string op, std::vector<std::string> names,
             std::function<void()> call) {
  return {std::move(input), std::move(call), [](const std::exception& e) { return dynamic_cast<const E*>(&e) != nullptr; },
          type_name, std::move(op), std::move(names)};
}

void check_rows(const std::vector<ErrorRow>& rows) {
  for (const ErrorRow& r : rows) {
    SCOPED_TRACE(r.input);
    try {
      r.call();
      ADD_FAILURE() << r.input << ": no error, expected " << r.type_name;
    } catch (const std::exception& e) {
      const std::string m = e.what();
      if (std::getenv("CONCORD_BAD_INPUT_PRINT")) std::printf("| %s | %s | %s |\n", r.input.c_str(), r.type_name.c_str(), m.c_str());
      EXPECT_TRUE(r.is_type(e)) << r.input << ": expected " << r.type_name << ", got: " << m;
      EXPECT_EQ(m.rfind("[" + r.op + "]", 0), 0u) << r.input << ": message does not start with [" << r.op << "]: " << m;
      for (const auto& n : r.names) EXPECT_NE(m.find(n), std::string::npos) << r.input << ": '" << n << "' missing in: " << m;
    }
  }
}

Tensor vals(std::vector<float> v, Shape s, const Device& d) { return from_host(v.data(), std::move(s), float32, d); }
std::vector<float> host(const Tensor& t) { return t.to_vector<float>(); }

class BadInputTest : public test::DeviceTest {};

TEST_P(BadInputTest, ShapeMismatch) {
  const Device d = device();
  const std::string dev = d.str();
  const Tensor a = zeros({2, 3}, float32, d), b = zeros({4}, float32, d), m = zeros({4, 5}, float32, d);
  check_rows({
      row<ShapeError>("add [2, 3] + [4]", "ShapeError", "add", {"float32[2, 3]", "float32[4]", dev}, [&] { (void)add(a, b); }),
      row<ShapeError>("matmul [2, 3] x [4, 5]", "ShapeError", "matmul", {"[2, 3]", "[4, 5]", "float32"},
                      [&] { (void)matmul(a, m); }),
      row<ShapeError>("cat [2, 3] and [4, 5] on dim 0", "ShapeError", "cat", {"[2, 3]", "[4, 5]"},
                      [&] { (void)cat({a, m}, 0); }),
      row<ShapeError>("view [2, 3] as [7]", "ShapeError", "view", {"[7]"}, [&] { (void)a.view({7}); }),
      row<ShapeError>("solve [2, 3] (not square)", "ShapeError", "linalg.solve", {"[2, 3]"},
                      [&] { (void)linalg::solve(a, zeros({2, 1}, float32, d)); }),
      row<ShapeError>("copy_ [4] into [2, 3]", "ShapeError", "copy_", {"[4]", "[2, 3]"},
                      [&] { Tensor t = zeros({2, 3}, float32, d); t.copy_(b); }),
  });
  // An expanded destination: refused, and the memory behind it keeps its values.
  Tensor base = ones({3}, float32, d);
  check_rows({
      row<ValueError>("copy_ into an expanded [2, 3]", "ValueError", "copy_", {"[2, 3]", "float32", dev, "dim 0", "clone()"},
                      [&] { base.expand({2, 3}).copy_(a); }),
  });
  EXPECT_EQ(base.to_vector<float>(), std::vector<float>(3, 1.0f));
}

TEST_P(BadInputTest, NegativeAndOverflowingSizes) {
  const Device d = device();
  const std::string dev = d.str();
  const int64_t big = int64_t{1} << 62;
  check_rows({
      row<ShapeError>("zeros [2, -1]", "ShapeError", "zeros", {"[2, -1]", "float32", dev},
                      [&] { (void)zeros({2, -1}, float32, d); }),
      row<ShapeError>("empty [2^62, 2^62] (element count overflows int64)", "ShapeError", "empty",
                      {"overflows int64", "float32", dev}, [&] { (void)empty({big, big}, float32, d); }),
      row<ShapeError>("full [2^31, 2^31, 4] (overflows int64)", "ShapeError", "full", {"overflows int64", dev},
                      [&] { (void)full({int64_t{1} << 31, int64_t{1} << 31, 4}, 1.0, float32, d); }),
      row<ShapeError>("arange(0, 1e30, 1e-10) (too many elements)", "ShapeError", "arange", {"int64"},
                      [&] { (void)arange(0.0, 1e30, 1e-10, float32, d); }),
      row<ShapeError>("reshape [2, 3] to [-2, 3]", "ShapeError", "reshape", {"-2"}, [&] {
        (void)zeros({2, 3}, float32, d).reshape({-2, 3});
      }),
      row<ValueError>("linspace with -1 steps", "ValueError", "linspace", {"-1"},
                      [&] { (void)linspace(0, 1, -1, float32, d); }),
      // Fits int64 but not memory: a typed out-of-memory error naming the bytes and the device.
      row<OutOfMemoryError>("empty [2^61] float32 (8 EiB)", "OutOfMemoryError",
                            memory_space(d) == MemorySpace::host ? std::string("alloc") : std::string(d.kind().name()), {"9223372036854775808 bytes", dev},
                            [&] { (void)empty({int64_t{1} << 61}, float32, d); }),
  });
}

TEST_P(BadInputTest, OutOfRangeDimsAndIndices) {
  const Device d = device();
  const std::string dev = d.str();
  const Tensor x = zeros({2, 3}, float32, d);
  check_rows({
      row<ShapeError>("sum over dim 2 of a 2-D tensor", "ShapeError", "sum", {"dim 2", "2 dims"},
                      [&] { (void)sum(x, {2}); }),
      row<ShapeError>("softmax over dim -3", "ShapeError", "softmax", {"dim -3"}, [&] { (void)softmax(x, -3); }),
      row<ShapeError>("argmax over dim 5", "ShapeError", "argmax", {"dim 5"}, [&] { (void)argmax(x, 5); }),
      row<ShapeError>("transpose(0, 5)", "ShapeError", "transpose", {"dim 5"}, [&] { (void)x.transpose(0, 5); }),
      row<ShapeError>("cat on dim 3", "ShapeError", "cat", {"dim 3"}, [&] { (void)cat({x, x}, 3); }),
      row<ShapeError>("select index 7 of dim 0 (size 2)", "ShapeError", "select", {"index 7"},
                      [&] { (void)x.select(0, 7); }),
      row<ShapeError>("narrow(1, 2, 5) on [2, 3]", "ShapeError", "narrow", {"start 2", "length 5"},
                      [&] { (void)x.narrow(1, 2, 5); }),
      row<ShapeError>("index_select index 4 on dim 0 (size 2)", "ShapeError", "index_select", {"index 4", dev},
                      [&] { (void)index_select(x, 0, arange(4, 6, 1, int64, d)); }),
      row<ShapeError>("index_select index -1", "ShapeError", "index_select", {"-1", dev},
                      [&] { (void)index_select(x, 0, arange(-1, 0, 1, int64, d)); }),
      row<ShapeError>("gather index 3 on dim 1 (size 3)", "ShapeError", "gather", {"3", dev},
                      [&] { (void)gather(x, 1, full({2, 1}, 3, int64, d)); }),
      row<DtypeError>("index_select with a float32 index", "DtypeError", "index_select", {"float32", dev},
                      [&] { (void)index_select(x, 0, zeros({1}, float32, d)); }),
  });
}

TEST_P(BadInputTest, DtypeNotAllowed) {
  const Device d = device();
  const std::string dev = d.str();
  const Tensor bools = zeros({3}, bool_, d), ints = zeros({3, 3}, int32, d);
  check_rows({
      row<DtypeError>("sub on bool", "DtypeError", "sub", {"bool", dev}, [&] { (void)sub(bools, bools); }),
      row<DtypeError>("neg on bool", "DtypeError", "neg", {"bool", dev}, [&] { (void)neg(bools); }),
      row<DtypeError>("cholesky on int32", "DtypeError", "linalg.cholesky", {"int32", dev},
                      [&] { (void)linalg::cholesky(ints); }),
      row<DtypeError>("rand as int32", "DtypeError", "rand", {"int32", dev}, [&] { (void)rand({2}, int32, d); }),
      row<DtypeError>("randn as int64", "DtypeError", "randn", {"int64", dev}, [&] { (void)randn({2}, int64, d); }),
  });
}

TEST_P(BadInputTest, MixedDevices) {
  const Device d = device();
  if (d.is_cpu()) GTEST_SKIP() << "needs a second device";
  const Tensor a = zeros({2}, float32, d), c = zeros({2}, float32, kCPU);
  check_rows({
      row<DeviceError>("add of a cpu and a device tensor", "DeviceError", "add", {"cpu", d.str(), "float32[2]"},
                       [&] { (void)add(c, a); }),
      row<DeviceError>("matmul of a device and a cpu tensor", "DeviceError", "matmul", {"cpu", d.str()},
                       [&] { (void)matmul(a, c); }),
  });
}

// NaN and Inf through every op family: IEEE results, nothing raises.
TEST_P(BadInputTest, NanAndInfThroughEveryFamily) {
  const Device d = device();
  const Tensor x = vals({kNaN, kInf, -kInf, 1.f}, {4}, d);
  // elementwise
  auto e = host(add(x, 1));
  EXPECT_TRUE(std::isnan(e[0]));
  EXPECT_EQ(e[1], kInf);
  EXPECT_EQ(e[2], -kInf);
  auto ex = host(exp(x));
  EXPECT_TRUE(std::isnan(ex[0]));
  EXPECT_EQ(ex[1], kInf);
  EXPECT_EQ(ex[2], 0.f);
  auto sq = host(sqrt(vals({-1.f}, {1}, d)));
  EXPECT_TRUE(std::isnan(sq[0]));
  auto dv = host(div(vals({1.f, -1.f, 0.f}, {3}, d), 0));
  EXPECT_EQ(dv[0], kInf);
  EXPECT_EQ(dv[1], -kInf);
  EXPECT_TRUE(std::isnan(dv[2]));
  EXPECT_TRUE(std::isnan(host(maximum(x, 0))[0]));           // NaN propagates
  EXPECT_EQ(eq(x, x).to_vector<bool>(), (std::vector<bool>{false, true, true, true}));
  EXPECT_EQ(isnan(x).to_vector<bool>(), (std::vector<bool>{true, false, false, false}));
  // reductions
  EXPECT_TRUE(std::isnan(sum(x).item<float>()));
  EXPECT_TRUE(std::isnan(sum(vals({kInf, -kInf}, {2}, d)).item<float>()));  // inf - inf
  EXPECT_EQ(sum(vals({kInf, 1.f}, {2}, d)).item<float>(), kInf);
  EXPECT_TRUE(std::isnan(amax(x).item<float>()));
  EXPECT_EQ(argmax(x).item<int64_t>(), 0);                    // NaN wins, first occurrence
  EXPECT_EQ(amax(vals({1.f, kInf}, {2}, d)).item<float>(), kInf);
  auto sm = host(softmax(vals({kInf, 1.f}, {2}, d), 0));       // inf - inf inside
  EXPECT_TRUE(std::isnan(sm[0]));
  EXPECT_EQ(logsumexp(vals({-kInf, -kInf}, {2}, d), {0}).item<float>(), -kInf);
  // matmul: NaN spreads along its row, inf * 0 is NaN
  auto mm = host(matmul(vals({kNaN, 0.f, 1.f, 1.f}, {2, 2}, d), vals({1.f, 1.f, 1.f, 1.f}, {2, 2}, d)));
  EXPECT_TRUE(std::isnan(mm[0]) && std::isnan(mm[1]));
  EXPECT_EQ(mm[2], 2.f);
  EXPECT_TRUE(std::isnan(matmul(vals({kInf}, {1, 1}, d), vals({0.f}, {1, 1}, d)).item<float>()));
  // shape ops copy NaN/Inf bit for bit
  auto fl = host(flip(x, {0}));
  EXPECT_TRUE(std::isnan(fl[3]));
  EXPECT_EQ(fl[2], kInf);
  // copies: float32 -> float16 saturates to inf; NaN stays NaN
  auto h = host(vals({1e6f, kNaN}, {2}, d).to(float16).to(float32));
  EXPECT_EQ(h[0], kInf);
  EXPECT_TRUE(std::isnan(h[1]));
  // linalg: a NaN matrix gives a NaN solution (no error)
  auto s = host(linalg::solve(vals({kNaN, 0.f, 0.f, 1.f}, {2, 2}, d), vals({1.f, 1.f}, {2, 1}, d)));
  EXPECT_TRUE(std::isnan(s[0]));
  // creation: full(NaN) fills NaN; arange needs finite bounds
  EXPECT_TRUE(std::isnan(full({2}, kNaN, float32, d).to_vector<float>()[1]));
  EXPECT_THROW((void)arange(0.0, static_cast<double>(kInf), 1.0, float32, d), ValueError);
}

// Empty tensors through every op: documented results, never an error for a
// well-formed shape.
TEST_P(BadInputTest, EmptyTensorsThroughEveryOp) {
  const Device d = device();
  const Tensor e = zeros({0, 3}, float32, d), none = zeros({0}, float32, d);
  EXPECT_EQ(sum(none).item<float>(), 0.f);
  EXPECT_EQ(prod(none).item<float>(), 1.f);
  EXPECT_TRUE(std::isnan(mean(none).item<float>()));
  EXPECT_EQ(all(zeros({0}, bool_, d)).item<bool>(), true);
  EXPECT_EQ(any(zeros({0}, bool_, d)).item<bool>(), false);
  EXPECT_EQ(sum(e, {0}).shape(), (Shape{3}));
  EXPECT_EQ(host(sum(e, {0})), (std::vector<float>{0, 0, 0}));
  EXPECT_EQ(sum(e, {1}).shape(), (Shape{0}));
  EXPECT_EQ(add(e, 1).shape(), (Shape{0, 3}));
  EXPECT_EQ(exp(e).numel(), 0);
  EXPECT_EQ(softmax(e, 1).shape(), (Shape{0, 3}));
  EXPECT_EQ(cumsum(e, 0).shape(), (Shape{0, 3}));
  EXPECT_EQ(matmul(e, zeros({3, 2}, float32, d)).shape(), (Shape{0, 2}));
  EXPECT_EQ(host(matmul(zeros({2, 0}, float32, d), zeros({0, 3}, float32, d))), std::vector<float>(6, 0.f));
  EXPECT_EQ(cat({e, ones({1, 3}, float32, d)}, 0).shape(), (Shape{1, 3}));
  EXPECT_EQ(index_select(ones({2, 3}, float32, d), 0, zeros({0}, int64, d)).shape(), (Shape{0, 3}));
  EXPECT_EQ(flip(e, {0}).shape(), (Shape{0, 3}));
  EXPECT_EQ(e.to(kCPU).shape(), (Shape{0, 3}));
  EXPECT_EQ(e.to(float16).shape(), (Shape{0, 3}));
  EXPECT_EQ(arange(0, 0, 1, float32, d).numel(), 0);
  EXPECT_EQ(linalg::solve(zeros({0, 0}, float32, d), zeros({0, 2}, float32, d)).shape(), (Shape{0, 2}));
  // Reductions with no identity need at least one element.
  check_rows({
      row<ShapeError>("amax of an empty tensor", "ShapeError", "amax", {"[0]"}, [&] { (void)amax(none); }),
      row<ShapeError>("argmax of an empty tensor", "ShapeError", "argmax", {"[0]"}, [&] { (void)argmax(none); }),
      row<ShapeError>("max of an empty tensor", "ShapeError", "max", {"[0]"}, [&] { (void)max(none); }),
      row<ShapeError>("item of an empty tensor", "ShapeError", "item", {"[0]"}, [&] { (void)none.item<float>(); }),
  });
}

CONCORD_INSTANTIATE_DEVICES(BadInputTest);

TEST(BadInputDevice, DeviceThatDoesNotExist) {
  check_rows({
      row<DeviceError>("device string 'gpu:0'", "DeviceError", "device", {"gpu:0"}, [] { (void)Device("gpu:0"); }),
      row<DeviceError>("device string 'emu:x'", "DeviceError", "device", {"emu:x"}, [] { (void)Device("emu:x"); }),
      row<DeviceError>("zeros on opencl:99", "DeviceError", "device", {"opencl:99", "available"},
                       [] { (void)zeros({2}, float32, Device("opencl:99")); }),
      row<DeviceError>("to(emu:63)", "DeviceError", "device", {"emu:63"},
                       [] { (void)zeros({2}, float32, kCPU).to(Device("emu:63")); }),
      row<DeviceError>("capabilities(opencl:99)", "DeviceError", "device", {"opencl:99"},
                       [] { (void)capabilities(Device("opencl:99")); }),
  });
}

// Host memory carries no shape: every constructor that has a length checks it
// against the shape before reading (a short vector was read past its end).
TEST_P(BadInputTest, HostMemoryConstructorsCheckTheirLength) {
  const Device d = device();
  const std::string dev = d.str();
  const std::vector<float> five{1, 2, 3, 4, 5};
  const std::vector<int64_t> seven(7, 3);
  check_rows({
      row<ShapeError>("from_vector of 5 floats as [2, 3]", "ShapeError", "from_vector", {"[2, 3]", "6", "5 were given", "float32", dev},
                      [&] { (void)from_vector(five, {2, 3}, d); }),
      row<ShapeError>("from_vector of 7 int64 as [2, 3] (too many)", "ShapeError", "from_vector", {"[2, 3]", "7 were given", "int64", dev},
                      [&] { (void)from_vector(seven, {2, 3}, d); }),
      row<ShapeError>("from_vector of 5 floats as a 0-dim tensor", "ShapeError", "from_vector", {"[]", "needs 1"},
                      [&] { (void)from_vector(five, {}, d); }),
      row<ShapeError>("from_vector of 2 bools as [3]", "ShapeError", "from_vector", {"[3]", "bool", "2 were given"},
                      [&] { (void)from_vector(std::vector<bool>{true, false}, {3}, d); }),
      row<ShapeError>("from_host(ptr, 5, [2, 3])", "ShapeError", "from_host", {"[2, 3]", "5 were given", dev},
                      [&] { (void)from_host(five.data(), five.size(), {2, 3}, float32, d); }),
      row<ShapeError>("from_vector of 5 floats as [5, -1]", "ShapeError", "from_vector", {"negative size", "[5, -1]"},
                      [&] { (void)from_vector(five, {5, -1}, d); }),
  });
  // The right length still works, empty included.
  EXPECT_EQ(from_vector(five, {5, 1}, d).to_vector<float>(), five);
  EXPECT_EQ(from_host(five.data(), 4, {2, 2}, float32, d).to_vector<float>(), std::vector<float>(five.begin(), five.begin() + 4));
  EXPECT_EQ(from_vector(std::vector<float>{}, {0, 3}, d).numel(), 0);
}

// data<T>() hands out a typed host pointer: the type must be the dtype's and
// the memory the host's; otherwise a typed error says what to call instead.
TEST_P(BadInputTest, DataPointerChecksDtypeAndDevice) {
  const Device d = device();
  const std::string dev = d.str();
  const Tensor x = from_vector(std::vector<float>{0.125f, 2.0f, -3.0f}, {3}, d);
  check_rows({
      row<DtypeError>("float32 tensor read through data<double>()", "DtypeError", "data",
                      {"float64", "float32[3]", dev, "to_vector<T>()", ".to(concord::float64)"}, [&] { (void)x.data<double>(); }),
      row<DtypeError>("float32 tensor read through data<int32_t>()", "DtypeError", "data", {"int32", "float32[3]"},
                      [&] { (void)x.data<int32_t>(); }),
      row<ValueError>("data<float>() of an undefined tensor", "ValueError", "data", {"undefined"},
                      [] { (void)Tensor().data<float>(); }),
  });
  if (memory_space(d) == MemorySpace::host) {
    const float* p = x.data<float>();
    EXPECT_EQ(p[0], 0.125f);
    EXPECT_EQ(p[2], -3.0f);
    EXPECT_EQ(x.slice(0, 1, 3).data<float>()[0], 2.0f);  // the view's first element
  } else {
    check_rows({
        row<DeviceError>("data<float>() of a device tensor", "DeviceError", "data",
                         {dev, "float32[3]", "not addressable", ".to(concord::kCPU)"}, [&] { (void)x.data<float>(); }),
    });
    EXPECT_EQ(x.to(kCPU).data<float>()[0], 0.125f);
  }
}

TEST(BadInputDevice, UnknownProfile) {
  check_rows({
      row<ValueError>("profile 'no-fp65'", "ValueError", "profile", {"no-fp65", "no-fp64"},
                      [] { (void)parse_profile("no-fp65"); }),
      row<ValueError>("profile 'no-op:frobnicate'", "ValueError", "profile", {"frobnicate"},
                      [] { (void)parse_profile("no-op:frobnicate"); }),
      row<ValueError>("set_profile(emu:0, 'fast')", "ValueError", "profile", {"fast"},
                      [] { set_profile(Device("emu:0"), "fast"); }),
      row<DeviceError>("set_profile(cpu, 'no-fp64')", "DeviceError", "profile", {"cpu"},
                       [] { set_profile(kCPU, "no-fp64"); }),
  });
  EXPECT_TRUE(profile(Device("emu:0")).no_fp64);  // a rejected profile changes nothing
}

TEST(BadInputEnvironment, MalformedValuesAreRejectedByTheirParsers) {
  check_rows({
      row<ValueError>("CONCORD_DTYPE_POLICY=sometimes", "ValueError", "policy", {"CONCORD_DTYPE_POLICY", "sometimes"},
                      [] { (void)parse_dtype_policy("sometimes"); }),
      row<ValueError>("CONCORD_FALLBACK=gpu", "ValueError", "policy", {"CONCORD_FALLBACK", "gpu"},
                      [] { (void)parse_fallback_policy("gpu"); }),
  });
}

// The environment is read once, at first use: a malformed value makes the first
// call that needs it throw. Checked in a child process (this binary, one test).
TEST(BadInputEnvironment, MalformedVariablesFailTheFirstUse) {
  if (std::getenv("CONCORD_BAD_INPUT_CHILD")) GTEST_SKIP() << "child process";
  struct Case { const char* env; const char* message; };
  const Case cases[] = {
      {"CONCORD_DTYPE_POLICY=sometimes", "[policy] CONCORD_DTYPE_POLICY='sometimes' is not a dtype policy"},
      {"CONCORD_FALLBACK=gpu", "[policy] CONCORD_FALLBACK='gpu' is not a fallback policy"},
      {"CONCORD_EMU_DEVICES=two", "[device] CONCORD_EMU_DEVICES='two' is not a count"},
      {"CONCORD_DEVICE_PROFILE=emu:0", "[profile] CONCORD_DEVICE_PROFILE item 'emu:0' has no '='"},
      {"CONCORD_DEVICE_PROFILE=emu:0=no-fp65", "[profile]"},
  };
  char self[4096] = {};
  ASSERT_GT(readlink("/proc/self/exe", self, sizeof self - 1), 0);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.env);
    const std::string cmd = std::string("CONCORD_BAD_INPUT_CHILD=1 CONCORD_TEST_DEVICES=cpu ") + c.env +
                            " " + self + " --gtest_filter=BadInputEnvironmentChild.* 2>&1";
    std::string out;
    if (FILE* p = popen(cmd.c_str(), "r")) {
      char buf[512];
      while (std::fgets(buf, sizeof buf, p)) out += buf;
      EXPECT_NE(pclose(p), 0) << out;
    }
    EXPECT_NE(out.find(c.message), std::string::npos) << out;
  }
}

TEST(BadInputEnvironmentChild, UseEverything) {
  if (!std::getenv("CONCORD_BAD_INPUT_CHILD")) GTEST_SKIP() << "runs only as the child of MalformedVariablesFailTheFirstUse";
  (void)devices();
  (void)dtype_policy();
  (void)fallback_policy();
  (void)profile(Device("emu:0"));
}

}  // namespace
}  // namespace concord
