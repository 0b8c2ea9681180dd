// copy (with dtype conversion), fill and iota on the CPU.
#include <algorithm>
#include <cstring>

#include "backend/cpu/convert.h"
#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/loops.h"

namespace concord::detail::cpu {

namespace {
template <class To, class From>
void copy_typed(const Iter& it) {
  for_each(it, [](char* const* p, const int64_t* s, int64_t n) {
    if constexpr (std::is_same_v<To, From>) {
      if (s[0] == sizeof(To) && s[1] == sizeof(From)) { std::memcpy(p[0], p[1], n * sizeof(To)); return; }
    } else if constexpr (std::is_same_v<To, float> && std::is_same_v<From, float16_t>) {
      if (s[0] == 4 && s[1] == 2) { convert_f16_to_f32(reinterpret_cast<const float16_t*>(p[1]), reinterpret_cast<float*>(p[0]), n); return; }
    } else if constexpr (std::is_same_v<To, float16_t> && std::is_same_v<From, float>) {
      if (s[0] == 2 && s[1] == 4) { convert_f32_to_f16(reinterpret_cast<const float*>(p[1]), reinterpret_cast<float16_t*>(p[0]), n); return; }
    } else if constexpr (std::is_same_v<To, float> && std::is_same_v<From, bfloat16_t>) {
      if (s[0] == 4 && s[1] == 2) { convert_bf16_to_f32(reinterpret_cast<const bfloat16_t*>(p[1]), reinterpret_cast<float*>(p[0]), n); return; }
    } else if constexpr (std::is_same_v<To, bfloat16_t> && std::is_same_v<From, float>) {
      if (s[0] == 2 && s[1] == 4) { convert_f32_to_bf16(reinterpret_cast<const float*>(p[1]), reinterpret_cast<bfloat16_t*>(p[0]), n); return; }
    }
    char* d = p[0];
    const char* x = p[1];
    for (int64_t i = 0; i < n; ++i, d += s[0], x += s[1])
      *reinterpret_cast<To*>(d) = convert<To>(*reinterpret_cast<const From*>(x));
  });
}
}  // namespace

void CpuBackend::copy(const Tensor& src, const Tensor& dst) {
  Iter it({&dst, &src});
  visit_dtype(dst.dtype(), [&](auto to) {
    visit_dtype(src.dtype(), [&](auto from) { copy_typed<decltype(to), decltype(from)>(it); });
  });
}

void CpuBackend::fill(const Tensor& dst, Scalar v) {
  Iter it({&dst});
  visit_dtype(dst.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T value;
    if (v.is_floating()) value = convert<T>(v.to_double());
    else if (v.is_bool()) value = convert<T>(v.to_bool());
    else value = convert<T>(v.to_int());
    for_each(it, [value](char* const* p, const int64_t* s, int64_t n) {
      char* d = p[0];
      if (s[0] == sizeof(T)) {
        T* t = reinterpret_cast<T*>(d);
        std::fill(t, t + n, value);
        return;
      }
      for (int64_t i = 0; i < n; ++i, d += s[0]) *reinterpret_cast<T*>(d) = value;
    });
  });
}

namespace {
// NaN <=> (bits & ~sign) > the bits of +inf; then the canonical NaN's bits.
// Contiguous runs are checked a block at a time with a vectorized read and
// written only where a block holds a NaN: the mode's extra pass over a
// NaN-free result costs a read, not a read and a write.
template <class U>
void canonicalize_bits(const Iter& it, U inf, U canon) {
  const U abs_mask = static_cast<U>(static_cast<U>(~U(0)) >> 1);  // ~ promotes uint16_t to int
  for_each(it, [=](char* const* p, const int64_t* s, int64_t n) {
    if (s[0] == sizeof(U)) {
      U* x = reinterpret_cast<U*>(p[0]);
      constexpr int64_t kBlock = 2048;
      for (int64_t b = 0; b < n; b += kBlock) {
        const int64_t e = std::min(n, b + kBlock);
        int any = 0;
#pragma omp simd reduction(| : any)
        for (int64_t i = b; i < e; ++i) any |= static_cast<U>(x[i] & abs_mask) > inf;
        if (!any) continue;
        for (int64_t i = b; i < e; ++i)
          if (static_cast<U>(x[i] & abs_mask) > inf) x[i] = canon;
      }
      return;
    }
    char* d = p[0];
    for (int64_t i = 0; i < n; ++i, d += s[0]) {
      U x;
      std::memcpy(&x, d, sizeof(U));
      if (static_cast<U>(x & abs_mask) > inf) std::memcpy(d, &canon, sizeof(U));
    }
  });
}
}  // namespace

void CpuBackend::canonicalize_nan(const Tensor& t) {
  Iter it({&t});
  switch (t.dtype()) {
    case Dtype::float16: return canonicalize_bits<uint16_t>(it, 0x7c00, 0x7e00);
    case Dtype::bfloat16: return canonicalize_bits<uint16_t>(it, 0x7f80, 0x7fc0);
    case Dtype::float32: return canonicalize_bits<uint32_t>(it, 0x7f800000u, 0x7fc00000u);
    case Dtype::float64: return canonicalize_bits<uint64_t>(it, 0x7ff0000000000000ull, 0x7ff8000000000000ull);
    default: return;  // integers and bool have no NaN
  }
}

void CpuBackend::iota(const Tensor& dst, double start, double step) {
  visit_dtype(dst.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* d = detail::host_data<T>(dst);
    parallel_for(dst.numel(), kParallelGrain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) d[i] = convert<T>(start + static_cast<double>(i) * step);
    });
  });
}

void CpuBackend::iota_int(const Tensor& dst, int64_t start, int64_t step) {
  visit_dtype(dst.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_integral_v<T>) {
      T* d = detail::host_data<T>(dst);
      parallel_for(dst.numel(), kParallelGrain, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          // Unsigned arithmetic: wraps instead of overflowing (undefined for int64).
          const uint64_t v = static_cast<uint64_t>(start) + static_cast<uint64_t>(i) * static_cast<uint64_t>(step);
          d[i] = convert<T>(static_cast<int64_t>(v));
        }
      });
    } else {
      throw DtypeError("[arange] the integer kernel got " + std::string(name(dst.dtype())) + "; this is a bug");
    }
  });
}

}  // namespace concord::detail::cpu
