#!/usr/bin/env bash
# Compiles the library's x86-dependent sources for a CPU that is not x86-64
# (aarch64, with Debian's g++-aarch64-linux-gnu): where the compiler does not
# target x86-64 they must build without the AVX kernels (CMakeLists.txt's
# CONCORD_X86_64) and without x86 headers or intrinsics outside their guards.
#   tools/check_portable.sh <source root> [compiler]
# The files checked: every source under src/ that names an x86 header or
# __x86_64__, and every .cpp including such a header. Each is compiled to an
# object (-c, so that inline assembly is assembled too). Exit 0 when all build;
# 77 (CTest's skip) when the cross compiler is missing.
set -uo pipefail
root=${1:?source root}
cxx=${2:-aarch64-linux-gnu-g++}
if ! command -v "$cxx" > /dev/null; then
  echo "skipped: $cxx not found (apt-get install g++-aarch64-linux-gnu)"
  exit 77
fi
cd "$root"
pattern='immintrin\.h|xmmintrin\.h|cpuid\.h|__x86_64__'
mapfile -t direct < <(grep -rlE "$pattern" src --include='*.cpp' --include='*.h' | sort)
files=()
for f in "${direct[@]}"; do
  case $f in
    *_avx2.cpp | *_avx512.cpp) continue ;;  # x86-64 only: CMakeLists.txt leaves them out elsewhere
    *.cpp) files+=("$f") ;;
    *.h) mapfile -t -O "${#files[@]}" files < <(grep -rlE "#include \"${f#src/}\"" src --include='*.cpp' | grep -vE '_avx(2|512)\.cpp$') ;;
  esac
done
mapfile -t files < <(printf '%s\n' "${files[@]}" | sort -u)
obj=$(mktemp -d)
trap 'rm -rf "$obj"' EXIT
failed=0
for f in "${files[@]}"; do
  if ! "$cxx" -std=c++20 -O1 -fopenmp -w -Iinclude -Isrc -DCL_TARGET_OPENCL_VERSION=120 \
      -DCL_USE_DEPRECATED_OPENCL_1_2_APIS -idirafter /usr/include \
      -idirafter /usr/include/x86_64-linux-gnu/openblas-pthread -c "$f" -o "$obj/o.o" 2> "$obj/err"; then
    echo "FAILED: $f"
    head -20 "$obj/err"
    failed=$((failed + 1))
  fi
done
echo "$cxx: ${#files[@]} x86-dependent sources compiled, $failed failed"
[ "$failed" -eq 0 ]
