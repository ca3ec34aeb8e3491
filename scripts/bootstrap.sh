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
test_packages=()
cmake_args=()
for a in "$@"; do
  if [ "$a" = "--test" ]; then test_packages=(chromium python3); else cmake_args+=("$a"); fi
done
missing_of() {  # the packages given that are not installed, one per line
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}
sudo_cmd=""; [ "$(id -u)" = 0 ] || sudo_cmd="sudo"
updated=""
install() {
  echo "bootstrap: installing $*"
  [ -n "$updated" ] || $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "$@"
}
mapfile -t missing < <(missing_of "${packages[@]}")
if [ ${#missing[@]} -gt 0 ]; then install "${missing[@]}"; updated=1; fi
# What only the tests need (Chromium is most of it: about 40 s of download and unpacking on CI's machine) is
# installed while the build compiles; its log is printed, and a failure fails the script, once the build is done.
test_install="" test_log=""
finish_test_install() {
  [ -n "$test_install" ] || return 0
  local status=0
  wait "$test_install" || status=$?
  test_install=""
  cat "$test_log" && rm -f "$test_log"
  [ "$status" = 0 ] || echo "bootstrap: installing the test packages failed (exit $status)" >&2
  return "$status"
}
trap 'finish_test_install >/dev/null 2>&1' EXIT  # never leave apt running when the build stops the script
mapfile -t test_missing < <(missing_of ${test_packages[@]+"${test_packages[@]}"})
if [ ${#test_missing[@]} -gt 0 ]; then
  test_log="$(mktemp)"
  install "${test_missing[@]}" >"$test_log" 2>&1 &
  test_install=$!
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
finish_test_install
