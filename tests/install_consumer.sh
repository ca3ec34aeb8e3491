#!/usr/bin/env bash
# Installs the build tree into a temporary prefix, builds tests/consumer against it with find_package(autotune), and
# runs the result. Arguments: the build directory, the source directory.
set -euo pipefail
build="$1" src="$2"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
test -f "$work/prefix/include/autotune/autotune.hpp"
test -f "$work/prefix/lib/cmake/autotune/autotuneConfig.cmake" || test -f "$work/prefix/lib64/cmake/autotune/autotuneConfig.cmake"
cmake -S "$src/tests/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release \
  > "$work/configure.log" || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/consumer" -j 2 > "$work/build.log" || { cat "$work/build.log"; exit 1; }
"$work/consumer/consumer"
