#!/usr/bin/env bash
# Runs the lanes of `make test` in order and prints each one's wall time at
# the end (also when one fails, which stops the rest):
#   tools/lanes.sh "<name>" "<command>" ["<name>" "<command>" ...]
# Why: CI has a fixed time budget, and the lane that grows is the one to size.
set -uo pipefail
names=() times=() status=0
while [ $# -ge 2 ]; do
  name=$1 cmd=$2
  shift 2
  start=$(date +%s)
  bash -c "$cmd"
  rc=$?
  names+=("$name") times+=($(( $(date +%s) - start )))
  if [ $rc -ne 0 ]; then
    status=$rc
    names[-1]="$name (failed, rc $rc)"
    break
  fi
done
total=0
echo
echo "lane times:"
for i in "${!names[@]}"; do
  printf '  %-40s %4d min %02d s\n' "${names[$i]}" $(( times[i] / 60 )) $(( times[i] % 60 ))
  total=$(( total + times[i] ))
done
printf '  %-40s %4d min %02d s\n' "total" $(( total / 60 )) $(( total % 60 ))
exit $status
