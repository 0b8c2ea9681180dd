#!/usr/bin/env bash
# Regenerates the type stubs of the extension (python/concord/*.pyi) with
# nanobind's stubgen, from the installed package: run after changing a binding
# (python/tests/test_stubs.py fails while they are out of date).
#   python/gen_stubs.sh build/pyenv/bin/python
set -euo pipefail
py=${1:-python3}
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$py" -m nanobind.stubgen -q -m concord._concord -r -O "$out"
cp "$out/_concord/__init__.pyi" "$here/concord/_concord.pyi"
cp "$out/_concord/linalg.pyi" "$here/concord/linalg.pyi"
cp "$out/_concord/nn.pyi" "$here/concord/nn.pyi"
