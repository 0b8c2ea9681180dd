// rand / randn / randint on the CPU (and emu). Every element evaluates the
// shared transforms of backend/common/philox.h at its own counter offset + i,
// so how the range is split across threads cannot change a single bit, and the
// OpenCL kernels, built from the same header, give the same values.
#include "backend/common/philox.h"
#include "backend/cpu/convert.h"
#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/loops.h"

namespace concord::detail::cpu {

namespace {

// One Philox call is ~100 integer operations: worth forking for fewer elements
// than a plain copy.
constexpr int64_t kRandomGrain = 4096;

template <class T, class Gen>
void generate(const Tensor& dst, uint64_t seed, uint64_t offset, Gen gen) {
  T* d = detail::host_data<T>(dst);
  parallel_for(dst.numel(), kRandomGrain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) d[i] = gen(concord_philox_element(seed, offset + static_cast<uint64_t>(i)));
  });
}

template <class T>
void uniform(const Tensor& dst, uint64_t seed, uint64_t offset) {
  if constexpr (std::is_same_v<T, double>) {
    generate<T>(dst, seed, offset, [](concord_u32x4 x) { return concord_uniform_f64(x.w0, x.w1); });
  } else if constexpr (std::is_same_v<T, float>) {
    generate<T>(dst, seed, offset, [](concord_u32x4 x) { return concord_uniform_f32(x.w0); });
  } else if constexpr (std::is_same_v<T, float16_t>) {
    // Clamped below 1 before the (round-to-nearest-even) narrowing: the result stays in [0, 1).
    generate<T>(dst, seed, offset,
                [](concord_u32x4 x) { return float16_t(concord_uniform_f32_below(x.w0, CONCORD_F16_BELOW_ONE)); });
  } else if constexpr (std::is_same_v<T, bfloat16_t>) {
    generate<T>(dst, seed, offset,
                [](concord_u32x4 x) { return bfloat16_t(concord_uniform_f32_below(x.w0, CONCORD_BF16_BELOW_ONE)); });
  } else {
    throw DtypeError("[rand] cpu kernel got " + std::string(name(dtype_v<T>)) + "; the front end allows floating dtypes only");
  }
}

template <class T>
void normal(const Tensor& dst, uint64_t seed, uint64_t offset) {
  if constexpr (std::is_same_v<T, double>) {
    generate<T>(dst, seed, offset, [](concord_u32x4 x) { return concord_normal_f64(x); });
  } else if constexpr (std::is_same_v<T, float>) {
    generate<T>(dst, seed, offset, [](concord_u32x4 x) { return concord_normal_f32(x.w0, x.w1); });
  } else if constexpr (is_half_v<T>) {
    // The float32 normal, rounded once to the half type.
    generate<T>(dst, seed, offset, [](concord_u32x4 x) { return T(concord_normal_f32(x.w0, x.w1)); });
  } else {
    throw DtypeError("[randn] cpu kernel got " + std::string(name(dtype_v<T>)) + "; the front end allows floating dtypes only");
  }
}

// Integers in [low, high): the offset is computed modulo 2^64 so that the full
// int64 range works; the front end guarantees the values fit T exactly.
template <class T>
void integers(const Tensor& dst, uint64_t seed, uint64_t offset, int64_t low, int64_t high) {
  const uint64_t base = static_cast<uint64_t>(low);
  const uint64_t range = static_cast<uint64_t>(high) - base;
  generate<T>(dst, seed, offset, [base, range](concord_u32x4 x) {
    const int64_t v = static_cast<int64_t>(base + concord_randint_offset(x.w0, x.w1, range));
    return convert<T>(v);
  });
}

}  // namespace

void CpuBackend::random(OpId op, const Tensor& dst, uint64_t seed, uint64_t offset, int64_t a, int64_t b) {
  if (dst.numel() == 0) return;
  visit_dtype(dst.dtype(), [&](auto tag) {
    using T = decltype(tag);
    switch (op) {
      case OpId::rand: uniform<T>(dst, seed, offset); break;
      case OpId::randn: normal<T>(dst, seed, offset); break;
      case OpId::randint: integers<T>(dst, seed, offset, a, b); break;
      default:
        throw NotImplementedError("[" + std::string(op_name(op)) + "] is not a random op (cpu random kernel)");
    }
  });
}

}  // namespace concord::detail::cpu
