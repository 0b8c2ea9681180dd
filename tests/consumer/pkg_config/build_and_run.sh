#!/bin/sh
# A project that uses an installed concord through pkg-config alone:
#   build_and_run.sh PKGCONFIG_DIR OUT_DIR CXX [--static]
# (--static for a static libconcord: its private libraries come from Libs.private).
set -e
export PKG_CONFIG_PATH="$1"
out="$2"
cxx="$3"
static="$4"
src="$(dirname "$0")/../main.cpp"
mkdir -p "$out"
libdir="$(pkg-config --variable=libdir concord)"
# shellcheck disable=SC2046  # pkg-config output is meant to be split
"$cxx" -std=c++20 "$src" -o "$out/consumer" $(pkg-config --cflags --libs $static concord) -Wl,-rpath,"$libdir"
"$out/consumer"
