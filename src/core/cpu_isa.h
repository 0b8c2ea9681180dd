// The host CPU's instruction-set level: the one place that decides which
// SIMD code the CPU kernels run.
//
// The level is the widest the CPU has (read from CPUID once), capped by
// CONCORD_ISA=baseline|avx2|avx512|native (also scalar and sse4, which name
// the baseline: concord has no code of its own for them). The vectorised
// kernels (backend/cpu/vec_*.cpp), the small-matrix loops, the AVX-512 LU,
// the bfloat16 GEMM and the bulk half conversions all ask it, so capping it
// moves every one of them at once; every level gives the same bits (no FMA
// anywhere, fixed evaluation orders), which make test proves for each level
// the machine can run.
#pragma once

#include <cstdint>
#include <string_view>

namespace concord::detail {

enum class CpuIsa : uint8_t { baseline, avx2, avx512 };  // x86-64 (SSE2); + AVX2, F16C; + AVX-512 F/VL/BW/DQ
std::string_view name(CpuIsa isa);

struct CpuFeatures {
  bool avx2 = false, f16c = false;
  bool avx512 = false;      // F, VL, BW and DQ
  bool avx512_bf16 = false; // the bfloat16 dot product (VDPBF16PS)
};
// What the CPU has (CPUID, read once).
const CpuFeatures& cpu_features();
// The widest level the CPU has.
CpuIsa cpu_isa_available();
// The level the kernels use: the available one, capped by CONCORD_ISA (read
// once; an unknown value is a ValueError naming the valid ones).
CpuIsa cpu_isa();

// True when the calling thread's MXCSR has flush-to-zero (bit 15) or
// denormals-are-zero (bit 6) set: its float kernels then read and write
// subnormals as 0. concord never sets them; a host program may (a
// -ffast-math link sets both at start-up). Read on every call (per thread).
bool host_flushes_subnormals();

}  // namespace concord::detail
