#!/usr/bin/env bash
# Installs what is missing (Debian/Ubuntu packages), configures and builds autotune into ./build (or $BUILD_DIR).
# Extra arguments go to the CMake configure step, e.g. scripts/bootstrap.sh -DAUTOTUNE_PORTABLE=ON.
# --test also installs what the tests need beyond the build: Chromium and python3, for tests/report_check.sh
# (the HTML report rendered headless).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${BUILD_DIR:-build}"

packages=(cmake g++ make libboost-program-options-dev libsqlite3-dev libsqlitecpp-dev doctest-dev libfmt-dev
          nlohmann-json3-dev libxxhash-dev nettle-dev)
cmake_args=()
for a in "$@"; do
  if [ "$a" = "--test" ]; then packages+=(chromium python3); else cmake_args+=("$a"); fi
done
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "bootstrap: installing ${missing[*]}"
  sudo_cmd=""; [ "$(id -u)" = 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

cuda_root="${CUDA_HOME:-/usr/local/cuda}"
if [ ! -x "$cuda_root/bin/nvcc" ] && ! command -v nvcc >/dev/null; then
  echo "bootstrap: the CUDA toolkit (12.5 or newer, for NVRTC and the CUDA runtime) was not found at $cuda_root;" \
       "install it or set CUDA_HOME" >&2
  exit 1
fi
export PATH="$cuda_root/bin:$PATH"

cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release ${cmake_args[@]+"${cmake_args[@]}"}
cmake --build "$build_dir" -j "$(nproc)"
