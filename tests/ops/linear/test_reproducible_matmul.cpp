// The reproducible mode's GEMM (backend/cpu/gemm_canon.h, OpenCL's
// matmul_canon): each output is one fma chain over k in order from -0, then
// alpha, beta and one rounding. Checked against that chain written here in
// scalar code (float32, float64), then bit for bit between the CPU and every
// device that runs the mode's matmul natively, on products that cross the
// kernels' blocks (K blocks of 256, 16-wide work-group tiles, register tiles),
// with transposed, broadcast and offset views, alpha/beta, the halves, and
// 1 against 2 threads.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "concord/concord.h"
#include "concord/op_table.h"
#include "support/devices.h"
#include "support/threads.h"

using namespace concord;

namespace {

std::vector<uint8_t> bytes(const Tensor& t) {
  Tensor h = t.to(kCPU).contiguous();
  std::vector<uint8_t> b(h.nbytes());
  if (!b.empty()) std::memcpy(b.data(), h.raw_data(), b.size());
  return b;
}

// The number of elements whose bits differ.
int64_t differing(const Tensor& x, const Tensor& y) {
  const auto a = bytes(x), b = bytes(y);
  const size_t n = itemsize(x.dtype());
  if (a.size() != b.size()) return -1;
  int64_t d = 0;
  for (size_t i = 0; i < a.size(); i += n) d += std::memcmp(a.data() + i, b.data() + i, n) != 0;
  return d;
}

// The header's chain in scalar code: out = alpha·acc (+ beta·c), acc from -0.
template <class T>
std::vector<T> chain(const Tensor& a2, const Tensor& b2, T alpha, T beta, const Tensor* c2) {
  const int64_t M = a2.size(0), K = a2.size(1), N = b2.size(1);
  const auto av = a2.contiguous().to_vector<T>(), bv = b2.contiguous().to_vector<T>();
  std::vector<T> cv;
  if (c2) cv = c2->contiguous().to_vector<T>();
  std::vector<T> out(static_cast<size_t>(M * N));
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      T acc = -T(0);
      for (int64_t k = 0; k < K; ++k) acc = std::fma(av[static_cast<size_t>(i * K + k)], bv[static_cast<size_t>(k * N + j)], acc);
      T r = alpha * acc;
      if (c2) {
        const T add = beta * cv[static_cast<size_t>(i * N + j)];
        r = r + add;
      }
      out[static_cast<size_t>(i * N + j)] = r;
    }
  return out;
}

class ReproducibleMatmul : public concord::test::DeviceTest {};

TEST(ReproducibleMatmulCpu, IsTheScalarChain) {
  ReproducibleGuard on(true);
  for (Dtype t : {float32, float64}) {
    SCOPED_TRACE(std::string(name(t)));
    // K = 600 crosses two K blocks; 70 and 45 leave ragged register tiles.
    Tensor a = randn({70, 600}, t, kCPU, 1), b = randn({45, 600}, t, kCPU, 2).transpose(0, 1);
    Tensor c = randn({70, 45}, t, kCPU, 3);
    Tensor got = addmm(c, a, b, Scalar(0.75), Scalar(-1.5));
    if (t == float32) {
      const auto want = chain<float>(a, b, -1.5f, 0.75f, &c);
      const auto g = got.to_vector<float>();
      EXPECT_EQ(std::memcmp(g.data(), want.data(), g.size() * 4), 0);
    } else {
      const auto want = chain<double>(a, b, -1.5, 0.75, &c);
      const auto g = got.to_vector<double>();
      EXPECT_EQ(std::memcmp(g.data(), want.data(), g.size() * 8), 0);
    }
    // A sum of -0 products stays -0 (the chain starts from -0).
    Tensor z = mm(full({3, 4}, Scalar(-0.0), t, kCPU), ones({4, 2}, t, kCPU));
    for (double v : z.to_vector<double>()) EXPECT_TRUE(v == 0 && std::signbit(v));
  }
}

TEST(ReproducibleMatmulCpu, SameBitsOnOneAndTwoThreads) {
  ReproducibleGuard on(true);
  for (Dtype t : {float32, float64, bfloat16, float16}) {
    Tensor a = randn({3, 130, 300}, t, kCPU, 4), b = randn({300, 97}, t, kCPU, 5);
    Tensor one, two;
    { concord::test::ThreadCount tc(1); one = matmul(a, b); }
    { concord::test::ThreadCount tc(2); two = matmul(a, b); }
    EXPECT_EQ(differing(one, two), 0) << name(t);
  }
}

// Every device that claims the mode's matmul gives the CPU's bits; others
// take the counted fallback (and then trivially agree).
TEST_P(ReproducibleMatmul, DeviceGivesTheCpuBits) {
  ReproducibleGuard on(true);
  for (Dtype t : {float32, float64, float16, bfloat16}) {
    if (!capabilities(device()).can_store(t)) continue;
    SCOPED_TRACE(std::string(name(t)));
    Tensor a = randn({2, 75, 530}, t, kCPU, 6), b = randn({530, 41}, t, kCPU, 7);
    Tensor at = randn({2, 530, 75}, t, kCPU, 8).transpose(1, 2);
    Tensor c = randn({75, 41}, t, kCPU, 9);
    const Tensor da = a.to(device()), db = b.to(device()), dat = at.to(device()), dc = c.to(device());
    reset_report();
    EXPECT_EQ(differing(matmul(da, db), matmul(a, b)), 0) << "batch broadcast";
    // Where the device claims the mode's matmul, it ran there (no fallback).
    const bool claimed = capabilities(device()).reproducible[static_cast<int>(OpId::matmul)].has(t);
    if (claimed) EXPECT_EQ(report().count("matmul", device().str(), t, Path::fallback), 0u) << report();
    EXPECT_EQ(differing(matmul(dat, db), matmul(at, b)), 0) << "transposed A";
    EXPECT_EQ(differing(baddbmm(dc, da, db.expand({2, 530, 41}), Scalar(2), Scalar(-0.5)),
                        baddbmm(c, a, b.expand({2, 530, 41}), Scalar(2), Scalar(-0.5))), 0)
        << "baddbmm";
    // An offset view: rows 3.. of a larger matrix, columns of a transposed one.
    const Tensor ao = a.select(0, 1).narrow(0, 3, 60), bo = b.narrow(1, 5, 30);
    EXPECT_EQ(differing(mm(ao.to(device()), bo.to(device())), mm(ao, bo)), 0) << "offset views";
    EXPECT_EQ(differing(mv(ao.to(device()), bo.select(1, 0).to(device())), mv(ao, bo.select(1, 0))), 0) << "mv";
  }
}

CONCORD_INSTANTIATE_DEVICES(ReproducibleMatmul);

}  // namespace
