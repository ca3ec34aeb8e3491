#!/usr/bin/env bash
# The portable package (-DAUTOTUNE_PORTABLE=ON) needs only the CUDA toolkit: configures a portable build of the
# library alone (its own build directory; the tool, tests and CUB are off), installs the `dev` component, and builds
# tests/consumer against it with the system prefixes ignored, so SQLite's and SQLiteCpp's packages cannot be found. The
# consumer must configure, link and run without them, and its binary must not need libsqlite3 (carried statically)
# nor NVRTC (loaded at run time). Arguments: the source directory, the CUDA toolkit root, and optionally the main
# build directory.
#
# AUTOTUNE_PORTABLE changes how the library is linked and packaged, not how it is compiled. When the main build's
# library was compiled by exactly the commands the portable configuration generates (compared below, build
# directories aside), its archive is the one the portable build would make, and is installed instead of compiling the
# library a second time; otherwise (or without the main build directory) the library is built here.
set -euo pipefail
src="$1" cuda_root="$2" main_build="${3:-}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
step() {  # log name, command...
  local log="$work/$1.log" name="$1" start=$SECONDS; shift
  "$@" > "$log" 2>&1 || { cat "$log"; echo "FAIL: $*"; exit 1; }
  echo "portable_consumer: $name took $((SECONDS - start)) s"
}
# The main build's compiler, flags, build type and unity setting, so that the two configurations can compile alike.
same=()
if [ -n "$main_build" ]; then
  bt=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$main_build/CMakeCache.txt")
  for v in CMAKE_BUILD_TYPE CMAKE_CXX_COMPILER CMAKE_CXX_COMPILER_LAUNCHER CMAKE_CXX_FLAGS \
           "CMAKE_CXX_FLAGS_${bt^^}" AUTOTUNE_UNITY_BUILD AUTOTUNE_SANITIZE; do
    line=$(grep -E "^$v:[A-Z]*=" "$main_build/CMakeCache.txt" || true)
    [ -n "$line" ] && same+=("-D${line}")
  done
else
  same=(-DCMAKE_BUILD_TYPE=Release)
fi
step configure cmake -S "$src" -B "$work/build" "${same[@]}" -DAUTOTUNE_PORTABLE=ON -DAUTOTUNE_BUILD_TESTS=OFF \
  -DAUTOTUNE_BUILD_EXAMPLES=OFF -DAUTOTUNE_WITH_CUB=OFF -DCUDAToolkit_ROOT="$cuda_root" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON

# The library's compile commands in a build directory, that directory replaced by a placeholder, sorted; with the text
# of each unity source, which the command names but does not show (written at configure time; the embedded templates
# are generated at build time, from the same source files).
library_commands() {
  python3 - "$1" <<'PY'
import hashlib, json, sys
build = sys.argv[1].rstrip("/")
entries = json.load(open(build + "/compile_commands.json"))
for e in sorted(entries, key=lambda e: e["file"]):
    if "CMakeFiles/autotune.dir/" not in e["command"]:
        continue
    line = e["file"] + " " + e["command"]
    if e["file"].startswith(build + "/CMakeFiles/"):
        line += " " + hashlib.sha256(open(e["file"], "rb").read().replace(build.encode(), b"<build>")).hexdigest()
    print(line.replace(build, "<build>"))
PY
}
if [ -n "$main_build" ] && [ -f "$main_build/libautotune.a" ] && [ -f "$main_build/compile_commands.json" ] &&
   library_commands "$main_build" > "$work/main.commands" && library_commands "$work/build" > "$work/portable.commands" &&
   [ -s "$work/main.commands" ] && cmp -s "$work/main.commands" "$work/portable.commands"; then
  cp "$main_build/libautotune.a" "$work/build/libautotune.a"
  echo "portable_consumer: the library's $(wc -l < "$work/main.commands") compile commands are the main build's:" \
       "its archive is installed"
else
  if [ -s "$work/main.commands" ]; then diff "$work/main.commands" "$work/portable.commands" | head -n 4 || true; fi
  echo "portable_consumer: no main build whose library compiles alike: building the library"
  step build cmake --build "$work/build" --target autotune -j 2
fi
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
