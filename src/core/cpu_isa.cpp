// The host CPU's instruction-set level (core/cpu_isa.h).
#include "core/cpu_isa.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <xmmintrin.h>
#endif

#include <cstdlib>
#include <string>

#include "concord/device.h"
#include "concord/error.h"

namespace concord::detail {

std::string_view name(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::avx512: return "avx512";
    case CpuIsa::avx2: return "avx2";
    default: return "baseline";
  }
}

const CpuFeatures& cpu_features() {
  static const CpuFeatures f = [] {
    CpuFeatures r;
#if defined(__x86_64__)  // elsewhere: the baseline level (the generic kernels), no feature
    // F16C from CPUID: clang 14 rejects __builtin_cpu_supports("f16c").
    unsigned a = 0, b = 0, c = 0, d = 0;
    r.f16c = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C) != 0;
    r.avx2 = __builtin_cpu_supports("avx2");
    r.avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
               __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq");
    r.avx512_bf16 = r.avx512 && __builtin_cpu_supports("avx512bf16");
#endif
    return r;
  }();
  return f;
}

CpuIsa cpu_isa_available() {
  const CpuFeatures& f = cpu_features();
  if (f.avx512 && f.avx2 && f.f16c) return CpuIsa::avx512;
  if (f.avx2 && f.f16c) return CpuIsa::avx2;
  return CpuIsa::baseline;
}

bool host_flushes_subnormals() {
#if defined(__x86_64__)
  return (_mm_getcsr() & 0x8040u) != 0;  // MXCSR's FTZ and DAZ
#elif defined(__aarch64__)
  uint64_t fpcr;
  __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
  return (fpcr >> 24) & 1u;  // FPCR.FZ
#else
  return false;
#endif
}

CpuIsa cpu_isa() {
  static const CpuIsa isa = [] {
    const CpuIsa have = cpu_isa_available();
    const char* e = std::getenv("CONCORD_ISA");
    if (!e || !*e) return have;
    const std::string v(e);
    CpuIsa want;
    if (v == "native") want = have;
    else if (v == "avx512") want = CpuIsa::avx512;
    else if (v == "avx2") want = CpuIsa::avx2;
    else if (v == "baseline" || v == "sse4" || v == "scalar") want = CpuIsa::baseline;
    else
      throw ValueError("[cpu] CONCORD_ISA='" + v + "' is not an instruction-set level; use baseline (also scalar, "
                       "sse4), avx2, avx512 or native");
    return want < have ? want : have;  // a cap: never more than the CPU has
  }();
  return isa;
}

}  // namespace concord::detail

namespace concord {
std::string_view cpu_isa() { return detail::name(detail::cpu_isa()); }
}  // namespace concord
