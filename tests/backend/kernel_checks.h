// Shared tools of the device-kernel suites (tests/backend/test_kernels_*.cpp):
// every device whose memory is not host memory (opencl:N, vulkan:N, and the
// contrasting profile of each kind) runs its kernels on the same data as the
// CPU backend, and the results are compared bit for bit where the op promises
// the CPU's bits, else within a ULP bound and against a float64 reference.
//
// These are deeper than the conformance suite (which judges every op on small
// parity cases): a million float32 pairs over every exponent, every dtype
// conversion pair, strided, broadcast and negative-stride layouts, reductions
// long enough to need several workgroups. A backend that does not claim an
// (op, dtype) natively is not called for it (the case is skipped by name).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "concord/concord.h"
#include "core/backend.h"
#include "support/devices.h"

namespace concord::test {

// Configs of devices whose memory is device memory: the CPU is the reference,
// emu runs the CPU's own kernels.
inline std::vector<DeviceConfig> device_memory_configs() {
  std::vector<DeviceConfig> out;
  for (const DeviceConfig& c : test_devices())
    if (memory_space(c.device) == MemorySpace::device) out.push_back(c);
  return out;
}

class DeviceKernels : public DeviceTest {
 protected:
  detail::Backend& be() const { return detail::backend_for(device()); }
  static detail::Backend& cb() { return detail::cpu_backend(); }
  bool storable(Dtype t) const { return capabilities(device()).can_store(t); }
  bool native(OpId op, Dtype t) const { return capabilities(device()).has_kernel(op, t); }
  std::string kind() const { return std::string(device().kind().name()); }
  // Dtypes of ts the device holds under the current profile.
  std::vector<Dtype> stored(std::initializer_list<Dtype> ts) const {
    std::vector<Dtype> out;
    for (Dtype t : ts)
      if (storable(t)) out.push_back(t);
    return out;
  }
};

inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Raw bytes of a tensor (row-major), wherever it lives.
inline std::vector<uint8_t> raw_bytes(const Tensor& t) {
  Tensor h = t.to(kCPU).contiguous();
  std::vector<uint8_t> b(h.nbytes());
  if (!b.empty()) std::memcpy(b.data(), h.raw_data(), b.size());
  return b;
}

inline uint64_t item_bits(const std::vector<uint8_t>& b, size_t i, size_t isz) {
  uint64_t u = 0;
  std::memcpy(&u, b.data() + i * isz, isz);
  return u;
}

inline Tensor from_raw(const std::vector<uint8_t>& b, Dtype t, const Device& d = kCPU) {
  return from_host(b.data(), {static_cast<int64_t>(b.size() / itemsize(t))}, t, d);
}

bool is_nan_bits(uint64_t u, Dtype t);
// Distance in units in the last place of t (0 for two NaNs, huge for NaN vs number).
int64_t ulp_diff(uint64_t a, uint64_t b, Dtype t);
// Quiet a NaN given as raw bits (signalling NaNs are outside the conversion
// contract: the CPU's own vectorised and scalar paths treat them differently).
uint64_t quiet(uint64_t u, Dtype t);
// Values that stress conversions: NaN, infinities, signed zeros, subnormals,
// ties of every rounding, the edges of every integer type and beyond.
std::vector<double> special_doubles();
// The specials converted by the CPU to t, then n_random random bit patterns, as raw bytes.
std::vector<uint8_t> sample(Dtype t, size_t n_random, uint64_t seed);
std::string hex(uint64_t u);
// Inputs for op tests in dtype t (made on the CPU): the specials, values in
// [lo, hi), wide values; integers mostly small with some extremes.
Tensor op_input(Dtype t, int64_t n, uint64_t seed, double lo, double hi);
// x (on the CPU) with the subnormals of the dtype it computes in (float32 for
// the halves) replaced by signed zeros.
Tensor flush_subnormals(const Tensor& x);
// Expects want and got (raw items of dtype t) equal bit for bit; reports the
// first few differences. nan_payloads = false: any NaN equals any NaN (the
// payload of an arithmetic result is not part of the contract: NVIDIA's
// driver returns its canonical NaN; conversions and copies keep payloads).
void expect_same_bits(const std::vector<uint8_t>& want, const std::vector<uint8_t>& got, Dtype t,
                      const std::vector<uint8_t>* src, Dtype st, const std::string& what, bool nan_payloads = true);

// ---------------------------------------------------------------- public-op checks

inline const std::initializer_list<Dtype> kFloats = {float16, bfloat16, float32, float64};
inline const std::initializer_list<Dtype> kInts = {uint8, int8, int16, int32, int64};

// Unit roundoff of t, of its accumulation dtype, and gamma_n = n u / (1 - n u).
double unit(Dtype t);
double acc_unit(Dtype t);
double gamma(int64_t n, double u);
// n values in [lo, hi] (integers when asked), reproducible from seed.
std::vector<double> values(int64_t n, double lo, double hi, uint32_t seed, bool integers = false);
// A CPU tensor of dtype t holding v (rounded to t by the CPU's conversion).
Tensor make(const std::vector<double>& v, Shape shape, Dtype t);
// The raw bits of every element (row-major), whatever the dtype, one per uint64.
std::vector<uint64_t> raw_bits(const Tensor& t);
// The same, for comparing with a result of `judged`: where that device does
// not promise NaN bits (Capabilities::keeps_nan_payloads), every NaN reads
// as one marker, so only NaN-ness is compared.
std::vector<uint64_t> raw_bits(const Tensor& t, const Device& judged);
// For each output (row-major over kept dims) the reduced elements, in row-major order.
std::vector<std::vector<double>> groups(const Tensor& x, const std::vector<int64_t>& dims);
// "float32[3, 4] strides [4, 1] dims [1 ]" for traces.
std::string label(const Tensor& x, const std::vector<int64_t>& dims);

}  // namespace concord::test

#define CONCORD_INSTANTIATE_DEVICE_KERNELS(Fixture)                                                  \
  GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Fixture);                                             \
  INSTANTIATE_TEST_SUITE_P(Devices, Fixture, ::testing::ValuesIn(::concord::test::device_memory_configs()), \
                           ::concord::test::config_name)
