#!/usr/bin/env bash
# Installs the build tree into a temporary prefix, builds tests/consumer (C++, no standard set) and, when the build
# found nvcc, tests/consumer_cuda (a .cu file compiled by nvcc) against it with find_package(autotune), and runs them.
# Arguments: the build directory, the source directory, the CUDA compiler (may be empty).
set -euo pipefail
build="$1" src="$2" nvcc="${3:-}"
case "$nvcc" in *NOTFOUND) nvcc="" ;; esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
test -f "$work/prefix/include/autotune/autotune.hpp"
test -f "$work/prefix/lib/cmake/autotune/autotuneConfig.cmake" || test -f "$work/prefix/lib64/cmake/autotune/autotuneConfig.cmake"

consume() {  # name, extra configure arguments...
  local name="$1"; shift
  cmake -S "$src/tests/$name" -B "$work/$name" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release "$@" \
    > "$work/$name-configure.log" 2>&1 || { cat "$work/$name-configure.log"; exit 1; }
  cmake --build "$work/$name" -j 2 > "$work/$name-build.log" 2>&1 || { cat "$work/$name-build.log"; exit 1; }
  "$work/$name/$name"
  # NVRTC is loaded at run time (core/nvrtc.hpp): the application must not need it to start.
  if readelf -d "$work/$name/$name" | grep -E 'NEEDED.*(libnvrtc|libcuda\.so)'; then
    echo "FAIL: $name links NVRTC or the driver"; exit 1
  fi
}
consume consumer
if [ -n "$nvcc" ]; then
  # Nothing but find_package + target_link_libraries: C++20 for nvcc comes from the package.
  consume consumer_cuda -DCMAKE_CUDA_COMPILER="$nvcc"
  grep -q -- '-std=c++20' "$work/consumer_cuda/CMakeFiles/consumer_cuda.dir/flags.make" \
    || { echo "FAIL: nvcc was not given -std=c++20"; exit 1; }
else
  echo "install_consumer: no CUDA compiler in this build; the .cu consumer (tests/consumer_cuda) was not built"
fi
