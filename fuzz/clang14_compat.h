// Force-included into src/backend/cpu/vec_dispatch.cpp in the fuzz build only
// (fuzz/CMakeLists.txt): clang 14 rejects __builtin_cpu_supports("f16c"), which
// GCC accepts. F16C is read from CPUID instead; the other features pass through.
// Remove once vec_dispatch.cpp checks F16C through <cpuid.h> itself.
#pragma once
#include <cpuid.h>

#include <cstring>

static inline bool concord_fuzz_cpu_supports(const char* f) {
  if (std::strcmp(f, "f16c") == 0) {
    unsigned a, b, c, d;
    return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C);
  }
  if (std::strcmp(f, "avx2") == 0) return __builtin_cpu_supports("avx2");
  if (std::strcmp(f, "avx512f") == 0) return __builtin_cpu_supports("avx512f");
  if (std::strcmp(f, "avx512vl") == 0) return __builtin_cpu_supports("avx512vl");
  if (std::strcmp(f, "avx512bw") == 0) return __builtin_cpu_supports("avx512bw");
  if (std::strcmp(f, "avx512dq") == 0) return __builtin_cpu_supports("avx512dq");
  return false;
}
#define __builtin_cpu_supports(x) concord_fuzz_cpu_supports(x)
