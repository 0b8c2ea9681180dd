// What is OpenCL's own on opencl:0: its kernel geometry (OpenCL C types), half
// arithmetic without cl_khr_fp16, the no-fp64 profile's programs, and program
// build errors with the build log. The kernels themselves are checked against
// the CPU by the device-kernel suites in tests/backend/ (every device); the
// runtime (ICD, program cache, pool) by test_opencl_runtime.cpp. Every test
// skips when the machine has no OpenCL device.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "backend/opencl/opencl_backend.h"
#include "backend/kernel_checks.h"
#include "concord/concord.h"
#include "core/backend.h"

using namespace concord;
using concord::test::item_bits;
using concord::test::raw_bytes;
namespace ocl = concord::detail::ocl;

namespace {

#define REQUIRE_OPENCL() \
  if (detail::ocl::device_count() == 0) GTEST_SKIP() << "no OpenCL device on this machine"

Device ocl0() { return Device("opencl:0"); }
detail::Backend& ob() { return detail::backend_for(ocl0()); }
detail::Backend& cb() { return detail::cpu_backend(); }


class OpenClBackendTest : public ::testing::Test {
 protected:
  void SetUp() override { REQUIRE_OPENCL(); }
};

// ---------------------------------------------------------------- geometry

TEST_F(OpenClBackendTest, GeomCoalescesEachOperand) {
  auto x = zeros({4, 5, 6}, float32, ocl0());
  ocl::Geom g = ocl::geom(x);
  EXPECT_EQ(g.ndim, 1);
  EXPECT_EQ(g.contiguous, 1);
  EXPECT_EQ(g.shape[ocl::kMaxDims - 1], 120);
  g = ocl::geom(x.transpose(0, 2));
  EXPECT_EQ(g.ndim, 3);
  EXPECT_EQ(g.contiguous, 0);
  g = ocl::geom(x.slice(2, 0, 6, 2));  // inner stride 2
  EXPECT_EQ(g.ndim, 1);
  EXPECT_EQ(g.strides[ocl::kMaxDims - 1], 2);
  // A row broadcast over 7 rows: the outer stride-0 dim goes away.
  auto row = zeros({6}, float32, ocl0());
  g = ocl::geom_as(row, Shape{7, 6});
  EXPECT_EQ(g.ndim, 1);
  EXPECT_EQ(g.contiguous, 0);  // element i is at i % 6, not i
  g = ocl::geom_as(zeros({6, 1}, float32, ocl0()), Shape{6, 7});
  EXPECT_EQ(g.ndim, 2);
  g = ocl::geom_as(scalar_tensor(1.0, float32, ocl0()), Shape{3, 3});
  EXPECT_EQ(g.ndim, 0);
  EXPECT_EQ(g.contiguous, 0);
  EXPECT_EQ(ocl::geom(scalar_tensor(1.0, float32, ocl0())).contiguous, 1);
  EXPECT_STREQ(ocl::cl_type(float16), "ushort");
  EXPECT_STREQ(ocl::cl_type(int8), "char");
}

TEST_F(OpenClBackendTest, GeomBeyondMaxDimsIsShapeError) {
  // 9 dims of size 2 with strides that cannot merge (every other element of each dim).
  Shape shape(9, 2);
  auto base = zeros({1 << 18}, float32, ocl0());
  Strides strides(9, 0);
  int64_t s = 2;
  for (int d = 8; d >= 0; --d, s *= 4) strides[static_cast<size_t>(d)] = s;
  Tensor v(base.storage(), shape, strides, 0, float32);
  EXPECT_THROW(ocl::geom(v), ShapeError);
  try {
    ocl::geom(v);
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("[opencl]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("opencl:0"), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------- copy

// ---------------------------------------------------------------- arithmetic

// ---------------------------------------------------------------- layouts

// ---------------------------------------------------------------- half types, profiles, errors

TEST_F(OpenClBackendTest, Float16ArithmeticWithoutHalfExtension) {
  const auto& info = ocl::context(0).info();
  if (info.fp16) std::cout << "  note: opencl:0 has cl_khr_fp16; float16 still computes in float32 here\n";
  std::vector<float> a = {1.0f, 0.1f, 65504.0f, -3.5f, 1e-7f, 2049.0f, 0.333f};
  std::vector<float> b = {std::ldexp(1.0f, -11), 0.2f, 100.0f, 0.25f, 1e-7f, 1.0f, 3.0f};
  Tensor ah = from_vector(a, {7}).to(float16), bh = from_vector(b, {7}).to(float16);
  Tensor ad = ah.to(ocl0()), bd = bh.to(ocl0());
  const auto af = ah.to_vector<float>(), bf = bh.to_vector<float>();
  Tensor sum = add(ad, bd), prod = mul(ad, bd);
  EXPECT_EQ(sum.dtype(), float16);
  EXPECT_EQ(sum.device(), ocl0());
  const auto s = raw_bytes(sum), p = raw_bytes(prod);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(item_bits(s, i, 2), float16_t(af[i] + bf[i]).bits) << i;  // float32 sum rounded once
    EXPECT_EQ(item_bits(p, i, 2), float16_t(af[i] * bf[i]).bits) << i;
  }
  EXPECT_EQ(float16_t(af[0] + bf[0]).bits, 0x3c00);  // 1 + 2^-11 ties to even
  EXPECT_EQ(float16_t(af[2] + bf[2]).bits, 0x7c00);  // overflow to inf
}

TEST_F(OpenClBackendTest, NoFp64ProfileDowncastsWithOneWarning) {
  ProfileGuard guard(ocl0(), "no-fp64");
  reset_report();
  reset_warnings();
  std::vector<std::string> warnings;
  auto prev = set_warning_handler([&](const std::string& w) { warnings.push_back(w); });
  const std::vector<double> v = {0.1, -2.5, 1e300, 3.0, 1.0 / 3};
  Tensor h = tensor(v);
  Tensor d = h.to(ocl0());
  Tensor d2 = h.to(ocl0());
  set_warning_handler(prev);
  EXPECT_EQ(d.dtype(), float32);
  EXPECT_EQ(d.device(), ocl0());
  const auto got = d.to_vector<float>();
  for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(got[i], static_cast<float>(v[i])) << i;
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("float64"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("opencl:0"), std::string::npos) << warnings[0];
  EXPECT_EQ(report().count("copy", "opencl:0", float64, Path::downcast), 2u);
  // Kernels still work without float64 (the programs are built without it).
  Tensor out = empty({5}, float32, ocl0());
  ob().binary(OpId::mul, d, d2, out);
  const auto sq = out.to_vector<float>();
  for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(sq[i], got[i] * got[i]) << i;
  // Floating arange computes in float64 on the doubles' bits without it
  // (iota_xd.cl), float64 itself is gone; integer arange is exact int64
  // arithmetic. All native, with the CPU's bits.
  EXPECT_TRUE(capabilities(ocl0()).has_kernel(OpId::arange, float32));
  EXPECT_TRUE(capabilities(ocl0()).has_kernel(OpId::arange, bfloat16));
  EXPECT_FALSE(capabilities(ocl0()).has_kernel(OpId::arange, float64));
  EXPECT_TRUE(capabilities(ocl0()).has_kernel(OpId::arange, int32));
  Tensor r = empty({100}, int32, ocl0()), rc = empty({100}, int32);
  ob().iota_int(r, -7, 3);
  cb().iota_int(rc, -7, 3);
  EXPECT_EQ(raw_bytes(r), raw_bytes(rc));
  for (Dtype t : {float32, float16, bfloat16}) {
    Tensor f = empty({100}, t, ocl0()), fc = empty({100}, t);
    ob().iota(f, -7.3, 0.1);
    cb().iota(fc, -7.3, 0.1);
    EXPECT_EQ(raw_bytes(f), raw_bytes(fc)) << name(t);
  }
  Tensor hh = tensor(std::vector<float>{1.5f, -2.25f}).to(ocl0()).to(bfloat16);
  EXPECT_EQ(hh.to_vector<float>(), (std::vector<float>{1.5f, -2.25f}));
}

TEST_F(OpenClBackendTest, NoFp64ProfileStrictThrowsWithoutAllocating) {
  ProfileGuard guard(ocl0(), "no-fp64");
  DtypePolicyGuard strict(DtypePolicy::strict);
  Tensor h = tensor(std::vector<double>{1.0, 2.0});
  const uint64_t before = memory_stats(ocl0()).allocations;
  EXPECT_THROW(h.to(ocl0()), UnsupportedDtypeError);
  EXPECT_EQ(memory_stats(ocl0()).allocations, before);
  try {
    h.to(ocl0());
  } catch (const UnsupportedDtypeError& e) {
    EXPECT_NE(std::string(e.what()).find("float64"), std::string::npos) << e.what();
  }
}

TEST_F(OpenClBackendTest, BrokenKernelSourceGivesDeviceErrorWithBuildLog) {
  auto& be = static_cast<ocl::OpenClBackend&>(ob());
  ocl::set_source_suffix_for_testing("\nthis_is_not_opencl_c oops;\n");
  bool threw = false;
  try {
    // A fresh option string: a program this process has not built yet.
    be.program("copy.cl", "-DCONCORD_TEST_BROKEN=1");
  } catch (const DeviceError& e) {
    threw = true;
    const std::string m = e.what();
    EXPECT_NE(m.find("copy.cl"), std::string::npos) << m;
    EXPECT_NE(m.find("opencl:0"), std::string::npos) << m;
    EXPECT_NE(m.find("this_is_not_opencl_c"), std::string::npos) << m;  // from the build log
  }
  ocl::set_source_suffix_for_testing("");
  EXPECT_TRUE(threw);
  // The working programs are unaffected.
  Tensor x = tensor(std::vector<int32_t>{1, 2, 3}, ocl0()).to(float32);
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{1, 2, 3}));
}

}  // namespace
