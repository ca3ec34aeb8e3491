#!/usr/bin/env bash
# The portable package (-DAUTOTUNE_PORTABLE=ON) needs only the CUDA toolkit: configures a portable build of the
# library alone (its own build directory; the tool, tests and CUB are off to keep this short), installs the `dev`
# component, and builds tests/consumer against it with the system prefixes ignored, so SQLite's and SQLiteCpp's
# packages cannot be found. The consumer must configure, link and run without them, and its binary must not need
# libsqlite3 (carried statically) nor NVRTC (loaded at run time). Arguments: the source directory, the CUDA toolkit root.
set -euo pipefail
src="$1" cuda_root="$2"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
step() {  # log name, command...
  local log="$work/$1.log" name="$1" start=$SECONDS; shift
  "$@" > "$log" 2>&1 || { cat "$log"; echo "FAIL: $*"; exit 1; }
  echo "portable_consumer: $name took $((SECONDS - start)) s"
}
step configure cmake -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DAUTOTUNE_PORTABLE=ON \
  -DAUTOTUNE_BUILD_TESTS=OFF -DAUTOTUNE_BUILD_EXAMPLES=OFF -DAUTOTUNE_WITH_CUB=OFF -DCUDAToolkit_ROOT="$cuda_root"
step build cmake --build "$work/build" --target autotune -j 2
step install cmake --install "$work/build" --component dev --prefix "$work/prefix"
ls "$work"/prefix/lib*/autotune/libsqlite3.a > /dev/null

# What the consumer sees: nothing of the system prefixes (Debian's SQLite and SQLiteCpp live in /usr, reachable as
# /lib through the /usr merge, whence the "/" prefix of /bin in PATH). The probe
# proves that hiding works, so the consumer's success below means the package found no SQLite, not that it was hidden
# badly.
hide=(-DCMAKE_IGNORE_PREFIX_PATH="/;/usr;/usr/local" -DCMAKE_BUILD_TYPE=Release -DCUDAToolkit_ROOT="$cuda_root")
mkdir -p "$work/probe"
cat > "$work/probe/CMakeLists.txt" <<'PROBE'
cmake_minimum_required(VERSION 3.24)
project(probe LANGUAGES CXX)
find_package(SQLite3 QUIET)
find_package(SQLiteCpp QUIET)
if(SQLite3_FOUND OR SQLiteCpp_FOUND)
  message(FATAL_ERROR "SQLite3 or SQLiteCpp is still findable: the test cannot show that the package needs neither")
endif()
PROBE
step probe cmake -S "$work/probe" -B "$work/probe/build" "${hide[@]}"

step consumer-configure cmake -S "$src/tests/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" "${hide[@]}"
step consumer-build cmake --build "$work/consumer" -j 2
"$work/consumer/consumer"
if ldd "$work/consumer/consumer" | grep -E 'libsqlite3|libSQLiteCpp|libxxhash|libnvrtc'; then
  echo "FAIL: the portable consumer needs a shared library the package should carry or load at run time"; exit 1
fi
echo "portable_consumer: ok ($(ldd "$work/consumer/consumer" | wc -l) shared libraries, none of SQLite, xxHash, NVRTC)"
