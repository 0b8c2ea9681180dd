#!/usr/bin/env bash
# Differential and parser fuzzing (libFuzzer, clang 14, ASan + UBSan + LSan).
# Runs each fuzzer in fuzz/ for FUZZ_SECONDS (default 300) from a copy of its
# committed seed corpus (fuzz/corpus/<fuzzer>/), prints the executions, the
# coverage and the findings, and exits non-zero if any fuzzer found something.
#   FUZZ_SECONDS=60 bash tools/fuzz.sh             # shorter
#   FUZZERS=parser_fuzzer bash tools/fuzz.sh       # one fuzzer
#   CONCORD_FUZZ_OPENCL=1 bash tools/fuzz.sh       # also run programs on opencl:0 (slow under ASan)
#   CONCORD_FUZZ_VULKAN=1 bash tools/fuzz.sh       # also run programs on vulkan:0 (lavapipe: slow)
# A finding's input is kept in build-fuzz/fuzz-run/<fuzzer>/artifacts/; replay it with
#   build-fuzz/fuzz/<fuzzer> <file>      (CONCORD_FUZZ_VERBOSE=1 prints the decoded program)
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZ_SECONDS=${FUZZ_SECONDS:-300}
BUILD=${FUZZ_BUILD:-build-fuzz}
FUZZERS=${FUZZERS:-"parser_fuzzer npy_fuzzer npz_fuzzer safetensors_fuzzer op_sequence_fuzzer"}
JOBS=${JOBS:-$(nproc)}

bash tools/install-deps.sh clang-14 libclang-rt-14-dev libomp-14-dev cmake make pkg-config ccache \
  libgtest-dev libopenblas-dev liblapacke-dev libclblast-dev ocl-icd-opencl-dev opencl-headers pocl-opencl-icd \
  libvulkan-dev mesa-vulkan-drivers glslc
# -O1 with line tables: the usual fuzzing trade-off (fast to build under ASan, symbolized reports).
CC=clang-14 CXX=clang++-14 cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCONCORD_FUZZ=ON \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
  -DCONCORD_BUILD_BENCH=OFF >/dev/null
# shellcheck disable=SC2086
cmake --build "$BUILD" -j "$JOBS" --target $FUZZERS

# handle_abort: a finding's abort() goes through ASan to libFuzzer, which saves the input.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:handle_abort=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/lsan.supp:print_suppressions=0}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}

status=0
summary=""
for f in $FUZZERS; do
  work="$BUILD/fuzz-run/$f"
  rm -rf "$work"
  mkdir -p "$work/corpus" "$work/artifacts"
  cp fuzz/corpus/"$f"/* "$work/corpus/"
  max_len=2048
  [ "$f" = parser_fuzzer ] && max_len=256
  echo "== $f: ${FUZZ_SECONDS}s from $(ls "$work/corpus" | wc -l) seeds (log: $work/log.txt)"
  rc=0
  "$BUILD/fuzz/$f" -max_total_time="$FUZZ_SECONDS" -timeout=60 -max_len="$max_len" -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/" "$work/corpus" >"$work/log.txt" 2>&1 || rc=$?
  execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$work/log.txt" | awk '{print $2}' | tail -1)
  rate=$(grep -oE 'stat::average_exec_per_sec: *[0-9]+' "$work/log.txt" | awk '{print $2}' | tail -1)
  cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$work/log.txt" | tail -1)
  units=$(ls "$work/corpus" | wc -l)
  findings=$(ls "$work/artifacts" | wc -l)
  line="$f: ${execs:-?} executions (${rate:-?}/s), ${cov:-cov: ?}, corpus $units, findings $findings (exit $rc)"
  echo "   $line"
  summary+="$line"$'\n'
  if [ "$rc" -ne 0 ] || [ "$findings" -ne 0 ]; then
    status=1
    grep -A30 -m1 -E '==== concord fuzz finding|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error' \
      "$work/log.txt" || tail -40 "$work/log.txt"
    ls "$work/artifacts"
  fi
done
echo "== fuzz summary"
printf '%s' "$summary"
exit $status
